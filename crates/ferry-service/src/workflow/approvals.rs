//! Approvals: reviewers approve one revision's latest preview; a new revision or a new preview
//! leaves earlier approvals behind; a stack's rule says how many a commit needs and whether a
//! plan's author may approve it. The commit checks the rule (`commit_gate`). All of it is the workflow's: it is what moves
//! a plan's state.

use ferry_store::review::StackSettings;
use ferry_types::api::CommitOutcome;
use ferry_types::StackSettingsView;

use crate::access::Caller;
use crate::{ServiceError, Workflow};

/// Where a plan stands: its latest revision and preview, their approvals, the stack's rule.
pub type ApprovalState = ferry_types::ApprovalStateView;

impl Workflow {
    pub async fn approval_state(&self, plan_id: &str) -> Result<ApprovalState, ServiceError> {
        let plan = self.store.plans().plan(plan_id).await?;
        let revision = self.store.plans().plan_revision(plan_id, None).await?;
        let preview = revision.previews.last().cloned();
        let settings = self.store.plans().stack_settings(&plan.stack_id).await?;
        let authors = self.store.plans().plan_authors(plan_id).await?;
        let approvals = match &preview {
            Some(p) => self.store.plans().approvals(plan_id, revision.revision, p).await?,
            None => Vec::new(),
        };
        let changes_requested = self.store.plans().standing_change_requests(plan_id).await?;
        // A request for changes says more than a count of approvals: it is named first.
        let changes = crate::workflow::blocked_by_changes(&changes_requested);
        let reason = if preview.is_none() {
            Some(format!("revision {} has no preview yet", revision.revision))
        } else if changes.is_some() {
            changes
        } else if (approvals.len() as i64) < settings.required_approvals {
            Some(format!(
                "revision {}'s preview has {} of the {} approvals this stack requires",
                revision.revision,
                approvals.len(),
                settings.required_approvals
            ))
        } else {
            None
        };
        Ok(ApprovalState {
            revision: revision.revision,
            preview,
            author: plan.author,
            authors,
            required_approvals: settings.required_approvals,
            author_may_approve: settings.author_may_approve,
            satisfied: reason.is_none(),
            reason,
            approvals,
            changes_requested,
        })
    }

    /// Approves the plan's latest revision's latest preview; `revision` and `preview` say what
    /// the reviewer looked at, so an approval never lands on something newer.
    pub async fn approve(
        &self,
        caller: &Caller,
        plan_id: &str,
        revision: i64,
        preview: &str,
    ) -> Result<ApprovalState, ServiceError> {
        let me = caller.require_signed_in()?;
        let state = self.approval_state(plan_id).await?;
        if state.revision != revision || state.preview.as_deref() != Some(preview) {
            return Err(ServiceError::Conflict(format!(
                "you reviewed revision {revision}, but the plan is at revision {} with {}; review it again",
                state.revision,
                if state.preview.as_deref() == Some(preview) { "this preview".to_string() } else { "a newer preview".to_string() }
            )));
        }
        // Whoever wrote any revision (a resolution or a discovery's selection included) is an
        // author of the plan.
        if !state.author_may_approve && state.authors.contains(&me.name) {
            return Err(ServiceError::Forbidden(format!(
                "`{}` wrote this plan, and this stack does not let authors approve their own plans",
                me.name
            )));
        }
        self.store.plans().add_approval(plan_id, revision, preview, &me.name).await?;
        // The status the event kept says whether the plan is now approved (no second reckoning).
        if self
            .after_event(plan_id)
            .await
            .is_some_and(|s| s.state == ferry_types::plans::PlanState::Approved)
        {
            self.announce(
                plan_id,
                ferry_types::webhooks::WebhookEvent::PlanApproved,
                Some(&me.name),
            )
            .await;
        }
        self.approval_state(plan_id).await
    }

    pub async fn withdraw_approval(
        &self,
        caller: &Caller,
        plan_id: &str,
    ) -> Result<ApprovalState, ServiceError> {
        let me = caller.require_signed_in()?;
        let state = self.approval_state(plan_id).await?;
        if let Some(preview) = &state.preview {
            self.store.plans().remove_approval(plan_id, state.revision, preview, &me.name).await?;
        }
        self.after_event(plan_id).await;
        self.approval_state(plan_id).await
    }

