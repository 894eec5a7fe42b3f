//! What the `ferry` subcommands share: opening Ferry's store (or a state file in memory) as a
//! service, the passphrase from Pulumi's own environment variable, durable atomic file writes,
//! and `--json` output.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_service::{CommitOutcome, EngineConfig, Ferry, PreviewRecord, DEFAULT_MAX_STATE_BYTES};
use ferry_store::Store;

pub type Error = Box<dyn std::error::Error>;

pub use ferry_engine::plugin::{PluginEnvGrants, PluginEnvPolicy};
pub use ferry_engine::priority::Background;

/// The stack passphrase, read as Pulumi reads it (`PULUMI_CONFIG_PASSPHRASE`); empty is none.
pub fn env_passphrase() -> Option<String> {
    std::env::var("PULUMI_CONFIG_PASSPHRASE").ok().filter(|p| !p.is_empty())
}

/// The folder of the `ferry` binary (where Ferry's own plugins are installed), then `extra`.
pub fn plugin_dirs(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(PathBuf::from))
        .into_iter()
        .collect();
    dirs.extend(extra.iter().cloned());
    dirs
}

/// Where Ferry keeps its data: every command that opens the store takes these.
#[derive(clap::Args, Clone, Debug)]
pub struct StoreArgs {
    /// Folder for Ferry's data: the embedded SQLite store (unless `--database-url`), the
    /// schema cache and the payload key.
    #[arg(long, env = "FERRY_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// Keep Ferry's data in PostgreSQL (`postgres://user:password@host/database`) instead of
    /// the SQLite file in the data folder: what several instances share.
    #[arg(long, env = "FERRY_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
}

impl StoreArgs {
    /// Where the store is, for messages (never a password).
    pub fn describe(&self) -> String {
        match &self.database_url {
            Some(url) => ferry_store::redact_url(url),
            None => self.data_dir.join("ferry.db").display().to_string(),
        }
    }
}

/// The service over the store (made if missing), with its plugins, schema cache and payload
/// key: what `ferry serve` runs on and what the commands open by stack name. `plugins` is what
/// plugins see of this process's environment; `priority` is where engine runs and plugins are
/// scheduled (below the server's requests in `ferry serve`; a command, which is all its user
/// waits for, keeps its own).
pub async fn open_service(
    at: &StoreArgs,
    extra_plugin_dirs: &[PathBuf],
    max_state_bytes: usize,
    plugins: PluginEnvPolicy,
    priority: Background,
) -> Result<Ferry, Error> {
    let data_dir = &at.data_dir;
    std::fs::create_dir_all(data_dir)
        .map_err(|e| format!("cannot create data dir {}: {e}", data_dir.display()))?;
    let store = match &at.database_url {
        Some(url) => Store::connect(url).await,
        None => Store::open(&data_dir.join("ferry.db")).await,
    }
    .map_err(|e| format!("cannot open store {}: {e}", at.describe()))?;
    let engine = EngineConfig::new(
        plugin_dirs(extra_plugin_dirs),
        Some(data_dir.join("schemas")),
        payload_key(data_dir)?,
    )
    .with_plugin_environment(plugins)
    .with_priority(priority);
    Ok(Ferry::new(store, max_state_bytes)
        .with_engine(engine)
        .with_allowed_backends(allowed_backends()?))
}

/// The DIY backends an administrator allows (`FERRY_ALLOW_BACKENDS`, comma-separated
/// `<org>=<url>`; `ferry serve --allow-backend` reads the same variable): every command opens
/// connected stacks' backends under the same rule.
pub fn allowed_backends() -> Result<Vec<ferry_service::AllowedBackend>, Error> {
    match std::env::var("FERRY_ALLOW_BACKENDS") {
        Ok(list) => Ok(ferry_service::AllowedBackend::parse_list(&list)?),
        Err(_) => Ok(Vec::new()),
    }
}

/// The key that encrypts the values stored with previews (so the store alone never reveals a
/// secret): `FERRY_PAYLOAD_KEY` (64 hex digits; instances sharing a database share it), else
/// the data folder's `payload.key`, made on first start, readable by the owner only.
fn payload_key(data_dir: &Path) -> Result<[u8; 32], Error> {
    if let Ok(hex) = std::env::var("FERRY_PAYLOAD_KEY") {
        return parse_hex_key(hex.trim())
            .ok_or_else(|| "FERRY_PAYLOAD_KEY must be 64 hexadecimal digits (32 bytes)".into());
    }
    let path = data_dir.join("payload.key");
    match std::fs::read(&path) {
        Ok(bytes) => {
            return bytes.try_into().map_err(|_| {
                format!("{} is damaged: it must hold 32 bytes", path.display()).into()
            })
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot read {}: {e}", path.display()).into())
        }
        Err(_) => {}
    }
    let key = ferry_state::secrets::random_key();
    write_atomically(&path, &key, Some(0o600))?;
    Ok(key)
}

fn parse_hex_key(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(key)
}

