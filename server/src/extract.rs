//! Extractors that fail as every other error of the API does: axum's `Json` and `Query` answer a
//! body or query they cannot read with plain text; these answer Ferry's error body
//! (`{"error": {"code": "bad_request", "message"}}`), keeping the status axum chose (400, 415,
//! 422) and its reason.
//!
//! Architecture Invariant: a route of `/api/v1` reads the query type its endpoint declares
//! (`ferry_types::api`), the one the OpenAPI document lists; debug builds, which every test runs,
//! check it on each request.

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

impl<S: Send + Sync, T: DeserializeOwned + 'static> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        #[cfg(debug_assertions)]
        check_declared::<T>(parts);
        let axum::extract::Query(value) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// Panics when the endpoint `parts` reaches declares a query type other than `T`: the handler
/// and the declaration disagree, a bug of this crate the API tests meet first.
#[cfg(debug_assertions)]
fn check_declared<T: 'static>(parts: &Parts) {
    use ferry_types::api;
    let Some(path) = parts.uri.path().strip_prefix(api::PREFIX) else { return };
    let method = match parts.method.as_str() {
        "GET" | "HEAD" => api::Method::Get,
        "POST" => api::Method::Post,
        "PUT" => api::Method::Put,
        "DELETE" => api::Method::Delete,
        _ => return,
    };
    if let Some(endpoint) = api::endpoint_of(method, path) {
        assert!(
            (endpoint.query.type_id)() == Some(std::any::TypeId::of::<T>()),
            "{} {} ({}) reads a query of type {} that its endpoint does not declare",
            method.as_str(),
            endpoint.path,
            endpoint.name,
            std::any::type_name::<T>()
        );
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::check_declared;

    fn parts(uri: &str) -> axum::http::request::Parts {
        axum::http::Request::get(uri).body(()).unwrap().into_parts().0
    }

    #[test]
    fn the_query_type_an_endpoint_declares_is_read_without_a_word() {
        check_declared::<ferry_types::ResultQuery>(&parts("/api/v1/previews/p1/results?limit=5"));
        // Outside the API, nothing is declared.
        check_declared::<ferry_types::api::UrnQuery>(&parts("/auth/oidc/login"));
    }

    #[test]
    #[should_panic(expected = "GET /previews/{id}/results (RESULTS) reads a query of type")]
    fn another_type_is_a_bug_said_at_once() {
        check_declared::<ferry_types::api::UrnQuery>(&parts("/api/v1/previews/p1/results"));
    }
}
