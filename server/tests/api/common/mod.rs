//! Shared by the API tests: the app over an in-memory store with Ferry's real random plugin
//! (built by `cargo test --workspace` into the same target folder), and request helpers.
#![allow(dead_code)]

pub mod openapi;

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use ferry_service::{EngineConfig, Ferry};
use http_body_util::BodyExt;
use leptos::prelude::LeptosOptions;
use serde_json::{json, Value};
use server::{router, AppState, AuthConfig};
use tower::ServiceExt;

pub fn plugin_dir() -> PathBuf {
    // target/<profile>/deps/<test>-<hash> -> target/<profile>
    let dir = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
    assert!(
        dir.join("pulumi-resource-random").exists(),
        "build the plugin first: cargo test --workspace (looked in {})",
        dir.display()
    );
    dir
}

/// The whole app; `demo` adds the demo stack.
pub async fn app(demo: bool) -> Router {
    app_with(EngineConfig::new(vec![plugin_dir()], None, ferry_state::secrets::random_key()), demo)
        .await
}

/// The whole app with its engine configured by the test (plugin folders, deadlines).
pub async fn app_with(engine: EngineConfig, demo: bool) -> Router {
    let store = ferry_store::testing::scratch().await.unwrap();
    app_of(Ferry::new(store, 1 << 20).with_engine(engine), demo).await
}

/// The whole app around a service the test configured, every request made (unless it says
/// who it is) as an administrator of every organisation, through a real API token.
pub async fn app_of(stacks: Ferry, demo: bool) -> Router {
    admin_app_of(stacks, demo).await.0
}

/// The whole app as an administrator calls it (as [`app_of`]), and its service.
pub async fn admin_app_of(stacks: Ferry, demo: bool) -> (Router, Arc<Ferry>) {
    let (router, stacks) = bare_app_of(stacks, demo).await;
    let token = token_for(&stacks, "test-admin", "*", Role::Admin).await;
    // These tests run the scripted plugins under many package names; the allow-list has its
    // own test (plugin_allow_list.rs).
    let any =
        ferry_types::OrgSettingsView { allowed_packages: vec!["*".into()], ..Default::default() };
    stacks.accounts().set_org_settings("*", any).await.unwrap();
    (as_caller(router, token), stacks)
}

/// The whole app, as anonymous callers reach it, and its service.
pub async fn bare_app_of(stacks: Ferry, demo: bool) -> (Router, Arc<Ferry>) {
    let stacks = Arc::new(stacks);
    if demo {
        stacks.stacks().ensure_demo().await.unwrap();
    }
    (router(app_state(stacks.clone())), stacks)
}

/// The server's state around `stacks`, as the tests' apps have it.
pub fn app_state(stacks: Arc<Ferry>) -> AppState {
    let leptos_options =
        LeptosOptions::builder().output_name("site").site_root("target/site").build();
    AppState::new(leptos_options, stacks, AuthConfig::default())
}

/// Every route's access decision, as a server on an empty store builds them.
pub async fn access_table() -> server::access::AccessTable {
    let store = ferry_store::testing::scratch().await.unwrap();
    server::gated_routes(&app_state(Arc::new(Ferry::new(store, 1 << 20)))).1
}

/// A new API token for `user` (made if missing), granted `role` in `org`.
pub async fn token_for(stacks: &Arc<Ferry>, user: &str, org: &str, role: Role) -> String {
    let user = stacks.accounts().grant(user, org, role).await.unwrap();
    stacks
        .accounts()
        .issue_api_token(&user.id, "test", org, role, 3600)
        .await
        .unwrap()
        .token
        .unwrap()
}

