//! The HTTP API for scripts and CI: JSON in and out under `/api/v1`.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json, Router};
use ferry_codegen::{Language, Style};
use ferry_engine::deploy::{ConfigValue, PlanScope};
use ferry_engine::import_spec::{import_spec_from_value, read_spec_json, ImportSpec};
use ferry_service::{markers, CodeRequest, GeneratedCode, PlanInput, ProgramRequest, ProgramSource, ServiceError, SourceKind, StackService};
use http_body_util::{BodyExt, Limited};
use serde::Deserialize;

use crate::access::{AuditOrg, AuditPlan, Gate, Routes};
use crate::auth;
use crate::error::ApiError;
use crate::review_api;
use crate::AppState;
use ferry_service::access::{org_of_name, Caller, Role};

/// The header that carries a state's passphrase; it is never logged or stored.
pub const PASSPHRASE_HEADER: &str = "x-ferry-passphrase";

/// The API's routes, each with who may call it (see `access.rs`). Actions name what the audit
/// log records for calls of mutating routes; an empty action is a read sent as a POST.
pub fn routes() -> Routes {
    use ferry_service::access::Object::{Discovery, Plan, Preview, Stack};
    use ferry_service::access::Role::{Committer, Planner, Viewer};
    use Gate::{Named, On, Session, Share, SignedIn};
    Routes::new("/api/v1")
        .get("/me", SignedIn, "", auth::me)
        .post("/me/password", Session, "user.password", auth::change_password)
        .post("/me/sessions/revoke", SignedIn, "session.revoke-all", auth::end_all_sessions)
        .get("/me/tokens", SignedIn, "", auth::list_tokens)
        .post("/me/tokens", Session, "token.create", auth::create_token)
        .delete("/me/tokens/{id}", SignedIn, "token.revoke", auth::revoke_token)
        .get("/orgs/{org}/members", Gate::Org(Role::Admin), "", auth::members)
        .put("/orgs/{org}/members/{name}", Gate::Org(Role::Admin), "member.set", auth::set_member)
        .get("/orgs/{org}/audit", Gate::Org(Role::Admin), "", auth::audit)
        .get("/stacks", SignedIn, "", list_stacks)
        .post("/stacks", Named(Planner), "stack.upload", upload_stack)
        .get("/stacks/{id}", On(Stack, Viewer), "", stack_summary)
        .get("/stacks/{id}/versions", On(Stack, Viewer), "", stack_versions)
        .get("/stacks/{id}/locks", On(Stack, Viewer), "", stack_locks)
        .get("/stacks/{id}/config", On(Stack, Viewer), "", stack_config)
        .put("/stacks/{id}/config", On(Stack, Planner), "stack.config", set_stack_config)
        .get("/stacks/{id}/export", On(Stack, Viewer), "", stack_export)
        .get("/stacks/{id}/graph", On(Stack, Viewer), "", stack_graph)
        .get("/stacks/{id}/resources", On(Stack, Viewer), "", stack_resources)
        .get("/stacks/{id}/resource", On(Stack, Viewer), "", stack_resource)
        .post("/stacks/{id}/previews", On(Stack, Planner), "preview.create", create_preview)
        .get("/previews/{id}", On(Preview, Viewer), "", get_preview)
        .post("/previews/{id}/commit", On(Preview, Committer), "preview.commit", commit_preview)
        .get("/previews/{id}/code", On(Preview, Viewer), "", preview_code)
        .post("/stacks/{id}/plans", On(Stack, Planner), "plan.create", create_plan)
        .get("/plans/{id}", On(Plan, Viewer), "", get_plan)
        .post("/plans/{id}/revisions", On(Plan, Planner), "plan.revise", save_plan)
        .get("/plans/{id}/revisions/{revision}", On(Plan, Viewer), "", get_plan_revision)
        .post("/plans/{id}/previews", On(Plan, Planner), "plan.preview", start_plan_preview)
        .get("/plans/{id}/jobs", On(Plan, Viewer), "", list_jobs)
        .get("/plans/{id}/jobs/{job}", On(Plan, Viewer), "", get_job)
        .get("/plans/{id}/jobs/{job}/events", On(Plan, Viewer), "", job_events)
        .post("/plans/{id}/jobs/{job}/cancel", On(Plan, Planner), "plan.preview.cancel", cancel_job)
        .get("/plans/{id}/shares", On(Plan, Planner), "", list_shares)
        .post("/plans/{id}/shares", On(Plan, Planner), "share.create", create_share)
        .delete("/plans/{id}/shares/{token}", On(Plan, Planner), "share.revoke", revoke_share)
        .get("/shared/{token}", Share, "", get_shared_plan)
        .get("/shared/{token}/previews/{index}", Share, "", get_shared_preview)
        .get("/stacks/{id}/code", On(Stack, Viewer), "", stack_code)
        .post("/markers", SignedIn, "", text_markers)
        .get("/stacks/{id}/editor-help", On(Stack, Viewer), "", editor_help)
        .get("/previews/{id}/review", On(Preview, Viewer), "", owner_review_rows)
        .get("/previews/{id}/review/resource", On(Preview, Viewer), "", owner_review_detail)
        .get("/previews/{id}/graph", On(Preview, Viewer), "", owner_preview_graph)
        .get("/shared/{token}/revisions/{revision}/previews/{index}/review", Share, "", shared_review_rows)
        .get("/shared/{token}/revisions/{revision}/previews/{index}/review/resource", Share, "", shared_review_detail)
        .get("/shared/{token}/revisions/{revision}/previews/{index}/graph", Share, "", shared_preview_graph)
        .get("/shared/{token}/revisions/{revision}/previews/{index}/code", Share, "", shared_preview_code)
        .post("/plans/{id}/resolutions", On(Plan, Planner), "plan.resolve", resolve)
        .post("/plans/{id}/resolutions/zero-values", On(Plan, Planner), "plan.resolve", adopt_zero_values)
        .get("/backends/stacks", Named(Planner), "", backend_stacks)
        .post("/stacks/{id}/discoveries", On(Stack, Planner), "discovery.start", start_discovery)
        .get("/stacks/{id}/discoveries/types", On(Stack, Viewer), "", listable_types)
        .post("/stacks/{id}/discoveries/probe", On(Stack, Planner), "discovery.probe", probe_discovered)
        .post("/stacks/{id}/discoveries/plan", On(Stack, Planner), "discovery.plan", discovered_to_plan)
        .get("/discoveries/{id}", On(Discovery, Viewer), "", get_discovery)
        .get("/discoveries/{id}/events", On(Discovery, Viewer), "", discovery_events)
        .post("/discoveries/{id}/cancel", On(Discovery, Planner), "discovery.cancel", cancel_discovery)
        .get("/plans/{id}/comments", On(Plan, Viewer), "", review_api::comments)
        .post("/plans/{id}/comments", Gate::Review(Plan), "comment.add", review_api::add_comment)
        .post("/plans/{id}/comments/{comment}/resolve", Gate::Review(Plan), "comment.resolve", review_api::resolve_comment)
        .get("/shared/{token}/comments", Share, "", review_api::shared_comments)
        .get("/plans/{id}/approvals", On(Plan, Viewer), "", review_api::approvals)
        .post("/plans/{id}/approvals", On(Plan, Role::Approver), "plan.approve", review_api::approve)
        .delete("/plans/{id}/approvals", On(Plan, Role::Approver), "plan.approval.withdraw", review_api::withdraw)
        .get("/plans/{id}/activity", On(Plan, Viewer), "", review_api::activity)
        .get("/stacks/{id}/settings", On(Stack, Viewer), "", review_api::stack_settings)
        .put("/stacks/{id}/settings", On(Stack, Role::Admin), "stack.settings", review_api::set_stack_settings)
        .get("/orgs/{org}/settings", Gate::Org(Role::Admin), "", review_api::org_settings)
        .put("/orgs/{org}/settings", Gate::Org(Role::Admin), "org.settings", review_api::set_org_settings)
}

