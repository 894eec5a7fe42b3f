//! The API's one error type: every failure becomes `{"error": {"code", "message", "path"?}}`
//! with a status that says whose fault it was.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_service::ServiceError;
use ferry_types::{ErrorBody, ErrorDetail};
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
    /// The stack names an uploaded state carries, for a form to offer.
    pub names: Vec<String>,
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
            ServiceError::Spec(spec) => {
                Some(json!({"errors": spec.errors, "warnings": spec.warnings}))
            }
            ServiceError::Program(program) => Some(json!({"diagnostics": program.diagnostics})),
            _ => None,
        };
        let names = match &e {
            ServiceError::StackMismatch { carried, .. } => carried.clone(),
            _ => Vec::new(),
        };
        ApiError {
            status,
            code: e.code(),
            message,
            path: e.path().map(str::to_string),
            details: details.map(Box::new),
            names,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let details = match self.details.map(|d| *d) {
            Some(serde_json::Value::Object(details)) => details,
            _ => Default::default(),
        };
        let error = ErrorDetail {
            code: self.code.to_string(),
            message: self.message,
            path: self.path,
            names: self.names,
            details,
        };
        (self.status, Json(ErrorBody { error })).into_response()
    }
}
