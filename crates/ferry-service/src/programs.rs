//! Programs over stored stacks: a Pulumi YAML program (text, or a project zip) previewed
//! against the stack's latest version and stored as a plan; a commit of that plan re-checks it
//! (same steps, same base version) and then writes the stack's next version in one
//! transaction. Imports and unchanged resources commit as they are; creates, updates,
//! replacements and deletes only when the caller asks to apply them.

use std::collections::BTreeMap;
use std::io::Read as _;

use ferry_engine::deploy::mapping::{import_file, mapping_template};
use ferry_engine::deploy::snapshot::{to_deployment, WriteOptions};
use ferry_engine::deploy::{deploy, ConfigValue, DeployContext, DeployMode, DeployOptions, Deployed, Plan, PlanScope, StepOp};
use ferry_engine::plugin::{EngineService, PluginProviders, PluginSearch};
use ferry_engine::program::{parse_program, Program};
use ferry_state::secrets::PassphraseCrypter;
use ferry_state::{load_state, LoadOptions};
use ferry_store::{NewVersion, StoredPreview};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::imports::now_rfc3339;
use crate::stack_secrets::StackSecrets;
use crate::{CommitOutcome, LoadedVersion, PreviewRecord, ServiceError, StackService};

/// The largest program file Ferry reads, also inside a zip.
const MAX_PROGRAM_BYTES: u64 = 4 * 1024 * 1024;

/// A program as the user sent it.
pub enum ProgramSource {
    /// `Pulumi.yaml` text (or a program body).
    Yaml(String),
    /// A zipped project: `Pulumi.yaml`, and `Main.yaml` beside it when the program lives there.
    Zip(Vec<u8>),
}

/// A program preview request.
pub struct ProgramRequest {
    pub source: ProgramSource,
    pub config: BTreeMap<String, ConfigValue>,
    /// Resource name → ID: the program's would-be creates are imported instead.
    pub mapping: Option<BTreeMap<String, String>>,
    pub passphrase: Option<String>,
    pub scope: PlanScope,
    /// Told of each step as it is generated.
    pub progress: Option<ferry_engine::progress::Progress>,
}

/// What the sealed payload of a program preview holds (config may hold secrets).
#[derive(Serialize, Deserialize)]
struct ProgramPayload {
    file: String,
    config: BTreeMap<String, ConfigValue>,
    mapping: Option<BTreeMap<String, String>>,
    /// Payloads from before scopes were whole-stack.
    #[serde(default)]
    scope: PlanScope,
}

/// The program file's name and text, from text or a project zip.
pub fn read_project(source: &ProgramSource) -> Result<(String, String), ServiceError> {
    let bad = |m: String| {
        ServiceError::Program(ferry_engine::program::ProgramError {
            diagnostics: vec![ferry_engine::program::Diagnostic { file: "(upload)".into(), line: 1, column: 1, path: String::new(), message: m }],
        })
    };
    match source {
        ProgramSource::Yaml(text) => Ok(("Pulumi.yaml".into(), text.clone())),
        ProgramSource::Zip(bytes) => {
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| bad(format!("the upload is not a zip file: {e}")))?;
            let names: Vec<String> = archive.file_names().map(str::to_string).collect();
            // The shallowest Pulumi.yaml is the project's.
            let project = names
                .iter()
                .filter(|n| n.rsplit('/').next().is_some_and(|f| f == "Pulumi.yaml" || f == "Pulumi.yml"))
                .min_by_key(|n| n.matches('/').count())
                .cloned()
                .ok_or_else(|| bad("the zip has no Pulumi.yaml".into()))?;
            let dir = project.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
            let main = ["Main.yaml", "Main.yml"].iter().map(|m| format!("{dir}{m}")).find(|m| names.contains(m));
            let file = main.unwrap_or(project);
            let mut entry = archive.by_name(&file).map_err(|e| bad(format!("`{file}` cannot be read from the zip: {e}")))?;
            let mut text = String::new();
            (&mut entry).take(MAX_PROGRAM_BYTES + 1).read_to_string(&mut text).map_err(|e| bad(format!("`{file}` is not UTF-8 text: {e}")))?;
            if text.len() as u64 > MAX_PROGRAM_BYTES {
                return Err(bad(format!("`{file}` is over {MAX_PROGRAM_BYTES} bytes")));
            }
            Ok((file, text))
        }
    }
}

fn ops(plan: &Plan) -> Vec<String> {
    plan.steps.iter().map(|s| format!("{} {}", s.op, s.urn)).collect()
}

