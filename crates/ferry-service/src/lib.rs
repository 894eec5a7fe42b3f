//! Ferry's use cases, shared by the HTTP API and the UI's server functions: stacks (upload,
//! versions, resources, graph, details), import and program previews and commits, code, plans
//! and their background previews, review and resolutions. [`Ferry`] is the core they share;
//! each domain is a handle on it (`ferry.stacks()`, `ferry.previews()`, …, see `handles!`).
//!
//! Architecture Invariant: nothing here knows HTTP or Leptos; callers map [`ServiceError`]
//! to their own responses.

pub mod access;
pub mod accounts;
pub mod approvals;
mod backends;
mod code;
pub mod comments;
mod demo;
mod discovery;
mod editor;
mod engine_thread;
mod error;
mod identify;
mod imports;
mod invitations;
mod jobs;
mod lifecycle;
mod lru;
mod managed;
mod masking;
mod oidc_sign_in;
mod plans;
mod plugin_host;
mod previews;
mod programs;
mod request;
mod resolve;
mod results;
mod sign_in_limits;
mod stack_config;
mod stack_secrets;
mod stacks;
mod terraform;
mod terraform_remote;
mod verify;
mod viewed;
mod views;
pub mod webhooks;

use std::sync::{Arc, Mutex};

use ferry_state::Deployment;
use ferry_store::{StackSummary, Store};

pub use backends::AllowedBackend;
pub use code::{comma_list, CodeRequest, GeneratedCode};
pub use demo::{demo_export, DEMO_STACK};
pub use discovery::spec_with;
pub use editor::{markers, SourceKind};
pub use error::ServiceError;
pub use ferry_backend::BackendStack;
pub use ferry_types::api::CommitOutcome;
pub use ferry_types::discovery::{
    DiscoveryEvent, DiscoveryRequest, DiscoveryView, Listables, Managed, ProbeItem, ProbeResult,
    Selected, TypeQuery,
};
pub use ferry_types::plans::{PlanInput, PlanOptions, PlanView, RevisionView};
pub use ferry_types::terraform::MigrationView;
pub use imports::EngineConfig;
pub use jobs::{JobShown, JobStatus, JobUpdate, JobView};
pub use previews::{PlanSource, PreviewRecord, StoredPlan};
pub use programs::{read_project, ProgramRequest, ProgramSource};
pub use request::{PreviewRequest, PreviewSource};
pub use stack_config::StackConfig;
pub use stacks::{GraphAnswer, LoadedVersion, UploadOutcome};
pub use terraform::{configuration_of_zip, MigrationChoices};
pub use verify::{KeptProperty, Verification};
pub use views::{ResourceDetail, ResourcePage, ResourceRow, RowQuery, MAX_PAGE_ROWS};

/// The default upload limit, 64 MiB.
pub const DEFAULT_MAX_STATE_BYTES: usize = 64 * 1024 * 1024;

/// How many bytes the parsed versions kept in memory may hold together, as their resources
/// weigh themselves ([`ferry_state::Resource::held_bytes`]): by bytes, not by resources, since
/// one stack's resources may each hold a hundred times another's. The 100,000-resource stack
/// `scale.mjs` generates weighs 83 MB (its parsed version grows the server by about 108 MB): one
/// such version fits with smaller ones, not two.
const CACHE_BYTES: usize = 160 << 20;
/// How many stored previews' results rows are kept, together (a row is a few hundred bytes):
/// scrolling through a 10,000-import plan's results must not parse its preview each page.
const RESULT_CACHE_ROWS: usize = 100_000;

/// Ferry's service: the core every domain shares (the store, the caches, the engine's
/// configuration, the jobs this instance runs), handed out as one handle per domain. Each handle
/// holds the core and reaches its fields and the other handles through it; none holds state
/// of its own, so making one costs a reference count.
pub struct Ferry {
    store: Store,
    engine: Option<EngineConfig>,
    max_state_bytes: usize,
    /// Parsed versions, weighed by the bytes their resources hold.
    cache: Mutex<lru::WeightedLru<(String, i64), Arc<LoadedVersion>>>,
    /// Stored previews' results rows (what the plan page pages through), weighed by rows.
    result_rows: Mutex<lru::WeightedLru<String, Arc<results::ResultRows>>>,
    jobs: jobs::LiveJobs,
    /// DIY backend URLs the administrator allows (see `backends.rs`).
    allowed_backends: Vec<backends::AllowedBackend>,
    schema_hints: editor::SchemaHints,
    sign_in_limits: accounts::SignInLimits,
    webhook_settings: webhooks::WebhookSettings,
    /// Wakes the webhook worker when a delivery is queued.
    webhook_wake: tokio::sync::Notify,
}

