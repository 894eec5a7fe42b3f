//! The shapes Ferry's server hands to its browser UI and API clients. Plain serde types, so
//! the wasm front end shares them without linking anything server-side.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod accounts;
pub mod api;
pub mod deployment;
pub mod discovery;
pub mod errors;
pub mod graph;
pub mod identify;
pub mod invitations;
pub mod outcomes;
pub mod plans;
pub mod previews;
pub mod terraform;
pub mod webhooks;

pub use accounts::{
    ApiTokenInfo, AuditEntry, Credential, Me, MemberView, Role, RoleGrant, SignInMethods,
    UnknownRole,
};
pub use outcomes::{DiffCause, DiffKind, ImportStatus, ResultStatus, StatusFilter, StepOp};

/// What the API answers when a request fails: `{"error": {"code", "message", "path"?, ...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// A failed request's code (stable, for scripts), message (for people), the JSON path of what
/// was wrong in the input, and what more the error carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The stack names an uploaded state's resources carry, when they are not the stack's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// More about the error: every problem of an import spec (`errors`, `warnings`), a
    /// program's `diagnostics`.
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// One stack a DIY backend holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendStack {
    /// `organization/<project>/<stack>` (the DIY backend's organization is always that).
    pub name: String,
    pub project: String,
    pub stack: String,
    /// The checkpoint file, relative to the backend's root.
    pub path: String,
    pub gzipped: bool,
}

/// What a plan's text is: an import spec or a YAML program. One type from the store to the
/// browser (`spec`, `program` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    Spec,
    Program,
}

impl SourceKind {
    /// Its name on the wire and in the API's query strings.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Spec => "spec",
            SourceKind::Program => "program",
        }
    }

    /// What a user calls it.
    pub fn noun(self) -> &'static str {
        match self {
            SourceKind::Spec => "import spec",
            SourceKind::Program => "program",
        }
    }

    /// `spec` or `program`; anything else is not a kind.
    pub fn parse(text: &str) -> Option<SourceKind> {
        [SourceKind::Spec, SourceKind::Program].into_iter().find(|k| k.as_str() == text)
    }
}

/// A stack and its latest (or a chosen) version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// The plan whose commit made the version, when a plan's did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
}

/// One row of a stack's resource table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// What one page of a stack's resource table asks for: the rows matching `filter` (a
/// case-insensitive substring of the URN or the ID), in `sort` order, from `offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RowQuery {
    #[serde(default)]
    pub filter: String,
    /// `type`, `name`, `urn` or `id`, with a leading `-` for descending; empty for state order.
    #[serde(default)]
    pub sort: String,
    #[serde(default)]
    pub offset: usize,
    /// At most this many rows (the service caps it).
    #[serde(default)]
    pub limit: usize,
}

/// One page of a stack's resource table: the table shows `matched` rows' worth of scroll and
/// fetches the pages the user scrolls to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourcePage {
    /// Resources in the version.
    pub total: usize,
    /// Of those, how many match the query's filter.
    pub matched: usize,
    /// The position of `rows[0]` among the matching rows.
    pub offset: usize,
    pub rows: Vec<ResourceRow>,
}

/// Everything the detail panel shows of one resource. Secrets are already masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceDetail {
    #[serde(flatten)]
    pub row: ResourceRow,
    /// Pretty-printed JSON of the inputs, secrets replaced by `"[secret]"`.
    pub inputs: String,
    pub outputs: String,
    pub dependencies: Vec<String>,
    pub secrets: usize,
}

/// One resource a preview finished: what the engine reports as it goes (its progress hook) and
/// what a job's followers read, one type from the engine to the browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobEvent {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// `ready`, `not-found`, … for imports; the step's operation for programs.
    pub status: ResultStatus,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Where a background preview is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum JobStatus {
    /// Waiting for its turn on the instance that holds it: each runs at most so many previews
    /// at once (`ferry serve --concurrent-runs`). Its event stream says `status` when it starts.
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
    /// The instance running it stopped before it finished (its lease ran out, or the server
    /// restarted): it will not finish; preview again.
    Interrupted,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
            JobStatus::Interrupted => "interrupted",
        }
    }

    /// Whether it may still change (queued or running).
    pub fn is_live(self) -> bool {
        matches!(self, JobStatus::Queued | JobStatus::Running)
    }
}

