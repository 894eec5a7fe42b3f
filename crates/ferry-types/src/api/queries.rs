//! The query strings of the API's endpoints that have no other home than the endpoint that reads
//! them. Each endpoint declares its query type (`.query::<…>()` in [`super::endpoints`]'s list),
//! the server reads exactly that type, and the OpenAPI document lists its fields as the
//! endpoint's query parameters, each with its schema and these comments.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SourceKind;

/// Whether a field holds its default, which a URL leaves out (the server reads it back as such).
pub(crate) fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// `?version=`: one version of a stack.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VersionQuery {
    /// The stack's version (default: its latest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// `?revision=`: one revision of a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RevisionQuery {
    /// The plan's revision (default: its latest; for comments, every revision's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
}

/// `POST /stacks`: the stack a state file is uploaded as.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UploadQuery {
    /// The stack's name, `org/project/stack` (default: the name the state's URNs carry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Moves a state whose URNs carry another stack's name to `name` (every URN renamed).
    #[serde(default, skip_serializing_if = "is_default")]
    pub force: bool,
}

/// `GET /backends/stacks`: which DIY backend to list, for which organisation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendQuery {
    /// The backend's URL, one an administrator allows the organisation.
    pub url: String,
    /// The organisation whose planners list it.
    pub org: String,
}

/// `GET /stacks/{id}/resource`: one resource of a version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceQuery {
    /// The resource's URN.
    pub urn: String,
    /// The stack's version (default: its latest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// `GET /stacks/{id}/resources`: one page of a version's resources, filtered and sorted on the
/// server. (Fields listed, not a flattened row query: flattened, a query string's numbers do
/// not parse.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RowsQuery {
    /// The stack's version (default: its latest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// Keeps the rows whose URN or ID holds this text (case-insensitive).
    #[serde(default, skip_serializing_if = "is_default")]
    pub filter: String,
    /// `type`, `name`, `urn` or `id`, with a leading `-` for descending; empty for state order.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sort: String,
    /// The first row of the page.
    #[serde(default, skip_serializing_if = "is_default")]
    pub offset: usize,
    /// At most this many rows (the service caps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `GET …/graph`: a stack's or a preview's graph, whole or summarised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GraphQuery {
    /// The stack's version (default: its latest; a preview's graph has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// The nodes and groups to open in a summarised graph, one key a line.
    #[serde(default, skip_serializing_if = "is_default")]
    pub expand: String,
    /// The whole graph, never summarised.
    #[serde(default, skip_serializing_if = "is_default")]
    pub full: bool,
}

impl GraphQuery {
    /// The nodes and groups to open in the summary; `None` asks for the whole graph.
    pub fn summary(&self) -> Option<HashSet<String>> {
        (!self.full)
            .then(|| self.expand.lines().filter(|k| !k.is_empty()).map(str::to_string).collect())
    }
}

/// `POST /markers`: what kind of text the body is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MarkersQuery {
    /// `spec` (an import spec's JSON) or `program` (Pulumi YAML).
    pub kind: SourceKind,
}

/// One result of a preview, by its URN.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UrnQuery {
    /// The resource's URN.
    pub urn: String,
}

/// `POST /previews/{id}/commit`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitQuery {
    /// For a program's plan, lets Ferry run its creates, updates, replacements and deletes.
    #[serde(default, skip_serializing_if = "is_default")]
    pub apply: bool,
}

/// `GET /orgs/{org}/audit`: a page of the organisation's audit log, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AuditQuery {
    /// The records after this sequence number.
    #[serde(default, skip_serializing_if = "is_default")]
    pub after: i64,
    /// At most this many records (default 1,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// `jsonl` exports the records as JSON lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// A Terraform migration's choices, beside its state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MigrationChoices {
    /// The plan's title (default: "Migrate from Terraform into <stack>").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Import instances Terraform marked tainted too (it would replace them at its next apply).
    #[serde(default, skip_serializing_if = "is_default")]
    pub include_tainted: bool,
    /// Import deposed objects too (older objects of a replacement, still to be destroyed).
    #[serde(default, skip_serializing_if = "is_default")]
    pub include_deposed: bool,
}
