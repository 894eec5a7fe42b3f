//! The access matrix: every route the router was built with (its own table, so a new route
//! cannot be missed), tried by every kind of caller, against the decision this test expects for
//! it. A route in the router that this test does not know fails it, and so does a route added
//! to the router without a decision (it is refused, fail-closed).

use crate::common;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

/// What a route needs, as this test (not the server) says it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Need {
    /// Anyone.
    Anyone,
    /// Any signed-in user.
    SignedIn,
    /// A signed-in user's browser session, never an API token (managing credentials).
    Session,
    /// A page: signed-in users; others are sent to sign in.
    Page,
    /// A page of an object: its organisation's members; others are sent to sign in.
    PageOf,
    /// A read-only link: anyone with its token; never a write.
    Link,
    /// This role in the object's organisation.
    Role(Role),
    /// Taking part in review: planner, approver or committer in the object's organisation.
    Review,
}

fn expected_needs() -> BTreeMap<(&'static str, &'static str), Need> {
    use Need::{Anyone, Link, Page, PageOf, Review, Session, SignedIn};
    use Role::{Admin, Approver, Committer, Planner, Viewer};
    #[allow(non_snake_case)]
    let Role = Need::Role;
    let table = [
        ("POST", "/auth/login", Anyone),
        ("POST", "/auth/logout", Anyone),
        ("GET", "/auth/link/{token}", Anyone),
        ("GET", "/auth/oidc/login", Anyone),
        ("GET", "/auth/oidc/callback", Anyone),
        ("GET", "/api/v1/me", SignedIn),
        ("POST", "/api/v1/me/password", Session),
        ("POST", "/api/v1/me/sessions/revoke", SignedIn),
        ("GET", "/api/v1/me/tokens", SignedIn),
        ("POST", "/api/v1/me/tokens", Session),
        // A token may revoke itself (attacks.rs); the token here is another one.
        ("DELETE", "/api/v1/me/tokens/{id}", Session),
        ("GET", "/api/v1/orgs/{org}/members", Role(Admin)),
        ("PUT", "/api/v1/orgs/{org}/members/{name}", Role(Admin)),
        ("GET", "/api/v1/orgs/{org}/audit", Role(Admin)),
        ("GET", "/api/v1/stacks", SignedIn),
        ("POST", "/api/v1/stacks", Role(Planner)),
        ("GET", "/api/v1/stacks/{id}", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/versions", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/locks", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/config", Role(Viewer)),
        ("PUT", "/api/v1/stacks/{id}/config", Role(Planner)),
        ("GET", "/api/v1/stacks/{id}/export", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/graph", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/resources", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/resource", Role(Viewer)),
        ("POST", "/api/v1/stacks/{id}/previews", Role(Planner)),
        ("GET", "/api/v1/previews/{id}", Role(Viewer)),
        ("POST", "/api/v1/previews/{id}/commit", Role(Committer)),
        ("GET", "/api/v1/previews/{id}/code", Role(Viewer)),
        ("POST", "/api/v1/stacks/{id}/plans", Role(Planner)),
        ("GET", "/api/v1/plans/{id}", Role(Viewer)),
        ("POST", "/api/v1/plans/{id}/revisions", Role(Planner)),
        ("GET", "/api/v1/plans/{id}/revisions/{revision}", Role(Viewer)),
        ("POST", "/api/v1/plans/{id}/previews", Role(Planner)),
        ("GET", "/api/v1/plans/{id}/jobs", Role(Viewer)),
        ("GET", "/api/v1/plans/{id}/jobs/{job}", Role(Viewer)),
        ("GET", "/api/v1/plans/{id}/jobs/{job}/events", Role(Viewer)),
        ("POST", "/api/v1/plans/{id}/jobs/{job}/cancel", Role(Planner)),
        ("GET", "/api/v1/plans/{id}/shares", Role(Planner)),
        ("POST", "/api/v1/plans/{id}/shares", Role(Planner)),
        ("DELETE", "/api/v1/plans/{id}/shares/{token}", Role(Planner)),
        ("GET", "/api/v1/shared/{token}", Link),
        ("GET", "/api/v1/shared/{token}/previews/{index}", Link),
        ("GET", "/api/v1/stacks/{id}/code", Role(Viewer)),
        ("POST", "/api/v1/markers", SignedIn),
        ("GET", "/api/v1/stacks/{id}/editor-help", Role(Viewer)),
        ("GET", "/api/v1/previews/{id}/review", Role(Viewer)),
        ("GET", "/api/v1/previews/{id}/review/resource", Role(Viewer)),
        ("GET", "/api/v1/previews/{id}/graph", Role(Viewer)),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/review", Link),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/review/resource", Link),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/graph", Link),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/code", Link),
        ("POST", "/api/v1/plans/{id}/resolutions", Role(Planner)),
        ("POST", "/api/v1/plans/{id}/resolutions/zero-values", Role(Planner)),
        ("GET", "/api/v1/backends/stacks", Role(Planner)),
        ("POST", "/api/v1/stacks/{id}/discoveries", Role(Planner)),
        ("GET", "/api/v1/stacks/{id}/discoveries/types", Role(Viewer)),
        ("POST", "/api/v1/stacks/{id}/discoveries/probe", Role(Planner)),
        ("POST", "/api/v1/stacks/{id}/discoveries/plan", Role(Planner)),
        ("GET", "/api/v1/discoveries/{id}", Role(Viewer)),
        ("GET", "/api/v1/discoveries/{id}/events", Role(Viewer)),
        ("POST", "/api/v1/discoveries/{id}/cancel", Role(Planner)),
        ("GET", "/api/v1/plans/{id}/comments", Role(Viewer)),
        ("POST", "/api/v1/plans/{id}/comments", Review),
        ("POST", "/api/v1/plans/{id}/comments/{comment}/resolve", Review),
        ("GET", "/api/v1/shared/{token}/comments", Link),
        ("GET", "/api/v1/plans/{id}/approvals", Role(Viewer)),
        ("POST", "/api/v1/plans/{id}/approvals", Role(Approver)),
        ("DELETE", "/api/v1/plans/{id}/approvals", Role(Approver)),
        ("GET", "/api/v1/plans/{id}/activity", Role(Viewer)),
        ("GET", "/api/v1/stacks/{id}/settings", Role(Viewer)),
        ("PUT", "/api/v1/stacks/{id}/settings", Role(Admin)),
        ("GET", "/api/v1/orgs/{org}/settings", Role(Admin)),
        ("PUT", "/api/v1/orgs/{org}/settings", Role(Admin)),
        ("GET", "/", Page),
        ("GET", "/signin", Anyone),
        ("GET", "/account", Page),
        ("GET", "/stacks/{id}", PageOf),
        ("GET", "/stacks/{id}/graph", PageOf),
        ("GET", "/stacks/{id}/discover", PageOf),
        ("GET", "/plans/{id}", PageOf),
        ("GET", "/plans/{id}/r/{rev}", PageOf),
        ("GET", "/shared/{token}", Link),
        ("GET", "/shared/{token}/r/{rev}", Link),
    ];
    table.into_iter().map(|(m, p, n)| ((m, p), n)).collect()
}

