//! The provider as Ferry (or Pulumi) uses it: a separate plugin process, found by name,
//! launched by the engine's plugin host; and its schema against Pulumi's `random` schema.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ferry_engine::deploy::ImportStatus;
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use serde_json::Value;

fn fixtures() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    })
}

async fn providers(cache: Option<PathBuf>) -> PluginProviders {
    let bin_dir =
        Path::new(env!("CARGO_BIN_EXE_pulumi-resource-random")).parent().unwrap().to_path_buf();
    let search = PluginSearch { ferry_dirs: vec![bin_dir], ..Default::default() };
    let (engine, _logs) = EngineService::start().await.unwrap();
    let options = LaunchOptions {
        start_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_secs(30),
        ..Default::default()
    };
    PluginProviders::new(search, engine, options, std::env::temp_dir(), cache)
}

#[tokio::test]
async fn imports_every_documented_id_format_through_a_launched_plugin() {
    let spec = parse_import_spec(
        r#"{"resources": [
            {"type": "random:index/randomPassword:RandomPassword", "name": "randomPassword", "id": "supersecret"},
            {"type": "random:index/randomInteger:RandomInteger", "name": "priority", "id": "15390,1,50000"},
            {"type": "random:index/randomId:RandomId", "name": "server", "id": "my-prefix,p-9hUg"},
            {"type": "random:index/randomBytes:RandomBytes", "name": "basic", "id": "8/fu3q+2DcgSJ19i0jZ5Cw=="},
            {"type": "random:index/randomString:RandomString", "name": "newString", "id": "myspecialdata"},
            {"type": "random:index/randomUuid:RandomUuid", "name": "main", "id": "aabbccdd-eeff-0011-2233-445566778899"},
            {"type": "random:index/randomUuid4:RandomUuid4", "name": "anyVersion", "id": "0197ad85-fe6e-7e92-a2f5-7550daa83030"},
            {"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "brave-otter"}
        ]}"#,
    )
    .unwrap();
    let state =
        ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let source = providers(None).await;
    let ctx = StackContext { stack: "dev", project: "demo", deployment: &state.deployment };
    let preview = SpecPreview::from_plan(
        &preview_import(&spec, &ctx, &source, ImportOptions::default()).await.plan,
    );
    source.shutdown().await;
    let json = serde_json::to_value(&preview).unwrap();
    for secret in ["supersecret", "8/fu3q+2DcgSJ19i0jZ5Cw==", "f3f7eedeafb60dc812275f62d236790b"] {
        assert!(!json.to_string().contains(secret), "the secret `{secret}` appears in the preview");
    }
    insta::assert_json_snapshot!(json);
    let statuses: Vec<ImportStatus> = preview.resources.iter().map(|r| r.status).collect();
    use ImportStatus::*;
    // A RandomUuid4 takes any valid UUID (a version 7 one too), as the real provider does; a pet
    // has no import ID.
    assert_eq!(statuses, [Ready, Ready, Ready, Ready, Ready, Ready, Ready, Failed]);
}

#[tokio::test]
async fn the_schema_is_asked_once_per_version_and_cached_on_disk() {
    let cache = tempfile_dir();
    let source = providers(Some(cache.clone())).await;
    let a = source.schema("random", None).await.unwrap();
    let b = source.schema("random", None).await.unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    source.shutdown().await;
    let files: Vec<_> =
        std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::remove_dir_all(cache).unwrap();
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferry-schema-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Same type tokens, property names, required lists and secret flags as Pulumi's `random`.
#[tokio::test]
async fn the_schema_matches_pulumi_random_for_every_resource() {
    let source = providers(None).await;
    let ours: Value = serde_json::from_str(&source.schema("random", None).await.unwrap()).unwrap();
    source.shutdown().await;
    let theirs: Value = serde_json::from_slice(
        &std::fs::read(fixtures().join("pulumi/schemas/random.schema.json")).unwrap(),
    )
    .unwrap();
    let keys = |v: &Value| {
        v.as_object()
            .map(|m| m.keys().cloned().collect::<std::collections::BTreeSet<_>>())
            .unwrap_or_default()
    };
    assert_eq!(keys(&ours["resources"]), keys(&theirs["resources"]));
    for (token, t) in theirs["resources"].as_object().unwrap() {
        let o = &ours["resources"][token];
        assert_eq!(keys(&o["properties"]), keys(&t["properties"]), "{token} properties");
        assert_eq!(keys(&o["inputProperties"]), keys(&t["inputProperties"]), "{token} inputs");
        let set = |v: &Value| {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect::<std::collections::BTreeSet<_>>()
                })
                .unwrap_or_default()
        };
        assert_eq!(set(&o["required"]), set(&t["required"]), "{token} required");
        assert_eq!(set(&o["requiredInputs"]), set(&t["requiredInputs"]), "{token} requiredInputs");
        for (name, prop) in t["properties"].as_object().unwrap() {
            assert_eq!(o["properties"][name]["type"], prop["type"], "{token}.{name} type");
            assert_eq!(
                o["properties"][name]["secret"].as_bool().unwrap_or(false),
                prop["secret"].as_bool().unwrap_or(false),
                "{token}.{name} secret"
            );
        }
    }
}

