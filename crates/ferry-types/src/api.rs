//! The HTTP API's endpoints, named once: each one's method, its path under [`PREFIX`], what its
//! body is and what it answers. The server's route table is made of these constants (a route
//! cannot exist without one), the browser's client calls them, and the API tests read every
//! answer they get as the type its endpoint declares.
//!
//! Architecture Invariant: a path of `/api/v1` is written here and nowhere else.

use std::marker::PhantomData;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::discovery::Selected;
use crate::discovery::{DiscoveryRequest, DiscoveryView, Listables, ProbeItem, ProbeResult};
use crate::identify::{IdentificationChoices, IdentificationJob, IdentifyRequest};
use crate::invitations::{Invitation, InvitationInput, NewInvitation};
use crate::plans::{
    ChangeRequestInput, ChangeRequestView, NewShareLink, PlanInput, PlanListPage, PlanStatus,
    PlanView, ShareLink, ViewedMarkAnswer, ViewedMarkInput, ViewedResources,
};
use crate::terraform::{MigrationView, RemoteState, Workspaces};
use crate::webhooks::{NewWebhook, Webhook, WebhookDelivery, WebhookInput};
use crate::{
    ApiTokenInfo, ApprovalStateView, AuditEntry, BackendStack, CommentView, EditorHelp,
    EditorMarker, JobView, Me, MemberView, OrgSettingsView, ResourceDetail, ResourcePage,
    ResultDetail, ResultPage, StackSettingsView, StackSummary,
};

/// Where every endpoint's path starts.
pub const PREFIX: &str = "/api/v1";

/// An HTTP method an endpoint answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// A body of nothing: the endpoint takes none.
#[derive(Debug, Clone, Copy)]
pub struct NoBody;

/// A body that is a file sent as it is (a state, a spec or program, a Terraform state, a
/// `Pulumi.<stack>.yaml`, an editor's text), or a form of such files; never JSON Ferry reads
/// by type.
#[derive(Debug, Clone, Copy)]
pub struct FileBody;

/// An answer of text (generated code; with `?format=json`, a JSON object of it).
#[derive(Debug, Clone, Copy)]
pub struct Text;

/// An answer of server-sent events, followed until the job they report ends.
#[derive(Debug, Clone, Copy)]
pub struct EventStream;

/// An answer that is a file to save as it is (a stack's export).
#[derive(Debug, Clone, Copy)]
pub struct Download;

/// An answer of no content (`204`).
#[derive(Debug, Clone, Copy)]
pub struct NoContent;

/// A graph as the graph view draws it: nodes, edges and groups, whole or summarised. Read by
/// the page's graph renderer, never by field in Rust.
pub type GraphJson = serde_json::Value;

/// How an endpoint's answer is read: as a JSON type (checked by [`EndpointInfo::check_answer`])
/// or as something else.
#[derive(Debug, Clone, Copy)]
pub enum AnswerKind {
    /// JSON of the endpoint's answer type; the function reads a body as that type.
    Json(fn(&[u8]) -> Result<(), String>),
    Text,
    EventStream,
    Download,
    NoContent,
}

/// One endpoint: its method and path template (`/plans/{id}`, under [`PREFIX`]), with what it
/// takes (`B`) and answers (`A`) as types, so a call cannot send or read the wrong shape.
pub struct Endpoint<B, A> {
    pub method: Method,
    /// The path under [`PREFIX`], with its parameters in braces, as the server routes it.
    pub path: &'static str,
    answer: AnswerKind,
    wire: PhantomData<fn(B) -> A>,
}

impl<B, A> Clone for Endpoint<B, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B, A> Copy for Endpoint<B, A> {}

fn read_as<A: DeserializeOwned>(body: &[u8]) -> Result<(), String> {
    serde_json::from_slice::<A>(body).map(|_| ()).map_err(|e| e.to_string())
}

impl<A: DeserializeOwned> Endpoint<NoBody, A> {
    pub const fn get(path: &'static str) -> Self {
        Self::json(Method::Get, path)
    }
}

impl<B, A: DeserializeOwned> Endpoint<B, A> {
    const fn json(method: Method, path: &'static str) -> Self {
        Endpoint { method, path, answer: AnswerKind::Json(read_as::<A>), wire: PhantomData }
    }

    pub const fn post(path: &'static str) -> Self {
        Self::json(Method::Post, path)
    }

