//! The v3 deployment (`pulumi stack export`'s `deployment`): typed where Ferry uses a field,
//! with every other field carried through `extra` so that a round trip loses nothing.
//!
//! Presence is preserved: a field that was absent stays absent and one that was written
//! (even as `false` or `""`) is written again, which is why most fields are `Option`.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::properties::Properties;

/// The deployment: manifest, secrets provider, resources and pending operations.
///
/// `Deserialize` is written out below rather than derived: see [`read_object`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secrets_providers: Option<SecretsProviders>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<Resource>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_operations: Option<Vec<Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What Ferry records as the writer of the versions it writes, in the manifest's `version`.
pub const WRITER_VERSION: &str = concat!("ferry v", env!("CARGO_PKG_VERSION"));

impl Deployment {
    /// Records a new write in the manifest, as Pulumi does on every checkpoint it saves: the
    /// write's time (RFC 3339), the writer's version, and `magic`, the SHA-256 of that version
    /// in hex (Pulumi's tamper cookie). Other manifest fields (an old `plugins` list) are kept.
    pub fn record_write(&mut self, time: &str) {
        use sha2::Digest;
        let mut manifest = match self.manifest.take() {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let magic: String = sha2::Sha256::digest(WRITER_VERSION.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        manifest.insert("time".into(), Value::from(time));
        manifest.insert("magic".into(), Value::from(magic));
        manifest.insert("version".into(), Value::from(WRITER_VERSION));
        self.manifest = Some(Value::Object(manifest));
    }

    /// A copy of everything but the resources (a commit's new head, without copying the stack).
    pub fn without_resources(&self) -> Deployment {
        Deployment {
            manifest: self.manifest.clone(),
            secrets_providers: self.secrets_providers.clone(),
            resources: None,
            pending_operations: self.pending_operations.clone(),
            extra: self.extra.clone(),
        }
    }

    pub fn resources(&self) -> &[Resource] {
        self.resources.as_deref().unwrap_or(&[])
    }

    /// URN → position of the resource a reference to that URN means: the first live one, or a
    /// pending delete when nothing live carries the URN.
    pub fn reference_index(&self) -> std::collections::HashMap<&str, usize> {
        let resources = self.resources();
        reference_index_of(resources.len(), |i| &resources[i])
    }
}

/// [`Deployment::reference_index`] of the `n` resources `at` gives by position.
pub fn reference_index_of<'a>(
    n: usize,
    at: impl Fn(usize) -> &'a Resource,
) -> std::collections::HashMap<&'a str, usize> {
    let mut index = std::collections::HashMap::with_capacity(n);
    for i in 0..n {
        let r = at(i);
        let slot = index.entry(r.urn.as_str()).or_insert(i);
        if at(*slot).is_pending_delete() && !r.is_pending_delete() {
            *slot = i;
        }
    }
    index
}

/// Which secrets manager encrypted the `ciphertext`s, and its state (e.g. the passphrase salt).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecretsProviders {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One resource of the deployment (Pulumi's `ResourceV3`).
///
/// `Deserialize` is written out below rather than derived: see [`read_object`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resource {
    pub urn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Properties>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Properties>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protect: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, rename = "propertyDependencies", skip_serializing_if = "Option::is_none")]
    pub property_dependencies: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Resource {
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref().filter(|s| !s.is_empty())
    }
    pub fn parent(&self) -> Option<&str> {
        self.parent.as_deref().filter(|s| !s.is_empty())
    }
    pub fn provider(&self) -> Option<&str> {
        self.provider.as_deref().filter(|s| !s.is_empty())
    }
    pub fn is_custom(&self) -> bool {
        self.custom.unwrap_or(false)
    }
    pub fn is_protected(&self) -> bool {
        self.protect.unwrap_or(false)
    }
    pub fn is_pending_delete(&self) -> bool {
        self.delete.unwrap_or(false)
    }
    pub fn is_provider(&self) -> bool {
        self.type_.starts_with("pulumi:providers:")
    }
    /// The inputs' values, parsed (an empty map when the state has none).
    pub fn inputs_map(&self) -> Map<String, Value> {
        self.inputs.as_ref().map(Properties::to_map).unwrap_or_default()
    }

    /// The outputs' values, parsed (an empty map when the state has none).
    pub fn outputs_map(&self) -> Map<String, Value> {
        self.outputs.as_ref().map(Properties::to_map).unwrap_or_default()
    }

    /// About how many bytes this resource holds in memory: its own size and the text and values
    /// it points to (what a cache of parsed versions weighs them by: one resource may hold a
    /// hundred times another's).
    pub fn held_bytes(&self) -> usize {
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let properties = |p: &Option<Properties>| p.as_ref().map_or(0, Properties::held_bytes);
        std::mem::size_of::<Resource>()
            + self.urn.len()
            + self.type_.len()
            + text(&self.id)
            + text(&self.parent)
            + text(&self.provider)
            + properties(&self.inputs)
            + properties(&self.outputs)
            + self
                .dependencies
                .iter()
                .flatten()
                .map(|d| d.len() + std::mem::size_of::<String>())
                .sum::<usize>()
            + self
                .property_dependencies
                .iter()
                .chain(std::iter::once(&self.extra))
                .map(map_held_bytes)
                .sum::<usize>()
    }

    /// Every URN this resource depends on: `dependencies` and each `propertyDependencies` list
    /// (whose values may be `null` in real files).
    pub fn dependency_urns(&self) -> impl Iterator<Item = &str> {
        let deps = self.dependencies.iter().flatten().map(String::as_str);
        let prop_deps = self
            .property_dependencies
            .iter()
            .flat_map(|m| m.values())
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_str);
        deps.chain(prop_deps).filter(|s| !s.is_empty())
    }
}

