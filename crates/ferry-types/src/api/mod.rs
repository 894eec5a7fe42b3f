//! The HTTP API's endpoints, named once: each one's method, its path under [`PREFIX`], what its
//! body is and what it answers. The server's route table is made of these constants (a route
//! cannot exist without one), the browser's client calls them, and the API tests read every
//! answer they get as the type its endpoint declares.
//!
//! Architecture Invariant: a path of `/api/v1` is written here and nowhere else.

use std::any::TypeId;
use std::marker::PhantomData;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::discovery::{DiscoveryRequest, DiscoveryView, Listables, ProbeResult};
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

mod bodies;
mod queries;

pub use bodies::*;
pub(crate) use queries::is_default;
pub use queries::*;

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

/// A query of nothing: the endpoint reads no query string.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct NoQuery;

/// A body that is a file sent as it is (a state, a spec or program, a Terraform state, a
/// `Pulumi.<stack>.yaml`, an editor's text), or a form of such files; never JSON Ferry reads
/// by type.
#[derive(Debug, Clone, Copy)]
pub struct FileBody;

/// A body that is JSON of `T`, or a file sent as it is (or a form of files), told apart by its
/// content type: a stack uploaded as a file or connected to its backend by JSON; a Terraform
/// state's location alone, or with its configuration's files as a form. Written as `T` is.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct JsonOrFile<T>(pub T);

impl<T: JsonSchema> WireSchema for JsonOrFile<T> {
    fn wire(generator: &mut SchemaGenerator) -> Wire {
        Wire::JsonOrFile(generator.subschema_for::<T>())
    }
}

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

/// A graph as the graph view draws it: nodes and edges, whole or summarised.
pub type GraphJson = crate::graph::StackGraph;

/// An OpenAPI 3.1 document (see [`OPENAPI`]).
pub type OpenApiDocument = serde_json::Value;

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
/// takes (`B`), answers (`A`) and reads from its query string (`Q`) as types, so a call cannot
/// send or read the wrong shape.
pub struct Endpoint<B, A, Q = NoQuery> {
    pub method: Method,
    /// The path under [`PREFIX`], with its parameters in braces, as the server routes it.
    pub path: &'static str,
    answer: AnswerKind,
    /// The statuses a success answers: `200` (`204` for no content), `201` for what creates.
    success: &'static [u16],
    body_wire: fn(&mut SchemaGenerator) -> Wire,
    answer_wire: fn(&mut SchemaGenerator) -> Wire,
    query: QueryWire,
    wire: PhantomData<fn(B, Q) -> A>,
}

/// The query string an endpoint reads, as a type: the server reads exactly it (checked on each
/// request in debug builds), and the OpenAPI document lists its fields as query parameters.
#[derive(Debug, Clone, Copy)]
pub struct QueryWire {
    /// The type's JSON Schema (an object whose properties are the parameters); `None` when the
    /// endpoint reads no query.
    pub schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    /// The type's identity, which the server's query extractor compares with what it reads.
    pub type_id: fn() -> Option<TypeId>,
}

impl QueryWire {
    const NONE: QueryWire = QueryWire { schema: |_| None, type_id: || None };

    const fn of<Q: JsonSchema + 'static>() -> QueryWire {
        QueryWire { schema: query_schema::<Q>, type_id: type_id_of::<Q> }
    }
}

/// `Q`'s own schema, inline (its fields' types by reference), so its properties can be listed.
fn query_schema<Q: JsonSchema>(generator: &mut SchemaGenerator) -> Option<Schema> {
    Some(Q::json_schema(generator))
}

fn type_id_of<Q: 'static>() -> Option<TypeId> {
    Some(TypeId::of::<Q>())
}

/// What a body or an answer is on the wire, as the API's OpenAPI document describes it.
#[derive(Debug, Clone)]
pub enum Wire {
    /// No body.
    Nothing,
    /// JSON of this schema (a `$ref` into the generator's definitions, for a named type).
    Json(Schema),
    /// A file sent as it is, or a form of files.
    File,
    /// JSON of this schema, or a file or a form ([`JsonOrFile`]).
    JsonOrFile(Schema),
    /// Text (code).
    Text,
    /// Server-sent events.
    EventStream,
    /// A file to save.
    Download,
    /// `204 No Content`.
    NoContent,
}

