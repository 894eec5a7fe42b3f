//! A Terraform or OpenTofu state's migration, as the API answers it and the browser shows it:
//! a row per instance (mapped to its Pulumi type, or why not) and the plan made of them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether an instance is a managed resource or a data source (a read-only lookup), as
/// Terraform writes it (`managed`, `data`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Managed,
    Data,
}

/// What became of an instance.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The resource block it came from, when the configuration was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<ConfigurationSource>,
    /// What the configuration says that the program does not follow, each with why (the
    /// state contradicts it, a reference to what is not imported): never guessed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configuration_notes: Vec<String>,
}

/// One file of a Terraform configuration, as a migration takes it: its path inside the
/// configuration's folder (`main.tf`, `modules/web/main.tf`) and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigurationFile {
    pub path: String,
    pub text: String,
}

/// Where a resource is declared in the configuration: the file, the block's first line
/// (from 1), and the block's text as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigurationSource {
    pub file: String,
    pub line: usize,
    pub text: String,
}

/// What a migration made (`POST …/migrations/terraform` answers it): the plan (none when no
/// instance maps) and every instance's row.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MigrationView {
    pub plan: Option<crate::plans::PlanView>,
    pub resources: Vec<Row>,
    /// What the configuration holds that no row shows (a resource the state lacks, a module
    /// Ferry cannot read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The lines of `program` (a migration's YAML) that declare the resource `name`, with the
/// comments above it: what a row becomes, shown beside the configuration it came from.
pub fn resource_in_program(program: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = program.lines().collect();
    let quoted = serde_json::Value::String(name.to_string()).to_string();
    let start =
        lines.iter().position(|l| *l == format!("  {name}:") || *l == format!("  {quoted}:"))?;
    // The comments just above it belong to it (its address, what it depends on).
    let mut first = start;
    while first > 0 && lines[first - 1].starts_with("  #") {
        first -= 1;
    }
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.starts_with("   ") && !l.is_empty())
        .map_or(lines.len(), |n| start + 1 + n);
    Some(lines[first..end].join("\n"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_resource_is_found_in_its_program_with_its_comments() {
        let program = "name: p\nresources:\n  # terraform: a.b\n  b:\n    type: x\n    properties:\n      k: 1\n  # terraform: a.c\n  \"c d\":\n    type: y\n";
        assert_eq!(
            super::resource_in_program(program, "b").unwrap(),
            "  # terraform: a.b\n  b:\n    type: x\n    properties:\n      k: 1"
        );
        assert_eq!(
            super::resource_in_program(program, "c d").unwrap(),
            "  # terraform: a.c\n  \"c d\":\n    type: y"
        );
        assert_eq!(super::resource_in_program(program, "nope"), None);
    }
}

/// A Terraform or OpenTofu state where its backend keeps it, as `POST
/// /api/v1/stacks/{id}/migrations/terraform/remote` takes it: an S3 backend's object, or a
/// local backend's file on the server's machine, in a location an administrator allows the
/// stack's organisation (read only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Workspace {
    pub name: String,
    pub url: String,
}

/// What `GET /api/v1/stacks/{id}/migrations/terraform/workspaces?url=&workspace_key_prefix=`
/// answers: the workspaces with a state, `default` first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Workspaces {
    pub workspaces: Vec<Workspace>,
}
