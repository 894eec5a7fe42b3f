//! Every state file in `shared/fixtures/pulumi/state/` is a test case: it loads (snapshot of
//! what Ferry read) or is rejected as the fixtures' README says.

use std::path::PathBuf;

use ferry_state::{load_state, ErrorCode, LoadOptions};
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    })
}

fn read(rel: &str) -> Vec<u8> {
    let path = fixtures().join("pulumi/state").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {} missing: {e}", path.display()))
}

/// What a user would want to know Ferry read from a file.
fn summary(rel: &str) -> Value {
    let state =
        load_state(&read(rel), LoadOptions::default()).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let resources = state.deployment.resources();
    let graph = ferry_state::graph::of_deployment(&state.deployment);
    let mut edge_kinds = std::collections::BTreeMap::new();
    for e in &graph.edges {
        *edge_kinds.entry(format!("{:?}", e.kind)).or_insert(0) += 1;
    }
    json!({
        "format": state.format.to_string(),
        "stack": state.stack,
        "features": state.features,
        "resources": resources.len(),
        "custom": resources.iter().filter(|r| r.is_custom()).count(),
        "providers": resources.iter().filter(|r| r.is_provider()).count(),
        "pending_deletes": resources.iter().filter(|r| r.is_pending_delete()).count(),
        "first_urn": resources.first().map(|r| r.urn.clone()),
        "secrets": state.secrets,
        "warnings": state.warnings.len(),
        "edges": edge_kinds,
    })
}

macro_rules! loads {
    ($($test:ident => $file:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            insta::assert_json_snapshot!(summary($file));
            round_trip($file);
        }
    )*};
}

loads! {
    checkpoint_v0 => "pulumi-checkpoints/checkpoint-v0.json",
    checkpoint_v1 => "pulumi-checkpoints/checkpoint-v1.json",
    checkpoint_v3 => "pulumi-checkpoints/checkpoint-v3.json",
    checkpoint_v4 => "pulumi-checkpoints/checkpoint-v4.json",
    checkpoint_secrets_b64 => "pulumi-checkpoints/checkpoint-secrets.json",
    operations_todo => "pulumi-checkpoints/operations-todo.json",
    operations_crawler => "pulumi-checkpoints/operations-crawler.json",
    diy_test_upsert => "real-diy-checkpoint/test-upsert.checkpoint.json",
    diy_dev_empty => "real-diy-checkpoint/dev-empty.checkpoint.json",
    export_flat => "tool-generated-export/dns-to-db-flat.export.json",
    export_components => "tool-generated-export/dns-to-db-components.export.json",
}

/// Writing the loaded state as an export and loading that again gives the same deployment,
/// and for v3+ files the exported deployment is the file's own, field for field.
fn round_trip(rel: &str) {
    let original: Value = serde_json::from_slice(&read(rel)).unwrap();
    let state = load_state(&read(rel), LoadOptions::default()).unwrap();
    let exported = state.to_export();
    // The text Ferry stores is that value, written without building it first.
    assert_eq!(
        state.export_text(),
        exported.to_string(),
        "{rel}: the stored text differs from the export"
    );
    // Read straight from text (as Ferry reads its stored versions), the deployment is the same.
    let direct: ferry_state::Deployment =
        serde_json::from_str(&exported["deployment"].to_string()).unwrap();
    assert_eq!(direct, state.deployment, "{rel}: reading the deployment from text differs");
    let again = load_state(exported.to_string().as_bytes(), LoadOptions::default()).unwrap();
    assert_eq!(
        again.deployment, state.deployment,
        "{rel}: export does not reload to the same state"
    );
    let version = original.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version >= 3 {
        let inner =
            original.get("deployment").or_else(|| original["checkpoint"].get("latest")).unwrap();
        assert_eq!(&exported["deployment"], inner, "{rel}: a field changed on the way through");
        assert_eq!(exported.get("features"), original.get("features"));
    }
}

#[test]
fn unknown_feature_is_rejected_by_name() {
    let err = load_state(
        &read("pulumi-checkpoints/checkpoint-v4-unsupported-feature.json"),
        LoadOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownFeature);
    assert!(err.message.contains("unsupported-feature"), "{err}");
    assert_eq!(err.path.as_deref(), Some("features"));
}

#[test]
fn v1_defaults_are_dropped_and_time_moves_to_the_manifest() {
    let state =
        load_state(&read("pulumi-checkpoints/checkpoint-v1.json"), LoadOptions::default()).unwrap();
    let export = state.to_export();
    assert_eq!(export["version"], 3);
    assert_eq!(export["deployment"]["manifest"]["time"], "2017-11-08T11:52:26.954469-08:00");
    assert!(!export.to_string().contains("\"defaults\""));
    assert_eq!(state.stack.as_deref(), Some("foo"));
}

#[test]
fn b64_secrets_are_checked_and_a_corrupt_one_is_named() {
    let mut v: Value =
        serde_json::from_slice(&read("pulumi-checkpoints/checkpoint-secrets.json")).unwrap();
    let state = load_state(v.to_string().as_bytes(), LoadOptions::default()).unwrap();
    assert!(state.secrets.verified);
    assert_eq!(state.secrets.encrypted, 10);
    v["checkpoint"]["latest"]["resources"][3]["inputs"]["assumeRolePolicy"]["ciphertext"] =
        json!("%%%");
    let err = load_state(v.to_string().as_bytes(), LoadOptions::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidSecret);
    assert_eq!(err.path.as_deref(), Some("checkpoint.latest.resources[3].inputs.assumeRolePolicy"));
}
