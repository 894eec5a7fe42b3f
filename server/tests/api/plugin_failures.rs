//! A provider nobody on the project wrote, misbehaving, end to end: a plugin on PyPI `pulumi`'s
//! own Python stubs (`pulumi-resource-pyecho`, the interop test's provider) that dies on three of
//! 100 IDs and hangs on two, previewed as a plan's background job through the API, 20 times.
//! Only those resources fail, the same way on every run; the rest are ready.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use axum::http::StatusCode;
use common::{call, post};
use ferry_service::EngineConfig;
use serde_json::{json, Value};

/// A plugin folder whose `pulumi-resource-pyecho` runs the Python provider in its venv (made
/// under `target/` by the interop test's `venv.sh` on first use).
fn python_plugin_dir() -> tempfile::TempDir {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-engine/tests/interop/venv.sh");
    let venv =
        std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("python-interop-venv");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(script).arg(&venv).arg(dir.path()).output().unwrap();
    assert!(
        out.status.success(),
        "could not make the Python plugin with its venv at {}: {}",
        venv.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_plugin_that_crashes_and_hangs_fails_only_those_resources() {
    let plugins = python_plugin_dir();
    let mut engine = EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    engine.launch.call_timeout = Duration::from_secs(2);
    let app = common::app_with(engine, false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/interop/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap();

    let culprits = ["crash-7", "crash-15", "hang-11", "crash-58", "hang-83"];
    let ids: Vec<String> = (0..100)
        .map(|i| match i {
            7 | 15 | 58 => format!("crash-{i}"),
            11 | 83 => format!("hang-{i}"),
            _ => format!("thing-{i}"),
        })
        .collect();
    let spec = json!({"resources": ids.iter().map(|id| json!({"type": "pyecho:index:Thing", "name": id, "id": id})).collect::<Vec<_>>()});
    let body = json!({"title": "python", "spec": spec.to_string()}).to_string();
    let req = axum::http::Request::post(format!("/api/v1/stacks/{stack}/plans"))
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap();
    let (status, plan) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap();

    let mut first: Option<Vec<Value>> = None;
    for run in 0..20 {
        let (_, record) = common::plan_preview(&app, plan).await;
        let outcome: Vec<Value> = record["preview"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"name": r["name"], "status": r["status"], "message": r["message"], "warnings": r["warnings"]}))
            .collect();
        assert_eq!(outcome.len(), 100);
        for r in &outcome {
            let (name, status, message) = (
                r["name"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
                r["message"].as_str().unwrap_or(""),
            );
            if culprits.contains(&name) {
                assert_eq!(status, "failed", "run {run}: {r}");
                assert!(message.contains("on this resource twice"), "run {run}: {message}");
                if name.starts_with("crash-") {
                    // The plugin's traceback (with the server's paths) is in the server's log only.
                    assert!(
                        !message.contains("Traceback")
                            && message.contains("in the server's log (reference `"),
                        "run {run}: {message}"
                    );
                } else {
                    assert!(message.contains("hung during Read"), "run {run}: {message}");
                }
            } else {
                assert_eq!((status, r["warnings"].clone()), ("ready", json!([])), "run {run}: {r}");
            }
        }
        match &first {
            None => first = Some(outcome),
            Some(first) => assert_eq!(first, &outcome, "run {run} differs from the first"),
        }
    }
}
