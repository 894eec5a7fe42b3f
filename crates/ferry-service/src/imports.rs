//! Import previews and commits over stored stacks: a preview runs the engine against the
//! stack's latest version and is stored as a value (masked for showing and sharing, with the
//! values a commit needs encrypted by the server's key); a commit turns a preview into the
//! stack's next version, in one transaction, only if the stack has not moved on.

use std::path::PathBuf;
use std::time::Duration;

use ferry_engine::commit::{apply_import, CommitOptions};
use ferry_engine::import::{preview_import, ImportOptions, Preview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use ferry_engine::property::json::{decode_map, encode_map, DecodeOptions, EncodeOptions, SecretEncoding};
use ferry_state::secrets::PassphraseCrypter;
use ferry_state::{load_state, LoadOptions};
use ferry_store::{NewVersion, StackSummary};
use serde::Serialize;
use serde_json::{json, Value};

use crate::stack_secrets::StackSecrets;
use crate::{ServiceError, StackService};

/// Where the engine finds plugins and keeps schemas, and the key for stored preview values.
#[derive(Clone)]
pub struct EngineConfig {
    pub plugin_dirs: Vec<PathBuf>,
    pub schema_cache: Option<PathBuf>,
    pub launch: LaunchOptions,
    pub concurrency: usize,
    pub payload_key: [u8; 32],
}

impl EngineConfig {
    pub fn new(plugin_dirs: Vec<PathBuf>, schema_cache: Option<PathBuf>, payload_key: [u8; 32]) -> Self {
        EngineConfig {
            plugin_dirs,
            schema_cache,
            launch: LaunchOptions { start_timeout: Duration::from_secs(30), call_timeout: Duration::from_secs(120), ..Default::default() },
            concurrency: 16,
            payload_key,
        }
    }
}

/// A stored preview as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PreviewRecord {
    pub id: String,
    pub stack_id: String,
    pub base_version: i64,
    pub created_at: String,
    pub committed_version: Option<i64>,
    pub preview: Value,
}

/// What a commit made.
#[derive(Debug, Clone, Serialize)]
pub struct CommitOutcome {
    #[serde(flatten)]
    pub summary: StackSummary,
    pub added: usize,
}

impl StackService {
    pub(crate) fn engine(&self) -> Result<&EngineConfig, ServiceError> {
        self.engine.as_ref().ok_or_else(|| ServiceError::Internal("the import engine is not configured".into()))
    }

    /// Runs an import preview against the stack's latest version and stores it. Writes
    /// nothing to the stack.
    pub async fn preview_import(&self, stack_id: &str, spec_text: &str) -> Result<PreviewRecord, ServiceError> {
        self.preview_import_with(stack_id, spec_text, None, Default::default()).await
    }

    /// [`Self::preview_import`] with an import strategy, telling `progress` of each resource as
    /// it finishes.
    pub async fn preview_import_with(
        &self,
        stack_id: &str,
        spec_text: &str,
        progress: Option<ferry_engine::progress::Progress>,
        strategy: ferry_engine::import::ImportStrategy,
    ) -> Result<PreviewRecord, ServiceError> {
        let config = self.engine()?.clone();
        let spec = parse_import_spec(spec_text)?;
        let version = self.version(stack_id, None).await?;
        let name: Vec<&str> = version.summary.name.split('/').collect();
        let (project, stack) = (name[1], name[2]);

        let search = PluginSearch::from_env(config.plugin_dirs.clone());
        let (engine, _logs) = EngineService::start().await.map_err(|e| ServiceError::Internal(format!("engine service: {e}")))?;
        let providers = PluginProviders::new(search, engine, config.launch, std::env::temp_dir(), config.schema_cache.clone());
        let ctx = StackContext { stack, project, deployment: &version.deployment };
        let preview = preview_import(&spec, &ctx, &providers, ImportOptions { concurrency: config.concurrency, progress, strategy }).await;
        providers.shutdown().await;

        let preview_json = serde_json::to_value(&preview).expect("a preview serialises");
        let payload = seal_payload(&preview, &config.payload_key);
        let record = self.store_preview(stack_id, version.summary.version, spec_text, preview_json, &payload).await?;
        tracing::info!(preview = %record.id, stack = %version.summary.name, "stored import preview");
        Ok(record)
    }

    /// Stores a preview and answers it as stored, without reading it back.
    pub(crate) async fn store_preview(
        &self,
        stack_id: &str,
        base_version: i64,
        source: &str,
        preview: Value,
        payload: &str,
    ) -> Result<PreviewRecord, ServiceError> {
        let (id, created_at) = self.store.add_preview(stack_id, base_version, source, &preview.to_string(), payload).await?;
        Ok(PreviewRecord { id, stack_id: stack_id.to_string(), base_version, created_at, committed_version: None, preview })
    }

