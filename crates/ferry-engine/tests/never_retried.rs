//! `Create`, `Update` and `Delete` are never retried: after a plugin crashes or hangs in the
//! middle of one, the supervisor starts a fresh process (for the idempotent calls still to
//! come), but the mutating call itself fails, once, with what happened; running it again could
//! make a second bucket or delete twice. A real plugin process (`ferry-test-provider`, whose
//! `crashop-…` resources exit in the middle of a mutating call and `hangop-…` ones never
//! answer), driven through a program's update, the way a commit with `apply` runs it.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use ferry_engine::deploy::{deploy, DeployContext, DeployMode, DeployOptions, PlanScope};
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use ferry_engine::program::parse_program;
use serde_json::json;

/// `pulumi-resource-test` in `dir`: the test provider in its `naive` mode (a Diff that compares
/// inputs), recording each mutating call in `dir/calls` and each launch in `dir/launches`.
fn plugin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let script = format!(
        "#!/bin/sh\necho launch >> '{d}/launches'\nFERRY_TEST_PROVIDER_MODE=naive FERRY_TEST_PROVIDER_CALLS='{d}/calls' exec '{}' \"$@\"\n",
        env!("CARGO_BIN_EXE_ferry-test-provider")
    );
    let path = dir.path().join("pulumi-resource-test");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn lines(dir: &Path, file: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(file))
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A stack holding the test provider and, under `existing`, buckets named so with `name: old`.
fn state(existing: &[&str]) -> ferry_state::Deployment {
    let root = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
    let provider = "urn:pulumi:dev::proj::pulumi:providers:test::default";
    let mut resources = vec![
        json!({"urn": root, "type": "pulumi:pulumi:Stack", "custom": false}),
        json!({"urn": provider, "type": "pulumi:providers:test", "custom": true, "id": "prov", "inputs": {}, "outputs": {}}),
    ];
    for name in existing {
        resources.push(json!({"urn": format!("urn:pulumi:dev::proj::test:index:Bucket::{name}"), "type": "test:index:Bucket", "custom": true,
            "id": format!("id-{name}"), "parent": root, "provider": format!("{provider}::prov"),
            "inputs": {"name": "old"}, "outputs": {"name": "old"}}));
    }
    serde_json::from_value(json!({"resources": resources})).unwrap()
}

/// Runs `program` as an update against `deployment`: each resource's step error, by name.
async fn update(
    dir: &Path,
    program: &str,
    deployment: &ferry_state::Deployment,
) -> BTreeMap<String, Option<String>> {
    let program = parse_program("Pulumi.yaml", program).unwrap();
    let (engine, _logs) = EngineService::start().await.unwrap();
    let search = PluginSearch {
        ferry_dirs: vec![dir.to_path_buf()],
        path_dirs: vec![],
        pulumi_plugins: None,
    };
    let options = LaunchOptions {
        start_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_secs(2),
        max_restarts: 8,
        ..Default::default()
    };
    let providers = PluginProviders::new(search, engine, options, dir.to_path_buf(), None);
    let config = BTreeMap::new();
    let ctx = DeployContext {
        organization: "org",
        project: "proj",
        stack: "dev",
        deployment,
        config: &config,
        decrypt: None,
    };
    let deployed = deploy(
        &program,
        &ctx,
        &providers,
        &DeployOptions {
            mode: DeployMode::Update,
            scope: PlanScope::WholeStack,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    providers.shutdown().await;
    deployed
        .plan
        .steps
        .iter()
        .filter(|s| s.type_ == "test:index:Bucket")
        .map(|s| (s.name.clone(), s.error.clone()))
        .collect()
}

fn bucket(name: &str, value: &str) -> String {
    format!("  {name}:\n    type: test:index:Bucket\n    properties:\n      name: {value}\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_create_that_crashes_or_hangs_the_plugin_is_not_run_again() {
    for name in ["crashop-new", "hangop-new"] {
        let dir = plugin_dir();
        let program = format!(
            "name: proj\nruntime: yaml\nresources:\n{}{}",
            bucket(name, "new"),
            bucket("fine", "new")
        );
        let steps = update(dir.path(), &program, &state(&[])).await;
        let error = steps[name].clone().unwrap_or_else(|| panic!("{name} failed: {steps:?}"));
        assert!(error.contains("Create failed"), "{name}: {error}");
        let calls = lines(dir.path(), "calls");
        assert_eq!(
            calls.iter().filter(|c| *c == &format!("Create {name}")).count(),
            1,
            "{name}: created once, never again: {calls:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_or_a_delete_that_crashes_or_hangs_the_plugin_is_not_run_again() {
    for name in ["crashop-old", "hangop-old"] {
        // An update: the program changes the bucket's name.
        let dir = plugin_dir();
        let program = format!("name: proj\nruntime: yaml\nresources:\n{}", bucket(name, "new"));
        let steps = update(dir.path(), &program, &state(&[name])).await;
        let error = steps[name].clone().unwrap_or_else(|| panic!("{name} failed: {steps:?}"));
        assert!(error.contains("Update failed"), "{name}: {error}");
        let calls = lines(dir.path(), "calls");
        assert_eq!(calls, [format!("Update {name}")], "{name}: updated once, never again");

        // A delete: the whole-stack program no longer declares it.
        let dir = plugin_dir();
        let steps = update(
            dir.path(),
            &format!("name: proj\nruntime: yaml\nresources:\n{}", bucket("fine", "new")),
            &state(&[name]),
        )
        .await;
        let error = steps[name].clone().unwrap_or_else(|| panic!("{name} failed: {steps:?}"));
        assert!(error.contains("Delete failed"), "{name}: {error}");
        let calls = lines(dir.path(), "calls");
        assert_eq!(
            calls.iter().filter(|c| *c == &format!("Delete {name}")).count(),
            1,
            "{name}: deleted once, never again: {calls:?}"
        );
    }
}
