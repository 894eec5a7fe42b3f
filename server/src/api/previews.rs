//! The API's previews: a spec, a program or a project zip previewed against a stack, the
//! stored preview, its commit and the code for it.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_engine::deploy::{ConfigValue, PlanScope};
use ferry_engine::import_spec::{import_spec_from_value, read_spec_json};
use ferry_service::{
    Ferry, PreviewRequest, PreviewSource, ProgramRequest, ProgramSource, ServiceError,
};
use serde::Deserialize;

use super::shared::*;
use crate::error::ApiError;
use crate::extract::ApiQuery;

/// A program preview sent as JSON: the program's text (or a base64 project zip), its stack
/// config and an optional resource mapping.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProgramEnvelope {
    program: Option<String>,
    #[serde(rename = "programZip")]
    program_zip: Option<String>,
    #[serde(default)]
    config: std::collections::BTreeMap<String, ConfigEntry>,
    mapping: Option<std::collections::BTreeMap<String, String>>,
    /// `imports` or `whole-stack` (the default, as `pulumi preview`).
    #[serde(default)]
    scope: Option<PlanScope>,
}

/// `?scope=imports|whole-stack` on a program preview.
#[derive(Deserialize)]
pub(super) struct ScopeQuery {
    scope: Option<PlanScope>,
}

/// `"value"`, or `{"value": ..., "secret": true}`.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum ConfigEntry {
    Plain(String),
    Full(ConfigValue),
}

pub(super) fn is_yaml(content_type: &str) -> bool {
    ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"]
        .iter()
        .any(|t| content_type.starts_with(t))
}

impl ProgramEnvelope {
    /// The program the envelope holds, and its scope (`scope` unless it names its own).
    fn into_request(self, scope: PlanScope) -> Result<(ProgramRequest, PlanScope), ApiError> {
        let invalid = |message: String| ApiError::from(ServiceError::ProgramRequest(message));
        let source = match (self.program, self.program_zip) {
            (Some(text), None) => ProgramSource::Yaml(text),
            (None, Some(zip)) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(zip.trim())
                    .map_err(|e| invalid(format!("`programZip` is not base64: {e}")))?;
                ProgramSource::Zip(bytes)
            }
            _ => return Err(invalid("give either `program` or `programZip`".into())),
        };
        let config = self
            .config
            .into_iter()
            .map(|(k, v)| {
                let value = match v {
                    ConfigEntry::Plain(value) => ConfigValue { value, secret: false },
                    ConfigEntry::Full(c) => c,
                };
                (k, value)
            })
            .collect();
        Ok((
            ProgramRequest { source, config, mapping: self.mapping, passphrase: None, prior: None },
            self.scope.unwrap_or(scope),
        ))
    }
}

/// The preview a request's body asks for, read once: a program (YAML, a zip, or the JSON
/// envelope) or an import spec.
fn read_preview(
    bytes: &[u8],
    content_type: &str,
    scope: PlanScope,
) -> Result<PreviewRequest, ApiError> {
    let program = |source, scope| {
        let source = PreviewSource::Program(ProgramRequest {
            source,
            config: Default::default(),
            mapping: None,
            passphrase: None,
            prior: None,
        });
        PreviewRequest { source, scope, progress: None }
    };
    if content_type.starts_with("application/zip") || bytes.starts_with(b"PK\x03\x04") {
        return Ok(program(ProgramSource::Zip(bytes.to_vec()), scope));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| ApiError::from(ServiceError::SpecText("the body is not UTF-8 text".into())))?;
    if is_yaml(content_type) {
        return Ok(program(ProgramSource::Yaml(text.to_string()), scope));
    }
    // One JSON read: a program's envelope is told from a spec by its keys, and a spec is
    // checked from the value already read.
    let json = read_spec_json(text).map_err(ServiceError::from)?;
    if json.get("program").is_some() || json.get("programZip").is_some() {
        let envelope: ProgramEnvelope = serde_json::from_value(json).map_err(|e| {
            ApiError::from(ServiceError::ProgramRequest(format!("the program request: {e}")))
        })?;
        let (request, scope) = envelope.into_request(scope)?;
        return Ok(PreviewRequest {
            source: PreviewSource::Program(request),
            scope,
            progress: None,
        });
    }
    let spec = import_spec_from_value(json).map_err(ServiceError::from)?;
    Ok(PreviewRequest {
        source: PreviewSource::Spec { text: text.to_string(), spec, strategy: Default::default() },
        scope,
        progress: None,
    })
}

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
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut request = read_preview(&bytes, &content_type, query.scope.unwrap_or_default())?;
    if let PreviewSource::Program(program) = &mut request.source {
        program.passphrase = passphrase(&headers)?;
    }
    let record = ferry.previews().preview(&id, request).await?;
    Ok((StatusCode::CREATED, Json(record)).into_response())
}

#[derive(Deserialize)]
pub(super) struct CommitQuery {
    #[serde(default)]
    apply: bool,
}

pub(super) async fn get_preview(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.previews().stored_preview(&id).await?).into_response())
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
    let outcome = ferry.previews().commit_preview(&id, passphrase(&headers)?, q.apply).await?;
    Ok((StatusCode::CREATED, Json(outcome)).into_response())
}

/// `GET /api/v1/previews/{id}/code`: code for the preview's ready resources.
pub(super) async fn preview_code(
    State(ferry): State<Arc<Ferry>>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<CodeQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (request, json) = q.request()?;
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
    let (request, json) = q.request()?;
    let urns: Vec<String> = list(&q.urn).into_iter().collect();
    let code = ferry
        .previews()
        .stack_code(&id, q.version, &urns, &request, passphrase(&headers)?.as_deref())
        .await?;
    Ok(code_response(code, json))
}
