//! Ferry's store: stacks and their immutable versions, plans, reviews and accounts, in one
//! SQLite file (the embedded default) or in PostgreSQL (`--database-url`), through one code path.
//!
//! Architecture Invariant: a stack version, once written, is never changed or removed
//! (enforced by triggers in both schemas); every write happens in one transaction. Both
//! databases get the same migrations (`migrations/sqlite`, `migrations/postgres`: the same
//! versions, each in its dialect) and the same SQL: `$n` parameters, no booleans (integers), and
//! times as RFC 3339 text with milliseconds, made by [`clock`], so that they sort as text.

use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

pub mod accounts;
pub mod backend_locks;
pub mod clock;
mod id;
pub mod invitations;
pub mod jobs;
pub mod managed;
mod name;
mod open;
mod packed;
pub mod packed_runs;
pub mod plan_lifecycle;
pub mod plans;
pub mod review;
pub mod server_facts;
pub mod testing;
pub mod viewed;
pub mod webhooks;
pub use clock::Clock;
pub use id::{hash_secret, random_id};
pub use name::{InvalidStackName as InvalidStackNameError, StackName};
pub use open::redact_url;

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no stack `{0}`")]
    StackNotFound(String),
    #[error("a stack named `{0}` already exists")]
    StackExists(String),
    #[error("stack `{stack}` has no version {version}")]
    VersionNotFound { stack: String, version: i64 },
    #[error(transparent)]
    InvalidName(#[from] name::InvalidStackName),
    #[error("no preview `{0}`")]
    PreviewNotFound(String),
    #[error("the stack changed since this preview (it was computed against version {base}, the stack is at version {latest}); preview again")]
    StalePreview { base: i64, latest: i64 },
    #[error("this preview was already committed, as version {version}")]
    AlreadyCommitted { version: i64 },
    #[error("no plan `{0}`")]
    PlanNotFound(String),
    #[error("plan `{plan}` has no revision {revision}")]
    PlanRevisionNotFound { plan: String, revision: i64 },
    #[error("no such share link (it may have been revoked)")]
    ShareNotFound,
    #[error("no such invitation (its link may be mistyped, or it was revoked)")]
    InvitationNotFound,
    #[error("no user `{0}`")]
    UserNotFound(String),
    #[error("a user named `{0}` (or with that OpenID subject) already exists")]
    UserExists(String),
    #[error("no comment `{0}`")]
    CommentNotFound(String),
    #[error("no such API token")]
    TokenNotFound,
    #[error("no job `{0}`")]
    JobNotFound(String),
    #[error("no webhook `{0}` in this organisation")]
    WebhookNotFound(String),
    #[error("version {version} of stack `{stack}` is damaged in the store: {why}")]
    DamagedExport { stack: String, version: i64, why: String },
    #[error("preview `{id}` is damaged in the store: {why}")]
    DamagedPreview { id: String, why: String },
    #[error("job `{id}` is damaged in the store: {why}")]
    DamagedJob { id: String, why: String },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("unsupported database URL `{0}`: Ferry keeps its data in SQLite (`sqlite://<file>`) or PostgreSQL (`postgres://…`)")]
    UnsupportedDatabase(String),
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

pub use ferry_types::StackSummary;
pub use packed::PackedJson;

/// One version of a stack, with its state.
#[derive(Debug, Clone)]
pub struct StackVersion {
    pub summary: StackSummary,
    /// `pulumi stack export` JSON (v3, or v4 with features).
    pub export_json: String,
}

/// What a new version is made of.
pub struct NewVersion<'a> {
    pub origin: &'a str,
    pub source_format: &'a str,
    pub resource_count: usize,
    /// `pulumi stack export` JSON, packed by the caller (see [`PackedJson`]).
    pub export: PackedJson,
    /// What the version changes in the index of managed resources ([`managed`]).
    pub managed: managed::ManagedChange,
}

