//! The API's identification: a program's would-be creates identified against a stack as a job
//! (each tried as an import under an ID its type's recipe builds, proven by `Read`; nothing
//! kept), and a person's choices written into a plan's next revision.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::access::Caller;
use ferry_service::{Ferry, ProgramRequest, ProgramSource};
use ferry_types::identify::{IdentificationChoices, IdentificationJob, IdentifyRequest};

use super::shared::*;
use crate::error::ApiError;

/// The largest identification request: a program (as a preview's) and the IDs typed for it.
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024 + 64 * 1024;

/// `POST /api/v1/stacks/{id}/identifications`: `{"program", "ids"?}` → an identification job
/// (202): follow `/identifications/{job}/events`, whose `row` events are the table (`type`,
/// `name`, `urn`, `id`, `source`, `status`, `differences`, and the recipe for a form); or read
/// the finished job, which holds it. A program that does not read is refused at once.
pub(super) async fn start_identification(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let request: IdentifyRequest =
        read_json(body, &headers, MAX_REQUEST_BYTES, "the identification request").await?;
    let program = ProgramRequest {
        passphrase: passphrase(&headers)?,
        ..ProgramRequest::new(ProgramSource::Yaml(request.program))
    };
    let job = ferry.previews().start_identification(&id, program, request.ids).await?;
    Ok((StatusCode::ACCEPTED, Json(job)).into_response())
}

/// `GET /api/v1/identifications/{id}`: the job, with its table once it is done.
pub(super) async fn get_identification(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().get::<IdentificationJob>(&id, None).await?).into_response())
}

/// Server-sent events: an `identification` event per resource done (`kind: resource`), then
/// per row of the table (`kind: row`), then `end` with the job.
pub(super) async fn identification_events(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(job_stream(ferry.jobs().follow_job::<IdentificationJob>(&id, None).await?, "identification"))
}

/// `POST /api/v1/identifications/{id}/cancel`: stops the job's `Read`s; nothing was kept.
pub(super) async fn cancel_identification(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().cancel::<IdentificationJob>(&id, None).await?).into_response())
}

/// `POST /api/v1/plans/{id}/identifications`: `{"choices": [{"name", "choice", "id"?}]}`
/// written into the plan's program as its next revision, which is then previewed.
pub(super) async fn choose_identifications(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let choices: IdentificationChoices =
        read_json(body, &headers, 1024 * 1024, "the identification choices").await?;
    let plan = ferry.plans().choose_identifications(&caller, &id, choices).await?;
    let job = ferry.plans().start_plan_preview(&id, None, passphrase(&headers)?).await?;
    let revised = ferry_types::api::RevisedPlan { plan, job };
    Ok((StatusCode::CREATED, Json(revised)).into_response())
}