/// What `/api/v1` answers for a path it does not have.
pub fn fallback() -> Router<AppState> {
    Router::new().fallback(|| async { ApiError::not_found("no such API endpoint") })
}

#[derive(Deserialize)]
struct UploadQuery {
    name: Option<String>,
    /// Moves a state whose URNs carry another stack's name to `name` (every URN renamed).
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize)]
struct VersionQuery {
    version: Option<i64>,
}

#[derive(Deserialize)]
struct ResourceQuery {
    urn: String,
    version: Option<i64>,
}

/// The stacks of the organisations the caller is a member of.
async fn list_stacks(State(stacks): State<Arc<StackService>>, Extension(caller): Extension<Caller>) -> Result<Response, ApiError> {
    Ok(Json(stacks.list_for(&caller).await?).into_response())
}

/// `POST /api/v1/stacks?name=org/project/stack` with a state file as the body.
/// Planners of the stack's organisation only (known once the name is). A refusal is recorded
/// in the log of the organisation the request named.
async fn upload_stack(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Query(query): Query<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let named = std::sync::Mutex::new(query.name.as_deref().filter(|n| !n.is_empty()).map(|n| org_of_name(n).to_string()));
    let result = async {
        let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the state file").await?;
        let passphrase = passphrase(&headers)?;
        // `{"backend": "<url>", "name": "<org>/<project>/<stack>"}` connects a stack of a DIY
        // backend instead of uploading one (a state file never has a top-level `backend`).
        if let Ok(ConnectBody { backend, name, config }) = serde_json::from_slice::<ConnectBody>(&bytes) {
            *named.lock().expect("named lock") = Some(org_of_name(&name).to_string());
            let outcome = stacks.connect_stack(&caller, &backend, &name, config.as_deref(), passphrase).await?;
            return Ok::<_, ApiError>(outcome);
        }
        let name = query.name.filter(|n| !n.is_empty());
        let allowed = |name: &ferry_store::StackName| {
            *named.lock().expect("named lock") = Some(org_of_name(name.as_str()).to_string());
            caller.require(org_of_name(name.as_str()), Role::Planner)
        };
        // `Vec::from` takes the body's buffer over where it can (no 50 MB copy).
        Ok(stacks.upload_checked(name.as_deref(), Vec::from(bytes), passphrase, "upload", query.force, allowed).await?)
    }
    .await;
    let response = match result {
        Ok(outcome) => (StatusCode::CREATED, Json(outcome)).into_response(),
        Err(e) => e.into_response(),
    };
    AuditOrg::on(named.into_inner().expect("named lock"), response)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectBody {
    backend: String,
    name: String,
    /// Where the server reads the stack's `Pulumi.<stack>.yaml` (a file under an allowed
    /// backend URL), for its `encryptionsalt`.
    #[serde(default)]
    config: Option<String>,
}

#[derive(Deserialize)]
struct BackendQuery {
    url: String,
    org: String,
}

/// `GET /api/v1/backends/stacks?org=<org>&url=<url>`: the stacks a DIY backend allowed to
/// `org` holds, for its planners.
async fn backend_stacks(State(stacks): State<Arc<StackService>>, Extension(caller): Extension<Caller>, Query(q): Query<BackendQuery>) -> Response {
    let response = match stacks.backend_stacks(&caller, &q.org, &q.url).await {
        Ok(list) => Json(list).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    };
    AuditOrg::on(Some(q.org), response)
}

/// The request body, up to `limit` bytes, or a JSON error naming what was too large.
async fn read_body(body: Body, headers: &HeaderMap, limit: usize, what: &str) -> Result<axum::body::Bytes, ApiError> {
    let too_large = |size: Option<usize>| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            match size {
                Some(size) => format!("{what} is {size} bytes, over the limit of {limit} bytes"),
                None => format!("{what} is over the limit of {limit} bytes"),
            },
        )
    };
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
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
                ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("could not read the body: {e}"))
            }
        })?
        .to_bytes();
    if bytes.is_empty() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "empty_body", format!("send {what} as the request body")));
    }
    Ok(bytes)
}

