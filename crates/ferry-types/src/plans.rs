//! Plans' data: a plan, one of its revisions as the API shows it, and the options a revision
//! previews and writes code with (the engine and code generation take the same enums).

use serde::{Deserialize, Serialize};

use crate::Resolution;

/// What a program stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanScope {
    /// The program declares what to import or add; the stack's resources it does not declare
    /// are left exactly as they are (never deleted), and it may name them by URN as `parent`,
    /// `provider` and `dependsOn`. What a plan means by default: people planning an import
    /// write a snippet of what they import, not their whole program.
    Imports,
    /// Pulumi's semantics: the program is the whole stack, and what it does not declare is
    /// deleted.
    #[default]
    WholeStack,
}

impl PlanScope {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanScope::Imports => "imports",
            PlanScope::WholeStack => "whole-stack",
        }
    }
}

/// Which inputs an imported resource gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportStrategy {
    /// Pulumi's 2022 design: the inputs `Read` returned (limited by `properties`).
    #[default]
    Read,
    /// The older design: only the schema's required inputs, then the values `Diff` says differ
    /// from the read state, copied back — the smallest set of inputs that shows no diff.
    Minimal,
}

/// Which option the code carries for the import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeStyle {
    /// The stack already holds the resources (`pulumi import`, a Ferry commit): `protect`.
    #[default]
    Cli,
    /// The code imports them on `pulumi up`: the `import` option.
    CodeFirst,
}

impl CodeStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            CodeStyle::Cli => "cli",
            CodeStyle::CodeFirst => "code-first",
        }
    }
}

impl ImportStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            ImportStrategy::Read => "read",
            ImportStrategy::Minimal => "minimal",
        }
    }
}

/// What a plan's creation or a new revision sends (`POST …/plans`, `POST …/plans/{id}/revisions`):
/// the browser writes it, the API reads it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub spec: Option<String>,
    pub program: Option<String>,
    #[serde(default)]
    pub options: PlanOptions,
}

/// How a plan previews and writes code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanOptions {
    #[serde(default)]
    pub strategy: ImportStrategy,
    #[serde(default)]
    pub code_style: CodeStyle,
    #[serde(default = "yes")]
    pub elide: bool,
    /// What a program stands for: only what to import (the default for plans), or the whole
    /// stack. Specs are always imports.
    #[serde(default = "imports_scope")]
    pub scope: PlanScope,
    /// The resolutions chosen in review, latest last: they mark a property's source `user`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<Resolution>,
}

fn yes() -> bool {
    true
}

fn imports_scope() -> PlanScope {
    PlanScope::Imports
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { strategy: ImportStrategy::Read, code_style: CodeStyle::Cli, elide: true, scope: PlanScope::Imports, decisions: Vec::new() }
    }
}

/// A plan: its stack, title, author and latest revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub id: String,
    pub stack_id: String,
    pub title: String,
    pub created_at: String,
    /// The latest revision's number.
    pub revision: i64,
    /// Who created it (unknown for plans older than sign-in).
    pub author: Option<String>,
}

/// A plan with one of its revisions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanView {
    #[serde(flatten)]
    pub plan: Plan,
    pub current: RevisionView,
    /// Whether this view came through a read-only link.
    #[serde(default)]
    pub read_only: bool,
    /// Each resource's address in the tool it is migrated from (Terraform), by name, as the
    /// revision's program carries it: the review table shows it beside each row.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub origins: std::collections::BTreeMap<String, String>,
}

/// One revision of a plan: its text, options, and the previews it ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RevisionView {
    pub revision: i64,
    pub created_at: String,
    pub spec: Option<String>,
    pub program: Option<String>,
    pub options: PlanOptions,
    pub previews: Vec<String>,
}

/// A read-only link to a plan, as its planners see it: named by its ID. The token that opens it
/// is shown once, when it is made ([`NewShareLink`]); Ferry keeps only its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareLink {
    pub id: String,
    pub plan_id: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
    /// When the link stops working (links made before expiry existed have none).
    pub expires_at: Option<String>,
    /// Whether it still works (not revoked, not expired).
    pub active: bool,
}

/// A link just made: the link, and its token (`/shared/<token>`), shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewShareLink {
    #[serde(flatten)]
    pub link: ShareLink,
    pub token: String,
}
