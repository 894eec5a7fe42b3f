//! The review workflow's API: comments, approvals, a plan's timeline, and the stack and
//! organisation settings that govern review and links.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::access::Caller;
use ferry_service::Ferry;

use crate::error::ApiError;
use crate::extract::{ApiJson, ApiQuery};

/// `GET /api/v1/plans/{id}/comments[?revision=N]`.
pub async fn comments(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<ferry_types::api::RevisionQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().comments(&id, q.revision).await?).into_response())
}

/// `GET /api/v1/shared/{token}/comments[?revision=N]`: the same, through a read-only link.
pub async fn shared_comments(
    State(ferry): State<Arc<Ferry>>,
    Path(token): Path<String>,
    ApiQuery(q): ApiQuery<ferry_types::api::RevisionQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().shared_comments(&token, q.revision).await?).into_response())
}

/// `POST /api/v1/plans/{id}/comments` `{"revision", "urn", "path"?, "parent"?, "body"}`.
pub async fn add_comment(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiJson(input): ApiJson<ferry_types::api::CommentInput>,
) -> Result<Response, ApiError> {
    Ok((StatusCode::CREATED, Json(ferry.plans().add_comment(&caller, &id, input).await?))
        .into_response())
}

/// `POST /api/v1/plans/{id}/comments/{comment}/resolve` `{"resolved": true|false}`.
pub async fn resolve_comment(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((id, comment)): Path<(String, String)>,
    ApiJson(body): ApiJson<ferry_types::api::CommentResolution>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().resolve_comment(&caller, &id, &comment, body.resolved).await?)
        .into_response())
}

/// `GET /api/v1/plans/{id}/approvals`: the latest revision's preview, its approvals and the
/// stack's rule.
pub async fn approvals(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().approval_state(&id).await?).into_response())
}

/// `POST /api/v1/plans/{id}/approvals` `{"revision", "preview"}`: what the reviewer approves.
pub async fn approve(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ferry_types::api::ApprovalInput>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().approve(&caller, &id, body.revision, &body.preview).await?)
        .into_response())
}

/// `DELETE /api/v1/plans/{id}/approvals`: withdraws the caller's approval.
pub async fn withdraw(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().withdraw_approval(&caller, &id).await?).into_response())
}

/// `GET /api/v1/plans/{id}/activity`: the plan's timeline.
pub async fn activity(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.plans().plan_activity(&caller, &id).await?).into_response())
}

/// `GET /api/v1/stacks/{id}/settings`.
pub async fn stack_settings(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().stack_settings(&id).await?).into_response())
}

/// `PUT /api/v1/stacks/{id}/settings` `{"required_approvals", "author_may_approve"}`.
pub async fn set_stack_settings(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiJson(settings): ApiJson<ferry_types::StackSettingsView>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().set_stack_settings(&id, settings).await?).into_response())
}

/// `GET /api/v1/orgs/{org}/settings`.
pub async fn org_settings(
    State(ferry): State<Arc<Ferry>>,
    Path(org): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().org_settings(&org).await?).into_response())
}

/// `PUT /api/v1/orgs/{org}/settings` `{"share_links", "share_link_days", "allowed_packages"}`.
pub async fn set_org_settings(
    State(ferry): State<Arc<Ferry>>,
    Path(org): Path<String>,
    ApiJson(settings): ApiJson<ferry_types::OrgSettingsView>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().set_org_settings(&org, settings).await?).into_response())
}

/// `GET /api/v1/plans/{id}/change-requests`: the requests for changes that block the commit.
pub async fn change_requests(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().change_requests(&id).await?).into_response())
}

/// `POST /api/v1/plans/{id}/change-requests` with `{"revision", "preview", "body"}`: asks for
/// changes to what the reviewer looked at; answers the plan's status.
pub async fn request_changes(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ferry_types::plans::ChangeRequestInput>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().request_changes(&caller, &id, body).await?).into_response())
}

/// `DELETE /api/v1/plans/{id}/change-requests/{reviewer}`: withdraws a request (the reviewer's
/// own, or anyone's for an administrator).
pub async fn withdraw_change_request(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((id, reviewer)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.workflow().withdraw_change_request(&caller, &id, &reviewer).await?)
        .into_response())
}