/// A plan's preview running (or run) in the background, and every resource it reported: what
/// the API answers for a job and what its event stream ends with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobView {
    pub id: String,
    pub plan_id: String,
    /// The plan's revision it previews.
    pub revision: i64,
    pub status: JobStatus,
    pub total: usize,
    pub finished: usize,
    pub events: Vec<JobEvent>,
    #[serde(default)]
    pub preview_id: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// Resources of the stack an imports-scope program leaves as they are (known at the end).
    #[serde(default)]
    pub untouched: usize,
    /// How many of the plan's resources are of each package (the stack and providers aside), in
    /// the order the plan first names them: with the events' types, each provider's progress.
    #[serde(default)]
    pub packages: Vec<PackageTotal>,
}

/// The resources of one package a job covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PackageTotal {
    pub package: String,
    pub total: usize,
}

impl PackageTotal {
    /// The package of a type token (`aws:s3/bucket:Bucket` → `aws`); `None` for the engine's own
    /// (`pulumi:pulumi:Stack`, a provider's `pulumi:providers:aws`), which a job reports beside
    /// the resources it counts.
    pub fn package_of(token: &str) -> Option<&str> {
        if token.starts_with("pulumi:") {
            return None;
        }
        Some(token.split(':').next().unwrap_or(token))
    }

    /// The totals of `tokens`, each package once, in the order first met.
    pub fn count<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Vec<PackageTotal> {
        let mut out: Vec<PackageTotal> = Vec::new();
        for package in tokens.into_iter().filter_map(Self::package_of) {
            match out.iter_mut().find(|p| p.package == package) {
                Some(p) => p.total += 1,
                None => out.push(PackageTotal { package: package.to_string(), total: 1 }),
            }
        }
        out
    }
}

/// The start of a plan revision's source, as a page first shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SourceHead {
    /// The text's first screenful (all of it when `more` is `None`).
    pub head: String,
    /// What the head leaves out, as a reader would say it (`120 more lines`); `None` when the
    /// head is the whole text.
    pub more: Option<String>,
}

impl SourceHead {
    /// The whole text, when the head is all of it.
    pub fn whole(&self) -> Option<&str> {
        self.more.is_none().then_some(self.head.as_str())
    }
}

/// What a plan's page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanPageData {
    /// Empty when the page came through a read-only link (the ID is what edits and commits).
    pub id: String,
    pub title: String,
    pub stack_id: String,
    pub stack_name: String,
    /// The revision shown, and the plan's latest.
    pub revision: i64,
    pub latest_revision: i64,
    pub created_at: String,
    /// The revision's import spec or program as the page carries it: a screenful. The editor
    /// fetches the whole text when it mounts (a 10,000-entry spec is most of a megabyte that
    /// the page's first paint does not show).
    pub spec: Option<SourceHead>,
    pub program: Option<SourceHead>,
    /// The revision's options (the resolutions chosen in review among them).
    #[serde(default)]
    pub options: plans::PlanOptions,
    /// The latest preview job of this revision in this server process.
    pub job: Option<JobView>,
    /// The latest stored preview of this revision.
    #[serde(default)]
    pub preview: Option<PreviewRef>,
    /// The latest stored preview's first page of results (the table fetches the rest).
    #[serde(default)]
    pub results: Option<ResultPage>,
    /// The version the latest preview's commit wrote, if it was committed.
    #[serde(default)]
    pub committed_version: Option<i64>,
    /// Set when the page came through a read-only link: its token.
    #[serde(default)]
    pub share_token: Option<String>,
    /// The roles the viewer holds in the stack's organisation (none through a link), so the
    /// page shows only what they may do; the server checks every action regardless.
    #[serde(default)]
    pub roles: Vec<Role>,
    /// Each resource's Terraform address, by name, for a plan migrated from Terraform.
    #[serde(default)]
    pub origins: std::collections::BTreeMap<String, String>,
    /// Where the plan stands (its state, and what made it).
    #[serde(default)]
    pub status: Option<plans::PlanStatus>,
}

impl PlanPageData {
    /// Whether the viewer may not edit, preview or resolve (a link, or no planner role).
    pub fn read_only(&self) -> bool {
        self.share_token.is_some() || !self.holds(Role::Planner)
    }

    pub fn may_commit(&self) -> bool {
        self.share_token.is_none() && self.holds(Role::Committer)
    }

    fn holds(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }
}

