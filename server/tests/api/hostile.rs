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
    let backends = vec![
        AllowedBackend { org: "acme".into(), url: ours.clone() },
        AllowedBackend { org: "beta".into(), url: theirs.clone() },
    ];
    let w = world_with(engine(), backends).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let list = |url: &str| {
        format!(
            "/api/v1/backends/stacks?org=acme&url={}",
            url::form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>()
        )
    };
    for escape in ["/..%252Fb", "/..%2Fb", "/%2E%2E/b", "/../b", "/./../b"] {
        let url = format!("{ours}{escape}");
        let (status, body) = w.call(&planner, Method::GET, &list(&url), Value::Null).await;
        assert_ne!(status, StatusCode::OK, "{url}: {body}");
        assert!(!body.to_string().contains("test-upsert"), "{url} listed beta's stacks: {body}");
        let (status, body) = w
            .call(
                &planner,
                Method::POST,
                "/api/v1/stacks",
                json!({"backend": url, "name": "acme/s3bucket-test/test-upsert"}),
            )
            .await;
        assert_ne!(status, StatusCode::CREATED, "{url}: {body}");
    }
    // A symbolic link inside the allowed folder to the other organisation's is its target.
    std::os::unix::fs::symlink(dir.path().join("b"), dir.path().join("a/link")).unwrap();
    let (status, body) =
        w.call(&planner, Method::GET, &list(&format!("{ours}/link")), Value::Null).await;
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
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntouch '{}'\nFERRY_TEST_PROVIDER_MODE=naive exec '{}' \"$@\"\n",
            marker.display(),
            binary.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    marker
}

async fn upload_state(w: &World, who: &As, name: &str, state: &Value) -> (StatusCode, Value) {
    let req = Request::post(format!("/api/v1/stacks?name={name}"))
        .header(header::CONTENT_TYPE, "application/json");
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
    let engine = EngineConfig::new(
        vec![dir.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let w = world_with(engine, Vec::new()).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let (status, stack) =
        upload_state(&w, &planner, "acme/web/dev", &state_with("web", "dev", "test:index:Thing"))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "test:index:Thing", "name": "t", "id": "thing-2"}]});
    let (status, refused) = w
        .call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec.clone())
        .await;
    assert_eq!(status, StatusCode::CREATED, "{refused}");
    assert!(
        refused.to_string().contains("the package `test` is not allowed here"),
        "a stack holding the package does not allow it: {refused}"
    );
    assert!(!marker.exists(), "the plugin never ran");

    // Ferry's PostgreSQL plugin reaches any host a program names: only an administrator allows it.
    let spec_pg =
        json!({"resources": [{"type": "postgresql:index/role:Role", "name": "r", "id": "nobody"}]});
    let (_, refused) =
        w.call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec_pg).await;
    assert!(
        refused.to_string().contains("the package `postgresql` is not allowed here"),
        "{refused}"
    );

    // The control: an administrator allows the package, and it runs.
    let settings =
        json!({"share_links": true, "share_link_days": 30, "allowed_packages": ["test"]});
    let (status, body) = w.call(&w.root, Method::PUT, "/api/v1/orgs/acme/settings", settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, allowed) =
        w.call(&planner, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec).await;
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
    let (status, _) = w
        .call(
            &w.root,
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = upload_state(&w, &committer, "acme/web/prod", &state).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("approval_required")),
        "{refused}"
    );
    assert!(refused["error"]["message"].as_str().unwrap().contains("through a plan"), "{refused}");
    let (_, versions) = w
        .call(&w.root, Method::GET, &format!("/api/v1/stacks/{stack}/versions"), Value::Null)
        .await;
    assert_eq!(versions.as_array().unwrap().len(), 1, "nothing was stored: {versions}");
    // The control: without the rule, a committer stores the next version.
    let (status, _) = w
        .call(
            &w.root,
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 0}),
        )
        .await;
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
    let (status, body) = upload_state(
        &w,
        &w.root,
        "acme/web.v2/dev",
        &state_with("web.v2", "dev", "random:index/randomPet:RandomPet"),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "the control: a dot inside a name is fine: {body}");
}

