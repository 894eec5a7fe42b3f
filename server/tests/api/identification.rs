//! Identification through the API: a program describing resources that already exist, without
//! a single import ID, has each would-be create tried as an import under the ID its type's
//! recipe builds (proven by the provider's `Read`), the choices written as the plan's next
//! revision, previewed and committed, leaving no diff. Against the real PostgreSQL server of
//! this machine with Ferry's `postgresql` plugin, and with Ferry's `random` plugin for an ID
//! made of several properties.

use crate::common;

use axum::http::StatusCode;
use common::{call, get, post, post_json};
use serde_json::{json, Value};

async fn admin() -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::Config::new()
        .host("127.0.0.1")
        .port(5432)
        .user("postgres")
        .dbname("postgres")
        .connect(tokio_postgres::NoTls)
        .await
        .expect("the PostgreSQL server of this machine (127.0.0.1:5432, role postgres) is needed by this test");
    tokio::spawn(conn);
    client
}

async fn drop_all(prefix: &str) {
    let a = admin().await;
    let _ = a.batch_execute(&format!("DROP DATABASE IF EXISTS {prefix}db WITH (FORCE)")).await;
    for row in a
        .query("SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)", &[&prefix])
        .await
        .unwrap()
    {
        let r: String = row.get(0);
        let _ = a.batch_execute(&format!("DROP OWNED BY \"{r}\"; DROP ROLE \"{r}\"")).await;
    }
}

fn row<'a>(rows: &'a Value, name: &str) -> &'a Value {
    rows["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row `{name}`: {rows}"))
}

