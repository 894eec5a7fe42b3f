//! Comments on a plan revision, anchored to a resource and optionally a property path, in
//! threads that are resolved or open; and a plan's timeline (its audit records).

use ferry_store::accounts::AuditRecord;
use ferry_store::review::{Comment, NewComment};
use ferry_types::api::{CommentInput, MAX_COMMENT_CHARS};

use crate::access::Caller;
use crate::{Plans, ServiceError};

impl Plans {
    pub async fn comments(
        &self,
        plan_id: &str,
        revision: Option<i64>,
    ) -> Result<Vec<Comment>, ServiceError> {
        self.store.plans().plan(plan_id).await?;
        Ok(self.store.plans().comments(plan_id, revision).await?)
    }

    /// The comments of the plan behind a live read-only link.
    pub async fn shared_comments(
        &self,
        token: &str,
        revision: Option<i64>,
    ) -> Result<Vec<Comment>, ServiceError> {
        let share = self.shares.live(token).await?;
        let mut comments = self.store.plans().comments(&share.plan_id, revision).await?;
        for c in &mut comments {
            // The plan's ID is what editing needs: a link's reader never gets it.
            c.plan_id = String::new();
        }
        Ok(comments)
    }

    pub async fn add_comment(
        &self,
        caller: &Caller,
        plan_id: &str,
        input: CommentInput,
    ) -> Result<Comment, ServiceError> {
        let me = caller.require_signed_in()?;
        let body = input.body.trim();
        if body.is_empty() || body.chars().count() > MAX_COMMENT_CHARS {
            return Err(ServiceError::Invalid(format!(
                "a comment has 1 to {MAX_COMMENT_CHARS} characters"
            )));
        }
        if input.urn.trim().is_empty() {
            return Err(ServiceError::Invalid(
                "`urn`: name the resource the comment is about".into(),
            ));
        }
        self.store.plans().plan_revision(plan_id, Some(input.revision)).await?;
        let parent = match &input.parent {
            Some(id) => {
                let parent = self.store.plans().comment(id).await?;
                if parent.plan_id != plan_id {
                    return Err(ferry_store::StoreError::CommentNotFound(id.clone()).into());
                }
                // Replies hang off the thread's first comment.
                Some(parent.parent_id.unwrap_or(parent.id))
            }
            None => None,
        };
        let path = input.path.as_deref().map(str::trim).filter(|p| !p.is_empty());
        let comment = self
            .store
            .plans()
            .add_comment(NewComment {
                plan_id,
                revision: input.revision,
                urn: &input.urn,
                path,
                parent_id: parent.as_deref(),
                author: &me.name,
                body,
            })
            .await?;
        self.workflow.after_event(plan_id).await;
        Ok(comment)
    }

    /// Resolves a thread (or opens it again).
    pub async fn resolve_comment(
        &self,
        caller: &Caller,
        plan_id: &str,
        comment_id: &str,
        resolved: bool,
    ) -> Result<Comment, ServiceError> {
        let me = caller.require_signed_in()?;
        let comment = self.store.plans().comment(comment_id).await?;
        if comment.plan_id != plan_id {
            return Err(ferry_store::StoreError::CommentNotFound(comment_id.to_string()).into());
        }
        let thread = comment.parent_id.unwrap_or(comment.id);
        let resolved = self
            .store
            .plans()
            .resolve_comment(&thread, resolved.then_some(me.name.as_str()))
            .await?;
        self.workflow.after_event(plan_id).await;
        Ok(resolved)
    }

    /// The plan's timeline: who created, revised, previewed, resolved, commented, approved and
    /// committed it, and when. Where each call came from is for the organisation's
    /// administrators only.
    pub async fn plan_activity(
        &self,
        caller: &Caller,
        plan_id: &str,
    ) -> Result<Vec<AuditRecord>, ServiceError> {
        let plan = self.store.plans().plan(plan_id).await?;
        let org =
            crate::access::org_of_name(&self.store.stacks().stack(&plan.stack_id).await?.name)
                .to_string();
        let mut records = self.store.plans().plan_activity(plan_id).await?;
        if !caller.may(&org, crate::access::Role::Admin) {
            records.iter_mut().for_each(|r| r.address = None);
        }
        Ok(records)
    }
}
