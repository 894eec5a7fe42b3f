//! Interoperability with a provider written on Pulumi's own Python stubs (PyPI `pulumi`): Ferry
//! finds it as `pulumi-resource-pyecho`, launches it, and GetSchema, Read and Check work through
//! it. The test makes its venv (under `target/`) on first run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ferry_engine::import::{preview_import, ImportOptions, ImportStatus, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};

/// The PyPI `pulumi` release whose stubs the provider uses (the protocol facts' own version).
const PULUMI_PYPI: &str = "pulumi==3.272.0";

fn venv() -> PathBuf {
    // target/<profile>/deps/python_interop-<hash> -> target/python-interop-venv
    let target = std::env::current_exe().unwrap().ancestors().nth(3).unwrap().to_path_buf();
    let venv = target.join("python-interop-venv");
    let python = venv.join("bin/python");
    let ready = Command::new(&python).args(["-c", "import pulumi.runtime.proto.provider_pb2_grpc, grpc"]).status().is_ok_and(|s| s.success());
    if !ready {
        let ok = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().is_ok_and(|s| s.success())
            && Command::new(venv.join("bin/pip")).args(["install", "--quiet", PULUMI_PYPI]).status().is_ok_and(|s| s.success());
        assert!(ok, "could not create the Python venv with {PULUMI_PYPI} at {}", venv.display());
    }
    venv
}

fn plugin_dir(venv: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/python_provider.py");
    let wrapper = dir.path().join("pulumi-resource-pyecho");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' '{}' \"$@\"\n", venv.join("bin/python").display(), script.display())).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[tokio::test]
async fn a_provider_on_pulumis_python_stubs_works_as_a_plugin() {
    let venv = venv();
    let dir = plugin_dir(&venv);
    let search = PluginSearch { ferry_dirs: vec![dir.path().to_path_buf()], ..Default::default() };
    let (engine, mut logs) = EngineService::start().await.unwrap();
    let options = LaunchOptions { start_timeout: Duration::from_secs(30), call_timeout: Duration::from_secs(30), ..Default::default() };
    let providers = PluginProviders::new(search, engine, options, dir.path().to_path_buf(), None);

    let schema: serde_json::Value = serde_json::from_str(&providers.schema("pyecho", None).await.unwrap()).unwrap();
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
    let state = ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let ctx = StackContext { stack: "dev", project: "interop", deployment: &state.deployment };
    let preview = preview_import(&spec, &ctx, &providers, ImportOptions::default()).await;
    providers.shutdown().await;

    let statuses: Vec<ImportStatus> = preview.resources.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [ImportStatus::Ready, ImportStatus::ReadyWithWarnings, ImportStatus::NotFound], "{preview:#?}");
    assert_eq!(preview.resources[0].inputs_view, serde_json::json!({"size": 5}));
    assert_eq!(preview.resources[0].outputs_view, serde_json::json!({"name": "thing-5", "size": 5}));
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
