//! Read-only links, as a reader uses them: a token resolved to the plan revision (and its
//! previews) it reads, while the link works. Beneath previews and plans, which both read
//! through links; making and revoking links is the plans'.

use ferry_store::plans::{PlanRevision, PlanShare};

use crate::accounts::Accounts;
use crate::ServiceError;

/// Resolves read-only links' tokens.
#[derive(Clone)]
pub(crate) struct ShareLinks {
    store: ferry_store::Store,
    accounts: Accounts,
}

impl ShareLinks {
    pub(crate) fn new(store: ferry_store::Store, accounts: Accounts) -> ShareLinks {
        ShareLinks { store, accounts }
    }

    /// A read-only link that works: not revoked, not expired, and its organisation still
    /// allows links (a link that does not work is gone, whatever the reason).
    pub(crate) async fn live(&self, token: &str) -> Result<PlanShare, ServiceError> {
        let share =
            self.store.plans().plan_share_by_token(&ferry_store::hash_secret(token)).await?;
        let org = self.accounts.org_of(crate::access::Object::Plan, &share.plan_id).await?;
        if !share.active || !self.store.plans().org_settings(&org).await?.share_links {
            return Err(ferry_store::StoreError::ShareNotFound.into());
        }
        Ok(share)
    }

    /// A revision (the latest when `None`) of the plan behind a live read-only link.
    pub(crate) async fn revision(
        &self,
        token: &str,
        revision: Option<i64>,
    ) -> Result<PlanRevision, ServiceError> {
        let share = self.live(token).await?;
        Ok(self.store.plans().plan_revision(&share.plan_id, revision).await?)
    }

    /// The ID of the shared plan revision's preview at `index` (never shown to the link's reader).
    pub(crate) async fn preview_id(
        &self,
        token: &str,
        revision: Option<i64>,
        index: usize,
    ) -> Result<String, ServiceError> {
        let rev = self.revision(token, revision).await?;
        Ok(rev
            .previews
            .get(index)
            .cloned()
            .ok_or_else(|| ferry_store::StoreError::PreviewNotFound(index.to_string()))?)
    }
}
