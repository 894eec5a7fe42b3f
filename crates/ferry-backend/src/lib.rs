//! Pulumi DIY backends, live: a folder (`file:///…`) or S3-compatible object storage
//! (`s3://bucket?endpoint=…&region=…`), read and written as the Pulumi CLI's DIY backend reads
//! and writes them — both layouts (project-scoped `.pulumi/meta.yaml` version 1, and the legacy
//! unscoped one), gzipped checkpoints, the stack's lock files, the `.bak` backup and the update
//! history — through the `object_store` crate, one code path for both kinds of storage; and
//! (`terraform`) Terraform's and OpenTofu's states where their S3 or local backends keep them.

use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::TryStreamExt as _;
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use serde::Serialize;
use serde_json::{json, Value};

mod location;
pub mod terraform;
pub mod testing;
pub use location::{is_plain_relative, Location};

/// What went wrong, naming the backend path it concerns.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("`{url}` is not a backend URL Ferry can open: {reason} (use file:///<folder> or s3://<bucket>?endpoint=…&region=…)")]
    Url { url: String, reason: String },
    #[error("the backend has no stack `{0}`")]
    NoStack(String),
    #[error("`{path}` in the backend is not a readable checkpoint: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("the stack is locked by {holder} (lock file `{path}`); Ferry did not write")]
    Locked { path: String, holder: String },
    #[error("the backend's storage failed at `{path}`: {source}")]
    Storage {
        path: String,
        #[source]
        source: object_store::Error,
    },
}

type Result<T> = std::result::Result<T, BackendError>;

/// How the backend lays out its stacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `.pulumi/meta.yaml` says version 1: `.pulumi/stacks/<project>/<stack>.json`.
    ProjectScoped,
    /// Older backends: `.pulumi/stacks/<stack>.json`.
    Legacy,
}

pub use ferry_types::BackendStack;

/// The one organisation of every DIY backend, as Pulumi names it in stack names and lock paths.
pub const DIY_ORGANIZATION: &str = "organization";

/// A lock another process holds (Pulumi's lock file content).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LockContent {
    #[serde(default)]
    pub pid: i64,
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub hostname: String,
    #[serde(default)]
    pub timestamp: String,
}

impl std::fmt::Display for LockContent {
    /// Who holds the lock, as a refusal names them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{} (pid {}) since {}", self.username, self.hostname, self.pid, self.timestamp)
    }
}

/// Who holds a lock, from a lock file's bytes (another `pulumi` wrote it): `None` when they do
/// not read as one.
pub fn lock_holder(bytes: &[u8]) -> Option<LockContent> {
    serde_json::from_slice::<LockContent>(bytes).ok()
}

/// The layout `.pulumi/meta.yaml`'s bytes say: project-scoped for `version: 1`, else legacy.
pub fn layout_of_meta(bytes: &[u8]) -> Layout {
    let text = String::from_utf8_lossy(bytes);
    let version =
        text.lines().find_map(|l| l.trim().strip_prefix("version:")).map(|v| v.trim().to_string());
    if version.as_deref() == Some("1") {
        Layout::ProjectScoped
    } else {
        Layout::Legacy
    }
}

/// A lock Ferry took; released with [`Backend::unlock`].
#[derive(Debug)]
pub struct Lock {
    path: Path,
}

pub struct Backend {
    url: String,
    store: Box<dyn ObjectStore>,
    root: Path,
    /// The folder of a backend on disk, where a write killed part-way leaves its staging file.
    folder: Option<std::path::PathBuf>,
    /// The largest checkpoint read, once gunzipped: a small gzip must not become a large file.
    max_bytes: u64,
}

/// A folder's own error, reached without the storage library, as the library's would read.
fn local(path: &Path, e: std::io::Error) -> BackendError {
    storage(path)(object_store::Error::Generic { store: "LocalFileSystem", source: Box::new(e) })
}

