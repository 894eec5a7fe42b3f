//! Property values as JSON objects with Pulumi's signature keys: the form of state files
//! (secrets as `ciphertext` or `plaintext`) and, with secrets as `value`, of the wire
//! (see [`super::wire`], which converts this JSON to and from `google.protobuf.Struct`).

use std::collections::BTreeMap;

use ferry_state::sig::{
    ARCHIVE_SIG, ASSET_SIG, OUTPUT_VALUE_SIG, RESOURCE_REFERENCE_SIG, SECRET_SIG, SIG_KEY,
    UNKNOWN_VALUE,
};
use serde_json::{json, Map, Value};

use super::{
    child_path, index_path, Archive, ArchiveSource, Asset, AssetSource, OutputValue, PropertyError,
    PropertyMap, PropertyValue, ResourceReference,
};

/// How a secret is written.
#[derive(Clone, Copy)]
pub enum SecretEncoding<'a> {
    /// `{sig, value: <value>}`: the wire form, for providers that accept secrets.
    Wire,
    /// `{sig, plaintext: "<JSON text>"}`: a decrypted state export.
    Plaintext,
    /// `{sig, ciphertext: f("<JSON text>")}`: state, encrypted by the stack's secrets manager.
    Encrypt(&'a (dyn Fn(&str) -> String + Sync)),
}

/// What the receiver understands; what it does not is lowered (Pulumi's marshal options).
#[derive(Clone, Copy)]
pub struct EncodeOptions<'a> {
    pub keep_unknowns: bool,
    pub keep_secrets: bool,
    pub keep_resources: bool,
    pub keep_output_values: bool,
    pub secrets: SecretEncoding<'a>,
}

impl EncodeOptions<'_> {
    /// Everything kept, secrets in wire form.
    pub fn wire() -> EncodeOptions<'static> {
        EncodeOptions {
            keep_unknowns: true,
            keep_secrets: true,
            keep_resources: true,
            keep_output_values: true,
            secrets: SecretEncoding::Wire,
        }
    }
}

/// How secrets are read back.
#[derive(Clone, Copy, Default)]
pub struct DecodeOptions<'a> {
    /// Turns a `ciphertext` into the JSON text of the secret's value.
    pub decrypt: Option<&'a (dyn Fn(&str) -> Result<String, String> + Sync)>,
}

fn sig_object(sig: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(SIG_KEY.into(), Value::String(sig.into()));
    m
}

pub fn encode_map(map: &PropertyMap, opts: &EncodeOptions<'_>) -> Map<String, Value> {
    map.iter().filter_map(|(k, v)| encode_value(v, opts).map(|v| (k.clone(), v))).collect()
}

/// The JSON for `value`, or `None` where the receiver should not see the property at all
/// (an unknown, when unknowns are not kept).
pub fn encode_value(value: &PropertyValue, opts: &EncodeOptions<'_>) -> Option<Value> {
    Some(match value {
        PropertyValue::Null => Value::Null,
        PropertyValue::Bool(b) => Value::Bool(*b),
        PropertyValue::Number(n) => number(*n),
        PropertyValue::String(s) => Value::String(s.clone()),
        PropertyValue::Array(items) => Value::Array(
            items.iter().map(|v| encode_value(v, opts).unwrap_or(Value::Null)).collect(),
        ),
        PropertyValue::Object(map) => Value::Object(encode_map(map, opts)),
        PropertyValue::Asset(asset) => encode_asset(asset),
        PropertyValue::Archive(archive) => encode_archive(archive, opts),
        PropertyValue::Computed => {
            if !opts.keep_unknowns {
                return None;
            }
            Value::String(UNKNOWN_VALUE.into())
        }
        PropertyValue::Secret(inner) => {
            let inner_json = encode_value(inner, opts)?;
            if !opts.keep_secrets {
                return Some(inner_json);
            }
            let mut m = sig_object(SECRET_SIG);
            match opts.secrets {
                SecretEncoding::Wire => {
                    m.insert("value".into(), inner_json);
                }
                SecretEncoding::Plaintext => {
                    m.insert("plaintext".into(), Value::String(inner_json.to_string()));
                }
                SecretEncoding::Encrypt(encrypt) => {
                    m.insert("ciphertext".into(), Value::String(encrypt(&inner_json.to_string())));
                }
            }
            Value::Object(m)
        }
        PropertyValue::ResourceReference(r) => {
            if !opts.keep_resources {
                // Lowered to its ID (custom resources) or URN (components), as Pulumi does.
                return match &r.id {
                    Some(id) => encode_value(id, opts),
                    None => Some(Value::String(r.urn.clone())),
                };
            }
            let mut m = sig_object(RESOURCE_REFERENCE_SIG);
            m.insert("urn".into(), Value::String(r.urn.clone()));
            if let Some(id) = &r.id {
                let id = match id.as_ref() {
                    PropertyValue::Computed => Value::String(String::new()),
                    other => encode_value(other, opts).unwrap_or(Value::String(String::new())),
                };
                m.insert("id".into(), id);
            }
            if !r.package_version.is_empty() {
                m.insert("packageVersion".into(), Value::String(r.package_version.clone()));
            }
            Value::Object(m)
        }
        PropertyValue::Output(o) => {
            if !opts.keep_output_values {
                let lowered = match &o.element {
                    Some(e) => (**e).clone(),
                    None => PropertyValue::Computed,
                };
                let lowered =
                    if o.secret { PropertyValue::Secret(Box::new(lowered)) } else { lowered };
                return encode_value(&lowered, opts);
            }
            let mut m = sig_object(OUTPUT_VALUE_SIG);
            if let Some(e) = &o.element {
                m.insert("value".into(), encode_value(e, opts).unwrap_or(Value::Null));
            }
            if o.secret {
                m.insert("secret".into(), Value::Bool(true));
            }
            if !o.dependencies.is_empty() {
                m.insert("dependencies".into(), json!(o.dependencies));
            }
            Value::Object(m)
        }
    })
}

