//! The API's plans: revisions, background previews and their jobs, share links and the
//! shared views, and migrations from Terraform that make a plan.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::{Ferry, JobView, PlanInput};
use ferry_types::api::{self, RevisionQuery};

use super::shared::*;
use crate::access::AuditPlan;
use crate::error::ApiError;
use crate::extract::ApiQuery;
use ferry_service::access::Caller;
use ferry_service::ServiceError;

pub(super) fn plan_input(bytes: &[u8]) -> Result<PlanInput, ApiError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::from(ServiceError::Plan(format!("the plan: {e}"))))
}

/// `POST /api/v1/stacks/{id}/plans` with `{"title"?, "spec"?, "program"?, "options"?}`.
pub(super) async fn create_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, ferry.max_state_bytes(), "the plan").await?;
    let plan = ferry.plans().create_plan(&caller, &id, plan_input(&bytes)?).await?;
    let audited = Extension(AuditPlan(plan.plan.id.clone()));
    Ok((StatusCode::CREATED, audited, Json(plan)).into_response())
}

/// `POST /api/v1/stacks/{id}/migrations/terraform?title=&include_tainted=&include_deposed=`
/// with a Terraform or OpenTofu state file (or `show -json` output) as the body, or, with the
/// configuration it was applied from, as `multipart/form-data`: a `state` part and
/// `configuration` parts (each `.tf` file named by its path in the configuration's folder, or
/// a zip of the folder). `201 {plan, resources, notes}` with a plan importing every instance a
/// plugin maps; `200` with `plan: null` when none does (the rows say why).
pub(super) async fn migrate_terraform(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiQuery(choices): ApiQuery<api::MigrationChoices>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (state, configuration) = match form_boundary(&headers) {
        None => (
            read_body(body, &headers, ferry.max_state_bytes(), "the Terraform state").await?,
            Vec::new(),
        ),
        Some(boundary) => {
            // The state and the configuration together, each held to the largest state Ferry
            // accepts.
            let bytes = read_body(
                body,
                &headers,
                2 * ferry.max_state_bytes(),
                "the Terraform state and configuration",
            )
            .await?;
            migration_parts(bytes, boundary, "state", ferry.max_state_bytes()).await?
        }
    };
    let migration =
        ferry.plans().migrate_terraform(&caller, &id, &state, &configuration, &choices).await?;
    Ok(migration_answer(migration))
}

/// The boundary of a body sent as a form (`multipart/form-data`), if it is one.
fn form_boundary(headers: &HeaderMap) -> Option<String> {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| multer::parse_boundary(v).ok())
}

/// The parts of a migration sent as a form: its `first` part (the `state`, or the `remote`
/// state's location as JSON), and the configuration's `.tf` files (or zips of its folder).
async fn migration_parts(
    bytes: axum::body::Bytes,
    boundary: String,
    first: &str,
    max_bytes: usize,
) -> Result<(axum::body::Bytes, Vec<ferry_types::terraform::ConfigurationFile>), ApiError> {
    let invalid =
        |why: String| ApiError::from(ServiceError::Invalid(format!("the migration's form: {why}")));
    let stream =
        futures_util::stream::once(async move { Ok::<_, std::convert::Infallible>(bytes) });
    let mut form = multer::Multipart::new(stream, boundary);
    let mut main = None;
    let mut configuration = Vec::new();
    while let Some(field) = form.next_field().await.map_err(|e| invalid(e.to_string()))? {
        let name = field.name().unwrap_or_default().to_string();
        let file_name = field.file_name().map(str::to_string);
        let data = field.bytes().await.map_err(|e| invalid(format!("the `{name}` part: {e}")))?;
        match name.as_str() {
            "configuration" => {
                let file_name = file_name.unwrap_or_default();
                if file_name.ends_with(".zip") {
                    configuration.extend(ferry_service::configuration_of_zip(&data, max_bytes)?);
                } else if file_name.ends_with(".tf") {
                    let text = String::from_utf8(data.to_vec())
                        .map_err(|_| invalid(format!("`{file_name}` is not UTF-8 text")))?;
                    configuration
                        .push(ferry_types::terraform::ConfigurationFile { path: file_name, text });
                }
            }
            named if named == first && main.is_none() => main = Some(data),
            named if named == first => {
                return Err(invalid(format!("it holds two `{first}` parts; send one")))
            }
            other => {
                return Err(invalid(format!(
                    "an unknown part `{other}` (send `{first}` and `configuration`)"
                )))
            }
        }
    }
    let what =
        if first == "state" { "the Terraform state" } else { "where the Terraform state is" };
    let main = main.filter(|s| !s.is_empty()).ok_or_else(|| {
        invalid(format!("it has no `{first}` part: send {what} with its configuration"))
    })?;
    Ok((main, configuration))
}

