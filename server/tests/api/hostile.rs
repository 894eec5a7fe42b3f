//! Hostile tenants and hostile files, through the whole router: each test is an attack one
//! organisation's member (or a file they upload) tried against Ferry as it was, then the same
//! request from the legitimate user, which must still succeed.

use crate::attacks::{backend_folder, send, world, world_with, As, World};
use crate::common;

use std::os::unix::fs::PermissionsExt;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use ferry_service::{AllowedBackend, EngineConfig};
use serde_json::{json, Value};

fn engine() -> EngineConfig {
    EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key())
}

#[tokio::test]
async fn a_backend_url_never_leaves_the_folder_it_is_allowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    let theirs = backend_folder(&dir.path().join("b"));
    let ours = format!("file://{}", dir.path().join("a").display());
    let backends = vec![AllowedBackend { org: "acme".into(), url: ours.clone() }, AllowedBackend { org: "beta".into(), url: theirs.clone() }];
    let w = world_with(engine(), backends).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let list = |url: &str| format!("/api/v1/backends/stacks?org=acme&url={}", url::form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>());
    for escape in ["/..%252Fb", "/..%2Fb", "/%2E%2E/b", "/../b", "/./../b"] {
        let url = format!("{ours}{escape}");
        let (status, body) = w.call(&planner, Method::GET, &list(&url), Value::Null).await;
        assert_ne!(status, StatusCode::OK, "{url}: {body}");
        assert!(!body.to_string().contains("test-upsert"), "{url} listed beta's stacks: {body}");
        let (status, body) = w.call(&planner, Method::POST, "/api/v1/stacks", json!({"backend": url, "name": "acme/s3bucket-test/test-upsert"})).await;
        assert_ne!(status, StatusCode::CREATED, "{url}: {body}");
    }
    // A symbolic link inside the allowed folder to the other organisation's is its target.
    std::os::unix::fs::symlink(dir.path().join("b"), dir.path().join("a/link")).unwrap();
    let (status, body) = w.call(&planner, Method::GET, &list(&format!("{ours}/link")), Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    // The control: the folder itself, and a real folder under it.
    let team = backend_folder(&dir.path().join("a/team"));
    for url in [ours.as_str(), team.as_str()] {
        let (status, body) = w.call(&planner, Method::GET, &list(url), Value::Null).await;
        assert_eq!(status, StatusCode::OK, "{url}: {body}");
    }
}

/// A plugin wrapper for the package `test` that leaves a mark when it is launched.
fn marking_plugin(dir: &std::path::Path) -> std::path::PathBuf {
    let marker = dir.join("launched");
    let wrapper = dir.join("pulumi-resource-test");
    let binary = common::plugin_dir().join("ferry-test-provider");
    std::fs::write(&wrapper, format!("#!/bin/sh\ntouch '{}'\nFERRY_TEST_PROVIDER_MODE=naive exec '{}' \"$@\"\n", marker.display(), binary.display())).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    marker
}

async fn upload_state(w: &World, who: &As, name: &str, state: &Value) -> (StatusCode, Value) {
    let req = Request::post(format!("/api/v1/stacks?name={name}")).header(header::CONTENT_TYPE, "application/json");
    let req = match who {
        As::Token(t) => req.header(header::AUTHORIZATION, format!("Bearer {t}")),
        As::Session(c) => req.header(header::COOKIE, c).header("sec-fetch-site", "same-origin"),
    };
    common::call(&w.app, req.body(Body::from(state.to_string())).unwrap()).await
}

/// A state with one resource of `token`, in the stack `project`/`stack`.
fn state_with(project: &str, stack: &str, token: &str) -> Value {
    let urn = |t: &str, n: &str| format!("urn:pulumi:{stack}::{project}::{t}::{n}");
    json!({"version": 3, "deployment": {"manifest": {"time": "2026-01-01T00:00:00Z", "magic": "", "version": "v3.0.0"}, "resources": [
        {"urn": urn("pulumi:pulumi:Stack", &format!("{project}-{stack}")), "custom": false, "type": "pulumi:pulumi:Stack"},
        {"urn": urn(&format!("pulumi:providers:{}", token.split(':').next().unwrap()), "default"), "custom": true, "id": "p1", "type": format!("pulumi:providers:{}", token.split(':').next().unwrap())},
        {"urn": urn(token, "thing"), "custom": true, "id": "thing-1", "type": token,
         "provider": format!("{}::p1", urn(&format!("pulumi:providers:{}", token.split(':').next().unwrap()), "default"))}
    ]}})
}

