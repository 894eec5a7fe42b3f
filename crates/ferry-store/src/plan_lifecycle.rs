//! A plan's life in the store: the state the service computed for it (kept with the plan, so
//! that lists filter and page on it), when anything last happened to it, its closing and
//! reopening, reviewers' requests for changes, and the lists of plans — newest activity first,
//! paged by a cursor over (last activity, ID), which the indexes of migration 0021 serve.

use sqlx::Row;

use crate::{PlanRows, StoreError};

pub use ferry_types::plans::{ChangeRequestView, PlanState};

/// The facts of a plan the service computes its state from, beyond its revisions, previews
/// and approvals (which have their own reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifecycleFacts {
    pub org: String,
    pub closed_by: Option<String>,
    pub closed: bool,
    /// The stack version a commit of one of its previews made.
    pub committed_version: Option<i64>,
    /// The latest revision that has a preview.
    pub latest_previewed_revision: Option<i64>,
}

/// One row of a list, as stored: the status is the service's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredListRow {
    pub id: String,
    pub title: String,
    pub stack_id: String,
    pub stack: String,
    pub org: String,
    pub author: Option<String>,
    pub created_at: String,
    pub last_activity_at: String,
    pub state: String,
    pub status_json: Option<String>,
}

/// Plans waiting for one reviewer: previewed, in an organisation where they approve, their
/// approval of the latest preview not given, and not written by them where the stack does not
/// let authors approve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaiting {
    pub reviewer: String,
    /// The organisations where they approve (`None`: every one).
    pub orgs: Option<Vec<String>>,
}

/// Which plans a list holds. `orgs` is what the caller may read (`None`: every organisation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    pub orgs: Option<Vec<String>>,
    pub org: Option<String>,
    pub stack_id: Option<String>,
    /// Empty: any state.
    pub states: Vec<PlanState>,
    pub author: Option<String>,
    pub awaiting: Option<Awaiting>,
    /// The (last activity, ID) the previous page ended at.
    pub after: Option<(String, String)>,
    pub limit: usize,
}

/// SQL built clause by clause, with its bound texts numbered as they are added.
struct Query {
    sql: String,
    binds: Vec<String>,
}

impl Query {
    fn bind(&mut self, value: &str) -> String {
        self.binds.push(value.to_string());
        format!("${}", self.binds.len())
    }

    fn list(&mut self, values: &[String]) -> String {
        let placeholders: Vec<String> = values.iter().map(|v| self.bind(v)).collect();
        placeholders.join(", ")
    }
}

