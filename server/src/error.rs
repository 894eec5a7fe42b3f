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
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into(), path: None }
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", what)
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        let status = match e.code() {
            "not_found" => StatusCode::NOT_FOUND,
            "too_large" => StatusCode::PAYLOAD_TOO_LARGE,
            "internal" => StatusCode::INTERNAL_SERVER_ERROR,
            "passphrase_required" | "wrong_passphrase" => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::BAD_REQUEST,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %e, "request failed");
        }
        let message = match &e {
            // The path travels separately; keep the message itself clean.
            ServiceError::State(state) => state.message.clone(),
            other => other.to_string(),
        };
        ApiError { status, code: e.code(), message, path: e.path().map(str::to_string) }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(path) = self.path {
            error["path"] = json!(path);
        }
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}