/// A local user `name` with `password` and `roles` in `org`, made as a server administrator
/// makes one: from a browser session (a password is never set with an API token).
pub async fn local_user(
    app: &Router,
    stacks: &Arc<Ferry>,
    org: &str,
    name: &str,
    roles: &[&str],
    password: &str,
) {
    let admin = stacks.accounts().grant("session-admin", "*", Role::Admin).await.unwrap();
    let link = stacks.accounts().new_sign_in_link(&admin.id).await.unwrap();
    let res = app
        .clone()
        .oneshot(Request::get(format!("/auth/link/{}", link.0)).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let cookie = res.headers()[axum::http::header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let req = Request::put(format!("/api/v1/orgs/{org}/members/{name}"))
        .header(axum::http::header::COOKIE, cookie)
        .header("sec-fetch-site", "same-origin")
        .header(axum::http::header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({"roles": roles, "password": password}).to_string()))
        .unwrap();
    let (status, body) = call(app, req).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// The router, with `Authorization: Bearer <token>` on every request that has none.
pub fn as_caller(router: Router, token: String) -> Router {
    router.layer(axum::middleware::map_request(move |mut req: Request<Body>| {
        let token = token.clone();
        async move {
            if !req.headers().contains_key(axum::http::header::AUTHORIZATION) {
                req.headers_mut().insert(
                    axum::http::header::AUTHORIZATION,
                    format!("Bearer {token}").parse().unwrap(),
                );
            }
            req
        }
    }))
}

/// The status and the JSON body (or the text, as a JSON string). Every successful JSON answer
/// of an API endpoint is read as the type `ferry_types::api` declares for it, and every JSON
/// answer (a failure too) is validated against the OpenAPI document's schema for it, so the
/// protocol's types and its document are held to what the server really answers.
pub async fn call(app: &Router, req: Request<Body>) -> (StatusCode, Value) {
    let endpoint = api_endpoint(req.method(), req.uri().path());
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let json = res
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().is_some_and(|m| m.trim() == "application/json"));
    let body = res.into_body().collect().await.unwrap().to_bytes();
    if let (Some(endpoint), true, true) = (endpoint, status.is_success(), json) {
        if let Err(wrong) = endpoint.check_answer(&body) {
            panic!("{wrong}\n{}", String::from_utf8_lossy(&body));
        }
    }
    if let (Some(endpoint), true) = (endpoint, json) {
        let method = endpoint.method.as_str();
        if let Err(wrong) = openapi::check(method, endpoint.path, status.as_u16(), &body).await {
            panic!("{wrong}\n{}", String::from_utf8_lossy(&body));
        }
        if status.is_success() {
            openapi::record_example(endpoint, status.as_u16(), &body).await;
        }
    }
    (
        status,
        serde_json::from_slice(&body).unwrap_or_else(|_| json!(String::from_utf8_lossy(&body))),
    )
}

/// The API endpoint a request reaches, if it is one.
pub fn api_endpoint(
    method: &axum::http::Method,
    path: &str,
) -> Option<&'static ferry_types::api::EndpointInfo> {
    use ferry_types::api::{endpoint_of, Method, PREFIX};
    let method = [Method::Get, Method::Post, Method::Put, Method::Delete]
        .into_iter()
        .find(|m| m.as_str() == method.as_str())?;
    endpoint_of(method, path.strip_prefix(PREFIX)?)
}

pub fn post(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri).body(Body::from(body.to_string())).unwrap()
}

