//! Plans' data: a plan, one of its revisions as the API shows it, and the options a revision
//! previews and writes code with (the engine and code generation take the same enums).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Resolution;

/// What a program stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"title": "Import the web tier", "spec": "{\"resources\": [{\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"pet\", \"id\": \"fine-gecko\"}]}"}))]
pub struct PlanInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub spec: Option<String>,
    pub program: Option<String>,
    #[serde(default)]
    pub options: PlanOptions,
}

/// How a plan previews and writes code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
        PlanOptions {
            strategy: ImportStrategy::Read,
            code_style: CodeStyle::Cli,
            elide: true,
            scope: PlanScope::Imports,
            decisions: Vec::new(),
        }
    }
}

/// A plan: its stack, title, author and latest revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    /// Where the plan stands (its latest revision's), whichever revision the view shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlanStatus>,
}

/// One revision of a plan: its text, options, and the previews it ran.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NewShareLink {
    #[serde(flatten)]
    pub link: ShareLink,
    pub token: String,
}

/// Where a plan is in its life, computed by the service from what happened to it (revisions,
/// previews, reviews, its commit, its closing) each time something does, and kept with it so
/// that lists filter and page on it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum PlanState {
    /// Its latest revision has no preview yet.
    Draft,
    /// Its latest revision is previewed, and waits for review (or a commit, where the stack
    /// needs no approval).
    Previewed,
    /// A reviewer asked for changes since the preview they reviewed: it blocks the commit until
    /// they (or an administrator) withdraw it, or a later revision is previewed.
    ChangesRequested,
    /// Its latest preview has an approval, and as many as the stack's rule asks.
    Approved,
    /// One of its previews was committed (see [`PlanStatus::committed_version`]). Final.
    Committed,
    /// Abandoned by its author or an administrator; reopening recomputes its state.
    Closed,
}

impl PlanState {
    pub const ALL: [PlanState; 6] = [
        PlanState::Draft,
        PlanState::Previewed,
        PlanState::ChangesRequested,
        PlanState::Approved,
        PlanState::Committed,
        PlanState::Closed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PlanState::Draft => "draft",
            PlanState::Previewed => "previewed",
            PlanState::ChangesRequested => "changes-requested",
            PlanState::Approved => "approved",
            PlanState::Committed => "committed",
            PlanState::Closed => "closed",
        }
    }

    pub fn parse(s: &str) -> Option<PlanState> {
        PlanState::ALL.into_iter().find(|state| state.as_str() == s)
    }

    /// Whether people still work on it (not committed, not closed).
    pub fn is_open(self) -> bool {
        !matches!(self, PlanState::Committed | PlanState::Closed)
    }
}

/// A plan's state and what it was computed from, as the lists and the plan's page show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanStatus {
    pub state: PlanState,
    /// The latest revision.
    pub revision: i64,
    /// The latest revision's latest preview, if it has one.
    pub preview: Option<String>,
    /// That preview's resources by status (`ready`, `failed`, `not-found`, `import`, …).
    #[serde(default)]
    pub counts: std::collections::BTreeMap<crate::ResultStatus, usize>,
    /// Resources of that preview with properties that still differ from the program.
    #[serde(default)]
    pub differing: usize,
    /// Approvals of that preview, and how many the stack's rule asks.
    pub approvals: i64,
    pub required_approvals: i64,
    /// Reviewers whose request for changes still blocks the commit.
    #[serde(default)]
    pub changes_requested_by: Vec<String>,
    /// The stack version its commit made.
    pub committed_version: Option<i64>,
    /// Who closed it.
    pub closed_by: Option<String>,
    /// What keeps its latest preview from being committed now, each with its cause (empty: a
    /// committer may commit it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<CommitBlocker>,
}

/// What kind of thing keeps a plan's commit back: where a person goes to lift it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BlockerKind {
    /// The latest revision has no preview.
    NoPreview,
    /// The preview itself refuses: imports that failed or were not found with nothing ready,
    /// properties that still differ from the program, a program's errors or steps.
    Preview,
    /// A reviewer asked for changes.
    ChangesRequested,
    /// Fewer approvals than the stack's rule asks.
    ApprovalsMissing,
    /// The stack moved on since the preview ran: preview again.
    StalePreview,
    /// The plan was closed.
    Closed,
}

