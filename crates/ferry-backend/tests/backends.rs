//! The DIY backend against a folder laid out from real Pulumi checkpoints (written by the Pulumi
//! CLI 3.205's DIY backend), and against a real S3-compatible server (moto's, from PyPI,
//! installed by `./scripts/test.sh` into `target/s3-venv` and started here).

use std::path::{Path, PathBuf};

use ferry_backend::{Backend, BackendError, Layout, Location};
use serde_json::Value;

fn fixture(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    });
    std::fs::read(dir.join("pulumi/state/real-diy-checkpoint").join(name)).unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, bytes).unwrap();
    e.finish().unwrap()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A project-scoped backend folder: one plain and one gzipped checkpoint.
fn project_scoped() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".pulumi/meta.yaml", b"version: 1\n");
    write(
        dir.path(),
        ".pulumi/stacks/s3bucket-test/dev.json",
        &fixture("dev-empty.checkpoint.json"),
    );
    write(
        dir.path(),
        ".pulumi/stacks/s3bucket-test/test.json.gz",
        &gzip(&fixture("test-upsert.checkpoint.json")),
    );
    dir
}

fn url_of(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// Lists, reads, locks and writes `backend` (already holding the two fixture stacks).
async fn exercise(backend: &Backend, files: Option<&Path>) {
    assert_eq!(backend.layout().await.unwrap(), Layout::ProjectScoped);
    let stacks = backend.stacks().await.unwrap();
    let names: Vec<&str> = stacks.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["organization/s3bucket-test/dev", "organization/s3bucket-test/test"]);
    let test = backend.stack("s3bucket-test/test").await.unwrap();
    assert!(test.gzipped);
    let old = backend.read(&test).await.unwrap();
    assert_eq!(
        old,
        fixture("test-upsert.checkpoint.json"),
        "a gzipped checkpoint reads as its JSON"
    );
    assert!(matches!(backend.stack("nope").await, Err(BackendError::NoStack(_))));
    // The organisation is part of what a full name matches: the backend's only one is Pulumi's
    // `organization`, so another organisation's name finds nothing here.
    assert_eq!(backend.stack("organization/s3bucket-test/test").await.unwrap(), test);
    assert!(matches!(
        backend.stack("orgb/s3bucket-test/test").await,
        Err(BackendError::NoStack(_))
    ));

    // Ferry's lock blocks a second taker; once released, the stack can be locked again.
    let first = backend.new_lock_path(&test).await.unwrap();
    assert!(
        first.starts_with(".pulumi/locks/organization/s3bucket-test/test/")
            && first.ends_with(".json"),
        "{first}"
    );
    let lock = backend.lock(&first, "2026-11-24T10:00:00Z").await.unwrap();
    let refused = backend
        .lock(&backend.new_lock_path(&test).await.unwrap(), "2026-11-24T10:00:01Z")
        .await
        .unwrap_err();
    assert!(matches!(refused, BackendError::Locked { .. }), "{refused}");
    assert!(backend.unlock(lock).await);
    assert!(!backend.remove_lock_file(&first).await.unwrap(), "a released lock's file is gone");
    // A lock whose holder died: recovery removes its file, once.
    let left = backend.new_lock_path(&test).await.unwrap();
    drop(backend.lock(&left, "2026-11-24T10:00:02Z").await.unwrap());
    assert!(backend.remove_lock_file(&left).await.unwrap());
    assert!(!backend.remove_lock_file(&left).await.unwrap());
    let again = backend
        .lock(&backend.new_lock_path(&test).await.unwrap(), "2026-11-24T10:00:02Z")
        .await
        .unwrap();
    assert!(backend.unlock(again).await);

    // The next checkpoint: the old one kept as `.bak`, gzip kept, the update in the history.
    let mut deployment: Value =
        serde_json::from_slice::<Value>(&old).unwrap()["checkpoint"]["latest"].clone();
    deployment["manifest"]["version"] = Value::from("ferry test");
    // 2026-11-24T10:00:03Z, the update's time, names its history files and is written in them.
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_514_403);
    backend.write(&test, &old, &deployment, at).await.unwrap();
    let next: Value = serde_json::from_slice(&backend.read(&test).await.unwrap()).unwrap();
    assert_eq!(next["version"], 3);
    assert_eq!(next["checkpoint"]["stack"], "organization/s3bucket-test/test");
    assert_eq!(next["checkpoint"]["latest"]["manifest"]["version"], "ferry test");
    assert_eq!(
        next["checkpoint"]["latest"]["resources"],
        serde_json::from_slice::<Value>(&old).unwrap()["checkpoint"]["latest"]["resources"]
    );
    if let Some(root) = files {
        let bak =
            std::fs::read(root.join(".pulumi/stacks/s3bucket-test/test.json.gz.bak")).unwrap();
        assert_eq!(
            bak,
            gzip(&fixture("test-upsert.checkpoint.json")),
            "the old file, byte for byte"
        );
        let history: Vec<String> =
            std::fs::read_dir(root.join(".pulumi/history/s3bucket-test/test"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
        assert_eq!(history.len(), 2, "{history:?}");
        let entry = "test-1795514403000000000.history.json";
        assert!(history.iter().any(|h| h == entry), "{history:?}");
        let info: Value = serde_json::from_slice(
            &std::fs::read(root.join(".pulumi/history/s3bucket-test/test").join(entry)).unwrap(),
        )
        .unwrap();
        assert_eq!(
            (&info["time"], &info["startTime"], &info["endTime"]),
            (
                &Value::from("2026-11-24T10:00:03Z"),
                &Value::from(1_795_514_403),
                &Value::from(1_795_514_403)
            )
        );
        assert!(history.iter().any(|h| h.ends_with(".checkpoint.json")), "{history:?}");
        assert!(
            std::fs::read_dir(root.join(".pulumi/locks/organization/s3bucket-test/test"))
                .unwrap()
                .next()
                .is_none(),
            "no lock left behind"
        );
    }
}

#[tokio::test]
async fn a_folder_backend_reads_locks_and_writes_as_pulumi_does() {
    let dir = project_scoped();
    let backend = open(&url_of(dir.path()));
    exercise(&backend, Some(dir.path())).await;
}

#[tokio::test]
async fn a_lock_another_pulumi_holds_blocks_and_is_named() {
    let dir = project_scoped();
    write(
        dir.path(),
        ".pulumi/locks/organization/s3bucket-test/dev/6f0e9d2c-1111-4a5b-9c3d-000000000001.json",
        br#"{"pid": 4242, "username": "alice", "hostname": "build-7", "timestamp": "2026-11-24T09:59:00Z"}"#,
    );
    let backend = open(&url_of(dir.path()));
    let dev = backend.stack("organization/s3bucket-test/dev").await.unwrap();
    let err = backend
        .lock(&backend.new_lock_path(&dev).await.unwrap(), "2026-11-24T10:00:00Z")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("alice@build-7 (pid 4242) since 2026-11-24T09:59:00Z"), "{err}");
    let left: Vec<_> =
        std::fs::read_dir(dir.path().join(".pulumi/locks/organization/s3bucket-test/dev"))
            .unwrap()
            .collect();
    assert_eq!(left.len(), 1, "Ferry removed its own lock and left the other's");
}

