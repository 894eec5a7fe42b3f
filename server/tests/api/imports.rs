//! Import previews and commits through the API, with Ferry's real `pulumi-resource-random`
//! plugin (built by `cargo test --workspace` into the same target folder as this test).

use crate::common;

use std::path::PathBuf;

use axum::http::StatusCode;
use common::{call, get, post};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

const SPEC: &str = r#"{"resources": [
    {"type": "random:index/randomPassword:RandomPassword", "name": "imported-password", "id": "correct-horse-battery"},
    {"type": "random:index/randomInteger:RandomInteger", "name": "imported-port", "id": "7,1,10"},
    {"type": "random:index/randomPet:RandomPet", "name": "imported-pet", "id": "x"}
]}"#;

#[tokio::test]
async fn preview_writes_nothing_commit_adds_a_version_and_refuses_twice() {
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let id = stacks[0]["id"].as_str().unwrap().to_string();

    let (status, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), SPEC)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(preview["base_version"], 1);
    assert_eq!(preview["preview"]["counts"], json!({"ready": 2, "failed": 1}));
    assert!(!preview.to_string().contains("correct-horse-battery"), "no secret in the preview");
    let preview_id = preview["id"].as_str().unwrap().to_string();

    // The preview is a value anyone with its ID can read; the stack did not change.
    let (status, again) = call(&app, get(&format!("/api/v1/previews/{preview_id}"))).await;
    assert_eq!((status, again["preview"].clone()), (StatusCode::OK, preview["preview"].clone()));
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{id}"))).await;
    assert_eq!(summary["version"], 1);

    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    assert_eq!((committed["version"].clone(), committed["added"].clone()), (json!(2), json!(2)));

    // The new state: protected, provider reused, secret encrypted, loadable.
    let res = app.clone().oneshot(get(&format!("/api/v1/stacks/{id}/export"))).await.unwrap();
    let text =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(!text.contains("correct-horse-battery"));
    let state = ferry_state::load_state(text.as_bytes(), Default::default()).unwrap();
    // The commit is recorded in the manifest as Pulumi records its writes: now, by Ferry.
    let manifest = state.deployment.manifest.clone().unwrap();
    assert_eq!(manifest["version"], ferry_state::deployment::WRITER_VERSION, "{manifest}");
    assert_eq!(manifest["magic"].as_str().unwrap().len(), 64, "{manifest}");
    assert_ne!(
        manifest["time"], "2026-11-01T09:00:00Z",
        "the demo's own time is not kept: {manifest}"
    );
    let pw = state
        .deployment
        .resources()
        .iter()
        .find(|r| r.urn.ends_with("::imported-password"))
        .unwrap();
    assert!(pw.is_protected());
    assert!(
        pw.provider().unwrap().contains("pulumi:providers:random::default_4_16_0::"),
        "the stack's default provider is reused"
    );
    let (_, shown) = call(&app, get(&format!("/api/v1/previews/{preview_id}"))).await;
    assert_eq!(shown["committed_version"], 2);

    let (status, err) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit"), "")).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_committed"))
    );

    // A preview of the same spec now: everything ready before is already managed.
    let (_, second) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), SPEC)).await;
    assert_eq!(second["preview"]["counts"], json!({"failed": 1, "already-managed": 2}));
}

#[tokio::test]
async fn a_stale_preview_cannot_be_committed() {
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let id = stacks[0]["id"].as_str().unwrap().to_string();
    let (_, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), SPEC)).await;
    // The stack moves on (a new upload) before the commit.
    let (_, export) = call(&app, get(&format!("/api/v1/stacks/{id}/export"))).await;
    let (status, _) =
        call(&app, post("/api/v1/stacks?name=ferry/demo/dev", &export.to_string())).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, err) = call(
        &app,
        post(&format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()), ""),
    )
    .await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("stale_preview"))
    );
    assert!(err["error"]["message"].as_str().unwrap().contains("preview again"));
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{id}"))).await;
    assert_eq!(summary["version"], 2, "the refused commit added nothing");
}