#[tokio::test]
async fn a_commit_adds_the_ready_resources_as_pulumi_state_that_loads() {
    use base64::Engine;
    use ferry_engine::deploy::snapshot::{assign_created_ids, to_deployment, WriteOptions};
    let spec = parse_import_spec(
        r#"{"resources": [
            {"type": "random:index/randomPassword:RandomPassword", "name": "db", "id": "hunter2hunter2", "parent": "svc"},
            {"type": "acme:index:Service", "name": "svc", "component": true},
            {"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"},
            {"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "x"}
        ]}"#,
    )
    .unwrap();
    let base = ferry_state::load_state(
        br#"{"version":3,"deployment":{"secrets_providers":{"type":"b64","state":{}}}}"#,
        Default::default(),
    )
    .unwrap();
    let source = providers(None).await;
    let ctx = StackContext { stack: "dev", project: "demo", deployment: &base.deployment };
    let deployed = preview_import(&spec, &ctx, &source, ImportOptions::default()).await;
    source.shutdown().await;

    let encrypt = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    assert_eq!(deployed.plan.commit_refusal(false), None, "a spec commits what is ready");
    assert_eq!(deployed.plan.added(), 3, "password, component and integer; the pet failed");
    let mut states = deployed.states;
    assign_created_ids(&mut states);
    let next = to_deployment(
        std::borrow::Cow::Borrowed(&base.deployment),
        &states,
        &WriteOptions { now: "2026-11-22T00:00:00Z", encrypt: &encrypt },
    );
    let export = serde_json::json!({"version": 3, "deployment": next});
    let text = export.to_string();
    assert!(!text.contains("hunter2hunter2"), "secrets are encrypted in state");
    // It loads as Pulumi state: references resolve, secrets decrypt (b64).
    let loaded = ferry_state::load_state(text.as_bytes(), Default::default()).unwrap();
    assert!(loaded.secrets.verified && loaded.secrets.encrypted == 2);
    let all = loaded.deployment.resources();
    let mut types: Vec<&str> = all.iter().map(|r| r.type_.as_str()).collect();
    assert_eq!(
        &types[..2],
        ["pulumi:pulumi:Stack", "pulumi:providers:random"],
        "root and default provider first"
    );
    types.sort();
    assert_eq!(
        types,
        [
            "acme:index:Service",
            "pulumi:providers:random",
            "pulumi:pulumi:Stack",
            "random:index/randomInteger:RandomInteger",
            "random:index/randomPassword:RandomPassword"
        ]
    );
    let position = |urn: &str| all.iter().position(|r| r.urn == urn).unwrap();
    for (i, r) in all.iter().enumerate() {
        if let Some(parent) = r.parent() {
            assert!(position(parent) < i, "{} comes before its parent", r.urn);
        }
    }
    let db = all.iter().find(|r| r.urn.ends_with("::db")).unwrap();
    assert_eq!(
        db.urn,
        "urn:pulumi:dev::demo::acme:index:Service$random:index/randomPassword:RandomPassword::db"
    );
    assert!(db.is_protected());
    assert_eq!(db.id(), Some("none"));
    assert!(db
        .provider()
        .unwrap()
        .starts_with("urn:pulumi:dev::demo::pulumi:providers:random::default::"));

    // Importing the same spec again finds everything already managed: no diff, nothing to add.
    let source = providers(None).await;
    let ctx = StackContext { stack: "dev", project: "demo", deployment: &loaded.deployment };
    let again = SpecPreview::from_plan(
        &preview_import(&spec, &ctx, &source, ImportOptions::default()).await.plan,
    );
    source.shutdown().await;
    let statuses: Vec<ImportStatus> = again.resources.iter().map(|r| r.status).collect();
    use ImportStatus::*;
    assert_eq!(statuses, [AlreadyManaged, AlreadyManaged, AlreadyManaged, Failed]);
}