    pub const fn put(path: &'static str) -> Self {
        Self::json(Method::Put, path)
    }

    pub const fn delete(path: &'static str) -> Self {
        Self::json(Method::Delete, path)
    }
}

impl Endpoint<NoBody, Text> {
    pub const fn text(path: &'static str) -> Self {
        Endpoint { method: Method::Get, path, answer: AnswerKind::Text, wire: PhantomData }
    }
}

impl Endpoint<NoBody, EventStream> {
    pub const fn events(path: &'static str) -> Self {
        Endpoint { method: Method::Get, path, answer: AnswerKind::EventStream, wire: PhantomData }
    }
}

impl Endpoint<NoBody, Download> {
    pub const fn download(path: &'static str) -> Self {
        Endpoint { method: Method::Get, path, answer: AnswerKind::Download, wire: PhantomData }
    }
}

impl Endpoint<NoBody, NoContent> {
    pub const fn delete_quietly(path: &'static str) -> Self {
        Endpoint { method: Method::Delete, path, answer: AnswerKind::NoContent, wire: PhantomData }
    }
}

/// What is escaped in a path parameter or a query value: everything but RFC 3986's unreserved
/// characters.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `value` escaped for a path segment or a query value.
pub fn escape(value: &str) -> String {
    utf8_percent_encode(value, ESCAPED).to_string()
}

impl<B, A> Endpoint<B, A> {
    /// The URL of this endpoint for `params`, one per `{…}` of its path, in order, each escaped.
    ///
    /// # Panics
    /// When `params` and the path's parameters differ in number: a caller's bug, not input.
    pub fn url(&self, params: &[&str]) -> String {
        let mut url = String::with_capacity(PREFIX.len() + self.path.len() + 16);
        url.push_str(PREFIX);
        let mut given = params.iter();
        let mut rest = self.path;
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}').expect("a path parameter is closed");
            url.push_str(&rest[..open]);
            let value = given.next().unwrap_or_else(|| {
                panic!("{} needs more parameters than {}", self.path, params.len())
            });
            url.push_str(&escape(value));
            rest = &rest[close + 1..];
        }
        url.push_str(rest);
        assert!(
            given.next().is_none(),
            "{} takes fewer parameters than {}",
            self.path,
            params.len()
        );
        url
    }

    /// [`Endpoint::url`] with a query: each pair whose value is not empty, escaped.
    pub fn url_with(&self, params: &[&str], query: &[(&str, &str)]) -> String {
        let mut url = self.url(params);
        let mut first = true;
        for (key, value) in query.iter().filter(|(_, v)| !v.is_empty()) {
            url.push(if first { '?' } else { '&' });
            first = false;
            url.push_str(key);
            url.push('=');
            url.push_str(&escape(value));
        }
        url
    }

    /// A call of this endpoint for `params` (see [`Endpoint::url`]), typed as the endpoint is.
    pub fn at(&self, params: &[&str]) -> Call<B, A> {
        Call { method: self.method, url: self.url(params), wire: PhantomData }
    }

    /// [`Endpoint::at`] with a query (see [`Endpoint::url_with`]).
    pub fn at_with(&self, params: &[&str], query: &[(&str, &str)]) -> Call<B, A> {
        Call { method: self.method, url: self.url_with(params, query), wire: PhantomData }
    }

    /// What the route table and the tests need to know of it, without its types.
    pub const fn info(&self, name: &'static str) -> EndpointInfo {
        EndpointInfo { name, method: self.method, path: self.path, answer: self.answer }
    }
}

/// One call of an endpoint: its method and URL, with the endpoint's body and answer types, which
/// a client sends and reads.
pub struct Call<B, A> {
    pub method: Method,
    pub url: String,
    wire: PhantomData<fn(B) -> A>,
}

impl<B, A> Clone for Call<B, A> {
    fn clone(&self) -> Self {
        Call { method: self.method, url: self.url.clone(), wire: PhantomData }
    }
}

impl<B, A> std::fmt::Debug for Call<B, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method.as_str(), self.url)
    }
}

/// An endpoint without its types: its name here, method, path and how its answer is read.
#[derive(Debug, Clone, Copy)]
pub struct EndpointInfo {
    pub name: &'static str,
    pub method: Method,
    pub path: &'static str,
    pub answer: AnswerKind,
}

