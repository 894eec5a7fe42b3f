//! Pulumi's property values: what resource inputs and outputs are made of, beyond JSON
//! (assets, archives, secrets, resource references, unknowns and output values), and their
//! two encodings: `google.protobuf.Struct` on the wire ([`wire`]) and JSON in state ([`json`]).

pub mod json;
pub mod wire;

use std::collections::BTreeMap;

/// Properties by name; sorted, as Pulumi orders them.
pub type PropertyMap = BTreeMap<String, PropertyValue>;

#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<PropertyValue>),
    Object(PropertyMap),
    Asset(Asset),
    Archive(Archive),
    /// A value whose contents are sensitive.
    Secret(Box<PropertyValue>),
    ResourceReference(ResourceReference),
    /// A value not known yet (during previews).
    Computed,
    /// An output: maybe known, maybe secret, with the resources it came from.
    Output(OutputValue),
}

impl PropertyValue {
    /// Whether the value holds `needle` as a string inside a secret (`in_secret`: the value
    /// itself is already inside one). An import ID that a secret output holds is a secret too.
    pub fn holds_secret_string(&self, needle: &str, in_secret: bool) -> bool {
        match self {
            PropertyValue::String(s) => in_secret && s == needle,
            PropertyValue::Secret(inner) => inner.holds_secret_string(needle, true),
            PropertyValue::Output(o) => o
                .element
                .as_ref()
                .is_some_and(|e| e.holds_secret_string(needle, in_secret || o.secret)),
            PropertyValue::Array(items) => {
                items.iter().any(|v| v.holds_secret_string(needle, in_secret))
            }
            PropertyValue::Object(map) => {
                map.values().any(|v| v.holds_secret_string(needle, in_secret))
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub hash: Option<String>,
    pub source: AssetSource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssetSource {
    Text(String),
    Path(String),
    Uri(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Archive {
    pub hash: Option<String>,
    pub source: ArchiveSource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArchiveSource {
    /// Named members, each an asset or an archive.
    Assets(BTreeMap<String, PropertyValue>),
    Path(String),
    Uri(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResourceReference {
    pub urn: String,
    /// The ID (a string, or `Computed` while unknown); `None` for component resources.
    pub id: Option<Box<PropertyValue>>,
    pub package_version: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OutputValue {
    /// `None` when the value is not known.
    pub element: Option<Box<PropertyValue>>,
    pub secret: bool,
    pub dependencies: Vec<String>,
}

impl PropertyValue {
    pub fn is_secret(&self) -> bool {
        matches!(self, PropertyValue::Secret(_))
            || matches!(self, PropertyValue::Output(o) if o.secret)
    }

    /// Whether any part of the value is not known yet.
    pub fn contains_unknowns(&self) -> bool {
        match self {
            PropertyValue::Computed => true,
            PropertyValue::Output(o) => o.element.as_ref().is_none_or(|e| e.contains_unknowns()),
            PropertyValue::Secret(v) => v.contains_unknowns(),
            PropertyValue::Array(items) => items.iter().any(PropertyValue::contains_unknowns),
            PropertyValue::Object(map) => map.values().any(PropertyValue::contains_unknowns),
            PropertyValue::ResourceReference(r) => {
                r.id.as_ref().is_some_and(|id| id.contains_unknowns())
            }
            _ => false,
        }
    }
}

/// A value that cannot be decoded, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at {path})")]
pub struct PropertyError {
    pub message: String,
    pub path: String,
}

impl PropertyError {
    pub(crate) fn new(path: &str, message: impl Into<String>) -> Self {
        PropertyError {
            message: message.into(),
            path: if path.is_empty() { ".".into() } else { path.into() },
        }
    }
}

pub(crate) fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(crate) fn index_path(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}
