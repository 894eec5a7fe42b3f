//! Project zips are runnable as downloaded: the TypeScript and Python projects of a random
//! import are unpacked, exactly their declared dependencies are installed from the registries
//! (npm, PyPI) into a temporary folder, and they type-check (tsc, pyright). The Go project's
//! module path and version agree (`/v4` with `v4.x.y`).

use crate::common;

use std::path::Path;
use std::process::Command;

use axum::http::StatusCode;
use common::{call, post, unpack};
use serde_json::json;

fn run(command: &mut Command, what: &str) {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: cannot run it: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn downloaded_projects_install_their_declared_dependencies_and_type_check() {
    let app = common::app(false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/zips/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap();
    let spec = json!({"resources": [
        {"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"},
        {"type": "random:index/randomString:RandomString", "name": "token", "id": "abcdefgh"},
        {"type": "random:index/randomId:RandomId", "name": "suffix", "id": "kT3ZqA"}
    ]});
    let (status, preview) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/previews"), &spec.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let code = |lang: &str| {
        format!("/api/v1/previews/{}/code?lang={lang}&format=zip", preview["id"].as_str().unwrap())
    };
    let work = tempfile::tempdir().unwrap();

    // TypeScript: `npm install` of package.json as it is, then its own tsc.
    let ts = unpack(&app, &code("ts"), &work.path().join("ts")).await;
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ts.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        package["dependencies"]["@pulumi/random"], "^4.21.2",
        "the SDK range that exists, not Ferry's own version"
    );
    run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&ts),
        "npm install",
    );
    run(
        Command::new(ts.join("node_modules/.bin/tsc"))
            .args(["--noEmit", "-p", "tsconfig.json"])
            .current_dir(&ts),
        "tsc",
    );

    // Python: a venv with requirements.txt as it is, checked by pyright.
    let py = unpack(&app, &code("python"), &work.path().join("py")).await;
    let requirements = std::fs::read_to_string(py.join("requirements.txt")).unwrap();
    assert!(requirements.contains("pulumi_random>=4.21.2,<5.0.0"), "{requirements}");
    let venv = work.path().join("venv");
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv), "python3 -m venv");
    run(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(py.join("requirements.txt")),
        "pip install",
    );
    let pyright = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/ferry-codegen/sdk-check/node_modules/.bin/pyright");
    assert!(
        pyright.exists(),
        "pyright is missing ({}): run ./scripts/test.sh, which installs it",
        pyright.display()
    );
    run(
        Command::new(&pyright)
            .arg("--pythonpath")
            .arg(venv.join("bin/python"))
            .arg(py.join("__main__.py")),
        "pyright",
    );

    // Go: the module path's major version and the required version agree.
    let go = unpack(&app, &code("go"), &work.path().join("go")).await;
    let go_mod = std::fs::read_to_string(go.join("go.mod")).unwrap();
    assert!(go_mod.contains("\tgithub.com/pulumi/pulumi-random/sdk/v4 v4.21.2\n"), "{go_mod}");
}
