//! The API's OpenAPI 3.1 document, made from what declares the API and nothing written beside it:
//! each endpoint of `ferry_types::api` (its summary, path, and its body's and answer's JSON
//! Schemas, which schemars derives from the types), the access table's gate for its route, and
//! the error codes of `ferry_types::errors`.
//!
//! Architecture Invariant: the document describes every route of `/api/v1` and nothing else; the
//! API tests read every answer they get against its schemas.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::Method;
use axum::Json;
use ferry_service::access::{Object, Role};
use ferry_types::api::{self, EndpointInfo, Wire};
use ferry_types::errors::{self, ErrorCode};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{json, Map, Value};

use crate::access::{AccessTable, Gate};
use crate::session::SESSION_COOKIE;
use crate::AppState;

/// Where the document's schemas live, and so what its `$ref`s point into.
const SCHEMAS: &str = "/components/schemas";

/// Real answers of the API, one per endpoint that answers JSON: each is what an API test
/// received, recorded by `scripts/api-examples.sh` (capability tokens masked). Keyed by
/// `METHOD path`; each holds its `status` and its `answer`. A test holds every one to its
/// operation's schema, and every JSON answer to having one.
pub const EXAMPLES: &str = include_str!("openapi_examples.json");

/// [`EXAMPLES`], read once.
pub fn examples() -> &'static Map<String, Value> {
    static EXAMPLES_READ: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EXAMPLES_READ
        .get_or_init(|| serde_json::from_str(EXAMPLES).expect("the recorded examples are JSON"))
}

/// `GET /api/v1/openapi.json`.
pub async fn serve(State(state): State<AppState>) -> Json<Value> {
    Json(document(&state.access))
}

/// The document for the routes of `table`.
///
/// # Panics
/// When an endpoint has no route in `table`: the route table and the declarations disagree,
/// which the router's own tests refuse first.
pub fn document(table: &AccessTable) -> Value {
    // Answers are described as the server writes them (a field it skips when empty is not
    // required); bodies as it reads them (a field with a default is not required). The two
    // differ for some types, so each has its own generator, merged below.
    let mut answers = SchemaGenerator::new(settings().for_serialize());
    let mut bodies = SchemaGenerator::new(settings().for_deserialize());
    let mut paths: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
    for endpoint in api::ALL {
        let method = http_method(endpoint);
        let full = format!("{}{}", api::PREFIX, endpoint.path);
        let decision = table
            .decision(&method, &full)
            .unwrap_or_else(|| panic!("{} {full} is not in the route table", method.as_str()));
        let body = request_body(endpoint, &mut bodies);
        let mut operation = operation(endpoint, decision.gate, body.is_some(), &mut answers);
        let parameters = parameters(endpoint, &mut bodies);
        if !parameters.is_empty() {
            operation.insert("parameters".into(), Value::Array(parameters));
        }
        if let Some(body) = body {
            operation.insert("requestBody".into(), body);
        }
        if !decision.action.is_empty() {
            operation.insert("x-ferry-audit-action".into(), json!(decision.action));
        }
        paths
            .entry(endpoint.path)
            .or_default()
            .insert(method.as_str().to_lowercase(), Value::Object(operation));
    }

    answers.subschema_for::<ferry_types::ErrorBody>();
    let mut schemas = answers.take_definitions(true);
    let renamed = merge_definitions(&mut schemas, bodies.take_definitions(true));
    // What a request sends (its body and query) is described with the bodies' definitions,
    // some of which the merge renamed.
    for operation in paths.values_mut().flat_map(|p| p.values_mut()) {
        for sent in ["requestBody", "parameters"] {
            if let Some(sent) = operation.get_mut(sent) {
                rename_refs(sent, &renamed);
            }
        }
    }
    // An error's code is one of the table's.
    if let Some(code) =
        schemas.get_mut("ErrorDetail").and_then(|d| d.pointer_mut("/properties/code"))
    {
        code["enum"] = json!(errors::ALL.iter().map(|c| c.code).collect::<Vec<_>>());
    }

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Ferry API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Plan, preview, review and commit imports into Pulumi stacks. Every \
                failure answers `ErrorBody`; its `code` is one of `x-ferry-error-codes`.",
        },
        "servers": [{"url": api::PREFIX}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE,
                    "description": "A browser's session, from signing in."},
                "token": {"type": "http", "scheme": "bearer",
                    "description": "An API token (`ferry_…`), made on the account page or with \
                        `POST /me/tokens`; it carries one role in one organisation."},
            },
            "responses": error_responses(),
        },
        "x-ferry-error-codes": errors::ALL.iter().map(|c| json!({
            "code": c.code, "status": c.status, "meaning": c.meaning,
        })).collect::<Vec<_>>(),
    })
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = SCHEMAS.into();
        s.meta_schema = None;
    })
}

