//! Terraform and OpenTofu states where their backends keep them, read only, laid out as
//! Terraform lays them out: an S3 backend keeps the default workspace's state at its `key` and
//! every other workspace's at `<workspace_key_prefix>/<workspace>/<key>` (the prefix `env:`
//! unless configured otherwise); a local backend keeps `terraform.tfstate` and, beside it,
//! `terraform.tfstate.d/<workspace>/terraform.tfstate`. Read through the same storage as
//! Pulumi's DIY backends; every location is a canonical [`Location`], so the caller checks what
//! will be opened.

use crate::{Backend, BackendError, Location, Result};

/// The workspace Terraform starts in, whose state is at the backend's `key`.
pub const DEFAULT_WORKSPACE: &str = "default";

/// Where an S3 backend keeps the other workspaces unless its configuration says otherwise.
pub const DEFAULT_WORKSPACE_KEY_PREFIX: &str = "env:";

/// The folder beside a local backend's state that holds the other workspaces.
const LOCAL_WORKSPACES: &str = "terraform.tfstate.d";

fn refused(state: &Location, reason: String) -> BackendError {
    BackendError::Url { url: state.url(), reason }
}

/// A workspace's name, or a part of a prefix: a plain name, never a path.
fn check_plain(state: &Location, what: &str, name: &str) -> Result<()> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.chars().any(char::is_control)
    {
        return Err(refused(state, format!("{what} `{name}` is not a plain name")));
    }
    Ok(())
}

/// The parts of a workspace key prefix (`env:`, or `states/env`).
fn prefix_parts<'a>(state: &Location, prefix: &'a str) -> Result<Vec<&'a str>> {
    let parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return Err(refused(state, "the workspace key prefix is empty".into()));
    }
    for part in &parts {
        check_plain(state, "the workspace key prefix's part", part)?;
    }
    Ok(parts)
}

/// Where `workspace`'s state is, for the backend whose default workspace's state is `state`.
pub fn workspace_state(
    state: &Location,
    workspace: &str,
    workspace_key_prefix: &str,
) -> Result<Location> {
    if workspace == DEFAULT_WORKSPACE {
        return Ok(state.clone());
    }
    check_plain(state, "the workspace", workspace)?;
    let url = match state {
        Location::Bucket { bucket, prefix: key, options } => {
            if key.is_empty() {
                return Err(refused(
                    state,
                    "an S3 backend's state URL names its key (s3://<bucket>/<key>)".into(),
                ));
            }
            let mut prefix: Vec<String> = prefix_parts(state, workspace_key_prefix)?
                .into_iter()
                .map(str::to_string)
                .collect();
            prefix.push(workspace.to_string());
            prefix.extend(key.iter().cloned());
            Location::Bucket { bucket: bucket.clone(), prefix, options: options.clone() }.url()
        }
        Location::Local(_) => {
            let (folder, name) =
                state.split_file().ok_or_else(|| refused(state, "the URL names no file".into()))?;
            let folder = folder
                .local_path()
                .expect("a local location's folder is local")
                .join(LOCAL_WORKSPACES)
                .join(workspace)
                .join(name);
            url::Url::from_file_path(&folder)
                .map(String::from)
                .map_err(|_| refused(state, "the workspace's path is not absolute".into()))?
        }
    };
    // Made again from its URL: the one way to a location, so each part is checked as any is.
    Location::parse(&url)
}

/// Where the other workspaces' states lie, to list them: the S3 prefix, or the local folder
/// beside the state (an error when it does not exist: there are none).
pub fn workspaces_root(state: &Location, workspace_key_prefix: &str) -> Result<Location> {
    match state {
        Location::Bucket { bucket, options, .. } => {
            let prefix = prefix_parts(state, workspace_key_prefix)?
                .into_iter()
                .map(str::to_string)
                .collect();
            Location::parse(
                &Location::Bucket { bucket: bucket.clone(), prefix, options: options.clone() }
                    .url(),
            )
        }
        Location::Local(_) => {
            let (folder, _) =
                state.split_file().ok_or_else(|| refused(state, "the URL names no file".into()))?;
            let path = folder
                .local_path()
                .expect("a local location's folder is local")
                .join(LOCAL_WORKSPACES);
            Location::parse(
                &url::Url::from_file_path(&path)
                    .map(String::from)
                    .map_err(|_| refused(state, "not an absolute path".into()))?,
            )
        }
    }
}

