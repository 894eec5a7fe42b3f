//! The one error type of state loading: a machine-readable code, a message, and where.

use std::fmt;

/// What kind of problem a state file has; the API's `error.code` is its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidJson,
    UnsupportedVersion,
    UnknownFeature,
    InvalidState,
    DanglingReference,
    PassphraseRequired,
    WrongPassphrase,
    InvalidSecret,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::UnknownFeature => "unknown_feature",
            ErrorCode::InvalidState => "invalid_state",
            ErrorCode::DanglingReference => "dangling_reference",
            ErrorCode::PassphraseRequired => "passphrase_required",
            ErrorCode::WrongPassphrase => "wrong_passphrase",
            ErrorCode::InvalidSecret => "invalid_secret",
        }
    }
}

/// A state file that cannot be loaded. `path` is a JSON path into the file as uploaded
/// (e.g. `checkpoint.latest.resources[3].parent`) when the problem has one place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct StateError {
    pub code: ErrorCode,
    pub message: String,
    pub path: Option<String>,
}

impl StateError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        StateError { code, message: message.into(), path: None }
    }

    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{} (at {})", self.message, path),
            None => f.write_str(&self.message),
        }
    }
}
