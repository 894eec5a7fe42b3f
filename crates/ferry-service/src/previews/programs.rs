//! Programs over stored stacks: a Pulumi YAML program (text, or a project zip) previewed
//! against the stack's latest version and stored as a plan (see [`crate::previews`], whose one
//! commit writes what the preview computed). Creates, updates, replacements and deletes run
//! only when the caller asks to apply them: the program then runs again, first as a preview
//! that must give the same steps on the same base version, then for real.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::sync::Arc;

use ferry_engine::deploy::mapping::{import_file, mapping_template};
use ferry_engine::deploy::{
    deploy, ConfigValue, DeployContext, DeployMode, DeployOptions, Deployed, DeploymentPlan,
    PlanScope,
};
use ferry_engine::program::{parse_program, Program};
use ferry_store::StoredPreview;

use crate::previews::{PlanSource, ProgramRun, SealedPayload, StoredPlan};
use crate::stack_secrets::StackSecrets;
use crate::{LoadedVersion, PreviewRecord, Previews, ServiceError};

/// The largest program file Ferry reads, also inside a zip.
const MAX_PROGRAM_BYTES: u64 = 4 * 1024 * 1024;

/// A program as the user sent it.
pub enum ProgramSource {
    /// `Pulumi.yaml` text (or a program body).
    Yaml(String),
    /// A zipped project: `Pulumi.yaml`, and `Main.yaml` beside it when the program lives there.
    Zip(Vec<u8>),
    /// A program already read and parsed (a plan's job counts its resources first), so a run
    /// parses it once.
    Parsed { file: String, text: String, program: Arc<Program> },
}

/// A program to preview ([`crate::PreviewSource::Program`]).
pub struct ProgramRequest {
    pub source: ProgramSource,
    pub config: BTreeMap<String, ConfigValue>,
    /// Resource name → ID: the program's would-be creates are imported instead.
    pub mapping: Option<BTreeMap<String, String>>,
    pub passphrase: Option<String>,
    /// What another tool last recorded of the resources the program imports, by name (a
    /// Terraform migration's): each is read as a refresh with it as its prior state.
    pub prior: Option<BTreeMap<String, ferry_terraform::PriorState>>,
}

/// The program file's name and text, from text or a project zip.
pub fn read_project(source: &ProgramSource) -> Result<(String, String), ServiceError> {
    let bad = |m: String| {
        ServiceError::Program(ferry_engine::program::ProgramError {
            diagnostics: vec![ferry_engine::program::Diagnostic {
                file: "(upload)".into(),
                line: 1,
                column: 1,
                path: String::new(),
                message: m,
            }],
        })
    };
    match source {
        ProgramSource::Yaml(text) => Ok(("Pulumi.yaml".into(), text.clone())),
        ProgramSource::Parsed { file, text, .. } => Ok((file.clone(), text.clone())),
        ProgramSource::Zip(bytes) => {
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
                .map_err(|e| bad(format!("the upload is not a zip file: {e}")))?;
            let names: Vec<String> = archive.file_names().map(str::to_string).collect();
            // The shallowest Pulumi.yaml is the project's.
            let project = names
                .iter()
                .filter(|n| {
                    n.rsplit('/').next().is_some_and(|f| f == "Pulumi.yaml" || f == "Pulumi.yml")
                })
                .min_by_key(|n| n.matches('/').count())
                .cloned()
                .ok_or_else(|| bad("the zip has no Pulumi.yaml".into()))?;
            let dir = project.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
            let main = ["Main.yaml", "Main.yml"]
                .iter()
                .map(|m| format!("{dir}{m}"))
                .find(|m| names.contains(m));
            let file = main.unwrap_or(project);
            let mut entry = archive
                .by_name(&file)
                .map_err(|e| bad(format!("`{file}` cannot be read from the zip: {e}")))?;
            let mut text = String::new();
            (&mut entry)
                .take(MAX_PROGRAM_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|e| bad(format!("`{file}` is not UTF-8 text: {e}")))?;
            if text.len() as u64 > MAX_PROGRAM_BYTES {
                return Err(bad(format!("`{file}` is over {MAX_PROGRAM_BYTES} bytes")));
            }
            Ok((file, text))
        }
    }
}