/// A stored preview.
#[derive(Debug, Clone)]
pub struct StoredPreview {
    pub id: String,
    pub stack_id: String,
    pub base_version: i64,
    pub created_at: String,
    pub spec: String,
    pub preview_json: String,
    pub payload: String,
    /// The stack version its commit made, if it was committed.
    pub committed_version: Option<i64>,
}

/// Which database a store is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    dialect: Dialect,
    /// PostgreSQL's URL, for the connection that listens for job changes.
    url: Option<String>,
    /// Where every time the store writes comes from.
    clock: Clock,
}

/// The store's tables, one handle per domain: the stacks (with their versions, previews,
/// managed resources, config and backend locks), the plans (with their review), the jobs, the
/// accounts, and the webhooks. A handle borrows the store; it holds nothing of its own, and
/// reaches the store's pool, transactions and clock through its `store` field.
///
/// Stacks, versions, previews, managed resources, stack config and backend locks.
#[derive(Clone, Copy)]
pub struct StackRows<'s> {
    store: &'s Store,
}

/// Plans, revisions, shares, comments, approvals and review settings.
#[derive(Clone, Copy)]
pub struct PlanRows<'s> {
    store: &'s Store,
}

/// Background jobs, their events and leases.
#[derive(Clone, Copy)]
pub struct JobRows<'s> {
    store: &'s Store,
}

/// Users, memberships, sessions, API tokens, sign-in links, OIDC logins and the audit log.
#[derive(Clone, Copy)]
pub struct AccountRows<'s> {
    store: &'s Store,
}

/// Organisations' webhooks and their deliveries.
#[derive(Clone, Copy)]
pub struct WebhookRows<'s> {
    store: &'s Store,
}

impl Store {
    pub fn stacks(&self) -> StackRows<'_> {
        StackRows { store: self }
    }

    pub fn plans(&self) -> PlanRows<'_> {
        PlanRows { store: self }
    }

    pub fn jobs(&self) -> JobRows<'_> {
        JobRows { store: self }
    }

    pub fn accounts(&self) -> AccountRows<'_> {
        AccountRows { store: self }
    }

    pub fn webhooks(&self) -> WebhookRows<'_> {
        WebhookRows { store: self }
    }
}

const SUMMARY_SELECT: &str = "SELECT s.id, s.name, s.created_at, v.version, v.resource_count, v.origin, \
     v.source_format, v.created_at AS updated_at, \
     (SELECT pp.plan_id FROM commits c JOIN plan_previews pp ON pp.preview_id = c.preview_id WHERE c.stack_id = s.id AND c.version = v.version) AS plan_id \
     FROM stacks s JOIN stack_versions v ON v.stack_id = s.id";