/// Who calls.
#[derive(Debug, Clone)]
enum Who {
    Anonymous,
    Member(Role),
    OtherOrgAdmin,
    ExpiredToken,
    RevokedToken,
    /// Someone who holds only a read-only link (and tries it as a credential too).
    LinkHolder,
}

struct World {
    app: Router,
    tokens: BTreeMap<String, String>,
    stack: String,
    plan: String,
    preview: String,
    job: String,
    share: String,
    discovery: String,
    token_id: String,
    /// A DIY backend folder (empty) allowed to the organisation.
    backend: tempfile::TempDir,
}

async fn world() -> World {
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    let backend = tempfile::tempdir().unwrap();
    let allowed = vec![ferry_service::AllowedBackend { org: "ferry".into(), url: format!("file://{}", backend.path().display()) }];
    let (app, stacks) = common::bare_app_of(ferry_service::StackService::new(store, 1 << 20).with_engine(engine).with_allowed_backends(allowed), true).await;
    let mut tokens = BTreeMap::new();
    for role in Role::ALL {
        tokens.insert(format!("{role:?}"), common::token_for(&stacks, &format!("{}-user", role.as_str()), "ferry", role).await);
    }
    tokens.insert("OtherOrgAdmin".into(), common::token_for(&stacks, "outsider", "elsewhere", Role::Admin).await);
    let admin = stacks.grant("late-admin", "ferry", Role::Admin).await.unwrap();
    tokens.insert("ExpiredToken".into(), stacks.issue_api_token(&admin.id, "expired", "ferry", Role::Admin, -1).await.unwrap().token.unwrap());
    let revoked = stacks.issue_api_token(&admin.id, "revoked", "ferry", Role::Admin, 3600).await.unwrap();
    let admin_caller = stacks.caller_of_token(revoked.token.as_deref().unwrap()).await.unwrap();
    stacks.revoke_api_token(&admin_caller, &revoked.id).await.unwrap();
    tokens.insert("RevokedToken".into(), revoked.token.clone().unwrap());
    let token_id = stacks.issue_api_token(&admin.id, "spare", "ferry", Role::Viewer, 3600).await.unwrap().id;

    // The objects the routes act on, made by an administrator.
    let admin_app = common::as_caller(app.clone(), tokens["Admin"].clone());
    let (_, list) = common::call(&admin_app, common::get("/api/v1/stacks")).await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": "5,1,10"}]});
    let (status, plan) = common::call(&admin_app, common::post(&format!("/api/v1/stacks/{stack}/plans"), &json!({"spec": spec.to_string()}).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (preview, _) = common::plan_preview(&admin_app, &plan).await;
    let (_, jobs) = common::call(&admin_app, common::get(&format!("/api/v1/plans/{plan}/jobs"))).await;
    let job = jobs[0]["id"].as_str().unwrap().to_string();
    let (_, share) = common::call(&admin_app, common::post(&format!("/api/v1/plans/{plan}/shares"), "")).await;
    let share = share["token"].as_str().unwrap().to_string();
    let discovery = common::discovery(&admin_app, &stack, json!([{"type": "random:index/randomInteger:RandomInteger"}])).await;
    let discovery = discovery["id"].as_str().unwrap().to_string();
    World { app, tokens, stack, plan, preview, job, share, discovery, token_id, backend }
}

impl World {
    /// The route's path with this world's objects in it.
    fn fill(&self, path: &str) -> String {
        let id = if path.contains("/me/tokens/") {
            &self.token_id
        } else if path.starts_with("/api/v1/stacks/") || path.starts_with("/stacks/") {
            &self.stack
        } else if path.starts_with("/api/v1/plans/") || path.starts_with("/plans/") {
            &self.plan
        } else if path.starts_with("/api/v1/previews/") {
            &self.preview
        } else {
            &self.discovery
        };
        let token = if path.starts_with("/auth/link/") { "0123456789abcdef0123456789abcdef" } else { &self.share };
        let mut filled = path
            .replace("{id}", id)
            .replace("{job}", &self.job)
            .replace("{comment}", "0123456789abcdef0123456789abcdef")
            .replace("{token}", token)
            .replace("{revision}", "1")
            .replace("{rev}", "1")
            .replace("{index}", "0")
            .replace("{org}", "ferry")
            .replace("{name}", "someone");
        if path.ends_with("/resource") {
            filled.push_str("?urn=urn:pulumi:dev::demo::pulumi:pulumi:Stack::demo-dev");
        }
        if path == "/api/v1/backends/stacks" {
            filled.push_str(&format!("?org=ferry&url=file://{}", self.backend.path().display()));
        }
        filled
    }

    async fn call(&self, who: &Who, method: &Method, path: &str) -> (StatusCode, String) {
        let body = match (method.as_str(), path) {
            (_, "/api/v1/stacks") => r#"{"version": 3, "deployment": {"resources": []}}"#.to_string(),
            (_, p) if p.ends_with("/members/{name}") => json!({"roles": ["viewer"]}).to_string(),
            (_, "/auth/login") => json!({"name": "nobody", "password": "wrong password"}).to_string(),
            _ => String::new(),
        };
        let mut uri = self.fill(path);
        if path == "/api/v1/stacks" && method == Method::POST {
            uri.push_str("?name=ferry/matrix/dev");
        }
        let mut req = Request::builder().method(method.clone()).uri(&uri).header(header::CONTENT_TYPE, "application/json");
        let token = match who {
            Who::Anonymous => None,
            Who::Member(role) => Some(self.tokens[&format!("{role:?}")].clone()),
            Who::OtherOrgAdmin => Some(self.tokens["OtherOrgAdmin"].clone()),
            Who::ExpiredToken => Some(self.tokens["ExpiredToken"].clone()),
            Who::RevokedToken => Some(self.tokens["RevokedToken"].clone()),
            Who::LinkHolder => None,
        };
        if let Some(token) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let res = self.app.clone().oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
        let status = res.status();
        // Event streams of finished jobs end; read a bounded part of any answer.
        let bytes = tokio::time::timeout(std::time::Duration::from_secs(20), res.into_body().collect())
            .await
            .map(|b| b.map(|b| b.to_bytes()).unwrap_or_default())
            .unwrap_or_default();
        (status, String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned())
    }
}

/// The status class this test expects: `None` for "allowed" (the handler ran: anything but
/// 401, 403 or a sign-in redirect).
fn expect(need: Need, who: &Who, method: &Method) -> Option<StatusCode> {
    match who {
        Who::ExpiredToken | Who::RevokedToken => return Some(StatusCode::UNAUTHORIZED),
        Who::Anonymous | Who::LinkHolder => {
            return match need {
                Need::Anyone | Need::Link => None,
                Need::Page | Need::PageOf => Some(StatusCode::SEE_OTHER),
                Need::SignedIn | Need::Session | Need::Role(_) | Need::Review => Some(StatusCode::UNAUTHORIZED),
            }
        }
        _ => {}
    }
    // Every caller here holds an API token: credentials are managed from sessions only.
    if need == Need::Session {
        return Some(StatusCode::FORBIDDEN);
    }
    assert!(need != Need::Link || method == Method::GET, "a link never writes");
    match (need, who) {
        (Need::Role(_) | Need::PageOf | Need::Review, Who::OtherOrgAdmin) => Some(StatusCode::FORBIDDEN),
        (Need::Review, Who::Member(Role::Viewer)) => Some(StatusCode::FORBIDDEN),
        (Need::Role(needed), Who::Member(held)) if !held.grants(needed) => Some(StatusCode::FORBIDDEN),
        _ => None,
    }
}

fn callers() -> Vec<Who> {
    let mut all = vec![Who::Anonymous, Who::OtherOrgAdmin, Who::ExpiredToken, Who::RevokedToken, Who::LinkHolder];
    all.extend(Role::ALL.into_iter().map(Who::Member));
    all
}

#[tokio::test]
async fn every_route_decides_who_may_call_it() {
    let world = world().await;
    let (_, table) = server::gated_routes(&server::AppState::new(
        leptos::prelude::LeptosOptions::builder().output_name("site").site_root("target/site").build(),
        std::sync::Arc::new(ferry_service::StackService::new(ferry_store::testing::scratch().await.unwrap(), 1 << 20)),
        Default::default(),
    ));
    let expected = expected_needs();
    // Server functions are tried by the next test, each with its own arguments.
    let mut routes: Vec<(Method, String)> =
        table.decisions().filter(|d| d.gate != server::access::Gate::ServerFn).map(|d| (d.method.clone(), d.path.clone())).collect();
    assert!(table.decisions().filter(|d| d.gate == server::access::Gate::ServerFn).all(|d| d.path.starts_with("/rpc/")));
    routes.sort_by(|a, b| (a.1.as_str(), a.0.as_str()).cmp(&(b.1.as_str(), b.0.as_str())));
    let known: Vec<(String, String)> = expected.keys().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    for (method, path) in &routes {
        assert!(expected.contains_key(&(method.as_str(), path.as_str())), "the router has {method} {path}, which this test has no expectation for: add it");
    }
    for (method, path) in &known {
        assert!(routes.iter().any(|(m, p)| m.as_str() == method && p == path), "this test expects {method} {path}, which the router no longer has");
    }

    // Writes first go last, so that what a caller does (a commit, a revoked link) never
    // changes what the next caller's reads find.
    let mut ordered = routes.clone();
    ordered.sort_by_key(|(m, _)| *m != Method::GET);
    let mut cells = 0;
    let mut failures = Vec::new();
    for (method, path) in &ordered {
        let need = expected[&(method.as_str(), path.as_str())];
        for who in callers() {
            let (status, body) = world.call(&who, method, path).await;
            cells += 1;
            let ok = match expect(need, &who, method) {
                Some(expected) => status == expected,
                // Signing in and out answer 401 (a wrong password, a dead link) and 303 themselves.
                None if need == Need::Anyone => !matches!(status, StatusCode::FORBIDDEN | StatusCode::INTERNAL_SERVER_ERROR),
                None => !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::SEE_OTHER | StatusCode::INTERNAL_SERVER_ERROR),
            };
            if !ok {
                failures.push(format!(
                    "{method} {path} as {who:?}: got {status}, expected {:?} ({body})",
                    expect(need, &who, method).map(|s| s.as_u16()).unwrap_or(0)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cells} cells wrong:\n{}", failures.len(), failures.join("\n"));
    assert!(cells > 600, "{cells} cells");
}

/// Server functions answer through one route, and each decides for itself from its arguments.
#[tokio::test]
async fn every_server_function_decides_who_may_call_it() {
    let world = world().await;
    let mut seen = Vec::new();
    for (path, _) in leptos::server_fn::axum::server_fn_paths() {
        let name = path.trim_start_matches("/rpc/").trim_end_matches(|c: char| c.is_ascii_digit());
        let (args, need) = match name {
            "list_stacks" => (String::new(), Need::SignedIn),
            "current_user" | "sign_in_methods" => (String::new(), Need::Anyone),
            "stack_page" => (format!("id={}", world.stack), Need::Role(Role::Viewer)),
            "load_resource_detail" => (format!("id={}&urn=x", world.stack), Need::Role(Role::Viewer)),
            "stack_rows" => (format!("id={}&version=1&filter=&sort=&offset=0&limit=10", world.stack), Need::Role(Role::Viewer)),
            "plan_page" => (format!("id={}&share=", world.plan), Need::Role(Role::Viewer)),
            "new_plan" => (format!("stack_id={}&kind=spec", world.stack), Need::Role(Role::Planner)),
            other => panic!("the server function `{other}` ({path}) has no expectation in this test: add it"),
        };
        seen.push(name.to_string());
        for who in callers() {
            let mut req = Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
            let token = match &who {
                Who::Member(role) => world.tokens.get(&format!("{role:?}")),
                Who::OtherOrgAdmin => world.tokens.get("OtherOrgAdmin"),
                Who::ExpiredToken => world.tokens.get("ExpiredToken"),
                Who::RevokedToken => world.tokens.get("RevokedToken"),
                Who::Anonymous | Who::LinkHolder => None,
            };
            if let Some(token) = token {
                req = req.header(header::AUTHORIZATION, format!("Bearer {token}"));
            }
            let res = world.app.clone().oneshot(req.body(Body::from(args.clone())).unwrap()).await.unwrap();
            let status = res.status();
            let body = String::from_utf8_lossy(&res.into_body().collect().await.unwrap().to_bytes()).into_owned();
            let expected = match (need, &who) {
                (_, Who::ExpiredToken | Who::RevokedToken) => Some(StatusCode::UNAUTHORIZED),
                (Need::Anyone, _) => None,
                (_, Who::Anonymous | Who::LinkHolder) => Some(StatusCode::UNAUTHORIZED),
                (Need::Role(_), Who::OtherOrgAdmin) => Some(StatusCode::FORBIDDEN),
                (Need::Role(needed), Who::Member(held)) if !held.grants(needed) => Some(StatusCode::FORBIDDEN),
                _ => None,
            };
            match expected {
                Some(expected) => assert_eq!(status, expected, "{name} as {who:?}: {body}"),
                None => assert!(status.is_success() || name == "load_resource_detail", "{name} as {who:?}: {status} {body}"),
            }
        }
    }
    seen.sort();
    assert_eq!(seen, ["current_user", "list_stacks", "load_resource_detail", "new_plan", "plan_page", "sign_in_methods", "stack_page", "stack_rows"]);
}

/// Another organisation's member signs in fine but sees none of this organisation's stacks.
#[tokio::test]
async fn lists_show_only_the_callers_organisations() {
    let world = world().await;
    let (status, body) = world.call(&Who::OtherOrgAdmin, &Method::GET, "/api/v1/stacks").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!([]));
    let (_, body) = world.call(&Who::Member(Role::Viewer), &Method::GET, "/api/v1/stacks").await;
    assert!(body.contains("ferry/demo/dev"), "{body}");
}

/// A route that reached the router without a decision is refused, not served.
#[tokio::test]
async fn a_route_without_a_decision_is_refused() {
    use axum::routing::get;
    let store = ferry_store::testing::scratch().await.unwrap();
    let state = server::AppState::new(
        leptos::prelude::LeptosOptions::builder().output_name("site").site_root("target/site").build(),
        std::sync::Arc::new(ferry_service::StackService::new(store, 1 << 20)),
        Default::default(),
    );
    let (gated, table) = server::gated_routes(&state);
    let state = server::AppState { access: std::sync::Arc::new(table), ..state };
    let app: Router = gated
        .route("/api/v1/undecided", get(|| async { "secret" }))
        .layer(axum::middleware::from_fn_with_state(state.clone(), server::access::authorize))
        .with_state(state);
    let res = app.oneshot(Request::get("/api/v1/undecided").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("no access decision"));
}
