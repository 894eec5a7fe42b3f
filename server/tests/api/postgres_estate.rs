//! Discovery and import of a real PostgreSQL estate, end to end through the API, with Ferry's
//! `postgresql` plugin against the server of this machine (127.0.0.1:5432, role `postgres`):
//! roles with memberships and options, a database with an owner and an encoding, a schema and
//! extensions are created with SQL; discovery finds them (unmanaged), they become a plan, the
//! plan previews ready and commits; discovery then marks them managed; the generated TypeScript
//! type-checks against `@pulumi/postgresql`, the Python against PyPI's `pulumi-postgresql`, and
//! the generated YAML previews all `same` against the committed stack.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::http::StatusCode;
use axum::Router;
use common::{call, get, post};
use serde_json::{json, Value};

async fn admin(db: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::Config::new()
        .host("127.0.0.1")
        .port(5432)
        .user("postgres")
        .dbname(db)
        .connect(tokio_postgres::NoTls)
        .await
        .expect("the PostgreSQL server of this machine (127.0.0.1:5432, role postgres) is needed by this test");
    tokio::spawn(conn);
    client
}

async fn drop_estate(prefix: &str, db: &str) {
    let a = admin("postgres").await;
    let _ = a.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")).await;
    for row in a
        .query("SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)", &[&prefix])
        .await
        .unwrap()
    {
        let r: String = row.get(0);
        let _ = a.batch_execute(&format!("DROP OWNED BY \"{r}\"; DROP ROLE \"{r}\"")).await;
    }
}

/// Runs a discovery to its end; its results (no type may fail).
async fn discover(app: &Router, stack: &str, types: Value) -> Vec<Value> {
    let view = common::discovery(app, stack, types).await;
    let events = view["events"].as_array().unwrap();
    assert!(!events.iter().any(|e| e["kind"] == "failed" || e["kind"] == "not-listable"), "{view}");
    events.iter().filter(|e| e["kind"] == "result").cloned().collect()
}

