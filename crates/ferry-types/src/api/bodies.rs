//! The bodies of the API's requests, and answers, that have no other home than the endpoint
//! that takes or gives them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::deployment::{DeploymentPlan, SpecPreview};
use crate::discovery::{ProbeItem, Selected};
use crate::plans::PlanView;
use crate::{JobView, StackSummary};

/// `POST /me/password`: a new password (and the current one, when there is one).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    #[serde(default)]
    pub current: Option<String>,
    pub password: String,
}

/// `POST /me/password`'s answer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct PasswordChanged {
    pub changed: bool,
}

/// `POST /me/sessions/revoke`'s answer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct SignedOut {
    pub signed_out: bool,
}

/// `POST /me/tokens`: a new API token's name and the one role it carries in one organisation
/// (`*`: every organisation), for `days`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"name": "ci", "org": "acme", "role": "planner", "days": 30}))]
pub struct TokenInput {
    pub name: String,
    #[serde(default = "every_org")]
    pub org: String,
    pub role: crate::Role,
    #[serde(default = "thirty_days")]
    pub days: i64,
}

fn every_org() -> String {
    "*".into()
}

fn thirty_days() -> i64 {
    30
}

/// `PUT /orgs/{org}/members/{name}`: the member's roles there, and a first password for a new
/// local user.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"roles": ["planner", "approver"]}))]
pub struct MemberInput {
    pub roles: Vec<crate::Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// `POST /stacks` with JSON: a stack kept in a DIY backend, connected rather than uploaded.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"backend": "s3://acme-pulumi/state", "name": "acme/web/prod"}))]
pub struct ConnectStack {
    /// The backend's URL (one the administrator allows the organisation).
    pub backend: String,
    /// The stack's `org/project/stack`.
    pub name: String,
    /// Where the server reads the stack's `Pulumi.<stack>.yaml` (a file under an allowed
    /// backend URL), for its `encryptionsalt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
}

/// A note on an uploaded state: what Ferry read differently from what the file says, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StateNote {
    pub message: String,
    #[serde(default)]
    pub path: Option<String>,
}

/// `POST /stacks`'s answer: the stack's new version and what was noted reading the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UploadOutcome {
    #[serde(flatten)]
    pub summary: StackSummary,
    pub warnings: Vec<StateNote>,
}

/// A stack's `Pulumi.<stack>.yaml`, as far as Ferry reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StackConfig {
    /// `encryptionsalt`: `v1:<base64 salt>:<ciphertext of "pulumi">`.
    pub encryption_salt: Option<String>,
    /// `secretsprovider`, when the stack names one (`passphrase`, `awskms://…`, …).
    pub secrets_provider: Option<String>,
}

/// A lock Ferry took in a DIY backend for a commit, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendLock {
    /// The lock file, relative to the backend's root.
    pub path: String,
    pub stack_id: String,
    pub backend_url: String,
    pub instance: String,
    pub taken_at: String,
    pub lease_until: String,
    pub released_at: Option<String>,
    /// What the recovery of a lock its holder could not release found and did.
    pub recovery: Option<String>,
}

/// A stored preview: which stack and version it previewed, whether it was committed, and what
/// it found. Borrows the plan it shows: a 10,000-step plan is megabytes, and the server answers
/// it as stored rather than copied.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PreviewView<'a> {
    pub id: String,
    pub stack_id: String,
    pub base_version: i64,
    pub created_at: String,
    pub committed_version: Option<i64>,
    /// What the preview found (each resource's rows, page by page, through the results
    /// endpoints).
    pub preview: PreviewBody<'a>,
}

/// What a preview found: a spec's entries with their statuses, or a program's plan.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PreviewBody<'a> {
    /// An import spec's preview: one row per entry, in the spec's order.
    Spec(SpecPreview),
    /// A Pulumi YAML program's preview: the deployment's plan.
    Program(ProgramPreview<'a>),
}

/// A program's preview: its plan, and its would-be creates as an import file and as a mapping
/// to fill in (`ferry preview --import-file`, `--record-mapping`), all borrowed from the stored
/// preview when answered (a program of 10,000 creates has an import file of megabytes).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgramPreview<'a> {
    /// The program's file name.
    pub file: String,
    pub plan: Cow<'a, DeploymentPlan>,
    /// An import file (`pulumi import --file`'s format) of the would-be creates, placeholder IDs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_file: Option<Cow<'a, serde_json::Value>>,
    /// Each would-be create's URN, mapped to an ID to fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<Cow<'a, BTreeMap<String, String>>>,
}

/// `POST /previews/{id}/commit`'s answer: the stack's new version and how many of the plan's
/// resources it added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitOutcome {
    #[serde(flatten)]
    pub summary: StackSummary,
    pub added: usize,
}

/// `POST /plans/{id}/resolutions`: a resolution chosen in the preview of the latest revision.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ResolutionInput {
    /// The preview of the latest revision the resolution was chosen in.
    pub preview: String,
    #[serde(flatten)]
    pub resolution: crate::Resolution,
}

/// `POST /plans/{id}/resolutions/zero-values`: adopt every difference of one resource (or of
/// the whole preview) that is only a zero value or a default.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"preview": "pv_01j9w3m7k2", "urn": "urn:pulumi:prod::web::random:index/randomPet:RandomPet::pet"}))]
pub struct ZeroValuesInput {
    pub preview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urn: Option<String>,
}

/// A plan's next revision and the preview of it that started: what resolving, adopting zero
/// values and choosing identifications answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RevisedPlan {
    pub plan: PlanView,
    pub job: JobView,
}

/// `POST /stacks/{id}/discoveries/probe`: resources to `Read` once each.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ProbeRequest {
    pub items: Vec<ProbeItem>,
}

/// `POST /stacks/{id}/discoveries/plan`: found resources as a new plan, or a new revision of
/// `plan_id`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredToPlan {
    pub items: Vec<Selected>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
}

/// `POST /plans/{id}/comments`: a comment on a revision's resource (and property), or a reply.
/// The most characters a comment, or a request for changes, has.
pub const MAX_COMMENT_CHARS: usize = 10_000;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"revision": 2, "urn": "urn:pulumi:prod::web::random:index/randomPet:RandomPet::pet", "path": "length", "body": "Is this the pet the web tier reads?"}))]
pub struct CommentInput {
    pub revision: i64,
    pub urn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The thread's first comment, for a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub body: String,
}

/// `POST /plans/{id}/comments/{comment}/resolve`: resolves a thread, or opens it again.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"resolved": true}))]
pub struct CommentResolution {
    #[serde(default = "resolved")]
    pub resolved: bool,
}

fn resolved() -> bool {
    true
}

/// `POST /plans/{id}/approvals`: what the reviewer approves, the revision and its preview.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"revision": 2, "preview": "pv_01j9w3m7k2"}))]
pub struct ApprovalInput {
    pub revision: i64,
    pub preview: String,
}
