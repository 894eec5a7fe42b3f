//! Terraform and OpenTofu states as a DIY backend location holds them (an S3 backend's
//! objects, a local backend's files), read only, where a server administrator allows the
//! organisation, exactly as DIY backends are allowed (`--allow-backend <org>=<url>`): the
//! default workspace's state, each workspace's, and the list of workspaces for a picker.

use ferry_backend::terraform::{
    state_exists, workspace_state, workspaces_root, workspaces_under, DEFAULT_WORKSPACE,
    DEFAULT_WORKSPACE_KEY_PREFIX,
};
use ferry_types::terraform::{RemoteState, Workspace};

use crate::{Backends, ServiceError};

impl Backends {
    /// The workspaces with a state of the Terraform backend whose default workspace's state is
    /// at `remote.url`, for `org`, which the URL must be allowed to: `default` first when its
    /// state is there, then the others, where they lie inside what `org` may read.
    pub async fn terraform_workspaces(
        &self,
        org: &str,
        remote: &RemoteState,
    ) -> Result<Vec<Workspace>, ServiceError> {
        let state = self.allowed_location(org, &remote.url)?;
        let max = self.max_state_bytes as u64;
        let prefix = remote.workspace_key_prefix.as_deref().unwrap_or(DEFAULT_WORKSPACE_KEY_PREFIX);
        let mut found = Vec::new();
        if state_exists(&state, max).await? {
            found.push(Workspace { name: DEFAULT_WORKSPACE.into(), url: state.url() });
        }
        // The other workspaces' folder or prefix: not there, or not the organisation's to
        // read, lists none of them.
        let root = workspaces_root(&state, prefix)
            .ok()
            .filter(|root| self.allowed_location(org, &root.url()).is_ok());
        if let Some(root) = root {
            for name in workspaces_under(&state, &root, max).await? {
                let at = workspace_state(&state, &name, prefix)?;
                found.push(Workspace { name, url: at.url() });
            }
        }
        Ok(found)
    }

    /// The state of `remote`'s workspace, read from where `org` may read (the workspace's own
    /// location is checked as the URL is): its canonical URL, and its bytes (at most the
    /// largest state Ferry accepts).
    pub(crate) async fn terraform_state(
        &self,
        org: &str,
        remote: &RemoteState,
    ) -> Result<(String, Vec<u8>), ServiceError> {
        let state = self.allowed_location(org, &remote.url)?;
        let workspace =
            remote.workspace.as_deref().filter(|w| !w.is_empty()).unwrap_or(DEFAULT_WORKSPACE);
        let prefix = remote.workspace_key_prefix.as_deref().unwrap_or(DEFAULT_WORKSPACE_KEY_PREFIX);
        let refused = || ServiceError::BackendNotAllowed {
            url: remote.url.clone(),
            org: Some(org.to_string()),
        };
        // A workspace that resolves nowhere is refused as a location outside the roots is:
        // saying why would tell which paths of the server's machine exist.
        let at = workspace_state(&state, workspace, prefix).map_err(|e| match e {
            ferry_backend::BackendError::Url { reason, .. }
                if !reason.contains("cannot be opened") =>
            {
                ServiceError::Invalid(format!("the workspace: {reason}"))
            }
            _ => refused(),
        })?;
        let at = self.allowed_location(org, &at.url())?;
        let bytes = ferry_backend::read_file(&at, self.max_state_bytes as u64).await?;
        Ok((at.url(), bytes))
    }
}
