//! Property values on the gRPC wire: `google.protobuf.Struct`, with the same signature-key
//! objects as [`super::json`] (secrets as `{sig, value}`).

use prost_types::{value::Kind, ListValue, Struct, Value as PbValue};
use serde_json::{Map, Value};

use ferry_state::sig::{SECRET_SIG, SIG_KEY};

use super::json::{decode_map, encode_map, DecodeOptions, EncodeOptions};
use super::{PropertyError, PropertyMap};

/// Marshals properties for a provider; `opts` says what the provider accepts.
pub fn to_struct(map: &PropertyMap, opts: &EncodeOptions<'_>) -> Struct {
    json_object_to_struct(encode_map(map, opts))
}

/// Unmarshals properties a provider returned.
pub fn from_struct(s: &Struct) -> Result<PropertyMap, PropertyError> {
    decode_map(&struct_to_json_object(s)?, "", &DecodeOptions::default())
}

pub fn json_object_to_struct(obj: Map<String, Value>) -> Struct {
    Struct { fields: obj.into_iter().map(|(k, v)| (k, json_to_pb(v))).collect() }
}

fn json_to_pb(v: Value) -> PbValue {
    let kind = match v {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => Kind::StringValue(s),
        Value::Array(items) => {
            Kind::ListValue(ListValue { values: items.into_iter().map(json_to_pb).collect() })
        }
        Value::Object(obj) => Kind::StructValue(json_object_to_struct(obj)),
    };
    PbValue { kind: Some(kind) }
}

/// A provider's side of the wire. A request's properties as plain JSON, every secret replaced by
/// its value: what a provider computes with.
pub fn struct_to_plain_object(s: &Struct) -> Result<Map<String, Value>, PropertyError> {
    fn unwrap_secrets(v: Value) -> Value {
        match v {
            Value::Object(mut obj)
                if obj.get(SIG_KEY).and_then(Value::as_str) == Some(SECRET_SIG) =>
            {
                unwrap_secrets(obj.remove("value").unwrap_or(Value::Null))
            }
            Value::Object(obj) => {
                Value::Object(obj.into_iter().map(|(k, v)| (k, unwrap_secrets(v))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(unwrap_secrets).collect()),
            other => other,
        }
    }
    Ok(struct_to_json_object(s)?.into_iter().map(|(k, v)| (k, unwrap_secrets(v))).collect())
}

/// A provider's answer: plain properties, those `is_secret` names marked secret.
pub fn plain_object_to_struct(
    props: Map<String, Value>,
    is_secret: impl Fn(&str) -> bool,
) -> Struct {
    let marked = props
        .into_iter()
        .map(|(k, v)| {
            if is_secret(&k) {
                let mut secret = Map::new();
                secret.insert(SIG_KEY.into(), Value::String(SECRET_SIG.into()));
                secret.insert("value".into(), v);
                (k, Value::Object(secret))
            } else {
                (k, v)
            }
        })
        .collect();
    json_object_to_struct(marked)
}

pub fn struct_to_json_object(s: &Struct) -> Result<Map<String, Value>, PropertyError> {
    s.fields.iter().map(|(k, v)| Ok((k.clone(), pb_to_json(v, k)?))).collect()
}

fn pb_to_json(v: &PbValue, path: &str) -> Result<Value, PropertyError> {
    Ok(match &v.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(*b),
        Some(Kind::NumberValue(n)) => serde_json::Number::from_f64(*n)
            .map(Value::Number)
            .ok_or_else(|| PropertyError::new(path, format!("{n} is not a JSON number")))?,
        Some(Kind::StringValue(s)) => Value::String(s.clone()),
        Some(Kind::ListValue(l)) => Value::Array(
            l.values
                .iter()
                .enumerate()
                .map(|(i, v)| pb_to_json(v, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Some(Kind::StructValue(s)) => Value::Object(
            s.fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), pb_to_json(v, &format!("{path}.{k}"))?)))
                .collect::<Result<_, PropertyError>>()?,
        ),
    })
}
