//! Ferry's use cases, shared by the HTTP API and the UI's server functions: stacks (upload,
//! versions, resources, graph, details), import and program previews and commits, code, plans
//! and their background previews, review and resolutions. Each domain is a plain struct of its
//! own (`Stacks`, `Previews`, …), holding only what it uses; [`Ferry`] wires them once, each
//! given the ones beneath it, and hands them out (`ferry.stacks()`, `ferry.previews()`, …).
//!
//! Architecture Invariant: nothing here knows HTTP or Leptos; callers map [`ServiceError`]
//! to their own responses.

// The domains, one folder each (`Ferry` shows the one order they call each other in).
pub mod accounts;
mod backends;
mod discoveries;
mod jobs;
mod plans;
mod previews;
mod stacks;
pub mod webhooks;
mod workflow;
// The pieces beneath the domains that several of them are given.
mod error;
mod lru;
mod plugin_host;
mod shares;
mod stack_secrets;

pub use accounts::access;

use std::sync::Arc;

use ferry_store::Store;

pub use accounts::Accounts;
pub use backends::Backends;
pub use discoveries::Discoveries;
pub use jobs::Jobs;
pub use plans::Plans;
use plugin_host::PluginHost;
use previews::engine_thread::EngineThreads;
pub use previews::Previews;
use shares::ShareLinks;
pub use stacks::Stacks;
pub use webhooks::Webhooks;
pub use workflow::Workflow;

pub use backends::AllowedBackend;
pub use discoveries::spec_with;
pub use error::ServiceError;
pub use ferry_backend::BackendStack;
pub use ferry_types::api::CommitOutcome;
pub use ferry_types::discovery::{
    DiscoveryEvent, DiscoveryRequest, DiscoveryView, Listables, Managed, ProbeItem, ProbeResult,
    Selected, TypeQuery,
};
pub use ferry_types::plans::{PlanInput, PlanOptions, PlanView, RevisionView};
pub use ferry_types::terraform::MigrationView;
pub use jobs::{default_concurrent_runs, JobShown, JobStatus, JobUpdate, JobView, Turn};
pub use plans::terraform::configuration_of_zip;
pub use previews::code::{comma_list, CodeRequest, GeneratedCode};
pub use previews::imports::EngineConfig;
pub use previews::programs::{read_project, ProgramRequest, ProgramSource};
pub use previews::request::{PreviewRequest, PreviewSource};
pub use previews::verify::{KeptProperty, Verification};
pub use previews::{PlanSource, PreviewRecord, StoredPlan};
pub use stacks::demo::{demo_export, DEMO_STACK};
pub use stacks::editor::{markers, SourceKind};
pub use stacks::stack_config::StackConfig;
pub use stacks::views::{ResourceDetail, ResourcePage, ResourceRow, RowQuery, MAX_PAGE_ROWS};
pub use stacks::{GraphAnswer, LoadedVersion, UploadOutcome};

/// The default upload limit, 64 MiB.
pub const DEFAULT_MAX_STATE_BYTES: usize = 64 * 1024 * 1024;

/// How the administrator set the service up: what [`Ferry::new`] and its `with_` builders
/// gather, and what the domains are wired from.
#[derive(Clone)]
struct Settings {
    store: Store,
    max_state_bytes: usize,
    engine: EngineSlot,
    allowed_backends: Vec<AllowedBackend>,
    webhooks: webhooks::WebhookSettings,
    job_lease: std::time::Duration,
    job_retention: std::time::Duration,
    concurrent_runs: usize,
}

/// Ferry's service: one plain struct per domain, each holding only what it uses, wired once
/// here in the one order they depend on each other, lowest first:
///
/// ```text
/// Jobs → Accounts → Stacks → Backends → Webhooks → Previews → Workflow → Plans → Discoveries
/// ```
///
/// Each is given those to its left that it uses. `PluginHost` (over `Accounts`) and
/// `ShareLinks` (over `Accounts`) are handed to the domains that launch plugins or read links.
///
/// A domain is given the pieces beneath it (the store, the engine's configuration, the plugin
/// host, the domains it calls) and never calls one above it: what a higher domain must hear of
/// (a commit moving a plan's state) is that domain's own entry point, which calls down.
pub struct Ferry {
    settings: Settings,
    jobs: Jobs,
    accounts: Accounts,
    stacks: Stacks,
    backends: Backends,
    webhooks: Webhooks,
    previews: Previews,
    workflow: Workflow,
    plans: Plans,
    discoveries: Discoveries,
}