/// A migration's answer: `201` with the plan it made (the audit's record names it), `200` when
/// nothing mapped.
fn migration_answer(migration: ferry_types::terraform::MigrationView) -> Response {
    match &migration.plan {
        Some(plan) => {
            let audited = Extension(AuditPlan(plan.plan.id.clone()));
            (StatusCode::CREATED, audited, Json(migration)).into_response()
        }
        None => Json(migration).into_response(),
    }
}

/// `POST /api/v1/stacks/{id}/migrations/terraform/remote?title=&include_tainted=&include_deposed=`
/// with `{"url", "workspace"?, "workspace_key_prefix"?}`: [`migrate_terraform`] of the state
/// where its backend keeps it (an S3 backend's object or a local backend's file, in a location
/// an administrator allows the stack's organisation).
pub(super) async fn migrate_terraform_remote(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiQuery(choices): ApiQuery<api::MigrationChoices>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // Where the state is, as JSON; or, with the configuration, a form of the two.
    let (location, configuration) = match form_boundary(&headers) {
        None => (
            read_body(body, &headers, 64 * 1024, "where the Terraform state is").await?,
            Vec::new(),
        ),
        Some(boundary) => {
            let bytes = read_body(
                body,
                &headers,
                ferry.max_state_bytes(),
                "where the Terraform state is and its configuration",
            )
            .await?;
            migration_parts(bytes, boundary, "remote", ferry.max_state_bytes()).await?
        }
    };
    let remote: ferry_types::terraform::RemoteState =
        serde_json::from_slice(&location).map_err(|e| {
            ApiError::from(ServiceError::Invalid(format!("where the Terraform state is: {e}")))
        })?;
    let migration = ferry
        .plans()
        .migrate_terraform_remote(&caller, &id, &remote, &configuration, &choices)
        .await?;
    Ok(migration_answer(migration))
}

/// `GET /api/v1/stacks/{id}/migrations/terraform/workspaces?url=&workspace_key_prefix=`: the
/// workspaces with a state of the Terraform backend whose default state is at `url`.
pub(super) async fn terraform_workspaces(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(remote): ApiQuery<ferry_types::terraform::RemoteState>,
) -> Result<Response, ApiError> {
    let workspaces = ferry.plans().terraform_workspaces(&id, &remote).await?;
    Ok(Json(ferry_types::terraform::Workspaces { workspaces }).into_response())
}

/// Its text masked for callers who may not edit it.
pub(super) async fn get_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().plan_view_for(&caller, &id, None).await?).into_response())
}

pub(super) async fn get_plan_revision(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((id, revision)): Path<(String, i64)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().plan_view_for(&caller, &id, Some(revision)).await?).into_response())
}

/// `POST /api/v1/plans/{id}/revisions`: saves the next revision (checked first).
pub(super) async fn save_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, ferry.max_state_bytes(), "the plan").await?;
    let plan = ferry.plans().save_plan(&caller, &id, plan_input(&bytes)?).await?;
    Ok((StatusCode::CREATED, Json(plan)).into_response())
}

