//! Terraform's recorded attributes, translated into Pulumi's properties through a provider's
//! mapping, as the bridge names and shapes them: snake_case becomes camelCase unless the
//! mapping names the field; a list or set of blocks that holds at most one (`maxItemsOne`) is
//! one object; another list or set takes the plural; computed-only attributes are left out of
//! what a program sets (they stay in the recorded outputs); nulls are unset. What is sensitive
//! (by the state's paths, the schema, or the mapping's `secret`) is a secret. An attribute the
//! schema does not know is named, never dropped silently.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::mapping::{FieldInfo, TfField, ValueType};
use crate::state::PathStep;

/// How a secret is written: the caller's form (`fn::secret` in a program, Pulumi's secret
/// signature in state).
pub type SecretForm = fn(Value) -> Value;

/// Wraps a value as a YAML program's secret.
pub fn program_secret(value: Value) -> Value {
    let mut m = Map::new();
    m.insert("fn::secret".into(), value);
    Value::Object(m)
}

/// Wraps a value as Pulumi state's secret.
pub fn state_secret(value: Value) -> Value {
    let mut m = Map::new();
    m.insert(
        "4dabf18193072939515e22adb298388d".into(),
        Value::String("1b47061264138c4ac30d75fd1eb44270".into()),
    );
    m.insert("value".into(), value);
    Value::Object(m)
}

/// An instance's attributes, translated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Translated {
    /// What a program sets: computed-only attributes and nulls left out.
    pub inputs: Map<String, Value>,
    /// Everything recorded, for a `Read`'s prior state.
    pub outputs: Map<String, Value>,
    /// Attributes (their Terraform names) the schema does not know.
    pub unknown: Vec<String>,
    /// Whether anything is secret.
    pub has_secrets: bool,
    /// Maps left out of the inputs (their paths, `keepers`): a map whose only key starts with
    /// `fn::` is a function call in Pulumi YAML, never data, so a program cannot set it.
    pub left_out: Vec<String>,
}

/// `min_lower` → `minLower`.
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The plural a bridged list takes (`rule` → `rules`, `policy` → `policies`); already plural
/// names stay.
pub fn plural(name: &str) -> String {
    if name.ends_with('s') {
        return name.to_string();
    }
    if let Some(stem) = name.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if name.ends_with("ch") || name.ends_with("sh") || name.ends_with('x') || name.ends_with('z') {
        return format!("{name}es");
    }
    format!("{name}s")
}

/// The Pulumi name of the Terraform field `name`.
pub fn pulumi_name(name: &str, field: Option<&TfField>, info: Option<&FieldInfo>) -> String {
    if let Some(n) = info.and_then(|i| i.name.as_deref()) {
        return n.to_string();
    }
    let camel = camel_case(name);
    let listish = field.is_some_and(|f| matches!(f.type_, ValueType::List | ValueType::Set));
    if listish && !max_one(field, info) {
        plural(&camel)
    } else {
        camel
    }
}

fn max_one(field: Option<&TfField>, info: Option<&FieldInfo>) -> bool {
    match info.and_then(|i| i.max_items_one) {
        Some(v) => v,
        None => field.is_some_and(TfField::max_one),
    }
}