/// The program file's name, its text and the program, parsed once: reading a project (a zip's
/// inflation) and parsing its YAML are CPU work, kept off the async workers (100–117 ms for a
/// 10,000-resource program, release build, 2026-11-27).
pub(crate) async fn parse_source(
    source: ProgramSource,
) -> Result<(String, String, Arc<Program>), ServiceError> {
    match source {
        ProgramSource::Parsed { file, text, program } => Ok((file, text, program)),
        source => tokio::task::spawn_blocking(move || -> Result<_, ServiceError> {
            let (file, text) = read_project(&source)?;
            let program = parse_program(&file, &text)?;
            Ok((file, text, Arc::new(program)))
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("reading the program stopped: {e}")))?,
    }
}

/// Recorded states in the engine's value model (secrets as Pulumi's state marks them).
fn prior_states(
    prior: &BTreeMap<String, ferry_terraform::PriorState>,
) -> Result<BTreeMap<String, ferry_engine::deploy::PriorState>, ServiceError> {
    let options = ferry_property::json::DecodeOptions { decrypt: None };
    prior
        .iter()
        .map(|(name, p)| {
            let bad = |e: ferry_property::PropertyError| {
                ServiceError::Plan(format!("the recorded state of `{name}` ({}): {e}", p.address))
            };
            let outputs =
                ferry_property::json::decode_map(&p.outputs, name, &options).map_err(bad)?;
            let inputs =
                ferry_property::json::decode_map(&p.inputs, name, &options).map_err(bad)?;
            let components = p
                .components
                .iter()
                .map(|c| ferry_engine::deploy::PriorComponent {
                    type_: c.type_.clone(),
                    name: c.name.clone(),
                })
                .collect();
            Ok((name.clone(), ferry_engine::deploy::PriorState { outputs, inputs, components }))
        })
        .collect()
}

fn ops(plan: &DeploymentPlan) -> Vec<String> {
    plan.steps.iter().map(|s| format!("{} {}", s.op, s.urn)).collect()
}

impl Previews {
    /// The stack's secrets for a run, the passphrase's key derived off the async workers.
    pub(crate) async fn secrets_for(
        &self,
        version: &Arc<LoadedVersion>,
        passphrase: Option<String>,
    ) -> Result<StackSecrets, ServiceError> {
        let version = version.clone();
        tokio::task::spawn_blocking(move || {
            StackSecrets::for_reading(&version.deployment, passphrase.as_deref())
        })
        .await
        .map_err(|e| {
            ServiceError::Internal(format!("deriving the passphrase's key stopped: {e}"))
        })?
    }

    /// Runs `program` against `version` with freshly launched plugins, off the runtime's
    /// workers as an import preview runs (see [`crate::previews::engine_thread`]).
    pub(crate) async fn run_program(
        &self,
        version: &Arc<LoadedVersion>,
        program: &Arc<Program>,
        run: &ProgramRun,
        secrets: &Arc<StackSecrets>,
        mode: DeployMode,
        progress: Option<ferry_engine::progress::Progress>,
    ) -> Result<Deployed, ServiceError> {
        let concurrency = self.engine.get()?.concurrency;
        let threads = self.engine.threads()?;
        let providers = self.plugins.providers(&version.summary.id).await?;
        let (version, program, secrets) = (version.clone(), program.clone(), secrets.clone());
        let (config, scope, import_mapping, identify) =
            (run.config.clone(), run.scope, run.mapping.clone(), run.identify.clone());
        let import_prior = run.prior.as_ref().map(prior_states).transpose()?.map(Arc::new);
        let work = async move {
            let name: Vec<&str> = version.summary.name.split('/').collect();
            let decrypt = |ct: &str| secrets.decrypt(ct);
            let ctx = DeployContext {
                organization: name[0],
                project: name[1],
                stack: name[2],
                deployment: &version.deployment,
                config: &config,
                decrypt: Some(&decrypt),
            };
            let options = DeployOptions {
                mode,
                scope,
                concurrency,
                import_mapping,
                progress,
                import_prior,
                identify,
            };
            let result = deploy(&program, &ctx, &providers, &options).await;
            providers.shutdown().await;
            result
        };
        Ok(threads.run("the program's run", work).await??)
    }

