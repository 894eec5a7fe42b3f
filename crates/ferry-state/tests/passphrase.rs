//! The passphrase secrets provider against the vector in `secrets-test-vectors.json`.

use std::path::PathBuf;

use ferry_state::secrets::PassphraseCrypter;
use ferry_state::{load_state, ErrorCode, LoadOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

fn vectors() -> Value {
    let dir = std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    });
    serde_json::from_slice(
        &std::fs::read(dir.join("pulumi/state/secrets-test-vectors.json")).unwrap(),
    )
    .unwrap()
}

fn salt() -> String {
    vectors()["passphrase_provider"]["secrets_providers"]["state"]["salt"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A state with one secret encrypted under the vector's key.
fn state_with_secret(crypter: &PassphraseCrypter) -> Value {
    let ct = crypter.encrypt(br#""hunter2""#);
    json!({"version": 3, "deployment": {
        "secrets_providers": {"type": "passphrase", "state": {"salt": salt()}},
        "resources": [{"urn": "urn:pulumi:dev::p::random:index/randomPassword:RandomPassword::pw", "custom": true,
                       "type": "random:index/randomPassword:RandomPassword", "id": "none",
                       "outputs": {"result": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": ct}}}]}})
}

#[test]
fn the_vector_decrypts_with_the_right_passphrase_only() {
    let v = vectors();
    let pass = v["passphrase_provider"]["passphrase"].as_str().unwrap();
    let crypter =
        PassphraseCrypter::from_salt_state(pass, &salt()).expect("the documented passphrase works");

    // A state whose secret was encrypted under that key loads with the passphrase ...
    let state = state_with_secret(&crypter);
    let loaded = load_state(
        state.to_string().as_bytes(),
        LoadOptions { passphrase: Some(pass), ..Default::default() },
    )
    .unwrap();
    assert!(loaded.secrets.verified);
    assert_eq!(loaded.secrets.encrypted, 1);
    // ... keeps the ciphertext, never the plaintext ...
    assert!(!loaded.to_export().to_string().contains("hunter2"));
    // ... needs it ...
    let e = load_state(state.to_string().as_bytes(), LoadOptions::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::PassphraseRequired);
    // ... and refuses a wrong one.
    let e = load_state(
        state.to_string().as_bytes(),
        LoadOptions { passphrase: Some("wrong"), ..Default::default() },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::WrongPassphrase);
    assert_eq!(e.path.as_deref(), Some("deployment.secrets_providers.state.salt"));

    // Round trip of arbitrary plaintexts under one derived key (derivation costs ~1M rounds).
    proptest!(ProptestConfig::with_cases(64), |(plain in proptest::collection::vec(any::<u8>(), 0..256))| {
        let ct = crypter.encrypt(&plain);
        prop_assert_eq!(crypter.decrypt(&ct).unwrap(), plain);
    });
}

#[test]
fn the_broken_salt_is_refused() {
    let v = vectors();
    let broken: Value =
        serde_json::from_str(v["passphrase_provider"]["broken_state_must_fail"].as_str().unwrap())
            .unwrap();
    let e = PassphraseCrypter::from_salt_state("password", broken["salt"].as_str().unwrap())
        .err()
        .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidState);
}