/// Integral values are written without a fraction (`128`, not `128.0`), as Pulumi writes them.
fn number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53: beyond it not every integer is exact
                                                // Whole numbers are written as integers, as Pulumi writes them; negative zero is not one
                                                // (an integer has no sign of zero), so it stays a float and keeps its sign.
    if n.fract() == 0.0 && n.abs() < EXACT && !(n == 0.0 && n.is_sign_negative()) {
        Value::Number((n as i64).into())
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

fn encode_asset(asset: &Asset) -> Value {
    let mut m = sig_object(ASSET_SIG);
    if let Some(h) = &asset.hash {
        m.insert("hash".into(), Value::String(h.clone()));
    }
    let (k, v) = match &asset.source {
        AssetSource::Text(t) => ("text", t),
        AssetSource::Path(p) => ("path", p),
        AssetSource::Uri(u) => ("uri", u),
    };
    m.insert(k.into(), Value::String(v.clone()));
    Value::Object(m)
}

fn encode_archive(archive: &Archive, opts: &EncodeOptions<'_>) -> Value {
    let mut m = sig_object(ARCHIVE_SIG);
    if let Some(h) = &archive.hash {
        m.insert("hash".into(), Value::String(h.clone()));
    }
    match &archive.source {
        ArchiveSource::Assets(assets) => {
            let members = assets
                .iter()
                .filter_map(|(k, v)| encode_value(v, opts).map(|v| (k.clone(), v)))
                .collect();
            m.insert("assets".into(), Value::Object(members));
        }
        ArchiveSource::Path(p) => {
            m.insert("path".into(), Value::String(p.clone()));
        }
        ArchiveSource::Uri(u) => {
            m.insert("uri".into(), Value::String(u.clone()));
        }
    }
    Value::Object(m)
}

pub fn decode_map(
    obj: &Map<String, Value>,
    path: &str,
    opts: &DecodeOptions<'_>,
) -> Result<PropertyMap, PropertyError> {
    obj.iter().map(|(k, v)| Ok((k.clone(), decode_value(v, &child_path(path, k), opts)?))).collect()
}

pub fn decode_value(
    value: &Value,
    path: &str,
    opts: &DecodeOptions<'_>,
) -> Result<PropertyValue, PropertyError> {
    Ok(match value {
        Value::Null => PropertyValue::Null,
        Value::Bool(b) => PropertyValue::Bool(*b),
        Value::Number(n) => PropertyValue::Number(n.as_f64().unwrap_or(0.0)),
        Value::String(s) if s == UNKNOWN_VALUE => PropertyValue::Computed,
        Value::String(s) => PropertyValue::String(s.clone()),
        Value::Array(items) => PropertyValue::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| decode_value(v, &index_path(path, i), opts))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(obj) => match obj.get(SIG_KEY) {
            None => PropertyValue::Object(decode_map(obj, path, opts)?),
            Some(Value::String(sig)) => decode_signed(sig, obj, path, opts)?,
            Some(_) => {
                return Err(PropertyError::new(path, "the signature key's value must be a string"))
            }
        },
    })
}

fn str_field<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'v str>, PropertyError> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(PropertyError::new(&child_path(path, key), "must be a string")),
    }
}

