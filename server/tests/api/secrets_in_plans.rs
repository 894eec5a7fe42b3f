//! A password typed into a plan (a RandomPassword imported by its value) is seen only in the
//! plan's own editor view: not by viewers, not through a read-only link (API or page), not in
//! the audit log, the timeline, previews, code, or any log line.

use crate::common;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use ferry_service::access::Role;
use serde_json::{json, Value};

const PASSWORD: &str = "Sup3r-Secret-Value-42";

/// Every log line the process writes, kept for the test to search.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_password_typed_as_an_import_id_shows_only_in_its_editor() {
    let logs = Captured::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_env_filter("trace,h2=info,hyper=info,tower=info")
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true)
            .await;
    let admin = common::token_for(&stacks, "root", "*", Role::Admin).await;
    let planner = common::token_for(&stacks, "pat", "ferry", Role::Planner).await;
    let viewer = common::token_for(&stacks, "vic", "ferry", Role::Viewer).await;
    let call = |token: Option<&str>, method: Method, uri: String, body: Option<Value>| {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(token) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let req = req.body(body.map(|b| Body::from(b.to_string())).unwrap_or_default()).unwrap();
        let app = app.clone();
        async move { common::call(&app, req).await }
    };

    let (_, list) = call(Some(&viewer), Method::GET, "/api/v1/stacks".into(), None).await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "random:index/randomPassword:RandomPassword", "name": "admin", "id": PASSWORD}]});
    let (status, plan) = call(
        Some(&planner),
        Method::POST,
        format!("/api/v1/stacks/{stack}/plans"),
        Some(json!({"spec": spec.to_string()})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    // Before any preview, nobody who may not edit sees any import ID.
    let (_, early) = call(Some(&viewer), Method::GET, format!("/api/v1/plans/{plan}"), None).await;
    assert!(!early.to_string().contains(PASSWORD), "{early}");

    let (preview, record) =
        common::plan_preview(&common::as_caller(app.clone(), planner.clone()), &plan).await;
    assert!(!record.to_string().contains(PASSWORD), "the preview shows `[secret]`: {record}");
    let (_, share) =
        call(Some(&planner), Method::POST, format!("/api/v1/plans/{plan}/shares"), None).await;
    let token = share["token"].as_str().unwrap().to_string();

    // The editor view has it: the planner typed it and edits it.
    let (_, own) = call(Some(&planner), Method::GET, format!("/api/v1/plans/{plan}"), None).await;
    assert!(own["current"]["spec"].as_str().unwrap().contains(PASSWORD));

    let mut answers = Vec::new();
    for uri in [
        format!("/api/v1/plans/{plan}"),
        format!("/api/v1/plans/{plan}/revisions/1"),
        format!("/api/v1/previews/{preview}"),
        format!("/api/v1/previews/{preview}/results"),
        format!("/api/v1/plans/{plan}/activity"),
        format!("/api/v1/plans/{plan}/jobs"),
        format!("/api/v1/previews/{preview}/code?lang=ts"),
    ] {
        answers.push((format!("viewer {uri}"), call(Some(&viewer), Method::GET, uri, None).await));
    }
    for uri in [
        format!("/api/v1/shared/{token}"),
        format!("/api/v1/shared/{token}/previews/0"),
        format!("/shared/{token}"),
    ] {
        answers.push((format!("link {uri}"), call(None, Method::GET, uri, None).await));
    }
    answers.push((
        "audit".into(),
        call(Some(&admin), Method::GET, "/api/v1/orgs/ferry/audit?format=jsonl".into(), None).await,
    ));
    for (what, (status, body)) in &answers {
        assert!(status.is_success(), "{what}: {status} {body}");
        assert!(!body.to_string().contains(PASSWORD), "{what} shows the password: {body}");
    }
    let shared_page =
        answers.iter().find(|(w, _)| w.starts_with("link /shared/")).unwrap().1 .1.to_string();
    assert!(shared_page.contains("[secret]"), "the link's page shows where the secret was");

    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("request"), "logs were captured");
    assert!(!logs.contains(PASSWORD), "a log line holds the password");
    assert!(!logs.contains(&token), "a log line holds the share token");
}
