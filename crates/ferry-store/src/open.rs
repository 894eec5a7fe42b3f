//! Opening a store: SQLite (a file, or private in memory) or PostgreSQL by URL, its schema
//! brought up to date, its write transactions, and the clock it reads.

use std::path::Path;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::Executor;

use crate::{hash_secret, random_id, Clock, Dialect, Store, StoreError};

pub(crate) static SQLITE_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("./migrations/sqlite");
pub(crate) static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("./migrations/postgres");

impl Store {
    /// Opens (creating if needed) the SQLite store file and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let path = path.to_str().ok_or_else(|| {
            StoreError::UnsupportedDatabase(format!(
                "a store file whose path is not UTF-8: {}",
                path.display()
            ))
        })?;
        Self::connect(&format!("sqlite://{}?mode=rwc", encode_path(path))).await
    }

    /// A private in-memory SQLite store (tests, one-shot CLI runs).
    pub async fn open_in_memory() -> Result<Store, StoreError> {
        // A named shared-cache database, held by the pool's one connection, which never
        // closes: every connection to `:memory:` would be a database of its own.
        Self::connect_sqlite(
            &format!("sqlite:file:ferry-{}?mode=memory&cache=shared", random_id()),
            1,
        )
        .await
    }

    /// Opens the store a URL names: `postgres://…` (or `postgresql://…`), or `sqlite://<file>`.
    /// The schema is brought up to date; in PostgreSQL, instances migrating at once take turns
    /// (sqlx holds an advisory lock while it migrates).
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = AnyPoolOptions::new()
                .max_connections(16)
                .acquire_timeout(Duration::from_secs(30))
                .connect(url)
                .await?;
            POSTGRES_MIGRATIONS.run(&pool).await?;
            hash_legacy_share_tokens(&pool).await?;
            Ok(Store {
                pool,
                dialect: Dialect::Postgres,
                url: Some(url.to_string()),
                clock: Clock::system(),
            })
        } else if url.starts_with("sqlite:") {
            Self::connect_sqlite(url, 4).await
        } else {
            Err(StoreError::UnsupportedDatabase(redact_url(url)))
        }
    }

    async fn connect_sqlite(url: &str, max: u32) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let in_memory = url.contains("mode=memory");
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            .min_connections(if in_memory { 1 } else { 0 })
            .idle_timeout(if in_memory { None } else { Some(Duration::from_secs(600)) })
            .max_lifetime(if in_memory { None } else { Some(Duration::from_secs(1800)) })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    // WAL with NORMAL sync: a commit survives the process being killed; readers
                    // never wait for the writer; a second writer waits up to 5 s.
                    let journal = if in_memory {
                        ""
                    } else {
                        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                    };
                    conn.execute(
                        format!("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; {journal}")
                            .as_str(),
                    )
                    .await?;
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        SQLITE_MIGRATIONS.run(&pool).await?;
        hash_legacy_share_tokens(&pool).await?;
        Ok(Store { pool, dialect: Dialect::Sqlite, url: None, clock: Clock::system() })
    }

    /// A write transaction. SQLite's take the write lock at `BEGIN` (`IMMEDIATE`): a deferred
    /// one that reads first cannot upgrade once another connection committed, and fails at once
    /// with "database is locked" instead of waiting its turn (the busy timeout never applies).
    pub(crate) async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        match self.dialect {
            Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Dialect::Postgres => self.pool.begin().await,
        }
    }

    /// Which database this store is in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// This store, writing and comparing times read from `clock` (the system's by default).
    pub fn with_clock(mut self, clock: Clock) -> Store {
        self.clock = clock;
        self
    }

    /// The clock this store reads.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// Share links made before the store hashed their tokens hold the token as their ID: each gets
/// its token's hash and a new ID, so the link keeps working and the token is no longer kept.
/// (Once per link: a link with a hash is never touched again; two instances doing it at once
/// each update only rows still without one.)
pub(crate) async fn hash_legacy_share_tokens(pool: &sqlx::AnyPool) -> Result<(), StoreError> {
    let legacy: Vec<String> =
        sqlx::query_scalar("SELECT id FROM plan_shares WHERE token_hash IS NULL")
            .fetch_all(pool)
            .await?;
    for token in legacy {
        sqlx::query(
            "UPDATE plan_shares SET id = $1, token_hash = $2 WHERE id = $3 AND token_hash IS NULL",
        )
        .bind(random_id())
        .bind(hash_secret(&token))
        .bind(&token)
        .execute(pool)
        .await?;
    }
    Ok(())
}

/// A store file's path as a `sqlite://` URL path: `?`, `#` and `%` would otherwise end or change it.
fn encode_path(path: &str) -> String {
    path.replace('%', "%25").replace('?', "%3F").replace('#', "%23")
}

/// A database URL without its password, for messages and logs.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.find(':') {
                Some(colon) => {
                    format!("{}{}:***{}", &url[..scheme + 3], &credentials[..colon], &url[at..])
                }
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}
