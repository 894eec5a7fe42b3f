//! Stack names: `org/project/stack`, as Pulumi's backends spell them.

use std::fmt;

/// A validated `org/project/stack` name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StackName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid stack name `{name}`: {reason}")]
pub struct InvalidStackName {
    pub name: String,
    pub reason: &'static str,
}

impl StackName {
    pub fn parse(name: &str) -> Result<StackName, InvalidStackName> {
        let invalid = |reason| InvalidStackName { name: name.to_string(), reason };
        let parts: Vec<&str> = name.split('/').collect();
        if parts.len() != 3 {
            return Err(invalid("expected `org/project/stack`, three parts separated by `/`"));
        }
        for part in parts {
            if part.is_empty() {
                return Err(invalid("a part is empty"));
            }
            if part.len() > 100 {
                return Err(invalid("a part is longer than 100 characters"));
            }
            if !part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
                return Err(invalid("parts may hold only letters, digits, `-`, `_` and `.`"));
            }
            // A name becomes folder and file names (a DIY backend's layout, a project zip's
            // entries): `.` and `..` would name another folder.
            if part.chars().all(|c| c == '.') {
                return Err(invalid("a part may not be `.` or `..` (nor only dots)"));
            }
        }
        Ok(StackName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The project and stack parts (what a state's URNs carry).
    pub fn project_and_stack(&self) -> (&str, &str) {
        let mut parts = self.0.splitn(3, '/').skip(1);
        (parts.next().unwrap_or_default(), parts.next().unwrap_or_default())
    }
}

impl fmt::Display for StackName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
