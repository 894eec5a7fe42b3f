//! The container image stays in step with the repository (no Docker engine runs in CI, so the
//! image is checked as text): it ships every provider plugin Ferry builds, beside `ferry`; its
//! wasm-bindgen CLI is the version the front end needs; its last stage runs as a non-root user;
//! and the compose file's instances share one database and one payload key.

use crate::root;

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_image_ships_every_plugin_ferry_builds_and_runs_as_non_root() {
    let dockerfile = read("Dockerfile");
    let build = read("scripts/build.sh");
    let lib = read("scripts/lib.sh");
    let plugins: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("pulumi-resource-"))
        .collect();
    assert!(!plugins.is_empty());
    // The scripts name Ferry's plugins once, in lib.sh's FERRY_PLUGINS; both of build.sh's
    // builds take their cargo arguments from `plugin_packages`, asked here for what it gives.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("source scripts/lib.sh && plugin_packages")
        .current_dir(root())
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "plugin_packages: {}", String::from_utf8_lossy(&out.stderr));
    let args = String::from_utf8(out.stdout).unwrap();
    let release = lib
        .split("build_release_server() {")
        .nth(1)
        .expect("scripts/lib.sh defines build_release_server")
        .split("\n}\n")
        .next()
        .unwrap();
    assert!(
        release.contains("< <(plugin_packages)") && release.contains("--profile plugin-release"),
        "the release build's plugins: {release}"
    );
    let debug = build.split("else").last().unwrap();
    assert!(
        debug.contains("< <(plugin_packages)") && debug.contains("\"${PLUGIN_ARGS[@]}\""),
        "the debug build's plugins: {debug}"
    );
    for plugin in &plugins {
        assert!(
            args.lines().any(|a| a == format!("--package={plugin}"))
                && args.lines().any(|a| a == format!("--bin={plugin}")),
            "the builds build {plugin}: {args}"
        );
        assert!(
            dockerfile.contains(&format!("target/server-release/{plugin}")),
            "the image ships {plugin}"
        );
    }

    let pinned = |text: &str, key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(|v| v.split_whitespace().next().unwrap().to_string())
    };
    assert_eq!(
        pinned(&dockerfile, "ARG WASM_BINDGEN_VERSION="),
        pinned(&read("scripts/lib.sh"), "WASM_BINDGEN_VERSION="),
        "one wasm-bindgen version"
    );

    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    let user = last_stage
        .lines()
        .filter_map(|l| l.strip_prefix("USER "))
        .next_back()
        .expect("the last stage names its user");
    assert!(!["root", "0"].contains(&user.trim()), "runs as {user}");
    assert!(
        last_stage.contains("COPY --from=build /out/site/ /opt/ferry/target/site/"),
        "the front end where the server looks for it"
    );
}

#[test]
fn the_compose_files_instances_share_a_database_and_a_payload_key() {
    let compose = read("deploy/compose.yaml");
    let instances = compose
        .lines()
        .filter(|l| l.starts_with("  ferry-") && l.trim_end().ends_with(':'))
        .count();
    assert!(instances >= 2, "several instances");
    assert_eq!(
        compose.matches("<<: *ferry").count(),
        instances,
        "every instance takes the shared settings"
    );
    for setting in [
        "FERRY_DATABASE_URL: postgres://",
        "FERRY_PAYLOAD_KEY:",
        "FERRY_ALLOW_BACKENDS: \"*=s3://",
        "FERRY_PUBLIC_URL: https://",
    ] {
        assert!(compose.contains(setting), "{setting}");
    }
    let caddy = read("deploy/Caddyfile");
    assert!(caddy.contains("flush_interval -1"), "server-sent events are not buffered");
    for i in 0..instances {
        let name = format!("ferry-{}", (b'a' + i as u8) as char);
        assert!(caddy.contains(&format!("{name}:3000")), "the proxy reaches {name}");
    }
}

/// The compose file's environment for its instances (the shared `x-ferry` block), with
/// `${VAR:?…}` taken from `vars`, and the image's `ENV`: what an instance's process sees.
fn instance_environment(vars: &std::collections::HashMap<&str, String>) -> Vec<(String, String)> {
    let compose = read("deploy/compose.yaml");
    let block = compose.split("\nx-ferry:").nth(1).expect("compose.yaml has the x-ferry block");
    let environment = block.split("\n  environment:\n").nth(1).expect("x-ferry has an environment");
    let mut env: Vec<(String, String)> = Vec::new();
    for line in environment.lines() {
        if !line.starts_with("    ") {
            break;
        }
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let (key, value) =
            line.split_once(": ").unwrap_or_else(|| panic!("a `KEY: value` line: {line}"));
        let value = value.trim().trim_matches('"').to_string();
        let value = match value.strip_prefix("${").and_then(|v| v.split_once(":?")) {
            Some((var, _)) => {
                vars.get(var).unwrap_or_else(|| panic!("the compose file asks for {var}")).clone()
            }
            None => value,
        };
        env.push((key.to_string(), value));
    }
    let dockerfile = read("Dockerfile");
    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    let env_block = last_stage.split("\nENV ").nth(1).expect("the image sets its environment");
    for part in env_block.split("\\\n").map(str::trim) {
        let Some((key, value)) = part.split_once('=') else { continue };
        if key != "PATH" {
            env.push((
                key.to_string(),
                value.split_whitespace().next().unwrap_or_default().to_string(),
            ));
        }
        if !part.ends_with('\\') && part.contains('\n') {
            break;
        }
    }
    env
}