fn passphrase(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(PASSPHRASE_HEADER) {
        Some(v) => Ok(Some(v.to_str().map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "the passphrase header is not text"))?.to_string())
            .filter(|p| !p.is_empty())),
        None => Ok(None),
    }
}

/// A program preview sent as JSON: the program's text (or a base64 project zip), its stack
/// config and an optional resource mapping.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgramEnvelope {
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
struct ScopeQuery {
    scope: Option<PlanScope>,
}

/// `"value"`, or `{"value": ..., "secret": true}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum ConfigEntry {
    Plain(String),
    Full(ConfigValue),
}

fn is_yaml(content_type: &str) -> bool {
    ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"].iter().any(|t| content_type.starts_with(t))
}

impl ProgramEnvelope {
    fn into_request(self, scope: PlanScope) -> Result<ProgramRequest, ApiError> {
        let invalid = |message: String| ApiError::new(StatusCode::BAD_REQUEST, "invalid_program", message);
        let source = match (self.program, self.program_zip) {
            (Some(text), None) => ProgramSource::Yaml(text),
            (None, Some(zip)) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD.decode(zip.trim()).map_err(|e| invalid(format!("`programZip` is not base64: {e}")))?;
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
        Ok(ProgramRequest { source, config, mapping: self.mapping, passphrase: None, scope: self.scope.unwrap_or(scope), progress: None })
    }
}

/// What a preview request's body holds, read once.
enum PreviewBody {
    Program(ProgramRequest),
    /// The spec's text (the preview keeps it as its source) and the spec it holds.
    Spec(String, ImportSpec),
}

impl PreviewBody {
    fn read(bytes: &[u8], content_type: &str, scope: PlanScope) -> Result<PreviewBody, ApiError> {
        let program =
            |source| PreviewBody::Program(ProgramRequest { source, config: Default::default(), mapping: None, passphrase: None, scope, progress: None });
        if content_type.starts_with("application/zip") || bytes.starts_with(b"PK\x03\x04") {
            return Ok(program(ProgramSource::Zip(bytes.to_vec())));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "invalid_spec", "the body is not UTF-8 text"))?;
        if is_yaml(content_type) {
            return Ok(program(ProgramSource::Yaml(text.to_string())));
        }
        // One JSON read: a program's envelope is told from a spec by its keys, and a spec is
        // checked from the value already read.
        let json = read_spec_json(text).map_err(ServiceError::from)?;
        if json.get("program").is_some() || json.get("programZip").is_some() {
            let envelope: ProgramEnvelope =
                serde_json::from_value(json).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "invalid_program", format!("the program request: {e}")))?;
            return envelope.into_request(scope).map(PreviewBody::Program);
        }
        let spec = import_spec_from_value(json).map_err(ServiceError::from)?;
        Ok(PreviewBody::Spec(text.to_string(), spec))
    }
}

