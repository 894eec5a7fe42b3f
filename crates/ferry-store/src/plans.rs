//! Plans in the store: a plan per stack, its immutable revisions, the previews each revision
//! ran, and revocable read-only share links. IDs and tokens carry 128 random bits.

use serde::Serialize;
use sqlx::Row;

use crate::{random_id, PlanRows, StoreError};

pub use ferry_types::plans::Plan;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanRevision {
    pub plan_id: String,
    pub revision: i64,
    pub created_at: String,
    pub spec: Option<String>,
    pub program: Option<String>,
    /// JSON text.
    pub options: String,
    /// Who wrote it (unknown for revisions older than authorship per revision).
    pub author: Option<String>,
    /// The previews this revision ran, oldest first.
    pub previews: Vec<String>,
}

impl PlanRevision {
    /// The revision's options, read as the service wrote them (a value that does not read, as
    /// the defaults: options only ever widen what a revision does by being set).
    pub fn options_or_default<T: serde::de::DeserializeOwned + Default>(&self) -> T {
        serde_json::from_str(&self.options).unwrap_or_default()
    }
}

/// A read-only link (see `ferry_types::plans::ShareLink`).
pub type PlanShare = ferry_types::plans::ShareLink;

const SHARE_SELECT: &str =
    "SELECT id, plan_id, created_at, revoked_at, expires_at FROM plan_shares";

fn share_of(row: &sqlx::any::AnyRow, now: &str) -> PlanShare {
    let revoked_at: Option<String> = row.get("revoked_at");
    let expires_at: Option<String> = row.get("expires_at");
    PlanShare {
        id: row.get("id"),
        plan_id: row.get("plan_id"),
        created_at: row.get("created_at"),
        active: revoked_at.is_none() && expires_at.as_ref().is_none_or(|at| at.as_str() > now),
        revoked_at,
        expires_at,
    }
}

/// A new plan and its first revision.
#[derive(Debug, Clone, Copy, Default)]
pub struct NewPlan<'a> {
    pub stack_id: &'a str,
    pub title: &'a str,
    /// Who wrote the plan and its first revision.
    pub author: &'a str,
    pub spec: Option<&'a str>,
    pub program: Option<&'a str>,
    /// The revision's options (JSON).
    pub options: &'a str,
    /// What another tool recorded of the resources it imports, sealed by the caller.
    pub sealed_prior: Option<&'a str>,
}