/// A body or answer type's place in the OpenAPI document: a JSON type's schema, or what a marker
/// type ([`NoBody`], [`FileBody`], [`Text`], …) stands for.
pub trait WireSchema {
    fn wire(generator: &mut SchemaGenerator) -> Wire;
}

impl<T: JsonSchema> WireSchema for T {
    fn wire(generator: &mut SchemaGenerator) -> Wire {
        Wire::Json(generator.subschema_for::<T>())
    }
}

macro_rules! marker_wire {
    ($($marker:ty => $wire:expr;)*) => {
        $(impl WireSchema for $marker {
            fn wire(_: &mut SchemaGenerator) -> Wire {
                $wire
            }
        })*
    };
}

marker_wire! {
    NoBody => Wire::Nothing;
    FileBody => Wire::File;
    Text => Wire::Text;
    EventStream => Wire::EventStream;
    Download => Wire::Download;
    NoContent => Wire::NoContent;
}

impl<B, A, Q> Clone for Endpoint<B, A, Q> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B, A, Q> Copy for Endpoint<B, A, Q> {}

fn read_as<A: DeserializeOwned>(body: &[u8]) -> Result<(), String> {
    serde_json::from_slice::<A>(body).map(|_| ()).map_err(|e| e.to_string())
}

impl<A: DeserializeOwned + WireSchema> Endpoint<NoBody, A> {
    pub const fn get(path: &'static str) -> Self {
        Self::json(Method::Get, path)
    }
}

impl<B: WireSchema, A: DeserializeOwned + WireSchema> Endpoint<B, A> {
    const fn json(method: Method, path: &'static str) -> Self {
        Endpoint::new(method, path, AnswerKind::Json(read_as::<A>))
    }

    /// A `POST` that starts a job, answered `202 Accepted` with the job to follow.
    pub const fn start(path: &'static str) -> Self {
        Endpoint { success: &[202], ..Self::json(Method::Post, path) }
    }

    /// A `POST` that makes something, answered `201 Created`.
    pub const fn create(path: &'static str) -> Self {
        Endpoint { success: &[201], ..Self::json(Method::Post, path) }
    }

    /// A `POST` that may make something: `201` when it did, `200` when it did not (it revised
    /// what the body names, or found nothing to make).
    pub const fn may_create(path: &'static str) -> Self {
        Endpoint { success: &[201, 200], ..Self::json(Method::Post, path) }
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
        Endpoint::new(Method::Get, path, AnswerKind::Text)
    }
}

impl Endpoint<NoBody, EventStream> {
    pub const fn events(path: &'static str) -> Self {
        Endpoint::new(Method::Get, path, AnswerKind::EventStream)
    }
}

impl Endpoint<NoBody, Download> {
    pub const fn download(path: &'static str) -> Self {
        Endpoint::new(Method::Get, path, AnswerKind::Download)
    }
}

impl Endpoint<NoBody, NoContent> {
    pub const fn delete_quietly(path: &'static str) -> Self {
        Endpoint { success: &[204], ..Endpoint::new(Method::Delete, path, AnswerKind::NoContent) }
    }
}

/// What is escaped in a path parameter or a query value: everything but RFC 3986's unreserved
/// characters.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `value` escaped for a path segment or a query value.
pub fn escape(value: &str) -> String {
    utf8_percent_encode(value, ESCAPED).to_string()
}

impl<B: WireSchema, A: WireSchema> Endpoint<B, A> {
    const fn new(method: Method, path: &'static str, answer: AnswerKind) -> Self {
        Endpoint {
            method,
            path,
            answer,
            success: &[200],
            body_wire: B::wire,
            answer_wire: A::wire,
            query: QueryWire::NONE,
            wire: PhantomData,
        }
    }
}

impl<B, A> Endpoint<B, A> {
    /// The endpoint, reading a query string of type `Q`.
    pub const fn query<Q: JsonSchema + 'static>(self) -> Endpoint<B, A, Q> {
        Endpoint {
            method: self.method,
            path: self.path,
            answer: self.answer,
            success: self.success,
            body_wire: self.body_wire,
            answer_wire: self.answer_wire,
            query: QueryWire::of::<Q>(),
            wire: PhantomData,
        }
    }
}

impl<B, A, Q> Endpoint<B, A, Q> {
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

