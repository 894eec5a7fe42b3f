//! Property values survive both encodings: generated values round-trip through the wire
//! (`google.protobuf.Struct`) and state JSON, and every real state fixture decodes and encodes
//! back to the same JSON.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use ferry_property::json::{
    decode_map, decode_value, encode_map, DecodeOptions, EncodeOptions, SecretEncoding,
};
use ferry_property::wire::{from_struct, to_struct};
use ferry_property::*;
use proptest::prelude::*;
use serde_json::Value;

fn leaf() -> impl Strategy<Value = PropertyValue> {
    prop_oneof![
        Just(PropertyValue::Null),
        any::<bool>().prop_map(PropertyValue::Bool),
        (-1e12f64..1e12).prop_map(PropertyValue::Number),
        "[a-z0-9 ]{0,8}".prop_map(PropertyValue::String),
        Just(PropertyValue::Computed),
        ("[a-f0-9]{0,4}", "[a-z]{1,6}").prop_map(|(h, t)| PropertyValue::Asset(Asset {
            hash: (!h.is_empty()).then_some(h),
            source: AssetSource::Text(t)
        })),
        "[a-z/]{1,8}".prop_map(|p| PropertyValue::Archive(Archive {
            hash: None,
            source: ArchiveSource::Path(p)
        })),
        ("[a-z]{1,5}", proptest::option::of("[a-z0-9]{1,5}")).prop_map(|(n, id)| {
            PropertyValue::ResourceReference(ResourceReference {
                urn: format!("urn:pulumi:s::p::t:m:T::{n}"),
                id: id.map(|i| Box::new(PropertyValue::String(i))),
                package_version: String::new(),
            })
        }),
    ]
}

fn value() -> impl Strategy<Value = PropertyValue> {
    leaf().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(PropertyValue::Array),
            proptest::collection::btree_map("[a-zA-Z]{1,6}", inner.clone(), 0..4)
                .prop_map(PropertyValue::Object),
            inner.clone().prop_map(|v| PropertyValue::Secret(Box::new(v))),
            (
                proptest::option::of(inner),
                any::<bool>(),
                proptest::collection::vec("[a-z]{1,4}", 0..2)
            )
                .prop_map(|(e, secret, deps)| {
                    PropertyValue::Output(OutputValue {
                        element: e.map(Box::new),
                        secret,
                        dependencies: deps
                            .into_iter()
                            .map(|d| format!("urn:pulumi:s::p::t:m:T::{d}"))
                            .collect(),
                    })
                }),
        ]
    })
}

fn props() -> impl Strategy<Value = PropertyMap> {
    proptest::collection::btree_map("[a-zA-Z]{1,8}", value(), 0..6)
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}
fn un_b64(s: &str) -> Result<String, String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

proptest! {
    #[test]
    fn round_trip_through_the_wire(map in props()) {
        let wire = to_struct(&map, &EncodeOptions::wire());
        prop_assert_eq!(from_struct(&wire).unwrap(), map);
    }

    #[test]
    fn round_trip_through_state_json(map in props()) {
        let encrypt = |s: &str| b64(s);
        let decrypt = |s: &str| un_b64(s);
        for secrets in [SecretEncoding::Plaintext, SecretEncoding::Encrypt(&encrypt)] {
            let opts = EncodeOptions { secrets, ..EncodeOptions::wire() };
            let json = encode_map(&map, &opts);
            let back = decode_map(&json, "", &DecodeOptions { decrypt: Some(&decrypt) }).unwrap();
            prop_assert_eq!(&back, &map);
        }
    }
}

#[test]
fn what_a_provider_does_not_accept_is_lowered() {
    let mut map = BTreeMap::new();
    map.insert("s".to_string(), PropertyValue::Secret(Box::new(PropertyValue::String("x".into()))));
    map.insert("u".to_string(), PropertyValue::Computed);
    map.insert(
        "r".to_string(),
        PropertyValue::ResourceReference(ResourceReference {
            urn: "urn:pulumi:s::p::t:m:T::n".into(),
            id: Some(Box::new(PropertyValue::String("i-1".into()))),
            package_version: String::new(),
        }),
    );
    let opts = EncodeOptions {
        keep_unknowns: false,
        keep_secrets: false,
        keep_resources: false,
        ..EncodeOptions::wire()
    };
    let json = encode_map(&map, &opts);
    assert_eq!(Value::Object(json), serde_json::json!({"s": "x", "r": "i-1"}));
}

#[test]
fn malformed_signed_objects_are_named() {
    let v = serde_json::json!({"a": [{"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17"}]});
    let err = decode_value(&v, "", &DecodeOptions::default()).unwrap_err();
    assert_eq!(err.path, "a[0]");
    assert!(err.message.contains("asset"), "{err}");
    let v = serde_json::json!({"4dabf18193072939515e22adb298388d": "nope"});
    assert!(decode_value(&v, "x", &DecodeOptions::default())
        .unwrap_err()
        .message
        .contains("unknown signature"));
}

#[test]
fn every_state_fixture_decodes_and_encodes_back_unchanged() {
    let dir = std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
        })
        .join("pulumi/state");
    let mut checked = 0;
    for sub in ["pulumi-checkpoints", "real-diy-checkpoint", "tool-generated-export"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let Ok(state) =
                ferry_state::load_state(&std::fs::read(&path).unwrap(), Default::default())
            else {
                continue;
            };
            let b64_state =
                state.deployment.secrets_providers.as_ref().is_some_and(|p| p.kind == "b64");
            let encrypt = |s: &str| b64(s);
            let decrypt = |s: &str| un_b64(s);
            for r in state.deployment.resources() {
                for properties in [&r.inputs, &r.outputs].into_iter().flatten() {
                    let map = &properties.to_map();
                    let decoded = decode_map(
                        map,
                        "",
                        &DecodeOptions { decrypt: b64_state.then_some(&decrypt as _) },
                    )
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), r.urn));
                    let opts = EncodeOptions {
                        secrets: SecretEncoding::Encrypt(&encrypt),
                        ..EncodeOptions::wire()
                    };
                    let encoded = encode_map(&decoded, &opts);
                    // b64 ciphertexts are deterministic, so even secrets come back byte for byte
                    // (modulo JSON whitespace inside the encrypted text, compared decoded).
                    let again =
                        decode_map(&encoded, "", &DecodeOptions { decrypt: Some(&decrypt) })
                            .unwrap();
                    assert_eq!(again, decoded, "{}: {}", path.display(), r.urn);
                    if !b64_state {
                        assert_eq!(&encoded, map, "{}: {}", path.display(), r.urn);
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} property maps checked");
}

/// Found by the `property_values` fuzz target: `{"": -0}` decoded as negative zero and came
/// back as `0`, because whole numbers are written as integers and an integer has no sign of zero.
#[test]
fn negative_zero_keeps_its_sign_through_both_encodings() {
    let json: serde_json::Map<String, Value> = serde_json::from_str(r#"{"": -0}"#).unwrap();
    let map = decode_map(&json, "", &DecodeOptions::default()).unwrap();
    let again =
        decode_map(&encode_map(&map, &EncodeOptions::wire()), "", &DecodeOptions::default())
            .unwrap();
    assert_eq!(format!("{again:?}"), format!("{map:?}"));
    let PropertyValue::Number(n) = again[""] else { panic!("{again:?}") };
    assert!(n == 0.0 && n.is_sign_negative(), "{n}");
    let through_wire = from_struct(&to_struct(&map, &EncodeOptions::wire())).unwrap();
    assert_eq!(format!("{through_wire:?}"), format!("{map:?}"));
}
