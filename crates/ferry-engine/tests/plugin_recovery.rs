//! A plugin that crashes or hangs on some resources fails only those resources: the
//! supervisor restarts it and retries what was in flight, alone. Real plugin processes
//! (`ferry-test-provider`, whose `crash-…`, `hang-…`, `checkcrash-…` and `bad-…` IDs misbehave),
//! the real import pipeline, the usual concurrency.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use ferry_engine::deploy::ImportStatus;
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use serde_json::json;

/// `pulumi-resource-test` in a new folder: a wrapper that counts its launches in `launches`
/// and runs the test provider, or (`first_only`) refuses to start a second time.
fn plugin_dir(mode: &str, first_only: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let refuse = if first_only {
        format!("[ -e '{d}/started' ] && {{ echo 'fatal: the license is in use' >&2; exit 2; }}\ntouch '{d}/started'\n")
    } else {
        String::new()
    };
    let script = format!(
        "#!/bin/sh\necho launch >> '{d}/launches'\n{refuse}FERRY_TEST_PROVIDER_MODE={mode} exec '{}' \"$@\"\n",
        env!("CARGO_BIN_EXE_ferry-test-provider")
    );
    let path = dir.path().join("pulumi-resource-test");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn launches(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("launches")).map(|s| s.lines().count()).unwrap_or(0)
}

/// A spec importing a `test:index:Thing` for each ID.
fn spec(ids: &[String]) -> String {
    let resources: Vec<_> =
        ids.iter().map(|id| json!({"type": "test:index:Thing", "name": id, "id": id})).collect();
    json!({ "resources": resources }).to_string()
}

/// Each resource's status and message, by name.
async fn preview(
    dir: &Path,
    ids: &[String],
    options: LaunchOptions,
) -> BTreeMap<String, (ImportStatus, Option<String>, Vec<String>)> {
    let spec = parse_import_spec(&spec(ids)).unwrap();
    let deployment: ferry_state::Deployment = serde_json::from_value(json!({})).unwrap();
    let (engine, _logs) = EngineService::start().await.unwrap();
    let search = PluginSearch {
        ferry_dirs: vec![dir.to_path_buf()],
        path_dirs: vec![],
        pulumi_plugins: None,
    };
    let providers = PluginProviders::new(search, engine, options, dir.to_path_buf(), None);
    let ctx = StackContext { stack: "dev", project: "recovery", deployment: &deployment };
    let preview = SpecPreview::from_plan(
        &preview_import(
            &spec,
            &ctx,
            &providers,
            ImportOptions { concurrency: 16, ..Default::default() },
        )
        .await
        .plan,
    );
    providers.shutdown().await;
    preview.resources.into_iter().map(|r| (r.name, (r.status, r.message, r.warnings))).collect()
}

fn quick() -> LaunchOptions {
    LaunchOptions {
        start_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_millis(500),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_culprits_fail_and_always_the_same_way() {
    let culprits = ["crash-7", "crash-42", "hang-13", "hang-77", "checkcrash-55"];
    let ids: Vec<String> = (0..100)
        .map(|i| match i {
            7 | 42 => format!("crash-{i}"),
            13 | 77 => format!("hang-{i}"),
            55 => format!("checkcrash-{i}"),
            30 => format!("bad-{i}"),
            _ => format!("ok-{i}"),
        })
        .collect();
    let dir = plugin_dir("ok", false);
    let mut first = None;
    for run in 0..20 {
        let outcome = preview(dir.path(), &ids, quick()).await;
        assert_eq!(outcome.len(), 100);
        for (name, (status, message, warnings)) in &outcome {
            let message = message.as_deref().unwrap_or("");
            if culprits.contains(&name.as_str()) {
                assert_eq!(*status, ImportStatus::Failed, "run {run}: {name}: {message}");
                assert!(message.contains("on this resource twice"), "run {run}: {name}: {message}");
                if name.starts_with("crash-") {
                    assert!(
                        !message.contains("exploded")
                            && message.contains("in the server's log (reference `"),
                        "run {run}: no stderr in {message}"
                    );
                    assert!(message.contains("crashed during Read"), "{message}");
                } else if name.starts_with("checkcrash-") {
                    assert!(
                        !message.contains("exploded")
                            && message.contains("in the server's log (reference `"),
                        "run {run}: {message}"
                    );
                    assert!(message.contains("crashed during Check"), "{message}");
                } else {
                    assert!(message.contains("hung during Read"), "run {run}: {message}");
                }
            } else if name.starts_with("bad-") {
                // Its own Check failure is reported, not masked by a neighbour's crash.
                assert_eq!(
                    *status,
                    ImportStatus::ReadyWithWarnings,
                    "run {run}: {name}: {message} {warnings:?}"
                );
                assert_eq!(
                    warnings,
                    &vec!["Check: badValue: badValue is not allowed".to_string()],
                    "run {run}"
                );
            } else {
                assert_eq!(
                    *status,
                    ImportStatus::Ready,
                    "run {run}: {name}: {message} {warnings:?}"
                );
                assert!(warnings.is_empty(), "run {run}: {name}: {warnings:?}");
            }
        }
        match &first {
            None => first = Some(outcome),
            Some(first) => assert_eq!(first, &outcome, "run {run} differs from the first"),
        }
    }
}

#[tokio::test]
async fn a_plugin_that_dies_on_start_is_launched_once_with_one_message() {
    let dir = plugin_dir("exit", false);
    let ids: Vec<String> = (0..10).map(|i| format!("ok-{i}")).collect();
    let outcome = preview(dir.path(), &ids, quick()).await;
    let messages: std::collections::BTreeSet<_> =
        outcome.values().map(|(s, m, _)| (*s, m.clone().unwrap_or_default())).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    let (status, message) = messages.into_iter().next().unwrap();
    assert_eq!(status, ImportStatus::Failed);
    assert!(
        !message.contains("fatal: no credentials configured")
            && message.contains("in the server's log (reference `"),
        "{message}"
    );
    assert_eq!(launches(dir.path()), 1, "never relaunched per resource");
}

#[tokio::test]
async fn a_plugin_that_cannot_restart_is_not_restarted_again() {
    let dir = plugin_dir("ok", true);
    let ids: Vec<String> = ["crash-1", "crash-2", "crash-3"]
        .iter()
        .map(|s| s.to_string())
        .chain((0..20).map(|i| format!("ok-{i}")))
        .collect();
    let outcome = preview(dir.path(), &ids, quick()).await;
    for name in ["crash-1", "crash-2", "crash-3"] {
        let (status, message, _) = &outcome[name];
        assert_eq!(*status, ImportStatus::Failed);
        let message = message.as_deref().unwrap_or("");
        assert!(
            message.contains("could not be started again")
                && !message.contains("license")
                && message.contains("in the server's log (reference `"),
            "{message}"
        );
    }
    assert_eq!(launches(dir.path()), 2, "one restart was tried, and no more");
}

#[tokio::test]
async fn restarts_are_bounded_per_provider() {
    let dir = plugin_dir("ok", false);
    let ids: Vec<String> = (0..6).map(|i| format!("crash-{i}")).collect();
    let options = LaunchOptions { max_restarts: 3, ..quick() };
    let outcome = preview(dir.path(), &ids, options).await;
    assert!(outcome.values().all(|(s, _, _)| *s == ImportStatus::Failed));
    assert!(
        outcome.values().any(|(_, m, _)| m
            .as_deref()
            .unwrap_or("")
            .contains("was restarted 3 times and is given up on")),
        "{outcome:?}"
    );
    assert_eq!(launches(dir.path()), 4, "the first start and three restarts");
}