impl StackService {
    /// The stack's secrets for a run, the passphrase's key derived off the async workers.
    async fn secrets_for(&self, version: &std::sync::Arc<LoadedVersion>, passphrase: Option<String>) -> Result<StackSecrets, ServiceError> {
        let version = version.clone();
        tokio::task::spawn_blocking(move || StackSecrets::for_reading(&version.deployment, passphrase.as_deref()))
            .await
            .map_err(|e| ServiceError::Internal(format!("deriving the passphrase's key stopped: {e}")))?
    }

    /// Runs `program` against `version` with freshly launched plugins.
    async fn run_program(
        &self,
        version: &LoadedVersion,
        program: &Program,
        run: &ProgramPayload,
        secrets: &StackSecrets,
        mode: DeployMode,
        progress: Option<ferry_engine::progress::Progress>,
    ) -> Result<Deployed, ServiceError> {
        let (config, scope) = (&run.config, run.scope);
        let engine_config = self.engine()?.clone();
        let name: Vec<&str> = version.summary.name.split('/').collect();
        let decrypt = |ct: &str| secrets.decrypt(ct);
        let search = PluginSearch::from_env(engine_config.plugin_dirs.clone());
        let (engine, _logs) = EngineService::start().await.map_err(|e| ServiceError::Internal(format!("engine service: {e}")))?;
        let providers = PluginProviders::new(search, engine, engine_config.launch, std::env::temp_dir(), engine_config.schema_cache.clone());
        let ctx = DeployContext { organization: name[0], project: name[1], stack: name[2], deployment: &version.deployment, config, decrypt: Some(&decrypt) };
        let options = DeployOptions { mode, scope, concurrency: engine_config.concurrency, import_mapping: run.mapping.clone(), progress };
        let result = deploy(program, &ctx, &providers, &options).await;
        providers.shutdown().await;
        Ok(result?)
    }

    /// Previews a program against the stack's latest version and stores the plan. Writes
    /// nothing to the stack and changes nothing anywhere.
    pub async fn preview_program(&self, stack_id: &str, request: ProgramRequest) -> Result<PreviewRecord, ServiceError> {
        let key = self.engine()?.payload_key;
        let (file, text) = read_project(&request.source)?;
        let program = parse_program(&file, &text)?;
        let version = self.version(stack_id, None).await?;
        let payload = ProgramPayload { file, config: request.config, mapping: request.mapping, scope: request.scope };
        let secrets = self.secrets_for(&version, request.passphrase.clone()).await?;
        let deployed = self.run_program(&version, &program, &payload, &secrets, DeployMode::Preview, request.progress.clone()).await?;
        let preview_json = json!({
            "kind": "program",
            "file": payload.file,
            "plan": deployed.plan,
            "importFile": import_file(&deployed.plan, &deployed.states),
            "mapping": mapping_template(&deployed.plan),
        });
        let sealed = PassphraseCrypter::from_key(&key).encrypt(serde_json::to_string(&payload).expect("serialises").as_bytes());
        let record = self.store_preview(stack_id, version.summary.version, &text, preview_json, &sealed).await?;
        tracing::info!(preview = %record.id, stack = %version.summary.name, steps = deployed.plan.steps.len(), "stored program preview");
        Ok(record)
    }