impl PlanRows<'_> {
    /// A new plan with its first revision, in one transaction.
    pub async fn add_plan(self, new: NewPlan<'_>) -> Result<Plan, StoreError> {
        let NewPlan { stack_id, title, author, spec, program, options, sealed_prior } = new;
        let id = random_id();
        let mut tx = self.store.begin().await?;
        let stack: Option<String> = sqlx::query_scalar("SELECT name FROM stacks WHERE id = $1")
            .bind(stack_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(stack) = stack else {
            return Err(StoreError::StackNotFound(stack_id.to_string()));
        };
        // The organisation is the stack's, kept with the plan for lists; its state starts as a
        // draft, which the service computes again at once.
        let org = stack.split('/').next().unwrap_or_default();
        let now = self.store.clock.now();
        sqlx::query("INSERT INTO plans (id, stack_id, title, author, sealed_prior, org, created_at, last_activity_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)")
            .bind(&id)
            .bind(stack_id)
            .bind(title)
            .bind(author)
            .bind(sealed_prior)
            .bind(org)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO plan_revisions (plan_id, revision, spec, program, options, author, created_at) VALUES ($1, 1, $2, $3, $4, $5, $6)")
            .bind(&id)
            .bind(spec)
            .bind(program)
            .bind(options)
            .bind(author)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.plan(&id).await
    }

    /// The prior state the plan was made with, sealed (see `add_plan`), if any.
    pub async fn plan_prior(self, id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<Option<String>> =
            sqlx::query_scalar("SELECT sealed_prior FROM plans WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.store.pool)
                .await?;
        row.ok_or_else(|| StoreError::PlanNotFound(id.to_string()))
    }

    pub async fn plan(self, id: &str) -> Result<Plan, StoreError> {
        let row = sqlx::query(
            "SELECT p.id, p.stack_id, p.title, p.created_at, p.author, (SELECT MAX(revision) FROM plan_revisions r WHERE r.plan_id = p.id) AS revision \
             FROM plans p WHERE p.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.store.pool)
        .await?
        .ok_or_else(|| StoreError::PlanNotFound(id.to_string()))?;
        Ok(Plan {
            id: row.get("id"),
            stack_id: row.get("stack_id"),
            title: row.get("title"),
            created_at: row.get("created_at"),
            revision: row.get("revision"),
            author: row.get("author"),
        })
    }

    /// Saves the next revision, written by `author`; returns it.
    pub async fn add_plan_revision(
        self,
        plan_id: &str,
        author: &str,
        spec: Option<&str>,
        program: Option<&str>,
        options: &str,
    ) -> Result<PlanRevision, StoreError> {
        let mut tx = self.store.begin().await?;
        let latest: Option<i64> =
            sqlx::query_scalar("SELECT MAX(revision) FROM plan_revisions WHERE plan_id = $1")
                .bind(plan_id)
                .fetch_one(&mut *tx)
                .await?;
        let latest = latest.ok_or_else(|| StoreError::PlanNotFound(plan_id.to_string()))?;
        sqlx::query("INSERT INTO plan_revisions (plan_id, revision, spec, program, options, author, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
            .bind(plan_id)
            .bind(latest + 1)
            .bind(spec)
            .bind(program)
            .bind(options)
            .bind(author)
            .bind(self.store.clock.now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.plan_revision(plan_id, Some(latest + 1)).await
    }

    /// Everyone who wrote the plan: its creator and the author of every revision, sorted.
    pub async fn plan_authors(self, plan_id: &str) -> Result<Vec<String>, StoreError> {
        let authors: Vec<String> = sqlx::query_scalar(
            "SELECT author FROM plans WHERE id = $1 AND author IS NOT NULL \
             UNION SELECT author FROM plan_revisions WHERE plan_id = $1 AND author IS NOT NULL ORDER BY 1",
        )
        .bind(plan_id)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(authors)
    }

    /// A revision (the latest when `None`), with its previews.
    pub async fn plan_revision(
        self,
        plan_id: &str,
        revision: Option<i64>,
    ) -> Result<PlanRevision, StoreError> {
        let row = match revision {
            Some(r) => {
                sqlx::query("SELECT * FROM plan_revisions WHERE plan_id = $1 AND revision = $2")
                    .bind(plan_id)
                    .bind(r)
                    .fetch_optional(&self.store.pool)
                    .await?
            }
            None => sqlx::query(
                "SELECT * FROM plan_revisions WHERE plan_id = $1 ORDER BY revision DESC LIMIT 1",
            )
            .bind(plan_id)
            .fetch_optional(&self.store.pool)
            .await?,
        };
        let row = row.ok_or_else(|| match revision {
            Some(r) => StoreError::PlanRevisionNotFound { plan: plan_id.to_string(), revision: r },
            None => StoreError::PlanNotFound(plan_id.to_string()),
        })?;
        let number: i64 = row.get("revision");
        let previews: Vec<String> = sqlx::query_scalar(
            "SELECT pp.preview_id FROM plan_previews pp JOIN previews p ON p.id = pp.preview_id \
             WHERE pp.plan_id = $1 AND pp.revision = $2 ORDER BY p.created_at, p.id",
        )
        .bind(plan_id)
        .bind(number)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(PlanRevision {
            plan_id: row.get("plan_id"),
            revision: number,
            created_at: row.get("created_at"),
            spec: row.get("spec"),
            program: row.get("program"),
            options: row.get("options"),
            author: row.get("author"),
            previews,
        })
    }

    /// Records that `preview_id` ran on the plan's revision.
    pub async fn add_plan_preview(
        self,
        plan_id: &str,
        revision: i64,
        preview_id: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO plan_previews (plan_id, revision, preview_id) VALUES ($1, $2, $3)",
        )
        .bind(plan_id)
        .bind(revision)
        .bind(preview_id)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// The plan and revision a preview ran on, if it ran on one.
    pub async fn plan_of_preview(
        self,
        preview_id: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        let row = sqlx::query("SELECT plan_id, revision FROM plan_previews WHERE preview_id = $1")
            .bind(preview_id)
            .fetch_optional(&self.store.pool)
            .await?;
        Ok(row.map(|r| (r.get("plan_id"), r.get("revision"))))
    }

    /// Keeps a new read-only link to `plan_id`: the hash of its token (the token itself is
    /// the caller's, shown once), under a new ID.
    pub async fn add_plan_share(
        self,
        plan_id: &str,
        token_hash: &str,
        lifetime_days: i64,
    ) -> Result<PlanShare, StoreError> {
        self.plan(plan_id).await?;
        let id = random_id();
        sqlx::query(
            "INSERT INTO plan_shares (id, token_hash, plan_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&id)
        .bind(token_hash)
        .bind(plan_id)
        .bind(self.store.clock.in_seconds(lifetime_days * 86_400))
        .bind(self.store.clock.now())
        .execute(&self.store.pool)
        .await?;
        self.plan_share(&id).await
    }

    pub async fn plan_share(self, id: &str) -> Result<PlanShare, StoreError> {
        let row = sqlx::query(&format!("{SHARE_SELECT} WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or(StoreError::ShareNotFound)?;
        Ok(share_of(&row, &self.store.clock.now()))
    }

    /// The link whose token hashes to `token_hash`.
    pub async fn plan_share_by_token(self, token_hash: &str) -> Result<PlanShare, StoreError> {
        let row = sqlx::query(&format!("{SHARE_SELECT} WHERE token_hash = $1"))
            .bind(token_hash)
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or(StoreError::ShareNotFound)?;
        Ok(share_of(&row, &self.store.clock.now()))
    }

    pub async fn plan_shares(self, plan_id: &str) -> Result<Vec<PlanShare>, StoreError> {
        let rows =
            sqlx::query(&format!("{SHARE_SELECT} WHERE plan_id = $1 ORDER BY created_at, id"))
                .bind(plan_id)
                .fetch_all(&self.store.pool)
                .await?;
        let now = self.store.clock.now();
        Ok(rows.iter().map(|row| share_of(row, &now)).collect())
    }

    /// Revokes the share link `id` of `plan_id` (once; revoking again changes nothing).
    pub async fn revoke_plan_share(self, plan_id: &str, id: &str) -> Result<PlanShare, StoreError> {
        let share = self.plan_share(id).await?;
        if share.plan_id != plan_id {
            return Err(StoreError::ShareNotFound);
        }
        sqlx::query("UPDATE plan_shares SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(self.store.clock.now())
            .bind(id)
            .execute(&self.store.pool)
            .await?;
        self.plan_share(id).await
    }
}
