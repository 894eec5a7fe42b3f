//! A plan's life: its state computed from what happened to it (revisions, previews, approvals,
//! requests for changes, its commit, its closing) each time something does, and kept with it;
//! closing and reopening; requests for changes; and the lists of plans a person finds their
//! work in (`awaiting=me`: what waits for their review).
//!
//! The state is never set by hand: every event calls [`Workflow::refresh_status`], which reads the
//! facts and writes the one state they make, so a state can never disagree with its history.

mod approvals;
mod viewed;

use ferry_store::plan_lifecycle::{Awaiting, ListFilter};
use ferry_types::plans::{
    BlockerKind, ChangeRequestInput, ChangeRequestView, CommitBlocker, PlanListPage, PlanListQuery,
    PlanListRow, PlanState, PlanStatus,
};

use crate::access::{Caller, Role};
use crate::previews::Previews;
use crate::webhooks::Webhooks;
use crate::ServiceError;

/// Rows in a list page unless the caller asks for fewer, and at most.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 200;

/// What a state says about the commit, when it blocks it.
pub(crate) fn blocked_by_changes(requests: &[ChangeRequestView]) -> Option<String> {
    let names: Vec<String> = requests.iter().map(|r| format!("`{}`", r.reviewer)).collect();
    (!names.is_empty()).then(|| {
        format!(
            "{} requested changes; a new revision's preview, or withdrawing the request, lifts it",
            names.join(", ")
        )
    })
}

/// Where plans stand: each one's state at every event, the approval rule and approvals, the
/// commit (which the rule gates), closing and reopening, requests for changes, what a reviewer
/// has viewed, and the lists people find plans in. Above the previews it reads and commits;
/// what happens to a plan is announced to its organisation's webhooks from here.
#[derive(Clone)]
pub struct Workflow {
    pub(crate) store: ferry_store::Store,
    pub(crate) previews: Previews,
    webhooks: Webhooks,
}

impl Workflow {
    pub(crate) fn new(
        store: ferry_store::Store,
        previews: Previews,
        webhooks: Webhooks,
    ) -> Workflow {
        Workflow { store, previews, webhooks }
    }

    /// Tells the plan's organisation's webhooks that `event` happened to it (`actor`: who did
    /// it; none for what Ferry did). The plan's status is only computed when a webhook hears.
    pub(crate) async fn announce(
        &self,
        plan_id: &str,
        event: ferry_types::webhooks::WebhookEvent,
        actor: Option<&str>,
    ) {
        self.webhooks.after_event(plan_id, event, actor, self.plan_status(plan_id)).await
    }

    /// Computes the plan's state from what happened to it and keeps it. `touch`: something
    /// happened to the plan now (its last activity); a change of the stack's rule recomputes
    /// without being the plan's activity.
    pub(crate) async fn refresh_status(
        &self,
        plan_id: &str,
        touch: bool,
    ) -> Result<PlanStatus, ServiceError> {
        let status = self.plan_status(plan_id).await?;
        let json = serde_json::to_string(&status).expect("a status serialises");
        self.store
            .plans()
            .set_plan_status(plan_id, status.state, status.preview.as_deref(), &json, touch)
            .await?;
        Ok(status)
    }