impl EndpointInfo {
    /// Reads a successful answer's body as the endpoint's declared type; what does not read is
    /// named. Answers that are not JSON are not read.
    pub fn check_answer(&self, body: &[u8]) -> Result<(), String> {
        match self.answer {
            AnswerKind::Json(read) => read(body).map_err(|e| {
                format!(
                    "{} {} ({}): the answer is not its type: {e}",
                    self.method.as_str(),
                    self.path,
                    self.name
                )
            }),
            _ => Ok(()),
        }
    }
}

/// The calls of a stored preview's results, graph and code, by its owners' ID or through a
/// share link's revision and index.
impl crate::PreviewRef {
    fn call<A>(
        &self,
        owner: &Endpoint<NoBody, A>,
        shared: &Endpoint<NoBody, A>,
        query: &[(&str, &str)],
    ) -> Call<NoBody, A> {
        match self {
            crate::PreviewRef::Owner { preview } => owner.at_with(&[preview], query),
            crate::PreviewRef::Shared { token, revision, index } => {
                shared.at_with(&[token, &revision.to_string(), &index.to_string()], query)
            }
        }
    }

    /// A page of the results (`status`, `type`, `filter`, `offset`, `limit`).
    pub fn results(&self, query: &[(&str, &str)]) -> Call<NoBody, ResultPage> {
        self.call(&RESULTS, &SHARED_RESULTS, query)
    }

    /// One resource's result.
    pub fn result(&self, urn: &str) -> Call<NoBody, ResultDetail> {
        self.call(&RESULT, &SHARED_RESULT, &[("urn", urn)])
    }

    /// The stack graph with the preview's resources marked.
    pub fn graph(&self) -> Call<NoBody, GraphJson> {
        self.call(&PREVIEW_GRAPH, &SHARED_PREVIEW_GRAPH, &[])
    }

    /// Code for the preview's ready resources (`lang`, `style`, `elide`, …).
    pub fn code(&self, query: &[(&str, &str)]) -> Call<NoBody, Text> {
        self.call(&PREVIEW_CODE, &SHARED_PREVIEW_CODE, query)
    }
}

/// The calls of a plan's page, as a member (by the plan's ID) or through a read-only link (by its
/// token), whichever `self` is.
impl crate::PlanAccess {
    /// The plan with revision `revision`.
    pub fn revision_view(&self, revision: i64) -> Call<NoBody, PlanView> {
        let revision = revision.to_string();
        match &self.share_token {
            Some(token) => SHARED_PLAN.at_with(&[token], &[("revision", &revision)]),
            None => PLAN_REVISION.at(&[&self.plan_id, &revision]),
        }
    }

    /// Every revision's comments.
    pub fn comments(&self) -> Call<NoBody, Vec<CommentView>> {
        match &self.share_token {
            Some(token) => SHARED_COMMENTS.at(&[token]),
            None => COMMENTS.at(&[&self.plan_id]),
        }
    }
}

/// The endpoint a request of `method` to `path` (under [`PREFIX`], its query left off) reaches:
/// a path's literal segments must match, each `{…}` takes one segment, and where two match
/// (a literal beside a parameter) the one with more literal segments wins, as the router picks.
pub fn endpoint_of(method: Method, path: &str) -> Option<&'static EndpointInfo> {
    let asked: Vec<&str> = path.trim_matches('/').split('/').collect();
    ALL.iter()
        .filter(|e| e.method == method)
        .filter_map(|e| {
            let template: Vec<&str> = e.path.trim_matches('/').split('/').collect();
            if template.len() != asked.len() {
                return None;
            }
            let mut literal = 0;
            for (t, a) in template.iter().zip(&asked) {
                if t.starts_with('{') {
                    if a.is_empty() {
                        return None;
                    }
                } else if t == a {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, e))
        })
        .max_by_key(|(literal, _)| *literal)
        .map(|(_, e)| e)
}

/// `POST /me/password`: a new password (and the current one, when there is one).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    #[serde(default)]
    pub current: Option<String>,
    pub password: String,
}

/// `POST /me/password`'s answer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct PasswordChanged {
    pub changed: bool,
}

/// `POST /me/sessions/revoke`'s answer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SignedOut {
    pub signed_out: bool,
}

/// `POST /me/tokens`: a new API token's name and the one role it carries in one organisation
/// (`*`: every organisation), for `days`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberInput {
    pub roles: Vec<crate::Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// `POST /stacks` with JSON: a stack kept in a DIY backend, connected rather than uploaded.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateNote {
    pub message: String,
    #[serde(default)]
    pub path: Option<String>,
}