impl StackRows<'_> {
    /// Adds a version to the stack `name`, creating the stack on its first version. One
    /// transaction: on any error nothing is left behind. Two writers at once (two instances
    /// on one database): the loser of the race for the version number tries again.
    pub async fn add_version(
        self,
        name: &StackName,
        new: NewVersion<'_>,
    ) -> Result<StackSummary, StoreError> {
        let mut tries = 0;
        loop {
            match self.try_add_version(name, &new).await {
                Err(StoreError::Database(e)) if is_unique_violation(&e) && tries < 3 => tries += 1,
                other => return other,
            }
        }
    }

    async fn try_add_version(
        self,
        name: &StackName,
        new: &NewVersion<'_>,
    ) -> Result<StackSummary, StoreError> {
        let mut tx = self.store.begin().await?;
        let existing: Option<String> = sqlx::query_scalar("SELECT id FROM stacks WHERE name = $1")
            .bind(name.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let id = match existing {
            Some(id) => id,
            None => {
                let id = random_id();
                sqlx::query("INSERT INTO stacks (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(&id)
                    .bind(name.as_str())
                    .bind(self.store.clock.now())
                    .execute(&mut *tx)
                    .await?;
                id
            }
        };
        let version: i64 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM stack_versions WHERE stack_id = $1",
        )
        .bind(&id)
        .fetch_one(&mut *tx)
        .await?;
        insert_version(&mut tx, self.store.dialect, &id, version, new, &self.store.clock.now())
            .await?;
        let summary =
            fetch_summary(&mut *tx, &id, Some(version)).await?.expect("the row was just written");
        tx.commit().await?;
        Ok(summary)
    }

    /// A new stack `name` whose state lives in a DIY backend (`url`, the stack `backend_stack`
    /// there): the stack, its first version (what the backend held) and, when given, its
    /// `Pulumi.<stack>.yaml`, in one transaction. A name already taken is
    /// [`StoreError::StackExists`]: a connect never re-points a stack.
    pub async fn add_connected_stack(
        self,
        name: &StackName,
        first: NewVersion<'_>,
        url: &str,
        backend_stack: &str,
        config_yaml: Option<&str>,
    ) -> Result<StackSummary, StoreError> {
        let mut tx = self.store.begin().await?;
        let id = random_id();
        let inserted = sqlx::query("INSERT INTO stacks (id, name, created_at) VALUES ($1, $2, $3)")
            .bind(&id)
            .bind(name.as_str())
            .bind(self.store.clock.now())
            .execute(&mut *tx)
            .await;
        match inserted {
            Err(e) if is_unique_violation(&e) => {
                return Err(StoreError::StackExists(name.as_str().to_string()))
            }
            other => {
                other?;
            }
        }
        insert_version(&mut tx, self.store.dialect, &id, 1, &first, &self.store.clock.now())
            .await?;
        sqlx::query(
            "INSERT INTO stack_backends (stack_id, url, backend_stack) VALUES ($1, $2, $3)",
        )
        .bind(&id)
        .bind(url)
        .bind(backend_stack)
        .execute(&mut *tx)
        .await?;
        if let Some(yaml) = config_yaml {
            sqlx::query(
                "INSERT INTO stack_configs (stack_id, yaml, updated_at) VALUES ($1, $2, $3)",
            )
            .bind(&id)
            .bind(yaml)
            .bind(self.store.clock.now())
            .execute(&mut *tx)
            .await?;
        }
        let summary =
            fetch_summary(&mut *tx, &id, Some(1)).await?.expect("the row was just written");
        tx.commit().await?;
        Ok(summary)
    }

    /// Keeps `yaml` as the stack's `Pulumi.<stack>.yaml` (replacing one given before).
    pub async fn set_stack_config(self, stack_id: &str, yaml: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO stack_configs (stack_id, yaml, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (stack_id) DO UPDATE SET yaml = excluded.yaml, updated_at = excluded.updated_at",
        )
        .bind(stack_id)
        .bind(yaml)
        .bind(self.store.clock.now())
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// The stack's `Pulumi.<stack>.yaml`, if one was given.
    pub async fn stack_config(self, stack_id: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT yaml FROM stack_configs WHERE stack_id = $1")
            .bind(stack_id)
            .fetch_optional(&self.store.pool)
            .await?)
    }

    /// The DIY backend a stack is connected to (`url`, the stack's name there), if any.
    pub async fn backend_of(self, stack_id: &str) -> Result<Option<(String, String)>, StoreError> {
        Ok(sqlx::query_as("SELECT url, backend_stack FROM stack_backends WHERE stack_id = $1")
            .bind(stack_id)
            .fetch_optional(&self.store.pool)
            .await?)
    }

    /// Every stack with its latest version, by name.
    pub async fn list_stacks(self) -> Result<Vec<StackSummary>, StoreError> {
        let sql = format!(
            "{SUMMARY_SELECT} WHERE v.version = (SELECT MAX(version) FROM stack_versions WHERE stack_id = s.id) \
             ORDER BY s.name"
        );
        let rows = sqlx::query(&sql).fetch_all(&self.store.pool).await?;
        Ok(rows.iter().map(summary_from_row).collect())
    }

    /// A stack's latest version summary, by ID.
    pub async fn stack(self, id: &str) -> Result<StackSummary, StoreError> {
        fetch_summary(&self.store.pool, id, None)
            .await?
            .ok_or_else(|| StoreError::StackNotFound(id.to_string()))
    }

    /// The ID of the stack called `name`, if there is one.
    pub async fn stack_id_by_name(self, name: &StackName) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM stacks WHERE name = $1")
            .bind(name.as_str())
            .fetch_optional(&self.store.pool)
            .await?)
    }

    /// A stack's version (the latest when `version` is `None`) with its state.
    pub async fn version(self, id: &str, version: Option<i64>) -> Result<StackVersion, StoreError> {
        let summary =
            fetch_summary(&self.store.pool, id, version).await?.ok_or_else(|| match version {
                Some(v) => StoreError::VersionNotFound { stack: id.to_string(), version: v },
                None => StoreError::StackNotFound(id.to_string()),
            })?;
        // Versions stored before exports were compressed keep their text.
        let row = sqlx::query("SELECT export_json, export_zstd FROM stack_versions WHERE stack_id = $1 AND version = $2")
            .bind(id)
            .bind(summary.version)
            .fetch_one(&self.store.pool)
            .await?;
        let export_json =
            packed::stored_json(row.try_get("export_zstd")?, row.try_get("export_json")?).map_err(
                |why| StoreError::DamagedExport {
                    stack: id.to_string(),
                    version: summary.version,
                    why,
                },
            )?;
        Ok(StackVersion { summary, export_json })
    }

    /// A stack version's export as it is packed ([`packed_runs::PackedRuns::read`] finds its
    /// runs); `None` for a version stored as text, before exports were packed.
    pub async fn packed_export(
        self,
        id: &str,
        version: i64,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let row: Option<Option<Vec<u8>>> = sqlx::query_scalar(
            "SELECT export_zstd FROM stack_versions WHERE stack_id = $1 AND version = $2",
        )
        .bind(id)
        .bind(version)
        .fetch_optional(&self.store.pool)
        .await?;
        row.ok_or_else(|| StoreError::VersionNotFound { stack: id.to_string(), version })
    }

    /// Stores a preview (its plan packed by the caller, see [`PackedJson`]); returns its ID
    /// (128 random bits) and when it was stored.
    pub async fn add_preview(
        self,
        stack_id: &str,
        base_version: i64,
        spec: &str,
        plan: &PackedJson,
        payload: &str,
    ) -> Result<(String, String), StoreError> {
        let id = random_id();
        // `preview_json` is '' in rows whose plan is packed (see migration 0013).
        let created_at = self.store.clock.now();
        sqlx::query(
            "INSERT INTO previews (id, stack_id, base_version, spec, preview_json, preview_zstd, payload, created_at) VALUES ($1, $2, $3, $4, '', $5, $6, $7)",
        )
        .bind(&id)
        .bind(stack_id)
        .bind(base_version)
        .bind(spec)
        .bind(plan.bytes())
        .bind(payload)
        .bind(&created_at)
        .execute(&self.store.pool)
        .await?;
        Ok((id, created_at))
    }

    /// A preview's stored code verification (JSON), if it was made.
    pub async fn preview_verification(
        self,
        preview_id: &str,
    ) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT verification_json FROM preview_verifications WHERE preview_id = $1",
        )
        .bind(preview_id)
        .fetch_optional(&self.store.pool)
        .await?)
    }

    /// Stores a preview's code verification, unless one is there already (two requests may
    /// verify at once); returns the one stored.
    pub async fn add_preview_verification(
        self,
        preview_id: &str,
        verification_json: &str,
    ) -> Result<String, StoreError> {
        sqlx::query("INSERT INTO preview_verifications (preview_id, verification_json) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(preview_id)
            .bind(verification_json)
            .execute(&self.store.pool)
            .await?;
        Ok(self
            .preview_verification(preview_id)
            .await?
            .unwrap_or_else(|| verification_json.to_string()))
    }

    /// The stack a preview belongs to, without reading the preview.
    pub async fn preview_stack(self, id: &str) -> Result<String, StoreError> {
        sqlx::query_scalar("SELECT stack_id FROM previews WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or_else(|| StoreError::PreviewNotFound(id.to_string()))
    }

    /// The version a preview's commit wrote (`None` before a commit), without reading the
    /// preview.
    /// The stack version the preview ran against, and the stack's latest (without reading the
    /// preview): a commit needs them equal.
    pub async fn preview_base_and_latest(self, id: &str) -> Result<(i64, i64), StoreError> {
        let row = sqlx::query(
            "SELECT p.base_version, (SELECT MAX(v.version) FROM stack_versions v WHERE v.stack_id = p.stack_id) AS latest FROM previews p WHERE p.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.store.pool)
        .await?
        .ok_or_else(|| StoreError::PreviewNotFound(id.to_string()))?;
        Ok((row.get("base_version"), row.get("latest")))
    }

    pub async fn preview_committed_version(self, id: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT c.version AS committed FROM previews p LEFT JOIN commits c ON c.preview_id = p.id WHERE p.id = $1")
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or_else(|| StoreError::PreviewNotFound(id.to_string()))?;
        Ok(row.get("committed"))
    }

    pub async fn preview(self, id: &str) -> Result<StoredPreview, StoreError> {
        let row = sqlx::query(
            "SELECT p.id, p.stack_id, p.base_version, p.created_at, p.spec, p.preview_json, p.preview_zstd, p.payload, c.version AS committed \
             FROM previews p LEFT JOIN commits c ON c.preview_id = p.id WHERE p.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.store.pool)
        .await?
        .ok_or_else(|| StoreError::PreviewNotFound(id.to_string()))?;
        Ok(StoredPreview {
            id: row.get("id"),
            stack_id: row.get("stack_id"),
            base_version: row.get("base_version"),
            created_at: row.get("created_at"),
            spec: row.get("spec"),
            // Previews stored before plans were packed keep their text.
            preview_json: packed::stored_json(
                row.try_get("preview_zstd")?,
                row.try_get("preview_json")?,
            )
            .map_err(|why| StoreError::DamagedPreview { id: id.to_string(), why })?,
            payload: row.get("payload"),
            committed_version: row.get("committed"),
        })
    }

    /// Adds the version a preview's commit makes, in one transaction with the record of the
    /// commit: refused when the stack moved on since the preview, or the preview was committed.
    /// Two instances committing at once: the database's keys let one win; the other is told why.
    pub async fn commit_preview(
        self,
        preview: &StoredPreview,
        new: NewVersion<'_>,
    ) -> Result<StackSummary, StoreError> {
        match self.try_commit_preview(preview, &new).await {
            Err(StoreError::Database(e)) if is_unique_violation(&e) => {
                let committed: Option<i64> =
                    sqlx::query_scalar("SELECT version FROM commits WHERE preview_id = $1")
                        .bind(&preview.id)
                        .fetch_optional(&self.store.pool)
                        .await?;
                if let Some(version) = committed {
                    return Err(StoreError::AlreadyCommitted { version });
                }
                let latest: i64 = sqlx::query_scalar(
                    "SELECT COALESCE(MAX(version), 0) FROM stack_versions WHERE stack_id = $1",
                )
                .bind(&preview.stack_id)
                .fetch_one(&self.store.pool)
                .await?;
                Err(StoreError::StalePreview { base: preview.base_version, latest })
            }
            other => other,
        }
    }

    async fn try_commit_preview(
        self,
        preview: &StoredPreview,
        new: &NewVersion<'_>,
    ) -> Result<StackSummary, StoreError> {
        let mut tx = self.store.begin().await?;
        let latest: i64 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(version), 0) FROM stack_versions WHERE stack_id = $1",
        )
        .bind(&preview.stack_id)
        .fetch_one(&mut *tx)
        .await?;
        let committed: Option<i64> =
            sqlx::query_scalar("SELECT version FROM commits WHERE preview_id = $1")
                .bind(&preview.id)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some(version) = committed {
            return Err(StoreError::AlreadyCommitted { version });
        }
        if latest != preview.base_version {
            return Err(StoreError::StalePreview { base: preview.base_version, latest });
        }
        let version = latest + 1;
        let now = self.store.clock.now();
        insert_version(&mut tx, self.store.dialect, &preview.stack_id, version, new, &now).await?;
        sqlx::query(
            "INSERT INTO commits (preview_id, stack_id, version, committed_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(&preview.id)
        .bind(&preview.stack_id)
        .bind(version)
        .bind(&now)
            .execute(&mut *tx)
            .await?;
        let summary = fetch_summary(&mut *tx, &preview.stack_id, Some(version))
            .await?
            .expect("the row was just written");
        tx.commit().await?;
        Ok(summary)
    }

    /// All versions of a stack, newest first.
    pub async fn versions(self, id: &str) -> Result<Vec<StackSummary>, StoreError> {
        let sql = format!("{SUMMARY_SELECT} WHERE s.id = $1 ORDER BY v.version DESC");
        let rows = sqlx::query(&sql).bind(id).fetch_all(&self.store.pool).await?;
        if rows.is_empty() {
            return Err(StoreError::StackNotFound(id.to_string()));
        }
        Ok(rows.iter().map(summary_from_row).collect())
    }
}

async fn insert_version(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    dialect: Dialect,
    stack_id: &str,
    version: i64,
    new: &NewVersion<'_>,
    created_at: &str,
) -> Result<(), StoreError> {
    if !matches!(new.managed, managed::ManagedChange::Unknown) {
        let name: String = sqlx::query_scalar("SELECT name FROM stacks WHERE id = $1")
            .bind(stack_id)
            .fetch_one(&mut **tx)
            .await?;
        let org = name.split('/').next().unwrap_or_default();
        managed::apply(tx, dialect, stack_id, org, version, &new.managed).await?;
    }
    sqlx::query(
        "INSERT INTO stack_versions (stack_id, version, origin, source_format, resource_count, export_zstd, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(stack_id)
    .bind(version)
    .bind(new.origin)
    .bind(new.source_format)
    .bind(new.resource_count as i64)
    .bind(new.export.bytes())
    .bind(created_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn fetch_summary<'e, E>(
    executor: E,
    id: &str,
    version: Option<i64>,
) -> Result<Option<StackSummary>, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let sql = format!(
        "{SUMMARY_SELECT} WHERE s.id = $1 AND v.version = \
         COALESCE($2, (SELECT MAX(version) FROM stack_versions WHERE stack_id = s.id))"
    );
    let row = sqlx::query(&sql).bind(id).bind(version).fetch_optional(executor).await?;
    Ok(row.as_ref().map(summary_from_row))
}

fn summary_from_row(row: &AnyRow) -> StackSummary {
    StackSummary {
        id: row.get("id"),
        name: row.get("name"),
        version: row.get("version"),
        resources: row.get("resource_count"),
        origin: row.get("origin"),
        source_format: row.get("source_format"),
        created_at: row.get("created_at"),
        updated_at: row.get("updated_at"),
        plan_id: row.get("plan_id"),
    }
}

/// Whether an error is a unique-key violation (two writers raced for the same row).
fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

#[cfg(test)]
mod clock_tests;
#[cfg(test)]
mod expiry_tests;
#[cfg(test)]
mod tests;
