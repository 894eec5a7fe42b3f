//! Discovery's data: what to list, what listing found (each result marked managed here, in
//! another stack, or not), what can be listed, and what a quick `Read` says of a result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::JobStatus;

/// One resource type to list, with its filter (the schema's `listInputs`) and paging.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeQuery {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub query: Map<String, Value>,
    /// At most this many results of the type (all of them when unset).
    #[serde(default)]
    pub limit: Option<i64>,
    /// Results per `List` call.
    #[serde(default)]
    pub page_size: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct DiscoveryRequest {
    pub types: Vec<TypeQuery>,
}

/// Whether a listed resource is already managed, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Managed {
    /// By this stack: same type and ID.
    InThisStack {
        urn: String,
    },
    /// By the latest version of another stack of the same organisation (another
    /// organisation's stacks are never looked at).
    InOtherStack {
        stack_id: String,
        stack: String,
        urn: String,
    },
    Unmanaged,
}

/// One thing `List` found.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Discovered {
    #[serde(rename = "type")]
    pub type_: String,
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub managed: Managed,
}

/// What a discovery reports, in order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DiscoveryEvent {
    Result(Discovered),
    /// A page of a type came back (the count so far).
    Page {
        #[serde(rename = "type")]
        type_: String,
        listed: usize,
    },
    /// The type's query holds unknowns, so the provider cannot list it now.
    Computed {
        #[serde(rename = "type")]
        type_: String,
    },
    /// The provider has no `List` for the type.
    NotListable {
        #[serde(rename = "type")]
        type_: String,
        message: String,
    },
    /// Listing the type failed; the other types go on.
    Failed {
        #[serde(rename = "type")]
        type_: String,
        message: String,
    },
}

/// A discovery as the API reports it: its job's status, and every event so far.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DiscoveryView {
    pub id: String,
    pub stack_id: String,
    pub status: JobStatus,
    pub types: Vec<String>,
    pub found: usize,
    pub events: Vec<DiscoveryEvent>,
    pub error: Option<String>,
}

/// A resource type that can be listed, and the filter it takes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListableType {
    #[serde(rename = "type")]
    pub type_: String,
    pub package: String,
    /// The schema's `listInputs`: the filter `List` takes (none for a type found by a probe).
    pub list_inputs: ListInputs,
    /// Whether the schema declares the type listable, or `List` answered without it.
    pub source: ListSource,
}

/// A type's `listInputs` as its package's schema writes it (an object type): the filter's
/// properties, in the schema's order, each with its property schema, and which are required.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListInputs {
    #[serde(default)]
    pub properties: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
}

/// How Ferry learnt that a type can be listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ListSource {
    /// The schema declares it (`listInputs`).
    Schema,
    /// The schema does not, but `List` answered.
    Probe,
}

/// A package whose plugin lists nothing, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct UnlistablePackage {
    pub package: String,
    pub reason: String,
}

/// What a stack's providers can list.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Listables {
    pub types: Vec<ListableType>,
    pub packages_without_list: Vec<UnlistablePackage>,
}

/// What a quick `Read` says of a listed resource.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ProbeItem {
    #[serde(rename = "type")]
    pub type_: String,
    pub id: String,
}

/// What a quick `Read` of a listed resource answered.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ProbeResult {
    #[serde(rename = "type")]
    pub type_: String,
    pub id: String,
    pub outcome: ProbeOutcome,
    pub message: Option<String>,
}

/// Whether a listed resource reads back (and so can be imported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeOutcome {
    Found,
    NotFound,
    Failed,
}

impl ProbeOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeOutcome::Found => "found",
            ProbeOutcome::NotFound => "not-found",
            ProbeOutcome::Failed => "failed",
        }
    }
}

/// A selected result, to become an entry of a plan's spec.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Selected {
    #[serde(rename = "type")]
    pub type_: String,
    pub id: String,
    #[serde(default)]
    pub name: String,
}
