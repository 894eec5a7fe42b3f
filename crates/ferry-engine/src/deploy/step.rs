//! Steps: what a deployment does to each resource (Pulumi's step operations), with the
//! per-property diff that explains why. A preview is a list of these; it is a value.

/// Pulumi's placeholder for an ID not known during a preview.
pub const UNKNOWN_ID: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::program::Pos;
use ferry_property::json::{decode_map, encode_map, DecodeOptions, EncodeOptions, SecretEncoding};
use ferry_property::PropertyMap;

/// A property the provider's `Check` refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFailure {
    pub property: String,
    pub reason: String,
}

/// `Check: <property>: <reason>` (or `Check: <reason>` for the whole resource): how a warning
/// and a review row tell it.
impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.property.is_empty() {
            write!(f, "Check: {}", self.reason)
        } else {
            write!(f, "Check: {}: {}", self.property, self.reason)
        }
    }
}

pub use ferry_types::{ImportStatus, ResultStatus, StepOp};

/// What kind of change a property sees, and why: the protocol's types, which a preview's
/// results carry to the browser as they are.
pub use ferry_types::{DiffCause, DiffKind};

/// One property of one resource, with where each of its values came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropertyDiff {
    /// Top-level name or a path (`tags.team`) as the provider reports it.
    pub path: String,
    pub kind: DiffKind,
    pub cause: DiffCause,
    /// The program's (or spec's) value; absent when the program leaves it out. Secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<Value>,
    /// The resource's current input: what Read returned (imports, reads) or what the stack
    /// records (updates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<Value>,
    /// The value after the provider's `Check` (defaults applied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<Value>,
}

/// One step of a deployment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub op: StepOp,
    pub urn: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// The program's name for the resource.
    pub name: String,
    /// A planned import's outcome (an entry of an import spec); `None` for a program's steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ImportStatus>,
    /// A planned import's position in the spec's `resources`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_index: Option<usize>,
    /// The parent's URN (none for the stack's root and default providers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// A component resource (state only: no provider manages it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub component: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_id: Option<String>,
    /// The resource's ID once known (imports, reads, unchanged resources, executed creates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_id: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delete_before_replace: bool,
    /// Delete steps that only drop the resource from the stack (`retainOnDelete`, external).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub state_only: bool,
    /// Properties the provider's Diff named as changed, and those forcing replacement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<PropertyDiff>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check_failures: Vec<CheckFailure>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why this step cannot go ahead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An import's inputs and outputs as the stack will record them, secrets masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Value>,
    /// Where the program declares the resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// How an identifying preview tried this would-be create as an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identification: Option<ferry_types::identify::IdAttempt>,
}

impl Step {
    pub fn new(op: StepOp, urn: &str, type_: &str, name: &str) -> Step {
        Step {
            op,
            urn: urn.to_string(),
            type_: type_.to_string(),
            name: name.to_string(),
            status: None,
            spec_index: None,
            parent: None,
            component: false,
            provider: None,
            old_id: None,
            id: None,
            import_id: None,
            delete_before_replace: false,
            state_only: false,
            changed: Vec::new(),
            replace_keys: Vec::new(),
            diffs: Vec::new(),
            check_failures: Vec::new(),
            warnings: Vec::new(),
            error: None,
            inputs: None,
            outputs: None,
            line: None,
            identification: None,
        }
    }

    pub fn at(mut self, pos: Option<Pos>) -> Step {
        self.line = pos.map(|p| p.line);
        self
    }

    /// What a reader is told beside the status: why the step cannot go ahead, or that a planned
    /// import was skipped.
    pub fn message(&self) -> Option<String> {
        self.error.clone().or_else(|| {
            (self.status == Some(ImportStatus::AlreadyManaged)).then(|| match &self.old_id {
                Some(id) => format!("already in the stack (as ID `{id}`); skipped"),
                None => "already in the stack; skipped".to_string(),
            })
        })
    }

    /// What the step amounts to, as shown: a planned import's status, else the operation.
    pub fn result_status(&self) -> ResultStatus {
        match self.status {
            Some(s) => ResultStatus::Import(s),
            None => ResultStatus::Step(self.op),
        }
    }
}

/// A resource as the stack will record it after the deployment. Serialised (secrets in
/// plaintext) only into a preview's sealed payload, which the server's key encrypts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceState {
    pub urn: String,
    pub type_: String,
    pub custom: bool,
    pub id: Option<String>,
    #[serde(with = "plaintext_map")]
    pub inputs: PropertyMap,
    #[serde(with = "plaintext_map")]
    pub outputs: PropertyMap,
    pub parent: Option<String>,
    /// `urn::id`.
    pub provider: Option<String>,
    pub dependencies: Vec<String>,
    pub property_dependencies: BTreeMap<String, BTreeSet<String>>,
    pub protect: bool,
    pub external: bool,
    pub delete_before_replace: bool,
    pub retain_on_delete: bool,
    pub import_id: Option<String>,
    /// The old state entry this continues: its timestamps and the fields Ferry does not model
    /// are kept.
    pub base: Option<usize>,
    /// The old entry (`base`) is written back exactly as it was, field for field and with its
    /// secrets still encrypted: a resource an imports-scope plan leaves alone.
    pub verbatim: bool,
}

impl ResourceState {
    /// A resource with nothing set but its URN, type and the base entry it continues.
    pub fn bare(urn: String, type_: String, base: Option<usize>) -> ResourceState {
        ResourceState {
            urn,
            type_,
            custom: false,
            id: None,
            inputs: PropertyMap::new(),
            outputs: PropertyMap::new(),
            parent: None,
            provider: None,
            dependencies: Vec::new(),
            property_dependencies: BTreeMap::new(),
            protect: false,
            external: false,
            delete_before_replace: false,
            retain_on_delete: false,
            import_id: None,
            base,
            verbatim: false,
        }
    }

    /// The base's resource `base`, kept exactly as stored, known only by its position: what a
    /// commit needs of it (it takes the stored resource), without carrying it around. What a
    /// step leaves as it is (or an imports-scope program does not declare) is kept so: nothing
    /// is decoded (its secrets need no passphrase) and nothing copied, so a plan over a big
    /// stack costs what it changes, not the stack.
    pub fn kept(base: usize) -> ResourceState {
        ResourceState {
            verbatim: true,
            ..ResourceState::bare(String::new(), String::new(), Some(base))
        }
    }

    /// The base entry this state is written as, when it is kept verbatim: its fields are the
    /// entry's (a [`ResourceState::kept`] carries no copy of them).
    pub fn kept_entry<'a>(
        &self,
        base: &'a [ferry_state::deployment::Resource],
    ) -> Option<&'a ferry_state::deployment::Resource> {
        self.base.filter(|_| self.verbatim).and_then(|i| base.get(i))
    }

    /// The URN this state is written under (a kept state's is its base entry's).
    pub fn urn_in<'a>(&'a self, base: &'a [ferry_state::deployment::Resource]) -> &'a str {
        self.kept_entry(base).map_or(self.urn.as_str(), |r| r.urn.as_str())
    }
}

/// A property map as state JSON with secrets in plaintext: the sealed payload's encoding.
mod plaintext_map {
    use super::*;

    pub fn serialize<S: serde::Serializer>(
        map: &PropertyMap,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        encode_map(
            map,
            &EncodeOptions { secrets: SecretEncoding::Plaintext, ..EncodeOptions::wire() },
        )
        .serialize(serializer)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<PropertyMap, D::Error> {
        let json = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        decode_map(&json, "", &DecodeOptions::default()).map_err(serde::de::Error::custom)
    }
}