    /// The plan's state as its history makes it now.
    pub async fn plan_status(&self, plan_id: &str) -> Result<PlanStatus, ServiceError> {
        let facts = self.store.plans().lifecycle_facts(plan_id).await?;
        let approval = self.approval_state(plan_id).await?;
        let requests = approval.changes_requested.clone();
        let counts = match &approval.preview {
            Some(preview) => self.previews.review_counts(preview).await?,
            None => Default::default(),
        };
        let mut blockers = Vec::new();
        let mut block =
            |kind: BlockerKind, message: String| blockers.push(CommitBlocker { kind, message });
        match &approval.preview {
            None => block(
                BlockerKind::NoPreview,
                format!("revision {} has no preview yet", approval.revision),
            ),
            Some(preview) => {
                if let Some(refusal) = &counts.refusal {
                    block(BlockerKind::Preview, refusal.clone());
                }
                let (base, latest) = self.store.stacks().preview_base_and_latest(preview).await?;
                if base != latest && facts.committed_version.is_none() {
                    block(
                        BlockerKind::StalePreview,
                        format!("the stack moved on since the preview (it ran against version {base}, the stack is at version {latest}); preview again"),
                    );
                }
            }
        }
        if let Some(reason) = blocked_by_changes(&approval.changes_requested) {
            block(BlockerKind::ChangesRequested, reason);
        }
        if approval.preview.is_some()
            && (approval.approvals.len() as i64) < approval.required_approvals
        {
            block(
                BlockerKind::ApprovalsMissing,
                format!(
                    "{} of the {} approvals this stack requires",
                    approval.approvals.len(),
                    approval.required_approvals
                ),
            );
        }
        if facts.closed {
            block(BlockerKind::Closed, "the plan was closed; reopen it to commit".into());
        }
        let state = if facts.committed_version.is_some() {
            PlanState::Committed
        } else if facts.closed {
            PlanState::Closed
        } else if approval.preview.is_none() {
            PlanState::Draft
        } else if !requests.is_empty() {
            PlanState::ChangesRequested
        } else if approval.satisfied && !approval.approvals.is_empty() {
            PlanState::Approved
        } else {
            PlanState::Previewed
        };
        Ok(PlanStatus {
            state,
            revision: approval.revision,
            preview: approval.preview.clone(),
            counts: counts.by_status,
            differing: counts.differing,
            approvals: approval.approvals.len() as i64,
            required_approvals: approval.required_approvals,
            changes_requested_by: requests.into_iter().map(|r| r.reviewer).collect(),
            committed_version: facts.committed_version,
            closed_by: facts.closed_by.filter(|_| facts.closed),
            // A committed plan has nothing left to commit.
            blockers: if facts.committed_version.is_some() { Vec::new() } else { blockers },
        })
    }

    /// [`Self::refresh_status`] after an event that already happened: the event stands even when
    /// the state could not be recomputed now (the next event, or the next start, computes it),
    /// so a failure is logged rather than answered. The status it kept, when it could.
    pub(crate) async fn after_event(&self, plan_id: &str) -> Option<PlanStatus> {
        match self.refresh_status(plan_id, true).await {
            Ok(status) => Some(status),
            Err(e) => {
                tracing::warn!(plan = %plan_id, error = %e, "a plan's state was not recomputed");
                None
            }
        }
    }

    /// Computes the state of every plan that has none (made before plans had one): once, at
    /// start.
    pub async fn compute_missing_statuses(&self) -> Result<usize, ServiceError> {
        let missing = self.store.plans().plans_without_status().await?;
        for id in &missing {
            self.refresh_status(id, false).await?;
        }
        Ok(missing.len())
    }

    /// The stack's open plans again, after its approval rule changed.
    pub(crate) async fn refresh_stack_plans(&self, stack_id: &str) -> Result<(), ServiceError> {
        for id in self.store.plans().open_plans_of_stack(stack_id).await? {
            self.refresh_status(&id, false).await?;
        }
        Ok(())
    }

    /// Closes the plan: its author (anyone who wrote a revision) or an administrator of its
    /// organisation. A committed plan stays committed.
    pub async fn close_plan(
        &self,
        caller: &Caller,
        plan_id: &str,
    ) -> Result<PlanStatus, ServiceError> {
        let me = self.require_author_or_admin(caller, plan_id, "close").await?;
        let status = self.plan_status(plan_id).await?;
        match status.state {
            PlanState::Committed => {
                return Err(ServiceError::Conflict(
                    "the plan was committed; a committed plan is not closed".into(),
                ))
            }
            PlanState::Closed => return Ok(status),
            _ => {}
        }
        self.store.plans().set_plan_closed(plan_id, Some(&me)).await?;
        let status = self.refresh_status(plan_id, true).await?;
        self.announce(plan_id, ferry_types::webhooks::WebhookEvent::PlanClosed, Some(&me)).await;
        Ok(status)
    }

