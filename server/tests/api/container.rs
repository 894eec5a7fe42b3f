//! The container image stays in step with the repository (no Docker engine runs in CI, so the
//! image is checked as text): it ships every provider plugin Ferry builds, beside `ferry`; its
//! wasm-bindgen CLI is the version the front end needs; its last stage runs as a non-root user;
//! and the compose file's instances share one database and one payload key.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

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
    let out = std::process::Command::new("bash").arg("-c").arg("source scripts/lib.sh && plugin_packages").current_dir(root()).output().expect("bash runs");
    assert!(out.status.success(), "plugin_packages: {}", String::from_utf8_lossy(&out.stderr));
    let args = String::from_utf8(out.stdout).unwrap();
    let release = lib.split("build_release_server() {").nth(1).expect("scripts/lib.sh defines build_release_server").split("\n}\n").next().unwrap();
    assert!(release.contains("< <(plugin_packages)") && release.contains("--profile plugin-release"), "the release build's plugins: {release}");
    let debug = build.split("else").last().unwrap();
    assert!(debug.contains("< <(plugin_packages)") && debug.contains("\"${PLUGIN_ARGS[@]}\""), "the debug build's plugins: {debug}");
    for plugin in &plugins {
        assert!(
            args.lines().any(|a| a == format!("--package={plugin}")) && args.lines().any(|a| a == format!("--bin={plugin}")),
            "the builds build {plugin}: {args}"
        );
        assert!(dockerfile.contains(&format!("target/server-release/{plugin}")), "the image ships {plugin}");
    }

    let pinned = |text: &str, key: &str| text.lines().find_map(|l| l.trim().strip_prefix(key)).map(|v| v.split_whitespace().next().unwrap().to_string());
    assert_eq!(pinned(&dockerfile, "ARG WASM_BINDGEN_VERSION="), pinned(&read("scripts/lib.sh"), "WASM_BINDGEN_VERSION="), "one wasm-bindgen version");

    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    let user = last_stage.lines().filter_map(|l| l.strip_prefix("USER ")).next_back().expect("the last stage names its user");
    assert!(!["root", "0"].contains(&user.trim()), "runs as {user}");
    assert!(last_stage.contains("COPY --from=build /out/site/ /opt/ferry/target/site/"), "the front end where the server looks for it");
}

#[test]
fn the_compose_files_instances_share_a_database_and_a_payload_key() {
    let compose = read("deploy/compose.yaml");
    let instances = compose.lines().filter(|l| l.starts_with("  ferry-") && l.trim_end().ends_with(':')).count();
    assert!(instances >= 2, "several instances");
    assert_eq!(compose.matches("<<: *ferry").count(), instances, "every instance takes the shared settings");
    for setting in ["FERRY_DATABASE_URL: postgres://", "FERRY_PAYLOAD_KEY:", "FERRY_ALLOW_BACKENDS: \"*=s3://", "FERRY_PUBLIC_URL: https://"] {
        assert!(compose.contains(setting), "{setting}");
    }
    let caddy = read("deploy/Caddyfile");
    assert!(caddy.contains("flush_interval -1"), "server-sent events are not buffered");
    for i in 0..instances {
        let name = format!("ferry-{}", (b'a' + i as u8) as char);
        assert!(caddy.contains(&format!("{name}:3000")), "the proxy reaches {name}");
    }
}