fn storage(path: &Path) -> impl FnOnce(object_store::Error) -> BackendError + '_ {
    move |source| BackendError::Storage { path: path.to_string(), source }
}

impl Backend {
    /// Opens the backend at `location` (a folder, or a bucket and prefix with its options),
    /// reading checkpoints of at most `max_bytes` (gunzipped). S3 credentials come from the
    /// environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
    /// `AWS_REGION`), as Pulumi reads them.
    pub fn open(location: &Location, max_bytes: u64) -> Result<Backend> {
        let url = location.url();
        let bad = |reason: String| BackendError::Url { url: url.clone(), reason };
        let folder = match location {
            Location::Local(folder) => Some(folder.clone()),
            Location::Bucket { .. } => None,
        };
        let (store, root): (Box<dyn ObjectStore>, Path) = match location {
            Location::Local(folder) => {
                if !folder.is_dir() {
                    return Err(bad(format!("{} is not a folder", folder.display())));
                }
                (
                    Box::new(
                        object_store::local::LocalFileSystem::new_with_prefix(folder)
                            .map_err(|e| bad(e.to_string()))?,
                    ),
                    Path::default(),
                )
            }
            Location::Bucket { bucket, prefix, options } => {
                let mut builder =
                    object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
                for (key, value) in options {
                    builder = match key.as_str() {
                        "endpoint" => {
                            let endpoint = if value.contains("://") {
                                value.to_string()
                            } else {
                                format!("https://{value}")
                            };
                            builder
                                .with_allow_http(endpoint.starts_with("http://"))
                                .with_endpoint(endpoint)
                        }
                        "region" => builder.with_region(value.as_str()),
                        "s3ForcePathStyle" => {
                            builder.with_virtual_hosted_style_request(value != "true")
                        }
                        _ => builder, // awssdk, profile, disableSSL: the location admitted them
                    };
                }
                let store = builder.build().map_err(|e| bad(e.to_string()))?;
                let root =
                    prefix.iter().fold(Path::default(), |path, part| path.child(part.as_str()));
                (Box::new(store), root)
            }
        };
        Ok(Backend { url, store, root, folder, max_bytes })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    fn at(&self, rel: &str) -> Path {
        let mut path = self.root.clone();
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            path = path.child(part);
        }
        path
    }