/// The deployment guide's first-run commands for the team's deployment, in order.
fn readme_first_run() -> Vec<String> {
    let guide = read("docs/deployment.md");
    let section = guide
        .split("## A container image, and a team's deployment")
        .nth(1)
        .expect("the deployment guide's compose section");
    let block =
        section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("its commands");
    block
        .lines()
        .map(|l| l.split("   #").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The deployment guide's first run of the team's deployment, performed with the same binary and the
/// same environment outside containers (no Docker engine runs here): the compose file's
/// environment and the image's `ENV`, an empty database of the machine's PostgreSQL in place of
/// the `postgres` service, each `docker compose … run --rm ferry-a <command>` run as
/// `ferry <command>`, and `up -d` as two `ferry serve` on `0.0.0.0`. The administrator the first
/// command makes can use the token it printed, and signs in through the link the last prints.
#[tokio::test(flavor = "multi_thread")]
async fn the_documented_first_run_starts_on_an_empty_database() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let database =
        ferry_store::testing::scratch_postgres_url(&ferry_store::testing::postgres_url())
            .await
            .unwrap();
    let mut vars = std::collections::HashMap::new();
    let commands = readme_first_run();
    assert!(
        commands.iter().any(|c| c.starts_with("export FERRY_PAYLOAD_KEY=$(openssl rand -hex 32)")),
        "{commands:?}"
    );
    vars.insert("FERRY_PAYLOAD_KEY", "7f".repeat(32));
    let mut env = instance_environment(&vars);
    for (key, value) in env.iter_mut() {
        if key == "FERRY_DATABASE_URL" {
            assert!(value.starts_with("postgres://ferry:ferry@postgres:5432/ferry"), "{value}");
            // The compose file's `postgres` service: here, an empty database of this machine's.
            *value = database.clone();
        }
    }
    let setting = |key: &str| {
        env.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{key} is set"))
    };
    assert_eq!(setting("FERRY_ADDR"), "0.0.0.0:3000", "the image listens on every address");
    assert_eq!(setting("FERRY_DATA_DIR"), "/var/lib/ferry");
    let public_url = setting("FERRY_PUBLIC_URL");
    let ferry = |args: &[&str], data: &str, addr: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ferry"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap())
            .env("RUST_LOG", "warn");
        for (k, v) in &env {
            command.env(k, v);
        }
        // The volume each container has, and the port each listens on.
        command.env("FERRY_DATA_DIR", dir.path().join(data)).current_dir(root());
        if let Some(addr) = addr {
            command.env("FERRY_ADDR", addr);
        }
        command
    };
    let free_port =
        || std::net::TcpListener::bind("0.0.0.0:0").unwrap().local_addr().unwrap().port();

    // Started before anyone could sign in, an instance on 0.0.0.0 refuses, and says what to do.
    let refused =
        ferry(&["serve"], "early", Some(&format!("0.0.0.0:{}", free_port()))).output().unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("token create"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let mut outputs = Vec::new();
    let mut servers = Vec::new();
    for command in &commands {
        let Some(rest) = command.strip_prefix("docker compose -f deploy/compose.yaml ") else {
            continue;
        };
        if rest == "up -d" {
            for name in ["a", "b"] {
                let port = free_port();
                let child = ferry(&["serve"], name, Some(&format!("0.0.0.0:{port}")))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                servers.push((child, format!("http://127.0.0.1:{port}")));
            }
            continue;
        }
        let args: Vec<&str> = rest
            .strip_prefix("run --rm ferry-a ")
            .unwrap_or_else(|| panic!("a command this test knows: {command}"))
            .split_whitespace()
            .collect();
        let out = ferry(&args, "run", None).output().unwrap();
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        outputs.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
    }
    assert_eq!(servers.len(), 2, "`up -d` starts both instances");
    let http =
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for (child, base) in servers.iter_mut() {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if http
                .get(format!("{base}/healthz"))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
                panic!("an instance exited ({status}): {err}");
            }
            assert!(std::time::Instant::now() < deadline, "{base} did not start");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    // The token the first command printed acts as the administrator.
    let token = outputs[0].clone();
    let me: serde_json::Value = serde_json::from_str(
        &http
            .get(format!("{}/api/v1/me", servers[0].1))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (me["name"].as_str(), me["roles"][0]["org"].as_str()),
        (Some("admin"), Some("*")),
        "{me}"
    );
    // The link the last printed signs in, on any instance, and a password can be chosen.
    let link = outputs.last().unwrap().clone();
    let path = link
        .strip_prefix(&public_url)
        .unwrap_or_else(|| panic!("a link to the public URL: {link}"));
    let res = http.get(format!("{}{path}", servers[1].1)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 303, "{link}");
    let cookie =
        res.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let res = http
        .post(format!("{}/api/v1/me/password", servers[0].1))
        .header("cookie", &cookie)
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/json")
        .body(serde_json::json!({"password": "the first administrator's"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let login =
        serde_json::json!({"name": "admin", "password": "the first administrator's"}).to_string();
    let res = http
        .post(format!("{}/auth/login", servers[1].1))
        .header("content-type", "application/json")
        .body(login)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    for (mut child, _) in servers {
        let _ = child.kill();
        let _ = child.wait();
    }
}
