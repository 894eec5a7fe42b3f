//! Stacks and their versions: uploads (read, checked, stored whole or not at all), the list a
//! caller may read, and each version parsed once and kept while memory allows.

pub(crate) mod demo;
pub(crate) mod editor;
pub(crate) mod export_packing;
pub(crate) mod managed;
pub(crate) mod stack_config;
pub(crate) mod views;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ferry_state::graph_summary::{summarise, SUMMARY_BUDGET};
use ferry_state::{load_state, Deployment, LoadOptions, StackGraph, StateWarning};
use ferry_store::managed::ManagedChange;
use ferry_store::{NewVersion, PackedJson, StackName, StackSummary};

use ferry_store::Store;

use crate::accounts::Accounts;
use crate::lru::WeightedLru;
use crate::plugin_host::PluginHost;
use crate::stacks::editor::SchemaHints;
use crate::{access, demo_export, EngineSlot, ServiceError, DEMO_STACK};

/// How many bytes the parsed versions kept in memory may hold together, as their resources
/// weigh themselves ([`ferry_state::Resource::held_bytes`]): by bytes, not by resources, since
/// one stack's resources may each hold a hundred times another's. The 100,000-resource stack
/// `scale.mjs` generates weighs 83 MB (its parsed version grows the server by about 108 MB): one
/// such version fits with smaller ones, not two.
const CACHE_BYTES: usize = 160 << 20;

/// Stacks and their versions: uploads, the parsed versions (kept while memory allows), the
/// editor's help, their config and what they manage.
#[derive(Clone)]
pub struct Stacks {
    pub(crate) store: Store,
    pub(crate) engine: EngineSlot,
    pub(crate) max_state_bytes: usize,
    /// Parsed versions, weighed by the bytes their resources hold.
    versions: Arc<Mutex<WeightedLru<(String, i64), Arc<LoadedVersion>>>>,
    pub(crate) schema_hints: Arc<SchemaHints>,
    pub(crate) accounts: Accounts,
    pub(crate) plugins: PluginHost,
}

/// A stored version, parsed once and shared: versions never change, so the cache never goes stale.
pub struct LoadedVersion {
    pub summary: StackSummary,
    pub deployment: Deployment,
    pub features: Vec<String>,
    /// What is odd but loadable in this state (duplicate URNs, undecryptable secrets).
    pub warnings: Vec<StateWarning>,
    pub(crate) graph: std::sync::OnceLock<StackGraph>,
    pub(crate) urn_index: std::sync::OnceLock<HashMap<String, usize>>,
    /// Each resource's URN and ID, lower-cased, for the table's filter.
    pub(crate) search_keys: std::sync::OnceLock<Vec<String>>,
}

impl LoadedVersion {
    pub(crate) fn new(
        summary: StackSummary,
        deployment: Deployment,
        features: Vec<String>,
    ) -> LoadedVersion {
        // It passed the state's checks when it was stored: only their warnings are found again
        // (one hashing pass; rerunning the checks was an eighth of a commit's instructions).
        let warnings = ferry_state::validate::reference_warnings(&deployment, "deployment");
        LoadedVersion {
            summary,
            deployment,
            features,
            warnings,
            graph: Default::default(),
            urn_index: Default::default(),
            search_keys: Default::default(),
        }
    }

    pub fn graph(&self) -> &StackGraph {
        self.graph.get_or_init(|| ferry_state::graph::of_deployment(&self.deployment))
    }
}

/// A version's graph as asked for: whole (shared with the parsed version, not copied), or
/// summarised.
pub enum GraphAnswer {
    Whole(Arc<LoadedVersion>),
    Summarised(StackGraph),
}

impl serde::Serialize for GraphAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            GraphAnswer::Whole(version) => version.graph().serialize(serializer),
            GraphAnswer::Summarised(graph) => graph.serialize(serializer),
        }
    }
}

pub use ferry_types::api::UploadOutcome;