    async fn get(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        let path = self.at(rel);
        match self.store.get(&path).await {
            Ok(r) => Ok(Some(r.bytes().await.map_err(storage(&path))?.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(storage(&path)(e)),
        }
    }

    /// Whether there is a file at `rel`, asked without reading it.
    async fn exists(&self, rel: &str) -> Result<bool> {
        let path = self.at(rel);
        match self.store.head(&path).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(storage(&path)(e)),
        }
    }

    async fn put(&self, rel: &str, bytes: Vec<u8>) -> Result<()> {
        let path = self.at(rel);
        self.store.put(&path, PutPayload::from(bytes)).await.map_err(storage(&path))?;
        Ok(())
    }

    /// Every file under `rel` (relative to the root).
    async fn list(&self, rel: &str) -> Result<Vec<String>> {
        let prefix = self.at(rel);
        let found: Vec<object_store::ObjectMeta> =
            self.store.list(Some(&prefix)).try_collect().await.map_err(storage(&prefix))?;
        let root = self.root.to_string();
        Ok(found
            .into_iter()
            .map(|m| {
                let full = m.location.to_string();
                full.strip_prefix(&root).unwrap_or(&full).trim_start_matches('/').to_string()
            })
            .collect())
    }

    /// The layout: project-scoped when `.pulumi/meta.yaml` says version 1 (or the backend is
    /// empty, as Pulumi starts new backends), legacy when stacks sit directly in `stacks/`.
    pub async fn layout(&self) -> Result<Layout> {
        if let Some(meta) = self.get(".pulumi/meta.yaml").await? {
            return Ok(layout_of_meta(&meta));
        }
        let files = self.list(".pulumi/stacks").await?;
        let legacy =
            files.iter().any(|f| f.trim_start_matches(".pulumi/stacks/").split('/').count() == 1);
        Ok(if legacy { Layout::Legacy } else { Layout::ProjectScoped })
    }

    /// The stacks the backend holds, by name.
    pub async fn stacks(&self) -> Result<Vec<BackendStack>> {
        let layout = self.layout().await?;
        let mut stacks = Vec::new();
        for file in self.list(".pulumi/stacks").await? {
            let rel = file.trim_start_matches(".pulumi/stacks/");
            let (base, gzipped) = match rel.strip_suffix(".json.gz") {
                Some(b) => (b, true),
                None => match rel.strip_suffix(".json") {
                    Some(b) => (b, false),
                    None => continue, // backups (`.bak`) and anything else
                },
            };
            let parts: Vec<&str> = base.split('/').collect();
            let (project, stack) = match (layout, parts.as_slice()) {
                (Layout::ProjectScoped, [project, stack]) => {
                    (project.to_string(), stack.to_string())
                }
                (Layout::Legacy, [stack]) => {
                    // The project is in the checkpoint's stack name or its URNs.
                    let project = self
                        .legacy_project(&file, gzipped)
                        .await
                        .unwrap_or_else(|| "legacy".into());
                    (project, stack.to_string())
                }
                _ => continue,
            };
            stacks.push(BackendStack {
                name: format!("{DIY_ORGANIZATION}/{project}/{stack}"),
                project,
                stack,
                path: file.clone(),
                gzipped,
            });
        }
        stacks.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(stacks)
    }

    async fn legacy_project(&self, file: &str, gzipped: bool) -> Option<String> {
        let bytes = decode(&self.get(file).await.ok()??, gzipped, self.max_bytes).ok()?;
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        let urn = v.pointer("/checkpoint/latest/resources/0/urn")?.as_str()?;
        urn.split("::").nth(1).map(str::to_string)
    }

    /// The stack called `name` (`organization/<project>/<stack>`, `<project>/<stack>`, or just
    /// `<stack>` when only one project has it). A DIY backend has one organisation, which
    /// Pulumi calls `organization`: a name in any other matches nothing, so another
    /// organisation's name never reaches this backend's stacks.
    pub async fn stack(&self, name: &str) -> Result<BackendStack> {
        let parts: Vec<&str> = name.split('/').collect();
        let matches: Vec<BackendStack> = self
            .stacks()
            .await?
            .into_iter()
            .filter(|s| match parts.as_slice() {
                [org, project, stack] => {
                    *org == DIY_ORGANIZATION && s.project == *project && s.stack == *stack
                }
                [project, stack] => s.project == *project && s.stack == *stack,
                [stack] => s.stack == *stack,
                _ => false,
            })
            .collect();
        match matches.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(BackendError::NoStack(name.to_string())),
        }
    }

    /// The checkpoint file's bytes (gunzipped), read now.
    pub async fn read(&self, stack: &BackendStack) -> Result<Vec<u8>> {
        let bytes = self
            .get(&stack.path)
            .await?
            .ok_or_else(|| BackendError::NoStack(stack.name.clone()))?;
        decode(&bytes, stack.gzipped, self.max_bytes)
            .map_err(|reason| BackendError::Unreadable { path: stack.path.clone(), reason })
    }

    fn lock_dir(&self, stack: &BackendStack, layout: Layout) -> String {
        match layout {
            Layout::ProjectScoped => {
                format!(".pulumi/locks/{DIY_ORGANIZATION}/{}/{}", stack.project, stack.stack)
            }
            Layout::Legacy => format!(".pulumi/locks/{}", stack.stack),
        }
    }

    /// The path of a new lock file for the stack (relative to the backend's root), as Pulumi
    /// names them: `.pulumi/locks/<org>/<project>/<stack>/<uuid>.json`. Ferry records it before
    /// [`Backend::lock`] writes it, so a lock it could not remove is never unknown to it.
    pub async fn new_lock_path(&self, stack: &BackendStack) -> Result<String> {
        let dir = self.lock_dir(stack, self.layout().await?);
        Ok(format!("{dir}/{}.json", uuid::Uuid::new_v4()))
    }

