//! The server side: reading, listing, creating, changing and dropping roles, databases, schemas
//! and extensions with SQL against the system catalogs.
//!
//! What `read` puts in state, property by property, is what the bridged Terraform provider
//! (`cyrilgdn/postgresql`, which `@pulumi/postgresql` wraps) sets when it reads an imported
//! object:
//! - **Role**: `name`, `superuser`, `inherit`, `createRole`, `createDatabase`, `login`,
//!   `replication`, `bypassRowLevelSecurity`, `connectionLimit` from `pg_roles`; `validUntil`
//!   from `rolvaliduntil`, `"infinity"` when unset; `roles` from `pg_auth_members`;
//!   `searchPaths`, `statementTimeout`, `idleInTransactionSessionTimeout` and `assumeRole` from
//!   `rolconfig` (`[]`, `0`, `0`, `""` when unset); `encryptedPassword: true`; `skipDropRole`
//!   and `skipReassignOwned` kept from state (`false` on import); `password`: the stored hash
//!   from `pg_authid` for a login role when the provider is configured as a superuser, otherwise
//!   what state held (`""` on import).
//! - **Database**: `name`, `owner`, `encoding`, `lcCollate`, `lcCtype`, `tablespaceName`,
//!   `connectionLimit`, `allowConnections`, `isTemplate` from `pg_database`; `template` kept from
//!   state, `"template0"` on import.
//! - **Schema**: `name`, `owner`, `database`; `policies: []` (deprecated; always empty on read).
//! - **Extension**: `name`, `schema`, `version`, `database`.
//!
//! Properties not listed (`encrypted`, `passwordWo`, the cascade flags, `policies`, ...) are
//! left out, as they are of the real provider's imported state.

use serde_json::{json, Value};
use tokio_postgres::Client;

use crate::connection::{ident, literal, Connections};
use crate::model::{Kind, Props};

pub type SqlResult<T> = Result<T, String>;

fn sql_err(what: &str) -> impl Fn(tokio_postgres::Error) -> String + '_ {
    move |e| match e.as_db_error() {
        Some(db) => format!("{what}: {} ({})", db.message(), db.code().code()),
        None => format!("{what}: {e}"),
    }
}

/// Splits `<database>.<name>`; the database is the part before the first dot.
pub fn split_id(kind: Kind, id: &str) -> SqlResult<(String, String)> {
    match id.split_once('.') {
        Some((db, name)) if !db.is_empty() && !name.is_empty() => {
            Ok((db.to_string(), name.to_string()))
        }
        _ => Err(format!("`{id}` is not a {} import ID: it is {}", kind.token(), kind.id_format())),
    }
}

fn str_prop(props: &Props, name: &str) -> Option<String> {
    props.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}