impl Ferry {
    pub fn new(store: Store, max_state_bytes: usize) -> Ferry {
        Ferry::wire(Settings {
            store,
            max_state_bytes,
            engine: EngineSlot::default(),
            allowed_backends: Vec::new(),
            webhooks: Default::default(),
            job_lease: jobs::DEFAULT_LEASE,
            job_retention: jobs::DEFAULT_RETENTION,
            concurrent_runs: jobs::default_concurrent_runs(),
        })
    }

    /// Builds every domain from `settings`, each given the ones beneath it.
    fn wire(settings: Settings) -> Ferry {
        let store = settings.store.clone();
        let engine = settings.engine.clone();
        let jobs = Jobs::new(
            store.clone(),
            settings.job_lease,
            settings.job_retention,
            settings.concurrent_runs,
        );
        let accounts = Accounts::new(store.clone(), jobs.clone());
        let plugins = PluginHost::new(engine.clone(), accounts.clone());
        let stacks = Stacks::new(
            store.clone(),
            engine.clone(),
            settings.max_state_bytes,
            accounts.clone(),
            plugins.clone(),
        );
        let backends = Backends::new(
            store.clone(),
            settings.allowed_backends.clone(),
            settings.max_state_bytes,
            jobs.clone(),
            stacks.clone(),
        );
        let webhooks = Webhooks::new(store.clone(), engine.clone(), settings.webhooks.clone());
        let shares = ShareLinks::new(store.clone(), accounts.clone());
        let previews = Previews::new(
            store.clone(),
            engine.clone(),
            stacks.clone(),
            backends.clone(),
            jobs.clone(),
            plugins.clone(),
            shares.clone(),
        );
        let workflow = Workflow::new(store.clone(), previews.clone(), webhooks.clone());
        let plans = Plans::new(plans::PlansWiring {
            store: store.clone(),
            engine: engine.clone(),
            accounts: accounts.clone(),
            stacks: stacks.clone(),
            backends: backends.clone(),
            previews: previews.clone(),
            workflow: workflow.clone(),
            jobs: jobs.clone(),
            plugins: plugins.clone(),
            shares,
        });
        let discoveries =
            Discoveries::new(engine, stacks.clone(), plans.clone(), jobs.clone(), plugins);
        Ferry {
            settings,
            jobs,
            accounts,
            stacks,
            backends,
            webhooks,
            previews,
            workflow,
            plans,
            discoveries,
        }
    }

    /// How webhooks retry, where they may reach, and the public URL their plan links start with.
    pub fn with_webhooks(mut self, settings: webhooks::WebhookSettings) -> Ferry {
        self.settings.webhooks = settings;
        Ferry::wire(self.settings)
    }

    /// Enables import previews and commits.
    pub fn with_engine(mut self, config: EngineConfig) -> Ferry {
        self.settings.engine = EngineSlot::of(config);
        Ferry::wire(self.settings)
    }

    /// Lets the service open DIY backends under these URLs (folders, buckets with their
    /// endpoint), each for its organisation; none by default.
    pub fn with_allowed_backends(mut self, allowed: Vec<AllowedBackend>) -> Ferry {
        self.settings.allowed_backends = allowed;
        Ferry::wire(self.settings)
    }

    /// This service's jobs with leases of `lease` (tests shorten it; `ferry serve` reads
    /// `FERRY_JOB_LEASE_SECONDS`).
    pub fn with_job_lease(mut self, lease: std::time::Duration) -> Ferry {
        self.settings.job_lease = lease;
        Ferry::wire(self.settings)
    }

    /// Keeps finished jobs, their events and ended sessions for `retention` (30 days by
    /// default), then the job upkeep removes them.
    pub fn with_job_retention(mut self, retention: std::time::Duration) -> Ferry {
        self.settings.job_retention = retention;
        Ferry::wire(self.settings)
    }

    /// Runs at most `n` previews, discoveries and identifications at a time on this instance,
    /// as jobs or asked for directly; the rest wait their turn (a job shows queued), in the
    /// order asked (`ferry serve --concurrent-runs`; by default the machine's cores).
    pub fn with_concurrent_runs(mut self, n: usize) -> Ferry {
        self.settings.concurrent_runs = n.max(1);
        Ferry::wire(self.settings)
    }

