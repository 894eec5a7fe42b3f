//! The plugin against the real PostgreSQL server of this machine (`FERRY_PG_HOST`, default
//! 127.0.0.1:5432, role `postgres`, trust auth), launched by Ferry's plugin host as a user's
//! plugin would be. Each test builds its own estate under a unique prefix and drops it after.
//! Its schema is checked against `@pulumi/postgresql`'s.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ferry_engine::deploy::ImportStatus;
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use ferry_engine::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_property::wire::{json_object_to_struct, struct_to_json_object};
use ferry_property::{PropertyMap, PropertyValue};
use ferry_rpc::pulumirpc::{
    list_response, CreateRequest, DeleteRequest, ListRequest, ReadRequest, UpdateRequest,
};
use serde_json::{json, Map, Value};

fn host() -> String {
    std::env::var("FERRY_PG_HOST").unwrap_or_else(|_| "127.0.0.1".into())
}

fn fixtures() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    })
}

async fn admin(db: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::Config::new()
        .host(host())
        .port(5432)
        .user("postgres")
        .dbname(db)
        .connect(tokio_postgres::NoTls)
        .await
        .expect("the PostgreSQL server of this machine (127.0.0.1:5432, role postgres) is needed by these tests");
    tokio::spawn(conn);
    client
}

/// Roles, a database with a schema and extensions: a small real estate, named under `prefix`.
struct Estate {
    prefix: String,
    db: String,
}

impl Estate {
    async fn create() -> Estate {
        let prefix = format!("ferry{}_{:x}_", std::process::id(), rand_suffix());
        let db = format!("{prefix}db");
        let a = admin("postgres").await;
        a.batch_execute(&format!(
            "CREATE ROLE {p}readers NOLOGIN;
             CREATE ROLE {p}app LOGIN PASSWORD 'app-secret' CONNECTION LIMIT 5 CREATEDB;
             GRANT {p}readers TO {p}app;
             ALTER ROLE {p}app SET search_path TO \"$user\", app;
             ALTER ROLE {p}app SET statement_timeout TO 1000;
             CREATE ROLE {p}auditor NOLOGIN NOINHERIT VALID UNTIL '2031-01-01 00:00:00+00';",
            p = prefix
        ))
        .await
        .unwrap();
        a.batch_execute(&format!("CREATE DATABASE {db} OWNER {prefix}app ENCODING 'UTF8' TEMPLATE template0 CONNECTION LIMIT 20")).await.unwrap();
        let d = admin(&db).await;
        d.batch_execute(&format!("CREATE SCHEMA reports AUTHORIZATION {prefix}app; CREATE EXTENSION citext; CREATE EXTENSION hstore SCHEMA reports;"))
            .await
            .unwrap();
        Estate { prefix, db }
    }

    async fn drop(self) {
        let a = admin("postgres").await;
        let _ = a.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.db)).await;
        let roles: Vec<String> = a
            .query("SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)", &[&self.prefix])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        for r in roles {
            let _ = a.batch_execute(&format!("DROP OWNED BY \"{r}\"; DROP ROLE \"{r}\"")).await;
        }
    }
}

fn rand_suffix() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos()
}

async fn plugins() -> PluginProviders {
    let bin_dir =
        Path::new(env!("CARGO_BIN_EXE_pulumi-resource-postgresql")).parent().unwrap().to_path_buf();
    let search = PluginSearch { ferry_dirs: vec![bin_dir], ..Default::default() };
    let options = LaunchOptions {
        start_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let (engine, _logs) = EngineService::start().await.unwrap();
    PluginProviders::new(search, engine, options, std::env::temp_dir(), None)
}

fn config() -> PropertyMap {
    let mut c = PropertyMap::new();
    c.insert("host".into(), PropertyValue::String(host()));
    c.insert("port".into(), PropertyValue::Number(5432.0));
    c.insert("username".into(), PropertyValue::String("postgres".into()));
    c.insert("sslmode".into(), PropertyValue::String("disable".into()));
    c
}

async fn provider(source: &PluginProviders) -> Arc<dyn Provider> {
    let instance = ProviderInstance {
        package: "postgresql".into(),
        version: None,
        key: "urn:pulumi:dev::estate::pulumi:providers:postgresql::pg::1".into(),
        config: config(),
    };
    source.provider(&instance).await.unwrap()
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(o) => o,
        _ => panic!("an object"),
    }
}

