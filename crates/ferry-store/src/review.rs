//! Review records: comments on a plan revision's resources, approvals of a revision's preview,
//! each stack's approval rule and each organisation's settings.

use serde::Serialize;
use sqlx::Row;

use crate::{random_id, PlanRows, StoreError};

pub type Comment = ferry_types::CommentView;

pub type Approval = ferry_types::ApprovalView;

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct StackSettings {
    pub required_approvals: i64,
    pub author_may_approve: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct OrgSettings {
    pub share_links: bool,
    pub share_link_days: i64,
    pub allowed_packages: Vec<String>,
}

impl Default for OrgSettings {
    fn default() -> Self {
        OrgSettings { share_links: true, share_link_days: 30, allowed_packages: Vec::new() }
    }
}

fn comment_of(row: &sqlx::any::AnyRow) -> Comment {
    Comment {
        id: row.get("id"),
        plan_id: row.get("plan_id"),
        revision: row.get("revision"),
        urn: row.get("urn"),
        path: row.get("path"),
        parent_id: row.get("parent_id"),
        author: row.get("author"),
        body: row.get("body"),
        created_at: row.get("created_at"),
        resolved_at: row.get("resolved_at"),
        resolved_by: row.get("resolved_by"),
    }
}

/// What a new comment says.
pub struct NewComment<'a> {
    pub plan_id: &'a str,
    pub revision: i64,
    pub urn: &'a str,
    pub path: Option<&'a str>,
    pub parent_id: Option<&'a str>,
    pub author: &'a str,
    pub body: &'a str,
}