/// What the stack pages need: the summary and the table's first rows (it fetches the rest as
/// the user scrolls, with the `stack_rows` server function).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StackPageData {
    pub summary: StackSummary,
    pub first: ResourcePage,
    /// Load warnings, as `message (at path)`.
    pub warnings: Vec<String>,
    /// The roles the viewer holds in the stack's organisation (the page shows what they may do).
    #[serde(default)]
    pub roles: Vec<Role>,
    /// Locks Ferry left in the stack's DIY backend (an instance died holding one) and recovered:
    /// what each recovery found, with when the lock was taken.
    #[serde(default)]
    pub recovered_locks: Vec<String>,
}

/// A problem in a spec or program being edited, placed for the editor (1-based lines and
/// columns, in characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorMarker {
    /// `error` or `warning`.
    pub severity: String,
    pub message: String,
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// What the editors complete from: a JSON schema of the import file (type tokens and their
/// inputs from the providers' schemas, names from the stack) and the same lists for YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditorHelp {
    pub json_schema: serde_json::Value,
    pub types: Vec<TypeHint>,
    pub names: Vec<NameHint>,
    /// Packages whose schema could not be read, and why (completion works without them).
    #[serde(default)]
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TypeHint {
    pub token: String,
    pub inputs: Vec<String>,
    /// What the type's import ID is made of; absent when its package documents nothing that
    /// tells (the help says so, rather than guess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<identify::IdRecipe>,
}

/// A resource of the stack a spec or program can name as a parent or provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NameHint {
    pub name: String,
    pub urn: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub provider: bool,
}

/// How a plan's page reaches a preview: as its owner (the preview's ID) or through a read-only
/// link (the token, the revision and the preview's position).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum PreviewRef {
    Owner { preview: String },
    Shared { token: String, revision: i64, index: usize },
}

/// One row of a preview's results table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResultRow {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// An import status (`ready`, `failed`, …) or a program step's operation (`import`, …).
    pub status: ResultStatus,
    /// Warnings and Check failures, with the reason a resource failed.
    pub warnings: Vec<String>,
    /// Properties whose read value differs from the program's (imports must have none).
    pub differs: Vec<String>,
    /// How many of those differ only by a zero value Read returned or a default the
    /// provider's Check filled in: adopting them (one click) leaves the program saying what
    /// the resource already is.
    #[serde(default)]
    pub zero_or_default: usize,
}

/// What one page of a stored preview's results asks for: the rows with one of the `status`es
/// (comma-separated) and of `type` (empty: any) whose name or URN holds `filter`
/// (case-insensitive), from `offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResultQuery {
    /// The statuses to keep, comma-separated (empty: every status).
    #[serde(default, skip_serializing_if = "api::is_default")]
    pub status: StatusFilter,
    /// The resource type to keep (empty: any).
    #[serde(default, rename = "type", skip_serializing_if = "api::is_default")]
    pub type_: String,
    /// Keeps the rows whose name or URN holds this text (case-insensitive).
    #[serde(default, skip_serializing_if = "api::is_default")]
    pub filter: String,
    /// The first row of the page.
    #[serde(default, skip_serializing_if = "api::is_default")]
    pub offset: usize,
    /// At most this many rows (the service caps it; 0 asks for as many as it allows).
    #[serde(default, skip_serializing_if = "api::is_default")]
    pub limit: usize,
}

/// One page of a stored preview's results, with what the filters offer over all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResultPage {
    /// Rows in the preview.
    pub total: usize,
    /// Of those, how many match the query.
    pub matched: usize,
    /// The position of `rows[0]` among the matching rows.
    pub offset: usize,
    pub rows: Vec<ResultRow>,
    /// How many of the preview's rows have each status (what the filters, the code and the
    /// commit tell), and every type among them (sorted).
    pub by_status: std::collections::BTreeMap<ResultStatus, usize>,
    pub types: Vec<String>,
    /// Differences across the preview that are only zero values or defaults
    /// ([`ResultRow::zero_or_default`] summed).
    pub zero_or_default: usize,
}

/// One property of a resource under review: its values and where each came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PropertyResult {
    pub path: String,
    /// What Read returned (secrets masked).
    pub read: Option<serde_json::Value>,
    /// The program's or spec's value (after resolutions).
    pub program: Option<serde_json::Value>,
    pub kind: DiffKind,
    /// Why, as Pulumi's import reviews name it: `program`, `provider-default`, `zero-value`,
    /// `missing`, `ignored` or `equal`.
    pub cause: DiffCause,
    /// `read`, `program`, `default` (the provider filled it in) or `user` (a resolution).
    pub source: String,
    /// Why it differs, or why it does not, in words.
    pub why: String,
    /// The resolution the user chose for it, if any.
    pub decision: Option<ResolutionAction>,
}

