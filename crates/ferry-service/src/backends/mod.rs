//! Stacks connected to a Pulumi DIY backend: connecting one (its checkpoint read as a version),
//! reading it live before each preview (a checkpoint that moved becomes the stack's next
//! version), and committing into it as the Pulumi CLI does (lock, re-read, write with backup and
//! history, unlock — also on failure).
//!
//! Which backends may be opened, and by which organisation, is the server administrator's
//! choice (`ferry serve --allow-backend <org>=<url>`): a URL names a folder of the server's
//! machine or an endpoint it will call, so a request alone never decides that, and one
//! organisation's backend is not another's.

mod terraform_state;

use ferry_backend::{Backend, BackendStack, Location};
use ferry_state::{load_state, LoadOptions};
use serde_json::Value;

use ferry_store::{NewVersion, StackName};

use crate::access::{org_of_name, Caller, Role};
use crate::jobs::Jobs;
use crate::stacks::Stacks;
use crate::{ServiceError, UploadOutcome};

/// A lock Ferry holds in a backend, and its lock file's path there.
pub(crate) struct BackendLockHeld {
    lock: ferry_backend::Lock,
    path: String,
}

/// A connected stack's backend, opened, and the stack there.
pub(crate) struct Connected {
    pub backend: Backend,
    pub stack: BackendStack,
}

/// A backend URL an administrator allows one organisation (`*`: every organisation) to use:
/// `<org>=<url>` as `--allow-backend` takes it. `{org}` in the URL stands for the organisation
/// that asks (`*=s3://state/{org}` gives each organisation its own prefix of one bucket).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedBackend {
    pub org: String,
    pub url: String,
}

impl AllowedBackend {
    /// Reads `<org>=<url>`; a bare URL is refused, naming the form, since it would say
    /// nothing of who may use it.
    pub fn parse(entry: &str) -> Result<AllowedBackend, ServiceError> {
        let entry = entry.trim();
        // A URL's own `=` come after its scheme's `:`, so the first `=` before any `:` or `/`
        // ends the organisation.
        let split = entry.split_once('=').filter(|(org, _)| !org.contains([':', '/']));
        let Some((org, url)) = split else {
            return Err(ServiceError::Invalid(format!(
                "`--allow-backend {entry}`: say which organisation may use it, as `<org>=<url>` (`*=<url>` for every organisation)"
            )));
        };
        if org != "*" {
            crate::accounts::check_org_name(org)
                .map_err(|e| ServiceError::Invalid(format!("`--allow-backend {entry}`: {e}")))?;
        }
        url::Url::parse(&url.replace("{org}", "org")).map_err(|e| {
            ServiceError::Invalid(format!("`--allow-backend {entry}`: `{url}` is not a URL: {e}"))
        })?;
        Ok(AllowedBackend { org: org.to_string(), url: url.to_string() })
    }

    /// The location this entry allows `org`, when it allows `org` anything: its URL, `{org}`
    /// filled in, decoded and normalised as a request's is.
    fn root_for(&self, org: &str) -> Option<Location> {
        if self.org != "*" && self.org != org {
            return None;
        }
        Location::parse(&self.url.replace("{org}", org)).ok()
    }

    /// Reads a comma-separated list (`FERRY_ALLOW_BACKENDS`).
    pub fn parse_list(list: &str) -> Result<Vec<AllowedBackend>, ServiceError> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(AllowedBackend::parse)
            .collect()
    }
}

/// A deployment as the JSON value Ferry stores and writes: what two reads compare, and what a
/// checkpoint is written from.
fn deployment_value(deployment: &ferry_state::Deployment) -> Result<Value, ServiceError> {
    serde_json::to_value(deployment)
        .map_err(|e| ServiceError::Internal(format!("a deployment did not serialise: {e}")))
}

/// Stacks kept in DIY backends: what a backend holds, connecting, locks and writes. Only
/// under the roots an administrator allows.
#[derive(Clone)]
pub struct Backends {
    store: ferry_store::Store,
    /// DIY backend URLs the administrator allows.
    allowed_backends: std::sync::Arc<Vec<AllowedBackend>>,
    pub(crate) max_state_bytes: usize,
    /// Whose lease a backend lock is held under.
    jobs: Jobs,
    stacks: Stacks,
}