/// Translates `attributes` of a resource whose schema is `schema` and overrides `fields`;
/// `sensitive` are the state's sensitive paths (Terraform names).
pub fn translate(
    attributes: &Map<String, Value>,
    schema: &BTreeMap<String, TfField>,
    fields: &BTreeMap<String, FieldInfo>,
    sensitive: &BTreeSet<Vec<PathStep>>,
    secret: SecretForm,
) -> Translated {
    let mut t = Translated::default();
    let mut path = Vec::new();
    for (name, value) in attributes {
        path.push(PathStep::Key(name.clone()));
        let field = schema.get(name);
        let info = fields.get(name);
        let out_name = if name == "id" { "id".to_string() } else { pulumi_name(name, field, info) };
        if field.is_none() && name != "id" {
            t.unknown.push(name.clone());
        }
        let mut ctx = Ctx { sensitive, secret, has_secrets: false, left_out: Vec::new() };
        let full = ctx.value(value, field, info, &mut path, false);
        let input = if name == "id" || field.is_none_or(TfField::computed_only) || value.is_null() {
            None
        } else {
            Some(ctx.value(value, field, info, &mut path, true))
        };
        t.has_secrets |= ctx.has_secrets;
        t.left_out.extend(ctx.left_out);
        if let Some(v) = full {
            t.outputs.insert(out_name.clone(), v);
        }
        if let Some(Some(v)) = input {
            t.inputs.insert(out_name, v);
        }
        path.pop();
    }
    t
}

struct Ctx<'a> {
    sensitive: &'a BTreeSet<Vec<PathStep>>,
    secret: SecretForm,
    has_secrets: bool,
    left_out: Vec<String>,
}