fn bool_prop(props: &Props, name: &str, default: bool) -> bool {
    props.get(name).and_then(Value::as_bool).unwrap_or(default)
}
fn int_prop(props: &Props, name: &str, default: i64) -> i64 {
    props.get(name).and_then(Value::as_f64).map(|f| f as i64).unwrap_or(default)
}
fn list_prop(props: &Props, name: &str) -> Vec<String> {
    props
        .get(name)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// What the server has for `id`, as outputs (`None`: it does not exist). `state` is what state
/// held before (empty on import).
pub async fn read(
    conns: &Connections,
    kind: Kind,
    id: &str,
    state: &Props,
) -> SqlResult<Option<Props>> {
    match kind {
        Kind::Role => read_role(conns, id, state).await,
        Kind::Database => read_database(conns, id, state).await,
        Kind::Schema => {
            let (db, name) = split_id(kind, id)?;
            if !database_exists(conns, &db).await? {
                return Ok(None);
            }
            let c = conns.client(Some(&db)).await?;
            let row = c
                .query_opt("SELECT pg_catalog.pg_get_userbyid(nspowner) FROM pg_catalog.pg_namespace WHERE nspname = $1", &[&name])
                .await
                .map_err(sql_err("reading the schema"))?;
            Ok(row.map(|r| {
                let owner: String = r.get(0);
                // `policies` is a required output of the schema: an empty list, never set on read.
                obj(json!({"id": id, "name": name, "owner": owner, "database": db, "policies": []}))
            }))
        }
        Kind::Extension => {
            let (db, name) = split_id(kind, id)?;
            if !database_exists(conns, &db).await? {
                return Ok(None);
            }
            let c = conns.client(Some(&db)).await?;
            let row = c
                .query_opt(
                    "SELECT n.nspname, e.extversion FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1",
                    &[&name],
                )
                .await
                .map_err(sql_err("reading the extension"))?;
            Ok(row.map(|r| {
                let (schema, version): (String, String) = (r.get(0), r.get(1));
                obj(json!({"id": id, "name": name, "schema": schema, "version": version, "database": db}))
            }))
        }
    }
}

fn obj(v: Value) -> Props {
    match v {
        Value::Object(o) => o,
        _ => unreachable!("built as an object"),
    }
}

async fn database_exists(conns: &Connections, db: &str) -> SqlResult<bool> {
    let c = conns.client(None).await?;
    let row = c
        .query_opt("SELECT 1 FROM pg_catalog.pg_database WHERE datname = $1", &[&db])
        .await
        .map_err(sql_err("looking up the database"))?;
    Ok(row.is_some())
}

async fn read_role(conns: &Connections, id: &str, state: &Props) -> SqlResult<Option<Props>> {
    let c = conns.client(None).await?;
    let row = c
        .query_opt(
            "SELECT ARRAY(SELECT pg_catalog.pg_get_userbyid(m.roleid) FROM pg_catalog.pg_auth_members m WHERE m.member = r.oid ORDER BY 1),
                    r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, r.rolconnlimit,
                    COALESCE(r.rolvaliduntil::text, 'infinity'), COALESCE(r.rolconfig, '{}'::text[]), r.rolreplication, r.rolbypassrls
             FROM pg_catalog.pg_roles r WHERE r.rolname = $1",
            &[&id],
        )
        .await
        .map_err(sql_err("reading the role"))?;
    let Some(r) = row else { return Ok(None) };
    let roles: Vec<String> = r.get(0);
    let name: String = r.get(1);
    let login: bool = r.get(6);
    let config: Vec<String> = r.get(9);
    let setting = |key: &str| {
        config.iter().find_map(|c| c.strip_prefix(&format!("{key}=")).map(str::to_string))
    };
    let search_paths: Vec<String> = setting("search_path")
        .map(|s| s.split(", ").map(|p| p.trim_matches('"').to_string()).collect())
        .unwrap_or_default();
    let timeout = |key: &str| -> SqlResult<i64> {
        setting(key).map_or(Ok(0), |v| {
            v.parse::<i64>()
                .map_err(|_| format!("the role's {key} `{v}` is not a number of milliseconds"))
        })
    };
    let state_password = str_prop(state, "password").unwrap_or_default();
    let password = if login && conns.settings.superuser {
        let stored: Option<String> = c
            .query_opt("SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolname = $1", &[&id])
            .await
            .map_err(sql_err("reading the role's password (set `superuser: false` in the provider's configuration if the connecting role is not a superuser)"))?
            .and_then(|r| r.get::<_, Option<String>>(0));
        let stored = stored.unwrap_or_default();
        // A plain password in state that the server holds as a SCRAM verifier cannot be
        // compared without a login; like the Terraform provider, keep the one in state.
        if !state_password.is_empty()
            && !state_password.starts_with("md5")
            && !state_password.starts_with("SCRAM-SHA-256")
            && stored.starts_with("SCRAM-SHA-256")
        {
            state_password
        } else {
            stored
        }
    } else {
        state_password
    };
    Ok(Some(obj(json!({
        "id": name,
        "name": name,
        "superuser": r.get::<_, bool>(2),
        "inherit": r.get::<_, bool>(3),
        "createRole": r.get::<_, bool>(4),
        "createDatabase": r.get::<_, bool>(5),
        "login": login,
        "connectionLimit": r.get::<_, i32>(7),
        "validUntil": r.get::<_, String>(8),
        "replication": r.get::<_, bool>(10),
        "bypassRowLevelSecurity": r.get::<_, bool>(11),
        "encryptedPassword": true,
        "roles": roles,
        "searchPaths": search_paths,
        "statementTimeout": timeout("statement_timeout")?,
        "idleInTransactionSessionTimeout": timeout("idle_in_transaction_session_timeout")?,
        "assumeRole": setting("role").unwrap_or_default(),
        "skipDropRole": bool_prop(state, "skipDropRole", false),
        "skipReassignOwned": bool_prop(state, "skipReassignOwned", false),
        "password": password,
    }))))
}

async fn read_database(conns: &Connections, id: &str, state: &Props) -> SqlResult<Option<Props>> {
    let c = conns.client(None).await?;
    let row = c
        .query_opt(
            "SELECT d.datname, pg_catalog.pg_get_userbyid(d.datdba), pg_catalog.pg_encoding_to_char(d.encoding), d.datcollate::text, d.datctype::text,
                    ts.spcname, d.datconnlimit, d.datallowconn, d.datistemplate
             FROM pg_catalog.pg_database d JOIN pg_catalog.pg_tablespace ts ON ts.oid = d.dattablespace WHERE d.datname = $1",
            &[&id],
        )
        .await
        .map_err(sql_err("reading the database"))?;
    Ok(row.map(|r| {
        let name: String = r.get(0);
        obj(json!({
            "id": name,
            "name": name,
            "owner": r.get::<_, String>(1),
            "encoding": r.get::<_, String>(2),
            "lcCollate": r.get::<_, String>(3),
            "lcCtype": r.get::<_, String>(4),
            "tablespaceName": r.get::<_, String>(5),
            "connectionLimit": r.get::<_, i32>(6),
            "allowConnections": r.get::<_, bool>(7),
            "isTemplate": r.get::<_, bool>(8),
            "template": str_prop(state, "template").unwrap_or_else(|| "template0".into()),
        }))
    }))
}

/// One object `List` found: its import ID and a name for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub id: String,
    pub name: String,
}

