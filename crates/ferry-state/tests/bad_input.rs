//! Broken state files: each is refused with a code, a message a user can act on, and a path.

use ferry_state::{load_state, ErrorCode, LoadOptions};
use serde_json::{json, Value};

fn err(v: &Value) -> ferry_state::StateError {
    load_state(v.to_string().as_bytes(), LoadOptions::default()).unwrap_err()
}

fn res(urn: &str, extra: Value) -> Value {
    let mut r = json!({"urn": urn, "custom": true, "type": urn.split("::").nth(2).unwrap()});
    r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    r
}

const STACK: &str = "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev";
const BUCKET: &str = "urn:pulumi:dev::p::aws:s3/bucket:Bucket::b";
const PROV: &str = "urn:pulumi:dev::p::pulumi:providers:aws::default";

fn export(resources: Vec<Value>) -> Value {
    json!({"version": 3, "deployment": {"manifest": {"time": "", "magic": "", "version": ""}, "resources": resources}})
}

#[test]
fn not_json() {
    let e = load_state(b"{\"version\": 3,", LoadOptions::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert!(e.message.contains("line 1"), "{e}");
}

#[test]
fn newer_and_malformed_versions() {
    let e = err(&json!({"version": 9, "deployment": {}}));
    assert_eq!((e.code, e.path.as_deref()), (ErrorCode::UnsupportedVersion, Some("version")));
    assert!(e.message.contains('9'));
    let e = err(&json!({"version": "3", "deployment": {}}));
    assert_eq!(e.code, ErrorCode::UnsupportedVersion);
}

#[test]
fn neither_checkpoint_nor_export() {
    assert_eq!(err(&json!({"version": 3})).code, ErrorCode::InvalidState);
    assert_eq!(err(&json!([1, 2])).code, ErrorCode::InvalidState);
}

#[test]
fn wrong_field_type_names_the_path() {
    let e = err(&export(vec![
        json!({"urn": STACK, "type": "pulumi:pulumi:Stack"}),
        json!({"urn": 5, "type": "x"}),
    ]));
    assert_eq!(e.code, ErrorCode::InvalidState);
    assert_eq!(e.path.as_deref(), Some("deployment.resources[1].urn"), "{e}");
}

#[test]
fn dangling_parent() {
    let e = err(&export(vec![res(BUCKET, json!({"parent": STACK}))]));
    assert_eq!(e.code, ErrorCode::DanglingReference);
    assert_eq!(e.path.as_deref(), Some("deployment.resources[0].parent"));
    assert!(e.message.contains(STACK));
}

#[test]
fn dangling_provider_and_wrong_provider_id() {
    let e = err(&export(vec![res(BUCKET, json!({"provider": format!("{PROV}::abc")}))]));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::DanglingReference, Some("deployment.resources[0].provider"))
    );
    let e = err(&export(vec![
        res(PROV, json!({"id": "xyz"})),
        res(BUCKET, json!({"provider": format!("{PROV}::abc")})),
    ]));
    assert_eq!(e.code, ErrorCode::DanglingReference);
    assert!(e.message.contains("xyz") && e.message.contains("abc"), "{e}");
}

#[test]
fn dangling_dependency() {
    let e = err(&export(vec![res(BUCKET, json!({"dependencies": [STACK]}))]));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::DanglingReference, Some("deployment.resources[0].dependencies"))
    );
}

#[test]
fn not_a_urn() {
    let e = err(&export(vec![json!({"urn": "bucket", "type": "t"})]));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidState, Some("deployment.resources[0].urn"))
    );
}

#[test]
fn encrypted_secrets_without_a_provider() {
    let secret = json!({"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "eyJ9"});
    let e = err(&export(vec![res(BUCKET, json!({"outputs": {"k": secret}}))]));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidSecret, Some("deployment.resources[0].outputs.k"))
    );
}

#[test]
fn keys_in_go_letter_case_load() {
    let v = json!({"Version": 3, "Deployment": {"Resources": [{"URN": STACK, "Type": "pulumi:pulumi:Stack", "importId": "x"}]}});
    let s = load_state(v.to_string().as_bytes(), LoadOptions::default()).unwrap();
    assert_eq!(s.deployment.resources()[0].urn, STACK);
    assert_eq!(s.to_export()["deployment"]["resources"][0]["importID"], "x");
}