#[tokio::test]
async fn removing_a_lock_also_removes_what_a_killed_write_of_it_left() {
    // A kill while the lock file was written leaves the storage library's staging file
    // (`<file>#<n>`), which Pulumi would count as a lock: recovery removes it with the lock.
    let dir = project_scoped();
    let backend = open(&url_of(dir.path()));
    let dev = backend.stack("organization/s3bucket-test/dev").await.unwrap();
    let own = backend.new_lock_path(&dev).await.unwrap();
    write(dir.path(), &format!("{own}#1"), b"{\"pid\": 1");
    let other = ".pulumi/locks/organization/s3bucket-test/dev/someone-else.json#x";
    write(dir.path(), other, b"{}");
    assert!(!backend.remove_lock_file(&own).await.unwrap(), "the lock itself was never written");
    let left: Vec<_> =
        std::fs::read_dir(dir.path().join(".pulumi/locks/organization/s3bucket-test/dev"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
    assert_eq!(left, ["someone-else.json#x"], "only the staging file of this lock goes");
}

#[tokio::test]
async fn the_legacy_layout_is_read_with_projects_from_the_urns() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".pulumi/stacks/test.json", &fixture("test-upsert.checkpoint.json"));
    let backend = open(&url_of(dir.path()));
    assert_eq!(backend.layout().await.unwrap(), Layout::Legacy);
    let stacks = backend.stacks().await.unwrap();
    assert_eq!(
        stacks.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["organization/s3bucket-test/test"]
    );
}

/// The largest checkpoint these tests read.
const LIMIT: u64 = 64 << 20;

fn open(url: &str) -> Backend {
    Backend::open(&Location::parse(url).unwrap(), LIMIT).unwrap()
}