    /// [`Previews::preview`] of a program.
    pub(crate) async fn preview_program(
        &self,
        stack_id: &str,
        request: ProgramRequest,
        scope: PlanScope,
        progress: Option<ferry_engine::progress::Progress>,
    ) -> Result<PreviewRecord, ServiceError> {
        let started = std::time::Instant::now();
        let ProgramRequest { source, config, mapping, passphrase, prior } = request;
        let (file, text, program) = parse_source(source).await?;
        let parsed = started.elapsed();
        // A stack connected to a DIY backend is previewed against its checkpoint as it is now.
        self.backends.refresh_from_backend(stack_id).await?;
        let version = self.stacks.version(stack_id, None).await?;
        let run = ProgramRun { file, config, mapping, scope, prior, identify: None };
        let secrets = Arc::new(self.secrets_for(&version, passphrase).await?);
        let deployed = self
            .run_program(&version, &program, &run, &secrets, DeployMode::Preview, progress)
            .await?;
        let ran = started.elapsed();
        let stored = StoredPlan {
            source: PlanSource::Program { file: run.file.clone() },
            import_file: Some(import_file(&deployed.plan, &deployed.states)),
            mapping: Some(mapping_template(&deployed.plan)),
            plan: deployed.plan,
        };
        let steps = stored.plan.steps.len();
        let payload = SealedPayload { run: Some(run), states: deployed.states };
        let record =
            self.store_preview(stack_id, version.summary.version, &text, stored, payload).await?;
        // Where a program preview's time goes: reading the program, the run (plugins launched,
        // every step generated), and storing the plan.
        let (parse_ms, run_ms, store_ms) = (
            parsed.as_millis() as u64,
            (ran - parsed).as_millis() as u64,
            (started.elapsed() - ran).as_millis() as u64,
        );
        tracing::info!(preview = %record.id, stack = %version.summary.name, steps, parse_ms, run_ms, store_ms, "stored program preview");
        Ok(record)
    }

    /// An apply of a program's plan: the program runs again against the same stack version,
    /// first as a preview that must give the same steps (the world must still look as
    /// previewed), then for real. Refused when nothing was changed. Returns the stack's secrets
    /// too, so the commit's write derives no passphrase key again.
    pub(crate) async fn execute_program(
        &self,
        stored: &StoredPreview,
        plan: &DeploymentPlan,
        run: &ProgramRun,
        base: &Arc<LoadedVersion>,
        passphrase: Option<String>,
    ) -> Result<(Deployed, StackSecrets), ServiceError> {
        let refuse = |m: String| Err(ServiceError::Commit(m));
        // The stack must not have moved on: nothing runs against the providers otherwise.
        let latest = self.stacks.summary(&stored.stack_id).await?;
        if latest.version != stored.base_version {
            return Err(ferry_store::StoreError::StalePreview {
                base: stored.base_version,
                latest: latest.version,
            }
            .into());
        }
        let program = Arc::new(parse_program(&run.file, &stored.spec)?);
        let secrets = Arc::new(self.secrets_for(base, passphrase).await?);
        let again =
            self.run_program(base, &program, run, &secrets, DeployMode::Preview, None).await?;
        if ops(&again.plan) != ops(plan) || again.plan.failed_steps().next().is_some() {
            let before: std::collections::BTreeSet<String> = ops(plan).into_iter().collect();
            let now: Vec<String> =
                ops(&again.plan).into_iter().filter(|o| !before.contains(o)).take(5).collect();
            return refuse(format!(
                "the resources changed since the preview (now: {}); preview again",
                if now.is_empty() { "a step fails".into() } else { now.join(", ") }
            ));
        }
        let done =
            self.run_program(base, &program, run, &secrets, DeployMode::Update, None).await?;
        let failures: Vec<String> = done
            .plan
            .failed_steps()
            .map(|s| format!("`{}` ({}): {}", s.name, s.op, s.error.as_deref().unwrap_or("")))
            .collect();
        if !failures.is_empty() && !done.mutated {
            return refuse(format!("nothing was changed: {}", failures.join("; ")));
        }
        // The runs are over, and with them their threads' shares of the secrets.
        let secrets = Arc::try_unwrap(secrets).map_err(|_| {
            ServiceError::Internal("the program's runs still hold the stack's secrets".into())
        })?;
        Ok((done, secrets))
    }
}
