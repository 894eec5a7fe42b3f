//! The API's identification: a program's would-be creates identified against a stack (each
//! tried as an import under an ID its type's recipe builds, proven by `Read`; nothing kept),
//! and a person's choices written into a plan's next revision.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::access::Caller;
use ferry_service::{Ferry, ProgramRequest, ProgramSource};
use ferry_types::identify::{IdentificationChoices, IdentifyRequest};

use super::shared::*;
use crate::error::ApiError;

/// The largest identification request: a program (as a preview's) and the IDs typed for it.
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024 + 64 * 1024;

/// `POST /api/v1/stacks/{id}/identifications`: `{"program", "ids"?}` → the rows (`type`,
/// `name`, `urn`, `id`, `source`, `status`, `differences`, and the recipe for a form).
pub(super) async fn identify(State(ferry): State<Arc<Ferry>>, Path(id): Path<String>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let request: IdentifyRequest = read_json(body, &headers, MAX_REQUEST_BYTES, "the identification request").await?;
    let program = ProgramRequest {
        source: ProgramSource::Yaml(request.program),
        config: Default::default(),
        mapping: None,
        passphrase: passphrase(&headers)?,
        prior: None,
    };
    let rows = ferry.previews().identify(&id, program, request.ids, None).await?;
    Ok(Json(rows).into_response())
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
    let choices: IdentificationChoices = read_json(body, &headers, 1024 * 1024, "the identification choices").await?;
    let plan = ferry.plans().choose_identifications(&caller, &id, choices).await?;
    let job = ferry.plans().start_plan_preview(&id, None, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "plan": plan, "job": job }))).into_response())
}