/// What an upload produced: the stack's new version, and the state's warnings as notes.
pub(crate) fn upload_outcome(summary: StackSummary, warnings: Vec<StateWarning>) -> UploadOutcome {
    let warnings = warnings
        .into_iter()
        .map(|w| ferry_types::api::StateNote { message: w.message, path: w.path })
        .collect();
    UploadOutcome { summary, warnings }
}

impl Stacks {
    pub(crate) fn new(
        store: Store,
        engine: EngineSlot,
        max_state_bytes: usize,
        accounts: Accounts,
        plugins: PluginHost,
    ) -> Stacks {
        Stacks {
            store,
            engine,
            max_state_bytes,
            versions: Arc::new(Mutex::new(WeightedLru::new(CACHE_BYTES))),
            schema_hints: Default::default(),
            accounts,
            plugins,
        }
    }

    fn cached(&self, key: &(String, i64)) -> Option<Arc<LoadedVersion>> {
        self.versions.lock().expect("cache lock").get(key)
    }

    /// Drops a parsed version from the cache (a commit superseding it takes its resources).
    pub(crate) fn forget(&self, id: &str, version: i64) {
        self.versions.lock().expect("cache lock").remove(&(id.to_string(), version));
    }

    /// A version just stored (uploaded or committed), kept parsed for the pages that follow.
    pub(crate) fn remember(
        &self,
        summary: StackSummary,
        deployment: Deployment,
        features: Vec<String>,
    ) {
        let key = (summary.id.clone(), summary.version);
        self.keep(key, LoadedVersion::new(summary, deployment, features));
    }

    /// Keeps `loaded`, evicting the least recently used versions past the cache's budget.
    fn keep(&self, key: (String, i64), loaded: LoadedVersion) -> Arc<LoadedVersion> {
        let weight: usize = loaded.deployment.resources().iter().map(|r| r.held_bytes()).sum();
        let loaded = Arc::new(loaded);
        // Versions never change, so any may go: the one used longest ago (never this one).
        tracing::debug!(stack = %key.0, version = key.1, resources = loaded.deployment.resources().len(), weight, "parsed version kept");
        self.versions.lock().expect("cache lock").insert(key, loaded.clone(), weight);
        loaded
    }

    /// The stack's graph at `version` (the latest when `None`): whole when `expand` is `None`,
    /// else, past [`SUMMARY_BUDGET`] resources, summarised (siblings of a type grouped, the
    /// tree opened from the top) with the nodes and groups `expand` names opened.
    pub async fn graph(
        &self,
        id: &str,
        version: Option<i64>,
        expand: Option<&HashSet<String>>,
    ) -> Result<GraphAnswer, ServiceError> {
        let loaded = self.version(id, version).await?;
        Ok(match expand {
            None => GraphAnswer::Whole(loaded),
            Some(expand) => {
                GraphAnswer::Summarised(summarise(loaded.graph(), SUMMARY_BUDGET, expand).graph)
            }
        })
    }

    /// Reads, checks and stores a state file as a new version of the stack `name` (or the name
    /// the checkpoint records, when it is a full `org/project/stack`), for the server itself
    /// (the demo, a state file the command line opens). Nothing is stored unless the whole file
    /// loads, and its resources carry the stack's name.
    pub async fn upload(
        &self,
        name: Option<&str>,
        bytes: Vec<u8>,
        passphrase: Option<String>,
        origin: &str,
    ) -> Result<UploadOutcome, ServiceError> {
        self.store_upload(None, name, bytes, passphrase, origin, false).await
    }

    /// [`Self::upload`] by `caller`, who must be allowed to write the stack, decided once its
    /// name is known (it may come from the file): a planner makes a new stack; a new version of
    /// an existing one replaces what every plan was reviewed against, so it needs a committer,
    /// and a stack whose commits need approvals is changed only through a plan. With `force`,
    /// a state whose URNs carry another stack's name is moved to this one (every URN and
    /// reference renamed, as `pulumi stack rename` does) rather than refused.
    pub async fn upload_by(
        &self,
        caller: &access::Caller,
        name: Option<&str>,
        bytes: Vec<u8>,
        passphrase: Option<String>,
        origin: &str,
        force: bool,
    ) -> Result<UploadOutcome, ServiceError> {
        self.store_upload(Some(caller), name, bytes, passphrase, origin, force).await
    }