#[tokio::test]
async fn a_bad_spec_is_answered_with_every_problem_and_its_path() {
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let id = stacks[0]["id"].as_str().unwrap().to_string();
    let (status, err) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{id}/previews"),
            r#"{"resources": [{"type": "random:index/randomPet:RandomPet", "name": ""}, {"type": "x", "name": "y", "id": "1"}]}"#,
        ),
    )
    .await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_spec"))
    );
    let paths: Vec<&str> = err["error"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["resources[0].name", "resources[0].id", "resources[1].type"], "{err}");
    let (status, err) = call(&app, post("/api/v1/stacks/nope/previews", SPEC)).await;
    assert_eq!((status, err["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
    let (status, _) = call(&app, get("/api/v1/previews/nope")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Specs are bounded like state files (1 MiB in this app), with a JSON error.
    let huge = format!(r#"{{"resources": [], "pad": "{}"}}"#, "x".repeat(2 << 20));
    let (status, err) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &huge)).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, Some("too_large"))
    );
    let (status, err) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), "")).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("empty_body"))
    );
    // The body is read once, comments and trailing commas allowed, as Pulumi's `.jsonc` specs
    // have them; what is not JSON is named as such.
    let commented = "// ports to adopt\n{\"resources\": [{\"type\": \"random:index/randomInteger:RandomInteger\", \"name\": \"p\", \"id\": \"3,1,9\"},],}";
    let (status, preview) =
        call(&app, post(&format!("/api/v1/stacks/{id}/previews"), commented)).await;
    assert_eq!(
        (status, preview["preview"]["counts"].clone()),
        (StatusCode::CREATED, json!({"ready": 1})),
        "{preview}"
    );
    let (status, err) =
        call(&app, post(&format!("/api/v1/stacks/{id}/previews"), r#"{"resources": [}"#)).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_spec"))
    );
    assert!(err["error"]["message"].as_str().unwrap().contains("not valid JSON"), "{err}");
}