async fn login(
    w: &World,
    content_type: &str,
    extra: &[(&str, &str)],
    body: String,
) -> axum::response::Response {
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
    let res =
        login(&w, "application/json", &[("sec-fetch-site", "cross-site")], body.clone()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res =
        login(&w, "application/json", &[("origin", "https://evil.example")], body.clone()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // The controls: a script's JSON, and Ferry's own page.
    assert_eq!(login(&w, "application/json", &[], body.clone()).await.status(), StatusCode::OK);
    assert_eq!(
        login(&w, "application/json; charset=utf-8", &[("sec-fetch-site", "same-origin")], body)
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_sign_in_goes_on_only_to_a_page_of_ferry() {
    let w = world().await;
    w.member("acme", "ann", &["viewer"]).await;
    let form = |next: &str| {
        let next: String = url::form_urlencoded::byte_serialize(next.as_bytes()).collect();
        format!(
            "name=ann&password={}&next={next}",
            url::form_urlencoded::byte_serialize(crate::attacks::PASSWORD.as_bytes())
                .collect::<String>()
        )
    };
    for (next, to) in [
        ("/\t/evil.example", "/"),
        ("/%09/evil.example", "/"),
        ("//evil.example", "/"),
        ("/\\evil.example", "/"),
        ("/stacks/abc", "/stacks/abc"),
    ] {
        let res = login(
            &w,
            "application/x-www-form-urlencoded",
            &[("sec-fetch-site", "same-origin")],
            form(next),
        )
        .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "{next:?}");
        assert_eq!(res.headers()[header::LOCATION], to, "{next:?}");
    }
}

/// Two million brackets, as JSON or YAML flow text: within the default upload limit (64 MiB),
/// so it is the readers' depth that is tried, not the body's size.
fn deep(open: &str, close: &str) -> String {
    deep_n(open, close, 2_000_000)
}

fn deep_n(open: &str, close: &str, n: usize) -> String {
    format!("{}{}", open.repeat(n), close.repeat(n))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_nested_two_million_deep_is_refused_and_the_server_stays_up() {
    let store = ferry_store::testing::scratch().await.unwrap();
    let ferry = ferry_service::Ferry::new(store, ferry_service::DEFAULT_MAX_STATE_BYTES)
        .with_engine(engine());
    let (app, stacks) = common::bare_app_of(ferry, true).await;
    let root = As::Token(
        common::token_for(&stacks, "root", "*", ferry_service::access::Role::Admin).await,
    );
    let (_, list) = send(&app, &root, Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let json_deep = deep("[", "]");
    let yaml_program = format!("name: deep\nruntime: yaml\nvariables:\n  v: {json_deep}\n");
    let bodies: Vec<(Method, String, String)> = vec![
        (Method::POST, "/api/v1/stacks?name=acme/deep/dev".into(), json_deep.clone()),
        (Method::POST, format!("/api/v1/stacks/{stack}/previews"), json_deep.clone()),
        (
            Method::POST,
            format!("/api/v1/stacks/{stack}/previews"),
            json!({"program": yaml_program}).to_string(),
        ),
        (
            Method::POST,
            format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": json_deep}).to_string(),
        ),
        (
            Method::POST,
            format!("/api/v1/stacks/{stack}/plans"),
            json!({"program": yaml_program}).to_string(),
        ),
        (Method::POST, "/api/v1/markers?kind=spec".into(), json_deep.clone()),
        (Method::POST, "/api/v1/markers?kind=program".into(), yaml_program.clone()),
        // The stack's config file is limited to 1 MiB: as deep as fits.
        (
            Method::PUT,
            format!("/api/v1/stacks/{stack}/config"),
            format!("config: {}\n", deep_n("[", "]", 400_000)),
        ),
        (Method::POST, format!("/api/v1/stacks/{stack}/migrations/terraform"), json_deep.clone()),
        // Typed bodies: refused at the first value of the wrong shape, before any depth.
        (
            Method::POST,
            format!("/api/v1/stacks/{stack}/discoveries/probe"),
            format!("{{\"items\": [{{\"type\": {json_deep}}}]}}"),
        ),
        (
            Method::PUT,
            "/api/v1/orgs/acme/settings".into(),
            format!("{{\"allowed_packages\": {json_deep}}}"),
        ),
    ];
    for (method, uri, body) in bodies {
        let req = Request::builder()
            .method(method.clone())
            .uri(&uri)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, root.bearer())
            .body(Body::from(body))
            .unwrap();
        let (status, answer) = common::call(&app, req).await;
        let text = answer.to_string();
        let lower = text.to_lowercase();
        let names_depth = ["nest", "depth", "deep", "recursion", "invalid type"]
            .iter()
            .any(|w| lower.contains(w));
        // Refused naming the depth (or the shape the typed body expected), or (the markers)
        // answered with that problem; never a crash.
        assert!(
            (status.is_client_error() || uri.contains("markers")) && names_depth,
            "{method} {uri}: {status} {}",
            &text[..text.len().min(400)]
        );
    }
    let (status, _) = send(&app, &root, Method::GET, "/api/v1/stacks", Value::Null).await;
    assert_eq!(status, StatusCode::OK, "the server still answers");
}

/// Accepts an invitation as JSON, as `who` (a session) or as nobody with `body`; the answer
/// and, for a new account, its session.
async fn accept(
    w: &World,
    token: &str,
    who: Option<&As>,
    body: Value,
) -> (StatusCode, Value, Option<As>) {
    let mut req = Request::post(format!("/auth/invitations/{token}"))
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(As::Session(cookie)) = who {
        req = req.header(header::COOKIE, cookie).header("sec-fetch-site", "same-origin");
    }
    let res =
        tower::ServiceExt::oneshot(w.app.clone(), req.body(Body::from(body.to_string())).unwrap())
            .await
            .unwrap();
    let status = res.status();
    let session = res
        .headers()
        .get(header::SET_COOKIE)
        .map(|c| As::Session(c.to_str().unwrap().split(';').next().unwrap().to_string()));
    let bytes = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null), session)
}

#[tokio::test]
async fn people_join_an_organisation_only_by_accepting_its_invitation() {
    let w = world().await;
    let admin_token = As::Token(
        common::token_for(&w.stacks, "ada", "acme", ferry_service::access::Role::Admin).await,
    );
    let admin = w.member("acme", "ada", &["admin"]).await;
    // A leaked administrator's token mints no invitation (an account that would outlive it).
    let (status, refused) = w
        .call(
            &admin_token,
            Method::POST,
            "/api/v1/orgs/acme/invitations",
            json!({"roles": ["planner"]}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    // From a session: the link's token is in the answer only.
    let (status, made) = w
        .call(&admin, Method::POST, "/api/v1/orgs/acme/invitations", json!({"roles": ["planner"]}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let token = made["token"].as_str().unwrap().to_string();
    let (_, listed) =
        w.call(&admin, Method::GET, "/api/v1/orgs/acme/invitations", Value::Null).await;
    assert!(!listed.to_string().contains(&token) && listed[0]["active"] == json!(true), "{listed}");
    // Its holder reads it without signing in: the token is the capability.
    let req = Request::get(format!("/api/v1/invitations/{token}")).body(Body::empty()).unwrap();
    let (status, shown) = common::call(&w.app, req).await;
    assert_eq!(
        (status, shown["org"].clone(), shown["roles"].clone()),
        (StatusCode::OK, json!("acme"), json!(["planner"])),
        "{shown}"
    );

    // Another site's page cannot accept it in a visitor's browser.
    let req = Request::post(format!("/auth/invitations/{token}"))
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from(json!({"name": "victim", "password": "a password of ten"}).to_string()))
        .unwrap();
    let res = tower::ServiceExt::oneshot(w.app.clone(), req).await.unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);

    // Its holder makes their own account, with the name and password they choose, and joins.
    let (status, joined, session) =
        accept(&w, &token, None, json!({"name": "newcomer", "password": "my own password"})).await;
    assert_eq!(
        (status, joined["org"].clone(), joined["roles"].clone()),
        (StatusCode::OK, json!("acme"), json!(["planner"])),
        "{joined}"
    );
    let (_, me) = w.call(&session.unwrap(), Method::GET, "/api/v1/me", Value::Null).await;
    assert_eq!(me["roles"], json!([{"org": "acme", "role": "planner"}]), "{me}");
    // Once.
    let (status, again, _) =
        accept(&w, &token, None, json!({"name": "second", "password": "another password"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");

    // Someone who exists joins as themselves, signed in; their sign-ins from before are not the
    // organisation's to read.
    let bob = w.member("beta", "bob", &["planner"]).await;
    assert!(crate::attacks::sign_in(&w.app, "bob", "not bob's password").await.is_err());
    let (_, made) = w
        .call(&admin, Method::POST, "/api/v1/orgs/acme/invitations", json!({"roles": ["viewer"]}))
        .await;
    let (status, joined, session) =
        accept(&w, made["token"].as_str().unwrap(), Some(&bob), Value::Null).await;
    assert_eq!((status, joined["name"].clone()), (StatusCode::OK, json!("bob")), "{joined}");
    assert!(session.is_none(), "already signed in");
    let (_, records) = w.call(&admin, Method::GET, "/api/v1/orgs/acme/audit", Value::Null).await;
    let about_bob: Vec<String> = records
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["actor"] == "bob")
        .map(|r| format!("{} {}", r["action"], r["outcome"]))
        .collect();
    assert!(
        about_bob.iter().all(|r| !r.contains("sign-in")),
        "bob's sign-ins before joining: {about_bob:?}"
    );
    assert!(about_bob.iter().any(|r| r.contains("invitation.accept")), "{about_bob:?}");

    // A revoked invitation is nothing.
    let (_, made) = w
        .call(&admin, Method::POST, "/api/v1/orgs/acme/invitations", json!({"roles": ["viewer"]}))
        .await;
    let (status, _) = w
        .call(
            &admin,
            Method::DELETE,
            &format!("/api/v1/orgs/acme/invitations/{}", made["id"].as_str().unwrap()),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = accept(
        &w,
        made["token"].as_str().unwrap(),
        None,
        json!({"name": "late", "password": "a late password"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
}

/// A read-only link's token is shown once and never kept: the store finds a link by the
/// token's hash only, so a copy of the database opens no link (and the link itself still works).
#[tokio::test]
async fn a_share_links_token_is_never_what_the_store_keeps() {
    let store = ferry_store::testing::scratch().await.unwrap();
    let (app, stacks) = common::bare_app_of(
        ferry_service::Ferry::new(store.clone(), 1 << 20).with_engine(engine()),
        true,
    )
    .await;
    let admin = crate::attacks::As::Token(
        common::token_for(&stacks, "admin", "*", ferry_service::access::Role::Admin).await,
    );
    let (_, listed) = send(&app, &admin, Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = listed[0]["id"].as_str().unwrap();
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": "5,1,10"}]}).to_string();
    let (status, plan) = send(
        &app,
        &admin,
        Method::POST,
        &format!("/api/v1/stacks/{stack}/plans"),
        json!({"spec": spec}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let (status, share) = send(
        &app,
        &admin,
        Method::POST,
        &format!("/api/v1/plans/{}/shares", plan["id"].as_str().unwrap()),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{share}");
    let token = share["token"].as_str().unwrap();

    assert!(
        matches!(
            store.plans().plan_share_by_token(token).await,
            Err(ferry_store::StoreError::ShareNotFound)
        ),
        "the token itself finds nothing in the store"
    );
    let kept = store.plans().plan_share_by_token(&ferry_store::hash_secret(token)).await.unwrap();
    assert_eq!(json!(kept.id), share["id"], "the store keeps the token's hash");
    // The legitimate holder of the link still reads the plan.
    let (status, shared) = common::call(
        &app,
        Request::get(format!("/api/v1/shared/{token}")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!((status, shared["read_only"].clone()), (StatusCode::OK, json!(true)), "{shared}");
}

/// What hands a stack's state or code out of Ferry, and what grants a role outside an
/// administrator's request, leaves a record: exports, code, reads through a read-only link (in
/// the plan's organisation), roles from OpenID Connect groups at sign-in, and failed OpenID
/// Connect callbacks (server-wide: no user is known). Each read also still works.
#[tokio::test]
async fn reads_of_state_and_code_and_roles_from_outside_are_audited() {
    let w = world().await;
    let admin = w.member("acme", "ada", &["admin"]).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let (status, stack) = upload_state(
        &w,
        &planner,
        "acme/web/dev",
        &state_with("web", "dev", "random:index/randomPet:RandomPet"),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let (status, export) =
        w.call(&planner, Method::GET, &format!("/api/v1/stacks/{stack}/export"), Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{export}");
    let (status, code) = w
        .call(&planner, Method::GET, &format!("/api/v1/stacks/{stack}/code?lang=ts"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::OK, "{code}");
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": "5,1,10"}]}).to_string();
    let (status, plan) = w
        .call(
            &planner,
            Method::POST,
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": spec}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let (_, share) = w
        .call(
            &planner,
            Method::POST,
            &format!("/api/v1/plans/{}/shares", plan["id"].as_str().unwrap()),
            Value::Null,
        )
        .await;
    let (status, shared) = common::call(
        &w.app,
        Request::get(format!("/api/v1/shared/{}", share["token"].as_str().unwrap()))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{shared}");
    crate::attacks::oidc_user(&w.stacks, "gil-subject", "gil", &["acme:viewer"], false).await;
    let (status, _) = common::call(
        &w.app,
        Request::get("/auth/oidc/callback?code=c&state=s").body(Body::empty()).unwrap(),
    )
    .await;
    assert!(status.is_client_error(), "{status}");

    let (status, records) =
        w.call(&admin, Method::GET, "/api/v1/orgs/acme/audit", Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{records}");
    let seen: Vec<(String, String, String)> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["actor"].as_str().unwrap_or("").to_string(),
                r["action"].as_str().unwrap().to_string(),
                r["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let has = |actor: Option<&str>, action: &str| {
        seen.iter().any(|(a, act, outcome)| {
            actor.is_none_or(|x| x == a) && act == action && outcome == "ok"
        })
    };
    assert!(has(Some("pat"), "stack.export"), "the export: {seen:?}");
    assert!(has(Some("pat"), "code.read"), "the code: {seen:?}");
    assert!(
        has(None, "share.read"),
        "the read through the link, in the plan's organisation: {seen:?}"
    );
    assert!(
        seen.iter().any(|(a, act, _)| a == "gil" && act == "member.roles-from-oidc-groups"),
        "roles from the provider's groups: {seen:?}"
    );
    let (_, everything) = w.call(&w.root, Method::GET, "/api/v1/orgs/%2A/audit", Value::Null).await;
    assert!(
        everything.as_array().unwrap().iter().any(|r| r["object"] == "OpenID Connect"
            && r["outcome"].as_str().unwrap().starts_with("failed")),
        "the failed callback, server-wide: {everything}"
    );
}