/// `POST /api/v1/plans/{id}/previews`: starts a background preview of the revision; `202`
/// with the job, whose progress `GET …/jobs/{job}/events` streams. The stack's passphrase
/// (`X-Ferry-Passphrase`), when given, decrypts what a program's resources hold in the stack,
/// for this run only: it is kept by the process running the job and never stored.
pub(super) async fn start_plan_preview(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<RevisionQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let job = ferry.plans().start_plan_preview(&id, q.revision, passphrase(&headers)?).await?;
    Ok((StatusCode::ACCEPTED, Json(job)).into_response())
}

pub(super) async fn list_jobs(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    ferry.plans().plan_view(&id, None, false).await?;
    Ok(Json(ferry.jobs().plan_jobs(&id).await?).into_response())
}

pub(super) async fn get_job(
    State(ferry): State<Arc<Ferry>>,
    Path((id, job)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().get::<JobView>(&job, Some(&id)).await?).into_response())
}

pub(super) async fn cancel_job(
    State(ferry): State<Arc<Ferry>>,
    Path((id, job)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.jobs().cancel::<JobView>(&job, Some(&id)).await?).into_response())
}

/// `GET …/jobs/{job}/events`: server-sent events, one `resource` per finished resource (the
/// ones already reported first, so a page that comes back catches up), then `end` with the job
/// (without its events: the stream gave them).
/// Any instance serves any job: the events come from the store.
pub(super) async fn job_events(
    State(ferry): State<Arc<Ferry>>,
    Path((id, job)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(job_stream(ferry.jobs().follow_job::<JobView>(&job, Some(&id)).await?, "resource"))
}

pub(super) async fn create_share(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok((StatusCode::CREATED, Json(ferry.plans().share_plan(&id).await?)).into_response())
}

pub(super) async fn list_shares(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().plan_shares(&id).await?).into_response())
}

pub(super) async fn revoke_share(
    State(ferry): State<Arc<Ferry>>,
    Path((id, link)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().revoke_plan_share(&id, &link).await?).into_response())
}

/// `GET /api/v1/shared/{token}`: the plan, read-only (no plan or preview IDs).
pub(super) async fn get_shared_plan(
    State(ferry): State<Arc<Ferry>>,
    Path(token): Path<String>,
    ApiQuery(q): ApiQuery<RevisionQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().shared_plan(&token, q.revision).await?).into_response())
}

pub(super) async fn get_shared_preview(
    State(ferry): State<Arc<Ferry>>,
    Path((token, index)): Path<(String, usize)>,
    ApiQuery(q): ApiQuery<RevisionQuery>,
) -> Result<Response, ApiError> {
    let record = ferry.previews().shared_preview(&token, q.revision, index).await?;
    Ok(Json(record.view()).into_response())
}

/// `GET /api/v1/plans?org=&stack=&state=&author=&awaiting=me&cursor=&limit=`: the plans of the
/// organisations the caller may read, newest activity first, a page at a time.
pub(super) async fn list_plans(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    ApiQuery(query): ApiQuery<ferry_types::plans::PlanListQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().list_plans(&caller, &query).await?).into_response())
}

/// `GET /api/v1/stacks/{id}/plans?…`: the stack's plans, with the same filters.
pub(super) async fn stack_plans(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiQuery(mut query): ApiQuery<ferry_types::plans::PlanListQuery>,
) -> Result<Response, ApiError> {
    query.stack = Some(id);
    Ok(Json(ferry.workflow().list_plans(&caller, &query).await?).into_response())
}

/// `GET /api/v1/plans/{id}/status`: where the plan stands and what blocks its commit.
pub(super) async fn plan_status(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().plan_status(&id).await?).into_response())
}

/// `POST /api/v1/plans/{id}/close`: abandons the plan (its authors, or an administrator).
pub(super) async fn close_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().close_plan(&caller, &id).await?).into_response())
}

/// `POST /api/v1/plans/{id}/reopen`: a closed plan takes the state its history gives it again.
pub(super) async fn reopen_plan(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().reopen_plan(&caller, &id).await?).into_response())
}
