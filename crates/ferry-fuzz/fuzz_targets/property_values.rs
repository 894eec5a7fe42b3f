//! Pulumi's property values as they arrive: the wire form (a protobuf `Struct`, what a plugin
//! sends) and the state's JSON form (what a state file holds). Decoding answers a value or an
//! error; a decoded value encodes and decodes back to itself.
#![no_main]

use ferry_property::json::{decode_map, encode_map, DecodeOptions, EncodeOptions};
use ferry_property::wire::{from_struct, to_struct};
use libfuzzer_sys::fuzz_target;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else { return };
    if kind % 2 == 0 {
        let Ok(wire) = ferry_rpc::prost_types::Struct::decode(rest) else { return };
        if let Ok(map) = from_struct(&wire) {
            let again = from_struct(&to_struct(&map, &EncodeOptions::wire()))
                .expect("encoded values decode");
            assert_eq!(format!("{again:?}"), format!("{map:?}"));
        }
    } else {
        let Ok(serde_json::Value::Object(json)) = serde_json::from_slice::<serde_json::Value>(rest)
        else {
            return;
        };
        if let Ok(map) = decode_map(&json, "", &DecodeOptions::default()) {
            // Secrets kept in their wire form (`4dabf18193072939515e22adb298388d` with a value),
            // which the state form decodes as the same secret.
            let encoded = encode_map(&map, &EncodeOptions::wire());
            let again =
                decode_map(&encoded, "", &DecodeOptions::default()).expect("encoded values decode");
            assert_eq!(format!("{again:?}"), format!("{map:?}"));
        }
    }
});