    /// Whether `caller` may store a new version of `name`: see [`Self::upload_by`].
    async fn may_upload(
        &self,
        caller: &access::Caller,
        name: &StackName,
    ) -> Result<(), ServiceError> {
        let org = access::org_of_name(name.as_str());
        caller.require(org, access::Role::Planner)?;
        let Some(stack_id) = self.store.stacks().stack_id_by_name(name).await? else {
            return Ok(());
        };
        caller.require(org, access::Role::Committer)?;
        let settings = self.store.plans().stack_settings(&stack_id).await?;
        if settings.required_approvals > 0 {
            return Err(ServiceError::NeedsApproval(format!(
                "`{name}` requires {} approval(s) for every change, so a new version of it is not uploaded over it: import into it through a plan, or ask an administrator to change the stack's review settings",
                settings.required_approvals
            )));
        }
        Ok(())
    }

    async fn store_upload(
        &self,
        caller: Option<&access::Caller>,
        name: Option<&str>,
        bytes: Vec<u8>,
        passphrase: Option<String>,
        origin: &str,
        force: bool,
    ) -> Result<UploadOutcome, ServiceError> {
        let name = name.map(StackName::parse).transpose()?;
        // A caller who may not write the stack hears so before the file is read; a name the
        // file gives is decided once it is.
        if let (Some(caller), Some(name)) = (caller, &name) {
            self.may_upload(caller, name).await?;
        }
        let named = name.is_some();
        let (loaded, export, name) =
            self.read_upload(name, bytes, passphrase, origin, force).await?;
        if let (Some(caller), false) = (caller, named) {
            self.may_upload(caller, &name).await?;
        }
        let summary = self
            .store
            .stacks()
            .add_version(
                &name,
                NewVersion {
                    origin,
                    source_format: &loaded.format.to_string(),
                    resource_count: loaded.deployment.resources().len(),
                    export,
                    // Rebuilt from this version when a discovery first asks.
                    managed: ManagedChange::Unknown,
                },
            )
            .await?;
        tracing::info!(stack = %summary.name, version = summary.version, resources = summary.resources, "stored stack version");
        // The stack's page is what the uploader sees next: keep the version parsed.
        self.remember(summary.clone(), loaded.deployment, loaded.features);
        Ok(upload_outcome(summary, loaded.warnings))
    }

    /// Reads and checks a state file for the stack `name` (or the name a checkpoint records),
    /// nothing stored: the state, its export packed as the store keeps it, and the name. A
    /// state whose URNs carry another stack's name is refused, naming the names it carries
    /// (with `force`, moved to `name`). Parsing a large file and deriving a passphrase key are
    /// CPU work, kept off the async workers.
    pub(crate) async fn read_upload(
        &self,
        name: Option<StackName>,
        bytes: Vec<u8>,
        passphrase: Option<String>,
        origin: &str,
        force: bool,
    ) -> Result<(ferry_state::LoadedState, PackedJson, StackName), ServiceError> {
        if bytes.len() > self.max_state_bytes {
            return Err(ServiceError::TooLarge { size: bytes.len(), limit: self.max_state_bytes });
        }
        // State read from a DIY backend is what Pulumi itself wrote: its passphrase secrets are
        // taken as they are, and checked when a commit brings the passphrase.
        let unchecked_passphrase_secrets = origin == "backend";
        tokio::task::spawn_blocking(move || -> Result<_, ServiceError> {
            let mut loaded = load_state(
                &bytes,
                LoadOptions {
                    passphrase: passphrase.as_deref(),
                    key: None,
                    unchecked_passphrase_secrets,
                    ..Default::default()
                },
            )?;
            // The upload's bytes are done with before the export is written out, and the
            // export's text before the write (the store keeps it packed).
            drop(bytes);
            let name = match name {
                Some(name) => name,
                None => loaded
                    .stack
                    .as_deref()
                    .and_then(|s| StackName::parse(s).ok())
                    .ok_or(ServiceError::NameRequired { recorded: loaded.stack.clone() })?,
            };
            let (project, stack) = name.project_and_stack();
            let carried = ferry_state::rename::stack_names(&loaded.deployment);
            if carried.iter().any(|(p, s)| p != project || s != stack) {
                if !force {
                    let org = access::org_of_name(name.as_str());
                    return Err(ServiceError::StackMismatch {
                        name: name.as_str().to_string(),
                        carried: carried
                            .into_iter()
                            .map(|(p, s)| format!("{org}/{p}/{s}"))
                            .collect(),
                    });
                }
                ferry_state::rename::rename_stack(&mut loaded.deployment, project, stack);
            }
            let export = export_packing::pack_export(&loaded.deployment, &loaded.features, None);
            Ok((loaded, export, name))
        })
        .await
        .map_err(|e| ServiceError::Internal(e.to_string()))?
    }

