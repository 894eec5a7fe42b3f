//! Webhooks end to end over the API, against a receiver this test runs (a small HTTP server in
//! the test process): each plan event is posted as signed JSON with the plan's link and a chat
//! `text`; a receiver that keeps failing is retried with backoff, then the delivery is marked
//! failed in the webhook's log; deliveries queued when the server stops go out when it starts
//! again; the secret is shown once; addresses on the server's own network are refused unless
//! the server's administrator allows them.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use ferry_service::webhooks::{signature, WebhookSettings};
use ferry_service::{EngineConfig, Ferry};
use serde_json::{json, Value};

/// What the receiver got: each request's headers and body.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<(HeaderMap, String)>>>);

impl Received {
    fn all(&self) -> Vec<(HeaderMap, String)> {
        self.0.lock().unwrap().clone()
    }

    /// Waits until `n` requests came (10 s at most).
    async fn wait_for(&self, n: usize) -> Vec<(HeaderMap, String)> {
        for _ in 0..200 {
            if self.0.lock().unwrap().len() >= n {
                return self.all();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the receiver got {} requests, not {n}", self.all().len());
    }
}

/// A receiver on a port of its own answering `status`: its URL and what it receives.
async fn receiver(status: StatusCode) -> (String, Received) {
    let received = Received::default();
    let kept = received.clone();
    let app = Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let kept = kept.clone();
            async move {
                kept.0.lock().unwrap().push((headers, body));
                status
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

fn settings(allow_private: bool) -> WebhookSettings {
    WebhookSettings {
        first_retry: Duration::from_millis(20),
        allow_private,
        public_url: Some("https://ferry.example".into()),
    }
}

struct Team {
    app: Router,
    ferry: Arc<Ferry>,
    admin: String,
    pat: String,
    ann: String,
    stack: String,
}

impl Team {
    async fn call(
        &self,
        token: &str,
        method: Method,
        uri: &str,
        body: Value,
    ) -> (StatusCode, Value) {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(if body.is_null() { Body::empty() } else { Body::from(body.to_string()) })
            .unwrap();
        common::call(&self.app, req).await
    }

    async fn plan(&self) -> String {
        let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": "5,1,10"}]}).to_string();
        let (status, plan) = self
            .call(
                &self.pat,
                Method::POST,
                &format!("/api/v1/stacks/{}/plans", self.stack),
                json!({"title": "Import n", "spec": spec}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{plan}");
        plan["id"].as_str().unwrap().to_string()
    }

    async fn webhook(&self, url: &str, events: Value) -> Value {
        let (status, made) = self
            .call(
                &self.admin,
                Method::POST,
                "/api/v1/orgs/ferry/webhooks",
                json!({"url": url, "events": events}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{made}");
        made
    }
}

async fn team(store: ferry_store::Store, key: [u8; 32], allow_private: bool, worker: bool) -> Team {
    let engine = EngineConfig::new(vec![common::plugin_dir()], None, key);
    let ferry =
        Ferry::new(store, 1 << 20).with_engine(engine).with_webhooks(settings(allow_private));
    let (app, ferry) = common::bare_app_of(ferry, true).await;
    if worker {
        tokio::spawn(ferry.webhooks().clone().run());
    }
    let admin = common::token_for(&ferry, "admin", "ferry", Role::Admin).await;
    let pat = common::token_for(&ferry, "pat", "ferry", Role::Planner).await;
    let ann = common::token_for(&ferry, "ann", "ferry", Role::Approver).await;
    let mut team = Team { app, ferry, admin, pat, ann, stack: String::new() };
    let (_, stacks) = team.call(&team.admin, Method::GET, "/api/v1/stacks", Value::Null).await;
    team.stack = stacks[0]["id"].as_str().unwrap().to_string();
    team
}

/// The webhook's latest delivery, once it is marked failed (5 s at most; as it stands then).
async fn latest_once_failed(team: &Team, webhook: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        let (_, log) = team
            .call(
                &team.admin,
                Method::GET,
                &format!("/api/v1/orgs/ferry/webhooks/{webhook}/deliveries"),
                Value::Null,
            )
            .await;
        last = log[0].clone();
        if last["status"] == "failed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_events_are_posted_signed_to_the_organisations_webhooks() {
    let team = team(
        ferry_store::testing::scratch().await.unwrap(),
        ferry_state::secrets::random_key(),
        true,
        true,
    )
    .await;
    let (url, received) = receiver(StatusCode::OK).await;
    let made = team.webhook(&url, json!([])).await;
    let secret = made["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"), "{made}");
    let (_, listed) =
        team.call(&team.admin, Method::GET, "/api/v1/orgs/ferry/webhooks", Value::Null).await;
    assert_eq!(listed[0]["url"], json!(url));
    assert!(
        !listed.to_string().contains(&secret),
        "the secret is shown once, when the webhook is made: {listed}"
    );
    assert_eq!(listed[0]["events"].as_array().unwrap().len(), 6, "no events named: every event");

    // A plan's life: created, previewed, changes requested, revised and previewed, approved,
    // committed; another plan closed.
    let plan = team.plan().await;
    let planner = common::as_caller(team.app.clone(), team.pat.clone());
    let (preview, _) = common::plan_preview(&planner, &plan).await;
    let ask = json!({"revision": 1, "preview": preview, "body": "a smaller range"});
    let (status, _) = team
        .call(&team.ann, Method::POST, &format!("/api/v1/plans/{plan}/change-requests"), ask)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = team
        .call(
            &team.ann,
            Method::DELETE,
            &format!("/api/v1/plans/{plan}/change-requests/ann"),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = team
        .call(
            &team.ann,
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": preview}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let committer = common::token_for(&team.ferry, "cid", "ferry", Role::Committer).await;
    let (status, _) = team
        .call(&committer, Method::POST, &format!("/api/v1/previews/{preview}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let other = team.plan().await;
    let (status, _) = team
        .call(&team.pat, Method::POST, &format!("/api/v1/plans/{other}/close"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::OK);

    let got = received.wait_for(7).await;
    let mut events = Vec::new();
    for (headers, body) in &got {
        let sent = headers["x-ferry-signature-256"].to_str().unwrap();
        assert_eq!(
            sent,
            signature(&secret, body.as_bytes()),
            "each body is signed with the webhook's secret"
        );
        assert_ne!(sent, signature("another secret", body.as_bytes()));
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        let payload: Value = serde_json::from_str(body).unwrap();
        assert_eq!(headers["x-ferry-event"].to_str().unwrap(), payload["event"].as_str().unwrap());
        assert_eq!(payload["org"], "ferry");
        let id = payload["plan"]["id"].as_str().unwrap();
        assert_eq!(
            payload["plan"]["url"],
            json!(format!("https://ferry.example/plans/{id}")),
            "{payload}"
        );
        let text = payload["text"].as_str().unwrap();
        assert!(
            text.contains("Import n") && text.contains("https://ferry.example/plans/"),
            "a chat line with the plan's link: {text}"
        );
        events.push((
            payload["event"].as_str().unwrap().to_string(),
            payload["actor"].as_str().unwrap().to_string(),
            id == plan,
        ));
    }
    let expected = [
        ("plan-created", "pat", true),
        ("plan-previewed", "Ferry", true),
        ("changes-requested", "ann", true),
        ("plan-approved", "ann", true),
        ("plan-committed", "Ferry", true),
        ("plan-created", "pat", false),
        ("plan-closed", "pat", false),
    ];
    assert_eq!(
        events,
        expected.map(|(e, a, p)| (e.to_string(), a.to_string(), p)),
        "every event once, in order"
    );

    // The log says each was delivered, with the receiver's answer.
    let id = made["id"].as_str().unwrap();
    let (_, log) = team
        .call(
            &team.admin,
            Method::GET,
            &format!("/api/v1/orgs/ferry/webhooks/{id}/deliveries"),
            Value::Null,
        )
        .await;
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 7);
    assert!(
        log.iter()
            .all(|d| d["status"] == "delivered" && d["response_code"] == 200 && d["attempts"] == 1),
        "{log:?}"
    );

    // A webhook that hears one event hears nothing else.
    let (only_url, only) = receiver(StatusCode::OK).await;
    team.webhook(&only_url, json!(["plan-closed"])).await;
    let third = team.plan().await;
    team.call(&team.pat, Method::POST, &format!("/api/v1/plans/{third}/close"), Value::Null).await;
    let got = only.wait_for(1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        only.all().len(),
        1,
        "only the closing: {:?}",
        got.iter().map(|(_, b)| b).collect::<Vec<_>>()
    );

    // Removed, it hears nothing more.
    let (status, _) = team
        .call(
            &team.admin,
            Method::DELETE,
            &format!("/api/v1/orgs/ferry/webhooks/{id}"),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let before = received.all().len();
    team.plan().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(received.all().len(), before, "a removed webhook hears nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_receiver_is_retried_then_the_delivery_is_marked_failed() {
    let team = team(
        ferry_store::testing::scratch().await.unwrap(),
        ferry_state::secrets::random_key(),
        true,
        true,
    )
    .await;
    let (url, received) = receiver(StatusCode::INTERNAL_SERVER_ERROR).await;
    let made = team.webhook(&url, json!(["plan-created"])).await;
    team.plan().await;
    let got = received.wait_for(ferry_service::webhooks::MAX_ATTEMPTS as usize).await;
    assert!(got.windows(2).all(|w| w[0].1 == w[1].1), "every attempt posts the same body");
    assert!(
        got.windows(2).all(|w| w[0].0["x-ferry-delivery"] == w[1].0["x-ferry-delivery"]),
        "as the same delivery"
    );
    let last = latest_once_failed(&team, made["id"].as_str().unwrap()).await;
    assert_eq!(
        (last["status"].clone(), last["attempts"].clone(), last["response_code"].clone()),
        (json!("failed"), json!(6), json!(500)),
        "{last}"
    );
    assert!(last["error"].as_str().unwrap().contains("answered 500"), "{last}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(received.all().len(), 6, "no attempt after the last");
}

#[tokio::test(flavor = "multi_thread")]
async fn deliveries_queued_before_a_restart_go_out_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ferry.db");
    let key = ferry_state::secrets::random_key();
    let (url, received) = receiver(StatusCode::OK).await;
    {
        // This instance stops before it delivers anything (its worker never runs).
        let before = team(ferry_store::Store::open(&file).await.unwrap(), key, true, false).await;
        before.webhook(&url, json!(["plan-created"])).await;
        before.plan().await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(received.all().is_empty());
    }
    let after = Arc::new(
        Ferry::new(ferry_store::Store::open(&file).await.unwrap(), 1 << 20)
            .with_engine(EngineConfig::new(vec![common::plugin_dir()], None, key))
            .with_webhooks(settings(true)),
    );
    tokio::spawn(after.webhooks().clone().run());
    let got = received.wait_for(1).await;
    let payload: Value = serde_json::from_str(&got[0].1).unwrap();
    assert_eq!(payload["event"], "plan-created");
}

#[tokio::test(flavor = "multi_thread")]
async fn addresses_on_the_servers_own_network_are_refused_unless_allowed() {
    let team = team(
        ferry_store::testing::scratch().await.unwrap(),
        ferry_state::secrets::random_key(),
        false,
        true,
    )
    .await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.1.2.3/",
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data",
    ] {
        let (status, refused) = team
            .call(&team.admin, Method::POST, "/api/v1/orgs/ferry/webhooks", json!({"url": url}))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {refused}");
        assert!(
            refused["error"]["message"].as_str().unwrap().contains("own machine or network"),
            "{refused}"
        );
    }
    for url in ["ftp://hooks.example.com/", "https://user:pw@hooks.example.com/", "not a url"] {
        let (status, _) = team
            .call(&team.admin, Method::POST, "/api/v1/orgs/ferry/webhooks", json!({"url": url}))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}");
    }
    // Only the organisation's administrators manage webhooks.
    let (status, _) =
        team.call(&team.pat, Method::GET, "/api/v1/orgs/ferry/webhooks", Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

/// The address is checked again at each attempt, against what the connection would use: a
/// webhook made while the server allowed private addresses delivers nothing once it does not.
#[tokio::test(flavor = "multi_thread")]
async fn each_attempt_checks_the_address_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ferry.db");
    let key = ferry_state::secrets::random_key();
    let (url, received) = receiver(StatusCode::OK).await;
    let id = {
        let allowed = team(ferry_store::Store::open(&file).await.unwrap(), key, true, false).await;
        let made = allowed.webhook(&url, json!(["plan-created"])).await;
        allowed.plan().await;
        made["id"].as_str().unwrap().to_string()
    };
    let team = team(ferry_store::Store::open(&file).await.unwrap(), key, false, true).await;
    let last = latest_once_failed(&team, &id).await;
    assert_eq!(last["status"], "failed", "{last}");
    assert!(last["error"].as_str().unwrap().contains("own machine or network"), "{last}");
    assert!(received.all().is_empty(), "nothing reached the private address");
}