/// A POST of JSON (what the `Json` extractors ask for).
pub fn post_json(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header(axum::http::header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

pub fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

/// Runs a background preview of the plan's latest revision to its end; the stored preview.
pub async fn plan_preview(app: &Router, plan: &str) -> (String, Value) {
    let (id, record, _) = plan_preview_job(app, plan).await;
    (id, record)
}

/// [`plan_preview`], with the job that ran it; every package's count is what its resources reported.
pub async fn plan_preview_job(app: &Router, plan: &str) -> (String, Value, Value) {
    let (status, job) = call(
        app,
        Request::post(format!("/api/v1/plans/{plan}/previews")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let job_id = job["id"].as_str().unwrap();
    // The event stream ends with the job.
    let res = app
        .clone()
        .oneshot(get(&format!("/api/v1/plans/{plan}/jobs/{job_id}/events")))
        .await
        .unwrap();
    res.into_body().collect().await.unwrap();
    let (_, job) = call(app, get(&format!("/api/v1/plans/{plan}/jobs/{job_id}"))).await;
    assert_eq!(job["status"], "done", "{job}");
    for package in job["packages"].as_array().unwrap() {
        let name = package["package"].as_str().unwrap();
        let finished = job["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"].as_str().unwrap().split(':').next() == Some(name))
            .count() as u64;
        assert_eq!(
            Some(finished),
            package["total"].as_u64(),
            "each of the package's resources reported once: {job}"
        );
    }
    let id = job["preview_id"].as_str().unwrap().to_string();
    let (status, record) = call(app, get(&format!("/api/v1/previews/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    (id, record, job)
}

/// A plugin folder whose `pulumi-resource-test` is Ferry's scripted test plugin in `naive` mode
/// (Check fills no defaults; Diff tells an absent property from `false`, `3600` or `{}`).
pub fn naive_plugin_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let binary = plugin_dir().join("ferry-test-provider");
    assert!(
        binary.exists(),
        "build the test plugin first: cargo test --workspace (looked for {})",
        binary.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("pulumi-resource-test");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nFERRY_TEST_PROVIDER_MODE=naive exec '{}' \"$@\"\n", binary.display()),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The zip's files, unpacked under `dir`; the project's folder.
/// A preview's code in `lang` (`ts`, `python`, `go`, `csharp`, `yaml`), as the API answers it.
pub async fn preview_code(app: &Router, preview: &str, lang: &str) -> String {
    let (status, code) =
        call(app, get(&format!("/api/v1/previews/{preview}/code?lang={lang}&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    code["code"].as_str().unwrap().to_string()
}

/// A preview's TypeScript and Python projects, type-checked against the real SDKs the test
/// command installs (tsc, pyright), in `crates/ferry-codegen/sdk-check/generated/<name>`; fails
/// when a tool is missing.
pub async fn type_check_ts_and_python(app: &Router, preview: &str, name: &str) {
    let sdk =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-codegen/sdk-check");
    let tsc = sdk.join("node_modules/.bin/tsc");
    let pyright = sdk.join("node_modules/.bin/pyright");
    let python = sdk.join("../../../target/codegen-venv/bin/python");
    for tool in [&tsc, &pyright, &python] {
        assert!(
            tool.exists(),
            "{} is missing: run ./scripts/test.sh, which installs it",
            tool.display()
        );
    }
    let dir = sdk.join("generated").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let zip = |lang: &str| format!("/api/v1/previews/{preview}/code?lang={lang}&format=zip");
    let run = |cmd: &mut std::process::Command, what: &str| {
        let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            out.status.success(),
            "{what}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ts_dir = unpack(app, &zip("ts"), &dir.join("ts")).await;
    run(
        std::process::Command::new(&tsc).args(["--noEmit", "-p"]).arg(ts_dir.join("tsconfig.json")),
        "tsc",
    );
    let py_dir = unpack(app, &zip("python"), &dir.join("py")).await;
    run(
        std::process::Command::new(&pyright)
            .arg("--pythonpath")
            .arg(&python)
            .arg(py_dir.join("__main__.py")),
        "pyright",
    );
}

pub async fn unpack(app: &Router, uri: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let res = app.clone().oneshot(get(uri)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{uri}");
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut root = None;
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).unwrap();
        let path = dir.join(file.enclosed_name().expect("a relative path inside the zip"));
        root.get_or_insert_with(|| path.parent().unwrap().to_path_buf());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut text).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    root.expect("a non-empty zip")
}

/// Runs a discovery of `types` on the stack to its end (its event stream ends with it); the
/// finished job, whose status must be `done`.
pub async fn discovery(app: &Router, stack: &str, types: Value) -> Value {
    let (status, job) = call(
        app,
        post(&format!("/api/v1/stacks/{stack}/discoveries"), &json!({"types": types}).to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let id = job["id"].as_str().unwrap();
    let res = app.clone().oneshot(get(&format!("/api/v1/discoveries/{id}/events"))).await.unwrap();
    let events =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(events.contains("event: end"), "{events}");
    let (_, view) = call(app, get(&format!("/api/v1/discoveries/{id}"))).await;
    assert_eq!(view["status"], "done", "{view}");
    view
}

/// Runs an identification of `body` (`{program, ids?}`) on the stack to its end: its event
/// stream gives a `resource` event per program resource and a `row` per row of the table, then
/// ends; the finished job, whose status must be `done`, holds the table. Returns the table and
/// the stream's text.
pub async fn identification(app: &Router, stack: &str, body: &Value) -> (Value, String) {
    let (status, job) =
        call(app, post_json(&format!("/api/v1/stacks/{stack}/identifications"), &body.to_string()))
            .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let id = job["id"].as_str().unwrap();
    let res =
        app.clone().oneshot(get(&format!("/api/v1/identifications/{id}/events"))).await.unwrap();
    let events =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(events.contains("event: end"), "{events}");
    let rows = events.lines().filter(|l| l.starts_with("data: {\"kind\":\"row\"")).count();
    let (_, view) = call(app, get(&format!("/api/v1/identifications/{id}"))).await;
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(view["finished"], view["total"], "{view}");
    let table = view["identifications"].clone();
    assert_eq!(
        table["rows"].as_array().map(Vec::len),
        Some(rows),
        "the stream gave each row of the table: {events}"
    );
    (table, events)
}

/// The steps of a preview (`op name`, and the error when a step has one).
pub fn step_lines(plan: &Value) -> Vec<String> {
    plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| match s["error"].as_str() {
            Some(e) => {
                format!("{} {} ({e})", s["op"].as_str().unwrap(), s["name"].as_str().unwrap())
            }
            None => format!("{} {}", s["op"].as_str().unwrap(), s["name"].as_str().unwrap()),
        })
        .collect()
}

/// The code Ferry generated for a committed preview previews clean against the stack the
/// commit wrote: its YAML, in both scopes, through the API and as a plan's background preview
/// (where it takes no config), every step `same` without an error. `passphrase` is the stack's,
/// when it holds passphrase secrets; `config` the program's config (secret config a header
/// asks for). Returns the YAML.
pub async fn assert_code_previews_same(
    app: &Router,
    stack: &str,
    preview: &str,
    passphrase: Option<&str>,
    config: Value,
) -> String {
    let (status, code) =
        call(app, get(&format!("/api/v1/previews/{preview}/code?lang=yaml&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    let text = code["code"].as_str().unwrap().to_string();
    let with_passphrase = |req: axum::http::request::Builder| match passphrase {
        Some(p) => req.header("x-ferry-passphrase", p),
        None => req,
    };
    for scope in ["whole-stack", "imports"] {
        let body = json!({"program": text, "config": config, "scope": scope}).to_string();
        let req = with_passphrase(Request::post(format!("/api/v1/stacks/{stack}/previews")))
            .body(Body::from(body))
            .unwrap();
        let (status, again) = call(app, req).await;
        assert_eq!(status, StatusCode::CREATED, "{again}\n{text}");
        let steps = step_lines(&again["preview"]["plan"]);
        assert!(
            steps.iter().all(|s| s.starts_with("same ") && !s.contains('(')),
            "{scope}: {steps:?}\n{text}"
        );
    }
    if config.as_object().is_none_or(|c| c.is_empty()) {
        for scope in ["imports", "whole-stack"] {
            let body = json!({"program": text, "options": {"scope": scope}}).to_string();
            let (status, plan) =
                call(app, post(&format!("/api/v1/stacks/{stack}/plans"), &body)).await;
            assert_eq!(status, StatusCode::CREATED, "{plan}");
            let plan = plan["id"].as_str().unwrap();
            let req = with_passphrase(Request::post(format!("/api/v1/plans/{plan}/previews")))
                .body(Body::empty())
                .unwrap();
            let (status, job) = call(app, req).await;
            assert_eq!(status, StatusCode::ACCEPTED, "{job}");
            let job_id = job["id"].as_str().unwrap();
            let res = app
                .clone()
                .oneshot(get(&format!("/api/v1/plans/{plan}/jobs/{job_id}/events")))
                .await
                .unwrap();
            res.into_body().collect().await.unwrap();
            let (_, job) = call(app, get(&format!("/api/v1/plans/{plan}/jobs/{job_id}"))).await;
            assert_eq!(job["status"], "done", "{job}");
            let (_, record) = call(
                app,
                get(&format!("/api/v1/previews/{}", job["preview_id"].as_str().unwrap())),
            )
            .await;
            let steps = step_lines(&record["preview"]["plan"]);
            assert!(
                steps.iter().all(|s| s.starts_with("same ") && !s.contains('(')),
                "a plan in the {scope} scope: {steps:?}\n{text}"
            );
        }
    }
    text
}

/// A Terraform or OpenTofu file of the shared fixtures, as text.
pub fn terraform_fixture(name: &str) -> String {
    let dir = std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    std::fs::read_to_string(dir.join("terraform").join(name))
        .unwrap_or_else(|e| panic!("the shared fixture terraform/{name}: {e}"))
}