    /// Reopens a closed plan, which takes the state its history gives it again.
    pub async fn reopen_plan(
        &self,
        caller: &Caller,
        plan_id: &str,
    ) -> Result<PlanStatus, ServiceError> {
        self.require_author_or_admin(caller, plan_id, "reopen").await?;
        let status = self.plan_status(plan_id).await?;
        if status.state != PlanState::Closed {
            return Err(ServiceError::Conflict(format!(
                "the plan is {}, not closed",
                status.state.as_str()
            )));
        }
        self.store.plans().set_plan_closed(plan_id, None).await?;
        self.refresh_status(plan_id, true).await
    }

    async fn require_author_or_admin(
        &self,
        caller: &Caller,
        plan_id: &str,
        what: &str,
    ) -> Result<String, ServiceError> {
        let me = caller.require_signed_in()?;
        let org = self.store.plans().lifecycle_facts(plan_id).await?.org;
        let authors = self.store.plans().plan_authors(plan_id).await?;
        if authors.contains(&me.name) || caller.may(&org, Role::Admin) {
            Ok(me.name.clone())
        } else {
            Err(ServiceError::Forbidden(format!("only the plan's authors and administrators of `{org}` may {what} it; `{}` is neither", me.name)))
        }
    }

    /// Asks for changes to what the reviewer looked at (`input.revision` and `input.preview`,
    /// which must still be the plan's latest): it blocks the commit until they or an
    /// administrator withdraw it, or a later revision is previewed. The same rule as approving
    /// decides who may: an approver, not an author where the stack does not let authors approve.
    pub async fn request_changes(
        &self,
        caller: &Caller,
        plan_id: &str,
        input: ChangeRequestInput,
    ) -> Result<PlanStatus, ServiceError> {
        let me = caller.require_signed_in()?;
        let state = self.approval_state(plan_id).await?;
        if state.revision != input.revision
            || state.preview.as_deref() != Some(input.preview.as_str())
        {
            return Err(ServiceError::Conflict(format!(
                "you reviewed revision {}, but the plan is at revision {} with {}; review it again",
                input.revision,
                state.revision,
                if state.preview.is_some() { "a newer preview" } else { "no preview yet" }
            )));
        }
        if !state.author_may_approve && state.authors.contains(&me.name) {
            return Err(ServiceError::Forbidden(format!(
                "`{}` wrote this plan, and this stack does not let authors review their own plans",
                me.name
            )));
        }
        let body = input.body.trim();
        if body.chars().count() > ferry_types::api::MAX_COMMENT_CHARS {
            return Err(ServiceError::Invalid(format!(
                "a request for changes holds at most {} characters",
                ferry_types::api::MAX_COMMENT_CHARS
            )));
        }
        // A reviewer who asks for changes no longer approves what they asked changes to.
        self.store
            .plans()
            .remove_approval(plan_id, input.revision, &input.preview, &me.name)
            .await?;
        self.store
            .plans()
            .add_change_request(plan_id, &me.name, input.revision, &input.preview, body)
            .await?;
        let status = self.refresh_status(plan_id, true).await?;
        self.announce(
            plan_id,
            ferry_types::webhooks::WebhookEvent::ChangesRequested,
            Some(&me.name),
        )
        .await;
        Ok(status)
    }

    /// Withdraws `reviewer`'s request (the caller's own, or anyone's for an administrator).
    pub async fn withdraw_change_request(
        &self,
        caller: &Caller,
        plan_id: &str,
        reviewer: &str,
    ) -> Result<PlanStatus, ServiceError> {
        let me = caller.require_signed_in()?;
        let org = self.store.plans().lifecycle_facts(plan_id).await?.org;
        if reviewer != me.name && !caller.may(&org, Role::Admin) {
            return Err(ServiceError::Forbidden(format!("only `{reviewer}` or an administrator of `{org}` withdraws `{reviewer}`'s request for changes")));
        }
        if !self.store.plans().withdraw_change_request(plan_id, reviewer, &me.name).await? {
            return Err(ServiceError::Conflict(format!(
                "`{reviewer}` has no request for changes standing on this plan"
            )));
        }
        self.refresh_status(plan_id, true).await
    }

    /// The requests for changes that block the plan's commit.
    pub async fn change_requests(
        &self,
        plan_id: &str,
    ) -> Result<Vec<ChangeRequestView>, ServiceError> {
        Ok(self.store.plans().standing_change_requests(plan_id).await?)
    }

