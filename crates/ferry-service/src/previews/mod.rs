//! Stored previews and their one commit. A preview of an import spec and of a program is the
//! same value, a [`DeploymentPlan`] of steps, stored with where it came from ([`StoredPlan`],
//! masked: it is shared by ID) and, sealed with the server's key, the resource states a commit
//! writes. A commit judges the plan by one set of rules ([`DeploymentPlan::commit_refusal`]); a
//! plan of imports, reads and unchanged resources commits the states its preview computed, in
//! one transaction, only while the stack is still at the version the preview ran against. Only
//! a program's apply runs the providers again.

pub(crate) mod code;
pub(crate) mod engine_thread;
mod identify;
pub(crate) mod imports;
pub(crate) mod programs;
pub(crate) mod request;
pub(crate) mod results;
pub(crate) mod verify;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use ferry_engine::deploy::snapshot::{
    assign_created_ids, to_deployment, verbatim_position, WriteOptions,
};
use ferry_engine::deploy::{ConfigValue, DeploymentPlan, PlanScope, ResourceState};
use ferry_engine::import::{ImportStrategy, SpecPreview};
use ferry_state::secrets::PassphraseCrypter;
use ferry_state::LoadOptions;
use ferry_store::managed::ManagedChange;
use ferry_store::packed_runs::PackedRuns;
use ferry_store::{NewVersion, PackedJson};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use ferry_types::api::{CommitOutcome, PreviewBody, PreviewView, ProgramPreview};
use ferry_types::SourceKind;

use crate::backends::Backends;
use crate::jobs::Jobs;
use crate::lru::WeightedLru;
use crate::plugin_host::PluginHost;
use crate::previews::results::ResultRows;
use crate::shares::ShareLinks;
use crate::stack_secrets::StackSecrets;
use crate::stacks::export_packing::{pack_export, BaseRuns};
use crate::stacks::Stacks;
use crate::{EngineSlot, ServiceError};

/// How many stored previews' results rows are kept, together (a row is a few hundred bytes):
/// scrolling through a 10,000-import plan's results must not parse its preview each page.
const RESULT_CACHE_ROWS: usize = 100_000;

/// Previews of imports and programs (run, stored sealed, read back), their results, their
/// identification, their commit's work and their code. Beneath plans and the workflow: a
/// preview knows the stack it is of, never the plan it was made for.
#[derive(Clone)]
pub struct Previews {
    pub(crate) store: ferry_store::Store,
    pub(crate) engine: EngineSlot,
    /// Stored previews' results rows (what the plan page pages through), weighed by rows.
    pub(crate) result_rows: Arc<std::sync::Mutex<WeightedLru<String, Arc<ResultRows>>>>,
    pub(crate) stacks: Stacks,
    pub(crate) backends: Backends,
    pub(crate) jobs: Jobs,
    pub(crate) plugins: PluginHost,
    pub(crate) shares: ShareLinks,
}

/// What a preview was made from.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PlanSource {
    /// An import spec (`pulumi import --file`), run as an import deployment.
    Spec { strategy: ImportStrategy },
    /// A Pulumi YAML program (the file's name; its text is the preview's stored source).
    Program { file: String },
}

/// A stored preview: the plan and its source. Masked (shared by ID).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredPlan {
    #[serde(flatten)]
    pub source: PlanSource,
    pub plan: DeploymentPlan,
    /// A program's would-be creates as an import file, and as a mapping to fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_file: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<std::collections::BTreeMap<String, String>>,
}

impl StoredPlan {
    /// What the preview ran: a spec or a program.
    pub fn kind(&self) -> SourceKind {
        match self.source {
            PlanSource::Spec { .. } => SourceKind::Spec,
            PlanSource::Program { .. } => SourceKind::Program,
        }
    }

    /// What the API and CLI show: a program's plan as stored (borrowed, its import file and
    /// mapping too: a 10,000-step plan's view is megabytes, and copying it first cost as much
    /// again); a spec's entries with their statuses (the view of its plan).
    pub fn view(&self) -> PreviewBody<'_> {
        match &self.source {
            PlanSource::Program { file } => PreviewBody::Program(ProgramPreview {
                file: file.clone(),
                plan: Cow::Borrowed(&self.plan),
                import_file: self.import_file.as_ref().map(Cow::Borrowed),
                mapping: self.mapping.as_ref().map(Cow::Borrowed),
            }),
            PlanSource::Spec { .. } => PreviewBody::Spec(SpecPreview::from_plan(&self.plan)),
        }
    }
}