/// `POST /stacks`'s answer: the stack's new version and what was noted reading the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadOutcome {
    #[serde(flatten)]
    pub summary: StackSummary,
    pub warnings: Vec<StateNote>,
}

/// A stack's `Pulumi.<stack>.yaml`, as far as Ferry reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackConfig {
    /// `encryptionsalt`: `v1:<base64 salt>:<ciphertext of "pulumi">`.
    pub encryption_salt: Option<String>,
    /// `secretsprovider`, when the stack names one (`passphrase`, `awskms://…`, …).
    pub secrets_provider: Option<String>,
}

/// A lock Ferry took in a DIY backend for a commit, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// A stored preview: which stack and version it previewed, whether it was committed, and the
/// engine's plan (its steps, each resource's result and differences).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PreviewView {
    pub id: String,
    pub stack_id: String,
    pub base_version: i64,
    pub created_at: String,
    pub committed_version: Option<i64>,
    /// The engine's plan, as it stores it (read through the results endpoints, by page).
    pub preview: serde_json::Value,
}

/// `POST /previews/{id}/commit`'s answer: the stack's new version and how many of the plan's
/// resources it added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitOutcome {
    #[serde(flatten)]
    pub summary: StackSummary,
    pub added: usize,
}

/// `POST /plans/{id}/resolutions`: a resolution chosen in the preview of the latest revision.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResolutionInput {
    /// The preview of the latest revision the resolution was chosen in.
    pub preview: String,
    #[serde(flatten)]
    pub resolution: crate::Resolution,
}

/// `POST /plans/{id}/resolutions/zero-values`: adopt every difference of one resource (or of
/// the whole preview) that is only a zero value or a default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZeroValuesInput {
    pub preview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urn: Option<String>,
}

/// A plan's next revision and the preview of it that started: what resolving, adopting zero
/// values and choosing identifications answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RevisedPlan {
    pub plan: PlanView,
    pub job: JobView,
}

/// `POST /stacks/{id}/discoveries/probe`: resources to `Read` once each.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeRequest {
    pub items: Vec<ProbeItem>,
}

/// `POST /stacks/{id}/discoveries/plan`: found resources as a new plan, or a new revision of
/// `plan_id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredToPlan {
    pub items: Vec<Selected>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
}

/// `POST /plans/{id}/comments`: a comment on a revision's resource (and property), or a reply.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentResolution {
    #[serde(default = "resolved")]
    pub resolved: bool,
}

fn resolved() -> bool {
    true
}

/// `POST /plans/{id}/approvals`: what the reviewer approves, the revision and its preview.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalInput {
    pub revision: i64,
    pub preview: String,
}

