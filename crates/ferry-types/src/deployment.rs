//! A deployment's plan as a value: every step the engine would take (Pulumi's step operations),
//! each property's difference and why, and a spec's view of it, one row per entry. The engine
//! makes these; the service stores them; the API answers them and the CLI prints them as they are.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plans::PlanScope;
use crate::{DiffCause, DiffKind, ImportStatus, ResultStatus, StepOp};

/// Whether a deployment only looks (a preview) or also runs its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DeployMode {
    /// Read-only: nothing is created, changed or deleted.
    Preview,
    /// Steps are executed.
    Update,
}

/// A property the provider's `Check` refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// One property of one resource, with where each of its values came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    pub identification: Option<crate::identify::IdAttempt>,
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

    /// The step, told the program's line that declares its resource.
    pub fn at_line(mut self, line: Option<usize>) -> Step {
        self.line = line;
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

/// A problem in a program, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// Where in the program's structure, e.g. `resources.pet.properties.length`.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}: {}", self.file, self.line, self.column, self.path, self.message)
    }
}

/// A resource the program declares but a mapped import left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedResource {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub urn: String,
}

/// The result of a deployment: every step, in order, and the program's outputs.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DeploymentPlan {
    /// `project/stack`.
    pub stack: String,
    pub mode: DeployMode,
    /// Stored plans from before scopes were whole-stack plans.
    #[serde(default)]
    pub scope: PlanScope,
    pub steps: Vec<Step>,
    /// Resources of the stack the program does not declare, left as they are (imports scope).
    #[serde(default)]
    pub untouched: usize,
    pub counts: BTreeMap<StepOp, usize>,
    /// Secrets masked; unknowns as Pulumi writes them.
    pub outputs: BTreeMap<String, Value>,
    /// Problems with the program found while running it (bad values, failed references).
    pub errors: Vec<Diagnostic>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedResource>,
}

impl DeploymentPlan {
    /// Steps with an error.
    pub fn failed_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| s.error.is_some())
    }

    /// Whether the plan holds nothing but imports, reads and unchanged resources (plus the
    /// stack's root, providers and a spec's components, which only exist in state).
    pub fn import_only_violations(&self) -> Vec<&Step> {
        self.steps
            .iter()
            .filter(|s| match s.op {
                StepOp::Same | StepOp::Import | StepOp::Read | StepOp::Relinquish => false,
                StepOp::Create => {
                    !(s.type_ == "pulumi:pulumi:Stack"
                        || s.type_.starts_with("pulumi:providers:")
                        || s.state_only)
                }
                StepOp::Update => !s.type_.starts_with("pulumi:providers:"),
                _ => true,
            })
            .collect()
    }

    /// Whether the plan came from an import spec (its steps are planned imports).
    pub fn is_import_deployment(&self) -> bool {
        self.steps.iter().any(|s| s.spec_index.is_some())
    }

    /// Why the plan cannot be committed (`apply`: creates, updates, replacements and deletes
    /// may run), or `None`. A spec's entry that does not import is left out, as `pulumi import
    /// --skip-preview` leaves it; a program's failed step stops the commit, and so does a
    /// program's import that still differs (an import must leave no diff).
    pub fn commit_refusal(&self, apply: bool) -> Option<String> {
        if let Some(e) = self.errors.first() {
            return Some(format!("the program has errors ({e}); fix them and preview again"));
        }
        if self.is_import_deployment() {
            let ready = self.steps.iter().any(|s| s.status.is_some_and(|st| st.is_ready()));
            return (!ready)
                .then(|| "nothing to commit: no resource in the preview is ready".to_string());
        }
        let failed: Vec<String> = self
            .failed_steps()
            .map(|s| format!("`{}` ({}): {}", s.name, s.op, s.error.as_deref().unwrap_or("")))
            .collect();
        if !failed.is_empty() {
            return Some(format!(
                "{} step(s) cannot go ahead: {}",
                failed.len(),
                failed.join("; ")
            ));
        }
        let differing: Vec<String> = self
            .steps
            .iter()
            .filter(|s| {
                matches!(s.op, StepOp::Import | StepOp::ImportReplacement)
                    && (!s.changed.is_empty() || !s.check_failures.is_empty())
            })
            .map(|s| {
                let props: Vec<String> = s
                    .changed
                    .iter()
                    .chain(s.check_failures.iter().map(|f| &f.property))
                    .map(|p| format!("`{p}`"))
                    .collect();
                format!("`{}`: {}", s.name, props.join(", "))
            })
            .collect();
        if !differing.is_empty() {
            return Some(format!(
                "an import must leave no diff, and the program still differs from the resources read back — {}; change the program to match (or list the properties in ignoreChanges) and preview again",
                differing.join("; ")
            ));
        }
        let changes = self.import_only_violations();
        if !changes.is_empty() && !apply {
            let listed: Vec<String> =
                changes.iter().take(20).map(|s| format!("{} `{}`", s.op, s.name)).collect();
            return Some(format!(
                "an import commit holds only imports and unchanged resources, and this plan would also {}{}; commit with apply=true to have Ferry run them against the providers",
                listed.join(", "),
                if changes.len() > 20 { format!(" and {} more", changes.len() - 20) } else { String::new() }
            ));
        }
        None
    }

    /// Whether committing the plan runs providers' Create, Update or Delete (an apply); else
    /// the commit writes the states the preview computed.
    pub fn needs_execution(&self) -> bool {
        !self.import_only_violations().is_empty()
    }

    /// Resources the commit adds that the plan declares: not the stack's root, nor a default
    /// provider (declared by neither a program line nor a spec entry). A step with an error adds
    /// nothing (a spec's entry that did not import has one).
    pub fn added(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| {
                let adds = matches!(
                    s.op,
                    StepOp::Import
                        | StepOp::ImportReplacement
                        | StepOp::Read
                        | StepOp::Create
                        | StepOp::CreateReplacement
                );
                let engine_own = s.type_ == "pulumi:pulumi:Stack"
                    || (s.type_.starts_with("pulumi:providers:")
                        && s.spec_index.is_none()
                        && s.line.is_none());
                adds && s.error.is_none() && !engine_own
            })
            .count()
    }
}