    pub fn max_state_bytes(&self) -> usize {
        self.settings.max_state_bytes
    }

    /// Stacks and their versions: uploads, the parsed versions, their settings and config.
    pub fn stacks(&self) -> &Stacks {
        &self.stacks
    }

    /// Plans: revisions, shares, comments, approvals, resolutions.
    pub fn plans(&self) -> &Plans {
        &self.plans
    }

    /// Where plans stand: each one's state at every event, the approval rule, commits,
    /// closing and reopening, requests for changes, and the lists people find plans in.
    pub fn workflow(&self) -> &Workflow {
        &self.workflow
    }

    /// Previews of imports and programs, their results and their code.
    pub fn previews(&self) -> &Previews {
        &self.previews
    }

    /// Background jobs (plan previews, discoveries, identifications): follow, cancel.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// Discovery of what a provider can list, and adding what it found to a plan.
    pub fn discoveries(&self) -> &Discoveries {
        &self.discoveries
    }

    /// Users, sessions, tokens, members, organisations' settings, the audit log, and who may
    /// do what.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// Stacks kept in DIY backends: what a backend holds, connecting, locks and writes.
    pub fn backends(&self) -> &Backends {
        &self.backends
    }

    /// Organisations' webhooks and the deliveries of plan events to them.
    pub fn webhooks(&self) -> &Webhooks {
        &self.webhooks
    }

    /// Puts right what a previous run left (jobs it was running, backend locks it held) and
    /// starts the upkeep that keeps this instance's leases: `ferry serve` calls it on start.
    /// The upkeep holds the service weakly and stops when it is dropped. The jobs interrupted.
    pub async fn recover(self: &Arc<Self>) -> Result<Vec<String>, ServiceError> {
        let all = self.settings.store.dialect() == ferry_store::Dialect::Sqlite;
        let interrupted = self.jobs.recover_jobs(all).await?;
        self.backends.recover_backend_locks(all).await?;
        // Locks whose holder died (its lease ran out) are removed from their backends.
        every(
            Arc::downgrade(self),
            self.settings.job_lease / 3,
            "backend lock recovery",
            |ferry| {
                Box::pin(async move { ferry.backends.recover_backend_locks(false).await.map(drop) })
            },
        );
        Ok(interrupted)
    }
}

/// Runs `work` every `period` (the first at once; a late one delays the next, never doubles
/// it) while `owner` lives: the upkeep holds what it keeps weakly, and stops once it is dropped.
/// A failure is logged and tried again at the next tick.
pub(crate) fn every<T: Send + Sync + 'static>(
    owner: std::sync::Weak<T>,
    period: std::time::Duration,
    what: &'static str,
    work: impl Fn(Arc<T>) -> futures_util::future::BoxFuture<'static, Result<(), ServiceError>>
        + Send
        + 'static,
) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(owner) = owner.upgrade() else { return };
            if let Err(e) = work(owner).await {
                tracing::warn!(error = %e, "{what} failed; retrying");
            }
        }
    });
}

/// The engine's configuration as every domain that runs providers holds it, with the threads
/// its runs go to: absent until [`Ferry::with_engine`] enables previews.
#[derive(Clone, Default)]
pub(crate) struct EngineSlot(Option<Arc<(EngineConfig, EngineThreads)>>);

impl EngineSlot {
    fn of(config: EngineConfig) -> EngineSlot {
        let threads = EngineThreads::new(config.launch.priority);
        EngineSlot(Some(Arc::new((config, threads))))
    }

    /// The configuration, which every preview, commit, discovery and code request needs.
    pub(crate) fn get(&self) -> Result<&EngineConfig, ServiceError> {
        Ok(&self.engine()?.0)
    }

    /// Where engine runs go (see [`EngineThreads`]).
    pub(crate) fn threads(&self) -> Result<&EngineThreads, ServiceError> {
        Ok(&self.engine()?.1)
    }

    fn engine(&self) -> Result<&(EngineConfig, EngineThreads), ServiceError> {
        self.0
            .as_deref()
            .ok_or_else(|| ServiceError::Internal("the import engine is not configured".into()))
    }
}

#[cfg(test)]
mod tests;