#[tokio::test]
async fn uploading_a_state_never_unlocks_its_plugins() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marking_plugin(dir.path());
    let engine = EngineConfig::new(vec![dir.path().to_path_buf(), common::plugin_dir()], None, ferry_state::secrets::random_key());
    let w = world_with(engine, Vec::new()).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let (status, stack) = upload_state(&w, &planner, "acme/web/dev", &state_with("web", "dev", "test:index:Thing")).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "test:index:Thing", "name": "t", "id": "thing-2"}]});
    let (status, refused) = w.call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{refused}");
    assert!(refused.to_string().contains("the package `test` is not allowed here"), "a stack holding the package does not allow it: {refused}");
    assert!(!marker.exists(), "the plugin never ran");

    // Ferry's PostgreSQL plugin reaches any host a program names: only an administrator allows it.
    let spec_pg = json!({"resources": [{"type": "postgresql:index/role:Role", "name": "r", "id": "nobody"}]});
    let (_, refused) = w.call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec_pg).await;
    assert!(refused.to_string().contains("the package `postgresql` is not allowed here"), "{refused}");

    // The control: an administrator allows the package, and it runs.
    let settings = json!({"share_links": true, "share_link_days": 30, "allowed_packages": ["test"]});
    let (status, body) = w.call(&w.root, Method::PUT, "/api/v1/orgs/acme/settings", settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, allowed) = w.call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec).await;
    assert_eq!(status, StatusCode::CREATED, "{allowed}");
    assert!(!allowed.to_string().contains("not allowed"), "{allowed}");
    assert!(marker.exists(), "now it runs");
}

