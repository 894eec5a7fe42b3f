//! Which server to talk to and as whom: the provider's settings, read as the real provider reads
//! them (provider config first, then the libpq environment variables, then defaults), and one
//! connection per database, opened on first use.
//!
//! The plugin speaks plain TCP: `sslmode` `disable`, `allow` and `prefer` connect without TLS;
//! `require`, `verify-ca` and `verify-full` are refused by name at Configure rather than silently
//! downgraded.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

pub struct Setting {
    pub name: &'static str,
    pub ty: &'static str,
    pub env: Option<&'static str>,
    pub secret: bool,
    pub deprecated: Option<&'static str>,
    pub description: &'static str,
    /// Ferry's plugin reads it; the others are accepted only when unset or off.
    pub supported: bool,
}

const fn setting(
    name: &'static str,
    ty: &'static str,
    env: Option<&'static str>,
    description: &'static str,
) -> Setting {
    Setting { name, ty, env, secret: false, deprecated: None, description, supported: true }
}

const fn unsupported(name: &'static str, ty: &'static str, description: &'static str) -> Setting {
    Setting { name, ty, env: None, secret: false, deprecated: None, description, supported: false }
}

/// Every provider setting of `@pulumi/postgresql` that is a plain value.
pub const SETTINGS: &[Setting] = &[
    setting("host", "string", Some("PGHOST"), "The server's host name or address. Default: `localhost`."),
    setting("port", "integer", Some("PGPORT"), "The server's port. Default: 5432."),
    setting("username", "string", Some("PGUSER"), "The role to connect as. Default: `postgres`."),
    Setting { secret: true, ..setting("password", "string", Some("PGPASSWORD"), "The password of that role.") },
    setting("database", "string", Some("PGDATABASE"), "The database to connect to. Default: `postgres`."),
    setting("databaseUsername", "string", None, "The role name the server knows the connecting user by, when it differs (user name maps)."),
    setting(
        "sslmode",
        "string",
        Some("PGSSLMODE"),
        "Whether to use TLS (libpq's `sslmode`). Ferry's plugin connects without TLS: `disable`, `allow` or `prefer`.",
    ),
    Setting { deprecated: Some("Rename PostgreSQL provider `sslMode` option to `sslmode`"), ..setting("sslMode", "string", None, "Older name of `sslmode`.") },
    setting("superuser", "boolean", None, "Whether the connecting role is a superuser; if so, login roles' password hashes are read back. Default: true."),
    setting("connectTimeout", "integer", Some("PGCONNECT_TIMEOUT"), "Seconds to wait for a connection; 0 waits indefinitely. Default: 180."),
    setting("maxConnections", "integer", None, "The most connections to open at once; 0 for no limit."),
    setting("expectedVersion", "string", None, "The server version to expect."),
    setting("scheme", "string", None, "How to reach the server: `postgres` (the only one Ferry's plugin supports)."),
    unsupported("sslrootcert", "string", "A root certificate for TLS (unsupported by Ferry's plugin)."),
    unsupported("awsRdsIamAuth", "boolean", "Authenticate with AWS RDS IAM (unsupported by Ferry's plugin)."),
    unsupported("awsRdsIamProfile", "string", "AWS profile for RDS IAM authentication (unsupported)."),
    unsupported("awsRdsIamProviderRoleArn", "string", "AWS role to assume for RDS IAM authentication (unsupported)."),
    unsupported("awsRdsIamRegion", "string", "AWS region for RDS IAM authentication (unsupported)."),
    unsupported("azureIdentityAuth", "boolean", "Authenticate with an Azure identity (unsupported)."),
    unsupported("azureTenantId", "string", "Azure tenant for identity authentication (unsupported)."),
    unsupported("gcpIamImpersonateServiceAccount", "string", "GCP service account to impersonate (unsupported)."),
];

/// The settings in force after Configure.
#[derive(Clone, Debug)]
pub struct Settings {
    pub host: String,
    pub port: u16,
    pub username: String,
    pub password: Option<String>,
    pub database: String,
    pub superuser: bool,
    pub connect_timeout: u64,
}

