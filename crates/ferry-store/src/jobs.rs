//! Background jobs in the store: their state (queued → running, leased by one instance → done,
//! failed, cancelled or interrupted) and the events they reported, so that any instance serves
//! them and none is lost with the process that ran it. In PostgreSQL every change is announced
//! on the channel [`JOBS_CHANNEL`] (the job's ID as payload), for instances following it.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Dialect, JobRows, StoreError};
pub use ferry_types::JobStatus;

/// Events written by one `INSERT` at most (three parameters each, well under both databases'
/// limits).
const ROWS_PER_INSERT: usize = 200;

/// The PostgreSQL `NOTIFY` channel job changes are announced on.
pub const JOBS_CHANNEL: &str = "ferry_jobs";

/// What a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// A plan revision's preview.
    Preview,
    /// A stack's discovery.
    Discovery,
    /// A program's would-be creates identified against a stack.
    Identification,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Preview => "preview",
            JobKind::Discovery => "discovery",
            JobKind::Identification => "identification",
        }
    }

    fn parse(text: &str) -> Option<JobKind> {
        [JobKind::Preview, JobKind::Discovery, JobKind::Identification]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// A stored status's text as the type it is (the database keeps the text, checked by a
/// constraint; see migration 0017).
fn parse_status(text: &str) -> Option<JobStatus> {
    use JobStatus::*;
    [Queued, Running, Done, Failed, Cancelled, Interrupted].into_iter().find(|s| s.as_str() == text)
}

/// A new job.
#[derive(Debug, Clone)]
pub struct NewJob<'a> {
    pub id: &'a str,
    pub kind: JobKind,
    pub stack_id: &'a str,
    /// A preview's plan and revision.
    pub plan: Option<(&'a str, i64)>,
    pub total: i64,
    /// What it was asked (JSON).
    pub detail: Option<&'a str>,
}

/// A job as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredJob {
    pub id: String,
    pub kind: JobKind,
    pub stack_id: String,
    pub plan_id: Option<String>,
    pub revision: Option<i64>,
    pub status: JobStatus,
    pub total: i64,
    pub finished: i64,
    pub untouched: i64,
    pub preview_id: Option<String>,
    pub error: Option<String>,
    pub detail: Option<String>,
    /// The instance running it (once claimed), and until when its lease holds.
    pub instance: Option<String>,
    pub lease_until: Option<String>,
    pub created_at: String,
    /// When it was claimed and began to run; `None` while it waits, and for one that ended
    /// without running.
    pub started_at: Option<String>,
}

impl StoredJob {
    /// Whether it may still change: queued or running.
    pub fn is_live(&self) -> bool {
        self.status.is_live()
    }
}

/// A job's row; text the types do not know (a row written by a newer Ferry) is a damaged job.
fn job_of(row: &AnyRow) -> Result<StoredJob, StoreError> {
    let id: String = row.get("id");
    let (kind, status): (String, String) = (row.get("kind"), row.get("status"));
    let damaged = |what: &str, text: &str| StoreError::DamagedJob {
        id: id.clone(),
        why: format!("unknown {what} `{text}`"),
    };
    let kind = JobKind::parse(&kind).ok_or_else(|| damaged("kind", &kind))?;
    let status = parse_status(&status).ok_or_else(|| damaged("status", &status))?;
    Ok(StoredJob {
        id: id.clone(),
        kind,
        stack_id: row.get("stack_id"),
        plan_id: row.get("plan_id"),
        revision: row.get("revision"),
        status,
        total: row.get("total"),
        finished: row.get("finished"),
        untouched: row.get("untouched"),
        preview_id: row.get("preview_id"),
        error: row.get("error"),
        detail: row.get("detail"),
        instance: row.get("instance"),
        lease_until: row.get("lease_until"),
        created_at: row.get("created_at"),
        started_at: row.get("started_at"),
    })
}

const JOB_SELECT: &str =
    "SELECT id, kind, stack_id, plan_id, revision, status, total, finished, untouched, preview_id, error, detail, instance, lease_until, created_at, started_at FROM jobs";

/// Why a job whose lease ran out stopped, as its page says.
pub const INTERRUPTED: &str = "interrupted: the Ferry instance running this preview stopped before it finished (its lease ran out); preview again";

