//! A request launches a plugin only for a package its organisation allows: Ferry's own, its
//! stacks' packages, and those an administrator lists. Anything else is refused by name, and
//! the plugin never runs.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use ferry_service::access::Role;
use serde_json::{json, Value};

#[tokio::test]
async fn a_package_the_organisation_does_not_allow_is_refused_and_never_launched() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("launched");
    let wrapper = dir.path().join("pulumi-resource-test");
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

    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![dir.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true)
            .await;
    let admin = common::token_for(&stacks, "root", "ferry", Role::Admin).await;
    let planner = common::token_for(&stacks, "pat", "ferry", Role::Planner).await;
    let call = |token: &str, method: Method, uri: String, body: Value| {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let app = app.clone();
        async move { common::call(&app, req).await }
    };
    let (_, list) = call(&planner, Method::GET, "/api/v1/stacks".into(), Value::Null).await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "test:index:Thing", "name": "t", "id": "thing-1"}]});
    let preview =
        || call(&planner, Method::POST, format!("/api/v1/stacks/{stack}/previews"), spec.clone());

    let (status, refused) = preview().await;
    assert_eq!(status, StatusCode::CREATED, "a preview is made, with the entry failed: {refused}");
    let error = refused.to_string();
    assert!(
        error.contains("the package `test` is not allowed here")
            && error.contains("organisation `ferry`"),
        "{error}"
    );
    assert!(!marker.exists(), "the plugin never ran");

    let (status, settings) = call(
        &admin,
        Method::PUT,
        "/api/v1/orgs/ferry/settings".into(),
        json!({"share_links": true, "share_link_days": 30, "allowed_packages": ["test"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    let (status, allowed) = preview().await;
    assert_eq!(status, StatusCode::CREATED, "{allowed}");
    assert!(!allowed.to_string().contains("not allowed"), "{allowed}");
    assert!(marker.exists(), "now it runs");
}