/// The service and the stack's ID: a stack by name in Ferry's store, or a state file held in
/// an in-memory store (the file itself is never written).
pub async fn open_stack(
    stack: &str,
    at: &StoreArgs,
    extra_plugin_dirs: &[PathBuf],
    passphrase: Option<String>,
) -> Result<(Arc<Ferry>, String), Error> {
    let data_dir = &at.data_dir;
    let state_file = PathBuf::from(stack);
    if state_file.is_file() {
        let store = Store::open_in_memory().await?;
        // The command line runs on the user's own machine: plugins see its environment, as
        // Pulumi's do.
        let engine = EngineConfig::new(
            plugin_dirs(extra_plugin_dirs),
            Some(data_dir.join("schemas")),
            ferry_state::secrets::random_key(),
        )
        .with_plugin_environment(PluginEnvPolicy::Inherited);
        let service = Arc::new(Ferry::new(store, DEFAULT_MAX_STATE_BYTES).with_engine(engine));
        let bytes = std::fs::read(&state_file)
            .map_err(|e| format!("cannot read {}: {e}", state_file.display()))?;
        let name = stack_name_of(&bytes);
        let id = service
            .stacks()
            .upload(Some(&name), bytes, passphrase, "upload")
            .await
            .map_err(|e| format!("{}: {e}", state_file.display()))?
            .summary
            .id;
        return Ok((service, id));
    }
    let service = Arc::new(
        open_service(
            at,
            extra_plugin_dirs,
            DEFAULT_MAX_STATE_BYTES,
            PluginEnvPolicy::Inherited,
            Background::default(),
        )
        .await?,
    );
    let name = ferry_store::StackName::parse(stack)?;
    let id =
        service.stacks().list().await?.into_iter().find(|s| s.name == name.as_str()).map(|s| s.id);
    let id = id.ok_or_else(|| {
        format!("no stack `{name}` in {}; upload it first or pass a state file", at.describe())
    })?;
    Ok((service, id))
}

/// A name for a stack read from a file: the checkpoint's own, or one made from its URNs.
fn stack_name_of(bytes: &[u8]) -> String {
    let Ok(state) = ferry_state::load_state(bytes, Default::default()) else {
        return "local/import/dev".into();
    };
    if let Some(name) = state.stack.as_deref().filter(|n| ferry_store::StackName::parse(n).is_ok())
    {
        return name.to_string();
    }
    state
        .deployment
        .resources()
        .iter()
        .find_map(|r| {
            ferry_state::Urn::parse(&r.urn).map(|u| format!("local/{}/{}", u.project, u.stack))
        })
        .filter(|n| ferry_store::StackName::parse(n).is_ok())
        .unwrap_or_else(|| "local/import/dev".into())
}

/// Writes `bytes` to `path` so that a reader, or the file after a crash, holds either the old
/// contents or all of the new: a uniquely named temporary file beside it (never a name a user's
/// file could have), flushed to disk, renamed over `path`, and the folder flushed too. `mode`
/// sets Unix permissions before the file gets its name.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), Error> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ferry-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| cannot(&e))?;
    tmp.write_all(bytes).map_err(|e| cannot(&e))?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        std::fs::set_permissions(tmp.path(), std::os::unix::fs::PermissionsExt::from_mode(mode))
            .map_err(|e| cannot(&e))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    tmp.as_file().sync_all().map_err(|e| cannot(&e))?;
    tmp.persist(path).map_err(|e| cannot(&e.error))?;
    // The rename is durable once the folder's entry is on disk (on Unix; elsewhere a folder
    // cannot be opened, and the rename alone is what the platform offers).
    #[cfg(unix)]
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| cannot(&e))?;
    Ok(())
}

/// `--json`: the stored preview as the API answers it, with the Terraform instances' rows under
/// `terraform` and the commit's outcome under `commit`.
pub fn print_json(
    record: &PreviewRecord,
    outcome: Option<&Result<CommitOutcome, ferry_service::ServiceError>>,
    terraform: Option<&[ferry_types::terraform::Row]>,
) -> Result<(), Error> {
    #[derive(serde::Serialize)]
    struct Printed<'a> {
        #[serde(flatten)]
        preview: ferry_types::api::PreviewView<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        terraform: Option<&'a [ferry_types::terraform::Row]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        commit: Option<&'a CommitOutcome>,
    }
    let printed = Printed {
        preview: record.view(),
        terraform,
        commit: outcome.and_then(|o| o.as_ref().ok()),
    };
    println!("{}", serde_json::to_string_pretty(&printed)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        // A user's own file named as the old temporary was (`state.tmp`) is never touched.
        std::fs::write(dir.path().join("state.tmp"), "mine").unwrap();
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new contents", Some(0o600)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents");
        assert_eq!(std::fs::read_to_string(dir.path().join("state.tmp")).unwrap(), "mine");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn an_atomic_write_into_a_missing_folder_names_the_file() {
        let err =
            write_atomically(Path::new("/nonexistent-ferry-dir/out.json"), b"x", None).unwrap_err();
        assert!(err.to_string().contains("/nonexistent-ferry-dir/out.json"), "{err}");
    }
}
