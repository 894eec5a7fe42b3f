//! What a preview finds for each resource, as words on the wire: an import spec entry's status,
//! a program step's operation (Pulumi's step operations), the one a results row shows, and
//! each property's kind of change and its cause. The engine's steps use these types as they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What became of an entry of an import spec: the statuses only a spec's planned imports have
/// (a program's import either goes ahead or is an error).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ImportStatus {
    Ready,
    /// Ready, with Check failures or a Diff the provider reported: committed all the same, as
    /// `pulumi import` does.
    ReadyWithWarnings,
    NotFound,
    Failed,
    /// Same URN and ID already in the stack: skipped.
    AlreadyManaged,
    /// Same URN in the stack with another ID.
    Conflict,
}

impl ImportStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ImportStatus::Ready => "ready",
            ImportStatus::ReadyWithWarnings => "ready-with-warnings",
            ImportStatus::NotFound => "not-found",
            ImportStatus::Failed => "failed",
            ImportStatus::AlreadyManaged => "already-managed",
            ImportStatus::Conflict => "conflict",
        }
    }

    /// Whether a commit adds the resource.
    pub fn is_ready(self) -> bool {
        matches!(self, ImportStatus::Ready | ImportStatus::ReadyWithWarnings)
    }
}

impl std::fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Pulumi's step operations: what a deployment does to a resource.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StepOp {
    /// Unchanged.
    Same,
    Create,
    Update,
    /// The marker that a resource is being replaced (its create and delete are separate steps).
    Replace,
    /// The new resource of a replacement.
    CreateReplacement,
    /// The old resource of a replacement, deleted.
    DeleteReplaced,
    /// Gone from the program: deleted.
    Delete,
    /// The `import` option: an existing resource adopted into the stack.
    Import,
    /// The `import` option with another ID than the stack holds: the old one is deleted and the
    /// given one imported.
    ImportReplacement,
    /// `get`: an external resource read, not managed.
    Read,
    /// `get` of a resource the stack manages under another ID: the managed one is deleted.
    ReadReplacement,
    /// `get` of a resource the stack manages with the same ID: released from management,
    /// kept as an external reference (nothing is deleted).
    Relinquish,
}

impl StepOp {
    /// Whether the step changes anything outside the stack when executed.
    pub fn mutates(self) -> bool {
        matches!(
            self,
            StepOp::Create
                | StepOp::Update
                | StepOp::CreateReplacement
                | StepOp::DeleteReplaced
                | StepOp::Delete
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StepOp::Same => "same",
            StepOp::Create => "create",
            StepOp::Update => "update",
            StepOp::Replace => "replace",
            StepOp::CreateReplacement => "create-replacement",
            StepOp::DeleteReplaced => "delete-replaced",
            StepOp::Delete => "delete",
            StepOp::Import => "import",
            StepOp::ImportReplacement => "import-replacement",
            StepOp::Read => "read",
            StepOp::ReadReplacement => "read-replacement",
            StepOp::Relinquish => "relinquish",
        }
    }
}

impl std::fmt::Display for StepOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of a resource in a preview, as its results and its job's events say: an import
/// spec entry's status, or a program step's operation. Written as its word (`ready`,
/// `not-found`, `import`, `create`, …); the two sets share none.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(untagged)]
pub enum ResultStatus {
    Import(ImportStatus),
    Step(StepOp),
}

impl ResultStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Import(status) => status.as_str(),
            ResultStatus::Step(op) => op.as_str(),
        }
    }
}

impl std::fmt::Display for ResultStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of change a property sees, from the resource's current value to the program's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiffKind {
    /// No change.
    None,
    Add,
    Delete,
    Update,
    /// A change the provider can only make by replacing the resource.
    Replace,
}

/// Why a property differs (or looks like it does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiffCause {
    /// Values agree.
    Equal,
    /// The program sets a value the resource does not have (a real difference).
    Program,
    /// The program leaves it out; the provider's `Check` filled in a default.
    ProviderDefault,
    /// The program leaves it out and Read returned a zero value (`""`, `0`, `false`, `[]`,
    /// `{}`): a provider that invents values for unset properties (2022 import notes).
    ZeroValue,
    /// The program leaves it out and the resource has a value.
    Missing,
    /// Listed in `ignoreChanges`: the resource's value is kept.
    Ignored,
}

impl DiffKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiffKind::None => "none",
            DiffKind::Add => "add",
            DiffKind::Delete => "delete",
            DiffKind::Update => "update",
            DiffKind::Replace => "replace",
        }
    }
}

impl DiffCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DiffCause::Equal => "equal",
            DiffCause::Program => "program",
            DiffCause::ProviderDefault => "provider-default",
            DiffCause::ZeroValue => "zero-value",
            DiffCause::Missing => "missing",
            DiffCause::Ignored => "ignored",
        }
    }
}