impl PlanRows<'_> {
    pub async fn lifecycle_facts(self, plan_id: &str) -> Result<LifecycleFacts, StoreError> {
        let row = sqlx::query(
            "SELECT p.org, p.closed_by, p.closed_at, \
             (SELECT MAX(c.version) FROM plan_previews pp JOIN commits c ON c.preview_id = pp.preview_id WHERE pp.plan_id = p.id) AS committed_version, \
             (SELECT MAX(pp.revision) FROM plan_previews pp WHERE pp.plan_id = p.id) AS latest_previewed_revision \
             FROM plans p WHERE p.id = $1",
        )
        .bind(plan_id)
        .fetch_optional(&self.store.pool)
        .await?
        .ok_or_else(|| StoreError::PlanNotFound(plan_id.to_string()))?;
        let closed_at: Option<String> = row.get("closed_at");
        Ok(LifecycleFacts {
            org: row.get("org"),
            closed_by: row.get("closed_by"),
            closed: closed_at.is_some(),
            committed_version: row.get("committed_version"),
            latest_previewed_revision: row.get("latest_previewed_revision"),
        })
    }

    /// Keeps the state the service computed and what from; `touch` when something happened to
    /// the plan (a change of the stack's rule recomputes it without being its activity).
    pub async fn set_plan_status(
        self,
        plan_id: &str,
        state: PlanState,
        latest_preview: Option<&str>,
        status_json: &str,
        touch: bool,
    ) -> Result<(), StoreError> {
        let sql = if touch {
            "UPDATE plans SET state = $1, latest_preview = $2, status_json = $3, last_activity_at = $4 WHERE id = $5"
        } else {
            "UPDATE plans SET state = $1, latest_preview = $2, status_json = $3, last_activity_at = CASE WHEN last_activity_at = '' THEN $4 ELSE last_activity_at END WHERE id = $5"
        };
        let done = sqlx::query(sql)
            .bind(state.as_str())
            .bind(latest_preview)
            .bind(status_json)
            .bind(self.store.clock.now())
            .bind(plan_id)
            .execute(&self.store.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::PlanNotFound(plan_id.to_string()));
        }
        Ok(())
    }

    /// Closes the plan as `by`, or reopens it (`None`).
    pub async fn set_plan_closed(self, plan_id: &str, by: Option<&str>) -> Result<(), StoreError> {
        let at = by.map(|_| self.store.clock.now());
        let done = sqlx::query("UPDATE plans SET closed_at = $1, closed_by = $2 WHERE id = $3")
            .bind(at)
            .bind(by)
            .bind(plan_id)
            .execute(&self.store.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::PlanNotFound(plan_id.to_string()));
        }
        Ok(())
    }

    /// Plans whose state was never computed (made before migration 0021).
    pub async fn plans_without_status(self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM plans WHERE status_json IS NULL ORDER BY id")
            .fetch_all(&self.store.pool)
            .await?)
    }

    /// The stack's plans still open: what a change of its approval rule recomputes.
    pub async fn open_plans_of_stack(self, stack_id: &str) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM plans WHERE stack_id = $1 AND state NOT IN ('committed', 'closed') ORDER BY id")
            .bind(stack_id)
            .fetch_all(&self.store.pool)
            .await?)
    }

    /// Records `reviewer`'s request for changes to what they reviewed; an earlier one of theirs
    /// on the plan that still stands is replaced.
    pub async fn add_change_request(
        self,
        plan_id: &str,
        reviewer: &str,
        revision: i64,
        preview_id: &str,
        body: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin().await?;
        sqlx::query("UPDATE plan_change_requests SET withdrawn_at = $1, withdrawn_by = $2 WHERE plan_id = $3 AND reviewer = $2 AND withdrawn_at IS NULL")
            .bind(self.store.clock.now())
            .bind(reviewer)
            .bind(plan_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO plan_change_requests (plan_id, reviewer, revision, preview_id, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(plan_id)
            .bind(reviewer)
            .bind(revision)
            .bind(preview_id)
            .bind(body)
            .bind(self.store.clock.now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Withdraws `reviewer`'s standing request, as `by`; whether there was one.
    pub async fn withdraw_change_request(
        self,
        plan_id: &str,
        reviewer: &str,
        by: &str,
    ) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE plan_change_requests SET withdrawn_at = $1, withdrawn_by = $2 WHERE plan_id = $3 AND reviewer = $4 AND withdrawn_at IS NULL")
                .bind(self.store.clock.now())
                .bind(by)
                .bind(plan_id)
                .bind(reviewer)
                .execute(&self.store.pool)
                .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The requests for changes that still stand: not withdrawn, and made on a preview of the
    /// latest revision that has one (a preview of a later revision answers them), oldest first.
    pub async fn standing_change_requests(
        self,
        plan_id: &str,
    ) -> Result<Vec<ChangeRequestView>, StoreError> {
        let rows = sqlx::query(
            "SELECT reviewer, revision, preview_id, body, created_at FROM plan_change_requests c \
             WHERE c.plan_id = $1 AND c.withdrawn_at IS NULL \
             AND NOT EXISTS (SELECT 1 FROM plan_previews pp WHERE pp.plan_id = c.plan_id AND pp.revision > c.revision) \
             ORDER BY c.created_at, c.reviewer",
        )
        .bind(plan_id)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| ChangeRequestView {
                reviewer: r.get("reviewer"),
                revision: r.get("revision"),
                preview_id: r.get("preview_id"),
                body: r.get("body"),
                created_at: r.get("created_at"),
            })
            .collect())
    }

    /// One page of plans, newest activity first.
    pub async fn list_plans(self, filter: &ListFilter) -> Result<Vec<StoredListRow>, StoreError> {
        let mut q = Query {
            sql: "SELECT p.id, p.title, p.stack_id, s.name AS stack, p.org, p.author, p.created_at, p.last_activity_at, p.state, p.status_json \
                  FROM plans p JOIN stacks s ON s.id = p.stack_id WHERE 1 = 1"
                .to_string(),
            binds: Vec::new(),
        };
        if let Some(orgs) = &filter.orgs {
            if orgs.is_empty() {
                return Ok(Vec::new());
            }
            let list = q.list(orgs);
            q.sql += &format!(" AND p.org IN ({list})");
        }
        if let Some(org) = &filter.org {
            let p = q.bind(org);
            q.sql += &format!(" AND p.org = {p}");
        }
        if let Some(stack) = &filter.stack_id {
            let p = q.bind(stack);
            q.sql += &format!(" AND p.stack_id = {p}");
        }
        if !filter.states.is_empty() {
            let states: Vec<String> =
                filter.states.iter().map(|s| s.as_str().to_string()).collect();
            let list = q.list(&states);
            q.sql += &format!(" AND p.state IN ({list})");
        }
        if let Some(author) = &filter.author {
            let p = q.bind(author);
            q.sql += &format!(" AND p.author = {p}");
        }
        if let Some(awaiting) = &filter.awaiting {
            if let Some(orgs) = &awaiting.orgs {
                if orgs.is_empty() {
                    return Ok(Vec::new());
                }
                let list = q.list(orgs);
                q.sql += &format!(" AND p.org IN ({list})");
            }
            let me = q.bind(&awaiting.reviewer);
            q.sql += &format!(
                " AND p.state = 'previewed' \
                 AND NOT EXISTS (SELECT 1 FROM plan_approvals a WHERE a.plan_id = p.id AND a.preview_id = p.latest_preview AND a.approver = {me}) \
                 AND (COALESCE((SELECT ss.author_may_approve FROM stack_settings ss WHERE ss.stack_id = p.stack_id), 0) <> 0 \
                      OR (COALESCE(p.author, '') <> {me} AND NOT EXISTS (SELECT 1 FROM plan_revisions r WHERE r.plan_id = p.id AND r.author = {me})))"
            );
        }
        if let Some((at, id)) = &filter.after {
            let (at, id) = (q.bind(at), q.bind(id));
            q.sql += &format!(
                " AND (p.last_activity_at < {at} OR (p.last_activity_at = {at} AND p.id < {id}))"
            );
        }
        q.sql += &format!(" ORDER BY p.last_activity_at DESC, p.id DESC LIMIT {}", filter.limit);
        let mut query = sqlx::query(&q.sql);
        for b in &q.binds {
            query = query.bind(b);
        }
        let rows = query.fetch_all(&self.store.pool).await?;
        Ok(rows
            .iter()
            .map(|r| StoredListRow {
                id: r.get("id"),
                title: r.get("title"),
                stack_id: r.get("stack_id"),
                stack: r.get("stack"),
                org: r.get("org"),
                author: r.get("author"),
                created_at: r.get("created_at"),
                last_activity_at: r.get("last_activity_at"),
                state: r.get("state"),
                status_json: r.get("status_json"),
            })
            .collect())
    }
}