/// Declares the endpoints and [`ALL`], so that no endpoint is left out of the list the server's
/// table and the tests check.
macro_rules! endpoints {
    ($($(#[$doc:meta])* $name:ident: $body:ty => $answer:ty = $make:ident($path:literal);)*) => {
        $(
            $(#[$doc])*
            pub const $name: Endpoint<$body, $answer> = Endpoint::$make($path);
        )*

        /// Every endpoint, in the order declared.
        pub const ALL: &[EndpointInfo] = &[$($name.info(stringify!($name)),)*];
    };
}

endpoints! {
    /// Who is signed in, with their roles and credential.
    ME: NoBody => Me = get("/me");
    CHANGE_PASSWORD: PasswordChange => PasswordChanged = post("/me/password");
    /// Signs the caller out everywhere (API tokens stay).
    END_ALL_SESSIONS: NoBody => SignedOut = post("/me/sessions/revoke");
    /// The caller's API tokens, never their secrets.
    TOKENS: NoBody => Vec<ApiTokenInfo> = get("/me/tokens");
    /// A new token, its secret shown this once.
    CREATE_TOKEN: TokenInput => ApiTokenInfo = post("/me/tokens");
    REVOKE_TOKEN: NoBody => ApiTokenInfo = delete("/me/tokens/{id}");
    MEMBERS: NoBody => Vec<MemberView> = get("/orgs/{org}/members");
    SET_MEMBER: MemberInput => MemberView = put("/orgs/{org}/members/{name}");
    INVITATIONS: NoBody => Vec<Invitation> = get("/orgs/{org}/invitations");
    INVITE: InvitationInput => NewInvitation = post("/orgs/{org}/invitations");
    REVOKE_INVITATION: NoBody => Invitation = delete("/orgs/{org}/invitations/{id}");
    /// The open invitation a link names, for its holder.
    INVITATION: NoBody => Invitation = get("/invitations/{token}");
    /// The organisation's audit log (`?after=&limit=`; `?format=jsonl` answers JSON lines).
    AUDIT: NoBody => Vec<AuditEntry> = get("/orgs/{org}/audit");
    STACKS: NoBody => Vec<StackSummary> = get("/stacks");
    /// `?name=org/project/stack&force=`: a state file as the body, sent as it is; or, as JSON,
    /// a stack a DIY backend keeps ([`ConnectStack`]).
    UPLOAD_STACK: ConnectStack => UploadOutcome = post("/stacks");
    STACK: NoBody => StackSummary = get("/stacks/{id}");
    STACK_VERSIONS: NoBody => Vec<StackSummary> = get("/stacks/{id}/versions");
    STACK_LOCKS: NoBody => Vec<BackendLock> = get("/stacks/{id}/locks");
    STACK_CONFIG: NoBody => StackConfig = get("/stacks/{id}/config");
    /// The stack's `Pulumi.<stack>.yaml` as the body.
    SET_STACK_CONFIG: FileBody => StackConfig = put("/stacks/{id}/config");
    /// `?version=`: the state as `pulumi stack export` writes it.
    STACK_EXPORT: NoBody => Download = download("/stacks/{id}/export");
    /// `?version=&expand=&full=`.
    STACK_GRAPH: NoBody => GraphJson = get("/stacks/{id}/graph");
    /// `?filter=&sort=&offset=&limit=&version=`.
    STACK_RESOURCES: NoBody => ResourcePage = get("/stacks/{id}/resources");
    /// `?urn=&version=`.
    STACK_RESOURCE: NoBody => ResourceDetail = get("/stacks/{id}/resource");
    /// An import spec or a program as the body (`?scope=`); nothing reaches the stack.
    CREATE_PREVIEW: FileBody => PreviewView = post("/stacks/{id}/previews");
    START_IDENTIFICATION: IdentifyRequest => IdentificationJob = post("/stacks/{id}/identifications");
    IDENTIFICATION: NoBody => IdentificationJob = get("/identifications/{id}");
    IDENTIFICATION_EVENTS: NoBody => EventStream = events("/identifications/{id}/events");
    CANCEL_IDENTIFICATION: NoBody => IdentificationJob = post("/identifications/{id}/cancel");
    PREVIEW: NoBody => PreviewView = get("/previews/{id}");
    /// `?apply=true` lets Ferry run the plan's creates, updates, replacements and deletes.
    COMMIT_PREVIEW: NoBody => CommitOutcome = post("/previews/{id}/commit");
    /// `?language=&urns=&format=`.
    PREVIEW_CODE: NoBody => Text = text("/previews/{id}/code");
    CREATE_PLAN: PlanInput => PlanView = post("/stacks/{id}/plans");
    /// The stack's plans, with [`PLANS`]'s filters.
    STACK_PLANS: NoBody => PlanListPage = get("/stacks/{id}/plans");
    /// `?org=&stack=&state=&author=&awaiting=me&cursor=&limit=`.
    PLANS: NoBody => PlanListPage = get("/plans");
    PLAN_STATUS: NoBody => PlanStatus = get("/plans/{id}/status");
    CLOSE_PLAN: NoBody => PlanStatus = post("/plans/{id}/close");
    REOPEN_PLAN: NoBody => PlanStatus = post("/plans/{id}/reopen");
    PLAN: NoBody => PlanView = get("/plans/{id}");
    SAVE_PLAN: PlanInput => PlanView = post("/plans/{id}/revisions");
    PLAN_REVISION: NoBody => PlanView = get("/plans/{id}/revisions/{revision}");
    /// `?revision=`: a background preview of the revision.
    START_PLAN_PREVIEW: NoBody => JobView = post("/plans/{id}/previews");
    PLAN_JOBS: NoBody => Vec<JobView> = get("/plans/{id}/jobs");
    PLAN_JOB: NoBody => JobView = get("/plans/{id}/jobs/{job}");
    PLAN_JOB_EVENTS: NoBody => EventStream = events("/plans/{id}/jobs/{job}/events");
    CANCEL_PLAN_JOB: NoBody => JobView = post("/plans/{id}/jobs/{job}/cancel");
    SHARES: NoBody => Vec<ShareLink> = get("/plans/{id}/shares");
    CREATE_SHARE: NoBody => NewShareLink = post("/plans/{id}/shares");
    REVOKE_SHARE: NoBody => ShareLink = delete("/plans/{id}/shares/{link}");
    /// `?revision=`: the plan through a read-only link (no plan or preview IDs).
    SHARED_PLAN: NoBody => PlanView = get("/shared/{token}");
    SHARED_PREVIEW: NoBody => PreviewView = get("/shared/{token}/previews/{index}");
    /// `?language=&urns=&format=`.
    STACK_CODE: NoBody => Text = text("/stacks/{id}/code");
    /// `?kind=spec|program` with the text as the body: its problems, placed.
    MARKERS: FileBody => Vec<EditorMarker> = post("/markers");
    EDITOR_HELP: NoBody => EditorHelp = get("/stacks/{id}/editor-help");
    /// `?status=&type=&filter=&offset=&limit=`.
    RESULTS: NoBody => ResultPage = get("/previews/{id}/results");
    /// `?urn=`.
    RESULT: NoBody => ResultDetail = get("/previews/{id}/results/resource");
    PREVIEW_GRAPH: NoBody => GraphJson = get("/previews/{id}/graph");
    VIEWED: NoBody => ViewedResources = get("/previews/{id}/viewed");
    MARK_VIEWED: ViewedMarkInput => ViewedMarkAnswer = put("/previews/{id}/viewed");
    SHARED_RESULTS: NoBody => ResultPage = get("/shared/{token}/revisions/{revision}/previews/{index}/results");
    SHARED_RESULT: NoBody => ResultDetail = get("/shared/{token}/revisions/{revision}/previews/{index}/results/resource");
    SHARED_PREVIEW_GRAPH: NoBody => GraphJson = get("/shared/{token}/revisions/{revision}/previews/{index}/graph");
    SHARED_PREVIEW_CODE: NoBody => Text = text("/shared/{token}/revisions/{revision}/previews/{index}/code");
    RESOLVE: ResolutionInput => RevisedPlan = post("/plans/{id}/resolutions");
    CHOOSE_IDENTIFICATIONS: IdentificationChoices => RevisedPlan = post("/plans/{id}/identifications");
    ADOPT_ZERO_VALUES: ZeroValuesInput => RevisedPlan = post("/plans/{id}/resolutions/zero-values");
    /// `?org=&url=`: the stacks a DIY backend allowed to the organisation holds.
    BACKEND_STACKS: NoBody => Vec<BackendStack> = get("/backends/stacks");
    START_DISCOVERY: DiscoveryRequest => DiscoveryView = post("/stacks/{id}/discoveries");
    LISTABLE_TYPES: NoBody => Listables = get("/stacks/{id}/discoveries/types");
    PROBE: ProbeRequest => Vec<ProbeResult> = post("/stacks/{id}/discoveries/probe");
    DISCOVERED_TO_PLAN: DiscoveredToPlan => PlanView = post("/stacks/{id}/discoveries/plan");
    /// `?title=&include_tainted=&include_deposed=`: a Terraform or OpenTofu state as the body,
    /// or a form of it (`state`) and its configuration (`configuration`).
    MIGRATE_TERRAFORM: FileBody => MigrationView = post("/stacks/{id}/migrations/terraform");
    /// Where the state lives as JSON, or a form of it (`remote`) and the configuration.
    MIGRATE_TERRAFORM_REMOTE: RemoteState => MigrationView = post("/stacks/{id}/migrations/terraform/remote");
    /// `?url=&workspace_key_prefix=`.
    TERRAFORM_WORKSPACES: NoBody => Workspaces = get("/stacks/{id}/migrations/terraform/workspaces");
    DISCOVERY: NoBody => DiscoveryView = get("/discoveries/{id}");
    DISCOVERY_EVENTS: NoBody => EventStream = events("/discoveries/{id}/events");
    CANCEL_DISCOVERY: NoBody => DiscoveryView = post("/discoveries/{id}/cancel");
    /// `?revision=`.
    COMMENTS: NoBody => Vec<CommentView> = get("/plans/{id}/comments");
    ADD_COMMENT: CommentInput => CommentView = post("/plans/{id}/comments");
    RESOLVE_COMMENT: CommentResolution => CommentView = post("/plans/{id}/comments/{comment}/resolve");
    /// `?revision=`.
    SHARED_COMMENTS: NoBody => Vec<CommentView> = get("/shared/{token}/comments");
    APPROVALS: NoBody => ApprovalStateView = get("/plans/{id}/approvals");
    APPROVE: ApprovalInput => ApprovalStateView = post("/plans/{id}/approvals");
    WITHDRAW_APPROVAL: NoBody => ApprovalStateView = delete("/plans/{id}/approvals");
    CHANGE_REQUESTS: NoBody => Vec<ChangeRequestView> = get("/plans/{id}/change-requests");
    REQUEST_CHANGES: ChangeRequestInput => PlanStatus = post("/plans/{id}/change-requests");
    WITHDRAW_CHANGE_REQUEST: NoBody => PlanStatus = delete("/plans/{id}/change-requests/{reviewer}");
    /// The plan's timeline.
    ACTIVITY: NoBody => Vec<AuditEntry> = get("/plans/{id}/activity");
    STACK_SETTINGS: NoBody => StackSettingsView = get("/stacks/{id}/settings");
    SET_STACK_SETTINGS: StackSettingsView => StackSettingsView = put("/stacks/{id}/settings");
    ORG_SETTINGS: NoBody => OrgSettingsView = get("/orgs/{org}/settings");
    SET_ORG_SETTINGS: OrgSettingsView => OrgSettingsView = put("/orgs/{org}/settings");
    WEBHOOKS: NoBody => Vec<Webhook> = get("/orgs/{org}/webhooks");
    CREATE_WEBHOOK: WebhookInput => NewWebhook = post("/orgs/{org}/webhooks");
    REMOVE_WEBHOOK: NoBody => NoContent = delete_quietly("/orgs/{org}/webhooks/{id}");
    /// The latest 100 deliveries, newest first.
    WEBHOOK_DELIVERIES: NoBody => Vec<WebhookDelivery> = get("/orgs/{org}/webhooks/{id}/deliveries");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_fills_each_parameter_escaped_and_keeps_the_rest() {
        assert_eq!(PLAN_JOB.url(&["p1", "j/2"]), "/api/v1/plans/p1/jobs/j%2F2");
        assert_eq!(STACKS.url(&[]), "/api/v1/stacks");
        assert_eq!(
            AUDIT.url_with(&["acme co"], &[("limit", "500"), ("after", ""), ("format", "a&b")]),
            "/api/v1/orgs/acme%20co/audit?limit=500&format=a%26b"
        );
    }

    #[test]
    #[should_panic(expected = "needs more parameters")]
    fn a_missing_parameter_is_a_bug_said_at_once() {
        PLAN_JOB.url(&["p1"]);
    }

    #[test]
    fn every_endpoint_is_one_method_and_path_and_its_name_is_unique() {
        let mut seen = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for e in ALL {
            assert!(e.path.starts_with('/') && !e.path.ends_with('/'), "{}: {}", e.name, e.path);
            assert!(
                seen.insert((e.method, e.path)),
                "{} {} is declared twice",
                e.method.as_str(),
                e.path
            );
            assert!(names.insert(e.name));
        }
        assert!(ALL.len() > 90, "{} endpoints", ALL.len());
    }

    #[test]
    fn a_request_finds_its_endpoint_and_a_literal_beats_a_parameter() {
        let found = |m, p| endpoint_of(m, p).map(|e| e.name);
        assert_eq!(found(Method::Get, "/plans/p1/jobs/j1"), Some("PLAN_JOB"));
        assert_eq!(found(Method::Get, "/stacks/s1/discoveries/types"), Some("LISTABLE_TYPES"));
        assert_eq!(
            found(Method::Post, "/plans/p1/resolutions/zero-values"),
            Some("ADOPT_ZERO_VALUES")
        );
        assert_eq!(found(Method::Put, "/plans/p1"), None);
        assert_eq!(found(Method::Get, "/plans/p1/nothing"), None);
    }

    #[test]
    fn an_answer_of_the_wrong_shape_is_named_with_its_endpoint() {
        let info = PLAN_STATUS.info("PLAN_STATUS");
        let wrong = info.check_answer(br#"{"state": 3}"#).unwrap_err();
        assert!(wrong.contains("GET /plans/{id}/status (PLAN_STATUS)"), "{wrong}");
        assert!(REMOVE_WEBHOOK.info("REMOVE_WEBHOOK").check_answer(b"").is_ok());
    }
}
