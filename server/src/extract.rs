//! Extractors that fail as every other error of the API does: axum's `Json` and `Query` answer a
//! body or query they cannot read with plain text; these answer Ferry's error body
//! (`{"error": {"code": "bad_request", "message"}}`), keeping the status axum chose (400, 415,
//! 422) and its reason.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use ferry_service::ServiceError;

/// A JSON request body of type `T`.
pub struct ApiJson<T>(pub T);

/// A query string of type `T`.
pub struct ApiQuery<T>(pub T);

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        ApiError::from(ServiceError::Unreadable {
            status: rejection.status().as_u16(),
            message: format!("the request body: {}", rejection.body_text()),
        })
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::from(ServiceError::Unreadable {
            status: rejection.status().as_u16(),
            message: format!("the query string: {}", rejection.body_text()),
        })
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(value) = axum::Json::<T>::from_request(req, state).await?;
        Ok(ApiJson(value))
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(value) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}