/// Reads the settings from the provider's configuration (already unwrapped of secrets), then
/// the environment; every problem is reported by setting name.
pub fn settings(
    config: &serde_json::Map<String, Value>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Settings, Vec<(String, String)>> {
    let mut problems = Vec::new();
    for (k, v) in config {
        if v.is_null() || k.starts_with("__") || k == "version" || k == "pluginDownloadURL" {
            continue;
        }
        let Some(s) = SETTINGS.iter().find(|s| s.name == k) else {
            if k != "clientcert" {
                problems.push((
                    k.clone(),
                    format!("`{k}` is not a setting of the postgresql provider"),
                ));
            } else {
                problems.push((
                    k.clone(),
                    "client certificates need TLS, which Ferry's postgresql plugin does not speak"
                        .into(),
                ));
            }
            continue;
        };
        let on = !matches!(v, Value::Bool(false)) && v.as_str() != Some("");
        if !s.supported && on {
            problems
                .push((k.clone(), format!("`{k}` is not supported by Ferry's postgresql plugin")));
        }
    }
    // Pulumi passes config values as strings when they come from `pulumi config set`.
    let text = |name: &str, env_name: Option<&str>| -> Option<String> {
        match config.get(name) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            // Numbers arrive as floats over the wire: 5432.0 is port 5432.
            Some(Value::Number(n)) => Some(
                n.as_f64()
                    .filter(|f| f.fract() == 0.0)
                    .map(|f| (f as i64).to_string())
                    .unwrap_or_else(|| n.to_string()),
            ),
            Some(Value::Bool(b)) => Some(b.to_string()),
            _ => env_name.and_then(&env).filter(|s| !s.is_empty()),
        }
    };
    let port = match text("port", Some("PGPORT")).map(|p| p.parse::<u16>()) {
        None => 5432,
        Some(Ok(p)) => p,
        Some(Err(_)) => {
            problems.push(("port".into(), "must be a port number (1-65535)".into()));
            5432
        }
    };
    let connect_timeout = match text("connectTimeout", Some("PGCONNECT_TIMEOUT"))
        .map(|p| p.parse::<u64>())
    {
        None => 180,
        Some(Ok(t)) => t,
        Some(Err(_)) => {
            problems.push(("connectTimeout".into(), "must be a whole number of seconds".into()));
            180
        }
    };
    let superuser = match text("superuser", None).as_deref() {
        None | Some("true") => true,
        Some("false") => false,
        Some(other) => {
            problems.push(("superuser".into(), format!("must be true or false, found `{other}`")));
            true
        }
    };
    let sslmode = text("sslmode", Some("PGSSLMODE")).or_else(|| text("sslMode", None));
    match sslmode.as_deref() {
        None | Some("disable" | "allow" | "prefer") => {}
        Some(mode @ ("require" | "verify-ca" | "verify-full")) => problems.push((
            "sslmode".into(),
            format!("`{mode}` needs TLS, which Ferry's postgresql plugin does not speak; use `disable` for a server reached without TLS"),
        )),
        Some(other) => problems.push(("sslmode".into(), format!("`{other}` is not an sslmode (disable, allow, prefer, require, verify-ca, verify-full)"))),
    }
    if let Some(scheme) = text("scheme", None) {
        if scheme != "postgres" {
            problems.push((
                "scheme".into(),
                format!("`{scheme}` is not supported; Ferry's plugin connects with `postgres`"),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Settings {
        host: text("host", Some("PGHOST")).unwrap_or_else(|| "localhost".into()),
        port,
        username: text("username", Some("PGUSER")).unwrap_or_else(|| "postgres".into()),
        password: text("password", Some("PGPASSWORD")),
        database: text("database", Some("PGDATABASE")).unwrap_or_else(|| "postgres".into()),
        superuser,
        connect_timeout,
    })
}

/// One client per database, opened when first needed and reopened if it closed.
pub struct Connections {
    pub settings: Settings,
    clients: Mutex<HashMap<String, std::sync::Arc<Client>>>,
}

impl Connections {
    pub fn new(settings: Settings) -> Connections {
        Connections { settings, clients: Mutex::new(HashMap::new()) }
    }

    /// A client connected to `database` (the provider's own database when `None`).
    pub async fn client(&self, database: Option<&str>) -> Result<std::sync::Arc<Client>, String> {
        let database =
            database.filter(|d| !d.is_empty()).unwrap_or(&self.settings.database).to_string();
        let mut clients = self.clients.lock().await;
        if let Some(c) = clients.get(&database) {
            if !c.is_closed() {
                return Ok(c.clone());
            }
        }
        let s = &self.settings;
        let mut config = tokio_postgres::Config::new();
        config
            .host(&s.host)
            .port(s.port)
            .user(&s.username)
            .dbname(&database)
            .application_name("pulumi-resource-postgresql (Ferry)");
        if let Some(p) = &s.password {
            config.password(p);
        }
        if s.connect_timeout > 0 {
            config.connect_timeout(Duration::from_secs(s.connect_timeout));
        }
        let (client, connection) = config.connect(NoTls).await.map_err(|e| {
            format!(
                "could not connect to PostgreSQL at {}:{} as `{}` (database `{database}`): {e}",
                s.host, s.port, s.username
            )
        })?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let client = std::sync::Arc::new(client);
        clients.insert(database, client.clone());
        Ok(client)
    }
}

/// `"name"`, with embedded quotes doubled.
pub fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `'text'`, with embedded quotes doubled (the server runs with standard-conforming strings).
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
