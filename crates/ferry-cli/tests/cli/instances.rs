//! Two `ferry serve` processes on one PostgreSQL database (a schema of this test's own on the
//! machine's server), as a team runs them behind a load balancer: a preview started on A is
//! followed on B; B commits it; A killed with SIGKILL in the middle of a preview shows on B as
//! interrupted within the lease; one preview committed on A and B at once is committed exactly
//! once, the other request refused (409).

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The lease the instances run with: a killed instance's previews are interrupted this long
/// after its last renewal.
const LEASE_SECONDS: u64 = 2;

struct Instance {
    child: Child,
    base: String,
}

impl Instance {
    /// `ferry serve` with its data in `dir/<data>` (and in PostgreSQL at `url`, if given).
    fn start(name: &str, dir: &Path, data: &str, url: Option<&str>, plugins: &Path) -> Instance {
        Instance::start_with_key(name, dir, data, url, plugins, &"42".repeat(32), &[])
    }

    /// [`Instance::start`] with the payload key `key` and more variables `env`.
    fn start_with_key(
        name: &str,
        dir: &Path,
        data: &str,
        url: Option<&str>,
        plugins: &Path,
        key: &str,
        env: &[(&str, &str)],
    ) -> Instance {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = dir.join(data);
        let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_ferry"))
            .args([
                "serve",
                "--addr",
                &format!("127.0.0.1:{port}"),
                "--no-demo",
                "--data-dir",
                data.to_str().unwrap(),
            ])
            .args(url.map(|url| ["--database-url", url]).into_iter().flatten())
            .args([
                "--plugin-dir",
                plugins.to_str().unwrap(),
                "--job-lease-seconds",
                &LEASE_SECONDS.to_string(),
            ])
            // Instances sharing a database share the key that seals preview payloads.
            .env("FERRY_PAYLOAD_KEY", key)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .current_dir(crate::root())
            .stdout(Stdio::null())
            .stderr(log)
            // Its own process group, with the plugins it starts: killed together, as when the
            // machine it runs on dies, and none left behind by the test.
            .process_group(0)
            .spawn()
            .unwrap();
        Instance { child, base: format!("http://127.0.0.1:{port}") }
    }

    /// SIGKILL to the instance and its plugins: no chance to end its jobs.
    fn kill(&mut self) {
        let group = format!("-{}", self.child.id());
        let killed = Command::new("kill").args(["-KILL", "--", &group]).status().unwrap();
        assert!(killed.success(), "kill -KILL -- {group}");
        self.child.wait().unwrap();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .status();
            let _ = self.child.wait();
        }
    }
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    token: String,
}

impl Client {
    async fn call(
        &self,
        method: reqwest::Method,
        at: &Instance,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request =
            self.http.request(method, format!("{}{path}", at.base)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{path}: {e}"));
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(json!(text)))
    }

