//! What the API's handlers share: reading a body within its limit, the passphrase header,
//! code and job responses.

use axum::body::Body;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_service::GeneratedCode;
use http_body_util::{BodyExt, Limited};

use crate::error::ApiError;
use ferry_service::ServiceError;

/// The header that carries a state's passphrase; it is never logged or stored.
pub const PASSPHRASE_HEADER: &str = "x-ferry-passphrase";

/// The request body, up to `limit` bytes, or a JSON error naming what was too large.
pub(super) async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    what: &str,
) -> Result<axum::body::Bytes, ApiError> {
    let too_large = |size: Option<usize>| {
        ApiError::from(ServiceError::BodyTooLarge { what: what.to_string(), size, limit })
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
                ApiError::from(ServiceError::Invalid(format!("could not read the body: {e}")))
            }
        })?
        .to_bytes();
    if bytes.is_empty() {
        return Err(ServiceError::EmptyBody(what.to_string()).into());
    }
    Ok(bytes)
}

/// The request body, up to `limit` bytes, read as JSON `T`; either failure names `what`.
pub(super) async fn read_json<T: serde::de::DeserializeOwned>(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    what: &str,
) -> Result<T, ApiError> {
    let bytes = read_body(body, headers, limit, what).await?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::from(ServiceError::Invalid(format!("{what}: {e}"))))
}

pub(super) fn passphrase(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(PASSPHRASE_HEADER) {
        Some(v) => Ok(Some(
            v.to_str()
                .map_err(|_| {
                    ApiError::from(ServiceError::Invalid(
                        "the passphrase header is not text".into(),
                    ))
                })?
                .to_string(),
        )
        .filter(|p| !p.is_empty())),
        None => Ok(None),
    }
}

pub(super) fn code_response(code: GeneratedCode, json: bool) -> Response {
    if json {
        return Json(code).into_response();
    }
    let disposition = format!("attachment; filename=\"{}\"", code.file_name);
    (
        [
            (header::CONTENT_TYPE, code.content_type.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        code.bytes,
    )
        .into_response()
}

/// A job's updates as server-sent events: `status` (`"running"`) when a job that waited its
/// turn starts, each event as `event`, then `end` with the job.
pub(super) fn job_stream(
    updates: impl futures_util::Stream<Item = ferry_service::JobUpdate> + Send + 'static,
    event: &'static str,
) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    use futures_util::StreamExt;
    let events = updates.map(move |update| {
        Ok::<_, std::convert::Infallible>(match update {
            ferry_service::JobUpdate::Started => Event::default().event("status").data(
                serde_json::to_string(&ferry_types::JobStatus::Running)
                    .expect("statuses serialise"),
            ),
            ferry_service::JobUpdate::Event(json) => Event::default().event(event).data(json),
            ferry_service::JobUpdate::End(json) => Event::default().event("end").data(json),
        })
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}