impl BlockerKind {
    /// Its word on the wire (`no-preview`, `changes-requested`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            BlockerKind::NoPreview => "no-preview",
            BlockerKind::Preview => "preview",
            BlockerKind::ChangesRequested => "changes-requested",
            BlockerKind::ApprovalsMissing => "approvals-missing",
            BlockerKind::StalePreview => "stale-preview",
            BlockerKind::Closed => "closed",
        }
    }
}

/// One thing that keeps a plan's commit back, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitBlocker {
    pub kind: BlockerKind,
    pub message: String,
}

/// One plan in a list: what a person needs to decide whether to open it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanListRow {
    pub id: String,
    pub title: String,
    pub stack_id: String,
    /// The stack's name (`org/project/stack`).
    pub stack: String,
    pub org: String,
    pub author: Option<String>,
    pub created_at: String,
    /// When anything last happened to it (a revision, a preview, a review, a comment, its
    /// commit or closing): what lists sort by, newest first.
    pub last_activity_at: String,
    #[serde(flatten)]
    pub status: PlanStatus,
}

/// What a list of plans asks for (`GET /api/v1/plans`): every filter optional; `awaiting=me`
/// keeps the plans the caller may approve and has not (never one they wrote, where the stack
/// does not let authors approve).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanListQuery {
    /// An organisation's name (default: every organisation of the caller's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// A stack's ID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// One state, or several separated by commas (`previewed,approved`); `open` stands for
    /// every state but `committed` and `closed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The user who wrote the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// `me`: only plans waiting for the caller's review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaiting: Option<String>,
    /// Where the previous page ended ([`PlanListPage::next`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// At most this many rows (the service caps it at 200; the default is 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// One page of a plan list, newest activity first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanListPage {
    pub plans: Vec<PlanListRow>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// A reviewer's request for changes (`POST /api/v1/plans/{id}/change-requests`): like an
/// approval, it names the revision and preview the reviewer looked at, so that it never lands
/// on something newer; the body says what to change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"revision": 2, "preview": "pv_01j9w3m7k2", "body": "Import the bucket, not its policy."}))]
pub struct ChangeRequestInput {
    pub revision: i64,
    pub preview: String,
    #[serde(default)]
    pub body: String,
}

/// A request for changes, while it blocks the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeRequestView {
    pub reviewer: String,
    /// The revision whose preview the reviewer looked at: a preview of a later revision ends
    /// the request.
    pub revision: i64,
    pub preview_id: String,
    pub body: String,
    pub created_at: String,
}

/// Marking one resource of a preview viewed, or taking the mark off
/// (`PUT /api/v1/previews/{id}/viewed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"urn": "urn:pulumi:prod::web::random:index/randomPet:RandomPet::pet", "viewed": true}))]
pub struct ViewedMarkInput {
    pub urn: String,
    pub viewed: bool,
}

/// What marking one resource did (`PUT /api/v1/previews/{id}/viewed`): the mark as it is now,
/// and how many of the preview's resources the caller has viewed (a page of 10,000 resources
/// gets a count per key press, not the list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ViewedMarkAnswer {
    pub urn: String,
    pub viewed: bool,
    pub count: usize,
    pub total: usize,
}

/// The resources of a preview the caller has viewed (`GET /api/v1/previews/{id}/viewed`): a
/// mark counts while the resource's result is the one the reviewer saw; a new result (another
/// status, other differences, other values) leaves it unviewed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ViewedResources {
    /// The URNs viewed, in URN order.
    pub viewed: Vec<String>,
    /// How many resources the preview reviews.
    pub total: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each word a page writes itself (a class, an `<option value>`) is the word on the wire.
    #[test]
    fn the_words_pages_write_are_the_wire_words() {
        fn wire<T: Serialize>(v: T) -> String {
            serde_json::to_value(v).unwrap().as_str().unwrap().to_string()
        }
        use BlockerKind as B;
        let kinds = [
            B::NoPreview,
            B::Preview,
            B::ChangesRequested,
            B::ApprovalsMissing,
            B::StalePreview,
            B::Closed,
        ];
        for kind in kinds {
            assert_eq!(kind.as_str(), wire(kind));
        }
        for state in PlanState::ALL {
            assert_eq!(state.as_str(), wire(state));
        }
        for scope in [PlanScope::Imports, PlanScope::WholeStack] {
            assert_eq!(scope.as_str(), wire(scope));
        }
        for strategy in [ImportStrategy::Read, ImportStrategy::Minimal] {
            assert_eq!(strategy.as_str(), wire(strategy));
        }
        for style in [CodeStyle::Cli, CodeStyle::CodeFirst] {
            assert_eq!(style.as_str(), wire(style));
        }
    }
}
