//! The HTTP API for scripts and CI: JSON in and out under `/api/v1`.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ferry_service::StackService;
use http_body_util::{BodyExt, Limited};
use serde::Deserialize;

use crate::error::ApiError;
use crate::AppState;

/// The header that carries a state's passphrase; it is never logged or stored.
pub const PASSPHRASE_HEADER: &str = "x-ferry-passphrase";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/stacks", get(list_stacks).post(upload_stack))
        .route("/stacks/{id}", get(stack_summary))
        .route("/stacks/{id}/versions", get(stack_versions))
        .route("/stacks/{id}/export", get(stack_export))
        .route("/stacks/{id}/graph", get(stack_graph))
        .route("/stacks/{id}/resources", get(stack_resources))
        .route("/stacks/{id}/resource", get(stack_resource))
        .route("/stacks/{id}/previews", post(create_preview))
        .route("/previews/{id}", get(get_preview))
        .route("/previews/{id}/commit", post(commit_preview))
        .fallback(|| async { ApiError::not_found("no such API endpoint") })
}

#[derive(Deserialize)]
struct UploadQuery {
    name: Option<String>,
}

#[derive(Deserialize)]
struct VersionQuery {
    version: Option<i64>,
}

#[derive(Deserialize)]
struct ResourceQuery {
    urn: String,
    version: Option<i64>,
}

async fn list_stacks(State(stacks): State<Arc<StackService>>) -> Result<Response, ApiError> {
    Ok(Json(stacks.list().await?).into_response())
}

/// `POST /api/v1/stacks?name=org/project/stack` with a state file as the body.
async fn upload_stack(
    State(stacks): State<Arc<StackService>>,
    Query(query): Query<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the state file").await?;
    let passphrase = passphrase(&headers)?;
    let name = query.name.filter(|n| !n.is_empty());
    let outcome = stacks.upload(name.as_deref(), bytes.to_vec(), passphrase, "upload").await?;
    Ok((StatusCode::CREATED, Json(outcome)).into_response())
}

/// The request body, up to `limit` bytes, or a JSON error naming what was too large.
async fn read_body(body: Body, headers: &HeaderMap, limit: usize, what: &str) -> Result<axum::body::Bytes, ApiError> {
    let too_large = |size: Option<usize>| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            match size {
                Some(size) => format!("{what} is {size} bytes, over the limit of {limit} bytes"),
                None => format!("{what} is over the limit of {limit} bytes"),
            },
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(size) = declared.filter(|&s| s > limit) {
        return Err(too_large(Some(size)));
    }
    let bytes = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                too_large(None)
            } else {
                ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("could not read the body: {e}"))
            }
        })?
        .to_bytes();
    if bytes.is_empty() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "empty_body", format!("send {what} as the request body")));
    }
    Ok(bytes)
}

fn passphrase(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(PASSPHRASE_HEADER) {
        Some(v) => Ok(Some(
            v.to_str()
                .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "the passphrase header is not text"))?
                .to_string(),
        )
        .filter(|p| !p.is_empty())),
        None => Ok(None),
    }
}

/// `POST /api/v1/stacks/{id}/previews` with an import spec as the body: runs the preview and
/// stores it. Nothing is written to the stack.
async fn create_preview(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the import spec").await?;
    let spec = std::str::from_utf8(&bytes)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "invalid_spec", "the import spec is not UTF-8 text"))?;
    let record = stacks.preview_import(&id, spec).await?;
    Ok((StatusCode::CREATED, Json(record)).into_response())
}

async fn get_preview(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.preview(&id).await?).into_response())
}

/// `POST /api/v1/previews/{id}/commit`: the preview's ready resources become the stack's next
/// version (refused if the stack changed since the preview).
async fn commit_preview(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let outcome = stacks.commit_preview(&id, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(outcome)).into_response())
}

async fn stack_summary(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.summary(&id).await?).into_response())
}

async fn stack_versions(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.versions(&id).await?).into_response())
}

/// The version's state as `pulumi stack export` writes it, ready for `pulumi stack import`.
async fn stack_export(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<VersionQuery>,
) -> Result<Response, ApiError> {
    let version = stacks.version(&id, q.version).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], version.export_json.clone()).into_response())
}

async fn stack_graph(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<VersionQuery>,
) -> Result<Response, ApiError> {
    let version = stacks.version(&id, q.version).await?;
    Ok(Json(version.graph()).into_response())
}

async fn stack_resources(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<VersionQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.version(&id, q.version).await?.rows()).into_response())
}

async fn stack_resource(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<ResourceQuery>,
) -> Result<Response, ApiError> {
    let version = stacks.version(&id, q.version).await?;
    let detail = version
        .detail(&q.urn)
        .ok_or_else(|| ApiError::not_found(format!("no resource `{}` in stack `{}`", q.urn, version.summary.name)))?;
    Ok(Json(detail).into_response())
}
