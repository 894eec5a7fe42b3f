//! Pulumi's signature keys: the markers that make a JSON object a secret, asset, archive,
//! resource reference or output value rather than a plain map.

use serde_json::{Map, Value};

/// The key every special object carries; its value says which kind it is.
pub const SIG_KEY: &str = "4dabf18193072939515e22adb298388d";
pub const SECRET_SIG: &str = "1b47061264138c4ac30d75fd1eb44270";
pub const ASSET_SIG: &str = "c44067f5952c0a294b673a41bacd8c17";
pub const ARCHIVE_SIG: &str = "0def7320c3a5731c473e5ecbe6d01bc7";
pub const RESOURCE_REFERENCE_SIG: &str = "5cf8f73096256a8f31e491e813e4eb8e";
pub const OUTPUT_VALUE_SIG: &str = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/// The string Pulumi writes for a value that is not known yet.
pub const UNKNOWN_VALUE: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/// The kind a signed object declares, if it is one.
pub fn signature(obj: &Map<String, Value>) -> Option<&str> {
    obj.get(SIG_KEY).and_then(Value::as_str)
}

pub fn is_secret(value: &Value) -> bool {
    matches!(value, Value::Object(obj) if signature(obj) == Some(SECRET_SIG))
}

/// A copy of `value` with every secret replaced by a masked marker, for views that must
/// never show a secret (the UI, shared links, logs).
pub fn mask_secrets(value: &Value) -> Value {
    match value {
        Value::Object(obj) if signature(obj) == Some(SECRET_SIG) => {
            Value::String("[secret]".into())
        }
        Value::Object(obj) => {
            Value::Object(obj.iter().map(|(k, v)| (k.clone(), mask_secrets(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(mask_secrets).collect()),
        other => other.clone(),
    }
}

/// Calls `f(path, object)` for every secret object under `value`; `path` is a JSON path.
pub fn for_each_secret<'a>(
    value: &'a Value,
    path: &mut String,
    f: &mut dyn FnMut(&str, &'a Map<String, Value>),
) {
    match value {
        Value::Object(obj) if signature(obj) == Some(SECRET_SIG) => f(path, obj),
        Value::Object(obj) => {
            for (key, child) in obj {
                let len = path.len();
                path.push('.');
                path.push_str(key);
                for_each_secret(child, path, f);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                for_each_secret(child, path, f);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn masks_nested_secrets_and_leaves_assets() {
        let v = json!({"a": {SIG_KEY: SECRET_SIG, "ciphertext": "eA=="},
                       "b": [{SIG_KEY: ASSET_SIG, "text": "x"}, {SIG_KEY: SECRET_SIG, "plaintext": "\"p\""}]});
        let masked = mask_secrets(&v);
        assert_eq!(masked["a"], json!("[secret]"));
        assert_eq!(masked["b"][0]["text"], json!("x"));
        assert_eq!(masked["b"][1], json!("[secret]"));
        assert!(!masked.to_string().contains("eA=="));
    }
}
