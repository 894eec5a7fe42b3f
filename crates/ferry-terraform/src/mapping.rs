//! The mapping a provider plugin gives for Terraform (`GetMapping` with key `terraform`): the
//! bridge's provider info. For each Terraform resource type its Pulumi type token and field
//! overrides, and the Terraform schema itself (each field's type, whether it is optional,
//! required or computed, its maximum items, and the element of a list, set or map). Unknown
//! keys are ignored, as the bridge adds them over time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::TerraformError;

/// A Terraform value type, as the bridge numbers them (helper/schema's `ValueType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueType {
    #[default]
    Invalid,
    Bool,
    Int,
    Float,
    String,
    List,
    Map,
    Set,
}

impl ValueType {
    fn from_number(n: i64) -> ValueType {
        match n {
            1 => ValueType::Bool,
            2 => ValueType::Int,
            3 => ValueType::Float,
            4 => ValueType::String,
            5 => ValueType::List,
            6 => ValueType::Map,
            7 => ValueType::Set,
            _ => ValueType::Invalid,
        }
    }

    fn number(self) -> i64 {
        match self {
            ValueType::Invalid => 0,
            ValueType::Bool => 1,
            ValueType::Int => 2,
            ValueType::Float => 3,
            ValueType::String => 4,
            ValueType::List => 5,
            ValueType::Map => 6,
            ValueType::Set => 7,
        }
    }
}

impl<'de> Deserialize<'de> for ValueType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ValueType::from_number(i64::deserialize(d)?))
    }
}

impl Serialize for ValueType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.number())
    }
}

/// One field of a Terraform schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TfField {
    #[serde(rename = "type", default)]
    pub type_: ValueType,
    #[serde(default)]
    pub optional: bool,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub computed: bool,
    #[serde(default)]
    pub force_new: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<Box<TfElement>>,
    #[serde(default)]
    pub max_items: i64,
    #[serde(default)]
    pub min_items: i64,
    /// Newer bridges add it; older ones leave sensitivity to the Pulumi side's `secret`.
    #[serde(default)]
    pub sensitive: bool,
}

impl TfField {
    /// Computed only: the provider sets it, a program never does.
    pub fn computed_only(&self) -> bool {
        self.computed && !self.optional && !self.required
    }

    /// A list or set of blocks that holds at most one: a single object in Pulumi.
    pub fn max_one(&self) -> bool {
        matches!(self.type_, ValueType::List | ValueType::Set) && self.max_items == 1
    }

    /// The block's fields, for a list or set of blocks.
    pub fn block(&self) -> Option<&BTreeMap<String, TfField>> {
        self.element.as_deref().and_then(|e| e.resource.as_ref())
    }
}

/// What a list, set or map holds: values of one schema, or blocks with fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TfElement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<TfField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<BTreeMap<String, TfField>>,
}

/// The Terraform provider's schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TfProvider {
    #[serde(default)]
    pub schema: BTreeMap<String, TfField>,
    #[serde(default)]
    pub resources: BTreeMap<String, BTreeMap<String, TfField>>,
    #[serde(default)]
    pub data_sources: BTreeMap<String, BTreeMap<String, TfField>>,
}

/// The Pulumi side of a field: its name, and how its value is shaped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items_one: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<Box<FieldInfo>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, FieldInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<bool>,
}

/// A Terraform resource type's Pulumi type and field overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceInfo {
    pub tok: String,
    #[serde(default)]
    pub fields: BTreeMap<String, FieldInfo>,
}

/// A provider's mapping for Terraform, as its plugin gives it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderMapping {
    /// The Pulumi package.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub provider: TfProvider,
    #[serde(default)]
    pub resources: BTreeMap<String, ResourceInfo>,
    #[serde(default)]
    pub data_sources: BTreeMap<String, serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tf_provider_version: Option<String>,
}

impl ProviderMapping {
    /// Reads `GetMapping`'s `data`; `None` for empty data (the plugin maps nothing for it).
    pub fn parse(data: &[u8], plugin: &str) -> Result<Option<ProviderMapping>, TerraformError> {
        if data.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        serde_json::from_slice(data).map(Some).map_err(|e| TerraformError {
            message: format!("the `{plugin}` plugin's Terraform mapping does not read: {e}"),
            path: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridges_format_reads_and_unknown_keys_are_ignored() {
        let data = br#"{"name": "random", "version": "4.16.0", "tfProviderVersion": "3.6.0", "futureKey": 1,
          "provider": {"resources": {"random_string": {
             "length": {"type": 2, "required": true, "forceNew": true},
             "result": {"type": 4, "computed": true},
             "keepers": {"type": 6, "optional": true, "element": {"schema": {"type": 4}}},
             "rule": {"type": 5, "optional": true, "maxItems": 1, "element": {"resource": {"min": {"type": 2, "optional": true}}}}}}},
          "resources": {"random_string": {"tok": "random:index/randomString:RandomString", "fields": {"result": {"secret": true}}, "idFields": []}}}"#;
        let m = ProviderMapping::parse(data, "random").unwrap().unwrap();
        let schema = &m.provider.resources["random_string"];
        assert_eq!(schema["length"].type_, ValueType::Int);
        assert!(schema["result"].computed_only() && !schema["length"].computed_only());
        assert!(schema["rule"].max_one());
        assert_eq!(schema["rule"].block().unwrap()["min"].type_, ValueType::Int);
        assert_eq!(m.resources["random_string"].tok, "random:index/randomString:RandomString");
        assert_eq!(m.resources["random_string"].fields["result"].secret, Some(true));
        assert_eq!(ProviderMapping::parse(b"", "x").unwrap(), None);
        assert!(ProviderMapping::parse(b"{", "x").unwrap_err().message.contains("`x` plugin"));
    }
}