    /// [`Endpoint::url`] with the endpoint's query: each of its fields that is set (not null,
    /// not an empty text, and not left out by the type), in the type's order, escaped.
    ///
    /// # Panics
    /// When a field of `Q` is a list or an object, which a query string cannot carry: a bug of
    /// the type, not input.
    pub fn url_with(&self, params: &[&str], query: &Q) -> String
    where
        Q: Serialize,
    {
        let mut url = self.url(params);
        let fields = match serde_json::to_value(query) {
            Ok(serde_json::Value::Object(fields)) => fields,
            Ok(serde_json::Value::Null) => return url,
            other => panic!("{}: a query is a struct of named fields, not {other:?}", self.path),
        };
        let mut first = true;
        for (key, value) in fields {
            let value = match value {
                serde_json::Value::Null => continue,
                serde_json::Value::String(text) if text.is_empty() => continue,
                serde_json::Value::String(text) => text,
                serde_json::Value::Bool(_) | serde_json::Value::Number(_) => value.to_string(),
                other => panic!("{}: `{key}` cannot be a query parameter: {other}", self.path),
            };
            url.push(if first { '?' } else { '&' });
            first = false;
            url.push_str(&key);
            url.push('=');
            url.push_str(&escape(&value));
        }
        url
    }

    /// A call of this endpoint for `params` (see [`Endpoint::url`]), typed as the endpoint is.
    pub fn at(&self, params: &[&str]) -> Call<B, A> {
        Call { method: self.method, url: self.url(params), wire: PhantomData }
    }

    /// [`Endpoint::at`] with the endpoint's query (see [`Endpoint::url_with`]).
    pub fn at_with(&self, params: &[&str], query: &Q) -> Call<B, A>
    where
        Q: Serialize,
    {
        Call { method: self.method, url: self.url_with(params, query), wire: PhantomData }
    }