/// What running a program again takes, sealed with its preview (config may hold secrets).
#[derive(Serialize, Deserialize)]
pub(crate) struct ProgramRun {
    pub(crate) file: String,
    pub(crate) config: BTreeMap<String, ConfigValue>,
    pub(crate) mapping: Option<BTreeMap<String, String>>,
    /// Payloads from before scopes were whole-stack.
    #[serde(default)]
    pub(crate) scope: PlanScope,
    /// Sealed with the rest: a commit reads the resources as the preview did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prior: Option<BTreeMap<String, ferry_terraform::PriorState>>,
    /// An identifying run's (never stored: identification's previews are not kept).
    #[serde(skip)]
    pub(crate) identify: Option<ferry_engine::deploy::Identify>,
}

/// What a preview's sealed payload holds: the states a commit writes (secrets in plaintext),
/// and for a program what running it again takes (its config may hold secrets).
#[derive(Serialize, Deserialize)]
pub(crate) struct SealedPayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<ProgramRun>,
    #[serde(with = "sealed_states")]
    pub states: Vec<ResourceState>,
}

/// The payload's states, where a resource kept verbatim from the base is `{"kept": <its
/// position in the base>}`: the commit copies it from the base version, so the payload grows
/// with what the preview changes, not with the stack (10,000 imports into a 100,000-resource
/// stack sealed 95 MB when every kept resource was written out).
mod sealed_states {
    use ferry_engine::deploy::ResourceState;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Written<'a> {
        Kept { kept: usize },
        State(&'a ResourceState),
    }

    #[derive(Deserialize)]
    struct Kept {
        kept: usize,
    }