    /// Commits a preview as the stack's next version ([`crate::Previews`] does the work), once
    /// the stack's rule allows it: a preview of a plan moves the plan's state and is announced,
    /// even when an apply failed part-way (its version was still made).
    pub async fn commit_preview(
        &self,
        id: &str,
        passphrase: Option<String>,
        apply: bool,
    ) -> Result<CommitOutcome, ServiceError> {
        if let Some(version) = self.store.stacks().preview_committed_version(id).await? {
            return Err(ferry_store::StoreError::AlreadyCommitted { version }.into());
        }
        let stack_id = self.store.stacks().preview_stack(id).await?;
        let plan = self.store.plans().plan_of_preview(id).await?;
        self.commit_gate(&stack_id, id, plan.clone()).await?;
        let outcome = self.previews.commit_preview(id, passphrase, apply).await;
        // What follows the commit is never its failure: a state not recomputed now is at the
        // plan's next event.
        if let Some((plan_id, _)) = plan {
            let committed = outcome.is_ok()
                || matches!(self.store.stacks().preview_committed_version(id).await, Ok(Some(_)));
            if committed {
                self.after_event(&plan_id).await;
                self.announce(&plan_id, ferry_types::webhooks::WebhookEvent::PlanCommitted, None)
                    .await;
            }
        }
        outcome
    }

    /// Refuses a commit of `preview_id` that the stack's rule does not allow yet: not the latest
    /// preview of its plan's latest revision, or too few approvals; or that a reviewer asked
    /// changes to, or whose plan was closed. `plan`: the plan and revision the preview was run
    /// for, if any.
    async fn commit_gate(
        &self,
        stack_id: &str,
        preview_id: &str,
        plan: Option<(String, i64)>,
    ) -> Result<(), ServiceError> {
        if let Some((plan_id, _)) = &plan {
            if let Some(reason) = self.changes_block(plan_id).await? {
                return Err(ServiceError::NeedsApproval(reason));
            }
            if self.store.plans().lifecycle_facts(plan_id).await?.closed {
                return Err(ServiceError::Conflict(
                    "the plan was closed; reopen it to commit its preview".into(),
                ));
            }
        }
        let settings = self.store.plans().stack_settings(stack_id).await?;
        if settings.required_approvals == 0 {
            return Ok(());
        }
        let Some((plan_id, revision)) = plan else {
            return Err(ServiceError::NeedsApproval(format!(
                "commits to this stack need {} approval(s): preview through a plan, and have it approved",
                settings.required_approvals
            )));
        };
        let state = self.approval_state(&plan_id).await?;
        if state.revision != revision || state.preview.as_deref() != Some(preview_id) {
            return Err(ServiceError::NeedsApproval(format!(
                "this preview is of revision {revision}, but the plan has a newer revision or preview (revision {}); commit that one once approved",
                state.revision
            )));
        }
        match state.reason {
            Some(reason) => Err(ServiceError::NeedsApproval(reason)),
            None => Ok(()),
        }
    }
}

impl Workflow {
    pub async fn stack_settings(&self, stack_id: &str) -> Result<StackSettingsView, ServiceError> {
        Ok(settings_view(self.store.plans().stack_settings(stack_id).await?))
    }

    pub async fn set_stack_settings(
        &self,
        stack_id: &str,
        settings: StackSettingsView,
    ) -> Result<StackSettingsView, ServiceError> {
        if !(0..=10).contains(&settings.required_approvals) {
            return Err(ServiceError::Invalid(format!(
                "required approvals must be 0 to 10, not {}",
                settings.required_approvals
            )));
        }
        let settings = StackSettings {
            required_approvals: settings.required_approvals,
            author_may_approve: settings.author_may_approve,
        };
        let settings = self.store.plans().set_stack_settings(stack_id, settings).await?;
        // Whether a plan is approved depends on the rule.
        self.refresh_stack_plans(stack_id).await?;
        Ok(settings_view(settings))
    }
}

fn settings_view(settings: StackSettings) -> StackSettingsView {
    StackSettingsView {
        required_approvals: settings.required_approvals,
        author_may_approve: settings.author_may_approve,
    }
}
