//! `ferry import` as a user runs it: the real binary, Ferry's random plugin beside it.

use std::process::Command;

fn ferry(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferry"))
        .args(args)
        .current_dir(dir)
        .env_remove("PULUMI_CONFIG_PASSPHRASE")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Runs SQL on the machine's PostgreSQL server as `postgres`.
fn psql(sql: &str) {
    let out = Command::new("psql")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql (Debian's postgresql-client)");
    assert!(out.status.success(), "{sql}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn preview_then_commit_into_a_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let original = r#"{"version":3,"deployment":{"secrets_providers":{"type":"b64","state":{}}}}"#;
    std::fs::write(dir.path().join("state.json"), original).unwrap();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"resources":[{"type":"random:index/randomInteger:RandomInteger","name":"port","id":"8080,1024,65535"},
                         {"type":"random:index/randomPet:RandomPet","name":"pet","id":"x"}]}"#,
    )
    .unwrap();

    let (code, out, err) = ferry(
        dir.path(),
        &["import", "--stack", "state.json", "--file", "spec.json", "--preview-only"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ready") && out.contains("port") && out.contains("8080"), "{out}");
    assert!(out.contains("cannot be imported"), "{out}");
    assert!(out.contains("nothing was written"));

    let (code, _, err) =
        ferry(dir.path(), &["import", "--stack", "state.json", "--file", "spec.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("--out-state"), "{err}");

    let (code, out, err) = ferry(
        dir.path(),
        &[
            "import",
            "--stack",
            "state.json",
            "--file",
            "spec.json",
            "--out-state",
            "next.json",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    assert_eq!(report["commit"]["added"], 1);
    let next = std::fs::read(dir.path().join("next.json")).unwrap();
    let state = ferry_state::load_state(&next, Default::default()).unwrap();
    assert_eq!(state.deployment.resources().len(), 3, "root stack, default provider, the integer");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("state.json")).unwrap(),
        original,
        "the input file is untouched"
    );

    // Code for the imported resources, in the language its extension names.
    let (code, out, err) = ferry(
        dir.path(),
        &[
            "import",
            "--stack",
            "state.json",
            "--file",
            "spec.json",
            "--preview-only",
            "--out",
            "imported.py",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Wrote python code to imported.py"), "{out}");
    let py = std::fs::read_to_string(dir.path().join("imported.py")).unwrap();
    assert!(
        py.contains("port = random.RandomInteger(\"port\",") && py.contains("protect=True"),
        "{py}"
    );
    let (code, _, err) = ferry(
        dir.path(),
        &[
            "import",
            "--stack",
            "state.json",
            "--file",
            "spec.json",
            "--preview-only",
            "--out",
            "imported.txt",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("--lang"), "{err}");
}

#[test]
fn a_bad_spec_or_stack_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.json"), r#"{"resources":[{"type":"a:b:C","name":"x"}]}"#)
        .unwrap();
    let (code, _, err) = ferry(
        dir.path(),
        &["import", "--stack", "acme/web/dev", "--file", "spec.json", "--data-dir", "d"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("resources[0].id"), "{err}");
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"resources":[{"type":"a:b:C","name":"x","id":"1"}]}"#,
    )
    .unwrap();
    let (code, _, err) = ferry(
        dir.path(),
        &["import", "--stack", "acme/web/dev", "--file", "spec.json", "--data-dir", "d"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("no stack `acme/web/dev`"), "{err}");
}

/// `ferry preview --program`: the import file and mapping a program's would-be creates give,
/// the mapping turning them into imports, and a commit into a new state file.
#[test]
fn preview_a_program_write_its_import_file_then_import_by_mapping() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("state.json"),
        r#"{"version":3,"deployment":{"secrets_providers":{"type":"b64","state":{}}}}"#,
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("shop")).unwrap();
    std::fs::write(
        dir.path().join("shop/Pulumi.yaml"),
        "name: shop\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1024\n      max: 65535\n  id:\n    type: random:RandomId\n    properties:\n      byteLength: 4\n",
    )
    .unwrap();

    let (code, out, err) = ferry(
        dir.path(),
        &[
            "preview",
            "--program",
            "shop",
            "--stack",
            "state.json",
            "--import-file",
            "import.json",
            "--record-mapping",
            "mapping.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("create") && out.contains("nothing was written"), "{out}");
    let import: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("import.json")).unwrap())
            .unwrap();
    assert_eq!(import["resources"].as_array().unwrap().len(), 2);
    assert_eq!(import["resources"][0]["id"], "<PLACEHOLDER>");
    // The import file parses as an import spec (placeholders and all).
    ferry_engine::import_spec::parse_import_spec(&import.to_string()).unwrap();
    let mapping: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mapping.json")).unwrap())
            .unwrap();
    assert_eq!(mapping, serde_json::json!({"id": "", "port": ""}));

    // Fill in one ID: that resource is imported, the other skipped and listed.
    std::fs::write(dir.path().join("mapping.json"), r#"{"port": "8080,1024,65535", "id": ""}"#)
        .unwrap();
    let (code, out, err) = ferry(
        dir.path(),
        &[
            "preview",
            "--program",
            "shop",
            "--stack",
            "state.json",
            "--mapping",
            "mapping.json",
            "--commit",
            "--out-state",
            "next.json",
        ],
    );
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(
        out.contains("import")
            && out.contains("skipped (no ID in the mapping): random:index/randomId:RandomId id"),
        "{out}"
    );
    let state = ferry_state::load_state(
        &std::fs::read(dir.path().join("next.json")).unwrap(),
        Default::default(),
    )
    .unwrap();
    let port = state.deployment.resources().iter().find(|r| r.urn.ends_with("::port")).unwrap();
    assert_eq!(port.id.as_deref(), Some("8080"));

    // A bad program: file, line and property, before any stack is touched.
    std::fs::write(
        dir.path().join("bad.yaml"),
        "resources:\n  x:\n    type: random:RandomPet\n    options:\n      protect: maybe\n",
    )
    .unwrap();
    let (code, _, err) =
        ferry(dir.path(), &["preview", "--program", "bad.yaml", "--stack", "state.json"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.yaml:5:16: resources.x.options.protect: expected `true` or `false`"),
        "{err}"
    );
}

/// `ferry preview --identify` against the machine's PostgreSQL server: the program's roles,
/// without import IDs, each tried under the ID its recipe builds; the table printed, and the
/// mapping recorded with the ID found and a blank for the role that does not exist.
#[test]
fn identify_prints_the_table_and_records_the_ids_found() {
    let prefix = format!("ferryidcli{}_", std::process::id());
    psql(&format!("DROP ROLE IF EXISTS {prefix}web; CREATE ROLE {prefix}web NOLOGIN"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("state.json"), r#"{"version":3,"deployment":{}}"#).unwrap();
    let program = format!(
        "name: roles\nruntime: yaml\nresources:\n  web:\n    type: postgresql:Role\n    properties:\n      name: {prefix}web\n  \
         absent:\n    type: postgresql:Role\n    properties:\n      name: {prefix}absent\n"
    );
    std::fs::write(dir.path().join("roles.yaml"), program).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ferry"))
        .args([
            "preview",
            "--program",
            "roles.yaml",
            "--stack",
            "state.json",
            "--identify",
            "--record-mapping",
            "mapping.json",
        ])
        .current_dir(dir.path())
        .env("PGHOST", "127.0.0.1")
        .env("PGUSER", "postgres")
        .output()
        .unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}\n{stdout}");
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no row {name}: {stdout}"))
            .to_string()
    };
    assert!(
        line("web").starts_with("identified")
            && line("web").contains(&format!("{prefix}web"))
            && line("web").contains("recipe <name>"),
        "{stdout}"
    );
    assert!(
        line("absent").starts_with("unidentified") && line("absent").contains("found no"),
        "{stdout}"
    );
    assert!(stdout.contains("1 identified, 0 found with differences, 1 unidentified, 0 failed. Nothing was stored or changed."), "{stdout}");
    let mapping: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mapping.json")).unwrap())
            .unwrap();
    assert_eq!(mapping, serde_json::json!({"web": format!("{prefix}web"), "absent": ""}));
    // Nothing was written to the state file.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("state.json")).unwrap(),
        r#"{"version":3,"deployment":{}}"#
    );
    psql(&format!("DROP ROLE {prefix}web"));
}

/// `ferry discover` against the machine's PostgreSQL server: what the provider lists becomes a
/// spec `ferry import` takes; a filter the type does not take, or a type without List, fails
/// naming it.
#[test]
fn discover_writes_a_spec_of_what_the_provider_lists() {
    let prefix = format!("ferrycli{}_", std::process::id());
    psql(&format!("DROP ROLE IF EXISTS {prefix}web; CREATE ROLE {prefix}web NOLOGIN"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("state.json"), r#"{"version":3,"deployment":{}}"#).unwrap();
    let discover = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ferry"))
            .args(["discover", "--stack", "state.json"])
            .args(extra)
            .current_dir(dir.path())
            .env("PGHOST", "127.0.0.1")
            .env("PGUSER", "postgres")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let query = format!("namePrefix={prefix}");
    let (code, _, err) = discover(&[
        "--type",
        "postgresql:index/role:Role",
        "--query",
        &query,
        "--out",
        "spec.json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("unmanaged      postgresql:index/role:Role  {prefix}web")),
        "{err}"
    );
    let spec = std::fs::read_to_string(dir.path().join("spec.json")).unwrap();
    let parsed = ferry_engine::import_spec::parse_import_spec(&spec).unwrap();
    assert_eq!(parsed.file.resources.len(), 1);
    assert_eq!(parsed.file.resources[0].id.as_deref(), Some(format!("{prefix}web").as_str()));

    let (code, _, err) = discover(&["--type", "postgresql:index/role:Role", "--query", "owner=x"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`owner` is not a list filter"), "{err}");
    let (code, _, err) = discover(&["--type", "random:index/randomPet:RandomPet"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has no List for random:index/randomPet:RandomPet"), "{err}");
    psql(&format!("DROP ROLE {prefix}web"));
}

/// First setup from the command line: a token (its user made), a sign-in link, and a server
/// that will not start where no one could sign in.
#[tokio::test]
async fn tokens_and_sign_in_links_come_from_the_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data_arg = data.to_str().unwrap();

    let (code, _, err) =
        ferry(dir.path(), &["serve", "--addr", "0.0.0.0:0", "--data-dir", data_arg, "--no-demo"]);
    assert_eq!(code, 1);
    assert!(err.contains("no one can sign in") && err.contains("ferry token create"), "{err}");

    let (code, _, err) = ferry(
        dir.path(),
        &["token", "create", "--data-dir", data_arg, "--user", "ci", "--role", "boss"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("unknown role `boss`"), "{err}");
    let (code, out, err) = ferry(
        dir.path(),
        &[
            "token",
            "create",
            "--data-dir",
            data_arg,
            "--user",
            "ci",
            "--role",
            "planner",
            "--org",
            "acme",
            "--days",
            "3",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let token = out.trim();
    assert!(
        token.starts_with("ferry_") && !out.trim().contains('\n'),
        "only the token on stdout: {out}"
    );
    assert!(err.contains("planner") && err.contains("acme"), "{err}");

    let (code, out, err) = ferry(
        dir.path(),
        &[
            "sign-in-link",
            "--data-dir",
            data_arg,
            "--user",
            "ci",
            "--public-url",
            "https://ferry.example.com/",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.trim().starts_with("https://ferry.example.com/auth/link/"), "{out}");

    let store = ferry_store::Store::open(&data.join("ferry.db")).await.unwrap();
    let service = std::sync::Arc::new(ferry_service::Ferry::new(store, 1 << 20));
    let caller = service.accounts().caller_of_token(token).await.unwrap();
    assert!(caller.may("acme", ferry_service::access::Role::Planner));
    assert!(
        !caller.may("acme", ferry_service::access::Role::Committer)
            && !caller.may("other", ferry_service::access::Role::Viewer)
    );
    assert!(service.accounts().has_users().await.unwrap(), "so `ferry serve` now starts anywhere");
}

/// The same commands with Ferry's data in PostgreSQL: `--database-url` (here a schema of the
/// machine's server of this test's own) makes the store there, and `ferry serve` finds it.
#[tokio::test]
async fn commands_keep_their_data_in_postgresql_with_database_url() {
    let dir = tempfile::tempdir().unwrap();
    let url = ferry_store::testing::scratch_postgres_url(&ferry_store::testing::postgres_url())
        .await
        .unwrap();
    let data = dir.path().join("data");
    let data_arg = data.to_str().unwrap();
    let (code, out, err) = ferry(
        dir.path(),
        &[
            "token",
            "create",
            "--data-dir",
            data_arg,
            "--database-url",
            &url,
            "--user",
            "ci",
            "--role",
            "admin",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!data.join("ferry.db").exists(), "no SQLite file beside a PostgreSQL store");
    let store = ferry_store::Store::connect(&url).await.unwrap();
    assert_eq!(store.dialect(), ferry_store::Dialect::Postgres);
    let service = std::sync::Arc::new(ferry_service::Ferry::new(store, 1 << 20));
    assert!(service
        .accounts()
        .caller_of_token(out.trim())
        .await
        .unwrap()
        .may("any", ferry_service::access::Role::Admin));

    // A database URL Ferry cannot use is named in the error, without its password.
    let (code, _, err) = ferry(
        dir.path(),
        &[
            "token",
            "create",
            "--data-dir",
            data_arg,
            "--database-url",
            "postgres://ferry:hunter2@127.0.0.1:5432/x",
            "--user",
            "ci",
            "--role",
            "admin",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("postgres://ferry:***@127.0.0.1:5432/x") && !err.contains("hunter2"),
        "{err}"
    );
}

/// `ferry import --from terraform`, as a CI job runs it: a real Terraform state becomes a Pulumi
/// state file and code, every resource read by its provider; a file that is not a state is a
/// clear error before anything runs.
#[test]
fn a_terraform_state_becomes_a_pulumi_state_file_and_code() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = std::env::var_os("FERRY_FIXTURES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::root().join("../shared/fixtures"));
    std::fs::copy(
        fixtures.join("terraform/random-state.tfstate"),
        dir.path().join("terraform.tfstate"),
    )
    .unwrap();
    std::fs::write(dir.path().join("state.json"), r#"{"version":3,"deployment":{}}"#).unwrap();

    let (code, out, err) = ferry(
        dir.path(),
        &[
            "import",
            "--from",
            "terraform",
            "terraform.tfstate",
            "--stack",
            "state.json",
            "--preview-only",
        ],
    );
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(
        out.contains("random_string.random")
            && out.contains("mapped")
            && out.contains("random:index/randomString:RandomString"),
        "{out}"
    );
    assert!(out.contains("nothing was written"), "{out}");

    let args = [
        "import",
        "--from",
        "terraform",
        "terraform.tfstate",
        "--stack",
        "state.json",
        "--out-state",
        "next.json",
        "--out",
        "index.ts",
        "--json",
    ];
    let (code, out, err) = ferry(dir.path(), &args);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    assert_eq!(report["commit"]["added"], 1, "{report}");
    let rows = report["terraform"].as_array().expect("every row of the migration");
    assert_eq!(
        (rows.len(), rows[0]["address"].as_str(), rows[0]["status"].as_str()),
        (1, Some("random_string.random"), Some("mapped")),
        "{report}"
    );
    let next = std::fs::read(dir.path().join("next.json")).unwrap();
    let state = ferry_state::load_state(&next, Default::default()).unwrap();
    let imported = state
        .deployment
        .resources()
        .iter()
        .find(|r| r.type_ == "random:index/randomString:RandomString")
        .expect("the string");
    assert_eq!(imported.id.as_deref(), Some("dcoG5RPuBKPqY\u{fffd}H0"));
    let ts = std::fs::read_to_string(dir.path().join("index.ts")).unwrap();
    assert!(ts.contains("new random.RandomString(\"random\""), "{ts}");

    // Where a local backend keeps a workspace's state: `terraform.tfstate.d/<workspace>/`.
    let workspace = dir.path().join("terraform.tfstate.d/staging");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::copy(dir.path().join("terraform.tfstate"), workspace.join("terraform.tfstate"))
        .unwrap();
    let url = format!("file://{}/terraform.tfstate", dir.path().display());
    let args = [
        "import",
        "--from",
        "terraform",
        &url,
        "--workspace",
        "staging",
        "--stack",
        "state.json",
        "--preview-only",
        "--json",
    ];
    let (code, out, err) = ferry(dir.path(), &args);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    assert_eq!(report["terraform"][0]["status"], "mapped", "{report}");
    let (code, _, err) = ferry(
        dir.path(),
        &[
            "import",
            "--from",
            "terraform",
            &url,
            "--workspace",
            "nope",
            "--stack",
            "state.json",
            "--preview-only",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("terraform.tfstate.d/nope/terraform.tfstate"),
        "the workspace's state, named: {err}"
    );

    // With the real configuration that declares the state's string (and three resources the
    // state lacks): the row shows its block, and the rest is noted.
    let configuration = dir.path().join("infra");
    std::fs::create_dir_all(configuration.join(".terraform")).unwrap();
    std::fs::copy(
        fixtures.join("terraform/dependency-config/main.tf"),
        configuration.join("main.tf"),
    )
    .unwrap();
    std::fs::write(configuration.join(".terraform/ignored.tf"), "not HCL, and never read").unwrap();
    let args = [
        "import",
        "--from",
        "terraform",
        "terraform.tfstate",
        "--configuration",
        "infra",
        "--stack",
        "state.json",
        "--preview-only",
        "--json",
    ];
    let (code, out, err) = ferry(dir.path(), &args);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    let row = &report["terraform"][0];
    assert_eq!(
        (row["configuration"]["file"].as_str(), row["configuration"]["line"].as_u64()),
        (Some("main.tf"), Some(1)),
        "{report}"
    );
    assert!(row.get("configuration_notes").is_none(), "the state agrees with its block: {row}");
    for missing in
        ["random_string.random2", "random_string.random3", "random_shuffle.random_shuffle"]
    {
        assert!(
            err.contains(&format!(
                "note: `{missing}` is in the configuration but not in the state"
            )),
            "{err}"
        );
    }
    std::fs::write(configuration.join("broken.tf"), "resource \"x\" {\n").unwrap();
    let (code, _, err) = ferry(dir.path(), &args);
    assert_eq!(code, 1);
    assert!(err.contains("the Terraform configuration") && err.contains("broken.tf"), "{err}");

    std::fs::write(
        dir.path().join("bad.tfstate"),
        r#"{"version": 3, "terraform_version": "0.11.14", "modules": []}"#,
    )
    .unwrap();
    let (code, _, err) = ferry(
        dir.path(),
        &[
            "import",
            "--from",
            "terraform",
            "bad.tfstate",
            "--stack",
            "state.json",
            "--preview-only",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("bad.tfstate") && err.contains("version 3"), "{err}");
}
