//! Steps: what a deployment does to each resource (Pulumi's step operations), with the
//! per-property diff that explains why. A preview is a list of these; it is a value.

/// Pulumi's placeholder for an ID not known during a preview.
pub const UNKNOWN_ID: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use ferry_property::json::{decode_map, encode_map, DecodeOptions, EncodeOptions, SecretEncoding};
use ferry_property::PropertyMap;

pub use ferry_types::{ImportStatus, ResultStatus, StepOp};

/// What kind of change a property sees, and why: the protocol's types, which a preview's
/// results carry to the browser as they are.
pub use ferry_types::{DiffCause, DiffKind};

/// A deployment's steps are the protocol's: the engine makes them, clients read them as they are.
pub use ferry_types::deployment::{CheckFailure, PropertyDiff, Step};

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
