//! Discovery through the API with Ferry's scripted test plugin, whose `List` pages through 25
//! things: paging and limits, each result's status (this stack, another stack, unmanaged), a
//! query with unknowns, a type without `List`, and a provider that lists results without IDs.

use crate::common;

use axum::http::StatusCode;
use axum::Router;
use common::{call, get, post};
use serde_json::{json, Value};

async fn discover(app: &Router, stack: &str, types: Value) -> Vec<Value> {
    common::discovery(app, stack, types).await["events"].as_array().unwrap().clone()
}

fn results(events: &[Value]) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e["kind"] == "result")
        .map(|e| (e["id"].as_str().unwrap().to_string(), e["status"].as_str().unwrap().to_string()))
        .collect()
}

async fn stack(app: &Router, name: &str) -> String {
    let (status, stack) = call(
        app,
        post(&format!("/api/v1/stacks?name={name}"), r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    stack["id"].as_str().unwrap().to_string()
}

async fn import(app: &Router, stack: &str, id: &str) {
    let spec = json!({"resources": [{"type": "test:index:Thing", "name": id, "id": id}]});
    let (status, preview) =
        call(app, post(&format!("/api/v1/stacks/{stack}/previews"), &spec.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let (status, done) = call(
        app,
        post(&format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()), ""),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
}

#[tokio::test]
async fn discovery_pages_limits_and_marks_what_stacks_manage() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("pulumi-resource-test");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nFERRY_TEST_PROVIDER_MODE=ok exec '{}' \"$@\"\n",
            common::plugin_dir().join("ferry-test-provider").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![dir.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let app = common::app_with(engine, false).await;
    let here = stack(&app, "acme/things/dev").await;
    let there = stack(&app, "acme/things/prod").await;
    import(&app, &here, "thing-03").await;
    import(&app, &there, "thing-04").await;

    // Three pages of ten, in order; each result marked.
    let events = discover(&app, &here, json!([{"type": "test:index:Thing", "pageSize": 10}])).await;
    let found = results(&events);
    assert_eq!(found.len(), 25, "{events:?}");
    assert_eq!(
        found.iter().map(|(id, _)| id.as_str()).take(3).collect::<Vec<_>>(),
        ["thing-00", "thing-01", "thing-02"]
    );
    assert_eq!(
        events.iter().filter(|e| e["kind"] == "page").count(),
        3,
        "a page event per List call"
    );
    let status_of = |id: &str| found.iter().find(|(i, _)| i == id).unwrap().1.clone();
    assert_eq!(status_of("thing-03"), "in-this-stack");
    assert_eq!(status_of("thing-04"), "in-other-stack");
    assert_eq!(status_of("thing-05"), "unmanaged");
    let other = events.iter().find(|e| e["id"] == "thing-04").unwrap();
    assert_eq!(
        (other["stack"].as_str(), other["stack_id"].as_str()),
        (Some("acme/things/prod"), Some(there.as_str()))
    );

    // A limit across pages; a query with unknowns; a type without List; results without IDs.
    assert_eq!(
        results(
            &discover(
                &app,
                &here,
                json!([{"type": "test:index:Thing", "pageSize": 3, "limit": 7}])
            )
            .await
        )
        .len(),
        7
    );
    let events = discover(
        &app,
        &here,
        json!([
            {"type": "test:index:Thing", "query": {"unknown": true}},
            {"type": "test:index:Other"},
            {"type": "test:index:Thing", "query": {"nonsense": true}}
        ]),
    )
    .await;
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["kind"] != "result" && e["kind"] != "page")
        .map(|e| (e["kind"].as_str().unwrap(), e["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("computed", "test:index:Thing"),
            ("not-listable", "test:index:Other"),
            ("failed", "test:index:Thing")
        ],
        "{events:?}"
    );
    let failed = events.iter().find(|e| e["kind"] == "failed").unwrap();
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("1 result(s) of test:index:Thing without an ID"),
        "{failed}"
    );
    assert_eq!(results(&events).len(), 25, "the results with IDs are kept");

    // Bad requests are refused by name, before anything runs.
    let (status, err) = call(
        &app,
        post(&format!("/api/v1/stacks/{here}/discoveries"), r#"{"types": [{"type": "nonsense"}]}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("types[0].type"), "{err}");
    let (status, _) = call(&app, get("/api/v1/discoveries/nope")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
