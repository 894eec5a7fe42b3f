//! The API's stacks: upload and connect, versions, the table, the graph, export, config and
//! backend locks; the editors' markers and help.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use ferry_service::{markers, Ferry};
use ferry_types::api::{
    BackendQuery, ConnectStack, GraphQuery, MarkersQuery, ResourceQuery, RowsQuery, UploadQuery,
    VersionQuery,
};

use super::shared::*;
use crate::access::AuditOrg;
use crate::error::ApiError;
use crate::extract::ApiQuery;
use ferry_service::access::{org_of_name, Caller};
use ferry_service::ServiceError;

/// The stacks of the organisations the caller is a member of.
pub(super) async fn list_stacks(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.stacks().list_for(&caller).await?).into_response())
}

/// `POST /api/v1/stacks?name=org/project/stack` with a state file as the body.
/// Planners of the stack's organisation only (known once the name is). A refusal is recorded
/// in the log of the organisation the request named.
pub(super) async fn upload_stack(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    ApiQuery(query): ApiQuery<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let named = std::sync::Mutex::new(
        query.name.as_deref().filter(|n| !n.is_empty()).map(|n| org_of_name(n).to_string()),
    );
    let result = async {
        let bytes = read_body(body, &headers, ferry.max_state_bytes(), "the state file").await?;
        let passphrase = passphrase(&headers)?;
        // `{"backend": "<url>", "name": "<org>/<project>/<stack>"}` connects a stack of a DIY
        // backend instead of uploading one (a state file never has a top-level `backend`).
        if let Ok(ConnectStack { backend, name, config }) =
            serde_json::from_slice::<ConnectStack>(&bytes)
        {
            *named.lock().expect("named lock") = Some(org_of_name(&name).to_string());
            let outcome = ferry
                .backends()
                .connect_stack(&caller, &backend, &name, config.as_deref(), passphrase)
                .await?;
            return Ok::<_, ApiError>(outcome);
        }
        let name = query.name.filter(|n| !n.is_empty());
        // `Vec::from` takes the body's buffer over where it can (no 50 MB copy).
        let outcome = ferry
            .stacks()
            .upload_by(
                &caller,
                name.as_deref(),
                Vec::from(bytes),
                passphrase,
                "upload",
                query.force,
            )
            .await;
        if let Ok(outcome) = &outcome {
            *named.lock().expect("named lock") =
                Some(org_of_name(&outcome.summary.name).to_string());
        }
        Ok(outcome?)
    }
    .await;
    let response = match result {
        Ok(outcome) => (StatusCode::CREATED, Json(outcome)).into_response(),
        Err(e) => e.into_response(),
    };
    AuditOrg::on(named.into_inner().expect("named lock"), response)
}

/// `GET /api/v1/backends/stacks?org=<org>&url=<url>`: the stacks a DIY backend allowed to
/// `org` holds, for its planners.
pub(super) async fn backend_stacks(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<BackendQuery>,
) -> Response {
    let response = match ferry.backends().backend_stacks(&caller, &q.org, &q.url).await {
        Ok(list) => Json(list).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    };
    AuditOrg::on(Some(q.org), response)
}

pub(super) async fn stack_summary(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.stacks().summary(&id).await?).into_response())
}

pub(super) async fn stack_versions(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.stacks().versions(&id).await?).into_response())
}

/// The locks Ferry took in a connected stack's DIY backend, newest first: each one's file,
/// when it was taken and released, and, for one its instance could not release (killed
/// mid-commit), what the recovery found and did.
pub(super) async fn stack_locks(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.backends().backend_locks(&id).await?).into_response())
}

/// What Ferry reads of the stack's `Pulumi.<stack>.yaml`: its `encryptionsalt` (the passphrase
/// provider's salt, public by design) and `secretsprovider`.
pub(super) async fn stack_config(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    ferry.stacks().summary(&id).await?;
    Ok(Json(ferry.stacks().stack_config(&id).await?).into_response())
}

/// `PUT /api/v1/stacks/{id}/config` with the stack's `Pulumi.<stack>.yaml` as the body: its
/// `encryptionsalt` is the key a commit gives the stack's first secrets (when its state has no
/// secrets provider yet), as `pulumi` would.
pub(super) async fn set_stack_config(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 1 << 20, "the stack's Pulumi.<stack>.yaml").await?;
    let yaml = std::str::from_utf8(&bytes).map_err(|_| {
        ApiError::from(ServiceError::Invalid(
            "the stack's Pulumi.<stack>.yaml is not UTF-8 text".into(),
        ))
    })?;
    Ok(Json(ferry.stacks().set_stack_config(&id, yaml).await?).into_response())
}

/// The version's state as `pulumi stack export` writes it, ready for `pulumi stack import`.
pub(super) async fn stack_export(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<VersionQuery>,
) -> Result<Response, ApiError> {
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        ferry.stacks().export_text(&id, q.version).await?,
    )
        .into_response())
}

pub(super) async fn stack_graph(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<GraphQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.stacks().graph(&id, q.version, q.summary().as_ref()).await?).into_response())
}

pub(super) async fn stack_resources(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<RowsQuery>,
) -> Result<Response, ApiError> {
    let query = ferry_service::RowQuery {
        filter: q.filter,
        sort: q.sort,
        offset: q.offset,
        limit: q.limit.unwrap_or(ferry_service::MAX_PAGE_ROWS),
    };
    Ok(Json(ferry.stacks().version(&id, q.version).await?.rows_page(&query)?).into_response())
}

pub(super) async fn stack_resource(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<ResourceQuery>,
) -> Result<Response, ApiError> {
    let version = ferry.stacks().version(&id, q.version).await?;
    let detail = version.detail(&q.urn).ok_or_else(|| {
        ApiError::from(ServiceError::ResourceNotFound {
            stack: version.summary.name.clone(),
            urn: q.urn.clone(),
        })
    })?;
    Ok(Json(detail).into_response())
}

/// `POST /api/v1/markers?kind=spec|program` with the text as the body: its problems, each with
/// line and column (empty when it is fine). Nothing is stored.
pub(super) async fn text_markers(
    State(ferry): State<Arc<Ferry>>,
    ApiQuery(q): ApiQuery<MarkersQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, ferry.max_state_bytes(), "the text").await?;
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|_| ApiError::from(ServiceError::Invalid("the text is not UTF-8".into())))?;
    Ok(Json(markers(q.kind, &text)).into_response())
}

/// `GET /api/v1/stacks/{id}/editor-help`: the import file's JSON schema with the type tokens
/// of the providers' schemas, and the stack's resource names.
pub(super) async fn editor_help(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.stacks().editor_help(&id, None).await?).into_response())
}
