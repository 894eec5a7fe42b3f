//! Import specs over stored stacks: a spec is run as an import deployment against the stack's
//! latest version ([`ferry_engine::import`]), and the plan stored as a preview (see
//! [`crate::previews`]) that a commit turns into the stack's next version.

use std::path::PathBuf;
use std::time::Duration;

use ferry_engine::import::{preview_import, ImportOptions, ImportStrategy, StackContext};
use ferry_engine::import_spec::ImportSpec;
use ferry_engine::plugin::{LaunchOptions, PluginEnvGrants, PluginEnvPolicy, PluginProviders};

use crate::previews::{PlanSource, SealedPayload, StoredPlan};
use crate::{PreviewRecord, Previews, ServiceError};

/// Where the engine finds plugins and keeps schemas, and the key for stored preview values.
#[derive(Clone)]
pub struct EngineConfig {
    pub plugin_dirs: Vec<PathBuf>,
    pub schema_cache: Option<PathBuf>,
    pub launch: LaunchOptions,
    pub concurrency: usize,
    pub payload_key: [u8; 32],
    /// What plugins see of this process's environment: by default only the minimal one, so
    /// that a request never reaches the server's own credentials; the command line, run by a
    /// user on their own machine, inherits.
    pub plugin_environment: PluginEnvPolicy,
}

impl EngineConfig {
    pub fn new(
        plugin_dirs: Vec<PathBuf>,
        schema_cache: Option<PathBuf>,
        payload_key: [u8; 32],
    ) -> Self {
        EngineConfig {
            plugin_dirs,
            schema_cache,
            launch: LaunchOptions {
                start_timeout: Duration::from_secs(30),
                call_timeout: Duration::from_secs(120),
                ..Default::default()
            },
            concurrency: 16,
            payload_key,
            plugin_environment: PluginEnvPolicy::Granted(PluginEnvGrants::default()),
        }
    }

    pub fn with_plugin_environment(mut self, environment: PluginEnvPolicy) -> Self {
        self.plugin_environment = environment;
        self
    }

    /// Runs engine work (its threads, the plugins it launches) at `priority`.
    pub fn with_priority(mut self, priority: ferry_engine::priority::Background) -> Self {
        self.launch.priority = priority;
        self
    }
}

impl Previews {
    /// Refuses to go on when this instance's payload key is not the one the store's other
    /// instances seal previews with (the first instance records a check value of its key, a
    /// keyed hash, never the key): a preview made on one and committed on the other would fail.
    pub async fn check_payload_key(&self) -> Result<(), ServiceError> {
        use hmac::Mac as _;
        let key = self.engine.get()?.payload_key;
        let mut mac = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(&key)
            .expect("HMAC takes any key");
        mac.update(b"ferry payload key check v1");
        let check: String =
            mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        match self.store.check_payload_key(&check).await? {
            ferry_store::server_facts::KeyCheck::Recorded | ferry_store::server_facts::KeyCheck::Matches => Ok(()),
            ferry_store::server_facts::KeyCheck::Differs => Err(ServiceError::Invalid(
                "this instance's payload key (FERRY_PAYLOAD_KEY, or <data-dir>/payload.key) is not the key the store's other instances seal previews with: every instance sharing a database must have the same FERRY_PAYLOAD_KEY".into(),
            )),
        }
    }

    /// [`Previews::preview`] of an import spec, telling `progress` of each resource as it
    /// finishes. The spec comes read and checked, so no caller parses it twice; it is the run's
    /// own (the run goes off the runtime's workers, see [`crate::previews::engine_thread`]).
    pub(crate) async fn preview_spec(
        &self,
        stack_id: &str,
        spec_text: &str,
        spec: ImportSpec,
        progress: Option<ferry_engine::progress::Progress>,
        strategy: ImportStrategy,
    ) -> Result<PreviewRecord, ServiceError> {
        let concurrency = self.engine.get()?.concurrency;
        // A stack connected to a DIY backend is previewed against its checkpoint as it is now.
        self.backends.refresh_from_backend(stack_id).await?;
        let version = self.stacks.version(stack_id, None).await?;
        let name: Vec<&str> = version.summary.name.split('/').collect();
        let (project, stack) = (name[1], name[2]);

        let started = std::time::Instant::now();
        let providers = self.plugins.providers(stack_id).await?;
        if let Err(e) = parameterize_packages(&spec, &providers).await {
            providers.shutdown().await;
            return Err(e);
        }
        let run_version = version.clone();
        let (project, stack) = (project.to_string(), stack.to_string());
        let run = async move {
            let ctx = StackContext {
                stack: &stack,
                project: &project,
                deployment: &run_version.deployment,
            };
            let deployed = preview_import(
                &spec,
                &ctx,
                &providers,
                ImportOptions { concurrency, progress, strategy },
            )
            .await;
            providers.shutdown().await;
            deployed
        };
        let deployed = self.engine.threads()?.run("the import preview", run).await?;
        let ran = started.elapsed();

        let payload = SealedPayload { run: None, states: deployed.states };
        let stored = StoredPlan {
            source: PlanSource::Spec { strategy },
            plan: deployed.plan,
            import_file: None,
            mapping: None,
        };
        let record = self
            .store_preview(stack_id, version.summary.version, spec_text, stored, payload)
            .await?;
        // Where a preview's time goes: the run (plugins launched, every import read) and its storing.
        let (run_ms, store_ms) =
            (ran.as_millis() as u64, (started.elapsed() - ran).as_millis() as u64);
        tracing::info!(preview = %record.id, stack = %version.summary.name, run_ms, store_ms, "stored import preview");
        Ok(record)
    }
}

/// Registers the spec's parameterized packages with the run's plugins and launches each once,
/// so that a base plugin that cannot be parameterized refuses its entries by name before any
/// resource is read.
async fn parameterize_packages(
    spec: &ImportSpec,
    providers: &PluginProviders,
) -> Result<(), ServiceError> {
    use ferry_engine::import_spec::{SpecErrors, SpecProblem};
    let mut checked: std::collections::HashMap<String, Result<(), String>> =
        std::collections::HashMap::new();
    let mut errors = Vec::new();
    for (i, e) in spec.file.resources.iter().enumerate() {
        let (field, p) = match (&e.parameterization, &e.extension) {
            (Some(p), _) => ("parameterization", p),
            (None, Some(p)) => ("extension", p),
            (None, None) => continue,
        };
        let package = crate::access::package_of_type(&e.type_).to_string();
        let version = e.version.clone().unwrap_or_default();
        if !checked.contains_key(&package) {
            providers.parameterize(
                &package,
                ferry_engine::plugin::Parameterized {
                    plugin: p.plugin_name.clone(),
                    plugin_version: p.plugin_version.clone(),
                    package_version: version.clone(),
                    value: p.value_bytes(),
                },
            );
            let launched = providers
                .schema(&package, e.version.as_deref())
                .await
                .map(|_| ())
                .map_err(|err| err.to_string());
            checked.insert(package.clone(), launched);
        }
        if let Some(Err(message)) = checked.get(&package) {
            errors.push(SpecProblem {
                path: format!("resources[{i}].{field}"),
                message: format!("package `{package}` on plugin `{}`: {message}", p.plugin_name),
            });
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ServiceError::Spec(SpecErrors { errors, warnings: spec.warnings.clone() }))
    }
}