impl Backends {
    pub(crate) fn new(
        store: ferry_store::Store,
        allowed_backends: Vec<AllowedBackend>,
        max_state_bytes: usize,
        jobs: Jobs,
        stacks: Stacks,
    ) -> Backends {
        Backends {
            store,
            allowed_backends: std::sync::Arc::new(allowed_backends),
            max_state_bytes,
            jobs,
            stacks,
        }
    }
}

impl Backends {
    /// The location `url` names, once decoded and normalised, when it lies inside a root an
    /// entry allows `org`: the only way to a [`Location`] Ferry opens, so what is checked is
    /// what is opened. Anything else is refused, naming the URL.
    pub(crate) fn allowed_location(&self, org: &str, url: &str) -> Result<Location, ServiceError> {
        let refused =
            || ServiceError::BackendNotAllowed { url: url.to_string(), org: Some(org.to_string()) };
        // A URL that does not resolve is refused as any other outside the roots: saying why
        // would tell a caller which paths of the server's machine exist.
        let location = Location::parse(url).map_err(|_| refused())?;
        if !self
            .allowed_backends
            .iter()
            .filter_map(|entry| entry.root_for(org))
            .any(|root| location.is_within(&root))
        {
            return Err(refused());
        }
        Ok(location)
    }

    fn open_backend(&self, org: &str, url: &str) -> Result<Backend, ServiceError> {
        let location = self.allowed_location(org, url)?;
        Ok(Backend::open(&location, self.max_state_bytes as u64)?)
    }

    /// The stacks a backend holds, for a planner of `org`, which the backend must be allowed
    /// to.
    pub async fn backend_stacks(
        &self,
        caller: &Caller,
        org: &str,
        url: &str,
    ) -> Result<Vec<BackendStack>, ServiceError> {
        caller.require(org, Role::Planner)?;
        Ok(self.open_backend(org, url)?.stacks().await?)
    }

    /// Connects the backend's stack named by `name`'s project and stack as the new Ferry stack
    /// `name` (`<org>/<project>/<stack>`, in the organisation the caller is a planner of, which
    /// the backend must be allowed to): its checkpoint, read now, is the stack's first
    /// version, and every later preview and commit goes to the backend. A name Ferry already
    /// holds is refused: a connect never writes into, or re-points, an existing stack.
    ///
    /// `config`, when given, names the stack's `Pulumi.<stack>.yaml` where the server may read
    /// it (a file under a backend URL allowed to the organisation); it is read and checked
    /// before anything is kept.
    pub async fn connect_stack(
        &self,
        caller: &Caller,
        url: &str,
        name: &str,
        config: Option<&str>,
        passphrase: Option<String>,
    ) -> Result<UploadOutcome, ServiceError> {
        let name = StackName::parse(name)?;
        let org = org_of_name(name.as_str());
        caller.require(org, Role::Planner)?;
        let backend = self.open_backend(org, url)?;
        // Ferry's organisation is not the backend's (a DIY backend has only Pulumi's
        // `organization`): the backend's stack is named by project and stack.
        let (project, stack_name) = name.project_and_stack();
        let stack = backend.stack(&format!("{project}/{stack_name}")).await?;
        if self.store.stacks().stack_id_by_name(&name).await?.is_some() {
            return Err(ServiceError::Conflict(format!(
                "Ferry already holds a stack named `{name}`; a backend stack is connected as a new stack, never into an existing one"
            )));
        }
        let config_yaml = match config {
            Some(config_url) => {
                let location = self.allowed_location(org, config_url)?;
                let bytes =
                    ferry_backend::read_file(&location, self.max_state_bytes as u64).await?;
                let yaml = String::from_utf8(bytes).map_err(|_| {
                    ServiceError::Invalid(format!(
                        "`{config_url}` is not text (a Pulumi.<stack>.yaml)"
                    ))
                })?;
                crate::stacks::stack_config::parse_stack_config(&yaml)?;
                Some(yaml)
            }
            None => None,
        };
        let bytes = backend.read(&stack).await?;
        let (loaded, export, _) = self
            .stacks
            .read_upload(Some(name.clone()), bytes, passphrase, "backend", false)
            .await?;
        let first = NewVersion {
            origin: "backend",
            source_format: &loaded.format.to_string(),
            resource_count: loaded.deployment.resources().len(),
            export,
            // Rebuilt from this version when a discovery first asks.
            managed: ferry_store::managed::ManagedChange::Unknown,
        };
        // The canonical URL is kept: what every later read and write opens again.
        let summary = self
            .store
            .stacks()
            .add_connected_stack(&name, first, backend.url(), &stack.name, config_yaml.as_deref())
            .await?;
        tracing::info!(stack = %summary.name, backend = %url, backend_stack = %stack.name, "connected a stack to its DIY backend");
        self.stacks.remember(summary.clone(), loaded.deployment, loaded.features);
        Ok(crate::stacks::upload_outcome(summary, loaded.warnings))
    }