/// Every object of a kind, ordered by ID. `database` narrows schemas and extensions to one
/// database; otherwise every database that accepts connections is searched. System objects
/// (`pg_*` roles, template databases, `pg_catalog`/`information_schema`/temporary schemas) are
/// left out: nobody imports them.
pub async fn list(
    conns: &Connections,
    kind: Kind,
    name_prefix: &str,
    database: Option<&str>,
) -> SqlResult<Vec<Listed>> {
    let c = conns.client(None).await?;
    let pattern =
        format!("{}%", name_prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let mut found = Vec::new();
    match kind {
        Kind::Role => {
            let rows = c
                .query("SELECT rolname FROM pg_catalog.pg_roles WHERE rolname NOT LIKE 'pg\\_%' AND rolname LIKE $1 ORDER BY rolname", &[&pattern])
                .await
                .map_err(sql_err("listing roles"))?;
            found.extend(
                rows.iter()
                    .map(|r| r.get::<_, String>(0))
                    .map(|n| Listed { id: n.clone(), name: n }),
            );
        }
        Kind::Database => {
            let rows = c
                .query("SELECT datname FROM pg_catalog.pg_database WHERE NOT datistemplate AND datname LIKE $1 ORDER BY datname", &[&pattern])
                .await
                .map_err(sql_err("listing databases"))?;
            found.extend(
                rows.iter()
                    .map(|r| r.get::<_, String>(0))
                    .map(|n| Listed { id: n.clone(), name: n }),
            );
        }
        Kind::Schema | Kind::Extension => {
            let databases: Vec<String> = match database.filter(|d| !d.is_empty()) {
                Some(d) => vec![d.to_string()],
                None => c
                    .query("SELECT datname FROM pg_catalog.pg_database WHERE datallowconn AND NOT datistemplate ORDER BY datname", &[])
                    .await
                    .map_err(sql_err("listing databases"))?
                    .iter()
                    .map(|r| r.get(0))
                    .collect(),
            };
            for db in databases {
                let dc = conns.client(Some(&db)).await?;
                let sql = if kind == Kind::Schema {
                    "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' AND nspname LIKE $1 ORDER BY nspname"
                } else {
                    "SELECT extname FROM pg_catalog.pg_extension WHERE extname LIKE $1 ORDER BY extname"
                };
                let rows = dc.query(sql, &[&pattern]).await.map_err(sql_err("listing"))?;
                found.extend(
                    rows.iter()
                        .map(|r| r.get::<_, String>(0))
                        .map(|n| Listed { id: format!("{db}.{n}"), name: format!("{db}_{n}") }),
                );
            }
        }
    }
    Ok(found)
}

async fn exec(c: &Client, sql: &str, what: &str) -> SqlResult<()> {
    c.batch_execute(sql).await.map_err(sql_err(what))
}

fn role_options(p: &Props) -> String {
    let flag = |on: bool, yes: &str, no: &str| if on { yes.to_string() } else { no.to_string() };
    let mut opts = vec![
        flag(bool_prop(p, "superuser", false), "SUPERUSER", "NOSUPERUSER"),
        flag(bool_prop(p, "createDatabase", false), "CREATEDB", "NOCREATEDB"),
        flag(bool_prop(p, "createRole", false), "CREATEROLE", "NOCREATEROLE"),
        flag(bool_prop(p, "inherit", true), "INHERIT", "NOINHERIT"),
        flag(bool_prop(p, "login", false), "LOGIN", "NOLOGIN"),
        flag(bool_prop(p, "replication", false), "REPLICATION", "NOREPLICATION"),
        flag(bool_prop(p, "bypassRowLevelSecurity", false), "BYPASSRLS", "NOBYPASSRLS"),
        format!("CONNECTION LIMIT {}", int_prop(p, "connectionLimit", -1)),
    ];
    let valid = str_prop(p, "validUntil").unwrap_or_else(|| "infinity".into());
    opts.push(format!(
        "VALID UNTIL {}",
        literal(if valid.eq_ignore_ascii_case("infinity") { "infinity" } else { &valid })
    ));
    opts.join(" ")
}

fn password_clause(p: &Props) -> Option<String> {
    let password = str_prop(p, "passwordWo").or_else(|| str_prop(p, "password"))?;
    Some(if password.eq_ignore_ascii_case("NULL") {
        "PASSWORD NULL".into()
    } else {
        format!("PASSWORD {}", literal(&password))
    })
}

/// The per-role settings, memberships and search path a role's inputs ask for.
fn role_settings(name: &str, p: &Props, current_roles: &[String]) -> Vec<String> {
    let role = ident(name);
    let mut sql = Vec::new();
    let wanted = list_prop(p, "roles");
    for r in current_roles.iter().filter(|r| !wanted.contains(r)) {
        sql.push(format!("REVOKE {} FROM {role}", ident(r)));
    }
    for r in wanted.iter().filter(|r| !current_roles.contains(r)) {
        sql.push(format!("GRANT {} TO {role}", ident(r)));
    }
    let paths = list_prop(p, "searchPaths");
    sql.push(if paths.is_empty() {
        format!("ALTER ROLE {role} RESET search_path")
    } else {
        format!(
            "ALTER ROLE {role} SET search_path TO {}",
            paths.iter().map(|s| ident(s)).collect::<Vec<_>>().join(", ")
        )
    });
    for (prop, setting) in [
        ("statementTimeout", "statement_timeout"),
        ("idleInTransactionSessionTimeout", "idle_in_transaction_session_timeout"),
    ] {
        let ms = int_prop(p, prop, 0);
        sql.push(if ms == 0 {
            format!("ALTER ROLE {role} RESET {setting}")
        } else {
            format!("ALTER ROLE {role} SET {setting} TO {ms}")
        });
    }
    sql.push(match str_prop(p, "assumeRole") {
        Some(r) => format!("ALTER ROLE {role} SET role TO {}", ident(&r)),
        None => format!("ALTER ROLE {role} RESET role"),
    });
    sql
}

fn database_of(conns: &Connections, p: &Props) -> String {
    str_prop(p, "database").unwrap_or_else(|| conns.settings.database.clone())
}

/// Creates the object; returns its ID.
pub async fn create(conns: &Connections, kind: Kind, p: &Props) -> SqlResult<String> {
    let name = str_prop(p, "name").ok_or("a name is needed")?;
    match kind {
        Kind::Role => {
            let c = conns.client(None).await?;
            let mut sql = format!("CREATE ROLE {} WITH {}", ident(&name), role_options(p));
            if let Some(pw) = password_clause(p) {
                sql.push(' ');
                sql.push_str(&pw);
            }
            let mut statements = vec![sql];
            statements.extend(role_settings(&name, p, &[]));
            in_transaction(&c, &statements, "creating the role").await?;
            Ok(name)
        }
        Kind::Database => {
            let c = conns.client(None).await?;
            let mut sql = format!("CREATE DATABASE {}", ident(&name));
            let owner = str_prop(p, "owner").unwrap_or_else(|| conns.settings.username.clone());
            sql.push_str(&format!(" OWNER {}", ident(&owner)));
            let template = str_prop(p, "template").unwrap_or_else(|| "template0".into());
            sql.push_str(&if template.eq_ignore_ascii_case("DEFAULT") {
                " TEMPLATE DEFAULT".into()
            } else {
                format!(" TEMPLATE {}", ident(&template))
            });
            let encoding = str_prop(p, "encoding").unwrap_or_else(|| "UTF8".into());
            sql.push_str(&if encoding.eq_ignore_ascii_case("DEFAULT") {
                " ENCODING DEFAULT".into()
            } else {
                format!(" ENCODING {}", literal(&encoding))
            });
            for (prop, clause) in [("lcCollate", "LC_COLLATE"), ("lcCtype", "LC_CTYPE")] {
                if let Some(v) = str_prop(p, prop).filter(|v| !v.eq_ignore_ascii_case("DEFAULT")) {
                    sql.push_str(&format!(" {clause} {}", literal(&v)));
                }
            }
            if let Some(ts) =
                str_prop(p, "tablespaceName").filter(|v| !v.eq_ignore_ascii_case("DEFAULT"))
            {
                sql.push_str(&format!(" TABLESPACE {}", ident(&ts)));
            }
            sql.push_str(&format!(
                " ALLOW_CONNECTIONS {} CONNECTION LIMIT {} IS_TEMPLATE {}",
                bool_prop(p, "allowConnections", true),
                int_prop(p, "connectionLimit", -1),
                bool_prop(p, "isTemplate", false)
            ));
            exec(&c, &sql, "creating the database").await?;
            Ok(name)
        }
        Kind::Schema => {
            let db = database_of(conns, p);
            let c = conns.client(Some(&db)).await?;
            let mut sql = format!(
                "CREATE SCHEMA {}{}",
                if bool_prop(p, "ifNotExists", true) { "IF NOT EXISTS " } else { "" },
                ident(&name)
            );
            if let Some(owner) = str_prop(p, "owner") {
                sql.push_str(&format!(" AUTHORIZATION {}", ident(&owner)));
            }
            exec(&c, &sql, "creating the schema").await?;
            Ok(format!("{db}.{name}"))
        }
        Kind::Extension => {
            let db = database_of(conns, p);
            let c = conns.client(Some(&db)).await?;
            let mut sql = format!("CREATE EXTENSION IF NOT EXISTS {}", ident(&name));
            if let Some(s) = str_prop(p, "schema") {
                sql.push_str(&format!(" SCHEMA {}", ident(&s)));
            }
            if let Some(v) = str_prop(p, "version") {
                sql.push_str(&format!(" VERSION {}", literal(&v)));
            }
            if bool_prop(p, "createCascade", false) {
                sql.push_str(" CASCADE");
            }
            exec(&c, &sql, "creating the extension").await?;
            Ok(format!("{db}.{name}"))
        }
    }
}

async fn in_transaction(c: &Client, statements: &[String], what: &str) -> SqlResult<()> {
    let mut sql = String::from("BEGIN;\n");
    for s in statements {
        sql.push_str(s);
        sql.push_str(";\n");
    }
    sql.push_str("COMMIT;");
    if let Err(e) = c.batch_execute(&sql).await {
        let _ = c.batch_execute("ROLLBACK").await;
        return Err(sql_err(what)(e));
    }
    Ok(())
}

/// Changes the object from `olds` (outputs) to `news` (inputs); returns its (possibly new) ID.
pub async fn update(
    conns: &Connections,
    kind: Kind,
    id: &str,
    olds: &Props,
    news: &Props,
) -> SqlResult<String> {
    let old_name = str_prop(olds, "name").unwrap_or_default();
    let name = str_prop(news, "name").unwrap_or_else(|| old_name.clone());
    let renamed = name != old_name;
    match kind {
        Kind::Role => {
            let c = conns.client(None).await?;
            let mut statements = Vec::new();
            if renamed {
                statements.push(format!(
                    "ALTER ROLE {} RENAME TO {}",
                    ident(&old_name),
                    ident(&name)
                ));
            }
            let mut alter = format!("ALTER ROLE {} WITH {}", ident(&name), role_options(news));
            let password_changed = str_prop(olds, "password") != str_prop(news, "password")
                || str_prop(news, "passwordWo").is_some()
                || renamed;
            if password_changed {
                if let Some(pw) = password_clause(news) {
                    alter.push(' ');
                    alter.push_str(&pw);
                }
            }
            statements.push(alter);
            statements.extend(role_settings(&name, news, &list_prop(olds, "roles")));
            in_transaction(&c, &statements, "changing the role").await?;
            Ok(name)
        }
        Kind::Database => {
            let c = conns.client(None).await?;
            let db = ident(&name);
            let mut statements = Vec::new();
            if renamed {
                statements.push(format!("ALTER DATABASE {} RENAME TO {db}", ident(&old_name)));
            }
            if let Some(owner) =
                str_prop(news, "owner").filter(|o| Some(o) != str_prop(olds, "owner").as_ref())
            {
                statements.push(format!("ALTER DATABASE {db} OWNER TO {}", ident(&owner)));
            }
            if let Some(ts) = str_prop(news, "tablespaceName")
                .filter(|t| Some(t) != str_prop(olds, "tablespaceName").as_ref())
            {
                statements.push(if ts.eq_ignore_ascii_case("DEFAULT") {
                    format!("ALTER DATABASE {db} SET TABLESPACE pg_default")
                } else {
                    format!("ALTER DATABASE {db} SET TABLESPACE {}", ident(&ts))
                });
            }
            statements.push(format!(
                "ALTER DATABASE {db} CONNECTION LIMIT {}",
                int_prop(news, "connectionLimit", -1)
            ));
            statements.push(format!(
                "ALTER DATABASE {db} ALLOW_CONNECTIONS {}",
                bool_prop(news, "allowConnections", true)
            ));
            if let Some(t) = news.get("isTemplate").and_then(Value::as_bool) {
                statements.push(format!("ALTER DATABASE {db} IS_TEMPLATE {t}"));
            }
            // ALTER DATABASE cannot run in a transaction block with a rename or tablespace move.
            for s in statements {
                exec(&c, &s, "changing the database").await?;
            }
            Ok(name)
        }
        Kind::Schema => {
            let (db, _) = split_id(kind, id)?;
            let c = conns.client(Some(&db)).await?;
            let mut statements = Vec::new();
            if renamed {
                statements.push(format!(
                    "ALTER SCHEMA {} RENAME TO {}",
                    ident(&old_name),
                    ident(&name)
                ));
            }
            if let Some(owner) =
                str_prop(news, "owner").filter(|o| Some(o) != str_prop(olds, "owner").as_ref())
            {
                statements.push(format!(
                    "ALTER SCHEMA {} OWNER TO {}",
                    ident(&name),
                    ident(&owner)
                ));
            }
            in_transaction(&c, &statements, "changing the schema").await?;
            Ok(format!("{db}.{name}"))
        }
        Kind::Extension => {
            let (db, _) = split_id(kind, id)?;
            let c = conns.client(Some(&db)).await?;
            let mut statements = Vec::new();
            if let Some(s) =
                str_prop(news, "schema").filter(|s| Some(s) != str_prop(olds, "schema").as_ref())
            {
                statements.push(format!(
                    "ALTER EXTENSION {} SET SCHEMA {}",
                    ident(&name),
                    ident(&s)
                ));
            }
            if let Some(v) =
                str_prop(news, "version").filter(|v| Some(v) != str_prop(olds, "version").as_ref())
            {
                statements.push(format!(
                    "ALTER EXTENSION {} UPDATE TO {}",
                    ident(&name),
                    literal(&v)
                ));
            }
            in_transaction(&c, &statements, "changing the extension").await?;
            Ok(id.to_string())
        }
    }
}

/// Drops the object (what `skipDropRole`, `skipReassignOwned` and the cascade flags allow).
pub async fn delete(conns: &Connections, kind: Kind, id: &str, olds: &Props) -> SqlResult<()> {
    match kind {
        Kind::Role => {
            let c = conns.client(None).await?;
            let role = ident(id);
            let mut statements = Vec::new();
            if !bool_prop(olds, "skipReassignOwned", false) {
                statements.push(format!("REASSIGN OWNED BY {role} TO CURRENT_USER"));
                statements.push(format!("DROP OWNED BY {role}"));
            }
            if !bool_prop(olds, "skipDropRole", false) {
                statements.push(format!("DROP ROLE {role}"));
            }
            in_transaction(&c, &statements, "dropping the role").await
        }
        Kind::Database => {
            let c = conns.client(None).await?;
            if bool_prop(olds, "isTemplate", false) {
                exec(
                    &c,
                    &format!("ALTER DATABASE {} IS_TEMPLATE false", ident(id)),
                    "dropping the database",
                )
                .await?;
            }
            exec(&c, &format!("DROP DATABASE {}", ident(id)), "dropping the database").await
        }
        Kind::Schema | Kind::Extension => {
            let (db, name) = split_id(kind, id)?;
            let c = conns.client(Some(&db)).await?;
            let what = if kind == Kind::Schema { "SCHEMA" } else { "EXTENSION" };
            let mode = if bool_prop(olds, "dropCascade", false) { "CASCADE" } else { "RESTRICT" };
            exec(&c, &format!("DROP {what} IF EXISTS {} {mode}", ident(&name)), "dropping").await
        }
    }
}