/// The names of the workspaces whose state for `state`'s key lies under `root` (what
/// [`workspaces_root`] gave), sorted.
pub async fn workspaces_under(
    state: &Location,
    root: &Location,
    max_bytes: u64,
) -> Result<Vec<String>> {
    let key = match state {
        Location::Bucket { prefix, .. } => prefix.join("/"),
        Location::Local(_) => state.split_file().map(|(_, name)| name).unwrap_or_default(),
    };
    let files = Backend::open(root, max_bytes)?.list("").await?;
    let mut names: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_suffix(key.as_str())?.strip_suffix('/').map(str::to_string))
        .filter(|w| !w.is_empty() && !w.contains('/') && w != DEFAULT_WORKSPACE)
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// Whether there is a state at `state` (asked of the storage without reading the state).
pub async fn state_exists(state: &Location, max_bytes: u64) -> Result<bool> {
    let (folder, name) =
        state.split_file().ok_or_else(|| refused(state, "the URL names no file".into()))?;
    Backend::open(&folder, max_bytes)?.exists(&name).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspaces_lie_where_terraform_puts_them() {
        let state = Location::parse("s3://tf-state/apps/web/terraform.tfstate?endpoint=http://127.0.0.1:9000&region=eu-west-1").unwrap();
        assert_eq!(workspace_state(&state, "default", "env:").unwrap(), state);
        assert_eq!(
            workspace_state(&state, "staging", "env:").unwrap().url(),
            "s3://tf-state/env:/staging/apps/web/terraform.tfstate?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1"
        );
        assert_eq!(
            workspace_state(&state, "prod", "states/ws").unwrap().url().split('?').next(),
            Some("s3://tf-state/states/ws/prod/apps/web/terraform.tfstate")
        );
        assert_eq!(
            workspaces_root(&state, "env:").unwrap().url().split('?').next(),
            Some("s3://tf-state/env:")
        );
        for (workspace, prefix) in
            [("../x", "env:"), ("a/b", "env:"), ("..", "env:"), ("ok", "../up"), ("ok", "")]
        {
            assert!(
                workspace_state(&state, workspace, prefix).is_err(),
                "{workspace} under {prefix}"
            );
        }
        let keyless = Location::parse("s3://tf-state").unwrap();
        assert!(workspace_state(&keyless, "staging", "env:")
            .unwrap_err()
            .to_string()
            .contains("names its key"));
    }

    #[test]
    fn a_local_backends_workspaces_are_beside_its_state() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("terraform.tfstate"), "{}").unwrap();
        std::fs::create_dir_all(dir.path().join("terraform.tfstate.d/staging")).unwrap();
        std::fs::write(dir.path().join("terraform.tfstate.d/staging/terraform.tfstate"), "{}")
            .unwrap();
        let state = Location::parse(
            url::Url::from_file_path(dir.path().join("terraform.tfstate")).unwrap().as_str(),
        )
        .unwrap();
        let staging = workspace_state(&state, "staging", DEFAULT_WORKSPACE_KEY_PREFIX).unwrap();
        assert!(
            staging.url().ends_with("/terraform.tfstate.d/staging/terraform.tfstate"),
            "{}",
            staging.url()
        );
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let root = workspaces_root(&state, DEFAULT_WORKSPACE_KEY_PREFIX).unwrap();
        assert_eq!(rt.block_on(workspaces_under(&state, &root, 1 << 20)).unwrap(), ["staging"]);
        assert!(rt.block_on(state_exists(&state, 1 << 20)).unwrap());
        assert!(
            workspace_state(&state, "missing", DEFAULT_WORKSPACE_KEY_PREFIX).is_err(),
            "a workspace that is not there does not resolve"
        );
    }
}
