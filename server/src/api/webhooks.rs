//! The API's webhooks: an organisation's administrators make, list and remove them, and read
//! each one's delivery log.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::access::Caller;
use ferry_service::Ferry;
use ferry_types::webhooks::WebhookInput;

use crate::error::ApiError;
use crate::extract::ApiJson;

/// `GET /api/v1/orgs/{org}/webhooks`.
pub(super) async fn list_webhooks(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.webhooks().list(&caller, &org).await?).into_response())
}

/// `POST /api/v1/orgs/{org}/webhooks` with `{"url", "events"?}`: `201` the webhook and its
/// secret, shown this once.
pub(super) async fn create_webhook(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
    ApiJson(input): ApiJson<WebhookInput>,
) -> Result<Response, ApiError> {
    Ok((StatusCode::CREATED, Json(ferry.webhooks().create(&caller, &org, &input).await?))
        .into_response())
}

/// `DELETE /api/v1/orgs/{org}/webhooks/{id}`: it hears nothing more; its log stays.
pub(super) async fn remove_webhook(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((org, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    ferry.webhooks().remove(&caller, &org, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /api/v1/orgs/{org}/webhooks/{id}/deliveries`: the latest 100, newest first.
pub(super) async fn webhook_deliveries(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((org, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.webhooks().deliveries(&caller, &org, &id).await?).into_response())
}