fn http_method(endpoint: &EndpointInfo) -> Method {
    match endpoint.method {
        api::Method::Get => Method::GET,
        api::Method::Post => Method::POST,
        api::Method::Put => Method::PUT,
        api::Method::Delete => Method::DELETE,
    }
}

/// One operation: what the endpoint is, who may call it, its parameters and its answers.
fn operation(
    endpoint: &EndpointInfo,
    gate: Gate,
    has_body: bool,
    answers: &mut SchemaGenerator,
) -> Map<String, Value> {
    let summary = endpoint.summary.trim();
    let mut operation = Map::new();
    operation.insert("operationId".into(), json!(endpoint.name.to_lowercase()));
    operation.insert("tags".into(), json!([tag(endpoint.path)]));
    if let Some(first) = summary.lines().next().filter(|l| !l.trim().is_empty()) {
        operation.insert("summary".into(), json!(first.trim()));
    }
    let access = access_rule(gate);
    let description = if summary.is_empty() {
        format!("Who may call it: {}.", access.1)
    } else {
        format!("{}\n\nWho may call it: {}.", summary.replace("\n ", "\n"), access.1)
    };
    operation.insert("description".into(), json!(description));
    operation.insert("x-ferry-access".into(), access.0);
    operation.insert("security".into(), security(gate));
    let mut responses = Map::new();
    let success = success(endpoint, answers);
    let example = examples().get(&format!("{} {}", endpoint.method.as_str(), endpoint.path));
    for status in endpoint.success {
        let mut success = success.clone();
        if let (Some(example), Some(json)) =
            (example, success.pointer_mut("/content/application~1json"))
        {
            if example["status"] == json!(status) {
                json["example"] = example["answer"].clone();
            }
        }
        responses.insert(status.to_string(), success);
    }
    for status in error_statuses(endpoint, gate, has_body) {
        responses.insert(
            status.to_string(),
            json!({"$ref": format!("#/components/responses/{status}")}),
        );
    }
    responses.insert("default".into(), json!({"$ref": "#/components/responses/default"}));
    operation.insert("responses".into(), Value::Object(responses));
    operation
}

/// The group an endpoint is listed under: the first segment of its path.
fn tag(path: &str) -> &str {
    path.trim_start_matches('/').split('/').next().unwrap_or("api")
}

/// The gate as data (`x-ferry-access`) and in words.
fn access_rule(gate: Gate) -> (Value, String) {
    let role = |r: Role| r.to_string();
    let object = |o: Object| format!("{o:?}").to_lowercase();
    match gate {
        Gate::Public => (json!({"gate": "public"}), "anyone".into()),
        Gate::SignedIn => (
            json!({"gate": "signed-in"}),
            "any signed-in user (a session or an API token); what it answers is narrowed to \
             the caller's organisations"
                .into(),
        ),
        Gate::Session => {
            (json!({"gate": "session"}), "a signed-in browser session, never an API token".into())
        }
        Gate::Page => (json!({"gate": "page"}), "signed-in users".into()),
        Gate::Share => (
            json!({"gate": "share-link"}),
            "anyone holding the read-only share link whose token is in the path".into(),
        ),
        Gate::On(o, r) => (
            json!({"gate": "role-on-object", "object": object(o), "role": role(r)}),
            format!(
                "`{}` (or a role above it) in the organisation of the {} named by `{{id}}`",
                role(r),
                object(o)
            ),
        ),
        Gate::Review(o) => (
            json!({"gate": "review", "object": object(o)}),
            format!(
                "a planner, approver or committer in the organisation of the {} named by `{{id}}`",
                object(o)
            ),
        ),
        Gate::Org(r) => (
            json!({"gate": "role-in-org", "role": role(r)}),
            format!("`{}` in the organisation named by `{{org}}`", role(r)),
        ),
        Gate::Named(r) => (
            json!({"gate": "role-in-named-org", "role": role(r)}),
            format!("`{}` in the organisation the request names (its query or body)", role(r)),
        ),
        Gate::ServerFn => {
            (json!({"gate": "server-function"}), "the caller the function checks".into())
        }
    }
}