impl JobRows<'_> {
    /// Announces a change of the job to instances following it (PostgreSQL only; elsewhere
    /// followers poll).
    async fn announce<'e, E>(self, executor: E, job_id: &str) -> Result<(), StoreError>
    where
        E: sqlx::Executor<'e, Database = sqlx::Any>,
    {
        if self.store.dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(JOBS_CHANNEL)
                .bind(job_id)
                .execute(executor)
                .await?;
        }
        Ok(())
    }

    /// Records a new job, queued and held by `instance` until `lease_until`: the instance that
    /// will run it renews the lease while the job waits its turn, so a job whose instance died
    /// before it started is interrupted like a running one.
    pub async fn add_job(
        self,
        new: NewJob<'_>,
        instance: &str,
        lease_until: &str,
    ) -> Result<StoredJob, StoreError> {
        sqlx::query("INSERT INTO jobs (id, kind, stack_id, plan_id, revision, status, total, detail, instance, lease_until, created_at) VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10)")
            .bind(new.id)
            .bind(new.kind.as_str())
            .bind(new.stack_id)
            .bind(new.plan.map(|(plan, _)| plan))
            .bind(new.plan.map(|(_, revision)| revision))
            .bind(new.total)
            .bind(new.detail)
            .bind(instance)
            .bind(lease_until)
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        self.job(new.id).await
    }

    /// Starts the queued job `instance` holds, leased until `lease_until`; false when it was
    /// not queued any more (cancelled, or interrupted).
    pub async fn claim_job(
        self,
        id: &str,
        instance: &str,
        lease_until: &str,
    ) -> Result<bool, StoreError> {
        let claim = sqlx::query("UPDATE jobs SET status = 'running', instance = $1, lease_until = $2, started_at = $4 WHERE id = $3 AND status = 'queued' AND instance = $1");
        let claim = claim.bind(instance).bind(lease_until).bind(id).bind(self.store.clock.now());
        self.change_job(id, claim).await
    }

    /// Appends events `first_seq…` of a running job (JSON texts) and its counts, in one
    /// transaction; nothing is written once the job stopped running (cancelled, interrupted).
    pub async fn add_job_events(
        self,
        id: &str,
        first_seq: i64,
        events: &[String],
        total: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.store.begin().await?;
        let finished = first_seq + events.len() as i64;
        let done = sqlx::query(
            "UPDATE jobs SET finished = $1, total = $2 WHERE id = $3 AND status = 'running'",
        )
        .bind(finished)
        .bind(total.max(finished))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        // Many rows per statement: one round trip per chunk, not per event.
        for (c, chunk) in events.chunks(ROWS_PER_INSERT).enumerate() {
            let rows: Vec<String> = (0..chunk.len())
                .map(|i| format!("(${}, ${}, ${})", 3 * i + 1, 3 * i + 2, 3 * i + 3))
                .collect();
            let sql =
                format!("INSERT INTO job_events (job_id, seq, event) VALUES {}", rows.join(", "));
            let mut insert = sqlx::query(&sql);
            for (i, event) in chunk.iter().enumerate() {
                insert =
                    insert.bind(id).bind(first_seq + (c * ROWS_PER_INSERT + i) as i64).bind(event);
            }
            insert.execute(&mut *tx).await?;
        }
        self.announce(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Ends a live job as `status` (`done` or `failed`; a queued one fails when it cannot
    /// start); false when it had already stopped (a cancel or an interruption wins over a late
    /// result).
    pub async fn end_job(
        self,
        id: &str,
        status: JobStatus,
        preview_id: Option<&str>,
        untouched: i64,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let end =
            sqlx::query("UPDATE jobs SET status = $1, preview_id = $2, untouched = $3, error = $4, lease_until = NULL WHERE id = $5 AND status IN ('queued', 'running')");
        self.change_job(
            id,
            end.bind(status.as_str()).bind(preview_id).bind(untouched).bind(error).bind(id),
        )
        .await
    }

    /// Cancels a queued or running job (whichever instance runs it stops it at its next lease
    /// renewal, or at once when it is this one); false when it had already stopped.
    pub async fn cancel_job(self, id: &str) -> Result<bool, StoreError> {
        let cancel = sqlx::query("UPDATE jobs SET status = 'cancelled', lease_until = NULL WHERE id = $1 AND status IN ('queued', 'running')");
        self.change_job(id, cancel.bind(id)).await
    }

    /// Runs one change of the job `id` and announces it, in one transaction; whether it changed
    /// the job.
    async fn change_job<'q>(
        self,
        id: &str,
        change: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.store.begin().await?;
        let done = change.execute(&mut *tx).await?;
        self.announce(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Extends the leases of the jobs `instance` runs or holds queued.
    pub async fn renew_job_leases(
        self,
        instance: &str,
        lease_until: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE jobs SET lease_until = $1 WHERE instance = $2 AND status IN ('queued', 'running')")
            .bind(lease_until)
            .bind(instance)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Marks interrupted every live job whose lease ran out (queued or running), and every job
    /// queued without a lease a minute after it was made (one an older version queued); with `all`,
    /// every live job (a single-instance store starting up knows none of them is running).
    /// Returns their IDs.
    pub async fn interrupt_jobs(self, all: bool) -> Result<Vec<String>, StoreError> {
        let mut tx = self.store.begin().await?;
        let ids: Vec<String> = if all {
            sqlx::query_scalar("UPDATE jobs SET status = 'interrupted', error = $1, lease_until = NULL WHERE status IN ('queued', 'running') RETURNING id")
                .bind(INTERRUPTED)
                .fetch_all(&mut *tx)
                .await?
        } else {
            sqlx::query_scalar(
                "UPDATE jobs SET status = 'interrupted', error = $1, lease_until = NULL \
                 WHERE (status IN ('queued', 'running') AND lease_until < $2) \
                    OR (status = 'queued' AND lease_until IS NULL AND created_at < $3) RETURNING id",
            )
            .bind(INTERRUPTED)
            .bind(self.store.clock.now())
            .bind(self.store.clock.in_seconds(-60))
            .fetch_all(&mut *tx)
            .await?
        };
        for id in &ids {
            self.announce(&mut *tx, id).await?;
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Removes the jobs that ended before `before` (done, failed, cancelled or interrupted;
    /// never a live one) with their events, and the sessions and sign-in links that expired or
    /// ended before it. Returns how many jobs went.
    pub async fn forget_finished(self, before: &str) -> Result<u64, StoreError> {
        let mut tx = self.store.begin().await?;
        let ended = "status IN ('done', 'failed', 'cancelled', 'interrupted') AND created_at < $1";
        sqlx::query(&format!(
            "DELETE FROM job_events WHERE job_id IN (SELECT id FROM jobs WHERE {ended})"
        ))
        .bind(before)
        .execute(&mut *tx)
        .await?;
        let jobs = sqlx::query(&format!("DELETE FROM jobs WHERE {ended}"))
            .bind(before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sign_in_links WHERE expires_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(jobs)
    }

    pub async fn job(self, id: &str) -> Result<StoredJob, StoreError> {
        let row = sqlx::query(&format!("{JOB_SELECT} WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref().map(job_of).unwrap_or_else(|| Err(StoreError::JobNotFound(id.to_string())))
    }

    /// A job's events from `from` on (JSON texts), in order.
    pub async fn job_events(self, id: &str, from: i64) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT event FROM job_events WHERE job_id = $1 AND seq >= $2 ORDER BY seq",
        )
        .bind(id)
        .bind(from)
        .fetch_all(&self.store.pool)
        .await?)
    }

    /// A plan's preview jobs, newest first, up to `limit`.
    pub async fn plan_jobs(self, plan_id: &str, limit: i64) -> Result<Vec<StoredJob>, StoreError> {
        let rows = sqlx::query(&format!(
            "{JOB_SELECT} WHERE plan_id = $1 ORDER BY created_at DESC, id LIMIT $2"
        ))
        .bind(plan_id)
        .bind(limit)
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter().map(job_of).collect()
    }

    /// Follows job changes announced by every instance (PostgreSQL); `None` in SQLite, whose
    /// followers poll.
    pub async fn job_notifications(self) -> Result<Option<JobNotifications>, StoreError> {
        let Some(url) = self.store.url.as_deref() else { return Ok(None) };
        let mut listener = sqlx::postgres::PgListener::connect(url).await?;
        listener.listen(JOBS_CHANNEL).await?;
        Ok(Some(JobNotifications(listener)))
    }
}

/// Job changes announced in PostgreSQL.
pub struct JobNotifications(sqlx::postgres::PgListener);

impl JobNotifications {
    /// The ID of the next job that changed. The listener reconnects by itself after a lost
    /// connection (changes made meanwhile are missed: followers also poll, slowly).
    pub async fn next(&mut self) -> Result<String, StoreError> {
        Ok(self.0.recv().await?.payload().to_string())
    }
}