    pub async fn list(&self) -> Result<Vec<StackSummary>, ServiceError> {
        Ok(self.store.stacks().list_stacks().await?)
    }

    /// The stacks of the organisations `caller` may read.
    pub async fn list_for(
        &self,
        caller: &access::Caller,
    ) -> Result<Vec<StackSummary>, ServiceError> {
        caller.require_signed_in()?;
        let mut stacks = self.store.stacks().list_stacks().await?;
        stacks.retain(|s| caller.may(access::org_of_name(&s.name), access::Role::Viewer));
        Ok(stacks)
    }

    pub async fn summary(&self, id: &str) -> Result<StackSummary, ServiceError> {
        Ok(self.store.stacks().stack(id).await?)
    }

    pub async fn versions(&self, id: &str) -> Result<Vec<StackSummary>, ServiceError> {
        Ok(self.store.stacks().versions(id).await?)
    }

    /// A version (the latest when `version` is `None`), parsed, from the cache when possible.
    pub async fn version(
        &self,
        id: &str,
        version: Option<i64>,
    ) -> Result<Arc<LoadedVersion>, ServiceError> {
        let number = match version {
            Some(v) => v,
            None => self.store.stacks().stack(id).await?.version,
        };
        let key = (id.to_string(), number);
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        let stored = self.store.stacks().version(id, Some(number)).await?;
        let loaded = tokio::task::spawn_blocking(move || -> Result<LoadedVersion, ServiceError> {
            // Stored versions were checked on the way in; re-checking here would need the
            // passphrase again, so only the shape is read.
            #[derive(serde::Deserialize)]
            struct StoredExport {
                #[serde(default)]
                features: Vec<String>,
                deployment: Deployment,
            }
            let StoredExport { features, deployment } = serde_json::from_str(&stored.export_json)
                .map_err(|e| {
                ServiceError::Internal(format!("stored state does not parse: {e}"))
            })?;
            Ok(LoadedVersion::new(stored.summary, deployment, features))
        })
        .await
        .map_err(|e| ServiceError::Internal(e.to_string()))??;
        Ok(self.keep(key, loaded))
    }

    /// A stored version's export, as stored (read from the store: the parsed versions in
    /// memory do not keep their text).
    pub async fn export_text(
        &self,
        id: &str,
        version: Option<i64>,
    ) -> Result<String, ServiceError> {
        Ok(self.store.stacks().version(id, version).await?.export_json)
    }

    /// Creates the demo stack when the store does not have it yet.
    pub async fn ensure_demo(&self) -> Result<Option<StackSummary>, ServiceError> {
        let name = StackName::parse(DEMO_STACK)?;
        if self.store.stacks().stack_id_by_name(&name).await?.is_some() {
            return Ok(None);
        }
        let outcome = self
            .upload(Some(DEMO_STACK), demo_export().to_string().into_bytes(), None, "demo")
            .await?;
        Ok(Some(outcome.summary))
    }
}