    /// What blocks the commit of `plan_id` beyond approvals: standing requests for changes.
    pub(crate) async fn changes_block(
        &self,
        plan_id: &str,
    ) -> Result<Option<String>, ServiceError> {
        Ok(blocked_by_changes(&self.store.plans().standing_change_requests(plan_id).await?))
    }

    /// One page of the plans `caller` may read that match `query`, newest activity first.
    pub async fn list_plans(
        &self,
        caller: &Caller,
        query: &PlanListQuery,
    ) -> Result<PlanListPage, ServiceError> {
        let me = caller.require_signed_in()?;
        let orgs_with = |role: Role| -> Option<Vec<String>> {
            if me.grants.iter().any(|g| g.org == "*" && g.role.grants(role)) {
                return None;
            }
            let mut orgs: Vec<String> =
                me.grants.iter().filter(|g| g.role.grants(role)).map(|g| g.org.clone()).collect();
            orgs.sort();
            orgs.dedup();
            Some(orgs)
        };
        let mut states = Vec::new();
        for s in
            query.state.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|s| !s.is_empty())
        {
            match s {
                "open" => states.extend(PlanState::ALL.into_iter().filter(|s| s.is_open())),
                other => states.push(PlanState::parse(other).ok_or_else(|| {
                    let known: Vec<&str> = PlanState::ALL.iter().map(|s| s.as_str()).collect();
                    ServiceError::Invalid(format!(
                        "`state={other}`: a plan's state is one of {}, or `open`",
                        known.join(", ")
                    ))
                })?),
            }
        }
        let awaiting = match query.awaiting.as_deref() {
            None | Some("") => None,
            Some("me") => {
                Some(Awaiting { reviewer: me.name.clone(), orgs: orgs_with(Role::Approver) })
            }
            Some(other) => {
                return Err(ServiceError::Invalid(format!(
                    "`awaiting={other}`: only `awaiting=me` is known"
                )))
            }
        };
        let after = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
            Some(cursor) => Some(parse_cursor(cursor)?),
            None => None,
        };
        let limit = query.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        let filter = ListFilter {
            orgs: orgs_with(Role::Viewer),
            org: query.org.clone().filter(|o| !o.is_empty()),
            stack_id: query.stack.clone().filter(|s| !s.is_empty()),
            states,
            author: query.author.as_deref().filter(|a| !a.is_empty()).map(|a| {
                if a == "me" {
                    me.name.clone()
                } else {
                    a.to_string()
                }
            }),
            awaiting,
            after,
            // One more than the page: whether there is a next one.
            limit: limit + 1,
        };
        let mut rows = self.store.plans().list_plans(&filter).await?;
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next =
            more.then(|| rows.last().map(|r| format!("{}~{}", r.last_activity_at, r.id))).flatten();
        let mut plans = Vec::with_capacity(rows.len());
        for row in rows {
            let status = match row
                .status_json
                .as_deref()
                .and_then(|j| serde_json::from_str::<PlanStatus>(j).ok())
            {
                Some(status) => status,
                // Not computed yet (made before plans had a state, and the start's pass has not
                // reached it): computed now.
                None => self.refresh_status(&row.id, false).await?,
            };
            plans.push(PlanListRow {
                id: row.id,
                title: row.title,
                stack_id: row.stack_id,
                stack: row.stack,
                org: row.org,
                author: row.author,
                created_at: row.created_at,
                last_activity_at: row.last_activity_at,
                status,
            });
        }
        Ok(PlanListPage { plans, next })
    }
}

/// A list's cursor: the last row's activity time and ID, as [`Workflow::list_plans`] makes it.
fn parse_cursor(cursor: &str) -> Result<(String, String), ServiceError> {
    let bad = || {
        ServiceError::Invalid(format!(
            "`cursor={cursor}` is not a cursor a plan list gave (use its `next`)"
        ))
    };
    let (at, id) = cursor.split_once('~').ok_or_else(bad)?;
    if at.is_empty() || id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    Ok((at.to_string(), id.to_string()))
}
