//! Scratch stores for tests: empty, private, and in the database a test run chose.
//!
//! `FERRY_TEST_DATABASE_URL` unset: an in-memory SQLite store. Set to a `postgres://` URL: a
//! new schema of its own in that database (made here, named `ferry_t_<random>`), so that tests
//! running at once never see each other's rows. The test command runs the API suite both ways.

use crate::{random_id, Store, StoreError};

/// The PostgreSQL database the store's own tests use: `FERRY_TEST_POSTGRES_URL`, or the
/// machine's server (`postgres://postgres@127.0.0.1:5432/ferry_test`, made if missing).
pub fn postgres_url() -> String {
    std::env::var("FERRY_TEST_POSTGRES_URL").ok().filter(|url| !url.is_empty()).unwrap_or_else(
        || "postgres://postgres@127.0.0.1:5432/ferry_test?sslmode=disable".to_string(),
    )
}

/// An empty store in the database this test run uses (see the module's documentation).
pub async fn scratch() -> Result<Store, StoreError> {
    match std::env::var("FERRY_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => scratch_postgres(&url).await,
        _ => Store::open_in_memory().await,
    }
}

/// An empty store in a new schema of the PostgreSQL database `url` (made if missing).
pub async fn scratch_postgres(url: &str) -> Result<Store, StoreError> {
    Store::connect(&scratch_postgres_url(url).await?).await
}

/// The URL of a new, empty schema of the PostgreSQL database `url` (made if missing): what a
/// test hands to a `ferry` command's `--database-url`.
pub async fn scratch_postgres_url(url: &str) -> Result<String, StoreError> {
    use sqlx::migrate::MigrateDatabase;
    sqlx::any::install_default_drivers();
    if !sqlx::Any::database_exists(url).await? {
        // Tests starting at once may race to make it; the loser finds it made.
        if let Err(e) = sqlx::Any::create_database(url).await {
            if !sqlx::Any::database_exists(url).await? {
                return Err(e.into());
            }
        }
    }
    let schema = format!("ferry_t_{}", &random_id()[..16]);
    {
        use sqlx::Connection;
        let mut conn = sqlx::AnyConnection::connect(url).await?;
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await?;
        conn.close().await?;
    }
    let separator = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{separator}options=-c%20search_path%3D{schema}"))
}
