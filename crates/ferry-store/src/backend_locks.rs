//! The lock files Ferry takes in DIY backends, as records: written before the lock file, kept
//! alive by the holding instance's lease, marked when the file is removed. A record whose lease
//! ran out names a lock its instance could not remove (killed mid-commit, storage failure); the
//! instance that recovers it takes it over first, so two never do the same recovery.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{StackRows, StoreError};

// One lock Ferry took in a backend, as the API shows it.
pub use ferry_types::api::BackendLock;

fn lock_of(row: &AnyRow) -> BackendLock {
    BackendLock {
        path: row.get("path"),
        stack_id: row.get("stack_id"),
        backend_url: row.get("backend_url"),
        instance: row.get("instance"),
        taken_at: row.get("taken_at"),
        lease_until: row.get("lease_until"),
        released_at: row.get("released_at"),
        recovery: row.get("recovery"),
    }
}

/// The columns [`lock_of`] reads.
const LOCK_COLUMNS: &str =
    "path, stack_id, backend_url, instance, taken_at, lease_until, released_at, recovery";

impl StackRows<'_> {
    /// Records that `instance` is about to write the lock file `path` in `backend_url`.
    pub async fn add_backend_lock(
        self,
        path: &str,
        stack_id: &str,
        backend_url: &str,
        instance: &str,
        lease_until: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO backend_locks (path, stack_id, backend_url, instance, taken_at, lease_until) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(path)
            .bind(stack_id)
            .bind(backend_url)
            .bind(instance)
            .bind(self.store.clock.now())
            .bind(lease_until)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Marks the lock file removed (`recovery` says how, when its holder could not).
    pub async fn release_backend_lock(
        self,
        path: &str,
        recovery: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE backend_locks SET released_at = $1, recovery = $2 WHERE path = $3 AND released_at IS NULL")
            .bind(self.store.clock.now())
            .bind(recovery)
            .bind(path)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Lets a held lock's lease run out now, so that recovery removes its file (its holder
    /// could not).
    pub async fn expire_backend_lock(self, path: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE backend_locks SET lease_until = $1 WHERE path = $2 AND released_at IS NULL",
        )
        .bind(self.store.clock.now())
        .bind(path)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Extends the leases of the locks `instance` holds.
    pub async fn renew_backend_locks(
        self,
        instance: &str,
        lease_until: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE backend_locks SET lease_until = $1 WHERE instance = $2 AND released_at IS NULL",
        )
        .bind(lease_until)
        .bind(instance)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Takes over, for `instance` until `lease_until`, every unreleased lock whose lease ran
    /// out (with `all`, every unreleased lock: a single-instance store starting up knows none is
    /// held), and returns them: the caller removes their files and releases them.
    pub async fn take_over_backend_locks(
        self,
        instance: &str,
        lease_until: &str,
        all: bool,
    ) -> Result<Vec<BackendLock>, StoreError> {
        let cutoff = if all { "9999".to_string() } else { self.store.clock.now() };
        let rows = sqlx::query(&format!(
            "UPDATE backend_locks SET instance = $1, lease_until = $2 WHERE released_at IS NULL AND lease_until < $3 RETURNING {LOCK_COLUMNS}"
        ))
        .bind(instance)
        .bind(lease_until)
        .bind(cutoff)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows.iter().map(lock_of).collect())
    }

    /// The locks Ferry took in a stack's backend, newest first, up to `limit`.
    pub async fn backend_locks(
        self,
        stack_id: &str,
        limit: i64,
    ) -> Result<Vec<BackendLock>, StoreError> {
        let rows = sqlx::query(&format!("SELECT {LOCK_COLUMNS} FROM backend_locks WHERE stack_id = $1 ORDER BY taken_at DESC, path LIMIT $2"))
            .bind(stack_id)
            .bind(limit)
            .fetch_all(&self.store.pool)
            .await?;
        Ok(rows.iter().map(lock_of).collect())
    }
}
