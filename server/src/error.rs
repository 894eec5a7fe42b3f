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

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        // The service's one table gives each error its status and code.
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
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