/// Secrets unwrapped, so values compare plainly.
fn plain(s: Option<ferry_rpc::prost_types::Struct>) -> Map<String, Value> {
    // Whole numbers as integers (the wire carries every number as a double).
    fn unwrap(v: Value) -> Value {
        match v {
            Value::Object(mut o) if o.contains_key(ferry_state::sig::SIG_KEY) => {
                unwrap(o.remove("value").unwrap_or(Value::Null))
            }
            Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, unwrap(v))).collect()),
            Value::Array(a) => Value::Array(a.into_iter().map(unwrap).collect()),
            Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
                json!(n.as_f64().unwrap() as i64)
            }
            other => other,
        }
    }
    struct_to_json_object(&s.unwrap_or_default())
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k, unwrap(v)))
        .collect()
}

async fn list(
    p: &dyn Provider,
    token: &str,
    query: Value,
    page_size: i64,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut token_next = String::new();
    let mut pages = 0;
    loop {
        let page = p
            .list_page(ListRequest {
                token: token.into(),
                query: Some(json_object_to_struct(obj(query.clone()))),
                limit: 0,
                page_size,
                continuation_token: token_next.clone(),
            })
            .await
            .unwrap();
        pages += 1;
        let mut next = None;
        for item in page {
            match item.response {
                Some(list_response::Response::Result(r)) => found.push((r.id, r.name)),
                Some(list_response::Response::Continuation(c)) => next = Some(c.continuation_token),
                other => panic!("unexpected {other:?}"),
            }
        }
        match next {
            Some(t) => token_next = t,
            None => break,
        }
        assert!(pages < 100, "paging does not end");
    }
    found
}