/// A path as people read it: `keepers`, `rule[0].tags`.
fn path_text(path: &[PathStep]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            PathStep::Key(k) if out.is_empty() => out.push_str(k),
            PathStep::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            PathStep::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

impl Ctx<'_> {
    /// One value; `inputs`: the form a program sets (computed-only block fields and nulls left
    /// out). `None`: leave it out.
    fn value(
        &mut self,
        value: &Value,
        field: Option<&TfField>,
        info: Option<&FieldInfo>,
        path: &mut Vec<PathStep>,
        inputs: bool,
    ) -> Option<Value> {
        let secret = self.sensitive.contains(path.as_slice())
            || field.is_some_and(|f| f.sensitive)
            || info.and_then(|i| i.secret) == Some(true);
        let shaped = match value {
            Value::Null if inputs => return None,
            Value::Array(items) => {
                let block = field.and_then(TfField::block);
                let element_info = info.and_then(|i| i.element.as_deref());
                let element_field =
                    field.and_then(|f| f.element.as_deref()).and_then(|e| e.schema.as_ref());
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    path.push(PathStep::Index(i));
                    let v = match (block, item) {
                        (Some(block), Value::Object(obj)) => {
                            let nested = element_info
                                .map(|e| &e.fields)
                                .filter(|f| !f.is_empty())
                                .or(info.map(|i| &i.fields));
                            Some(Value::Object(self.block(obj, block, nested, path, inputs)))
                        }
                        _ => self.value(item, element_field, element_info, path, inputs),
                    };
                    path.pop();
                    out.extend(v);
                }
                if max_one(field, info) {
                    // A block that holds at most one is one object.
                    match out.into_iter().next() {
                        Some(one) => one,
                        None if inputs => return None,
                        None => Value::Null,
                    }
                } else {
                    Value::Array(out)
                }
            }
            Value::Object(map)
                if inputs && map.len() == 1 && map.keys().all(|k| k.starts_with("fn::")) =>
            {
                // Pulumi YAML reads a lone `fn::` key as a function call, whatever the quoting:
                // the map cannot be a program's value (the preview shows it differing).
                self.left_out.push(path_text(path));
                return None;
            }
            Value::Object(map) => {
                // A map's keys are the user's own; its values are plain.
                let element_field =
                    field.and_then(|f| f.element.as_deref()).and_then(|e| e.schema.as_ref());
                let mut out = Map::new();
                for (k, v) in map {
                    path.push(PathStep::Key(k.clone()));
                    if let Some(v) = self.value(v, element_field, None, path, inputs) {
                        out.insert(k.clone(), v);
                    }
                    path.pop();
                }
                Value::Object(out)
            }
            other => other.clone(),
        };
        if secret && !shaped.is_null() {
            self.has_secrets = true;
            return Some((self.secret)(shaped));
        }
        Some(shaped)
    }

    fn block(
        &mut self,
        obj: &Map<String, Value>,
        schema: &BTreeMap<String, TfField>,
        fields: Option<&BTreeMap<String, FieldInfo>>,
        path: &mut Vec<PathStep>,
        inputs: bool,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        for (name, value) in obj {
            let field = schema.get(name);
            if inputs && (field.is_some_and(TfField::computed_only) || value.is_null()) {
                continue;
            }
            let info = fields.and_then(|f| f.get(name));
            path.push(PathStep::Key(name.clone()));
            if let Some(v) = self.value(value, field, info, path, inputs) {
                out.insert(pulumi_name(name, field, info), v);
            }
            path.pop();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::TfElement;
    use serde_json::json;

    fn f(t: ValueType) -> TfField {
        TfField { type_: t, optional: true, ..Default::default() }
    }

    #[test]
    fn names_and_shapes_follow_the_bridge() {
        assert_eq!(camel_case("min_lower"), "minLower");
        assert_eq!(camel_case("override_special"), "overrideSpecial");
        assert_eq!(
            (plural("rule"), plural("policy"), plural("tags"), plural("match"), plural("key")),
            ("rules".into(), "policies".into(), "tags".into(), "matches".into(), "keys".into())
        );
        let block = BTreeMap::from([
            ("days".to_string(), f(ValueType::Int)),
            (
                "arn".to_string(),
                TfField { type_: ValueType::String, computed: true, ..Default::default() },
            ),
        ]);
        let schema = BTreeMap::from([
            ("bucket".to_string(), f(ValueType::String)),
            (
                "arn".to_string(),
                TfField { type_: ValueType::String, computed: true, ..Default::default() },
            ),
            (
                "versioning".to_string(),
                TfField {
                    type_: ValueType::List,
                    optional: true,
                    max_items: 1,
                    element: Some(Box::new(TfElement {
                        resource: Some(block.clone()),
                        schema: None,
                    })),
                    ..Default::default()
                },
            ),
            (
                "lifecycle_rule".to_string(),
                TfField {
                    type_: ValueType::List,
                    optional: true,
                    element: Some(Box::new(TfElement { resource: Some(block), schema: None })),
                    ..Default::default()
                },
            ),
            (
                "tags".to_string(),
                TfField {
                    type_: ValueType::Map,
                    optional: true,
                    element: Some(Box::new(TfElement {
                        schema: Some(f(ValueType::String)),
                        resource: None,
                    })),
                    ..Default::default()
                },
            ),
            ("password".to_string(), f(ValueType::String)),
            ("policy".to_string(), f(ValueType::String)),
        ]);
        let fields = BTreeMap::from([(
            "policy".to_string(),
            FieldInfo { name: Some("bucketPolicy".into()), ..Default::default() },
        )]);
        let attributes = json!({"id": "b-1", "bucket": "logs", "arn": "arn:aws:s3:::logs", "versioning": [{"days": 3, "arn": "x"}],
            "lifecycle_rule": [{"days": 1}, {"days": 2}], "tags": {"team_name": "a"}, "password": "hunter2", "policy": null, "brand_new": 1});
        let sensitive = BTreeSet::from([vec![PathStep::Key("password".into())]]);
        let t = translate(
            attributes.as_object().unwrap(),
            &schema,
            &fields,
            &sensitive,
            program_secret,
        );
        assert_eq!(
            Value::Object(t.inputs.clone()),
            json!({"bucket": "logs", "versioning": {"days": 3}, "lifecycleRules": [{"days": 1}, {"days": 2}], "tags": {"team_name": "a"},
                   "password": {"fn::secret": "hunter2"}})
        );
        assert_eq!(
            t.outputs["arn"], "arn:aws:s3:::logs",
            "computed attributes stay in what was recorded"
        );
        assert_eq!(t.outputs["id"], "b-1");
        assert!(t.outputs.contains_key("bucketPolicy"), "the mapping's name");
        assert_eq!(t.unknown, ["brand_new"]);
        assert!(t.has_secrets);
    }
}
