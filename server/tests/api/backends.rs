//! A stack connected to a live DIY backend folder, through the API: connected from a backend
//! laid out with a real checkpoint of the Pulumi CLI, previewed against the checkpoint as it is
//! at that moment, committed as Pulumi commits (the new checkpoint, its `.bak`, the history, no
//! lock left behind); a change made by someone else after the preview, or a lock another
//! `pulumi` holds, refuses the commit (409), naming the holder.

use crate::common;

use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use common::{call, get, post};
use ferry_service::{EngineConfig, Ferry};
use serde_json::{json, Value};

fn fixture(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    std::fs::read(dir.join("pulumi/state/real-diy-checkpoint").join(name)).unwrap()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The service, allowed to open the backend `url` for every organisation, with Ferry's plugins.
fn service_for(store: ferry_store::Store, url: &str) -> Ferry {
    let engine =
        EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    Ferry::new(store, 1 << 20).with_engine(engine).with_allowed_backends(vec![
        ferry_service::AllowedBackend { org: "*".into(), url: url.to_string() },
    ])
}

fn checkpoint(root: &Path) -> Value {
    serde_json::from_slice(
        &std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test-upsert.json")).unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn a_connected_stack_is_previewed_live_and_committed_as_pulumi_commits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    write(
        root,
        ".pulumi/stacks/s3bucket-test/test-upsert.json",
        &fixture("test-upsert.checkpoint.json"),
    );
    let url = format!("file://{}", root.display());
    let app =
        common::app_of(service_for(ferry_store::testing::scratch().await.unwrap(), &url), false)
            .await;

    // What the backend holds; a backend the administrator did not allow is refused.
    let (status, listed) =
        call(&app, get(&format!("/api/v1/backends/stacks?org=organization&url={url}"))).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(
        listed.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>(),
        ["organization/s3bucket-test/test-upsert"]
    );
    let (status, err) =
        call(&app, get("/api/v1/backends/stacks?org=organization&url=file:///etc")).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("backend_not_allowed")),
        "{err}"
    );

    let (status, stack) = call(
        &app,
        post(
            "/api/v1/stacks",
            &json!({"backend": url, "name": "organization/s3bucket-test/test-upsert"}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    assert_eq!(stack["name"], "organization/s3bucket-test/test-upsert");
    let id = stack["id"].as_str().unwrap().to_string();
    let before = checkpoint(root);
    let count = before["checkpoint"]["latest"]["resources"].as_array().unwrap().len();

    let preview = |app: axum::Router, name: &'static str| {
        let id = id.clone();
        let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": name, "id": "8080,1024,65535"}]}).to_string();
        async move {
            let (status, preview) =
                call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &spec)).await;
            assert_eq!(status, StatusCode::CREATED, "{preview}");
            preview["id"].as_str().unwrap().to_string()
        }
    };
    let commit = |app: axum::Router, preview: String| async move {
        call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await
    };

    // Committed into the folder: the new checkpoint, its backup, the history, no lock left.
    let first = preview(app.clone(), "port").await;
    let (status, done) = commit(app.clone(), first).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let after = checkpoint(root);
    assert_eq!(after["checkpoint"]["stack"], "organization/s3bucket-test/test-upsert");
    let resources = after["checkpoint"]["latest"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), count + 2, "the integer and random's default provider");
    assert!(resources.iter().any(|r| r["urn"].as_str().unwrap().ends_with("RandomInteger::port")));
    assert!(after["checkpoint"]["latest"]["manifest"]["version"]
        .as_str()
        .unwrap()
        .starts_with("ferry v"));
    assert_ne!(
        after["checkpoint"]["latest"]["manifest"]["time"],
        before["checkpoint"]["latest"]["manifest"]["time"],
        "the commit's time is recorded"
    );
    assert_eq!(
        std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test-upsert.json.bak")).unwrap(),
        fixture("test-upsert.checkpoint.json")
    );
    assert_eq!(
        std::fs::read_dir(root.join(".pulumi/history/s3bucket-test/test-upsert")).unwrap().count(),
        2
    );
    let locks = root.join(".pulumi/locks/organization/s3bucket-test/test-upsert");
    assert_eq!(std::fs::read_dir(&locks).unwrap().count(), 0, "no lock left behind");
    // The committed checkpoint reads back as Pulumi state.
    ferry_state::load_state(
        &std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test-upsert.json")).unwrap(),
        Default::default(),
    )
    .unwrap();

    // Someone else updates the stack after a preview: the commit is refused, nothing written.
    let second = preview(app.clone(), "second").await;
    write(
        root,
        ".pulumi/stacks/s3bucket-test/test-upsert.json",
        &fixture("test-upsert.checkpoint.json"),
    );
    let (status, err) = commit(app.clone(), second).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("stale_preview")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test-upsert.json")).unwrap(),
        fixture("test-upsert.checkpoint.json")
    );

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
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("stack_locked")),
        "{err}"
    );
    assert!(err["error"]["message"].as_str().unwrap().contains("bob@ci-runner (pid 777)"), "{err}");
    assert_eq!(std::fs::read_dir(&locks).unwrap().count(), 1);
    std::fs::remove_dir_all(&locks).unwrap();
    let (status, done) = commit(app.clone(), third).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    assert_eq!(
        checkpoint(root)["checkpoint"]["latest"]["resources"].as_array().unwrap().len(),
        count + 2
    );
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
    let app =
        common::app_of(service_for(ferry_store::testing::scratch().await.unwrap(), &url), false)
            .await;

    let (status, stack) = call(
        &app,
        post(
            "/api/v1/stacks",
            &json!({"backend": url, "name": "organization/shop/dev"}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"}]}).to_string();
    let (status, preview) = call(
        &app,
        post(&format!("/api/v1/stacks/{}/previews", stack["id"].as_str().unwrap()), &spec),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let commit = axum::http::Request::post(format!(
        "/api/v1/previews/{}/commit",
        preview["id"].as_str().unwrap()
    ))
    .header("x-ferry-passphrase", "correct horse")
    .body(axum::body::Body::empty())
    .unwrap();
    let (status, done) = call(&app, commit).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let written = std::fs::read(root.join(".pulumi/stacks/shop/dev.json")).unwrap();
    let loaded = ferry_state::load_state(
        &written,
        ferry_state::LoadOptions { passphrase: Some("correct horse"), ..Default::default() },
    )
    .unwrap();
    assert!(loaded.secrets.verified, "the secret still decrypts with the stack's passphrase");
    let text = String::from_utf8(written).unwrap();
    assert!(
        text.contains(&salt) && text.contains("RandomInteger::port") && !text.contains("s3cret")
    );
}

/// An instance killed mid-commit leaves its lock file in the backend: the commit after it is
/// refused (naming Ferry as the holder) until recovery (the next process on this store, or
/// another instance once the lease ran out) removes it and records what it found; the
/// stack's locks say so, and the commit then goes through.
#[tokio::test]
async fn a_lock_a_killed_instance_left_is_recovered_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    write(
        root,
        ".pulumi/stacks/s3bucket-test/test-upsert.json",
        &fixture("test-upsert.checkpoint.json"),
    );
    let url = format!("file://{}", root.display());
    let store = ferry_store::testing::scratch().await.unwrap();
    let (app, stacks) = common::admin_app_of(service_for(store.clone(), &url), false).await;

    let (status, stack) = call(
        &app,
        post(
            "/api/v1/stacks",
            &json!({"backend": url, "name": "organization/s3bucket-test/test-upsert"}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let id = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"}]}).to_string();
    let (status, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &spec)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");

    // What an instance killed between taking the lock and releasing it leaves: its record
    // (its lease still running) and its lock file.
    let left = ".pulumi/locks/organization/s3bucket-test/test-upsert/5d1f7a90-0000-4000-8000-00000000dead.json";
    store
        .stacks()
        .add_backend_lock(left, &id, &url, "killed-instance", &store.clock().in_millis(1500))
        .await
        .unwrap();
    write(root, left, br#"{"pid": 4321, "username": "ferry", "hostname": "ferry-a", "timestamp": "2026-11-24T10:00:00Z"}"#);
    let commit = post(&format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()), "");
    let (status, err) = call(&app, commit).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("stack_locked")),
        "{err}"
    );
    assert!(
        err["error"]["message"].as_str().unwrap().contains("ferry@ferry-a (pid 4321)"),
        "{err}"
    );
    assert!(root.join(left).exists(), "another's lock is never removed by a refused commit");

    // The lease runs out (nobody renews it); recovery on start (SQLite: any lock not
    // released, since one instance runs; PostgreSQL: those whose lease ran out) removes it.
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    stacks.recover().await.unwrap();
    assert!(!root.join(left).exists(), "the lock file the killed instance left is removed");
    let (status, locks) = call(&app, get(&format!("/api/v1/stacks/{id}/locks"))).await;
    assert_eq!(status, StatusCode::OK, "{locks}");
    let recovered =
        locks.as_array().unwrap().iter().find(|l| l["path"] == left).expect("the lock is reported");
    assert!(recovered["released_at"].is_string(), "{recovered}");
    assert!(
        recovered["recovery"].as_str().unwrap().contains("stopped before releasing it"),
        "{recovered}"
    );
    // The refused commit's own lock was taken and released, and is listed as such.
    assert!(
        locks
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["path"] != left && l["released_at"].is_string() && l["recovery"].is_null()),
        "{locks}"
    );

    let commit = post(&format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()), "");
    let (status, done) = call(&app, commit).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    assert_eq!(
        std::fs::read_dir(root.join(".pulumi/locks/organization/s3bucket-test/test-upsert"))
            .unwrap()
            .count(),
        0,
        "no lock left behind"
    );
}

/// A connected stack whose state has no secrets provider yet: its `Pulumi.<stack>.yaml`, read
/// where the server may read it, gives the salt its first secrets are written with, so that
/// the team's `pulumi` reads them with its own config; a passphrase that does not match the
/// file is refused, naming it; a file that is not one is refused before anything is kept.
#[tokio::test]
async fn the_stack_configs_encryptionsalt_keys_the_first_secrets() {
    use ferry_state::secrets::PassphraseCrypter;
    let (_, salt) = PassphraseCrypter::new_salt("team passphrase");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    // The real checkpoint, as a stack made before it had secrets: no secrets provider.
    let mut fresh: Value = serde_json::from_slice(&fixture("test-upsert.checkpoint.json")).unwrap();
    fresh["checkpoint"]["latest"].as_object_mut().unwrap().remove("secrets_providers");
    write(root, ".pulumi/stacks/s3bucket-test/test-upsert.json", fresh.to_string().as_bytes());
    write(
        root,
        "project/Pulumi.test.yaml",
        format!("encryptionsalt: {salt}\nconfig:\n  aws:region: us-west-2\n").as_bytes(),
    );
    write(root, "project/Pulumi.broken.yaml", b"encryptionsalt: [not, a, salt]\n");
    let url = format!("file://{}", root.display());
    let app =
        common::app_of(service_for(ferry_store::testing::scratch().await.unwrap(), &url), false)
            .await;
    assert!(
        checkpoint(root)["checkpoint"]["latest"]["secrets_providers"].is_null(),
        "the fixture has no secrets provider yet"
    );

    let connect = |config: String| {
        json!({"backend": url, "name": "organization/s3bucket-test/test-upsert", "config": config})
            .to_string()
    };
    let (status, err) =
        call(&app, post("/api/v1/stacks", &connect(format!("{url}/project/Pulumi.broken.yaml"))))
            .await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request")),
        "{err}"
    );
    assert!(err["error"]["message"].as_str().unwrap().contains("Pulumi.<stack>.yaml"), "{err}");
    let (status, err) =
        call(&app, post("/api/v1/stacks", &connect("file:///etc/Pulumi.test.yaml".into()))).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("backend_not_allowed")),
        "{err}"
    );

    let (status, stack) =
        call(&app, post("/api/v1/stacks", &connect(format!("{url}/project/Pulumi.test.yaml"))))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let id = stack["id"].as_str().unwrap().to_string();
    let (status, config) = call(&app, get(&format!("/api/v1/stacks/{id}/config"))).await;
    assert_eq!(
        (status, config["encryption_salt"].as_str()),
        (StatusCode::OK, Some(salt.as_str())),
        "{config}"
    );

    let spec = json!({"resources": [{"type": "random:index/randomPassword:RandomPassword", "name": "admin", "id": "correct-horse-battery"}]}).to_string();
    let (status, preview) = call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &spec)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let commit = |pass: &str| {
        axum::http::Request::post(format!(
            "/api/v1/previews/{}/commit",
            preview["id"].as_str().unwrap()
        ))
        .header("x-ferry-passphrase", pass)
        .body(axum::body::Body::empty())
        .unwrap()
    };
    let (status, err) = call(&app, commit("another passphrase")).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("commit_refused")),
        "{err}"
    );
    assert!(err["error"]["message"].as_str().unwrap().contains("encryptionsalt"), "{err}");
    assert!(
        checkpoint(root)["checkpoint"]["latest"]["secrets_providers"].is_null(),
        "nothing was written"
    );

    let (status, done) = call(&app, commit("team passphrase")).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let written = checkpoint(root);
    assert_eq!(
        written["checkpoint"]["latest"]["secrets_providers"],
        json!({"type": "passphrase", "state": {"salt": salt}})
    );
    let text = written.to_string();
    assert!(!text.contains("correct-horse-battery"), "the password is encrypted");
    let loaded = ferry_state::load_state(
        text.as_bytes(),
        ferry_state::LoadOptions { passphrase: Some("team passphrase"), ..Default::default() },
    )
    .unwrap();
    assert!(loaded.secrets.verified);

    // Uploaded stacks take the file over the API; what is not one is refused, named.
    let put = |body: &str| {
        axum::http::Request::put(format!("/api/v1/stacks/{id}/config"))
            .body(axum::body::Body::from(body.to_string()))
            .unwrap()
    };
    let (status, err) = call(&app, put("encryptionsalt: plain\n")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("v1:<salt>:<check>"), "{err}");
    let (status, config) = call(&app, put("secretsprovider: awskms://alias/team\n")).await;
    assert_eq!(
        (status, config["secrets_provider"].as_str()),
        (StatusCode::OK, Some("awskms://alias/team")),
        "{config}"
    );
}