    /// Takes the stack's lock as Pulumi does: writes this process's lock file at `own` (from
    /// [`Backend::new_lock_path`]), then looks for any other; if there is one, removes its own
    /// and refuses, naming the other's holder.
    pub async fn lock(&self, own: &str, now: &str) -> Result<Lock> {
        let dir = own.rsplit_once('/').map(|(dir, _)| dir.to_string()).unwrap_or_default();
        let content = LockContent {
            pid: std::process::id() as i64,
            username: username(),
            hostname: hostname(),
            timestamp: now.to_string(),
        };
        self.put(own, serde_json::to_vec_pretty(&content).expect("lock content serialises"))
            .await?;
        let lock = Lock { path: self.at(own) };
        let others: Vec<String> = self
            .list(&dir)
            .await?
            .into_iter()
            .filter(|f| f != own && f.ends_with(".json"))
            .collect();
        if let Some(other) = others.first() {
            let holder = match self.get(other).await?.as_deref().and_then(lock_holder) {
                Some(c) => c.to_string(),
                None => "an unreadable lock".to_string(),
            };
            self.unlock(lock).await;
            return Err(BackendError::Locked { path: other.clone(), holder });
        }
        Ok(lock)
    }

    /// Releases a lock Ferry took; false when the storage failed (the lock file stays, and
    /// Ferry's record of it lets recovery remove it later).
    pub async fn unlock(&self, lock: Lock) -> bool {
        self.store.delete(&lock.path).await.is_ok()
    }

    /// Removes the lock file `rel` a Ferry process took and could not remove; whether it was
    /// still there.
    pub async fn remove_lock_file(&self, rel: &str) -> Result<bool> {
        self.remove_staging_files(rel)?;
        let path = self.at(rel);
        match self.store.head(&path).await {
            Ok(_) => {}
            Err(object_store::Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(storage(&path)(e)),
        }
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(true),
            Err(e) => Err(storage(&path)(e)),
        }
    }

    /// Removes what a write of `rel` killed part-way left in a folder: the storage library
    /// writes `<file>#<n>` and renames it into place, and Pulumi counts any file in a stack's
    /// lock folder as a lock. (A bucket's writes leave nothing part-way.) A lock folder holds a
    /// file or two, so it is read with std::fs on the caller's thread.
    fn remove_staging_files(&self, rel: &str) -> Result<()> {
        let Some(folder) = &self.folder else { return Ok(()) };
        let file = folder.join(rel);
        let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str()))
        else {
            return Ok(());
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(local(&self.at(rel), e)),
        };
        for entry in entries.flatten() {
            let entry_name = entry.file_name();
            let staging = entry_name
                .to_str()
                .and_then(|n| n.strip_prefix(name))
                .and_then(|n| n.strip_prefix('#'));
            if staging.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(local(&self.at(rel), e)),
                }
            }
        }
        Ok(())
    }

    /// Writes the stack's next checkpoint as Pulumi's DIY backend does: the old file copied to
    /// `<file>.bak`, the new one written (gzipped if the old one was), then the update's history
    /// (`.history.json` and `.checkpoint.json`). `deployment` is the new `latest`; `now` is the
    /// update's time, which names its history files and is recorded in them.
    pub async fn write(
        &self,
        stack: &BackendStack,
        old_checkpoint: &[u8],
        deployment: &Value,
        now: SystemTime,
    ) -> Result<()> {
        let layout = self.layout().await?;
        let old: Value = serde_json::from_slice(old_checkpoint).unwrap_or(Value::Null);
        let mut checkpoint = json!({"stack": stack.name, "latest": deployment});
        if let Some(config) = old.pointer("/checkpoint/config").filter(|c| !c.is_null()) {
            checkpoint["config"] = config.clone();
        }
        let file = json!({"version": 3, "checkpoint": checkpoint});
        let text = serde_json::to_vec_pretty(&file).expect("checkpoints serialise");

        let stored = self.get(&stack.path).await?;
        if let Some(bytes) = stored {
            self.put(&format!("{}.bak", stack.path), bytes).await?;
        }
        self.put(&stack.path, if stack.gzipped { encode(&text) } else { text.clone() }).await?;

        let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        let nanos = since_epoch.as_nanos();
        let dir = match layout {
            Layout::ProjectScoped => format!(".pulumi/history/{}/{}", stack.project, stack.stack),
            Layout::Legacy => format!(".pulumi/history/{}", stack.stack),
        };
        let base = format!("{dir}/{}-{nanos}", stack.stack);
        let info = json!({
            "kind": "import",
            "startTime": since_epoch.as_secs(),
            "message": "Ferry import commit",
            "environment": {"exec.kind": "ferry"},
            "config": {},
            "result": "succeeded",
            "endTime": since_epoch.as_secs(),
            "resourceChanges": {},
            "version": 0,
            "time": humantime::format_rfc3339_seconds(now).to_string(),
        });
        self.put(
            &format!("{base}.history.json"),
            serde_json::to_vec_pretty(&info).expect("history serialises"),
        )
        .await?;
        self.put(
            &format!("{base}.checkpoint.json"),
            serde_json::to_vec_pretty(&file).expect("checkpoints serialise"),
        )
        .await?;
        Ok(())
    }
}