fn security(gate: Gate) -> Value {
    match gate {
        Gate::Public | Gate::Share => json!([]),
        Gate::Session => json!([{"session": []}]),
        _ => json!([{"session": []}, {"token": []}]),
    }
}

/// The path's parameters, and the query parameters the endpoint declares: one for each field
/// of its query type, with the field's schema (its types by `$ref` into the bodies'
/// definitions, as queries are read) and its comment.
fn parameters(endpoint: &EndpointInfo, bodies: &mut SchemaGenerator) -> Vec<Value> {
    let mut parameters = Vec::new();
    let mut rest = endpoint.path;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("a path parameter is closed");
        let name = &rest[open + 1..close];
        parameters.push(json!({
            "name": name, "in": "path", "required": true, "schema": {"type": "string"},
            "description": path_parameter_meaning(name),
        }));
        rest = &rest[close + 1..];
    }
    let Some(query) = (endpoint.query.schema)(bodies) else { return parameters };
    let query = Value::from(query);
    let required: Vec<&str> = query["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = query["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{}: a query type is a struct of named fields", endpoint.name));
    for (name, schema) in properties {
        let mut schema = schema.clone();
        let description = schema.as_object_mut().and_then(|s| s.remove("description"));
        let mut parameter = json!({
            "name": name, "in": "query", "required": required.contains(&name.as_str()),
            "schema": schema,
        });
        if let Some(description) = description {
            parameter["description"] = description;
        }
        parameters.push(parameter);
    }
    parameters
}

fn path_parameter_meaning(name: &str) -> &'static str {
    match name {
        "id" => "The ID of the object the path names (a stack, plan, preview, job, …).",
        "org" => "The organisation's name.",
        "token" => "The capability token of a link (a share link or an invitation).",
        "revision" => "A plan revision's number.",
        "index" => "The position of a preview among the revision's previews.",
        "job" => "A job's ID.",
        "link" => "A share link's ID.",
        "comment" => "A comment's ID.",
        "reviewer" => "The reviewer's user name.",
        "name" => "A user's name.",
        _ => "A path parameter.",
    }
}

/// The body, as an OpenAPI `requestBody`, with `$ref`s into the bodies' generator.
fn request_body(endpoint: &EndpointInfo, bodies: &mut SchemaGenerator) -> Option<Value> {
    let file =
        json!({"schema": {"type": "string", "contentMediaType": "application/octet-stream"}});
    let form = json!({"schema": {"type": "object"}});
    let content = match (endpoint.body)(bodies) {
        Wire::Nothing => return None,
        Wire::Json(schema) => json!({"application/json": {"schema": schema}}),
        Wire::JsonOrFile(schema) => json!({
            "application/json": {"schema": schema},
            "application/octet-stream": file,
            "multipart/form-data": form,
        }),
        Wire::File => json!({
            "application/octet-stream": file,
            "text/plain": {"schema": {"type": "string"}},
            "multipart/form-data": form,
        }),
        other => unreachable!("{}: a body cannot be {other:?}", endpoint.name),
    };
    Some(json!({"required": true, "content": content}))
}

