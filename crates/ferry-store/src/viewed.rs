//! Viewed marks: the resources of a plan each reviewer has looked at, each with the key of the
//! preview result they saw (migration 0023). The store keeps marks as they were made; whether a
//! mark still counts (its key equals the resource's result now) is the service's to decide.

use sqlx::Row;

use crate::{PlanRows, StoreError};

/// One reviewer's mark on one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewedMark {
    pub urn: String,
    /// The key of the result the reviewer saw.
    pub result_key: String,
}

impl PlanRows<'_> {
    /// Marks `urn` viewed by `reviewer` as of the result `result_key` (a mark made again takes
    /// the newer key).
    pub async fn mark_viewed(
        self,
        plan_id: &str,
        reviewer: &str,
        urn: &str,
        result_key: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO plan_viewed_marks (plan_id, reviewer, urn, result_key, marked_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (plan_id, reviewer, urn) DO UPDATE SET result_key = excluded.result_key, marked_at = excluded.marked_at",
        )
        .bind(plan_id)
        .bind(reviewer)
        .bind(urn)
        .bind(result_key)
        .bind(self.store.clock.now())
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Takes `reviewer`'s mark off `urn` (nothing to take off is no error).
    pub async fn unmark_viewed(
        self,
        plan_id: &str,
        reviewer: &str,
        urn: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM plan_viewed_marks WHERE plan_id = $1 AND reviewer = $2 AND urn = $3",
        )
        .bind(plan_id)
        .bind(reviewer)
        .bind(urn)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Every mark `reviewer` made on the plan's resources.
    pub async fn viewed_marks(
        self,
        plan_id: &str,
        reviewer: &str,
    ) -> Result<Vec<ViewedMark>, StoreError> {
        let rows = sqlx::query("SELECT urn, result_key FROM plan_viewed_marks WHERE plan_id = $1 AND reviewer = $2 ORDER BY urn")
            .bind(plan_id)
            .bind(reviewer)
            .fetch_all(&self.store.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|r| ViewedMark { urn: r.get("urn"), result_key: r.get("result_key") })
            .collect())
    }
}