/// Code for a preview's ready resources and for a whole stack, as a file, JSON with the report,
/// or a runnable project zip.
#[tokio::test]
async fn code_for_a_preview_and_for_the_demo_stack() {
    use std::io::Read as _;
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let id = stacks[0]["id"].as_str().unwrap().to_string();
    let (_, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), SPEC)).await;
    let preview_id = preview["id"].as_str().unwrap();

    let res = app
        .clone()
        .oneshot(get(&format!("/api/v1/previews/{preview_id}/code?lang=ts")))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-disposition"], "attachment; filename=\"index.ts\"");
    let ts =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(ts.contains("new random.RandomInteger(\"imported-port\", {"), "{ts}");
    assert!(ts.contains("protect: true"), "CLI style by default: {ts}");
    assert!(
        !ts.contains("correct-horse-battery"),
        "a password imported by value never shows: {ts}"
    );

    let (status, json) = call(
        &app,
        get(&format!(
            "/api/v1/previews/{preview_id}/code?lang=python&format=json&style=code-first"
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let code = json["code"].as_str().unwrap();
    assert!(code.contains("import_=\"7,1,10\""), "code-first style carries the import ID: {code}");
    assert!(
        json["report"]["warnings"].to_string().contains("imported-password"),
        "the secret import ID is reported, not written: {json}"
    );

    let res = app
        .clone()
        .oneshot(get(&format!("/api/v1/previews/{preview_id}/code?lang=go&format=zip")))
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "application/zip");
    let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_string).collect();
    names.sort();
    assert_eq!(names, ["demo/Pulumi.yaml", "demo/go.mod", "demo/main.go"]);
    let mut go_mod = String::new();
    zip.by_name("demo/go.mod").unwrap().read_to_string(&mut go_mod).unwrap();
    assert!(go_mod.contains("github.com/pulumi/pulumi-random/sdk/v4"), "{go_mod}");

    // The whole demo stack: components become plain components with the same type and name.
    let (status, json) =
        call(&app, get(&format!("/api/v1/stacks/{id}/code?lang=yaml&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let yaml = json["code"].as_str().unwrap();
    assert!(yaml.contains("web-name:") && yaml.contains("aliases:"), "{yaml}");
    assert!(!yaml.contains("q7(N=yD!s0pW&k2Lr_Vf+8Xh"), "no secret output is written");

    let (status, error) =
        call(&app, get(&format!("/api/v1/previews/{preview_id}/code?lang=cobol"))).await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("bad_request"))
    );
    let (status, _) =
        call(&app, get(&format!("/api/v1/stacks/{id}/code?urn=urn:pulumi:dev::demo::nope::x")))
            .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The demo stack's code, written where `tsc` and `pyright` can check it against the real SDKs
/// (crates/ferry-codegen/sdk-check); fails when they are not installed.
#[tokio::test]
async fn the_demo_stack_code_type_checks() {
    let sdk = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-codegen/sdk-check");
    let tsc = sdk.join("node_modules/.bin/tsc");
    assert!(
        tsc.exists(),
        "tsc is missing ({}): run ./scripts/test.sh, which installs it",
        tsc.display()
    );
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let id = stacks[0]["id"].as_str().unwrap().to_string();
    let dir = sdk.join("generated/demo-stack");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (lang, file) in [("ts", "index.ts"), ("python", "__main__.py")] {
        let (status, json) =
            call(&app, get(&format!("/api/v1/stacks/{id}/code?lang={lang}&format=json"))).await;
        assert_eq!(status, StatusCode::OK, "{json}");
        // Every resource's code goes through its provider's Check and Diff, and previews clean.
        let verification = json["verification"].as_array().unwrap();
        assert!(
            !verification.is_empty() && verification.iter().all(|v| v["clean"] == true),
            "{}",
            json["verification"]
        );
        std::fs::write(dir.join(file), json["code"].as_str().unwrap()).unwrap();
    }
    std::fs::write(
        dir.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", "moduleResolution": "node", "noEmit": true}, "files": ["index.ts"]}"#,
    )
    .unwrap();
    let out =
        std::process::Command::new(&tsc).arg("-p").arg(dir.join("tsconfig.json")).output().unwrap();
    assert!(out.status.success(), "tsc:\n{}", String::from_utf8_lossy(&out.stdout));
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/codegen-venv/bin/python");
    let pyright = sdk.join("node_modules/.bin/pyright");
    assert!(
        python.exists() && pyright.exists(),
        "pyright or the venv is missing: run ./scripts/test.sh, which installs them"
    );
    let out = std::process::Command::new(&pyright)
        .arg("--pythonpath")
        .arg(&python)
        .arg(dir.join("__main__.py"))
        .output()
        .unwrap();
    assert!(out.status.success(), "pyright:\n{}", String::from_utf8_lossy(&out.stdout));
}

/// A parameterized package whose base plugin has no `Parameterize` (Ferry's random plugin) is
/// refused by the entry's path before anything is read.
#[tokio::test]
async fn a_parameterized_entry_on_a_plugin_without_parameterize_is_refused_by_name() {
    let app = common::app(false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/param/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let spec = json!({"resources": [
        {"type": "random:index/randomString:RandomString", "name": "plain", "id": "abc"},
        {"type": "acme:index:Thing", "name": "thing", "id": "t-1", "version": "1.0.0",
         "parameterization": {"pluginName": "random", "pluginVersion": "4.21.2", "value": "e30="}}
    ]});
    let (status, err) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{}/previews", stack["id"].as_str().unwrap()),
            &spec.to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    let problems = err["error"]["errors"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{err}");
    assert_eq!(problems[0]["path"], "resources[1].parameterization");
    assert!(
        problems[0]["message"].as_str().unwrap().contains("does not answer Parameterize"),
        "{err}"
    );
}

/// A parameterized package imports end to end: its entries run on the base plugin (Ferry's
/// scripted test plugin, installed as `pulumi-resource-testbase`), parameterized before its
/// schema is asked for, and the resources read as any other.
#[tokio::test]
async fn a_parameterized_package_imports_on_its_base_plugin() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let wrapper = base.path().join("pulumi-resource-testbase");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            common::plugin_dir().join("ferry-test-provider").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![base.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let app = common::app_with(engine, false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/param/ok", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let spec = json!({"resources": [
        {"type": "acme:index:Thing", "name": "thing", "id": "t-1", "version": "2.0.0",
         "parameterization": {"pluginName": "testbase", "pluginVersion": "0.0.1", "value": "e30="}}
    ]});
    let (status, preview) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{}/previews", stack["id"].as_str().unwrap()),
            &spec.to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let resource = &preview["preview"]["resources"][0];
    assert!(resource["status"].as_str().unwrap().starts_with("ready"), "{preview}");
    assert_eq!(resource["outputs"]["value"], "t-1", "{preview}");
}
