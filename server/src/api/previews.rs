//! The API's previews: a spec, a program or a project zip previewed against a stack, the
//! stored preview, its commit and the code for it.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_service::{CodeRequest, Ferry, PreviewRequest, PreviewSource};
use ferry_types::api::CommitQuery;
use ferry_types::previews::{CodeQuery, ScopeQuery};

use super::shared::*;
use crate::error::ApiError;
use crate::extract::ApiQuery;

/// `POST /api/v1/stacks/{id}/previews`: runs a preview and stores it; nothing is written to
/// the stack. The body is an import spec (JSON), a Pulumi YAML program (`Content-Type:
/// application/yaml`), a project zip (`application/zip`), or `{"program", "config",
/// "mapping"}` as JSON.
pub(super) async fn create_preview(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<ScopeQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes =
        read_body(body, &headers, ferry.max_state_bytes(), "the import spec or program").await?;
    let content_type =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let mut request =
        PreviewRequest::from_body(&bytes, content_type, query.scope.unwrap_or_default())?;
    if let PreviewSource::Program(program) = &mut request.source {
        program.passphrase = passphrase(&headers)?;
    }
    let record = ferry.previews().preview(&id, request).await?;
    Ok((StatusCode::CREATED, Json(record.view())).into_response())
}

pub(super) async fn get_preview(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().stored_preview(&id).await?.view()).into_response())
}

/// `POST /api/v1/previews/{id}/commit`: the preview's ready resources become the stack's next
/// version (refused if the stack changed since the preview). For a program's plan,
/// `?apply=true` lets Ferry run its creates, updates, replacements and deletes.
pub(super) async fn commit_preview(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<CommitQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let outcome = ferry.workflow().commit_preview(&id, passphrase(&headers)?, q.apply).await?;
    Ok((StatusCode::CREATED, Json(outcome)).into_response())
}

/// `GET /api/v1/previews/{id}/code`: code for the preview's ready resources.
pub(super) async fn preview_code(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<CodeQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (request, json) = CodeRequest::from_query(&q)?;
    let code =
        ferry.previews().preview_code(&id, &request, passphrase(&headers)?.as_deref()).await?;
    Ok(code_response(code, json))
}

/// `GET /api/v1/stacks/{id}/code`: code for the stack's resources (all, or `urn=`).
pub(super) async fn stack_code(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<CodeQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (request, json) = CodeRequest::from_query(&q)?;
    let urns: Vec<String> = ferry_service::comma_list(&q.urn).into_iter().collect();
    let code = ferry
        .previews()
        .stack_code(&id, q.version, &urns, &request, passphrase(&headers)?.as_deref())
        .await?;
    Ok(code_response(code, json))
}