/// `POST /api/v1/stacks/{id}/previews`: runs a preview and stores it; nothing is written to
/// the stack. The body is an import spec (JSON), a Pulumi YAML program (`Content-Type:
/// application/yaml`), a project zip (`application/zip`), or `{"program", "config",
/// "mapping"}` as JSON.
async fn create_preview(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(query): Query<ScopeQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the import spec or program").await?;
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    let record = match PreviewBody::read(&bytes, &content_type, query.scope.unwrap_or_default())? {
        PreviewBody::Program(mut request) => {
            request.passphrase = passphrase(&headers)?;
            stacks.preview_program(&id, request).await?
        }
        PreviewBody::Spec(text, spec) => stacks.preview_import(&id, &text, spec, None, Default::default()).await?,
    };
    Ok((StatusCode::CREATED, Json(record)).into_response())
}

#[derive(Deserialize)]
struct CommitQuery {
    #[serde(default)]
    apply: bool,
}

async fn get_preview(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.preview(&id).await?).into_response())
}

/// `POST /api/v1/previews/{id}/commit`: the preview's ready resources become the stack's next
/// version (refused if the stack changed since the preview). For a program's plan,
/// `?apply=true` lets Ferry run its creates, updates, replacements and deletes.
async fn commit_preview(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<CommitQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let outcome = stacks.commit_preview(&id, passphrase(&headers)?, q.apply).await?;
    Ok((StatusCode::CREATED, Json(outcome)).into_response())
}

/// What code to make: `lang=ts|python|go|csharp|yaml`, `format=file|zip|json`,
/// `style=cli|code-first`, `elide=false`, `keep=<name>,…`, `references=false`,
/// `exclude=<resource.property>,…`; for stacks also `urn=<urn>,…` and `version=N`.
#[derive(Deserialize)]
struct CodeQuery {
    lang: Option<String>,
    format: Option<String>,
    style: Option<String>,
    elide: Option<bool>,
    keep: Option<String>,
    references: Option<bool>,
    exclude: Option<String>,
    urn: Option<String>,
    version: Option<i64>,
}

fn list(s: &Option<String>) -> std::collections::BTreeSet<String> {
    s.iter().flat_map(|v| v.split(',')).map(str::trim).filter(|v| !v.is_empty()).map(str::to_string).collect()
}

impl CodeQuery {
    fn request(&self) -> Result<(CodeRequest, bool), ApiError> {
        let bad = |m: String| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", m);
        let language = match &self.lang {
            None => Language::TypeScript,
            Some(l) => Language::parse(l).ok_or_else(|| bad(format!("unknown language `{l}`: use ts, python, go, csharp or yaml")))?,
        };
        let (zip, json) = match self.format.as_deref().unwrap_or("file") {
            "file" => (false, false),
            "zip" => (true, false),
            "json" => (false, true),
            other => return Err(bad(format!("unknown format `{other}`: use file, zip or json"))),
        };
        let style = match self.style.as_deref().unwrap_or("cli") {
            "cli" => Style::Cli,
            "code-first" => Style::CodeFirst,
            other => return Err(bad(format!("unknown style `{other}`: use cli or code-first"))),
        };
        let request = CodeRequest {
            language,
            zip,
            style,
            elide: self.elide.unwrap_or(true),
            keep_all: list(&self.keep),
            references: self.references.unwrap_or(true),
            reference_exclusions: list(&self.exclude),
        };
        Ok((request, json))
    }
}

