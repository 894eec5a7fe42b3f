//! The API's discovery: what a stack's providers can list, the listing as a job, a quick
//! probe of results, and a selection made into a plan.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::{DiscoveryView, Ferry};
use ferry_types::api::{DiscoveredToPlan, ProbeRequest};

use super::shared::*;
use crate::access::AuditPlan;
use crate::error::ApiError;
use ferry_service::access::Caller;

/// `GET /api/v1/stacks/{id}/discoveries/types`: what the stack's providers and the installed
/// plugins can list, with each type's filter.
pub(super) async fn listable_types(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.discoveries().listable_types(&id).await?).into_response())
}

/// `POST /api/v1/stacks/{id}/discoveries` `{types: [{type, query?, limit?, pageSize?}]}`: starts
/// listing in the background (202); watch `/discoveries/{job}/events`.
pub(super) async fn start_discovery(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let request: ferry_service::DiscoveryRequest =
        read_json(body, &headers, 1024 * 1024, "the discovery request").await?;
    Ok((StatusCode::ACCEPTED, Json(ferry.discoveries().start_discovery(&id, request).await?))
        .into_response())
}

pub(super) async fn get_discovery(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().get::<DiscoveryView>(&id, None).await?).into_response())
}

pub(super) async fn cancel_discovery(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().cancel::<DiscoveryView>(&id, None).await?).into_response())
}

/// Server-sent events: one `result`/`page`/`not-listable`/`failed` event per find, then `end`
/// with the whole job.
pub(super) async fn discovery_events(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(job_stream(ferry.jobs().follow_job::<DiscoveryView>(&id, None).await?, "discovery"))
}

/// `POST /api/v1/stacks/{id}/discoveries/probe` `{items: [{type, id}]}`: a quick `Read` of each.
pub(super) async fn probe_discovered(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body: ProbeRequest =
        read_json(body, &headers, 4 * 1024 * 1024, "the probe request").await?;
    Ok(Json(ferry.discoveries().probe(&id, &body.items).await?).into_response())
}

/// `POST /api/v1/stacks/{id}/discoveries/plan` `{items: [{type, id, name}], planId?}`: the
/// selection as spec entries of a new plan (201) or a new revision of `planId` (200).
pub(super) async fn discovered_to_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body: DiscoveredToPlan =
        read_json(body, &headers, 4 * 1024 * 1024, "the selection").await?;
    let plan = ferry
        .discoveries()
        .add_discovered_to_plan(&caller, &id, &body.items, body.plan_id.as_deref())
        .await?;
    let status = if body.plan_id.is_some() { StatusCode::OK } else { StatusCode::CREATED };
    // The plan's timeline starts with this record.
    let audited = Extension(AuditPlan(plan.plan.id.clone()));
    Ok((status, audited, Json(plan)).into_response())
}