async fn new_stack(app: &axum::Router, name: &str) -> String {
    let (status, stack) = call(
        app,
        post(&format!("/api/v1/stacks?name={name}"), r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    stack["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_postgresql_program_without_import_ids_is_identified_and_committed_from_its_choices() {
    for (name, value) in [("PGHOST", "127.0.0.1"), ("PGUSER", "postgres"), ("PGSSLMODE", "disable")]
    {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
    let prefix = format!("ferryid{}_", std::process::id());
    drop_all(&prefix).await;
    let a = admin().await;
    a.batch_execute(&format!("CREATE ROLE {prefix}app LOGIN; CREATE ROLE {prefix}readers NOLOGIN; CREATE ROLE {prefix}hidden NOLOGIN;")).await.unwrap();
    // Alone: CREATE DATABASE runs outside a transaction block.
    a.batch_execute(&format!("CREATE DATABASE {prefix}db OWNER {prefix}app")).await.unwrap();
    let app = common::app(false).await;
    let stack = new_stack(&app, "acme/identify/dev").await;
    // What exists, described as a program would create it, plus one role that does not exist,
    // a schema whose database name holds the recipe's separator, and a role whose name is a
    // secret.
    let program = format!(
        "name: identify\nruntime: yaml\nresources:\n  app:\n    type: postgresql:Role\n    properties:\n      name: {prefix}app\n      login: true\n  \
         readers:\n    type: postgresql:Role\n    properties:\n      name: {prefix}readers\n  \
         db:\n    type: postgresql:Database\n    properties:\n      name: {prefix}db\n      owner: ${{app.name}}\n  \
         newcomer:\n    type: postgresql:Role\n    properties:\n      name: {prefix}newcomer\n  \
         odd:\n    type: postgresql:Schema\n    properties:\n      name: reports\n      database: {prefix}db.extra\n  \
         hidden:\n    type: postgresql:Role\n    properties:\n      name:\n        fn::secret: {prefix}hidden\n"
    );
    let (found, events) = common::identification(&app, &stack, &json!({"program": program})).await;
    for (name, id) in [("app", format!("{prefix}app")), ("readers", format!("{prefix}readers"))] {
        let r = row(&found, name);
        assert_eq!(r["status"], "identified", "{r}");
        assert_eq!(r["id"], id.as_str());
        assert_eq!(r["source"], "recipe");
        assert_eq!(r["recipe"], "<name>");
    }
    // The database's owner is another resource's output: known in the preview, since that
    // resource was itself identified and read.
    assert_eq!(row(&found, "db")["status"], "identified", "{found}");
    let newcomer = row(&found, "newcomer");
    assert_eq!(newcomer["status"], "unidentified");
    assert!(
        newcomer["reason"].as_str().unwrap().contains("found no `postgresql:index/role:Role`"),
        "{newcomer}"
    );
    let odd = row(&found, "odd");
    assert_eq!(odd["status"], "unidentified");
    assert_eq!(odd["recipe"], "<database>.<name>");
    assert!(odd["reason"].as_str().unwrap().contains("`database` holds `.`"), "{odd}");
    // A secret part: the ID is built and tried, never shown.
    let hidden = row(&found, "hidden");
    assert_eq!(hidden["status"], "identified", "{hidden}");
    assert_eq!(hidden["secret"], true);
    assert_eq!(hidden["id"], "[secret]");
    assert!(
        !found.to_string().contains(&format!("{prefix}hidden")),
        "the secret is nowhere in the answer: {found}"
    );
    assert!(!events.contains(&format!("{prefix}hidden")), "nor in the job's progress: {events}");
    // The progress named each of the program's six resources once (not the stack or its
    // default provider).
    assert_eq!(events.matches(r#""kind":"resource""#).count(), 6, "{events}");
    assert_eq!(
        (found["identified"].as_u64(), found["unidentified"].as_u64()),
        (Some(4), Some(2)),
        "{found}"
    );

    // The choices become the plan's next revision: imports with their IDs, the newcomer left
    // to create, the odd schema and the secret role skipped.
    let (status, plan) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/plans"),
            &json!({"title": "Adopt", "program": program}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let import =
        |name: &str| json!({"name": name, "choice": "import", "id": row(&found, name)["id"]});
    let secret = json!({"choices": [import("app"), {"name": "hidden", "choice": "import", "id": "[secret]"}]});
    let (status, refused) = call(
        &app,
        post_json(&format!("/api/v1/plans/{plan}/identifications"), &secret.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("holds a secret"), "{refused}");
    let choices = json!({"choices": [
        import("app"), import("readers"), import("db"),
        {"name": "newcomer", "choice": "skip"}, {"name": "odd", "choice": "skip"}, {"name": "hidden", "choice": "skip"}
    ]});
    let (status, saved) = call(
        &app,
        post_json(&format!("/api/v1/plans/{plan}/identifications"), &choices.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    let revised = saved["plan"]["current"]["program"].as_str().unwrap();
    assert_eq!(saved["plan"]["current"]["revision"], 2);
    assert!(revised.contains(&format!("import: \"{prefix}app\"")), "{revised}");
    assert!(!revised.contains("newcomer") && !revised.contains("fn::secret"), "{revised}");

    let (preview, record) = common::plan_preview(&app, &plan).await;
    let steps = common::step_lines(&record["preview"]["plan"]);
    assert_eq!(steps.iter().filter(|s| s.starts_with("import ")).count(), 3, "{steps:?}");
    // Besides the stack's root and its default provider, which a first program adds, only the
    // three imports.
    let own: Vec<&String> = steps
        .iter()
        .filter(|s| !s.ends_with(" identify-dev") && !s.ends_with(" default"))
        .collect();
    assert_eq!(own, ["import app", "import readers", "import db"], "{steps:?}");
    // The login role's password verifier is a secret: the stack gets a passphrase for it.
    let with_passphrase = |uri: String, body: String| {
        axum::http::Request::post(uri)
            .header("x-ferry-passphrase", "identify passphrase")
            .body(axum::body::Body::from(body))
            .unwrap()
    };
    let (status, committed) =
        call(&app, with_passphrase(format!("/api/v1/previews/{preview}/commit"), String::new()))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");

    // A committed import leaves no diff: the revised program previews with nothing to do.
    let again = json!({"program": revised, "scope": "imports"}).to_string();
    let (status, again) =
        call(&app, with_passphrase(format!("/api/v1/stacks/{stack}/previews"), again)).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    let steps = common::step_lines(&again["preview"]["plan"]);
    assert!(steps.iter().all(|s| s.starts_with("same ")), "{steps:?}");
    drop_all(&prefix).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_composite_id_is_asked_for_by_its_parts_and_tried_when_typed() {
    let app = common::app(false).await;
    let stack = new_stack(&app, "acme/identify/random").await;
    let program = "name: r\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1\n      max: 65535\n  pet:\n    type: random:RandomPet\n  \
                   above:\n    type: random:RandomInteger\n    properties:\n      min: ${port.result}\n      max: 70000\n";
    let (found, _) = common::identification(&app, &stack, &json!({"program": program})).await;
    // The recipe needs `result`, which no program sets: the form asks for it, the rest filled.
    let port = row(&found, "port");
    assert_eq!(port["status"], "unidentified", "{port}");
    assert_eq!(port["recipe"], "<result>,<min>,<max>");
    assert_eq!(
        port["parts"],
        json!([{"property": "result"}, {"property": "min", "value": "1"}, {"property": "max", "value": "65535"}])
    );
    assert!(port["reason"].as_str().unwrap().contains("does not set `result`"), "{port}");
    let pet = row(&found, "pet");
    assert!(pet["reason"].as_str().unwrap().contains("documents no import ID format"), "{pet}");
    // A part another would-be create gives is not known until that one is identified.
    let above = row(&found, "above");
    assert!(above["reason"].as_str().unwrap().contains("`min` is not known until"), "{above}");

    // Typed into the form's parts, the ID is tried with Read.
    let typed = json!({"program": program, "ids": {"port": "8080,1,65535"}});
    let (found, _) = common::identification(&app, &stack, &typed).await;
    let port = row(&found, "port");
    assert_eq!(
        (&port["status"], &port["source"], &port["id"]),
        (&json!("identified"), &json!("typed"), &json!("8080,1,65535")),
        "{port}"
    );
    // Read, the port's result is known: the one above it now lacks only its own.
    let above = row(&found, "above");
    assert_eq!(above["parts"][1], json!({"property": "min", "value": "8080"}), "{above}");
    assert!(above["reason"].as_str().unwrap().contains("does not set `result`"), "{above}");
    // Typed with bounds the program does not have, it is found but differs, as a preview shows.
    let typed = json!({"program": program, "ids": {"port": "8080,1,9000"}});
    let (found, _) = common::identification(&app, &stack, &typed).await;
    let port = row(&found, "port");
    assert_eq!(port["status"], "differs", "{port}");
    assert!(
        port["differences"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"] == "max" && d["read"] == 9000),
        "{port}"
    );
    // Identification is read-only: the stack is still at its first version.
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{stack}"))).await;
    assert_eq!(summary["version"], 1, "{summary}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_that_crashes_during_read_fails_its_row_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("pulumi-resource-test");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            common::plugin_dir().join("ferry-test-provider").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![dir.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let app = common::app_with(engine, false).await;
    let stack = new_stack(&app, "acme/identify/crash").await;
    let program =
        "name: c\nruntime: yaml\nresources:\n  good:\n    type: test:index:Thing\n  boom:\n    type: test:index:Thing\n  later:\n    type: test:index:Thing\n";
    let typed = json!({"program": program, "ids": {"good": "thing-a", "boom": "crash-1", "later": "thing-b"}});
    let (found, _) = common::identification(&app, &stack, &typed).await;
    assert_eq!(row(&found, "boom")["status"], "failed", "{found}");
    assert!(row(&found, "boom")["reason"].as_str().unwrap().contains("Read"), "{found}");
    for name in ["good", "later"] {
        assert_ne!(row(&found, name)["status"], "failed", "{found}");
        assert_ne!(row(&found, name)["status"], "unidentified", "{found}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_identification_requests_are_named() {
    let app = common::app(false).await;
    let stack = new_stack(&app, "acme/identify/bad").await;
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/stacks/{stack}/identifications"),
            r#"{"program": "resources: [1"}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    let (status, e) = call(
        &app,
        post_json(&format!("/api/v1/stacks/{stack}/identifications"), r#"{"programme": "x"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    // Refused at once, before any job: a program with nothing to identify.
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/stacks/{stack}/identifications"),
            r#"{"program": "name: p\nruntime: yaml\n"}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("no resources to identify"), "{e}");
    // A job that is not an identification is not one here.
    let (status, e) = call(&app, get("/api/v1/identifications/no-such-job")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{e}");
    // Choices for a spec's plan, or naming what the program lacks, are refused with the reason.
    let spec =
        r#"{"resources": [{"type": "random:index/randomPet:RandomPet", "name": "a", "id": "x"}]}"#;
    let (_, plan) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/plans"), &json!({"spec": spec}).to_string()),
    )
    .await;
    let plan = plan["id"].as_str().unwrap();
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan}/identifications"),
            r#"{"choices": [{"name": "a", "choice": "create"}]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("import spec"), "{e}");
    let program =
        "name: p\nruntime: yaml\nresources:\n  a:\n    type: random:RandomPet\n  b:\n    type: random:RandomPet\n    properties:\n      prefix: ${a.id}\n";
    let (_, plan) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/plans"), &json!({"program": program}).to_string()),
    )
    .await;
    let plan = plan["id"].as_str().unwrap();
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan}/identifications"),
            r#"{"choices": [{"name": "nope", "choice": "create"}]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("no resource `nope`"), "{e}");
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan}/identifications"),
            r#"{"choices": [{"name": "a", "choice": "skip"}]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("`b` refer to it"), "{e}");
    let (status, e) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan}/identifications"),
            r#"{"choices": [{"name": "a", "choice": "import"}]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("needs its ID"), "{e}");
}