fn code_response(code: GeneratedCode, json: bool) -> Response {
    if json {
        return Json(code).into_response();
    }
    let disposition = format!("attachment; filename=\"{}\"", code.file_name);
    ([(header::CONTENT_TYPE, code.content_type.to_string()), (header::CONTENT_DISPOSITION, disposition)], code.bytes).into_response()
}

/// `GET /api/v1/previews/{id}/code`: code for the preview's ready resources.
async fn preview_code(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<CodeQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (request, json) = q.request()?;
    let code = stacks.preview_code(&id, &request, passphrase(&headers)?.as_deref()).await?;
    Ok(code_response(code, json))
}

/// `GET /api/v1/stacks/{id}/code`: code for the stack's resources (all, or `urn=`).
async fn stack_code(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<CodeQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (request, json) = q.request()?;
    let urns: Vec<String> = list(&q.urn).into_iter().collect();
    let code = stacks.stack_code(&id, q.version, &urns, &request, passphrase(&headers)?.as_deref()).await?;
    Ok(code_response(code, json))
}

fn plan_input(bytes: &[u8]) -> Result<PlanInput, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "invalid_plan", format!("the plan: {e}")))
}

/// `POST /api/v1/stacks/{id}/plans` with `{"title"?, "spec"?, "program"?, "options"?}`.
async fn create_plan(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the plan").await?;
    let plan = stacks.create_plan(&caller, &id, plan_input(&bytes)?).await?;
    let audited = Extension(AuditPlan(plan.plan.id.clone()));
    Ok((StatusCode::CREATED, audited, Json(plan)).into_response())
}

/// Its text masked for callers who may not edit it.
async fn get_plan(State(stacks): State<Arc<StackService>>, Extension(caller): Extension<Caller>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.plan_view_for(&caller, &id, None).await?).into_response())
}

async fn get_plan_revision(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path((id, revision)): Path<(String, i64)>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.plan_view_for(&caller, &id, Some(revision)).await?).into_response())
}

/// `POST /api/v1/plans/{id}/revisions`: saves the next revision (checked first).
async fn save_plan(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the plan").await?;
    let plan = stacks.save_plan(&caller, &id, plan_input(&bytes)?).await?;
    Ok((StatusCode::CREATED, Json(plan)).into_response())
}

#[derive(Deserialize)]
struct RevisionQuery {
    revision: Option<i64>,
}

/// `POST /api/v1/plans/{id}/previews`: starts a background preview of the revision; `202`
/// with the job, whose progress `GET …/jobs/{job}/events` streams. The stack's passphrase
/// (`X-Ferry-Passphrase`), when given, decrypts what a program's resources hold in the stack,
/// for this run only: it is kept by the process running the job and never stored.
async fn start_plan_preview(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<RevisionQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let job = stacks.start_plan_preview(&id, q.revision, passphrase(&headers)?).await?;
    Ok((StatusCode::ACCEPTED, Json(job)).into_response())
}

async fn list_jobs(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    stacks.plan_view(&id, None, false).await?;
    Ok(Json(stacks.plan_jobs(&id).await?).into_response())
}

async fn get_job(State(stacks): State<Arc<StackService>>, Path((id, job)): Path<(String, String)>) -> Result<Response, ApiError> {
    Ok(Json(stacks.job(&id, &job).await?).into_response())
}

async fn cancel_job(State(stacks): State<Arc<StackService>>, Path((id, job)): Path<(String, String)>) -> Result<Response, ApiError> {
    Ok(Json(stacks.cancel_job(&id, &job).await?).into_response())
}

/// `GET …/jobs/{job}/events`: server-sent events, one `resource` per finished resource (the
/// ones already reported first, so a page that comes back catches up), then `end` with the job
/// (without its events: the stream gave them).
/// Any instance serves any job: the events come from the store.
async fn job_events(State(stacks): State<Arc<StackService>>, Path((id, job)): Path<(String, String)>) -> Result<Response, ApiError> {
    Ok(job_stream(stacks.follow_job(&id, &job).await?, "resource"))
}

