//! The API's view of a stored preview's results: its rows, one resource's two sides, its graph and
//! code (for the owner and through a share link), and the resolutions that write a revision.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::Ferry;
use ferry_types::api::{GraphQuery, ResolutionInput, RevisedPlan, UrnQuery, ZeroValuesInput};

use super::shared::*;
use crate::error::ApiError;
use crate::extract::{ApiJson, ApiQuery};
use ferry_service::access::Caller;

pub(super) fn owner(id: String) -> ferry_types::PreviewRef {
    ferry_types::PreviewRef::Owner { preview: id }
}

pub(super) fn shared((token, revision, index): (String, i64, usize)) -> ferry_types::PreviewRef {
    ferry_types::PreviewRef::Shared { token, revision, index }
}

/// `GET …/results?status=&type=&filter=&offset=&limit=`: one page of the preview's results
/// (`{total, matched, offset, rows, statuses, types, zero_or_default}`), filtered on the
/// server; at most 1,000 rows a page.
pub(super) async fn owner_result_rows(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<ferry_types::ResultQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().review_page(&owner(id), &q).await?).into_response())
}

pub(super) async fn owner_result_detail(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<UrnQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().result_detail(&owner(id), &q.urn).await?).into_response())
}

/// `GET …/graph?expand=&full=`: the stack graph with the preview's resources, summarised as
/// the stack's graph is.
pub(super) async fn owner_preview_graph(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<GraphQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().preview_graph(&owner(id), q.summary().as_ref()).await?)
        .into_response())
}

pub(super) async fn shared_result_rows(
    State(ferry): State<Arc<Ferry>>,
    Path(p): Path<(String, i64, usize)>,
    ApiQuery(q): ApiQuery<ferry_types::ResultQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().review_page(&shared(p), &q).await?).into_response())
}

pub(super) async fn shared_result_detail(
    State(ferry): State<Arc<Ferry>>,
    Path(p): Path<(String, i64, usize)>,
    ApiQuery(q): ApiQuery<UrnQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().result_detail(&shared(p), &q.urn).await?).into_response())
}

pub(super) async fn shared_preview_graph(
    State(ferry): State<Arc<Ferry>>,
    Path(p): Path<(String, i64, usize)>,
    ApiQuery(q): ApiQuery<GraphQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().preview_graph(&shared(p), q.summary().as_ref()).await?)
        .into_response())
}

/// Code through a read-only link: the same code, without the preview's ID.
pub(super) async fn shared_preview_code(
    State(ferry): State<Arc<Ferry>>,
    Path(p): Path<(String, i64, usize)>,
    ApiQuery(q): ApiQuery<ferry_types::previews::CodeQuery>,
) -> Result<Response, ApiError> {
    let (request, json) = ferry_service::CodeRequest::from_query(&q)?;
    let id = ferry.previews().preview_id(&shared(p)).await?;
    let code = ferry.previews().preview_code(&id, &request, None).await?;
    Ok(code_response(code, json))
}

/// `POST /api/v1/plans/{id}/resolutions` `{preview, urn, property, action}`: writes the next
/// revision with the resolution applied and starts its preview; `201` with both.
pub(super) async fn resolve(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let request: ResolutionInput = read_json(body, &headers, 64 * 1024, "the resolution").await?;
    let plan = ferry.plans().resolve(&caller, &id, &request.preview, request.resolution).await?;
    let job = ferry.plans().start_plan_preview(&id, None, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(RevisedPlan { plan, job })).into_response())
}

/// `POST /api/v1/plans/{id}/resolutions/zero-values` `{preview, urn?}`: adopts every difference
/// of the resource (or of the whole plan) that is only a zero value or a default, as the next
/// revision, and starts its preview; `201` with both.
pub(super) async fn adopt_zero_values(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let request: ZeroValuesInput = read_json(body, &headers, 64 * 1024, "the request").await?;
    let plan = ferry
        .plans()
        .adopt_zero_values_and_defaults(&caller, &id, &request.preview, request.urn.as_deref())
        .await?;
    let job = ferry.plans().start_plan_preview(&id, None, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(RevisedPlan { plan, job })).into_response())
}

/// `GET /api/v1/previews/{id}/viewed`: the resources of a plan's preview the caller has marked
/// viewed, counted against the results the preview shows.
pub(super) async fn viewed(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().viewed(&caller, &id).await?).into_response())
}

/// `PUT /api/v1/previews/{id}/viewed` (`{urn, viewed}`): marks one resource viewed by the
/// caller, or takes the mark off.
pub(super) async fn mark_viewed(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ferry_types::plans::ViewedMarkInput>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().mark_viewed(&caller, &id, &body).await?).into_response())
}
