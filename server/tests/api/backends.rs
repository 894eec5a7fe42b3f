//! A stack connected to a live DIY backend folder, through the API: connected from a backend
//! laid out with a real checkpoint of the Pulumi CLI, previewed against the checkpoint as it is
//! at that moment, committed as Pulumi commits (the new checkpoint, its `.bak`, the history, no
//! lock left behind); a change made by someone else after the preview, or a lock another
//! `pulumi` holds, refuses the commit (409), naming the holder.

use crate::common;

use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use common::{call, get, post};
use ferry_service::{EngineConfig, StackService};
use serde_json::{json, Value};

fn fixture(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    std::fs::read(dir.join("pulumi/state/real-diy-checkpoint").join(name)).unwrap()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn checkpoint(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test.json")).unwrap()).unwrap()
}

#[tokio::test]
async fn a_connected_stack_is_previewed_live_and_committed_as_pulumi_commits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    write(root, ".pulumi/stacks/s3bucket-test/test.json", &fixture("test-upsert.checkpoint.json"));
    let url = format!("file://{}", root.display());
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    let app = common::app_of(StackService::new(store, 1 << 20).with_engine(engine).with_allowed_backends(vec![url.clone()]), false).await;

    // What the backend holds; a backend the administrator did not allow is refused.
    let (status, listed) = call(&app, get(&format!("/api/v1/backends/stacks?url={url}"))).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>(), ["organization/s3bucket-test/test"]);
    let (status, err) = call(&app, get("/api/v1/backends/stacks?url=file:///etc")).await;
    assert_eq!((status, err["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("backend_not_allowed")), "{err}");

    let (status, stack) = call(&app, post("/api/v1/stacks", &json!({"backend": url, "name": "organization/s3bucket-test/test"}).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    assert_eq!(stack["name"], "organization/s3bucket-test/test");
    let id = stack["id"].as_str().unwrap().to_string();
    let before = checkpoint(root);
    let count = before["checkpoint"]["latest"]["resources"].as_array().unwrap().len();

    let preview = |app: axum::Router, name: &'static str| {
        let id = id.clone();
        let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": name, "id": "8080,1024,65535"}]}).to_string();
        async move {
            let (status, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &spec)).await;
            assert_eq!(status, StatusCode::CREATED, "{preview}");
            preview["id"].as_str().unwrap().to_string()
        }
    };
    let commit = |app: axum::Router, preview: String| async move { call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await };

    // Committed into the folder: the new checkpoint, its backup, the history, no lock left.
    let first = preview(app.clone(), "port").await;
    let (status, done) = commit(app.clone(), first).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let after = checkpoint(root);
    assert_eq!(after["checkpoint"]["stack"], "organization/s3bucket-test/test");
    let resources = after["checkpoint"]["latest"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), count + 2, "the integer and random's default provider");
    assert!(resources.iter().any(|r| r["urn"].as_str().unwrap().ends_with("RandomInteger::port")));
    assert!(after["checkpoint"]["latest"]["manifest"]["version"].as_str().unwrap().starts_with("ferry v"));
    assert_ne!(after["checkpoint"]["latest"]["manifest"]["time"], before["checkpoint"]["latest"]["manifest"]["time"], "the commit's time is recorded");
    assert_eq!(std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test.json.bak")).unwrap(), fixture("test-upsert.checkpoint.json"));
    assert_eq!(std::fs::read_dir(root.join(".pulumi/history/s3bucket-test/test")).unwrap().count(), 2);
    let locks = root.join(".pulumi/locks/organization/s3bucket-test/test");
    assert_eq!(std::fs::read_dir(&locks).unwrap().count(), 0, "no lock left behind");
    // The committed checkpoint reads back as Pulumi state.
    ferry_state::load_state(&std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test.json")).unwrap(), Default::default()).unwrap();

    // Someone else updates the stack after a preview: the commit is refused, nothing written.
    let second = preview(app.clone(), "second").await;
    write(root, ".pulumi/stacks/s3bucket-test/test.json", &fixture("test-upsert.checkpoint.json"));
    let (status, err) = commit(app.clone(), second).await;
    assert_eq!((status, err["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("stale_preview")), "{err}");
    assert_eq!(std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test.json")).unwrap(), fixture("test-upsert.checkpoint.json"));

    // The next preview reads the moved checkpoint as the stack's next version.
    let third = preview(app.clone(), "third").await;
    let (_, versions) = call(&app, get(&format!("/api/v1/stacks/{id}/versions"))).await;
    assert_eq!(versions[0]["origin"], "backend", "{versions}");

    // Another `pulumi` holds the lock: refused, naming it; its lock stays, Ferry's is gone.
    write(
        &locks,
        "0b1c2d3e-0000-4000-8000-000000000001.json",
        br#"{"pid": 777, "username": "bob", "hostname": "ci-runner", "timestamp": "2026-11-24T09:00:00Z"}"#,
    );
    let (status, err) = commit(app.clone(), third.clone()).await;
    assert_eq!((status, err["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("stack_locked")), "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("bob@ci-runner (pid 777)"), "{err}");
    assert_eq!(std::fs::read_dir(&locks).unwrap().count(), 1);
    std::fs::remove_dir_all(&locks).unwrap();
    let (status, done) = commit(app.clone(), third).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    assert_eq!(checkpoint(root)["checkpoint"]["latest"]["resources"].as_array().unwrap().len(), count + 2);
}

/// DIY backends default to the passphrase provider: a connected stack whose state holds
/// passphrase secrets is read live without the passphrase (its secrets kept as they are), and
/// committed with it; the secret stays encrypted under the same salt.
#[tokio::test]
async fn a_passphrase_stack_is_previewed_without_its_passphrase_and_committed_with_it() {
    use ferry_state::secrets::PassphraseCrypter;
    use ferry_state::sig::{SECRET_SIG, SIG_KEY};
    let (crypter, salt) = PassphraseCrypter::new_salt("correct horse");
    let ciphertext = crypter.encrypt(br#""s3cret""#);
    let provider = "urn:pulumi:dev::shop::pulumi:providers:random::default";
    let checkpoint = json!({"version": 3, "checkpoint": {"stack": "organization/shop/dev", "latest": {
    "manifest": {"time": "2026-01-01T00:00:00Z", "magic": "", "version": "v3.205.0"},
    "secrets_providers": {"type": "passphrase", "state": {"salt": salt}},
    "resources": [
        {"urn": "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev", "custom": false, "type": "pulumi:pulumi:Stack"},
        {"urn": provider, "custom": true, "id": "9c3e0d4a-0000-4000-8000-000000000001", "type": "pulumi:providers:random", "inputs": {}, "outputs": {}},
        {"urn": "urn:pulumi:dev::shop::random:index/randomString:RandomString::token", "custom": true, "id": "tok", "type": "random:index/randomString:RandomString",
         "provider": format!("{provider}::9c3e0d4a-0000-4000-8000-000000000001"), "parent": "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev",
         "inputs": {"length": 6}, "outputs": {"length": 6, "result": {SIG_KEY: SECRET_SIG, "ciphertext": ciphertext}}}
    ]}}});
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    write(root, ".pulumi/stacks/shop/dev.json", checkpoint.to_string().as_bytes());
    let url = format!("file://{}", root.display());
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    let app = common::app_of(StackService::new(store, 1 << 20).with_engine(engine).with_allowed_backends(vec![url.clone()]), false).await;

    let (status, stack) = call(&app, post("/api/v1/stacks", &json!({"backend": url, "name": "organization/shop/dev"}).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"}]}).to_string();
    let (status, preview) = call(&app, post(&format!("/api/v1/stacks/{}/previews", stack["id"].as_str().unwrap()), &spec)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let commit = axum::http::Request::post(format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()))
        .header("x-ferry-passphrase", "correct horse")
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, done) = call(&app, commit).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let written = std::fs::read(root.join(".pulumi/stacks/shop/dev.json")).unwrap();
    let loaded = ferry_state::load_state(&written, ferry_state::LoadOptions { passphrase: Some("correct horse"), ..Default::default() }).unwrap();
    assert!(loaded.secrets.verified, "the secret still decrypts with the stack's passphrase");
    let text = String::from_utf8(written).unwrap();
    assert!(text.contains(&salt) && text.contains("RandomInteger::port") && !text.contains("s3cret"));
}
