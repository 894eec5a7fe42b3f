//! The API's one error type: every failure becomes `{"error": {"code", "message", "path"?}}`
//! with a status that says whose fault it was.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_service::ServiceError;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub path: Option<String>,
    /// More about the error (e.g. every problem of an import spec); boxed, so that the error
    /// every handler returns stays small.
    pub details: Option<Box<serde_json::Value>>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into(), path: None, details: None }
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", what)
    }
}

/// The HTTP status of each service error, by its variant (no wildcard over the service's
/// variants: a new one must be given its status here).
fn status_of(e: &ServiceError) -> StatusCode {
    use ferry_state::ErrorCode;
    use ferry_store::StoreError;
    match e {
        ServiceError::State(s) => match s.code {
            ErrorCode::PassphraseRequired | ErrorCode::WrongPassphrase => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::InvalidJson
            | ErrorCode::UnsupportedVersion
            | ErrorCode::UnknownFeature
            | ErrorCode::InvalidState
            | ErrorCode::DanglingReference
            | ErrorCode::InvalidSecret => StatusCode::BAD_REQUEST,
        },
        ServiceError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        ServiceError::NameRequired { .. } | ServiceError::StackMismatch { .. } | ServiceError::Spec(_) | ServiceError::Program(_) | ServiceError::Plan(_) => {
            StatusCode::BAD_REQUEST
        }
        ServiceError::JobNotFound(_) | ServiceError::ResourceNotFound { .. } => StatusCode::NOT_FOUND,
        ServiceError::Code(_) | ServiceError::Commit(_) => StatusCode::UNPROCESSABLE_ENTITY,
        ServiceError::Store(store) => match store {
            StoreError::StackNotFound(_)
            | StoreError::VersionNotFound { .. }
            | StoreError::PreviewNotFound(_)
            | StoreError::PlanNotFound(_)
            | StoreError::PlanRevisionNotFound { .. }
            | StoreError::ShareNotFound
            | StoreError::UserNotFound(_)
            | StoreError::TokenNotFound
            | StoreError::CommentNotFound(_)
            | StoreError::JobNotFound(_) => StatusCode::NOT_FOUND,
            StoreError::UserExists(_) | StoreError::StackExists(_) => StatusCode::CONFLICT,
            StoreError::StalePreview { .. } | StoreError::AlreadyCommitted { .. } => StatusCode::CONFLICT,
            StoreError::InvalidName(_) => StatusCode::BAD_REQUEST,
            StoreError::Database(_)
            | StoreError::Migration(_)
            | StoreError::UnsupportedDatabase(_)
            | StoreError::DamagedExport { .. }
            | StoreError::DamagedPreview { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        },
        ServiceError::Backend(b) => match b {
            ferry_backend::BackendError::Locked { .. } => StatusCode::CONFLICT,
            ferry_backend::BackendError::NoStack(_) => StatusCode::NOT_FOUND,
            ferry_backend::BackendError::Url { .. } | ferry_backend::BackendError::Unreadable { .. } => StatusCode::BAD_REQUEST,
            ferry_backend::BackendError::Storage { .. } => StatusCode::BAD_GATEWAY,
        },
        ServiceError::BackendNotAllowed { .. } => StatusCode::FORBIDDEN,
        ServiceError::BackendChanged { .. } => StatusCode::CONFLICT,
        ServiceError::Invalid(_) => StatusCode::BAD_REQUEST,
        ServiceError::SignInRequired | ServiceError::BadCredentials(_) => StatusCode::UNAUTHORIZED,
        ServiceError::Forbidden(_) => StatusCode::FORBIDDEN,
        ServiceError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
        ServiceError::Conflict(_) | ServiceError::NeedsApproval(_) => StatusCode::CONFLICT,
        ServiceError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        let status = status_of(&e);
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %e, "request failed");
        }
        let message = match &e {
            // The path travels separately; keep the message itself clean.
            ServiceError::State(state) => state.message.clone(),
            other => other.to_string(),
        };
        let details = match &e {
            ServiceError::Spec(spec) => Some(json!({"errors": spec.errors, "warnings": spec.warnings})),
            ServiceError::Program(program) => Some(json!({"diagnostics": program.diagnostics})),
            // The names the file carries, for a form to offer.
            ServiceError::StackMismatch { carried, .. } => Some(json!({"names": carried})),
            _ => None,
        };
        ApiError { status, code: e.code(), message, path: e.path().map(str::to_string), details: details.map(Box::new) }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(path) = self.path {
            error["path"] = json!(path);
        }
        if let Some(serde_json::Value::Object(details)) = self.details.map(|d| *d) {
            for (k, v) in details {
                error[k] = v;
            }
        }
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}