impl Ferry {
    pub fn new(store: Store, max_state_bytes: usize) -> Ferry {
        Ferry {
            store,
            engine: None,
            max_state_bytes,
            cache: Mutex::new(lru::WeightedLru::new(CACHE_BYTES)),
            result_rows: Mutex::new(lru::WeightedLru::new(RESULT_CACHE_ROWS)),
            jobs: Default::default(),
            allowed_backends: Vec::new(),
            schema_hints: Default::default(),
            sign_in_limits: Default::default(),
            webhook_settings: Default::default(),
            webhook_wake: tokio::sync::Notify::new(),
        }
    }

    /// How webhooks retry, where they may reach, and the public URL their plan links start with.
    pub fn with_webhooks(mut self, settings: webhooks::WebhookSettings) -> Ferry {
        self.webhook_settings = settings;
        self
    }

    /// Enables import previews and commits.
    pub fn with_engine(mut self, config: EngineConfig) -> Ferry {
        self.engine = Some(config);
        self
    }

    pub fn max_state_bytes(&self) -> usize {
        self.max_state_bytes
    }

    /// The engine's configuration, which every preview, commit, discovery and code request needs.
    pub(crate) fn engine(&self) -> Result<&EngineConfig, ServiceError> {
        self.engine
            .as_ref()
            .ok_or_else(|| ServiceError::Internal("the import engine is not configured".into()))
    }

    fn cached(&self, key: &(String, i64)) -> Option<Arc<LoadedVersion>> {
        self.cache.lock().expect("cache lock").get(key)
    }

    /// Drops a parsed version from the cache (a commit superseding it takes its resources).
    fn forget(&self, id: &str, version: i64) {
        self.cache.lock().expect("cache lock").remove(&(id.to_string(), version));
    }

    /// A version just stored (uploaded or committed), kept parsed for the pages that follow.
    fn remember(&self, summary: StackSummary, deployment: Deployment, features: Vec<String>) {
        let key = (summary.id.clone(), summary.version);
        self.keep(key, LoadedVersion::new(summary, deployment, features));
    }

    /// Keeps `loaded`, evicting the least recently used versions past the cache's budget.
    fn keep(&self, key: (String, i64), loaded: LoadedVersion) -> Arc<LoadedVersion> {
        let weight: usize = loaded.deployment.resources().iter().map(|r| r.held_bytes()).sum();
        let loaded = Arc::new(loaded);
        // Versions never change, so any may go: the one used longest ago (never this one).
        tracing::debug!(stack = %key.0, version = key.1, resources = loaded.deployment.resources().len(), weight, "parsed version kept");
        self.cache.lock().expect("cache lock").insert(key, loaded.clone(), weight);
        loaded
    }
}

/// Declares each domain's handle and the core's accessor for it: a handle is a cheap clone of
/// the core that reaches its fields (and the other handles) through `Deref`, so a domain's
/// methods read `self.store` as the core's own would.
macro_rules! handles {
    ($($(#[$doc:meta])* $accessor:ident: $name:ident;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone)]
            pub struct $name(Arc<Ferry>);

            impl std::ops::Deref for $name {
                type Target = Arc<Ferry>;
                fn deref(&self) -> &Arc<Ferry> {
                    &self.0
                }
            }
        )*

        impl Ferry {
            $(
                $(#[$doc])*
                pub fn $accessor(self: &Arc<Self>) -> $name {
                    $name(self.clone())
                }
            )*
        }
    };
}

handles! {
    /// Stacks and their versions: uploads, the parsed versions, their settings and config.
    stacks: Stacks;
    /// Plans: revisions, shares, comments, approvals, resolutions.
    plans: Plans;
    /// Where plans stand: each one's state at every event, closing and reopening, requests for
    /// changes, and the lists people find plans in.
    workflow: Workflow;
    /// Previews of imports and programs, their review, their commit and their code.
    previews: Previews;
    /// Background jobs (plan previews and discoveries): start, follow, cancel, recover.
    jobs: Jobs;
    /// Discovery of what a provider can list, and adding what it found to a plan.
    discoveries: Discoveries;
    /// Users, sessions, tokens, members, organisations' settings, the audit log, and who may
    /// do what.
    accounts: Accounts;
    /// Stacks kept in DIY backends: what a backend holds, connecting, locks and writes.
    backends: Backends;
    /// Organisations' webhooks and the deliveries of plan events to them.
    webhooks: Webhooks;
}

#[cfg(test)]
mod tests;