/// A job's updates as server-sent events: each event as `event`, then `end` with the job.
fn job_stream(updates: impl futures_util::Stream<Item = ferry_service::JobUpdate> + Send + 'static, event: &'static str) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    use futures_util::StreamExt;
    let events = updates.map(move |update| {
        Ok::<_, std::convert::Infallible>(match update {
            ferry_service::JobUpdate::Event(json) => Event::default().event(event).data(json),
            ferry_service::JobUpdate::End(json) => Event::default().event("end").data(json),
        })
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}

async fn create_share(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok((StatusCode::CREATED, Json(stacks.share_plan(&id).await?)).into_response())
}

async fn list_shares(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.plan_shares(&id).await?).into_response())
}

async fn revoke_share(State(stacks): State<Arc<StackService>>, Path((id, token)): Path<(String, String)>) -> Result<Response, ApiError> {
    Ok(Json(stacks.revoke_plan_share(&id, &token).await?).into_response())
}

/// `GET /api/v1/shared/{token}`: the plan, read-only (no plan or preview IDs).
async fn get_shared_plan(State(stacks): State<Arc<StackService>>, Path(token): Path<String>, Query(q): Query<RevisionQuery>) -> Result<Response, ApiError> {
    Ok(Json(stacks.shared_plan(&token, q.revision).await?).into_response())
}

async fn get_shared_preview(
    State(stacks): State<Arc<StackService>>,
    Path((token, index)): Path<(String, usize)>,
    Query(q): Query<RevisionQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.shared_preview(&token, q.revision, index).await?).into_response())
}

async fn stack_summary(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.summary(&id).await?).into_response())
}

async fn stack_versions(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.versions(&id).await?).into_response())
}

/// The locks Ferry took in a connected stack's DIY backend, newest first: each one's file,
/// when it was taken and released, and, for one its instance could not release (killed
/// mid-commit), what the recovery found and did.
async fn stack_locks(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.backend_locks(&id).await?).into_response())
}

/// What Ferry reads of the stack's `Pulumi.<stack>.yaml`: its `encryptionsalt` (the passphrase
/// provider's salt, public by design) and `secretsprovider`.
async fn stack_config(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    stacks.summary(&id).await?;
    Ok(Json(stacks.stack_config(&id).await?).into_response())
}

/// `PUT /api/v1/stacks/{id}/config` with the stack's `Pulumi.<stack>.yaml` as the body: its
/// `encryptionsalt` is the key a commit gives the stack's first secrets (when its state has no
/// secrets provider yet), as `pulumi` would.
async fn set_stack_config(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 1 << 20, "the stack's Pulumi.<stack>.yaml").await?;
    let yaml =
        std::str::from_utf8(&bytes).map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "the stack's Pulumi.<stack>.yaml is not UTF-8 text"))?;
    Ok(Json(stacks.set_stack_config(&id, yaml).await?).into_response())
}

/// The version's state as `pulumi stack export` writes it, ready for `pulumi stack import`.
async fn stack_export(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<VersionQuery>) -> Result<Response, ApiError> {
    Ok(([(header::CONTENT_TYPE, "application/json")], stacks.export_text(&id, q.version).await?).into_response())
}

/// `GET …/graph?version=&expand=&full=`: the stack's graph; past
/// [`ferry_state::graph_summary::SUMMARY_BUDGET`] resources, summarised (siblings of a type
/// grouped, the tree opened from the top) with the nodes and groups `expand` names (one key a
/// line) opened, unless `full=true`.
#[derive(Deserialize)]
struct GraphQuery {
    version: Option<i64>,
    #[serde(default)]
    expand: String,
    #[serde(default)]
    full: bool,
}

async fn stack_graph(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<GraphQuery>) -> Result<Response, ApiError> {
    let version = stacks.version(&id, q.version).await?;
    Ok(match q.summary() {
        None => Json(version.graph()).into_response(),
        Some(expand) => Json(ferry_state::graph_summary::summarise(version.graph(), ferry_state::graph_summary::SUMMARY_BUDGET, &expand).graph).into_response(),
    })
}

impl GraphQuery {
    /// The nodes and groups to open in the summary; `None` asks for the whole graph.
    fn summary(&self) -> Option<HashSet<String>> {
        (!self.full).then(|| self.expand.lines().filter(|k| !k.is_empty()).map(str::to_string).collect())
    }
}