/// About how many bytes a parsed JSON map holds: each entry's key, value and slot.
fn map_held_bytes(map: &Map<String, Value>) -> usize {
    map.iter()
        .map(|(k, v)| k.len() + value_held_bytes(v) + std::mem::size_of::<(String, Value)>())
        .sum()
}

fn value_held_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => {
            items.iter().map(|v| value_held_bytes(v) + std::mem::size_of::<Value>()).sum()
        }
        Value::Object(map) => map_held_bytes(map),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// Reads an object's entries in one pass: each key is given to `field`, which reads the value
/// of a typed field and answers `true`, or answers `false` to have it kept in `extra`.
///
/// Why not `#[serde(flatten)]`: flatten makes serde buffer the whole object in its private
/// `Content` form before reading any field, so a deployment's resources were copied twice on
/// their way in (for a 100,000-resource state, most of an upload's time).
fn read_object<'de, A: MapAccess<'de>>(
    mut map: A,
    extra: &mut Map<String, Value>,
    mut field: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        if !field(&key, &mut map)? {
            let value = map.next_value::<Value>()?;
            extra.insert(key, value);
        }
    }
    Ok(())
}

impl<'de> Deserialize<'de> for Deployment {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DeploymentVisitor;
        impl<'de> Visitor<'de> for DeploymentVisitor {
            type Value = Deployment;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Deployment")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Deployment, A::Error> {
                let mut d = Deployment {
                    manifest: None,
                    secrets_providers: None,
                    resources: None,
                    pending_operations: None,
                    extra: Map::new(),
                };
                let mut extra = Map::new();
                read_object(map, &mut extra, |key, map| {
                    match key {
                        "manifest" => d.manifest = map.next_value()?,
                        "secrets_providers" => d.secrets_providers = map.next_value()?,
                        "resources" => d.resources = map.next_value()?,
                        "pending_operations" => d.pending_operations = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                d.extra = extra;
                Ok(d)
            }
        }
        deserializer.deserialize_map(DeploymentVisitor)
    }
}

impl<'de> Deserialize<'de> for Resource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ResourceVisitor;
        impl<'de> Visitor<'de> for ResourceVisitor {
            type Value = Resource;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Resource")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Resource, A::Error> {
                let (mut urn, mut type_) = (None, None);
                let mut r = Resource {
                    urn: String::new(),
                    custom: None,
                    delete: None,
                    id: None,
                    type_: String::new(),
                    inputs: None,
                    outputs: None,
                    parent: None,
                    protect: None,
                    external: None,
                    dependencies: None,
                    provider: None,
                    property_dependencies: None,
                    extra: Map::new(),
                };
                let mut extra = Map::new();
                read_object(map, &mut extra, |key, map| {
                    match key {
                        "urn" => urn = Some(map.next_value::<String>()?),
                        "type" => type_ = Some(map.next_value::<String>()?),
                        "custom" => r.custom = map.next_value()?,
                        "delete" => r.delete = map.next_value()?,
                        "id" => r.id = map.next_value()?,
                        "inputs" => r.inputs = map.next_value()?,
                        "outputs" => r.outputs = map.next_value()?,
                        "parent" => r.parent = map.next_value()?,
                        "protect" => r.protect = map.next_value()?,
                        "external" => r.external = map.next_value()?,
                        "dependencies" => r.dependencies = map.next_value()?,
                        "provider" => r.provider = map.next_value()?,
                        "propertyDependencies" => r.property_dependencies = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                r.urn = urn.ok_or_else(|| de::Error::missing_field("urn"))?;
                r.type_ = type_.ok_or_else(|| de::Error::missing_field("type"))?;
                r.extra = extra;
                Ok(r)
            }
        }
        deserializer.deserialize_map(ResourceVisitor)
    }
}

/// The field names Pulumi's Go structs use, for case-insensitive key matching.
pub(crate) const DEPLOYMENT_KEYS: &[&str] =
    &["manifest", "secrets_providers", "resources", "pending_operations", "metadata"];
pub(crate) const RESOURCE_KEYS: &[&str] = &[
    "urn",
    "custom",
    "delete",
    "id",
    "type",
    "inputs",
    "outputs",
    "parent",
    "protect",
    "taint",
    "external",
    "dependencies",
    "initErrors",
    "provider",
    "propertyDependencies",
    "pendingReplacement",
    "additionalSecretOutputs",
    "aliases",
    "customTimeouts",
    "importID",
    "retainOnDelete",
    "deletedWith",
    "created",
    "modified",
    "sourcePosition",
    "stackTrace",
    "ignoreChanges",
    "replaceOnChanges",
    "refreshBeforeUpdate",
    "viewOf",
    "resourceHooks",
    "replaceWith",
];

/// Renames keys that differ from a known field name only in letter case (Go's JSON decoder
/// accepts `importId` for `importID`) to the canonical spelling, unless both are present.
pub(crate) fn canonicalize_keys(obj: &mut Map<String, Value>, known: &[&str]) {
    let renames: Vec<(String, &str)> = obj
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .filter_map(|k| {
            known
                .iter()
                .find(|c| c.eq_ignore_ascii_case(k))
                .map(|canonical| (k.clone(), *canonical))
        })
        .collect();
    for (from, to) in renames {
        if !obj.contains_key(to) {
            if let Some(v) = obj.remove(&from) {
                obj.insert(to.to_string(), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a cache weighs a resource by grows with the text and values it holds: 10 kB more
    /// output text weighs about 10 kB more, and every part counts.
    #[test]
    fn a_resource_weighs_what_it_holds() {
        let resource = |outputs: Value, extra: Value| -> Resource {
            let mut r = json!({"urn": "urn:pulumi:s::p::t:m:T::a", "type": "t:m:T", "custom": true, "id": "a", "outputs": outputs});
            r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            serde_json::from_value(r).unwrap()
        };
        let small = resource(json!({"x": "y"}), json!({}));
        let big = resource(json!({"x": "y".repeat(10_000)}), json!({}));
        let grown = big.held_bytes() - small.held_bytes();
        assert!((9_999..10_100).contains(&grown), "{grown}");
        let with_extra = resource(
            json!({"x": "y"}),
            json!({"sourcePosition": "z".repeat(1_000), "propertyDependencies": {"x": ["urn:1"]}}),
        );
        assert!(
            with_extra.held_bytes() > small.held_bytes() + 1_000,
            "{} vs {}",
            with_extra.held_bytes(),
            small.held_bytes()
        );
        assert!(small.held_bytes() >= std::mem::size_of::<Resource>() + small.urn.len());
    }

    #[test]
    fn keys_in_other_letter_case_are_canonicalised() {
        let mut obj = json!({"URN": "u", "importId": "x", "Type": "t", "other": 1});
        canonicalize_keys(obj.as_object_mut().unwrap(), RESOURCE_KEYS);
        assert_eq!(obj, json!({"urn": "u", "importID": "x", "type": "t", "other": 1}));
    }

    #[test]
    fn a_write_is_recorded_in_the_manifest_as_pulumi_records_it() {
        let mut d: Deployment =
            serde_json::from_value(json!({"manifest": {"time": "2020-01-01T00:00:00Z", "magic": "x", "version": "v3.1.0", "plugins": []}})).unwrap();
        d.record_write("2026-11-24T03:00:00Z");
        let m = d.manifest.unwrap();
        assert_eq!(
            (m["time"].clone(), m["version"].clone(), m["plugins"].clone()),
            (json!("2026-11-24T03:00:00Z"), json!(WRITER_VERSION), json!([]))
        );
        // Pulumi's cookie: the SHA-256 of the version, in hex (a real checkpoint's `v3.205.0`
        // carries 72caf200…, checked here the same way).
        use sha2::Digest;
        let hex = |v: &str| {
            sha2::Sha256::digest(v.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert!(hex("v3.205.0").starts_with("72caf200b8cb26dd"));
        assert_eq!(m["magic"], json!(hex(WRITER_VERSION)));
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let v = json!({"urn": "urn:pulumi:s::p::t::n", "type": "t", "custom": false,
                       "protect": false, "parent": "", "futureField": {"x": [1, 2]}});
        let r: Resource = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
