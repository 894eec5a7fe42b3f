//! Joining an organisation by invitation, the only way an organisation's administrator brings
//! someone in: the administrator makes an invitation (from a browser session: a leaked API
//! token must not mint accounts), and the person holding its link accepts it — signed in, as
//! themselves, or by choosing a name and a password for a new local account. No one is added
//! to an organisation, or given a password, without that step of their own.

use ferry_store::accounts::{NewUser, SessionMethod};
use ferry_store::invitations::Invitation;
use ferry_store::StoreError;
use ferry_types::invitations::{AcceptInvitation, Accepted, InvitationInput, NewInvitation};

use crate::access::{Caller, Role};
use crate::accounts::{
    address_text, check_org, check_user_name, hash_secret, AuditEvent, NewSecret,
};
use crate::{Accounts, ServiceError};

/// How long an invitation may be accepted in, by default and at most.
const DEFAULT_DAYS: i64 = 7;
const MAX_DAYS: i64 = 30;

impl Accounts {
    /// A new invitation to `org` giving `input.roles`, made by one of its administrators from a
    /// session; its token is in this answer only.
    /// (`*`, every organisation, only for a server administrator, who alone administers it.)
    pub async fn invite(
        &self,
        caller: &Caller,
        org: &str,
        input: &InvitationInput,
    ) -> Result<NewInvitation, ServiceError> {
        check_org(org)?;
        caller.require(org, Role::Admin)?;
        let me = caller.require_session()?;
        let roles = input.roles.clone();
        if roles.is_empty() {
            return Err(ServiceError::Invalid("an invitation gives at least one role".into()));
        }
        let days = input.days.unwrap_or(DEFAULT_DAYS);
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(ServiceError::Invalid(format!(
                "`days` must be 1 to {MAX_DAYS}, not {days}"
            )));
        }
        let token = format!("ferry_invite_{}", ferry_store::random_id());
        let roles: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        let invitation = self
            .store
            .accounts()
            .add_invitation(org, &roles, &me.id, &hash_secret(&token), days * 86_400)
            .await?;
        Ok(NewInvitation { invitation, token })
    }

    /// `org`'s invitations (its administrators'), newest first; never their tokens.
    pub async fn invitations(
        &self,
        caller: &Caller,
        org: &str,
    ) -> Result<Vec<Invitation>, ServiceError> {
        check_org(org)?;
        caller.require(org, Role::Admin)?;
        Ok(self.store.accounts().invitations(org).await?)
    }

    pub async fn revoke_invitation(
        &self,
        caller: &Caller,
        org: &str,
        id: &str,
    ) -> Result<Invitation, ServiceError> {
        check_org(org)?;
        caller.require(org, Role::Admin)?;
        Ok(self.store.accounts().revoke_invitation(org, id).await?)
    }

    /// The open invitation a link's token names, as its holder sees it.
    pub async fn invitation(&self, token: &str) -> Result<Invitation, ServiceError> {
        let invitation = self.store.accounts().invitation_by_token(&hash_secret(token)).await?;
        if !invitation.active {
            return Err(ServiceError::Conflict(
                "this invitation was used, revoked or has expired; ask for a new one".into(),
            ));
        }
        Ok(invitation)
    }

    /// Accepts the invitation `token` names: as the signed-in caller (from a session), or, for
    /// nobody signed in, as a new local account with the name and password its owner chooses
    /// (signed in by the answer's session). Audited in the organisation.
    pub async fn accept_invitation(
        &self,
        caller: &Caller,
        token: &str,
        input: AcceptInvitation,
        address: Option<std::net::IpAddr>,
    ) -> Result<(Accepted, Option<NewSecret>), ServiceError> {
        let invitation = self.invitation(token).await?;
        let (user, session) = match &caller.user {
            Some(_) => {
                let me = caller.require_session()?;
                (self.store.accounts().user(&me.id).await?, None)
            }
            None => {
                let (Some(name), Some(password)) =
                    (input.name.as_deref(), input.password.as_deref())
                else {
                    return Err(ServiceError::Invalid("sign in to join as yourself, or choose a `name` and a `password` for a new account".into()));
                };
                check_user_name(name)?;
                let hash = crate::accounts::hash_password(password).await?;
                let user = match self.store.accounts().add_user(NewUser { name, ..Default::default() }).await {
                    Ok(user) => user,
                    Err(StoreError::UserExists(_)) => {
                        return Err(ServiceError::Conflict(format!("the name `{name}` is taken: choose another, or sign in first if it is yours")))
                    }
                    Err(e) => return Err(e.into()),
                };
                // The password is its owner's own choice, set by them.
                self.store.accounts().set_password_hash(&user.id, &hash, &user.id).await?;
                let session = self.start_session(&user.id, SessionMethod::Password).await?;
                (user, Some(session))
            }
        };
        let accepted = self
            .store
            .accounts()
            .accept_invitation(&hash_secret(token), &user.id)
            .await?
            .ok_or_else(|| ServiceError::Conflict("this invitation was accepted a moment ago, revoked or has expired; ask for a new one".into()))?;
        let record = AuditEvent {
            actor: &user.name,
            org: Some(&accepted.org),
            action: "invitation.accept",
            object: &format!("invitation {} from {}", accepted.id, invitation.invited_by),
            address: &address_text(address),
            outcome: &format!(
                "ok: roles {}",
                accepted.roles.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
            ),
            plan_id: None,
            subject: Some(&user.id),
        };
        self.audit(record).await?;
        Ok((Accepted { name: user.name, org: accepted.org, roles: accepted.roles }, session))
    }
}
