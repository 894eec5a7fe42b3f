//! A Terraform or OpenTofu state's migration, as the API answers it and the browser shows it:
//! a row per instance (mapped to its Pulumi type, or why not) and the plan made of them.

use serde::{Deserialize, Serialize};

/// Whether an instance is a managed resource or a data source (a read-only lookup), as
/// Terraform writes it (`managed`, `data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Managed,
    Data,
}

/// What became of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// Imported, as its provider's mapping types it.
    Mapped,
    /// A data source: a read-only lookup, never imported.
    DataSource,
    /// Nobody maps its provider, or the mapping does not know its type.
    Unmapped,
    /// Marked for replacement by Terraform: imported only when asked.
    Tainted,
    /// An older object of a replacement, still to be destroyed: imported only when asked.
    Deposed,
}

/// One instance of the state, as the review table shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Terraform's address (with ` (deposed <key>)` for a deposed object).
    pub address: String,
    pub mode: Mode,
    pub terraform_type: String,
    /// The Pulumi type token, where a mapping gives one.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// The resource's name in the plan's program (for those it imports).
    pub name: Option<String>,
    /// Terraform's `id`.
    pub id: Option<String>,
    pub status: RowStatus,
    /// Why it is not imported, or what to know about it.
    pub reason: Option<String>,
    /// The Terraform provider's source address (`hashicorp/aws`).
    pub provider: String,
    /// The Pulumi package that would map it, where Ferry can tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Attributes the mapping's Terraform schema does not know (left out of the inputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_attributes: Vec<String>,
    /// Whether any of its values is sensitive (a secret in the program and the state).
    #[serde(default)]
    pub sensitive: bool,
    /// What it depends on that is not imported, each with why (`data.aws_region.current: a
    /// data source`): those dependencies are not in the program, which says so above it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies_not_imported: Vec<String>,
}

/// What `POST /api/v1/stacks/{id}/migrations/terraform` answers: the plan (none when no
/// instance maps) and every instance's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MigrationView {
    pub plan: Option<MigratedPlan>,
    pub resources: Vec<Row>,
}

/// The plan a migration made (the API's answer carries the whole plan; this is what the browser
/// needs of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigratedPlan {
    pub id: String,
    pub title: String,
}

/// A Terraform or OpenTofu state where its backend keeps it, as `POST
/// /api/v1/stacks/{id}/migrations/terraform/remote` takes it: an S3 backend's object, or a
/// local backend's file on the server's machine, in a location an administrator allows the
/// stack's organisation (read only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteState {
    /// The default workspace's state: `s3://<bucket>/<key>?endpoint=…&region=…` (the S3
    /// backend's `bucket` and `key`, with the options Ferry's DIY S3 backends take), or
    /// `file:///<folder>/terraform.tfstate`.
    pub url: String,
    /// The workspace whose state to read; `default` (or none) is the state at `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Where an S3 backend keeps the other workspaces' states (`<prefix>/<workspace>/<key>`):
    /// the backend's `workspace_key_prefix`, `env:` unless its configuration sets another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_key_prefix: Option<String>,
}

/// One workspace of a Terraform backend, and where its state is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    pub name: String,
    pub url: String,
}

/// What `GET /api/v1/stacks/{id}/migrations/terraform/workspaces?url=&workspace_key_prefix=`
/// answers: the workspaces with a state, `default` first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspaces {
    pub workspaces: Vec<Workspace>,
}