fn decode_signed(
    sig: &str,
    obj: &Map<String, Value>,
    path: &str,
    opts: &DecodeOptions<'_>,
) -> Result<PropertyValue, PropertyError> {
    Ok(match sig {
        SECRET_SIG => {
            let inner = if let Some(v) = obj.get("value") {
                decode_value(v, path, opts)?
            } else if let Some(text) = str_field(obj, "plaintext", path)? {
                let v: Value = serde_json::from_str(text).map_err(|e| {
                    PropertyError::new(path, format!("a secret's plaintext is not JSON: {e}"))
                })?;
                decode_value(&v, path, opts)?
            } else if let Some(ct) = str_field(obj, "ciphertext", path)? {
                let decrypt = opts.decrypt.ok_or_else(|| {
                    PropertyError::new(path, "an encrypted secret, and no key to decrypt it")
                })?;
                let text = decrypt(ct).map_err(|e| {
                    PropertyError::new(path, format!("the secret does not decrypt: {e}"))
                })?;
                let v: Value = serde_json::from_str(&text).map_err(|e| {
                    PropertyError::new(path, format!("a decrypted secret is not JSON: {e}"))
                })?;
                decode_value(&v, path, opts)?
            } else {
                return Err(PropertyError::new(
                    path,
                    "a secret needs `value`, `plaintext` or `ciphertext`",
                ));
            };
            PropertyValue::Secret(Box::new(inner))
        }
        ASSET_SIG => {
            let hash = str_field(obj, "hash", path)?.map(str::to_string);
            let source = if let Some(t) = str_field(obj, "text", path)? {
                AssetSource::Text(t.into())
            } else if let Some(p) = str_field(obj, "path", path)? {
                AssetSource::Path(p.into())
            } else if let Some(u) = str_field(obj, "uri", path)? {
                AssetSource::Uri(u.into())
            } else {
                return Err(PropertyError::new(path, "an asset needs `text`, `path` or `uri`"));
            };
            PropertyValue::Asset(Asset { hash, source })
        }
        ARCHIVE_SIG => {
            let hash = str_field(obj, "hash", path)?.map(str::to_string);
            let source = if let Some(assets) = obj.get("assets") {
                let Value::Object(members) = assets else {
                    return Err(PropertyError::new(
                        &child_path(path, "assets"),
                        "must be an object",
                    ));
                };
                let members: BTreeMap<String, PropertyValue> =
                    decode_map(members, &child_path(path, "assets"), opts)?;
                if let Some((name, _)) = members.iter().find(|(_, v)| {
                    !matches!(v, PropertyValue::Asset(_) | PropertyValue::Archive(_))
                }) {
                    return Err(PropertyError::new(
                        &child_path(&child_path(path, "assets"), name),
                        "an archive member must be an asset or an archive",
                    ));
                }
                ArchiveSource::Assets(members)
            } else if let Some(p) = str_field(obj, "path", path)? {
                ArchiveSource::Path(p.into())
            } else if let Some(u) = str_field(obj, "uri", path)? {
                ArchiveSource::Uri(u.into())
            } else {
                return Err(PropertyError::new(path, "an archive needs `assets`, `path` or `uri`"));
            };
            PropertyValue::Archive(Archive { hash, source })
        }
        RESOURCE_REFERENCE_SIG => {
            let urn = str_field(obj, "urn", path)?
                .ok_or_else(|| PropertyError::new(path, "a resource reference needs a `urn`"))?;
            let id = match obj.get("id") {
                None => None,
                Some(Value::String(s)) if s.is_empty() || s == UNKNOWN_VALUE => {
                    Some(Box::new(PropertyValue::Computed))
                }
                Some(Value::String(s)) => Some(Box::new(PropertyValue::String(s.clone()))),
                Some(_) => {
                    return Err(PropertyError::new(&child_path(path, "id"), "must be a string"))
                }
            };
            let package_version = str_field(obj, "packageVersion", path)?.unwrap_or("").to_string();
            PropertyValue::ResourceReference(ResourceReference {
                urn: urn.into(),
                id,
                package_version,
            })
        }
        OUTPUT_VALUE_SIG => {
            let element =
                obj.get("value").map(|v| decode_value(v, path, opts)).transpose()?.map(Box::new);
            let secret = match obj.get("secret") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(PropertyError::new(
                        &child_path(path, "secret"),
                        "must be a boolean",
                    ))
                }
            };
            let dependencies = match obj.get("dependencies") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|d| {
                        d.as_str().map(str::to_string).ok_or_else(|| {
                            PropertyError::new(
                                &child_path(path, "dependencies"),
                                "must be URN strings",
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(PropertyError::new(
                        &child_path(path, "dependencies"),
                        "must be an array",
                    ))
                }
            };
            PropertyValue::Output(OutputValue { element, secret, dependencies })
        }
        other => return Err(PropertyError::new(path, format!("unknown signature `{other}`"))),
    })
}