/// `GET …/resources?filter=&sort=&offset=&limit=&version=`: one page of the resource table
/// (`{total, matched, offset, rows}`), filtered and sorted on the server; at most
/// [`ferry_service::MAX_PAGE_ROWS`] rows a page.
/// (Fields listed, not a flattened `RowQuery`: flattened, a query string's numbers do not parse.)
#[derive(Deserialize)]
struct RowsQuery {
    version: Option<i64>,
    #[serde(default)]
    filter: String,
    #[serde(default)]
    sort: String,
    #[serde(default)]
    offset: usize,
    limit: Option<usize>,
}

async fn stack_resources(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<RowsQuery>) -> Result<Response, ApiError> {
    let query = ferry_service::RowQuery { filter: q.filter, sort: q.sort, offset: q.offset, limit: q.limit.unwrap_or(ferry_service::MAX_PAGE_ROWS) };
    Ok(Json(stacks.version(&id, q.version).await?.rows_page(&query)?).into_response())
}

async fn stack_resource(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<ResourceQuery>) -> Result<Response, ApiError> {
    let version = stacks.version(&id, q.version).await?;
    let detail = version.detail(&q.urn).ok_or_else(|| ApiError::not_found(format!("no resource `{}` in stack `{}`", q.urn, version.summary.name)))?;
    Ok(Json(detail).into_response())
}

#[derive(Deserialize)]
struct MarkersQuery {
    kind: SourceKind,
}

/// `POST /api/v1/markers?kind=spec|program` with the text as the body: its problems, each with
/// line and column (empty when it is fine). Nothing is stored.
async fn text_markers(State(stacks): State<Arc<StackService>>, Query(q): Query<MarkersQuery>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, stacks.max_state_bytes(), "the text").await?;
    let text = String::from_utf8(bytes.to_vec()).map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "the text is not UTF-8"))?;
    Ok(Json(markers(q.kind, &text)).into_response())
}

/// `GET /api/v1/stacks/{id}/editor-help`: the import file's JSON schema with the type tokens
/// of the providers' schemas, and the stack's resource names.
async fn editor_help(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.editor_help(&id, None).await?).into_response())
}

#[derive(Deserialize)]
struct UrnQuery {
    urn: String,
}

fn owner(id: String) -> ferry_types::PreviewRef {
    ferry_types::PreviewRef::Owner { preview: id }
}

fn shared((token, revision, index): (String, i64, usize)) -> ferry_types::PreviewRef {
    ferry_types::PreviewRef::Shared { token, revision, index }
}

/// `GET …/review?status=&type=&filter=&offset=&limit=`: one page of the preview's results
/// (`{total, matched, offset, rows, statuses, types, zero_or_default}`), filtered on the
/// server; at most 1,000 rows a page.
async fn owner_review_rows(
    State(stacks): State<Arc<StackService>>,
    Path(id): Path<String>,
    Query(q): Query<ferry_types::ReviewQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.review_page(&owner(id), &q).await?).into_response())
}

async fn owner_review_detail(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<UrnQuery>) -> Result<Response, ApiError> {
    Ok(Json(stacks.review_detail(&owner(id), &q.urn).await?).into_response())
}

/// `GET …/graph?expand=&full=`: the stack graph with the preview's resources, summarised as
/// the stack's graph is.
async fn owner_preview_graph(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, Query(q): Query<GraphQuery>) -> Result<Response, ApiError> {
    Ok(Json(stacks.preview_graph(&owner(id), q.summary().as_ref()).await?).into_response())
}

async fn shared_review_rows(
    State(stacks): State<Arc<StackService>>,
    Path(p): Path<(String, i64, usize)>,
    Query(q): Query<ferry_types::ReviewQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.review_page(&shared(p), &q).await?).into_response())
}

async fn shared_review_detail(
    State(stacks): State<Arc<StackService>>,
    Path(p): Path<(String, i64, usize)>,
    Query(q): Query<UrnQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.review_detail(&shared(p), &q.urn).await?).into_response())
}

async fn shared_preview_graph(
    State(stacks): State<Arc<StackService>>,
    Path(p): Path<(String, i64, usize)>,
    Query(q): Query<GraphQuery>,
) -> Result<Response, ApiError> {
    Ok(Json(stacks.preview_graph(&shared(p), q.summary().as_ref()).await?).into_response())
}

