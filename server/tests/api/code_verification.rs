//! Code proven to preview clean, end to end: a spec is previewed and committed, its code comes
//! back verified (each resource's inputs, as written, through the provider's Check and Diff),
//! and the generated YAML, previewed against the stack the commit wrote, is all `same`. With
//! Ferry's random plugin, and with a provider whose Check fills no defaults and whose Diff tells
//! an absent property from `false`, `3600` or `{}`: there, verification keeps what elision
//! would have left out.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::{call, get, post};
use ferry_service::EngineConfig;
use serde_json::{json, Value};

/// Previews and commits `spec` into a new empty stack; the stack and the preview.
async fn committed(app: &Router, name: &str, spec: Value) -> (String, String) {
    let (status, stack) = call(
        app,
        post(&format!("/api/v1/stacks?name={name}"), r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let (status, preview) =
        call(app, post(&format!("/api/v1/stacks/{stack}/previews"), &spec.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let statuses: Vec<&Value> =
        preview["preview"]["resources"].as_array().unwrap().iter().map(|r| &r["status"]).collect();
    assert!(statuses.iter().all(|s| *s == "ready"), "{preview}");
    let preview = preview["id"].as_str().unwrap().to_string();
    let (status, commit) = call(app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{commit}");
    (stack, preview)
}

/// The YAML program `code` previewed against the stack: each step's `op name`.
async fn preview_yaml(app: &Router, stack: &str, code: &str) -> Vec<String> {
    let req = Request::post(format!("/api/v1/stacks/{stack}/previews"))
        .header("content-type", "application/yaml")
        .body(Body::from(code.to_string()))
        .unwrap();
    let (status, preview) = call(app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}\n{code}");
    preview["preview"]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["op"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn random_code_is_verified_and_its_yaml_previews_same_after_the_commit() {
    let app = common::app(false).await;
    let spec = json!({"resources": [
        {"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"},
        {"type": "random:index/randomString:RandomString", "name": "token", "id": "abcdefgh"},
        {"type": "random:index/randomId:RandomId", "name": "suffix", "id": "kT3ZqA"},
        {"type": "random:index/randomUuid:RandomUuid", "name": "uid", "id": "aabbccdd-eeff-0011-2233-445566778899"}
    ]});
    let (stack, preview) = committed(&app, "acme/verify/dev", spec).await;
    let (status, code) =
        call(&app, get(&format!("/api/v1/previews/{preview}/code?lang=yaml&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    let verification = code["verification"].as_array().unwrap();
    assert_eq!(verification.len(), 4, "{code}");
    for v in verification {
        assert_eq!((v["clean"].clone(), v.get("problem")), (json!(true), None), "{v}");
    }
    let steps = preview_yaml(&app, &stack, code["code"].as_str().unwrap()).await;
    assert!(steps.iter().all(|s| s.starts_with("same ")), "{steps:?}\n{}", code["code"]);
    assert_eq!(steps.len(), 6, "the stack, its default provider and the four: {steps:?}");
    common::assert_code_previews_same(&app, &stack, &preview, None, json!({})).await;
}

#[tokio::test]
async fn a_provider_without_defaults_gets_them_kept_and_its_yaml_previews_same() {
    let plugins = common::naive_plugin_dir();
    let engine = EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let app = common::app_with(engine, false).await;
    let spec = json!({"resources": [
        {"type": "test:index:Bucket", "name": "logs", "id": "logs"},
        {"type": "test:index:Bucket", "name": "assets", "id": "assets"}
    ]});
    let (stack, preview) = committed(&app, "acme/buckets/dev", spec).await;
    let (status, code) =
        call(&app, get(&format!("/api/v1/previews/{preview}/code?lang=yaml&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    for v in code["verification"].as_array().unwrap() {
        assert_eq!(v["clean"], true, "{v}");
        let kept: Vec<&str> =
            v["kept"].as_array().unwrap().iter().map(|k| k["property"].as_str().unwrap()).collect();
        assert_eq!(
            kept,
            ["forceDestroy", "maxSessionDuration", "tags"],
            "the schema calls them defaults; the provider's Diff does not: {v}"
        );
        assert!(
            v["kept"][0]["why"].as_str().unwrap().contains("the provider's Diff reports a change"),
            "{v}"
        );
    }
    // Nothing the verification kept is reported as left out.
    assert_eq!(code["report"]["elided"], json!([]), "{code}");
    let yaml = code["code"].as_str().unwrap();
    assert!(
        yaml.contains("forceDestroy: false") && yaml.contains("maxSessionDuration: 3600"),
        "{yaml}"
    );
    let steps = preview_yaml(&app, &stack, yaml).await;
    assert!(steps.iter().all(|s| s.starts_with("same ")), "{steps:?}\n{yaml}");
    common::assert_code_previews_same(&app, &stack, &preview, None, json!({})).await;

    // Verified once per preview: the second language reads the stored verification.
    let (_, ts) =
        call(&app, get(&format!("/api/v1/previews/{preview}/code?lang=ts&format=json"))).await;
    assert_eq!(ts["verification"], code["verification"]);
    assert!(ts["code"].as_str().unwrap().contains("forceDestroy: false"), "{ts}");
}