    pub fn serialize<S: Serializer>(
        states: &[ResourceState],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(states.iter().map(|s| match (s.verbatim, s.base) {
            (true, Some(kept)) => Written::Kept { kept },
            _ => Written::State(s),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<ResourceState>, D::Error> {
        // Each entry's text is taken as it is, and read as what it starts as: an untagged enum
        // copied every entry into serde's generic tree first, then read it again (a tenth of
        // a commit's instructions into a 100,000-resource stack, callgrind, 2026-11-30). The
        // payload is only ever read from JSON, which lends the text.
        Vec::<&'de serde_json::value::RawValue>::deserialize(deserializer)?
            .into_iter()
            .map(|entry| {
                let text = entry.get();
                match text.strip_prefix("{\"kept\":") {
                    // Most entries of a preview into a big stack are kept ones: read as they
                    // were written, without a parser, and with one when written otherwise.
                    Some(rest) => match rest.strip_suffix('}').and_then(|n| n.parse().ok()) {
                        Some(kept) => Ok(ResourceState::kept(kept)),
                        None => serde_json::from_str::<Kept>(text)
                            .map(|Kept { kept }| ResourceState::kept(kept))
                            .map_err(D::Error::custom),
                    },
                    None => serde_json::from_str(text).map_err(D::Error::custom),
                }
            })
            .collect()
    }
}

impl SealedPayload {
    /// The payload's JSON, packed (see [`PackedJson`]) then encrypted: it is most of a big
    /// preview's stored bytes, and ciphertext does not compress.
    pub fn seal(&self, key: &[u8; 32]) -> String {
        let packed = PackedJson::write(self).expect("a payload serialises");
        PassphraseCrypter::from_key(key).encrypt(packed.bytes())
    }

    pub fn open(sealed: &str, key: &[u8; 32]) -> Result<SealedPayload, ServiceError> {
        let bad = |what: &str| {
            ServiceError::Internal(format!("the preview's stored values {what} (was the server's payload key replaced?); preview again"))
        };
        let mut bytes =
            PassphraseCrypter::from_key(key).decrypt(sealed).map_err(|_| bad("do not decrypt"))?;
        // Payloads sealed before they were packed are the JSON itself.
        if PackedJson::is_packed(&bytes) {
            bytes =
                PackedJson::unpack(&bytes).map_err(|why| bad(&format!("do not unpack ({why})")))?;
        }
        serde_json::from_slice(&bytes).map_err(|_| bad("are damaged or from an older Ferry"))
    }
}

/// A stored preview, read or just run.
#[derive(Debug, Clone)]
pub struct PreviewRecord {
    pub id: String,
    pub stack_id: String,
    pub base_version: i64,
    pub created_at: String,
    pub committed_version: Option<i64>,
    pub plan: Arc<StoredPlan>,
}

impl PreviewRecord {
    /// The record as the API and the CLI answer it (see [`StoredPlan::view`]).
    pub fn view(&self) -> PreviewView<'_> {
        PreviewView {
            id: self.id.clone(),
            stack_id: self.stack_id.clone(),
            base_version: self.base_version,
            created_at: self.created_at.clone(),
            committed_version: self.committed_version,
            preview: self.plan.view(),
        }
    }
}

pub(crate) fn parse_stored(json: &str) -> Result<StoredPlan, ServiceError> {
    serde_json::from_str(json).map_err(|e| {
        ServiceError::Internal(format!(
            "the stored preview does not read ({e}): it may be from an older Ferry; preview again"
        ))
    })
}

impl Previews {
    pub(crate) fn new(
        store: ferry_store::Store,
        engine: EngineSlot,
        stacks: Stacks,
        backends: Backends,
        jobs: Jobs,
        plugins: PluginHost,
        shares: ShareLinks,
    ) -> Previews {
        Previews {
            store,
            engine,
            result_rows: Arc::new(std::sync::Mutex::new(WeightedLru::new(RESULT_CACHE_ROWS))),
            stacks,
            backends,
            jobs,
            plugins,
            shares,
        }
    }

    /// Stores a preview and answers it as stored, without reading it back.
    pub(crate) async fn store_preview(
        &self,
        stack_id: &str,
        base_version: i64,
        source_text: &str,
        plan: StoredPlan,
        payload: SealedPayload,
    ) -> Result<PreviewRecord, ServiceError> {
        let key = self.engine.get()?.payload_key;
        let plan = Arc::new(plan);
        // The plan's JSON and the sealed payload are megabytes each for a big preview (10,000
        // imports: 7 MB and 8.6 MB of text): packed as they are written, side by side, on the
        // engine's threads, below the workers, which meanwhile serve other requests.
        let written = plan.clone();
        let (packed, sealed) = self
            .engine
            .threads()?
            .side_by_side(
                "storing the preview",
                move || PackedJson::write(&*written).expect("a plan serialises"),
                move || payload.seal(&key),
            )
            .await?;
        let (id, created_at) = self
            .store
            .stacks()
            .add_preview(stack_id, base_version, source_text, &packed, &sealed)
            .await?;
        Ok(PreviewRecord {
            id,
            stack_id: stack_id.to_string(),
            base_version,
            created_at,
            committed_version: None,
            plan,
        })
    }

    /// A stored preview, by ID.
    pub async fn stored_preview(&self, id: &str) -> Result<PreviewRecord, ServiceError> {
        let p = self.store.stacks().preview(id).await?;
        let plan = parse_stored(&p.preview_json)?;
        Ok(PreviewRecord {
            id: p.id,
            stack_id: p.stack_id,
            base_version: p.base_version,
            created_at: p.created_at,
            committed_version: p.committed_version,
            plan: Arc::new(plan),
        })
    }

    /// Commits a preview as the stack's next version. `passphrase` is needed when the stack's
    /// secrets use one (or to give a stack without a secrets provider its first, when the
    /// imported resources hold secrets); `apply` lets a program's plan run creates, updates,
    /// replacements and deletes.
    ///
    /// A stack connected to a DIY backend is committed as the Pulumi CLI updates it: its lock is
    /// taken before anything runs (refused, naming the holder, when another process has it),
    /// the checkpoint must still be the preview's base, the new one is written with its backup
    /// and history, and the lock is released whatever happened.
    ///
    /// The rule a plan's approvals set is checked before, by [`crate::Workflow::commit_preview`],
    /// the one way callers commit.
    pub(crate) async fn commit_preview(
        &self,
        id: &str,
        passphrase: Option<String>,
        apply: bool,
    ) -> Result<CommitOutcome, ServiceError> {
        let stored = self.store.stacks().preview(id).await?;
        if let Some(version) = stored.committed_version {
            return Err(ferry_store::StoreError::AlreadyCommitted { version }.into());
        }
        let Some(conn) = self.backends.connected(&stored.stack_id).await? else {
            return self.commit_stored(id, stored, passphrase, apply, None).await;
        };
        let lock = self.backends.lock_backend(&stored.stack_id, &conn).await?;
        let result = self.commit_stored(id, stored, passphrase, apply, Some(&conn)).await;
        self.backends.unlock_backend(&conn, lock).await;
        result
    }

    async fn commit_stored(
        &self,
        id: &str,
        mut stored: ferry_store::StoredPreview,
        passphrase: Option<String>,
        apply: bool,
        backend: Option<&crate::backends::Connected>,
    ) -> Result<CommitOutcome, ServiceError> {
        let key = self.engine.get()?.payload_key;
        // The plan and the sealed states are megabytes each for a big preview: read side by
        // side, on the engine's threads. The plan is parsed once; its own rules decide.
        let (plan_json, sealed) =
            (std::mem::take(&mut stored.preview_json), std::mem::take(&mut stored.payload));
        let (record, sealed) = self
            .engine
            .threads()?
            .side_by_side(
                "reading the preview",
                move || parse_stored(&plan_json),
                move || SealedPayload::open(&sealed, &key),
            )
            .await?;
        let record = record?;
        if let Some(reason) = record.plan.commit_refusal(apply) {
            return Err(ServiceError::Commit(reason));
        }
        let sealed = sealed?;
        let base = self.stacks.version(&stored.stack_id, Some(stored.base_version)).await?;
        // Checked before anything runs, and again right before the write.
        let live = match backend {
            Some(conn) => Some(self.backends.backend_unchanged(conn, &base.deployment).await?),
            None => None,
        };
        let features = base.features.clone();
        // A backend's checkpoint is compared with the base again right before the write.
        let base_for_backend = backend.map(|_| base.clone());
        let config = self.stacks.stack_config(&stored.stack_id).await?;
        let (mut states, added, failures, run_secrets) = if record.plan.needs_execution() {
            let run = sealed.run.ok_or_else(|| {
                ServiceError::Internal("the preview holds no program to run".into())
            })?;
            let (done, secrets) = self
                .execute_program(&stored, &record.plan, &run, &base, passphrase.clone())
                .await?;
            let failures = done
                .plan
                .failed_steps()
                .map(|s| format!("`{}` ({}): {}", s.name, s.op, s.error.as_deref().unwrap_or("")))
                .collect();
            (done.states, done.plan.added(), failures, Some(secrets))
        } else {
            (sealed.states, record.plan.added(), Vec::<String>::new(), None)
        };
        let origin = if failures.is_empty() { "commit" } else { "commit (failed part-way)" };
        // Key derivation (PBKDF2), encryption and the state's check are CPU work: off the async
        // workers, and the passphrase's key is derived once for both encrypting and checking.
        // Work in the size of what changed where it can be. This commit supersedes the base
        // version: it leaves the cache, so that when nothing else holds it (no page reading it
        // this moment) its resources move into the new version rather than being copied (a
        // commit refused later leaves it to be read again). The new state is checked in memory
        // rather than written out and read back, and it is written out once.
        self.stacks.forget(&stored.stack_id, stored.base_version);
        // The commit's time, on the service's clock, is the new deployment's.
        let now = crate::backends::rfc3339_seconds(self.store.clock());
        // The base version as it is packed: the runs of it this commit keeps whole are taken as
        // they are, not written out again.
        let base_packed =
            self.store.stacks().packed_export(&stored.stack_id, stored.base_version).await?;
        // The index of managed resources follows the commit only when it reflects the base (an
        // upload leaves it to the first discovery); a delta of stale rows would not be applied.
        let follow_index = self.store.stacks().managed_version(&stored.stack_id).await?
            == Some(stored.base_version);
        let (export, next, features, managed) =
            tokio::task::spawn_blocking(move || -> Result<_, ServiceError> {
                let shared;
                let base = match Arc::try_unwrap(base) {
                    Ok(only) => std::borrow::Cow::Owned(only.deployment),
                    Err(held) => {
                        shared = held;
                        std::borrow::Cow::Borrowed(&shared.deployment)
                    }
                };
                // What the base manages, for the index's delta (the base moves into the result).
                let managed_before =
                    follow_index.then(|| crate::stacks::managed::managed_by_urn(&base));
                // The new head: the base's, with the secrets provider the commit needs.
                let mut head = base.without_resources();
                // An apply already derived the passphrase's key for its runs.
                let secrets = match run_secrets {
                    Some(secrets) => {
                        secrets.into_commit(&mut head, passphrase.as_deref(), &config)?
                    }
                    None => StackSecrets::for_commit(&mut head, passphrase.as_deref(), &config)?,
                };
                let encrypt = |plain: &str| secrets.encrypt(plain);
                assign_created_ids(&mut states);
                let mut next =
                    to_deployment(base, &states, &WriteOptions { now: &now, encrypt: &encrypt });
                let kept: Vec<Option<usize>> = states.iter().map(verbatim_position).collect();
                drop(states);
                // What it keeps of the base has URNs checked when the base was stored.
                let stored_copies: Vec<bool> = kept.iter().map(Option::is_some).collect();
                next.secrets_providers = head.secrets_providers;
                secrets.check_encrypted()?;
                // The new state must load as Pulumi state: references resolve and secrets decrypt.
                ferry_state::load::check_deployment(
                    &next,
                    "deployment",
                    LoadOptions {
                        passphrase: passphrase.as_deref(),
                        key: secrets.key(),
                        stored_copies: &stored_copies,
                        ..Default::default()
                    },
                )?;
                let managed = match managed_before {
                    Some(before) => crate::stacks::managed::managed_change(&before, &next),
                    None => ManagedChange::Unknown,
                };
                // Written out once, packed as the store keeps it, taking the base's runs that
                // are kept whole.
                let base = base_packed.as_deref().and_then(PackedRuns::read);
                let base = base.map(|runs| BaseRuns { runs, kept: &kept });
                Ok((pack_export(&next, &features, base.as_ref()), next, features, managed))
            })
            .await
            .map_err(|e| ServiceError::Internal(format!("the commit's work stopped: {e}")))??;
        let resource_count = next.resources().len();
        if let (Some(conn), Some(_)) = (backend, live) {
            let base = base_for_backend.as_ref().expect("kept for the backend");
            let live = self.backends.backend_unchanged(conn, &base.deployment).await?;
            self.backends.write_backend(conn, &live, &next).await?;
        }
        let summary = self
            .store
            .stacks()
            .commit_preview(
                &stored,
                NewVersion {
                    origin,
                    source_format: "stack export v3",
                    resource_count,
                    export,
                    managed,
                },
            )
            .await?;
        // The page a committer opens next shows this version: it is already parsed.
        self.stacks.remember(summary.clone(), next, features);
        if !failures.is_empty() {
            tracing::warn!(preview = %stored.id, version = summary.version, "apply failed part-way; what was done is recorded");
            return Err(ServiceError::Commit(format!(
                "the apply failed part-way ({}); what was done is recorded as version {} of the stack",
                failures.join("; "),
                summary.version
            )));
        }
        tracing::info!(preview = %id, stack = %summary.name, version = summary.version, added, apply, "committed");
        Ok(CommitOutcome { summary, added })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_resource_is_sealed_as_its_position_and_opens_as_kept() {
        let key = [7u8; 32];
        let mut imported = ResourceState::kept(0);
        (
            imported.urn,
            imported.type_,
            imported.custom,
            imported.id,
            imported.base,
            imported.verbatim,
        ) = (
            "urn:pulumi:s::p::random:index/randomPet:RandomPet::new".into(),
            "random:index/randomPet:RandomPet".into(),
            true,
            Some("x".into()),
            None,
            false,
        );
        let states = vec![ResourceState::kept(0), imported.clone(), ResourceState::kept(5)];
        let sealed = SealedPayload { run: None, states }.seal(&key);
        let plain =
            PackedJson::unpack(&PassphraseCrypter::from_key(&key).decrypt(&sealed).unwrap())
                .unwrap();
        let json: Value = serde_json::from_slice(&plain).unwrap();
        assert_eq!(
            (json["states"][0].clone(), json["states"][2].clone()),
            (serde_json::json!({"kept": 0}), serde_json::json!({"kept": 5}))
        );
        let opened = SealedPayload::open(&sealed, &key).unwrap().states;
        assert_eq!(opened, vec![ResourceState::kept(0), imported, ResourceState::kept(5)]);
    }

    #[test]
    fn a_payload_sealed_before_payloads_were_packed_still_opens() {
        let key = [9u8; 32];
        let unpacked = PassphraseCrypter::from_key(&key).encrypt(br#"{"states":[{"kept":3}]}"#);
        assert_eq!(
            SealedPayload::open(&unpacked, &key).unwrap().states,
            vec![ResourceState::kept(3)]
        );
        let damaged = PassphraseCrypter::from_key(&key).encrypt(&[0x28, 0xB5, 0x2F, 0xFD, 0, 1, 2]);
        let err = SealedPayload::open(&damaged, &key)
            .err()
            .expect("damaged bytes do not open")
            .to_string();
        assert!(err.contains("do not unpack"), "{err}");
    }
}