    pub async fn preview(&self, id: &str) -> Result<PreviewRecord, ServiceError> {
        let p = self.store.preview(id).await?;
        Ok(PreviewRecord {
            id: p.id,
            stack_id: p.stack_id,
            base_version: p.base_version,
            created_at: p.created_at,
            committed_version: p.committed_version,
            preview: serde_json::from_str(&p.preview_json).map_err(|e| ServiceError::Internal(format!("stored preview: {e}")))?,
        })
    }

    /// Adds the preview's ready resources to the stack as its next version. `passphrase` is
    /// needed when the stack's secrets use one (or to give a stack without a secrets provider
    /// its first, when the imported resources hold secrets).
    ///
    /// A program preview commits by its own rules ([`StackService::commit_program`]); `apply`
    /// lets it run creates, updates, replacements and deletes.
    pub async fn commit_preview(&self, id: &str, passphrase: Option<String>, apply: bool) -> Result<CommitOutcome, ServiceError> {
        let config = self.engine()?.clone();
        let stored = self.store.preview(id).await?;
        if let Some(version) = stored.committed_version {
            return Err(ferry_store::StoreError::AlreadyCommitted { version }.into());
        }
        // Parsed once: its kind decides the commit's rules.
        let value: Value = serde_json::from_str(&stored.preview_json).map_err(|e| ServiceError::Internal(format!("stored preview: {e}")))?;
        if value["kind"] == "program" {
            return self.commit_program(stored, value, passphrase, apply).await;
        }
        let mut preview: Preview = serde_json::from_value(value).map_err(|e| ServiceError::Internal(format!("stored preview: {e}")))?;
        open_payload(&mut preview, &stored.payload, &config.payload_key)?;
        let base = self.version(&stored.stack_id, Some(stored.base_version)).await?;

        // Key derivation (PBKDF2), encryption and the state's check are CPU work: off the async
        // workers, and the passphrase's key is derived once for both encrypting and checking.
        let (export, resource_count, added) = tokio::task::spawn_blocking(move || -> Result<_, ServiceError> {
            let mut deployment = base.deployment.clone();
            let secrets = StackSecrets::for_commit(&mut deployment, passphrase.as_deref())?;
            let encrypt = |plain: &str| secrets.encrypt(plain);
            let now = now_rfc3339();
            let options = CommitOptions { protect: true, now: &now, encrypt: &encrypt };
            let (next, added) = apply_import(&deployment, &preview, &options).map_err(|e| ServiceError::Commit(e.to_string()))?;
            secrets.check_encrypted()?;
            // The new state must load as Pulumi state, references and secrets included.
            let export = ferry_state::load::export_value(&next, &base.features).to_string();
            let checked = load_state(export.as_bytes(), LoadOptions { passphrase: passphrase.as_deref(), key: secrets.key() })?;
            Ok((export, checked.deployment.resources().len(), added))
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("the commit's work stopped: {e}")))??;
        let summary =
            self.store.commit_preview(&stored, NewVersion { origin: "commit", source_format: "stack export v3", resource_count, export_json: &export }).await?;
        tracing::info!(preview = %id, stack = %summary.name, version = summary.version, added, "committed import");
        Ok(CommitOutcome { summary, added })
    }
}

/// The values a commit writes (secrets in plaintext), encrypted with the server's key.
pub(crate) fn seal_payload(preview: &Preview, key: &[u8; 32]) -> String {
    let plain = EncodeOptions { secrets: SecretEncoding::Plaintext, ..EncodeOptions::wire() };
    let values: Vec<Value> =
        preview.resources.iter().map(|r| json!({"inputs": encode_map(&r.inputs, &plain), "outputs": encode_map(&r.outputs, &plain)})).collect();
    PassphraseCrypter::from_key(key).encrypt(Value::Array(values).to_string().as_bytes())
}

pub(crate) fn open_payload(preview: &mut Preview, sealed: &str, key: &[u8; 32]) -> Result<(), ServiceError> {
    let bad = |what: &str| ServiceError::Internal(format!("the preview's stored values {what} (was the server's payload key replaced?)"));
    let bytes = PassphraseCrypter::from_key(key).decrypt(sealed).map_err(|_| bad("do not decrypt"))?;
    let values: Vec<Value> = serde_json::from_slice(&bytes).map_err(|_| bad("are damaged"))?;
    if values.len() != preview.resources.len() {
        return Err(bad("do not match the preview"));
    }
    for (r, v) in preview.resources.iter_mut().zip(values) {
        let empty = serde_json::Map::new();
        let decode = |field: &str| decode_map(v[field].as_object().unwrap_or(&empty), "", &DecodeOptions::default());
        r.inputs = decode("inputs").map_err(|_| bad("are damaged"))?;
        r.outputs = decode("outputs").map_err(|_| bad("are damaged"))?;
    }
    Ok(())
}

pub(crate) fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