fn run(command: &mut Command, what: &str) {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: cannot run it: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn sdk_check() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-codegen/sdk-check")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_postgresql_estate_is_discovered_imported_and_its_code_previews_clean() {
    // The server's default provider reads libpq's variables, as the real provider does. The
    // test command exports them; set here only when missing, since this process runs other
    // tests' threads at the same time.
    for (name, value) in [("PGHOST", "127.0.0.1"), ("PGUSER", "postgres"), ("PGSSLMODE", "disable")]
    {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
    let prefix = format!("ferrye2e{}_", std::process::id());
    let db = format!("{prefix}db");
    drop_estate(&prefix, &db).await;
    let a = admin("postgres").await;
    a.batch_execute(&format!(
        "CREATE ROLE {prefix}readers NOLOGIN;
         CREATE ROLE {prefix}app LOGIN PASSWORD 'app-secret' CONNECTION LIMIT 5 CREATEDB;
         GRANT {prefix}readers TO {prefix}app;
         ALTER ROLE {prefix}app SET search_path TO app, public;
         CREATE ROLE {prefix}ops NOLOGIN NOINHERIT CREATEROLE;"
    ))
    .await
    .unwrap();
    a.batch_execute(&format!(
        "CREATE DATABASE {db} OWNER {prefix}app ENCODING 'UTF8' TEMPLATE template0"
    ))
    .await
    .unwrap();
    admin(&db)
        .await
        .batch_execute(&format!(
            "CREATE SCHEMA reports AUTHORIZATION {prefix}app; CREATE EXTENSION citext;"
        ))
        .await
        .unwrap();

    let app = common::app(false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/estate/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();

    // What can be listed: the four types, from the schema's listInputs.
    let (status, listable) =
        call(&app, get(&format!("/api/v1/stacks/{stack}/discoveries/types"))).await;
    assert_eq!(status, StatusCode::OK, "{listable}");
    let tokens: Vec<&str> = listable["types"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["package"] == "postgresql")
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    for t in [
        "postgresql:index/role:Role",
        "postgresql:index/database:Database",
        "postgresql:index/schema:Schema",
        "postgresql:index/extension:Extension",
    ] {
        assert!(tokens.contains(&t), "{t} is listable: {listable}");
    }
    assert!(
        listable["packages_without_list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["package"] == "random"),
        "random has no List: {listable}"
    );

    let types = json!([
        {"type": "postgresql:index/role:Role", "query": {"namePrefix": prefix}, "pageSize": 2},
        {"type": "postgresql:index/database:Database", "query": {"namePrefix": prefix}},
        {"type": "postgresql:index/schema:Schema", "query": {"database": db, "namePrefix": "reports"}},
        {"type": "postgresql:index/extension:Extension", "query": {"database": db, "namePrefix": "citext"}}
    ]);
    let found = discover(&app, &stack, types.clone()).await;
    let ids: Vec<&str> = found.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            format!("{prefix}app"),
            format!("{prefix}ops"),
            format!("{prefix}readers"),
            db.clone(),
            format!("{db}.reports"),
            format!("{db}.citext")
        ]
    );
    assert!(found.iter().all(|r| r["status"] == "unmanaged"), "{found:?}");

    // A quick Read says each is there, and a made-up one is not.
    let mut items: Vec<Value> =
        found.iter().map(|r| json!({"type": r["type"], "id": r["id"]})).collect();
    items.push(json!({"type": "postgresql:index/role:Role", "id": format!("{prefix}nobody")}));
    let (status, probed) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/discoveries/probe"),
            &json!({"items": items}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{probed}");
    let outcomes: Vec<&str> =
        probed.as_array().unwrap().iter().map(|p| p["outcome"].as_str().unwrap()).collect();
    assert_eq!(
        outcomes,
        ["found", "found", "found", "found", "found", "found", "not-found"],
        "{probed}"
    );

    // The results become a plan, which previews ready and commits.
    let selection: Vec<Value> = found
        .iter()
        .map(|r| json!({"type": r["type"], "id": r["id"], "name": r["name"]}))
        .collect();
    let (status, plan) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/discoveries/plan"),
            &json!({"items": selection}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let spec: Value = serde_json::from_str(plan["current"]["spec"].as_str().unwrap()).unwrap();
    assert_eq!(spec["resources"].as_array().unwrap().len(), 6, "{spec}");
    let (preview, record) = common::plan_preview(&app, plan["id"].as_str().unwrap()).await;
    let statuses: Vec<&Value> =
        record["preview"]["resources"].as_array().unwrap().iter().map(|r| &r["status"]).collect();
    assert!(statuses.iter().all(|s| *s == "ready"), "{record}");
    // The login role's password verifier is a secret: the stack gets a passphrase to encrypt it.
    let commit = axum::http::Request::post(format!("/api/v1/previews/{preview}/commit"))
        .header("x-ferry-passphrase", "estate passphrase")
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, commit) = call(&app, commit).await;
    assert_eq!(status, StatusCode::CREATED, "{commit}");

    // Discovered again, each is managed by this stack now.
    let again = discover(&app, &stack, types).await;
    assert!(again.iter().all(|r| r["status"] == "in-this-stack"), "{again:?}");

    // The code: verified, type-checked against the real SDKs, and its YAML previews same.
    let (status, yaml) =
        call(&app, get(&format!("/api/v1/previews/{preview}/code?lang=yaml&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{yaml}");
    for v in yaml["verification"].as_array().unwrap() {
        assert_eq!(v["clean"], json!(true), "{v}");
    }
    let text = yaml["code"].as_str().unwrap();
    assert!(
        !text.contains("app-secret") && !text.contains("SCRAM-SHA-256"),
        "no password or verifier in code:\n{text}"
    );
    // The code reads the login role's password from secret config, as its header says; the
    // value that previews clean is what the stack holds, the server's verifier.
    let verifier: String = a
        .query_one(
            "SELECT rolpassword FROM pg_authid WHERE rolname = $1",
            &[&format!("{prefix}app")],
        )
        .await
        .unwrap()
        .get(0);
    let key = text
        .lines()
        .find_map(|l| {
            l.trim_start_matches(|c: char| c == '#' || c.is_whitespace())
                .strip_prefix("pulumi config set --secret ")
        })
        .expect("the header names the secret config key")
        .trim();
    // In every scope, through the API (the program takes secret config, which a plan does not).
    common::assert_code_previews_same(
        &app,
        &stack,
        &preview,
        Some("estate passphrase"),
        json!({key: {"value": verifier, "secret": true}}),
    )
    .await;
    // References between the imported resources are written as references.
    assert!(text.contains(&format!("owner: \"${{{prefix}app.id}}\"")), "{text}");

    let work = tempfile::tempdir().unwrap();
    let code = |lang: &str| format!("/api/v1/previews/{preview}/code?lang={lang}&format=zip");
    let ts = common::unpack(&app, &code("ts"), &work.path().join("ts")).await;
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(ts.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["dependencies"]["@pulumi/postgresql"], "^3.18.1", "{package}");
    let modules = sdk_check().join("node_modules");
    assert!(
        modules.join("@pulumi/postgresql").exists(),
        "the npm SDKs are missing ({}): run ./scripts/test.sh",
        modules.display()
    );
    std::os::unix::fs::symlink(&modules, ts.join("node_modules")).unwrap();
    run(
        Command::new(modules.join(".bin/tsc"))
            .args(["--noEmit", "-p", "tsconfig.json"])
            .current_dir(&ts),
        "tsc against @pulumi/postgresql",
    );

    let py = common::unpack(&app, &code("python"), &work.path().join("py")).await;
    assert!(std::fs::read_to_string(py.join("requirements.txt"))
        .unwrap()
        .contains("pulumi_postgresql>=3.18.1,<4"));
    let venv_python =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/codegen-venv/bin/python");
    assert!(
        venv_python.exists(),
        "the PyPI SDKs are missing ({}): run ./scripts/test.sh",
        venv_python.display()
    );
    run(
        Command::new(modules.join(".bin/pyright"))
            .arg("--pythonpath")
            .arg(&venv_python)
            .arg(py.join("__main__.py")),
        "pyright against pulumi-postgresql",
    );

    drop_estate(&prefix, &db).await;
}

/// Code that refers to other imported resources (`owner: ${reader.id}`) previews `same` after
/// the commit, in every scope, through the API and as a plan's background preview: a resource
/// whose step is `same` has known outputs, so what refers to it is not an update. Without the
/// passphrase a plan cannot check the role itself (its state holds a secret), but what refers
/// to it still resolves.
#[tokio::test(flavor = "multi_thread")]
async fn references_to_imported_resources_resolve_in_previews() {
    for (name, value) in [("PGHOST", "127.0.0.1"), ("PGUSER", "postgres"), ("PGSSLMODE", "disable")]
    {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
    let prefix = format!("ferryref{}_", std::process::id());
    let db = format!("{prefix}db");
    drop_estate(&prefix, &db).await;
    let a = admin("postgres").await;
    a.batch_execute(&format!("CREATE ROLE {prefix}reader NOLOGIN")).await.unwrap();
    a.batch_execute(&format!("CREATE DATABASE {db} OWNER {prefix}reader")).await.unwrap();
    admin(&db)
        .await
        .batch_execute(&format!("CREATE SCHEMA reports AUTHORIZATION {prefix}reader"))
        .await
        .unwrap();

    let app = common::app(false).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/refs/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [
        {"type": "postgresql:index/role:Role", "name": "reader", "id": format!("{prefix}reader")},
        {"type": "postgresql:index/database:Database", "name": "db", "id": db},
        {"type": "postgresql:index/schema:Schema", "name": "reports", "id": format!("{db}.reports")},
    ]});
    let (status, plan) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/plans"),
            &json!({"spec": spec.to_string()}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let (preview, _) = common::plan_preview(&app, plan["id"].as_str().unwrap()).await;
    let commit = axum::http::Request::post(format!("/api/v1/previews/{preview}/commit"))
        .header("x-ferry-passphrase", "refs passphrase")
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, commit) = call(&app, commit).await;
    assert_eq!(status, StatusCode::CREATED, "{commit}");

    let text = common::assert_code_previews_same(
        &app,
        &stack,
        &preview,
        Some("refs passphrase"),
        json!({}),
    )
    .await;
    assert!(text.contains("owner: \"${reader.id}\""), "the code refers to the role: {text}");

    // Without the passphrase: the role's own check needs it, and says so; what refers to the
    // role is not an update.
    let (status, plan) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/plans"), &json!({"program": text}).to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let (_, record) = common::plan_preview(&app, plan["id"].as_str().unwrap()).await;
    let steps = common::step_lines(&record["preview"]["plan"]);
    let of =
        |name: &str| steps.iter().find(|s| s.split(' ').nth(1) == Some(name)).cloned().unwrap();
    assert!(
        of("reader").starts_with("same reader (") && of("reader").contains("passphrase"),
        "{steps:?}"
    );
    assert_eq!(
        (of("db"), of("reports")),
        ("same db".to_string(), "same reports".to_string()),
        "{steps:?}"
    );
    drop_estate(&prefix, &db).await;
}
