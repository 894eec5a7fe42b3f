//! Viewed marks: a reviewer ticks off the resources of a plan they have looked at, as in a code
//! review's file list. A mark keeps the key of the result the reviewer saw (see
//! [`crate::previews::results`]'s result keys), so it counts only while the plan's preview shows that same
//! result: a new preview that changes the resource's status, differences or values leaves it
//! unviewed again, and one that does not keeps it viewed across revisions.

use ferry_types::plans::{ViewedMarkAnswer, ViewedMarkInput, ViewedResources};
use ferry_types::PreviewRef;

use crate::access::Caller;
use crate::previews::results::ResultRows;
use crate::{ServiceError, Workflow};

impl Workflow {
    /// The plan whose preview `preview_id` is (marks are kept per plan, so they outlive one
    /// preview).
    async fn viewed_plan(&self, preview_id: &str) -> Result<String, ServiceError> {
        match self.store.plans().plan_of_preview(preview_id).await? {
            Some((plan, _)) => Ok(plan),
            None => Err(ServiceError::Invalid(format!("preview `{preview_id}` was not made for a plan; viewed marks are kept on a plan's resources"))),
        }
    }

    /// `reviewer`'s marks on `plan` that still count against the preview's `rows`.
    async fn counted_marks(
        &self,
        plan: &str,
        reviewer: &str,
        rows: &ResultRows,
    ) -> Result<Vec<String>, ServiceError> {
        let marks = self.store.plans().viewed_marks(plan, reviewer).await?;
        Ok(marks
            .into_iter()
            .filter(|m| rows.result_key(&m.urn) == Some(m.result_key.as_str()))
            .map(|m| m.urn)
            .collect())
    }

    /// The resources of the preview the caller has viewed, as its results show them now.
    pub async fn viewed(
        &self,
        caller: &Caller,
        preview_id: &str,
    ) -> Result<ViewedResources, ServiceError> {
        let me = caller.require_signed_in()?;
        let plan = self.viewed_plan(preview_id).await?;
        let rows =
            self.previews.rows_of(&PreviewRef::Owner { preview: preview_id.to_string() }).await?;
        let mut viewed = self.counted_marks(&plan, &me.name, &rows).await?;
        // In byte order whatever the database's collation (the page looks marks up by it).
        viewed.sort();
        Ok(ViewedResources { viewed, total: rows.total() })
    }

    /// Marks one resource of the preview viewed by the caller (as of the result the preview
    /// shows), or takes the mark off; answers the mark and how many the caller has viewed then.
    pub async fn mark_viewed(
        &self,
        caller: &Caller,
        preview_id: &str,
        input: &ViewedMarkInput,
    ) -> Result<ViewedMarkAnswer, ServiceError> {
        let me = caller.require_signed_in()?;
        let plan = self.viewed_plan(preview_id).await?;
        let rows =
            self.previews.rows_of(&PreviewRef::Owner { preview: preview_id.to_string() }).await?;
        let Some(key) = rows.result_key(&input.urn) else {
            return Err(ServiceError::Plan(format!("the preview has no resource `{}`", input.urn)));
        };
        if input.viewed {
            self.store.plans().mark_viewed(&plan, &me.name, &input.urn, key).await?;
        } else {
            self.store.plans().unmark_viewed(&plan, &me.name, &input.urn).await?;
        }
        // Counted against the rows and plan already in hand (no second lookup, no sorting).
        let count = self.counted_marks(&plan, &me.name, &rows).await?.len();
        Ok(ViewedMarkAnswer {
            urn: input.urn.clone(),
            viewed: input.viewed,
            count,
            total: rows.total(),
        })
    }
}