#[tokio::test]
async fn a_new_version_over_a_stack_needs_a_committer_and_respects_its_approvals() {
    let w = world().await;
    let state = state_with("web", "prod", "random:index/randomPet:RandomPet");
    let planner = w.member("acme", "pat", &["planner"]).await;
    let committer = w.member("acme", "cora", &["committer", "planner"]).await;
    // The control: a planner makes a new stack.
    let (status, made) = upload_state(&w, &planner, "acme/web/prod", &state).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let stack = made["id"].as_str().unwrap().to_string();
    // A planner replacing what every plan was reviewed against: refused.
    let (status, refused) = upload_state(&w, &planner, "acme/web/prod", &state).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    // A stack whose changes need approvals is changed only through a plan.
    let (status, _) = w.call(&w.root, Method::PUT, &format!("/api/v1/stacks/{stack}/settings"), json!({"required_approvals": 1})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = upload_state(&w, &committer, "acme/web/prod", &state).await;
    assert_eq!((status, refused["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("approval_required")), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("through a plan"), "{refused}");
    let (_, versions) = w.call(&w.root, Method::GET, &format!("/api/v1/stacks/{stack}/versions"), Value::Null).await;
    assert_eq!(versions.as_array().unwrap().len(), 1, "nothing was stored: {versions}");
    // The control: without the rule, a committer stores the next version.
    let (status, _) = w.call(&w.root, Method::PUT, &format!("/api/v1/stacks/{stack}/settings"), json!({"required_approvals": 0})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, next) = upload_state(&w, &committer, "acme/web/prod", &state).await;
    assert_eq!((status, next["version"].clone()), (StatusCode::CREATED, json!(2)), "{next}");
}

#[tokio::test]
async fn a_stack_name_part_that_names_a_folder_is_refused_even_with_force() {
    let w = world().await;
    let state = state_with("web", "dev", "random:index/randomPet:RandomPet");
    for name in ["acme/../dev", "acme/web/..", "acme/./dev", "../web/dev"] {
        let req = Request::post(format!("/api/v1/stacks?name={name}&force=true"))
            .header(
                header::AUTHORIZATION,
                match &w.root {
                    As::Token(t) => format!("Bearer {t}"),
                    As::Session(_) => unreachable!(),
                },
            )
            .body(Body::from(state.to_string()))
            .unwrap();
        let (status, body) = common::call(&w.app, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name}: {body}");
    }
    let (status, body) = upload_state(&w, &w.root, "acme/web.v2/dev", &state_with("web.v2", "dev", "random:index/randomPet:RandomPet")).await;
    assert_eq!(status, StatusCode::CREATED, "the control: a dot inside a name is fine: {body}");
}

async fn login(w: &World, content_type: &str, extra: &[(&str, &str)], body: String) -> axum::response::Response {
    let mut req = Request::post("/auth/login").header(header::CONTENT_TYPE, content_type);
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    tower::ServiceExt::oneshot(w.app.clone(), req.body(Body::from(body)).unwrap()).await.unwrap()
}

#[tokio::test]
async fn another_site_cannot_sign_a_visitor_in() {
    let w = world().await;
    w.member("acme", "mallory", &["viewer"]).await;
    let body = json!({"name": "mallory", "password": crate::attacks::PASSWORD}).to_string();
    // What another site's form or `fetch` sends without asking first: `text/plain`.
    let res = login(&w, "text/plain", &[], body.clone()).await;
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(res.headers().get(header::SET_COOKIE).is_none(), "no session");
    // JSON the browser says comes from another site.
    let res = login(&w, "application/json", &[("sec-fetch-site", "cross-site")], body.clone()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = login(&w, "application/json", &[("origin", "https://evil.example")], body.clone()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // The controls: a script's JSON, and Ferry's own page.
    assert_eq!(login(&w, "application/json", &[], body.clone()).await.status(), StatusCode::OK);
    assert_eq!(login(&w, "application/json; charset=utf-8", &[("sec-fetch-site", "same-origin")], body).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_sign_in_goes_on_only_to_a_page_of_ferry() {
    let w = world().await;
    w.member("acme", "ann", &["viewer"]).await;
    let form = |next: &str| {
        let next: String = url::form_urlencoded::byte_serialize(next.as_bytes()).collect();
        format!("name=ann&password={}&next={next}", url::form_urlencoded::byte_serialize(crate::attacks::PASSWORD.as_bytes()).collect::<String>())
    };
    for (next, to) in [("/\t/evil.example", "/"), ("/%09/evil.example", "/"), ("//evil.example", "/"), ("/\\evil.example", "/"), ("/stacks/abc", "/stacks/abc")]
    {
        let res = login(&w, "application/x-www-form-urlencoded", &[("sec-fetch-site", "same-origin")], form(next)).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "{next:?}");
        assert_eq!(res.headers()[header::LOCATION], to, "{next:?}");
    }
}

#[tokio::test]
async fn a_body_nested_two_million_deep_is_refused_and_the_server_stays_up() {
    let w = world().await;
    let deep = format!("{}{}", "[".repeat(2_000_000), "]".repeat(2_000_000));
    let (_, stacks) = w.call(&w.root, Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    for uri in ["/api/v1/stacks?name=acme/deep/dev".to_string(), format!("/api/v1/stacks/{stack}/previews"), format!("/api/v1/stacks/{stack}/plans")] {
        let req = Request::post(&uri)
            .header(header::CONTENT_TYPE, "application/json")
            .header(
                header::AUTHORIZATION,
                match &w.root {
                    As::Token(t) => format!("Bearer {t}"),
                    As::Session(_) => unreachable!(),
                },
            )
            .body(Body::from(deep.clone()))
            .unwrap();
        let (status, body) = common::call(&w.app, req).await;
        assert!(status.is_client_error(), "{uri}: {status} {body}");
    }
    let (status, _) = send(&w.app, &w.root, Method::GET, "/api/v1/stacks", Value::Null).await;
    assert_eq!(status, StatusCode::OK, "the server still answers");
}