    /// Commits a program preview (see the module's rules).
    pub(crate) async fn commit_program(
        &self,
        stored: StoredPreview,
        preview_json: Value,
        passphrase: Option<String>,
        apply: bool,
    ) -> Result<CommitOutcome, ServiceError> {
        let key = self.engine()?.payload_key;
        let plan: Plan = serde_json::from_value(preview_json["plan"].clone()).map_err(|e| ServiceError::Internal(format!("stored plan: {e}")))?;
        let refuse = |m: String| Err(ServiceError::Commit(m));
        if let Some(e) = plan.errors.first() {
            return refuse(format!("the program has errors ({e}); fix them and preview again"));
        }
        let failed: Vec<String> = plan.failed_steps().map(|s| format!("`{}` ({}): {}", s.name, s.op, s.error.as_deref().unwrap_or(""))).collect();
        if !failed.is_empty() {
            return refuse(format!("{} step(s) cannot go ahead: {}", failed.len(), failed.join("; ")));
        }
        let differing: Vec<String> = plan
            .steps
            .iter()
            .filter(|s| matches!(s.op, StepOp::Import | StepOp::ImportReplacement) && (!s.changed.is_empty() || !s.check_failures.is_empty()))
            .map(|s| {
                let props: Vec<String> = s.changed.iter().chain(s.check_failures.iter().map(|f| &f.property)).map(|p| format!("`{p}`")).collect();
                format!("`{}`: {}", s.name, props.join(", "))
            })
            .collect();
        if !differing.is_empty() {
            return refuse(format!(
                "an import must leave no diff, and the program still differs from the resources read back — {}; change the program to match (or list the properties in ignoreChanges) and preview again",
                differing.join("; ")
            ));
        }
        let changes = plan.import_only_violations();
        if !changes.is_empty() && !apply {
            let listed: Vec<String> = changes.iter().take(20).map(|s| format!("{} `{}`", s.op, s.name)).collect();
            return refuse(format!(
                "an import commit holds only imports and unchanged resources, and this plan would also {}{}; commit with apply=true to have Ferry run them against the providers",
                listed.join(", "),
                if changes.len() > 20 { format!(" and {} more", changes.len() - 20) } else { String::new() }
            ));
        }
        let payload: ProgramPayload = {
            let bad = || ServiceError::Internal("the preview's stored values do not decrypt (was the server's payload key replaced?)".into());
            let bytes = PassphraseCrypter::from_key(&key).decrypt(&stored.payload).map_err(|_| bad())?;
            serde_json::from_slice(&bytes).map_err(|_| bad())?
        };
        // The stack must not have moved on: nothing runs against the providers otherwise.
        let latest = self.summary(&stored.stack_id).await?;
        if latest.version != stored.base_version {
            return Err(ferry_store::StoreError::StalePreview { base: stored.base_version, latest: latest.version }.into());
        }
        let base = self.version(&stored.stack_id, Some(stored.base_version)).await?;
        let program = parse_program(&payload.file, &stored.spec)?;
        // The world must still look as previewed.
        // The passphrase's key is derived once, for both runs and the write.
        let secrets = self.secrets_for(&base, passphrase.clone()).await?;
        let again = self.run_program(&base, &program, &payload, &secrets, DeployMode::Preview, None).await?;
        if ops(&again.plan) != ops(&plan) || again.plan.failed_steps().next().is_some() {
            let before: std::collections::BTreeSet<String> = ops(&plan).into_iter().collect();
            let now: Vec<String> = ops(&again.plan).into_iter().filter(|o| !before.contains(o)).take(5).collect();
            return refuse(format!(
                "the resources changed since the preview (now: {}); preview again",
                if now.is_empty() { "a step fails".into() } else { now.join(", ") }
            ));
        }
        let done = self.run_program(&base, &program, &payload, &secrets, DeployMode::Update, None).await?;
        let failures: Vec<String> = done.plan.failed_steps().map(|s| format!("`{}` ({}): {}", s.name, s.op, s.error.as_deref().unwrap_or(""))).collect();
        if !failures.is_empty() && !done.mutated {
            return refuse(format!("nothing was changed: {}", failures.join("; ")));
        }
        let origin = if failures.is_empty() { "commit" } else { "commit (failed part-way)" };
        let added = done
            .plan
            .steps
            .iter()
            .filter(|s| matches!(s.op, StepOp::Import | StepOp::ImportReplacement | StepOp::Read | StepOp::Create | StepOp::CreateReplacement))
            .count();
        let states = done.states;
        // Encryption and the state's check are CPU work: off the async workers.
        let (export, resource_count) = tokio::task::spawn_blocking(move || -> Result<_, ServiceError> {
            let mut deployment = base.deployment.clone();
            let secrets = secrets.into_commit(&mut deployment, passphrase.as_deref());
            let encrypt = |plain: &str| secrets.encrypt(plain);
            let now = now_rfc3339();
            let next = to_deployment(&deployment, &states, &WriteOptions { now: &now, encrypt: &encrypt });
            secrets.check_encrypted()?;
            let export = ferry_state::load::export_value(&next, &base.features).to_string();
            let checked = load_state(export.as_bytes(), LoadOptions { passphrase: passphrase.as_deref(), key: secrets.key() })?;
            Ok((export, checked.deployment.resources().len()))
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("the commit's work stopped: {e}")))??;
        let summary = self.store.commit_preview(&stored, NewVersion { origin, source_format: "stack export v3", resource_count, export_json: &export }).await?;
        if !failures.is_empty() {
            tracing::warn!(preview = %stored.id, version = summary.version, "apply failed part-way; what was done is recorded");
            return refuse(format!(
                "the apply failed part-way ({}); what was done is recorded as version {} of the stack",
                failures.join("; "),
                summary.version
            ));
        }
        tracing::info!(preview = %stored.id, stack = %summary.name, version = summary.version, apply, "committed program plan");
        Ok(CommitOutcome { summary, added })
    }
}
