//! The index of what each stack manages: every resource of a stack's latest version, by type
//! and cloud ID. A discovery asks it which of what a provider lists is managed already, and by
//! which stack of the same organisation, without reading any stack's state. A stack whose rows
//! do not reflect its latest version (an upload, a version read from a backend, a version
//! stored before the index existed, or a commit whose base the rows did not reflect) is listed
//! as stale, and rebuilt by the service from the version when a discovery first asks. A commit
//! onto rows that reflect its base applies what it changed, in the version's own transaction.

use sqlx::Row;

use crate::{Dialect, StackRows, StoreError};

/// One managed resource: a custom resource, not a provider, with a cloud ID.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ManagedResource {
    pub urn: String,
    pub type_: String,
    pub id: String,
}

/// What a new version changes in the index.
#[derive(Debug, Clone, Default)]
pub enum ManagedChange {
    /// Not written with the version: the stack's rows become stale, and are rebuilt from the
    /// version when a discovery first asks. A version that replaces the whole state (an upload,
    /// a version read from a backend) leaves its rows so: writing them cost the upload of
    /// 100,000 resources more than reading its file did, for an index only discoveries read.
    #[default]
    Unknown,
    /// Every managed resource of the version (a stale stack's rebuild).
    All(Vec<ManagedResource>),
    /// What changed since the version before (a commit): resources added or changed, and URNs
    /// no longer managed.
    Delta { upserted: Vec<ManagedResource>, removed: Vec<String> },
}

/// A resource managed by a stack of the organisation asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedBy {
    pub stack_id: String,
    pub stack: String,
    pub urn: String,
}

/// Rows per statement (five parameters each: well under both databases' limits).
const ROWS_PER_INSERT: usize = 500;

/// The placeholders of a statement's values. PostgreSQL numbers them (`$n`); SQLite is given
/// anonymous ones (`?`), bound in order: sqlx looks each numbered one up by name, and SQLite
/// finds a name by scanning all of the statement's, so a statement of n numbered placeholders
/// cost n² (sqlite3_bind_parameter_name was a fifth of a 100,000-resource upload's
/// instructions, callgrind, 2026-11-30).
struct Marks {
    dialect: Dialect,
    next: usize,
}

impl Marks {
    fn new(dialect: Dialect) -> Marks {
        Marks { dialect, next: 1 }
    }

    /// The next placeholder.
    fn mark(&mut self) -> String {
        let number = self.next;
        self.next += 1;
        match self.dialect {
            Dialect::Sqlite => "?".to_string(),
            Dialect::Postgres => format!("${number}"),
        }
    }

    /// `count` placeholders, separated by commas.
    fn list(&mut self, count: usize) -> String {
        (0..count).map(|_| self.mark()).collect::<Vec<_>>().join(", ")
    }
}

/// Writes `change` for version `version` of the stack, inside the version's transaction.
pub(crate) async fn apply(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    dialect: Dialect,
    stack_id: &str,
    org: &str,
    version: i64,
    change: &ManagedChange,
) -> Result<(), StoreError> {
    match change {
        ManagedChange::Unknown => Ok(()),
        ManagedChange::All(rows) => {
            sqlx::query("DELETE FROM managed_resources WHERE stack_id = $1")
                .bind(stack_id)
                .execute(&mut **tx)
                .await?;
            insert(tx, dialect, stack_id, org, rows).await?;
            mark(tx, stack_id, version).await
        }
        ManagedChange::Delta { upserted, removed } => {
            // A delta applies only to rows that reflect the version before; otherwise they
            // stay stale, to be rebuilt from this version.
            let indexed: Option<i64> =
                sqlx::query_scalar("SELECT managed_version FROM stacks WHERE id = $1")
                    .bind(stack_id)
                    .fetch_one(&mut **tx)
                    .await?;
            if indexed != Some(version - 1) {
                return Ok(());
            }
            let gone = removed.iter().map(String::as_str);
            let replaced = upserted.iter().map(|r| r.urn.as_str());
            delete(tx, dialect, stack_id, gone.chain(replaced)).await?;
            insert(tx, dialect, stack_id, org, upserted).await?;
            mark(tx, stack_id, version).await
        }
    }
}