    async fn get(&self, at: &Instance, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, at, path, None).await
    }

    async fn post(&self, at: &Instance, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::POST, at, path, Some(body)).await
    }

    async fn wait_ready(&self, at: &mut Instance, dir: &Path, name: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = self.http.get(format!("{}/healthz", at.base)).send().await {
                if r.status().is_success() {
                    return;
                }
            }
            if let Some(status) = at.child.try_wait().unwrap() {
                panic!(
                    "instance {name} exited ({status}):\n{}",
                    std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "instance {name} did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Reads the job's server-sent events from `at` to their end: the resource events and the
    /// job they end with.
    async fn follow(&self, at: &Instance, plan: &str, job: &str) -> (usize, Value) {
        self.follow_events(at, &format!("/api/v1/plans/{plan}/jobs/{job}/events"), "resource").await
    }

    /// Reads server-sent events from `at`'s `path` to their end: how many `event` messages came,
    /// and the `end` message's JSON.
    async fn follow_events(&self, at: &Instance, path: &str, event: &str) -> (usize, Value) {
        let (text, end) = self.follow_text(&at.base, path).await;
        (text.matches(&format!("event: {event}\n")).count(), end)
    }

    /// Reads server-sent events from `base`'s `path` to their end: the stream's text, and the
    /// `end` message's JSON.
    async fn follow_text(&self, base: &str, path: &str) -> (String, Value) {
        let mut response =
            self.http.get(format!("{base}{path}")).bearer_auth(&self.token).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let mut text = String::new();
        while let Some(chunk) = tokio::time::timeout(Duration::from_secs(60), response.chunk())
            .await
            .expect("events keep coming")
            .unwrap()
        {
            text.push_str(&String::from_utf8_lossy(&chunk));
            if let Some(end) = text.find("event: end\ndata: ") {
                if let Some(line) =
                    text[end + 17..].split('\n').next().filter(|_| text[end + 17..].contains('\n'))
                {
                    let end = serde_json::from_str(line).unwrap();
                    return (text, end);
                }
            }
        }
        panic!("the stream ended without `end`: {text}");
    }
}

fn spec(ids: &[&str]) -> String {
    let resources: Vec<Value> = ids.iter().map(|id| json!({"type": "test:index:Thing", "name": format!("thing_{}", id.replace('-', "_")), "id": id})).collect();
    json!({ "resources": resources }).to_string()
}

/// A plugin folder with Ferry's scripted test plugin as `pulumi-resource-test`, and an
/// administrator's client of the store in `dir/a` (or PostgreSQL at `url`).
fn set_up(dir: &Path, url: Option<&str>) -> (std::path::PathBuf, Client) {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let provider = crate::plugin_dir().join("ferry-test-provider");
    std::fs::write(
        plugins.join("pulumi-resource-test"),
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", provider.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        plugins.join("pulumi-resource-test"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let token = Command::new(env!("CARGO_BIN_EXE_ferry"))
        .args([
            "token",
            "create",
            "--data-dir",
            dir.join("a").to_str().unwrap(),
            "--user",
            "admin",
            "--role",
            "admin",
        ])
        .args(url.map(|url| ["--database-url", url]).into_iter().flatten())
        .output()
        .unwrap();
    assert!(token.status.success(), "{}", String::from_utf8_lossy(&token.stderr));
    (
        plugins,
        Client {
            http: reqwest::Client::new(),
            token: String::from_utf8(token.stdout).unwrap().trim().to_string(),
        },
    )
}

/// The organisation allows the test plugin; a new empty stack's ID.
async fn stack(client: &Client, at: &Instance) -> String {
    let settings =
        json!({"share_links": true, "share_link_days": 30, "allowed_packages": ["test"]});
    assert_eq!(
        client.call(reqwest::Method::PUT, at, "/api/v1/orgs/%2A/settings", Some(settings)).await.0,
        200
    );
    let (status, stack) = client
        .post(
            at,
            "/api/v1/stacks?name=acme/app/prod",
            json!({"version": 3, "deployment": {"resources": []}}),
        )
        .await;
    assert_eq!(status, 201, "{stack}");
    stack["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_instances_on_one_database_share_jobs_and_commit_once() {
    let dir = tempfile::tempdir().unwrap();
    let url = ferry_store::testing::scratch_postgres_url(&ferry_store::testing::postgres_url())
        .await
        .unwrap();
    let (plugins, client) = set_up(dir.path(), Some(&url));
    let mut a = Instance::start("a", dir.path(), "a", Some(&url), &plugins);
    let mut b = Instance::start("b", dir.path(), "b", Some(&url), &plugins);
    client.wait_ready(&mut a, dir.path(), "a").await;
    client.wait_ready(&mut b, dir.path(), "b").await;

    // Set up on B, seen on A.
    let stack = stack(&client, &b).await;

    // 1. Plan and preview on A; follow the events on B.
    let (status, plan) = client
        .post(
            &a,
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": spec(&["one", "slow-800-two", "three"])}),
        )
        .await;
    assert_eq!(status, 201, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (status, job) = client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
    assert_eq!(status, 202, "{job}");
    let (events, ended) = client.follow(&b, &plan, job["id"].as_str().unwrap()).await;
    assert_eq!((events, ended["status"].clone()), (3, json!("done")), "{ended}");
    let preview = ended["preview_id"].as_str().unwrap().to_string();

    // 2. Commit on B.
    let (status, committed) =
        client.post(&b, &format!("/api/v1/previews/{preview}/commit"), json!({})).await;
    assert_eq!(status, 201, "{committed}");
    let (_, versions) = client.get(&a, &format!("/api/v1/stacks/{stack}/versions")).await;
    assert_eq!(versions.as_array().unwrap().len(), 2, "A sees B's commit: {versions}");

    // A discovery started on A is followed on B too: both kinds of job live in the database.
    let (status, discovery) = client
        .post(
            &a,
            &format!("/api/v1/stacks/{stack}/discoveries"),
            json!({"types": [{"type": "test:index:Thing", "pageSize": 10}]}),
        )
        .await;
    assert_eq!(status, 202, "{discovery}");
    let path = format!("/api/v1/discoveries/{}/events", discovery["id"].as_str().unwrap());
    let (events, ended) = client.follow_events(&b, &path, "discovery").await;
    assert_eq!(
        (ended["status"].clone(), ended["found"].clone()),
        (json!("done"), json!(25)),
        "{ended}"
    );
    assert_eq!(events, 25 + 3, "25 results and 3 pages");

    // 3. A dies (SIGKILL) in the middle of a preview: B reports it interrupted within the lease.
    let (_, revised) = client
        .post(
            &a,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": spec(&["four", "slow-60000-five"])}),
        )
        .await;
    assert_eq!(revised["current"]["revision"], 2, "{revised}");
    let (status, job) = client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
    assert_eq!(status, 202, "{job}");
    let job = job["id"].as_str().unwrap().to_string();
    let started = Instant::now();
    loop {
        let (_, seen) = client.get(&b, &format!("/api/v1/plans/{plan}/jobs/{job}")).await;
        if seen["finished"] == 1 {
            assert_eq!(seen["status"], "running", "{seen}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the fast resource never finished: {seen}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.kill();
    let killed = Instant::now();
    let (events, ended) = client.follow(&b, &plan, &job).await;
    let waited = killed.elapsed();
    assert_eq!((events, ended["status"].clone()), (1, json!("interrupted")), "{ended}");
    assert!(ended["error"].as_str().unwrap().contains("stopped before it finished"), "{ended}");
    // Within one lease plus one renewal period: the lease the killed instance last renewed runs
    // out at most a lease after the kill, and a survivor's upkeep, every renewal period (a third
    // of the lease), marks it within one period after that. Half a second more for this test's
    // own measuring (the kill's aftermath and the event stream, on a busy machine).
    let bound = Duration::from_secs(LEASE_SECONDS)
        + Duration::from_secs(LEASE_SECONDS) / 3
        + Duration::from_millis(500);
    assert!(
        waited < bound,
        "interrupted after {waited:?}, beyond one lease and one renewal period ({bound:?})"
    );

    // 4. One preview committed on A (restarted) and B at once: exactly one wins.
    let mut a = Instance::start("a2", dir.path(), "a", Some(&url), &plugins);
    client.wait_ready(&mut a, dir.path(), "a2").await;
    let (_, revised) = client
        .post(&a, &format!("/api/v1/plans/{plan}/revisions"), json!({"spec": spec(&["six"])}))
        .await;
    assert_eq!(revised["current"]["revision"], 3, "{revised}");
    let (_, job) = client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
    let (_, ended) = client.follow(&a, &plan, job["id"].as_str().unwrap()).await;
    let preview = ended["preview_id"].as_str().unwrap().to_string();
    let path = format!("/api/v1/previews/{preview}/commit");
    let (on_a, on_b) =
        tokio::join!(client.post(&a, &path, json!({})), client.post(&b, &path, json!({})));
    let mut statuses = [on_a.0, on_b.0];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "A: {}\nB: {}", on_a.1, on_b.1);
    let (_, versions) = client.get(&b, &format!("/api/v1/stacks/{stack}/versions")).await;
    assert_eq!(versions.as_array().unwrap().len(), 3, "one commit, not two: {versions}");
}

/// An instance whose payload key is not the one the other instances of its database seal
/// previews with refuses to start, naming the setting: a preview made on one instance and
/// committed on it would otherwise fail.
#[tokio::test(flavor = "multi_thread")]
async fn an_instance_with_another_payload_key_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let url = ferry_store::testing::scratch_postgres_url(&ferry_store::testing::postgres_url())
        .await
        .unwrap();
    let (plugins, client) = set_up(dir.path(), Some(&url));
    let mut a = Instance::start("a", dir.path(), "a", Some(&url), &plugins);
    client.wait_ready(&mut a, dir.path(), "a").await;
    let mut other = Instance::start_with_key(
        "other",
        dir.path(),
        "other",
        Some(&url),
        &plugins,
        &"43".repeat(32),
        &[],
    );
    let status = tokio::task::spawn_blocking(move || other.child.wait().unwrap()).await.unwrap();
    assert!(!status.success());
    let log = std::fs::read_to_string(dir.path().join("other.log")).unwrap();
    assert!(log.contains("FERRY_PAYLOAD_KEY") && log.contains("not the key"), "{log}");
    // The same key starts.
    let mut b = Instance::start("b", dir.path(), "b", Some(&url), &plugins);
    client.wait_ready(&mut b, dir.path(), "b").await;
}

/// One instance on its SQLite file, killed (SIGKILL) in the middle of a preview and started
/// again: the finished job is still there, done; the running one is interrupted, at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_restart_keeps_finished_jobs_and_interrupts_running_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, client) = set_up(dir.path(), None);
    let mut a = Instance::start("a", dir.path(), "a", None, &plugins);
    client.wait_ready(&mut a, dir.path(), "a").await;
    let stack = stack(&client, &a).await;
    let (_, plan) = client
        .post(&a, &format!("/api/v1/stacks/{stack}/plans"), json!({"spec": spec(&["one"])}))
        .await;
    let plan = plan["id"].as_str().unwrap().to_string();
    let (_, done) = client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
    let done = done["id"].as_str().unwrap().to_string();
    assert_eq!(client.follow(&a, &plan, &done).await.1["status"], "done");
    client
        .post(
            &a,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": spec(&["slow-60000-two"])}),
        )
        .await;
    let (_, running) = client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
    let running = running["id"].as_str().unwrap().to_string();
    a.kill();

    let mut again = Instance::start("a-again", dir.path(), "a", None, &plugins);
    client.wait_ready(&mut again, dir.path(), "a-again").await;
    let (_, finished) = client.get(&again, &format!("/api/v1/plans/{plan}/jobs/{done}")).await;
    assert_eq!(
        (finished["status"].clone(), finished["events"].as_array().map(Vec::len)),
        (json!("done"), Some(1)),
        "{finished}"
    );
    let (_, stopped) = client.get(&again, &format!("/api/v1/plans/{plan}/jobs/{running}")).await;
    assert_eq!(stopped["status"], "interrupted", "{stopped}");
    let (_, jobs) = client.get(&again, &format!("/api/v1/plans/{plan}/jobs")).await;
    assert_eq!(jobs.as_array().unwrap().len(), 2, "{jobs}");
}

/// An instance told to run one preview at a time: a second plan's preview waits queued behind a
/// slow one; its follower hears nothing until it starts, then `status` (running) before its
/// first resource; it starts when the first is cancelled, and ends done.
#[tokio::test(flavor = "multi_thread")]
async fn previews_past_the_concurrent_runs_wait_queued_and_start_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, client) = set_up(dir.path(), None);
    let key = "42".repeat(32);
    let env = [("FERRY_CONCURRENT_RUNS", "1")];
    let mut a = Instance::start_with_key("a", dir.path(), "a", None, &plugins, &key, &env);
    client.wait_ready(&mut a, dir.path(), "a").await;
    let stack = stack(&client, &a).await;
    let mut jobs = Vec::new();
    for (ids, status) in [(["slow-60000-one"], "running"), (["two"], "queued")] {
        let (_, plan) = client
            .post(&a, &format!("/api/v1/stacks/{stack}/plans"), json!({"spec": spec(&ids)}))
            .await;
        let plan = plan["id"].as_str().unwrap().to_string();
        let (code, job) =
            client.post(&a, &format!("/api/v1/plans/{plan}/previews"), json!({})).await;
        assert_eq!((code, job["status"].as_str()), (202, Some(status)), "{job}");
        jobs.push((plan, job["id"].as_str().unwrap().to_string()));
    }
    let [(slow_plan, slow_job), (plan, job)] = <[_; 2]>::try_from(jobs).unwrap();

    let follower = {
        let (client, base) = (client.clone(), a.base.clone());
        let path = format!("/api/v1/plans/{plan}/jobs/{job}/events");
        tokio::spawn(async move { client.follow_text(&base, &path).await })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, waiting) = client.get(&a, &format!("/api/v1/plans/{plan}/jobs/{job}")).await;
    assert_eq!(waiting["status"], "queued", "it waits while the slow one runs: {waiting}");
    assert!(!follower.is_finished(), "its follower heard its end while it waited");

    let (code, cancelled) = client
        .post(&a, &format!("/api/v1/plans/{slow_plan}/jobs/{slow_job}/cancel"), json!({}))
        .await;
    assert_eq!((code, cancelled["status"].as_str()), (200, Some("cancelled")), "{cancelled}");
    let (text, end) = follower.await.unwrap();
    assert_eq!(end["status"], "done", "{end}");
    let started = text.find("event: status\ndata: \"running\"\n").expect("its start was heard");
    let first = text.find("event: resource\n").expect("its resource was heard");
    assert!(started < first, "its start came after its first resource:\n{text}");
}