/// The success answer, as an OpenAPI response.
fn success(endpoint: &EndpointInfo, answers: &mut SchemaGenerator) -> Value {
    let created = endpoint.success == [201];
    match (endpoint.answer_wire)(answers) {
        Wire::Json(schema) => json!({
            "description": if created { "Created" } else { "OK" },
            "content": {"application/json": {"schema": schema}},
        }),
        Wire::Text => json!({
            "description": "Generated code (with `format=json`, a JSON object of it).",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }),
        Wire::EventStream => json!({
            "description": "Server-sent events of the job's progress: `status` (`\"running\"`) when a job that waited its turn (queued) starts, one event per finished item, then `end` with the job.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }),
        Wire::Download => json!({
            "description": "The file, to save as it is.",
            "content": {"application/json": {"schema": {}}},
        }),
        Wire::NoContent => json!({"description": "Done; no content."}),
        other => unreachable!("{}: an answer cannot be {other:?}", endpoint.name),
    }
}

/// The error statuses an endpoint answers besides its domain's own (`default`): those of its
/// gate, and those of reading its body (when it takes one).
fn error_statuses(endpoint: &EndpointInfo, gate: Gate, has_body: bool) -> Vec<u16> {
    let mut statuses = Vec::new();
    match gate {
        Gate::Public => {}
        Gate::Share => statuses.push(404),
        Gate::SignedIn | Gate::Page | Gate::ServerFn => statuses.push(401),
        Gate::Session => statuses.extend([401, 403]),
        Gate::On(..) | Gate::Review(_) | Gate::Org(_) | Gate::Named(_) => {
            statuses.extend([401, 403, 404])
        }
    }
    if has_body {
        statuses.extend([400, 413, 415]);
    } else if endpoint.path.contains('{') || endpoint.summary.contains("`?") {
        statuses.push(400);
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

/// One shared response per error status, each listing the codes it answers, with an example.
fn error_responses() -> Value {
    let mut by_status: BTreeMap<u16, Vec<&ErrorCode>> = BTreeMap::new();
    for code in errors::ALL {
        by_status.entry(code.status).or_default().push(code);
    }
    let mut responses = Map::new();
    let body = |codes: &[&ErrorCode]| {
        let first = codes[0];
        json!({"application/json": {
            "schema": {"$ref": format!("#{SCHEMAS}/ErrorBody")},
            "example": {"error": {"code": first.code, "message": first.meaning}},
        }})
    };
    for (status, codes) in &by_status {
        let listed: Vec<String> =
            codes.iter().map(|c| format!("`{}`: {}", c.code, c.meaning)).collect();
        responses.insert(
            status.to_string(),
            json!({"description": listed.join("\n"), "content": body(codes)}),
        );
    }
    let all: Vec<&ErrorCode> = errors::ALL.iter().collect();
    responses.insert(
        "default".into(),
        json!({"description": "Any other failure the endpoint's domain names; `code` is one \
            of `x-ferry-error-codes`.", "content": body(&all)}),
    );
    Value::Object(responses)
}

/// Adds the bodies' definitions to the answers': one the same in both is kept once, and one
/// that differs (a field a body may leave out that an answer always has) is added as
/// `<Name>Input`. Answers the names renamed.
fn merge_definitions(
    answers: &mut Map<String, Value>,
    bodies: Map<String, Value>,
) -> BTreeMap<String, String> {
    let renamed: BTreeMap<String, String> = bodies
        .iter()
        .filter(|(name, schema)| answers.get(*name).is_some_and(|a| a != *schema))
        .map(|(name, _)| (name.clone(), format!("{name}Input")))
        .collect();
    for (name, mut schema) in bodies {
        rename_refs(&mut schema, &renamed);
        let name = renamed.get(&name).cloned().unwrap_or(name);
        answers.entry(name).or_insert(schema);
    }
    renamed
}

/// Points each `$ref` to a renamed definition at its new name.
fn rename_refs(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "$ref" {
                    if let Some(name) =
                        v.as_str().and_then(|r| r.strip_prefix(&format!("#{SCHEMAS}/")))
                    {
                        if let Some(new) = renamed.get(name) {
                            *v = json!(format!("#{SCHEMAS}/{new}"));
                        }
                    }
                } else {
                    rename_refs(v, renamed);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, renamed)),
        _ => {}
    }
}