    pub(crate) async fn connected(
        &self,
        stack_id: &str,
    ) -> Result<Option<Connected>, ServiceError> {
        let Some((url, name)) = self.store.stacks().backend_of(stack_id).await? else {
            return Ok(None);
        };
        let org = org_of_name(&self.store.stacks().stack(stack_id).await?.name).to_string();
        let backend = self.open_backend(&org, &url)?;
        let stack = backend.stack(&name).await?;
        Ok(Some(Connected { backend, stack }))
    }

    /// Takes the stack's lock in its backend, recorded first in the store under this
    /// instance's lease, so that a lock this process cannot remove (it is killed mid-commit, or
    /// the storage fails) is found and removed by recovery, never left unknown.
    pub(crate) async fn lock_backend(
        &self,
        stack_id: &str,
        conn: &Connected,
    ) -> Result<BackendLockHeld, ServiceError> {
        let path = conn.backend.new_lock_path(&conn.stack).await?;
        self.store
            .stacks()
            .add_backend_lock(
                &path,
                stack_id,
                conn.backend.url(),
                self.jobs.instance(),
                &self.jobs.lease_until(),
            )
            .await?;
        match conn.backend.lock(&path, &rfc3339_seconds(self.store.clock())).await {
            Ok(lock) => Ok(BackendLockHeld { lock, path }),
            Err(e) => {
                // Refused (another holder) or failed: Ferry's own file must not stay.
                match conn.backend.remove_lock_file(&path).await {
                    Ok(_) => self.store.stacks().release_backend_lock(&path, None).await?,
                    Err(_) => self.store.stacks().expire_backend_lock(&path).await?,
                }
                Err(e.into())
            }
        }
    }

    /// Releases a lock [`Self::lock_backend`] took; when the storage refuses, the record's lease
    /// is ended so that recovery removes the file.
    pub(crate) async fn unlock_backend(&self, conn: &Connected, held: BackendLockHeld) {
        let recorded = if conn.backend.unlock(held.lock).await {
            self.store.stacks().release_backend_lock(&held.path, None).await
        } else {
            tracing::error!(stack = %conn.stack.name, backend = %conn.backend.url(), lock = %held.path, "could not remove Ferry's lock file; recovery will");
            self.store.stacks().expire_backend_lock(&held.path).await
        };
        if let Err(e) = recorded {
            tracing::error!(lock = %held.path, error = %e, "could not record the lock's release; recovery will check it");
        }
    }

    /// Finds the backend locks Ferry took and could not remove (their lease ran out; with
    /// `all`, every one not released: a single-instance store starting up), removes their files
    /// and records what it found. Returns the locks it recovered, with what it did.
    pub(crate) async fn recover_backend_locks(
        &self,
        all: bool,
    ) -> Result<Vec<ferry_store::backend_locks::BackendLock>, ServiceError> {
        let mut recovered = Vec::new();
        for mut lock in self
            .store
            .stacks()
            .take_over_backend_locks(self.jobs.instance(), &self.jobs.lease_until(), all)
            .await?
        {
            let removed = match self.store.stacks().stack(&lock.stack_id).await {
                Ok(stack) => match self.open_backend(org_of_name(&stack.name), &lock.backend_url) {
                    Ok(backend) => {
                        backend.remove_lock_file(&lock.path).await.map_err(ServiceError::from)
                    }
                    Err(e) => Err(e),
                },
                Err(e) => Err(e.into()),
            };
            let recovery = match removed {
                Ok(true) => format!(
                    "The Ferry process that took this lock at {} stopped before releasing it (killed mid-commit, or its storage failed); a later Ferry process removed the lock file",
                    lock.taken_at
                ),
                Ok(false) => format!("The Ferry process that took this lock at {} stopped before recording its release; the lock file was already gone", lock.taken_at),
                Err(e) => {
                    // Tried again at the next upkeep, once this take-over's lease runs out.
                    tracing::warn!(lock = %lock.path, backend = %ferry_store::redact_url(&lock.backend_url), error = %e, "could not remove a lock Ferry left in a backend");
                    continue;
                }
            };
            tracing::warn!(lock = %lock.path, stack = %lock.stack_id, "{recovery}");
            self.store.stacks().release_backend_lock(&lock.path, Some(&recovery)).await?;
            lock.recovery = Some(recovery);
            recovered.push(lock);
        }
        Ok(recovered)
    }