impl PlanRows<'_> {
    pub async fn add_comment(self, new: NewComment<'_>) -> Result<Comment, StoreError> {
        let id = random_id();
        sqlx::query("INSERT INTO plan_comments (id, plan_id, revision, urn, path, parent_id, author, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
            .bind(&id)
            .bind(new.plan_id)
            .bind(new.revision)
            .bind(new.urn)
            .bind(new.path)
            .bind(new.parent_id)
            .bind(new.author)
            .bind(new.body)
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        self.comment(&id).await
    }

    pub async fn comment(self, id: &str) -> Result<Comment, StoreError> {
        let row = sqlx::query("SELECT * FROM plan_comments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref().map(comment_of).ok_or_else(|| StoreError::CommentNotFound(id.to_string()))
    }

    /// The plan's comments (of one revision, or all), oldest first.
    pub async fn comments(
        self,
        plan_id: &str,
        revision: Option<i64>,
    ) -> Result<Vec<Comment>, StoreError> {
        let rows = match revision {
            Some(r) => {
                sqlx::query("SELECT * FROM plan_comments WHERE plan_id = $1 AND revision = $2 ORDER BY created_at, id")
                    .bind(plan_id)
                    .bind(r)
                    .fetch_all(&self.store.pool)
                    .await?
            }
            None => sqlx::query("SELECT * FROM plan_comments WHERE plan_id = $1 ORDER BY created_at, id").bind(plan_id).fetch_all(&self.store.pool).await?,
        };
        Ok(rows.iter().map(comment_of).collect())
    }

    /// Marks a thread resolved (by `by`) or open again.
    pub async fn resolve_comment(self, id: &str, by: Option<&str>) -> Result<Comment, StoreError> {
        let done =
            match by {
                Some(by) => {
                    sqlx::query(
                        "UPDATE plan_comments SET resolved_at = $1, resolved_by = $2 WHERE id = $3",
                    )
                    .bind(self.store.clock.now())
                    .bind(by)
                    .bind(id)
                    .execute(&self.store.pool)
                    .await?
                }
                None => sqlx::query(
                    "UPDATE plan_comments SET resolved_at = NULL, resolved_by = NULL WHERE id = $1",
                )
                .bind(id)
                .execute(&self.store.pool)
                .await?,
            };
        if done.rows_affected() == 0 {
            return Err(StoreError::CommentNotFound(id.to_string()));
        }
        self.comment(id).await
    }

    /// Approves a revision's preview (approving twice keeps the first).
    pub async fn add_approval(
        self,
        plan_id: &str,
        revision: i64,
        preview_id: &str,
        approver: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO plan_approvals (plan_id, revision, preview_id, approver, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING")
            .bind(plan_id)
            .bind(revision)
            .bind(preview_id)
            .bind(approver)
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    pub async fn remove_approval(
        self,
        plan_id: &str,
        revision: i64,
        preview_id: &str,
        approver: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM plan_approvals WHERE plan_id = $1 AND revision = $2 AND preview_id = $3 AND approver = $4")
            .bind(plan_id)
            .bind(revision)
            .bind(preview_id)
            .bind(approver)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// The approvals of one revision's preview.
    pub async fn approvals(
        self,
        plan_id: &str,
        revision: i64,
        preview_id: &str,
    ) -> Result<Vec<Approval>, StoreError> {
        let rows = sqlx::query("SELECT * FROM plan_approvals WHERE plan_id = $1 AND revision = $2 AND preview_id = $3 ORDER BY created_at")
            .bind(plan_id)
            .bind(revision)
            .bind(preview_id)
            .fetch_all(&self.store.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|r| Approval {
                revision: r.get("revision"),
                preview_id: r.get("preview_id"),
                approver: r.get("approver"),
                created_at: r.get("created_at"),
            })
            .collect())
    }

    pub async fn stack_settings(self, stack_id: &str) -> Result<StackSettings, StoreError> {
        self.store.stacks().stack(stack_id).await?;
        let row = sqlx::query(
            "SELECT required_approvals, author_may_approve FROM stack_settings WHERE stack_id = $1",
        )
        .bind(stack_id)
        .fetch_optional(&self.store.pool)
        .await?;
        Ok(row
            .map(|r| StackSettings {
                required_approvals: r.get("required_approvals"),
                author_may_approve: r.get::<i64, _>("author_may_approve") != 0,
            })
            .unwrap_or(StackSettings { required_approvals: 0, author_may_approve: false }))
    }

    pub async fn set_stack_settings(
        self,
        stack_id: &str,
        settings: StackSettings,
    ) -> Result<StackSettings, StoreError> {
        self.store.stacks().stack(stack_id).await?;
        sqlx::query(
            "INSERT INTO stack_settings (stack_id, required_approvals, author_may_approve) VALUES ($1, $2, $3) \
             ON CONFLICT (stack_id) DO UPDATE SET required_approvals = excluded.required_approvals, author_may_approve = excluded.author_may_approve",
        )
        .bind(stack_id)
        .bind(settings.required_approvals)
        .bind(settings.author_may_approve as i64)
        .execute(&self.store.pool)
        .await?;
        self.stack_settings(stack_id).await
    }

    pub async fn org_settings(self, org: &str) -> Result<OrgSettings, StoreError> {
        let row =
            sqlx::query("SELECT share_links, share_link_days, allowed_packages FROM org_settings WHERE org = $1").bind(org).fetch_optional(&self.store.pool).await?;
        Ok(match row {
            Some(r) => OrgSettings {
                share_links: r.get::<i64, _>("share_links") != 0,
                share_link_days: r.get("share_link_days"),
                allowed_packages: r
                    .get::<Option<String>, _>("allowed_packages")
                    .and_then(|j| serde_json::from_str(&j).ok())
                    .unwrap_or_default(),
            },
            None => OrgSettings::default(),
        })
    }

    pub async fn set_org_settings(
        self,
        org: &str,
        settings: &OrgSettings,
    ) -> Result<OrgSettings, StoreError> {
        let packages =
            serde_json::to_string(&settings.allowed_packages).expect("strings serialise");
        sqlx::query(
            "INSERT INTO org_settings (org, share_links, share_link_days, allowed_packages) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org) DO UPDATE SET share_links = excluded.share_links, share_link_days = excluded.share_link_days, allowed_packages = excluded.allowed_packages",
        )
        .bind(org)
        .bind(settings.share_links as i64)
        .bind(settings.share_link_days)
        .bind(packages)
        .execute(&self.store.pool)
        .await?;
        self.org_settings(org).await
    }

    /// The plan's timeline: its audit records that succeeded, oldest first.
    pub async fn plan_activity(
        self,
        plan_id: &str,
    ) -> Result<Vec<crate::accounts::AuditRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT * FROM audit_log WHERE plan_id = $1 AND outcome = 'ok' ORDER BY seq",
        )
        .bind(plan_id)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows.iter().map(crate::accounts::audit_record_of).collect())
    }
}