/// Everything the review panel shows of one resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultDetail {
    #[serde(flatten)]
    pub row: ResultRow,
    pub id: Option<String>,
    pub import_id: Option<String>,
    /// `spec` or `program`: which resolutions apply.
    pub source_kind: SourceKind,
    /// Pretty JSON of the inputs Read returned, and of the program's (or spec's) inputs: the
    /// two sides of the diff editor.
    pub read_inputs: String,
    pub program_inputs: String,
    pub check_failures: Vec<String>,
    pub properties: Vec<PropertyResult>,
}

/// A one-click resolution of a property that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Resolution {
    pub urn: String,
    pub property: String,
    pub action: ResolutionAction,
}

/// What a resolution does with a property that differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResolutionAction {
    /// Take the value Read returned (into the program, or the spec's `properties`).
    Adopt,
    /// Keep the program's value (an import that still differs cannot commit).
    Keep,
    /// Add the property to the resource's `ignoreChanges`.
    Ignore,
    /// Leave the property out.
    Omit,
}

impl std::fmt::Display for ResolutionAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ResolutionAction {
    /// Every action, in the order the review offers them.
    pub const ALL: [ResolutionAction; 4] = [
        ResolutionAction::Adopt,
        ResolutionAction::Keep,
        ResolutionAction::Ignore,
        ResolutionAction::Omit,
    ];

    /// The action's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ResolutionAction::Adopt => "adopt",
            ResolutionAction::Keep => "keep",
            ResolutionAction::Ignore => "ignore",
            ResolutionAction::Omit => "omit",
        }
    }
}

/// A comment on a plan revision's resource (and optionally one of its properties).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommentView {
    pub id: String,
    /// Empty through a read-only link (the plan's ID is for its members).
    #[serde(default)]
    pub plan_id: String,
    pub revision: i64,
    pub urn: String,
    pub path: Option<String>,
    /// The thread's first comment, for a reply.
    pub parent_id: Option<String>,
    pub author: String,
    pub body: String,
    pub created_at: String,
    pub resolved_at: Option<String>,
    pub resolved_by: Option<String>,
}

/// One approval of a revision's preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalView {
    pub revision: i64,
    #[serde(default)]
    pub preview_id: String,
    pub approver: String,
    pub created_at: String,
}

/// Where a plan stands for its commit: the latest revision's preview, its approvals, the rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalStateView {
    pub revision: i64,
    pub preview: Option<String>,
    /// Who created the plan.
    pub author: Option<String>,
    /// Everyone who wrote the plan or one of its revisions: each counts as its author.
    #[serde(default)]
    pub authors: Vec<String>,
    pub required_approvals: i64,
    pub author_may_approve: bool,
    pub approvals: Vec<ApprovalView>,
    /// Requests for changes that block the commit until withdrawn or answered by a later
    /// revision's preview.
    #[serde(default)]
    pub changes_requested: Vec<plans::ChangeRequestView>,
    pub satisfied: bool,
    pub reason: Option<String>,
}

/// Which plan a panel is about, and what the viewer may do there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanAccess {
    /// Empty through a read-only link.
    pub plan_id: String,
    pub share_token: Option<String>,
    pub revision: i64,
    pub may_comment: bool,
    pub may_approve: bool,
}

impl PlanPageData {
    pub fn access(&self) -> PlanAccess {
        let member = self.share_token.is_none();
        PlanAccess {
            plan_id: self.id.clone(),
            share_token: self.share_token.clone(),
            revision: self.revision,
            may_comment: member
                && [Role::Planner, Role::Approver, Role::Committer]
                    .into_iter()
                    .any(|r| self.holds(r)),
            may_approve: member && self.holds(Role::Approver),
        }
    }
}

/// An organisation's settings, as read and as set (`PUT …/settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrgSettingsView {
    pub share_links: bool,
    pub share_link_days: i64,
    #[serde(default)]
    pub allowed_packages: Vec<String>,
}

/// What an organisation no administrator has set up has: share links on, for 30 days; no
/// packages beyond Ferry's own.
impl Default for OrgSettingsView {
    fn default() -> Self {
        OrgSettingsView { share_links: true, share_link_days: 30, allowed_packages: Vec::new() }
    }
}

/// A stack's approval rule, as read and as set (`PUT …/settings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StackSettingsView {
    pub required_approvals: i64,
    #[serde(default)]
    pub author_may_approve: bool,
}