async fn read(
    p: &dyn Provider,
    token: &str,
    id: &str,
) -> (String, Map<String, Value>, Map<String, Value>) {
    let r = p
        .read(ReadRequest {
            id: id.into(),
            urn: format!("urn:pulumi:dev::estate::{token}::x"),
            r#type: token.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    (r.id, plain(r.properties), plain(r.inputs))
}

const ROLE: &str = "postgresql:index/role:Role";
const DATABASE: &str = "postgresql:index/database:Database";
const SCHEMA: &str = "postgresql:index/schema:Schema";
const EXTENSION: &str = "postgresql:index/extension:Extension";

#[tokio::test(flavor = "multi_thread")]
async fn lists_and_reads_an_estate_as_the_real_provider_would() {
    let estate = Estate::create().await;
    let source = plugins().await;
    let p = provider(&source).await;
    let prefix = &estate.prefix;

    // List, in pages of one: every object once, in order, with the documented import IDs.
    let roles = list(p.as_ref(), ROLE, json!({"namePrefix": prefix}), 1).await;
    let ids: Vec<&str> = roles.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [format!("{prefix}app"), format!("{prefix}auditor"), format!("{prefix}readers")]
    );
    let dbs = list(p.as_ref(), DATABASE, json!({"namePrefix": prefix}), 10).await;
    assert_eq!(dbs, [(estate.db.clone(), estate.db.clone())]);
    let schemas = list(p.as_ref(), SCHEMA, json!({"database": estate.db}), 10).await;
    assert_eq!(
        schemas.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        [format!("{}.public", estate.db), format!("{}.reports", estate.db)]
    );
    let extensions = list(p.as_ref(), EXTENSION, json!({"database": estate.db}), 10).await;
    let ext_ids: Vec<String> = extensions.iter().map(|(id, _)| id.clone()).collect();
    assert!(
        ext_ids.contains(&format!("{}.citext", estate.db))
            && ext_ids.contains(&format!("{}.hstore", estate.db)),
        "{ext_ids:?}"
    );
    // A filter a type does not take is refused by name.
    let wrong = p
        .list_page(ListRequest {
            token: ROLE.into(),
            query: Some(json_object_to_struct(obj(json!({"database": "x"})))),
            ..Default::default()
        })
        .await;
    assert!(wrong.unwrap_err().to_string().contains("`database` is not a list filter"));

    // Read: the state the real provider writes on import, and inputs without defaults.
    let (id, out, inputs) = read(p.as_ref(), ROLE, &format!("{prefix}app")).await;
    assert_eq!(id, format!("{prefix}app"));
    assert_eq!(out["connectionLimit"], json!(5));
    assert_eq!(out["login"], json!(true));
    assert_eq!(out["createDatabase"], json!(true));
    assert_eq!(out["inherit"], json!(true));
    assert_eq!(out["validUntil"], json!("infinity"));
    assert_eq!(out["roles"], json!([format!("{prefix}readers")]));
    assert_eq!(out["searchPaths"], json!(["$user", "app"]));
    assert_eq!(out["statementTimeout"], json!(1000));
    assert_eq!(out["idleInTransactionSessionTimeout"], json!(0));
    assert_eq!(out["encryptedPassword"], json!(true));
    assert_eq!(out["skipDropRole"], json!(false));
    assert!(
        out["password"].as_str().unwrap().starts_with("SCRAM-SHA-256$"),
        "a superuser connection reads the stored verifier"
    );
    for default in [
        "inherit",
        "validUntil",
        "encryptedPassword",
        "superuser",
        "skipDropRole",
        "idleInTransactionSessionTimeout",
        "assumeRole",
    ] {
        assert!(
            !inputs.contains_key(default),
            "`{default}` holds its default and is left out of the inputs: {inputs:?}"
        );
    }
    assert_eq!(inputs["connectionLimit"], json!(5));
    assert_eq!(inputs["name"], json!(format!("{prefix}app")));

    let (_, out, inputs) = read(p.as_ref(), ROLE, &format!("{prefix}auditor")).await;
    assert_eq!(out["inherit"], json!(false));
    assert_eq!(
        inputs["inherit"],
        json!(false),
        "false differs from the default true, so it is kept"
    );
    assert!(out["validUntil"].as_str().unwrap().starts_with("2031-01-01"));
    assert_eq!(out["password"], json!(""), "a role that cannot log in has no password in state");

    let (_, out, inputs) = read(p.as_ref(), DATABASE, &estate.db).await;
    assert_eq!(out["owner"], json!(format!("{prefix}app")));
    assert_eq!(out["encoding"], json!("UTF8"));
    assert_eq!(out["connectionLimit"], json!(20));
    assert_eq!(out["template"], json!("template0"));
    assert_eq!(out["tablespaceName"], json!("pg_default"));
    assert_eq!(out["allowConnections"], json!(true));
    assert!(!inputs.contains_key("allowConnections") && inputs["connectionLimit"] == json!(20));

    let (id, out, _) = read(p.as_ref(), SCHEMA, &format!("{}.reports", estate.db)).await;
    assert_eq!(id, format!("{}.reports", estate.db));
    assert_eq!(
        out,
        obj(
            json!({"id": id, "name": "reports", "owner": format!("{prefix}app"), "database": estate.db, "policies": []})
        )
    );
    let (_, out, _) = read(p.as_ref(), EXTENSION, &format!("{}.hstore", estate.db)).await;
    assert_eq!(out["schema"], json!("reports"));
    assert!(out["version"].as_str().is_some_and(|v| !v.is_empty()));

    // Not there: an empty ID, as the protocol says; a malformed ID: an error naming the format.
    let (gone, _, _) = read(p.as_ref(), ROLE, &format!("{prefix}nobody")).await;
    assert_eq!(gone, "");
    let bad = p
        .read(ReadRequest { id: "no-dot".into(), r#type: SCHEMA.into(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("`<database>.<schema>`"), "{bad}");

    source.shutdown().await;
    estate.drop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_estate_imports_with_no_diff() {
    let estate = Estate::create().await;
    let (prefix, db) = (&estate.prefix, &estate.db);
    let spec = parse_import_spec(
        &json!({"resources": [
            {"type": "pulumi:providers:postgresql", "name": "pg", "inputs": {"host": host(), "port": 5432, "username": "postgres", "sslmode": "disable"}},
            {"type": ROLE, "name": "app", "id": format!("{prefix}app"), "provider": "pg"},
            {"type": ROLE, "name": "readers", "id": format!("{prefix}readers"), "provider": "pg"},
            {"type": ROLE, "name": "auditor", "id": format!("{prefix}auditor"), "provider": "pg"},
            {"type": DATABASE, "name": "db", "id": db, "provider": "pg"},
            {"type": SCHEMA, "name": "reports", "id": format!("{db}.reports"), "provider": "pg"},
            {"type": EXTENSION, "name": "citext", "id": format!("{db}.citext"), "provider": "pg"},
            {"type": ROLE, "name": "ghost", "id": format!("{prefix}ghost"), "provider": "pg"}
        ]})
        .to_string(),
    )
    .unwrap();
    let state =
        ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let source = plugins().await;
    let ctx = StackContext { stack: "dev", project: "estate", deployment: &state.deployment };
    let preview = SpecPreview::from_plan(
        &preview_import(&spec, &ctx, &source, ImportOptions::default()).await.plan,
    );
    source.shutdown().await;
    let statuses: Vec<(String, ImportStatus, Vec<String>)> =
        preview.resources.iter().map(|r| (r.name.clone(), r.status, r.warnings.clone())).collect();
    let ready: Vec<&str> = statuses
        .iter()
        .filter(|(_, s, _)| *s == ImportStatus::Ready)
        .map(|(n, _, _)| n.as_str())
        .collect();
    // Every object imports with no diff; the missing role fails by name.
    assert_eq!(
        ready,
        ["pg", "app", "readers", "auditor", "db", "reports", "citext"],
        "{statuses:?}"
    );
    let ghost = preview.resources.iter().find(|r| r.name == "ghost").unwrap();
    assert_eq!(ghost.status, ImportStatus::NotFound);
    estate.drop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn create_update_and_delete_change_the_server() {
    let estate = Estate::create().await;
    let prefix = estate.prefix.clone();
    let source = plugins().await;
    let p = provider(&source).await;
    let a = admin("postgres").await;
    let role = format!("{prefix}svc");

    let news = obj(
        json!({"name": role, "login": true, "connectionLimit": 3, "roles": [format!("{prefix}readers")], "searchPaths": ["svc"], "password": "pw-1"}),
    );
    let created = p
        .create(CreateRequest {
            urn: format!("urn:pulumi:dev::estate::{ROLE}::svc"),
            r#type: ROLE.into(),
            properties: Some(json_object_to_struct(news.clone())),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(created.id, role);
    let row = a
        .query_one(
            "SELECT rolcanlogin, rolconnlimit, rolconfig::text FROM pg_roles WHERE rolname = $1",
            &[&role],
        )
        .await
        .unwrap();
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i32>(1), 3);
    assert_eq!(row.get::<_, String>(2), "{search_path=svc}");
    let member: i64 =
        a.query_one("SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1", &[&role]).await.unwrap().get(0);
    assert_eq!(member, 1);

    let olds = plain(created.properties);
    let changed = obj(
        json!({"name": format!("{role}2"), "login": false, "connectionLimit": -1, "roles": [], "password": "pw-1"}),
    );
    let updated = p
        .update(UpdateRequest {
            id: role.clone(),
            urn: format!("urn:pulumi:dev::estate::{ROLE}::svc"),
            r#type: ROLE.into(),
            olds: Some(json_object_to_struct(olds)),
            news: Some(json_object_to_struct(changed)),
            ..Default::default()
        })
        .await
        .unwrap();
    let after = plain(updated.properties);
    assert_eq!(after["name"], json!(format!("{role}2")));
    let row = a
        .query_one(
            "SELECT rolcanlogin, rolconnlimit, rolconfig IS NULL FROM pg_roles WHERE rolname = $1",
            &[&format!("{role}2")],
        )
        .await
        .unwrap();
    assert!(!row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i32>(1), -1);
    assert!(row.get::<_, bool>(2), "the search path was reset");

    p.delete(DeleteRequest {
        id: format!("{role}2"),
        r#type: ROLE.into(),
        properties: Some(json_object_to_struct(after)),
        ..Default::default()
    })
    .await
    .unwrap();
    let left: i64 = a
        .query_one("SELECT count(*) FROM pg_roles WHERE rolname = $1", &[&format!("{role}2")])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);

    // A schema and a database: created, then dropped.
    let schema =
        obj(json!({"name": "staging", "database": estate.db, "owner": format!("{prefix}app")}));
    let created = p
        .create(CreateRequest {
            r#type: SCHEMA.into(),
            properties: Some(json_object_to_struct(schema)),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(created.id, format!("{}.staging", estate.db));
    let d = admin(&estate.db).await;
    let owner: String = d
        .query_one(
            "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'staging'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(owner, format!("{prefix}app"));
    p.delete(DeleteRequest {
        id: created.id,
        r#type: SCHEMA.into(),
        properties: created.properties,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(
        d.query("SELECT 1 FROM pg_namespace WHERE nspname = 'staging'", &[]).await.unwrap().len(),
        0
    );

    let db2 = format!("{prefix}db2");
    let created = p
        .create(CreateRequest {
            r#type: DATABASE.into(),
            properties: Some(json_object_to_struct(obj(
                json!({"name": db2, "connectionLimit": 7}),
            ))),
            ..Default::default()
        })
        .await
        .unwrap();
    let out = plain(created.properties.clone());
    assert_eq!(
        (out["encoding"].clone(), out["connectionLimit"].clone(), out["template"].clone()),
        (json!("UTF8"), json!(7), json!("template0"))
    );
    p.delete(DeleteRequest {
        id: db2.clone(),
        r#type: DATABASE.into(),
        properties: created.properties,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(
        a.query("SELECT 1 FROM pg_database WHERE datname = $1", &[&db2]).await.unwrap().len(),
        0
    );

    source.shutdown().await;
    estate.drop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_configuration_is_refused_by_setting() {
    let source = plugins().await;
    let mut config = config();
    config.insert("sslmode".into(), PropertyValue::String("verify-full".into()));
    config.insert("awsRdsIamAuth".into(), PropertyValue::Bool(true));
    let instance =
        ProviderInstance { package: "postgresql".into(), version: None, key: "bad".into(), config };
    let err = source.provider(&instance).await.err().expect("refused").to_string();
    assert!(err.contains("sslmode") && err.contains("awsRdsIamAuth"), "{err}");
    source.shutdown().await;
}

/// Tokens, property names, types, required lists and secret flags are those of
/// `@pulumi/postgresql` for the four resources and the provider's settings.
#[tokio::test(flavor = "multi_thread")]
async fn the_schema_matches_pulumis() {
    let source = plugins().await;
    let ours: Value =
        serde_json::from_str(&source.schema("postgresql", None).await.unwrap()).unwrap();
    source.shutdown().await;
    let theirs: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("pulumi/schemas/postgresql.schema.json")).unwrap(),
    )
    .unwrap();
    let shape = |v: &Value| json!({"type": v.get("type"), "ref": v.get("$ref"), "items": v.get("items"), "secret": v.get("secret").cloned().unwrap_or(json!(false))});
    for token in [ROLE, DATABASE, SCHEMA, EXTENSION] {
        let (o, t) = (&ours["resources"][token], &theirs["resources"][token]);
        for section in ["properties", "inputProperties"] {
            let on: Vec<&String> = o[section].as_object().unwrap().keys().collect();
            let tn: Vec<&String> = t[section].as_object().unwrap().keys().collect();
            assert_eq!(on, tn, "{token} {section}");
            for (k, v) in t[section].as_object().unwrap() {
                assert_eq!(shape(&o[section][k]), shape(v), "{token}.{k}");
            }
        }
        assert_eq!(o["required"], t["required"], "{token} required");
        assert_eq!(
            o.get("requiredInputs").cloned().unwrap_or(json!([])),
            t.get("requiredInputs").cloned().unwrap_or(json!([])),
            "{token} requiredInputs"
        );
        assert!(o["listInputs"].is_object(), "{token} declares list support");
    }
    for (k, v) in ours["config"]["variables"].as_object().unwrap() {
        assert_eq!(shape(v), shape(&theirs["config"]["variables"][k]), "config {k}");
    }
    assert_eq!(ours["language"]["nodejs"]["packageName"], json!("@pulumi/postgresql"));
}