/// One entry of a spec, as its preview found it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PlannedResource {
    /// Position in the spec's `resources`.
    pub index: usize,
    pub urn: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub name: String,
    pub id: Option<String>,
    /// The ID the spec gave, when the provider's ID for the resource differs from it
    /// (`15390,1,50000` imports a RandomInteger whose ID is `15390`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_id: Option<String>,
    pub parent: Option<String>,
    /// A provider reference (`<urn>::<id>`; a provider the commit creates has Pulumi's unknown
    /// ID until then).
    pub provider: Option<String>,
    pub component: bool,
    pub status: ImportStatus,
    pub message: Option<String>,
    pub warnings: Vec<String>,
    pub check_failures: Vec<CheckFailure>,
    /// Inputs and outputs for display: secrets masked.
    #[serde(default)]
    pub inputs: Value,
    #[serde(default)]
    pub outputs: Value,
}

/// A spec's preview as its entries: the view of the [`DeploymentPlan`] that the API, the CLI
/// and the page show for specs.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SpecPreview {
    pub stack: String,
    /// The stack's root resource (`pulumi:pulumi:Stack`).
    pub root: String,
    /// Resources of the stack the spec does not name: left exactly as they are.
    pub untouched: usize,
    /// In the spec's order.
    pub resources: Vec<PlannedResource>,
    pub counts: BTreeMap<ImportStatus, usize>,
}

impl SpecPreview {
    /// The entries' rows from the plan's planned-import steps.
    pub fn from_plan(plan: &DeploymentPlan) -> SpecPreview {
        let root = plan
            .steps
            .iter()
            .find(|s| s.type_ == "pulumi:pulumi:Stack")
            .map(|s| s.urn.clone())
            .unwrap_or_default();
        let mut resources: Vec<PlannedResource> = plan
            .steps
            .iter()
            .filter(|s| s.spec_index.is_some() && s.op != StepOp::Replace)
            .map(|s| {
                let status = s.status.unwrap_or(ImportStatus::Failed);
                PlannedResource {
                    index: s.spec_index.unwrap_or_default(),
                    urn: s.urn.clone(),
                    type_: s.type_.clone(),
                    name: s.name.clone(),
                    // What was imported by: the resource's ID once Read found it, else the spec's.
                    id: s.id.clone().or_else(|| s.import_id.clone()),
                    import_id: s
                        .import_id
                        .clone()
                        .filter(|given| s.id.as_ref().is_some_and(|id| id != given)),
                    parent: s.parent.clone(),
                    provider: s.provider.clone(),
                    component: s.component,
                    status,
                    message: s.message(),
                    warnings: s.warnings.clone(),
                    check_failures: s.check_failures.clone(),
                    inputs: s.inputs.clone().unwrap_or_else(|| Value::Object(Default::default())),
                    outputs: s.outputs.clone().unwrap_or_else(|| Value::Object(Default::default())),
                }
            })
            .collect();
        resources.sort_by_key(|r| r.index);
        let mut counts = BTreeMap::new();
        for r in &resources {
            *counts.entry(r.status).or_insert(0) += 1;
        }
        SpecPreview {
            stack: plan.stack.clone(),
            root,
            untouched: plan.untouched,
            resources,
            counts,
        }
    }
}