#[test]
fn a_location_is_compared_as_it_is_opened_not_as_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::os::unix::fs::symlink(dir.path().join("b"), dir.path().join("a/link")).unwrap();
    let root = Location::parse(&url_of(&dir.path().join("a"))).unwrap();
    let inside = Location::parse(&format!("{}/.", url_of(&dir.path().join("a")))).unwrap();
    assert!(inside.is_within(&root), "the folder itself, written with a dot segment");
    // Each way of writing the sibling folder `b` resolves to it, and it is not inside `a`.
    for escape in ["a/..%2Fb", "a/..%252Fb", "a/%2E%2E/b", "a/link", "a/../b"] {
        let url = format!("{}/{escape}", url_of(dir.path()));
        match Location::parse(&url) {
            Ok(location) => {
                assert!(!location.is_within(&root), "{url} resolved to {location:?}, inside a")
            }
            Err(e) => assert!(e.to_string().contains("cannot be opened"), "{url}: {e}"),
        }
    }
    // The control: a real sub-folder of `a` is inside it.
    std::fs::create_dir(dir.path().join("a/team")).unwrap();
    assert!(Location::parse(&format!("{}/team", url_of(&dir.path().join("a"))))
        .unwrap()
        .is_within(&root));

    let bucket = |url: &str| Location::parse(url);
    let root = bucket("s3://state/orga?region=eu").unwrap();
    assert!(bucket("s3://state/orga/team?region=eu").unwrap().is_within(&root));
    assert!(
        !bucket("s3://state/orgab?region=eu").unwrap().is_within(&root),
        "a prefix is matched by whole parts"
    );
    assert!(
        !bucket("s3://state/orga/x?region=eu&endpoint=elsewhere").unwrap().is_within(&root),
        "another endpoint"
    );
    for bad in [
        "s3://state/orga/..%2Forgb",
        "s3://state/orga/a%2Fb",
        "s3://state/orga?region=eu&region=us",
    ] {
        assert!(bucket(bad).is_err(), "{bad} was read as a location");
    }
    // A dot segment the URL itself resolves is resolved: the sibling, not inside.
    for sibling in ["s3://state/orga/%2E%2E/orgb?region=eu", "s3://state/orga/../orgb?region=eu"] {
        assert_eq!(
            bucket(sibling).unwrap(),
            bucket("s3://state/orgb?region=eu").unwrap(),
            "{sibling}"
        );
        assert!(!bucket(sibling).unwrap().is_within(&root), "{sibling}");
    }
}

#[test]
fn a_gzipped_checkpoint_is_read_no_further_than_the_limit() {
    let huge = vec![b' '; 4 << 20];
    let packed = gzip(&huge);
    let err = ferry_backend::decode_checkpoint(&packed, true, 1 << 20).unwrap_err();
    assert!(err.contains("over 1048576 bytes"), "{err}");
    assert_eq!(
        ferry_backend::decode_checkpoint(&packed, true, 4 << 20).unwrap().len(),
        4 << 20,
        "the control: at the limit, read whole"
    );
}

#[test]
fn bad_urls_are_refused_by_name() {
    for (url, needle) in [
        ("ftp://x", "the scheme `ftp`"),
        ("file:///no/such/folder", "cannot be opened"),
        ("s3://bucket?colour=red", "unknown option `colour`"),
        ("nope", "relative URL"),
    ] {
        let err = Location::parse(url)
            .and_then(|l| Backend::open(&l, LIMIT))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains(needle), "{url}: {err}");
    }
}

#[tokio::test]
async fn an_s3_backend_reads_locks_and_writes_as_pulumi_does() {
    let server = ferry_backend::testing::S3Server::start();
    let endpoint = server.endpoint();
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    // The bucket, and the two stacks in it, as the Pulumi CLI would have left them.
    let client = |path: &str, body: Vec<u8>| server.put(path, &body);
    client("/state-bucket", Vec::new());
    client("/state-bucket/.pulumi/meta.yaml", b"version: 1\n".to_vec());
    client(
        "/state-bucket/.pulumi/stacks/s3bucket-test/dev.json",
        fixture("dev-empty.checkpoint.json"),
    );
    client(
        "/state-bucket/.pulumi/stacks/s3bucket-test/test.json.gz",
        gzip(&fixture("test-upsert.checkpoint.json")),
    );
    let backend = open(&format!(
        "s3://state-bucket?endpoint={endpoint}&region=us-east-1&s3ForcePathStyle=true"
    ));
    exercise(&backend, None).await;
}