    /// What the route table and the tests need to know of it, without its types.
    pub const fn info(&self, name: &'static str, summary: &'static str) -> EndpointInfo {
        EndpointInfo {
            name,
            summary,
            method: self.method,
            path: self.path,
            answer: self.answer,
            success: self.success,
            body: self.body_wire,
            answer_wire: self.answer_wire,
            query: self.query,
        }
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

/// An endpoint without its types: its name here, what its declaration's comment says of it,
/// method, path, how its answer is read, and its body and answer as the OpenAPI document
/// describes them.
#[derive(Debug, Clone, Copy)]
pub struct EndpointInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub method: Method,
    pub path: &'static str,
    pub answer: AnswerKind,
    /// The statuses a success answers.
    pub success: &'static [u16],
    /// The body it takes, described with `generator`'s definitions.
    pub body: fn(&mut SchemaGenerator) -> Wire,
    /// What a successful call answers, described with `generator`'s definitions.
    pub answer_wire: fn(&mut SchemaGenerator) -> Wire,
    /// The query string it reads.
    pub query: QueryWire,
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
    fn call<A, Q: Serialize>(
        &self,
        owner: &Endpoint<NoBody, A, Q>,
        shared: &Endpoint<NoBody, A, Q>,
        query: &Q,
    ) -> Call<NoBody, A> {
        match self {
            crate::PreviewRef::Owner { preview } => owner.at_with(&[preview], query),
            crate::PreviewRef::Shared { token, revision, index } => {
                shared.at_with(&[token, &revision.to_string(), &index.to_string()], query)
            }
        }
    }

    /// A page of the results.
    pub fn results(&self, query: &crate::ResultQuery) -> Call<NoBody, ResultPage> {
        self.call(&RESULTS, &SHARED_RESULTS, query)
    }

    /// One resource's result.
    pub fn result(&self, urn: &str) -> Call<NoBody, ResultDetail> {
        self.call(&RESULT, &SHARED_RESULT, &UrnQuery { urn: urn.to_string() })
    }

    /// The stack graph with the preview's resources marked.
    pub fn graph(&self) -> Call<NoBody, GraphJson> {
        self.call(&PREVIEW_GRAPH, &SHARED_PREVIEW_GRAPH, &GraphQuery::default())
    }

    /// Code for the preview's ready resources.
    pub fn code(&self, query: &crate::previews::CodeQuery) -> Call<NoBody, Text> {
        self.call(&PREVIEW_CODE, &SHARED_PREVIEW_CODE, query)
    }
}

/// The calls of a plan's page, as a member (by the plan's ID) or through a read-only link (by its
/// token), whichever `self` is.
impl crate::PlanAccess {
    /// The plan with revision `revision`.
    pub fn revision_view(&self, revision: i64) -> Call<NoBody, PlanView> {
        match &self.share_token {
            Some(token) => {
                SHARED_PLAN.at_with(&[token], &RevisionQuery { revision: Some(revision) })
            }
            None => PLAN_REVISION.at(&[&self.plan_id, &revision.to_string()]),
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

/// Declares the endpoints and [`ALL`], so that no endpoint is left out of the list the server's
/// table and the tests check.
macro_rules! endpoints {
    ($($(#[doc = $doc:literal])* $name:ident: $body:ty => $answer:ty = $make:ident($path:literal) $(.query::<$query:ty>())?;)*) => {
        $(
            $(#[doc = $doc])*
            pub const $name: Endpoint<$body, $answer $(, $query)?> = Endpoint::$make($path)$(.query::<$query>())?;
        )*

        /// Every endpoint, in the order declared.
        pub const ALL: &[EndpointInfo] =
            &[$($name.info(stringify!($name), concat!("" $(, $doc, "\n")*)),)*];
    };
}

endpoints! {
    /// This API's OpenAPI 3.1 document: every endpoint, who may call it, its types and errors.
    OPENAPI: NoBody => OpenApiDocument = get("/openapi.json");
    /// Who is signed in, with their roles and credential.
    ME: NoBody => Me = get("/me");
    CHANGE_PASSWORD: PasswordChange => PasswordChanged = post("/me/password");
    /// Signs the caller out everywhere (API tokens stay).
    END_ALL_SESSIONS: NoBody => SignedOut = post("/me/sessions/revoke");
    /// The caller's API tokens, never their secrets.
    TOKENS: NoBody => Vec<ApiTokenInfo> = get("/me/tokens");
    /// A new token, its secret shown this once.
    CREATE_TOKEN: TokenInput => ApiTokenInfo = create("/me/tokens");
    REVOKE_TOKEN: NoBody => ApiTokenInfo = delete("/me/tokens/{id}");
    MEMBERS: NoBody => Vec<MemberView> = get("/orgs/{org}/members");
    SET_MEMBER: MemberInput => MemberView = put("/orgs/{org}/members/{name}");
    INVITATIONS: NoBody => Vec<Invitation> = get("/orgs/{org}/invitations");
    INVITE: InvitationInput => NewInvitation = create("/orgs/{org}/invitations");
    REVOKE_INVITATION: NoBody => Invitation = delete("/orgs/{org}/invitations/{id}");
    /// The open invitation a link names, for its holder.
    INVITATION: NoBody => Invitation = get("/invitations/{token}");
    /// The organisation's audit log (`?format=jsonl` answers JSON lines).
    AUDIT: NoBody => Vec<AuditEntry> = get("/orgs/{org}/audit").query::<AuditQuery>();
    STACKS: NoBody => Vec<StackSummary> = get("/stacks");
    /// A state file as the body, sent as it is; or, as JSON, a stack a DIY backend keeps
    /// ([`ConnectStack`]).
    UPLOAD_STACK: JsonOrFile<ConnectStack> => UploadOutcome = create("/stacks").query::<UploadQuery>();
    STACK: NoBody => StackSummary = get("/stacks/{id}");
    STACK_VERSIONS: NoBody => Vec<StackSummary> = get("/stacks/{id}/versions");
    STACK_LOCKS: NoBody => Vec<BackendLock> = get("/stacks/{id}/locks");
    STACK_CONFIG: NoBody => StackConfig = get("/stacks/{id}/config");
    /// The stack's `Pulumi.<stack>.yaml` as the body.
    SET_STACK_CONFIG: FileBody => StackConfig = put("/stacks/{id}/config");
    /// The state as `pulumi stack export` writes it.
    STACK_EXPORT: NoBody => Download = download("/stacks/{id}/export").query::<VersionQuery>();
    /// The stack's graph; past 1,500 resources, summarised unless `full`.
    STACK_GRAPH: NoBody => GraphJson = get("/stacks/{id}/graph").query::<GraphQuery>();
    /// One page of a version's resources, filtered and sorted on the server.
    STACK_RESOURCES: NoBody => ResourcePage = get("/stacks/{id}/resources").query::<RowsQuery>();
    /// One resource of a version, by its URN.
    STACK_RESOURCE: NoBody => ResourceDetail = get("/stacks/{id}/resource").query::<ResourceQuery>();
    /// An import spec or a program as the body; nothing reaches the stack.
    CREATE_PREVIEW: FileBody => PreviewView<'static> = create("/stacks/{id}/previews").query::<crate::previews::ScopeQuery>();
    START_IDENTIFICATION: IdentifyRequest => IdentificationJob = start("/stacks/{id}/identifications");
    IDENTIFICATION: NoBody => IdentificationJob = get("/identifications/{id}");
    IDENTIFICATION_EVENTS: NoBody => EventStream = events("/identifications/{id}/events");
    CANCEL_IDENTIFICATION: NoBody => IdentificationJob = post("/identifications/{id}/cancel");
    PREVIEW: NoBody => PreviewView<'static> = get("/previews/{id}");
    /// The preview's ready resources become the stack's next version.
    COMMIT_PREVIEW: NoBody => CommitOutcome = create("/previews/{id}/commit").query::<CommitQuery>();
    /// Code for the preview's ready resources.
    PREVIEW_CODE: NoBody => Text = text("/previews/{id}/code").query::<crate::previews::CodeQuery>();
    CREATE_PLAN: PlanInput => PlanView = create("/stacks/{id}/plans");
    /// The stack's plans, with [`PLANS`]'s filters.
    STACK_PLANS: NoBody => PlanListPage = get("/stacks/{id}/plans").query::<crate::plans::PlanListQuery>();
    /// The plans of the caller's organisations, a page at a time.
    PLANS: NoBody => PlanListPage = get("/plans").query::<crate::plans::PlanListQuery>();
    PLAN_STATUS: NoBody => PlanStatus = get("/plans/{id}/status");
    CLOSE_PLAN: NoBody => PlanStatus = post("/plans/{id}/close");
    REOPEN_PLAN: NoBody => PlanStatus = post("/plans/{id}/reopen");
    PLAN: NoBody => PlanView = get("/plans/{id}");
    SAVE_PLAN: PlanInput => PlanView = create("/plans/{id}/revisions");
    PLAN_REVISION: NoBody => PlanView = get("/plans/{id}/revisions/{revision}");
    /// A background preview of a revision (default: the latest).
    START_PLAN_PREVIEW: NoBody => JobView = start("/plans/{id}/previews").query::<RevisionQuery>();
    PLAN_JOBS: NoBody => Vec<JobView> = get("/plans/{id}/jobs");
    PLAN_JOB: NoBody => JobView = get("/plans/{id}/jobs/{job}");
    PLAN_JOB_EVENTS: NoBody => EventStream = events("/plans/{id}/jobs/{job}/events");
    CANCEL_PLAN_JOB: NoBody => JobView = post("/plans/{id}/jobs/{job}/cancel");
    SHARES: NoBody => Vec<ShareLink> = get("/plans/{id}/shares");
    CREATE_SHARE: NoBody => NewShareLink = create("/plans/{id}/shares");
    REVOKE_SHARE: NoBody => ShareLink = delete("/plans/{id}/shares/{link}");
    /// The plan through a read-only link (no plan or preview IDs).
    SHARED_PLAN: NoBody => PlanView = get("/shared/{token}").query::<RevisionQuery>();
    SHARED_PREVIEW: NoBody => PreviewView<'static> = get("/shared/{token}/previews/{index}").query::<RevisionQuery>();
    /// Code for a version's resources.
    STACK_CODE: NoBody => Text = text("/stacks/{id}/code").query::<crate::previews::CodeQuery>();
    /// A spec's or a program's text as the body: its problems, placed.
    MARKERS: FileBody => Vec<EditorMarker> = post("/markers").query::<MarkersQuery>();
    EDITOR_HELP: NoBody => EditorHelp = get("/stacks/{id}/editor-help");
    /// One page of a preview's results, filtered on the server.
    RESULTS: NoBody => ResultPage = get("/previews/{id}/results").query::<crate::ResultQuery>();
    /// One result of a preview, with its differences.
    RESULT: NoBody => ResultDetail = get("/previews/{id}/results/resource").query::<UrnQuery>();
    PREVIEW_GRAPH: NoBody => GraphJson = get("/previews/{id}/graph").query::<GraphQuery>();
    VIEWED: NoBody => ViewedResources = get("/previews/{id}/viewed");
    MARK_VIEWED: ViewedMarkInput => ViewedMarkAnswer = put("/previews/{id}/viewed");
    SHARED_RESULTS: NoBody => ResultPage = get("/shared/{token}/revisions/{revision}/previews/{index}/results").query::<crate::ResultQuery>();
    SHARED_RESULT: NoBody => ResultDetail = get("/shared/{token}/revisions/{revision}/previews/{index}/results/resource").query::<UrnQuery>();
    SHARED_PREVIEW_GRAPH: NoBody => GraphJson = get("/shared/{token}/revisions/{revision}/previews/{index}/graph").query::<GraphQuery>();
    SHARED_PREVIEW_CODE: NoBody => Text = text("/shared/{token}/revisions/{revision}/previews/{index}/code").query::<crate::previews::CodeQuery>();
    RESOLVE: ResolutionInput => RevisedPlan = create("/plans/{id}/resolutions");
    CHOOSE_IDENTIFICATIONS: IdentificationChoices => RevisedPlan = create("/plans/{id}/identifications");
    ADOPT_ZERO_VALUES: ZeroValuesInput => RevisedPlan = create("/plans/{id}/resolutions/zero-values");
    /// The stacks a DIY backend allowed to the organisation holds.
    BACKEND_STACKS: NoBody => Vec<BackendStack> = get("/backends/stacks").query::<BackendQuery>();
    START_DISCOVERY: DiscoveryRequest => DiscoveryView = start("/stacks/{id}/discoveries");
    LISTABLE_TYPES: NoBody => Listables = get("/stacks/{id}/discoveries/types");
    PROBE: ProbeRequest => Vec<ProbeResult> = post("/stacks/{id}/discoveries/probe");
    DISCOVERED_TO_PLAN: DiscoveredToPlan => PlanView = may_create("/stacks/{id}/discoveries/plan");
    /// A Terraform or OpenTofu state as the body, or a form of it (`state`) and its
    /// configuration (`configuration`).
    MIGRATE_TERRAFORM: FileBody => MigrationView = may_create("/stacks/{id}/migrations/terraform").query::<MigrationChoices>();
    /// Where the state lives as JSON, or a form of it (`remote`) and the configuration.
    MIGRATE_TERRAFORM_REMOTE: JsonOrFile<RemoteState> => MigrationView = may_create("/stacks/{id}/migrations/terraform/remote").query::<MigrationChoices>();
    /// The workspaces of a Terraform backend.
    TERRAFORM_WORKSPACES: NoBody => Workspaces = get("/stacks/{id}/migrations/terraform/workspaces").query::<RemoteState>();
    DISCOVERY: NoBody => DiscoveryView = get("/discoveries/{id}");
    DISCOVERY_EVENTS: NoBody => EventStream = events("/discoveries/{id}/events");
    CANCEL_DISCOVERY: NoBody => DiscoveryView = post("/discoveries/{id}/cancel");
    /// The plan's comments.
    COMMENTS: NoBody => Vec<CommentView> = get("/plans/{id}/comments").query::<RevisionQuery>();
    ADD_COMMENT: CommentInput => CommentView = create("/plans/{id}/comments");
    RESOLVE_COMMENT: CommentResolution => CommentView = post("/plans/{id}/comments/{comment}/resolve");
    /// The plan's comments, through a read-only link.
    SHARED_COMMENTS: NoBody => Vec<CommentView> = get("/shared/{token}/comments").query::<RevisionQuery>();
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
    CREATE_WEBHOOK: WebhookInput => NewWebhook = create("/orgs/{org}/webhooks");
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
        let query =
            AuditQuery { limit: Some(500), format: Some("a&b".into()), ..Default::default() };
        assert_eq!(
            AUDIT.url_with(&["acme co"], &query),
            "/api/v1/orgs/acme%20co/audit?limit=500&format=a%26b"
        );
        // A field at its default is left out where its type says so; every other is written.
        let code = crate::previews::CodeQuery { elide: Some(false), ..Default::default() };
        assert_eq!(PREVIEW_CODE.url_with(&["p"], &code), "/api/v1/previews/p/code?elide=false");
        assert_eq!(STACK.url_with(&["s"], &NoQuery), "/api/v1/stacks/s");
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
        let info = PLAN_STATUS.info("PLAN_STATUS", "");
        let wrong = info.check_answer(br#"{"state": 3}"#).unwrap_err();
        assert!(wrong.contains("GET /plans/{id}/status (PLAN_STATUS)"), "{wrong}");
        assert!(REMOVE_WEBHOOK.info("REMOVE_WEBHOOK", "").check_answer(b"").is_ok());
    }
}