    /// The locks Ferry took in a connected stack's backend, newest first: held, released, and
    /// recovered after their holder stopped.
    pub async fn backend_locks(
        &self,
        stack_id: &str,
    ) -> Result<Vec<ferry_store::backend_locks::BackendLock>, ServiceError> {
        self.store.stacks().stack(stack_id).await?;
        Ok(self.store.stacks().backend_locks(stack_id, 100).await?)
    }

    /// The deployment of a live checkpoint, read as an upload reads it.
    async fn live_deployment(bytes: Vec<u8>) -> Result<Value, ServiceError> {
        let loaded = tokio::task::spawn_blocking(move || {
            load_state(
                &bytes,
                LoadOptions { unchecked_passphrase_secrets: true, ..Default::default() },
            )
        })
        .await
        .map_err(|e| ServiceError::Internal(e.to_string()))??;
        deployment_value(&loaded.deployment)
    }

    /// Reads a connected stack's checkpoint now; if it moved since Ferry's latest version of
    /// it, the live one becomes the next version. Stacks without a backend are left alone.
    pub(crate) async fn refresh_from_backend(&self, stack_id: &str) -> Result<(), ServiceError> {
        let Some(conn) = self.connected(stack_id).await? else { return Ok(()) };
        let bytes = conn.backend.read(&conn.stack).await?;
        let latest = self.stacks.version(stack_id, None).await?;
        if deployment_value(&latest.deployment)? == Self::live_deployment(bytes.clone()).await? {
            return Ok(());
        }
        let outcome =
            self.stacks.upload(Some(&latest.summary.name), bytes, None, "backend").await?;
        tracing::info!(stack = %outcome.summary.name, version = outcome.summary.version, "the backend's checkpoint moved: read it as the next version");
        Ok(())
    }

    /// The live checkpoint's bytes, if it still holds the `base` deployment; otherwise the
    /// commit is refused (someone updated the stack since the preview).
    pub(crate) async fn backend_unchanged(
        &self,
        conn: &Connected,
        base: &ferry_state::Deployment,
    ) -> Result<Vec<u8>, ServiceError> {
        let live = conn.backend.read(&conn.stack).await?;
        if deployment_value(base)? != Self::live_deployment(live.clone()).await? {
            return Err(ServiceError::BackendChanged { stack: conn.stack.name.clone() });
        }
        Ok(live)
    }

    /// Writes the committed deployment as the stack's next checkpoint (with backup and history).
    pub(crate) async fn write_backend(
        &self,
        conn: &Connected,
        live: &[u8],
        committed: &ferry_state::Deployment,
    ) -> Result<(), ServiceError> {
        conn.backend
            .write(
                &conn.stack,
                live,
                &deployment_value(committed)?,
                self.store.clock().time().into(),
            )
            .await?;
        Ok(())
    }
}

/// Now on `clock`, as Pulumi writes times into deployments and lock files: RFC 3339 in seconds.
pub(crate) fn rfc3339_seconds(clock: &ferry_store::Clock) -> String {
    humantime::format_rfc3339_seconds(clock.time().into()).to_string()
}

#[cfg(test)]
mod tests {
    use super::AllowedBackend;

    #[test]
    fn an_entry_allows_its_organisation_a_root_and_org_names_each_its_own_prefix() {
        let shared = AllowedBackend::parse(
            "*=s3://team-state/{org}?endpoint=http://127.0.0.1:9000&region=us-east-1",
        )
        .unwrap();
        let acme = shared.root_for("acme").unwrap();
        let inside = ferry_backend::Location::parse(
            "s3://team-state/acme/prod?region=us-east-1&endpoint=http://127.0.0.1:9000",
        )
        .unwrap();
        let beta = ferry_backend::Location::parse(
            "s3://team-state/beta?region=us-east-1&endpoint=http://127.0.0.1:9000",
        )
        .unwrap();
        assert!(inside.is_within(&acme));
        assert!(!beta.is_within(&acme), "each organisation its own prefix");
        let one = AllowedBackend::parse("acme=s3://team-state").unwrap();
        assert!(one.root_for("beta").is_none(), "an entry for one organisation allows no other");
        assert!(AllowedBackend::parse("s3://team-state").is_err(), "an entry names who may use it");
    }
}