/// Code through a read-only link: the same code, without the preview's ID.
async fn shared_preview_code(
    State(stacks): State<Arc<StackService>>,
    Path(p): Path<(String, i64, usize)>,
    Query(q): Query<CodeQuery>,
) -> Result<Response, ApiError> {
    let (request, json) = q.request()?;
    let id = stacks.preview_id(&shared(p)).await?;
    let code = stacks.preview_code(&id, &request, None).await?;
    Ok(code_response(code, json))
}

#[derive(Deserialize)]
struct ResolveRequest {
    /// The preview of the latest revision the resolution was chosen in.
    preview: String,
    #[serde(flatten)]
    resolution: ferry_types::Resolution,
}

/// `POST /api/v1/plans/{id}/resolutions` `{preview, urn, property, action}`: writes the next
/// revision with the resolution applied and starts its preview; `201` with both.
async fn resolve(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 64 * 1024, "the resolution").await?;
    let request: ResolveRequest =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("the resolution: {e}")))?;
    let plan = stacks.resolve(&caller, &id, &request.preview, request.resolution).await?;
    let job = stacks.start_plan_preview(&id, None, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "plan": plan, "job": job }))).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdoptZeroValuesRequest {
    preview: String,
    /// One resource; without it, every resource of the preview.
    urn: Option<String>,
}

/// `POST /api/v1/plans/{id}/resolutions/zero-values` `{preview, urn?}`: adopts every difference
/// of the resource (or of the whole plan) that is only a zero value or a default, as the next
/// revision, and starts its preview; `201` with both.
async fn adopt_zero_values(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 64 * 1024, "the request").await?;
    let request: AdoptZeroValuesRequest =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("the request: {e}")))?;
    let plan = stacks.adopt_zero_values_and_defaults(&caller, &id, &request.preview, request.urn.as_deref()).await?;
    let job = stacks.start_plan_preview(&id, None, passphrase(&headers)?).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "plan": plan, "job": job }))).into_response())
}

/// `GET /api/v1/stacks/{id}/discoveries/types`: what the stack's providers and the installed
/// plugins can list, with each type's filter.
async fn listable_types(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.listable_types(&id).await?).into_response())
}

/// `POST /api/v1/stacks/{id}/discoveries` `{types: [{type, query?, limit?, pageSize?}]}`: starts
/// listing in the background (202); watch `/discoveries/{job}/events`.
async fn start_discovery(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 1024 * 1024, "the discovery request").await?;
    let request: ferry_service::DiscoveryRequest =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("the discovery request: {e}")))?;
    Ok((StatusCode::ACCEPTED, Json(stacks.start_discovery(&id, request).await?)).into_response())
}

async fn get_discovery(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.discovery(&id).await?).into_response())
}

async fn cancel_discovery(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(stacks.cancel_discovery(&id).await?).into_response())
}

/// Server-sent events: one `result`/`page`/`not-listable`/`failed` event per find, then `end`
/// with the whole job.
async fn discovery_events(State(stacks): State<Arc<StackService>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(job_stream(stacks.follow_discovery(&id).await?, "discovery"))
}

#[derive(Deserialize)]
struct ProbeBody {
    items: Vec<ferry_service::ProbeItem>,
}

/// `POST /api/v1/stacks/{id}/discoveries/probe` `{items: [{type, id}]}`: a quick `Read` of each.
async fn probe_discovered(State(stacks): State<Arc<StackService>>, Path(id): Path<String>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 4 * 1024 * 1024, "the probe request").await?;
    let body: ProbeBody =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("the probe request: {e}")))?;
    Ok(Json(stacks.probe(&id, &body.items).await?).into_response())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToPlanBody {
    items: Vec<ferry_service::Selected>,
    #[serde(default)]
    plan_id: Option<String>,
}

/// `POST /api/v1/stacks/{id}/discoveries/plan` `{items: [{type, id, name}], planId?}`: the
/// selection as spec entries of a new plan (201) or a new revision of `planId` (200).
async fn discovered_to_plan(
    State(stacks): State<Arc<StackService>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(body, &headers, 4 * 1024 * 1024, "the selection").await?;
    let body: ToPlanBody = serde_json::from_slice(&bytes).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", format!("the selection: {e}")))?;
    let plan = stacks.add_discovered_to_plan(&caller, &id, &body.items, body.plan_id.as_deref()).await?;
    let status = if body.plan_id.is_some() { StatusCode::OK } else { StatusCode::CREATED };
    // The plan's timeline starts with this record.
    let audited = Extension(AuditPlan(plan.plan.id.clone()));
    Ok((status, audited, Json(plan)).into_response())
}
