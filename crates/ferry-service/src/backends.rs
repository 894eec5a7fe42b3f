//! Stacks connected to a Pulumi DIY backend: connecting one (its checkpoint read as a version),
//! reading it live before each preview (a checkpoint that moved becomes the stack's next
//! version), and committing into it as the Pulumi CLI does (lock, re-read, write with backup and
//! history, unlock — also on failure).
//!
//! Which backends may be opened is the administrator's choice (`ferry serve --allow-backend`):
//! a URL names a folder of the server's machine or an endpoint it will call, so a request alone
//! never decides that.

use ferry_backend::{Backend, BackendStack};
use ferry_state::{load_state, LoadOptions};
use serde_json::Value;

use crate::{ServiceError, StackService, UploadOutcome};

/// A connected stack's backend, opened, and the stack there.
pub(crate) struct Connected {
    pub backend: Backend,
    pub stack: BackendStack,
}

/// Whether `url` falls under an allowed entry: same scheme and bucket or folder, a path at or
/// under the entry's, and (for object storage) the same options, endpoint included.
fn allowed_by(entry: &str, url: &str) -> bool {
    let (Ok(entry), Ok(url)) = (url::Url::parse(entry), url::Url::parse(url)) else { return false };
    let under = |a: &str, b: &str| {
        let (a, b) = (a.trim_end_matches('/'), b.trim_end_matches('/'));
        b == a || b.starts_with(&format!("{a}/"))
    };
    let mut eq: Vec<(String, String)> = entry.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    let mut uq: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    eq.sort();
    uq.sort();
    entry.scheme() == url.scheme() && entry.host_str() == url.host_str() && under(entry.path(), url.path()) && eq == uq
}

/// The deployment a checkpoint or export holds, as Ferry stores it: what two reads compare.
fn deployment_of(export_json: &str) -> Option<Value> {
    let mut v: Value = serde_json::from_str(export_json).ok()?;
    Some(v.get_mut("deployment")?.take())
}

impl StackService {
    /// Lets the service open DIY backends under these URLs (folders, buckets with their
    /// endpoint); none by default.
    pub fn with_allowed_backends(mut self, allowed: Vec<String>) -> StackService {
        self.allowed_backends = allowed;
        self
    }

    fn open_backend(&self, url: &str) -> Result<Backend, ServiceError> {
        if !self.allowed_backends.iter().any(|entry| allowed_by(entry, url)) {
            return Err(ServiceError::BackendNotAllowed(url.to_string()));
        }
        Ok(Backend::open(url)?)
    }

    /// The stacks a backend holds.
    pub async fn backend_stacks(&self, url: &str) -> Result<Vec<BackendStack>, ServiceError> {
        Ok(self.open_backend(url)?.stacks().await?)
    }

    /// Connects the backend's stack `name` (`organization/<project>/<stack>`): its checkpoint,
    /// read now, becomes a version of the Ferry stack of the same name, and every later preview
    /// and commit goes to the backend.
    pub async fn connect_stack(&self, url: &str, name: &str, passphrase: Option<String>) -> Result<UploadOutcome, ServiceError> {
        let backend = self.open_backend(url)?;
        let stack = backend.stack(name).await?;
        let bytes = backend.read(&stack).await?;
        let outcome = self.upload(Some(&stack.name), bytes, passphrase, "backend").await?;
        self.store.connect_backend(&outcome.summary.id, url, &stack.name).await?;
        tracing::info!(stack = %outcome.summary.name, backend = %url, "connected a stack to its DIY backend");
        Ok(outcome)
    }

    pub(crate) async fn connected(&self, stack_id: &str) -> Result<Option<Connected>, ServiceError> {
        let Some((url, name)) = self.store.backend_of(stack_id).await? else { return Ok(None) };
        let backend = self.open_backend(&url)?;
        let stack = backend.stack(&name).await?;
        Ok(Some(Connected { backend, stack }))
    }

    /// The deployment of a live checkpoint, read as an upload reads it.
    async fn live_deployment(bytes: Vec<u8>) -> Result<Value, ServiceError> {
        let export = tokio::task::spawn_blocking(move || {
            load_state(&bytes, LoadOptions { unchecked_passphrase_secrets: true, ..Default::default() }).map(|l| l.to_export().to_string())
        })
        .await
        .map_err(|e| ServiceError::Internal(e.to_string()))??;
        deployment_of(&export).ok_or_else(|| ServiceError::Internal("a checkpoint read back without a deployment".into()))
    }

    /// Reads a connected stack's checkpoint now; if it moved since Ferry's latest version of
    /// it, the live one becomes the next version. Stacks without a backend are left alone.
    pub(crate) async fn refresh_from_backend(&self, stack_id: &str) -> Result<(), ServiceError> {
        let Some(conn) = self.connected(stack_id).await? else { return Ok(()) };
        let bytes = conn.backend.read(&conn.stack).await?;
        let latest = self.version(stack_id, None).await?;
        if deployment_of(&latest.export_json) == Some(Self::live_deployment(bytes.clone()).await?) {
            return Ok(());
        }
        let outcome = self.upload(Some(&latest.summary.name), bytes, None, "backend").await?;
        tracing::info!(stack = %outcome.summary.name, version = outcome.summary.version, "the backend's checkpoint moved: read it as the next version");
        Ok(())
    }

    /// The live checkpoint's bytes, if it still holds the deployment `base_export` holds;
    /// otherwise the commit is refused (someone updated the stack since the preview).
    pub(crate) async fn backend_unchanged(&self, conn: &Connected, base_export: &str) -> Result<Vec<u8>, ServiceError> {
        let live = conn.backend.read(&conn.stack).await?;
        if deployment_of(base_export) != Some(Self::live_deployment(live.clone()).await?) {
            return Err(ServiceError::BackendChanged { stack: conn.stack.name.clone() });
        }
        Ok(live)
    }

    /// Writes the committed `export` as the stack's next checkpoint (with backup and history).
    pub(crate) async fn write_backend(&self, conn: &Connected, live: &[u8], export: &str) -> Result<(), ServiceError> {
        let deployment = deployment_of(export).ok_or_else(|| ServiceError::Internal("a commit without a deployment".into()))?;
        conn.backend.write(&conn.stack, live, &deployment, &crate::previews::now_rfc3339()).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::allowed_by;

    #[test]
    fn backends_are_allowed_by_folder_bucket_and_endpoint() {
        assert!(allowed_by("file:///srv/state", "file:///srv/state"));
        assert!(allowed_by("file:///srv/state", "file:///srv/state/team-a"));
        assert!(!allowed_by("file:///srv/state", "file:///srv/statement"));
        assert!(!allowed_by("file:///srv/state", "file:///etc"));
        let bucket = "s3://team-state?endpoint=http://127.0.0.1:9000&region=us-east-1";
        assert!(allowed_by(bucket, "s3://team-state?region=us-east-1&endpoint=http://127.0.0.1:9000"));
        assert!(!allowed_by(bucket, "s3://team-state?endpoint=http://169.254.169.254&region=us-east-1"), "another endpoint is another backend");
        assert!(!allowed_by(bucket, "s3://other-bucket?endpoint=http://127.0.0.1:9000&region=us-east-1"));
    }
}
