//! The shapes Ferry's server hands to its browser UI and API clients. Plain serde types, so
//! the wasm front end shares them without linking anything server-side.

use serde::{Deserialize, Serialize};

/// A stack and its latest (or a chosen) version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackSummary {
    pub id: String,
    pub name: String,
    pub version: i64,
    pub resources: i64,
    /// What made the version: `upload`, `demo`, later `commit`.
    pub origin: String,
    /// The layout the state arrived in, e.g. `checkpoint v1`.
    pub source_format: String,
    pub created_at: String,
    pub updated_at: String,
}

/// One row of a stack's resource table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceRow {
    pub urn: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub name: String,
    pub id: Option<String>,
    /// The provider's URN (without the `::<id>` of the reference).
    pub provider: Option<String>,
    pub parent: Option<String>,
    pub protect: bool,
    pub custom: bool,
    pub pending_delete: bool,
}

/// Everything the detail panel shows of one resource. Secrets are already masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceDetail {
    #[serde(flatten)]
    pub row: ResourceRow,
    /// Pretty-printed JSON of the inputs, secrets replaced by `"[secret]"`.
    pub inputs: String,
    pub outputs: String,
    pub dependencies: Vec<String>,
    pub secrets: usize,
}

/// One resource a preview job finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEvent {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// `ready`, `not-found`, … for imports; the step's operation for programs.
    pub status: String,
    #[serde(default)]
    pub message: Option<String>,
}

/// A preview job as the API reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSnapshot {
    pub id: String,
    /// `running`, `done`, `failed`, `cancelled`.
    pub status: String,
    pub total: usize,
    pub finished: usize,
    pub events: Vec<JobEvent>,
    #[serde(default)]
    pub preview_id: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// What a plan's page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanPageData {
    pub id: String,
    pub title: String,
    pub stack_id: String,
    pub stack_name: String,
    pub revision: i64,
    pub spec: Option<String>,
    pub program: Option<String>,
    /// The latest preview job of this plan in this server process.
    pub job: Option<JobSnapshot>,
}