/// Deletes the stack's rows of `urns`, a statement per `ROWS_PER_INSERT` of them.
async fn delete<'u>(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    dialect: Dialect,
    stack_id: &str,
    urns: impl Iterator<Item = &'u str>,
) -> Result<(), StoreError> {
    let urns: Vec<&str> = urns.collect();
    for chunk in urns.chunks(ROWS_PER_INSERT) {
        let mut marks = Marks::new(dialect);
        let sql = format!(
            "DELETE FROM managed_resources WHERE stack_id = {} AND urn IN ({})",
            marks.mark(),
            marks.list(chunk.len())
        );
        let mut q = sqlx::query(&sql).bind(stack_id);
        for urn in chunk {
            q = q.bind(*urn);
        }
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

async fn insert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    dialect: Dialect,
    stack_id: &str,
    org: &str,
    rows: &[ManagedResource],
) -> Result<(), StoreError> {
    // Written in the primary key's order, so its b-tree grows at one edge rather than
    // splitting pages everywhere (for 100,000 rows SQLite's instructions went from 2.0 to 1.2
    // billion, callgrind, 2026-11-30).
    let mut rows: Vec<&ManagedResource> = rows.iter().collect();
    rows.sort_unstable_by(|a, b| a.urn.cmp(&b.urn));
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut marks = Marks::new(dialect);
        let values: Vec<String> =
            (0..chunk.len()).map(|_| format!("({})", marks.list(5))).collect();
        let sql = format!(
            "INSERT INTO managed_resources (stack_id, org, urn, type, resource_id) VALUES {}",
            values.join(", ")
        );
        let mut q = sqlx::query(&sql);
        for r in chunk {
            q = q.bind(stack_id).bind(org).bind(&r.urn).bind(&r.type_).bind(&r.id);
        }
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

async fn mark(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    stack_id: &str,
    version: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE stacks SET managed_version = $1 WHERE id = $2")
        .bind(version)
        .bind(stack_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl StackRows<'_> {
    /// The stacks of `org` whose index rows do not reflect their latest version, with that
    /// version: what the service rebuilds before it answers from the index.
    pub async fn stale_managed_stacks(self, org: &str) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT s.id, (SELECT MAX(v.version) FROM stack_versions v WHERE v.stack_id = s.id) AS latest, s.managed_version \
             FROM stacks s WHERE substr(s.name, 1, CAST($2 AS INTEGER)) = $1",
        )
        .bind(format!("{org}/"))
        .bind(org.len() as i64 + 1)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let latest: Option<i64> = r.get("latest");
                let indexed: Option<i64> = r.get("managed_version");
                latest.filter(|l| Some(*l) != indexed).map(|l| (r.get("id"), l))
            })
            .collect())
    }

    /// The version the stack's rows reflect (`None`: none yet). A commit computes its delta
    /// only when they reflect its base: a delta of stale rows is not applied.
    pub async fn managed_version(self, stack_id: &str) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar("SELECT managed_version FROM stacks WHERE id = $1")
            .bind(stack_id)
            .fetch_one(&self.store.pool)
            .await?)
    }

    /// Replaces the stack's rows with `rows`, the managed resources of `version`, when that is
    /// still its latest version (a version written meanwhile kept its own rows). The rows are
    /// taken, not copied: a rebuild is a whole stack's.
    pub async fn rebuild_managed(
        self,
        stack_id: &str,
        version: i64,
        rows: Vec<ManagedResource>,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin().await?;
        let latest: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM stack_versions WHERE stack_id = $1")
                .bind(stack_id)
                .fetch_one(&mut *tx)
                .await?;
        if latest != Some(version) {
            return Ok(());
        }
        let name: String = sqlx::query_scalar("SELECT name FROM stacks WHERE id = $1")
            .bind(stack_id)
            .fetch_one(&mut *tx)
            .await?;
        let org = name.split('/').next().unwrap_or_default().to_string();
        apply(&mut tx, self.store.dialect, stack_id, &org, version, &ManagedChange::All(rows))
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every resource of type `type_` that a stack of `org` manages, by cloud ID (several stacks
    /// may manage one ID: each is listed).
    pub async fn managed_of_type(
        self,
        org: &str,
        type_: &str,
    ) -> Result<Vec<(String, ManagedBy)>, StoreError> {
        let rows = sqlx::query(
            "SELECT m.resource_id, m.stack_id, m.urn, s.name FROM managed_resources m JOIN stacks s ON s.id = m.stack_id \
             WHERE m.org = $1 AND m.type = $2 ORDER BY s.name, m.urn",
        )
        .bind(org)
        .bind(type_)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get("resource_id"),
                    ManagedBy {
                        stack_id: r.get("stack_id"),
                        stack: r.get("name"),
                        urn: r.get("urn"),
                    },
                )
            })
            .collect())
    }
}