/// Reads one file at `location` (`file:///…/Pulumi.dev.yaml`, `s3://bucket/path/Pulumi.dev.yaml?endpoint=…`),
/// of at most `max_bytes`: a stack's configuration file kept beside its state.
pub async fn read_file(location: &Location, max_bytes: u64) -> Result<Vec<u8>> {
    let url = location.url();
    let (folder, name) = location.split_file().ok_or_else(|| BackendError::Url {
        url: url.clone(),
        reason: "the URL names no file".into(),
    })?;
    if let Some(path) = location.local_path().filter(|p| !p.is_file()) {
        return Err(BackendError::Unreadable {
            path: path.display().to_string(),
            reason: "it is not a file".into(),
        });
    }
    let backend = Backend::open(&folder, max_bytes)?;
    let bytes = backend.get(&name).await?.ok_or_else(|| BackendError::Unreadable {
        path: url.clone(),
        reason: "there is no such file".into(),
    })?;
    if bytes.len() as u64 > max_bytes {
        return Err(BackendError::Unreadable {
            path: url,
            reason: format!("it is over {max_bytes} bytes"),
        });
    }
    Ok(bytes)
}

fn username() -> String {
    std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_else(|_| "ferry".into())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// A checkpoint file's bytes as JSON text: gunzipped when the backend keeps it gzipped
/// (`<stack>.json.gz`).
pub fn decode_checkpoint(
    bytes: &[u8],
    gzipped: bool,
    max_bytes: u64,
) -> std::result::Result<Vec<u8>, String> {
    decode(bytes, gzipped, max_bytes)
}

/// A checkpoint's bytes, gunzipped where they are, refused past `max_bytes` (read no further:
/// a gzip bomb stops at the limit).
fn decode(bytes: &[u8], gzipped: bool, max_bytes: u64) -> std::result::Result<Vec<u8>, String> {
    let too_large = || format!("it is over {max_bytes} bytes (the largest state Ferry accepts)");
    if !gzipped {
        return if bytes.len() as u64 > max_bytes { Err(too_large()) } else { Ok(bytes.to_vec()) };
    }
    let mut out = Vec::new();
    let mut reader = std::io::Read::take(flate2::read::GzDecoder::new(bytes), max_bytes + 1);
    std::io::Read::read_to_end(&mut reader, &mut out).map_err(|e| format!("not gzip: {e}"))?;
    if out.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(out)
}

fn encode(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}
