//! Interoperability with a provider written on Pulumi's own Python stubs (PyPI `pulumi`): Ferry
//! finds it as `pulumi-resource-pyecho`, launches it, and GetSchema, Read and Check work through
//! it. The test makes its venv (under `target/`, with `tests/interop/venv.sh`) on first run.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ferry_engine::deploy::ImportStatus;
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};

/// A plugin folder whose `pulumi-resource-pyecho` runs the provider in its venv (made under
/// `target/` by `tests/interop/venv.sh` on first use).
fn plugin_dir() -> tempfile::TempDir {
    // target/<profile>/deps/python_interop-<hash> -> target/python-interop-venv
    let venv =
        std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("python-interop-venv");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/venv.sh"))
        .arg(&venv)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "could not make the Python plugin with its venv at {}: {}",
        venv.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[tokio::test]
async fn a_provider_on_pulumis_python_stubs_works_as_a_plugin() {
    let dir = plugin_dir();
    let search = PluginSearch { ferry_dirs: vec![dir.path().to_path_buf()], ..Default::default() };
    let (engine, mut logs) = EngineService::start().await.unwrap();
    let options = LaunchOptions {
        start_timeout: Duration::from_secs(30),
        call_timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let providers = PluginProviders::new(search, engine, options, dir.path().to_path_buf(), None);

    let schema: serde_json::Value =
        serde_json::from_str(&providers.schema("pyecho", None).await.unwrap()).unwrap();
    assert_eq!(schema["name"], "pyecho");
    assert_eq!(schema["resources"]["pyecho:index:Thing"]["requiredInputs"][0], "size");

    let spec = parse_import_spec(
        r#"{"resources": [
            {"type": "pyecho:index:Thing", "name": "small", "id": "thing-5"},
            {"type": "pyecho:index:Thing", "name": "big", "id": "thing-500"},
            {"type": "pyecho:index:Thing", "name": "missing", "id": "gone"}
        ]}"#,
    )
    .unwrap();
    let state =
        ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let ctx = StackContext { stack: "dev", project: "interop", deployment: &state.deployment };
    let preview = SpecPreview::from_plan(
        &preview_import(&spec, &ctx, &providers, ImportOptions::default()).await.plan,
    );
    providers.shutdown().await;

    let statuses: Vec<ImportStatus> = preview.resources.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [ImportStatus::Ready, ImportStatus::ReadyWithWarnings, ImportStatus::NotFound],
        "{preview:#?}"
    );
    assert_eq!(preview.resources[0].inputs, serde_json::json!({"size": 5}));
    assert_eq!(preview.resources[0].outputs, serde_json::json!({"name": "thing-5", "size": 5}));
    assert_eq!(preview.resources[1].check_failures[0].reason, "size must be at most 100");
    let mut messages = Vec::new();
    while let Ok(Some(log)) = tokio::time::timeout(Duration::from_secs(2), logs.recv()).await {
        messages.push(log.message);
        if messages.len() == 3 {
            break;
        }
    }
    messages.sort();
    assert_eq!(messages, ["python read gone", "python read thing-5", "python read thing-500"]);
}
