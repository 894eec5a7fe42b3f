//! Accounts: local users with Argon2id passwords, sessions, API tokens, one-time sign-in links,
//! members' roles, and the audit log. Every secret handed out is 128 random bits, kept only as
//! its SHA-256 (a slow hash adds nothing to a random secret; passwords get Argon2id).

pub mod access;
mod invitations;
pub(crate) mod oidc_sign_in;
pub(crate) mod sign_in_limits;

use std::net::IpAddr;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use ferry_store::accounts::{ApiToken, AuditRecord, NewAuditRecord, NewUser, SessionMethod, User};
use ferry_store::StoreError;

use crate::access::{Caller, CallerUser, Credential, Role, RoleGrant};
use crate::jobs::Jobs;
use crate::ServiceError;
use ferry_types::MemberView;

/// How long a browser session lasts.
pub const SESSION_SECONDS: i64 = 12 * 3600;
/// How long a one-time sign-in link stays usable.
pub const SIGN_IN_LINK_SECONDS: i64 = 15 * 60;
/// The prefix of API tokens, so that secret scanners and people can tell them.
const TOKEN_PREFIX: &str = "ferry_";

pub use crate::accounts::oidc_sign_in::{OidcIdentity, PendingOidcLogin};

/// One action for the audit log: who did what to which object, from where, with what outcome.
#[derive(Debug, Clone, Copy)]
pub struct AuditEvent<'a> {
    pub actor: &'a str,
    /// The organisation it happened in; `None` for a server-wide record.
    pub org: Option<&'a str>,
    pub action: &'a str,
    pub object: &'a str,
    pub address: &'a str,
    pub outcome: &'a str,
    pub plan_id: Option<&'a str>,
    /// The user a server-wide record is about: the administrators of the organisations that
    /// user is a member of see it.
    pub subject: Option<&'a str>,
}
pub use crate::accounts::sign_in_limits::SignInLimits;

/// A secret handed out once (a session cookie's value, an API token, a sign-in link's key).
pub struct NewSecret(pub String);

/// What signing in gives: the session's secret for the cookie, and who signed in.
pub struct SignedIn {
    pub session: NewSecret,
    pub user: User,
}

/// A new API token: its record with the secret (shown once).
pub type CreatedToken = ApiToken;

pub use ferry_store::hash_secret;

pub(crate) fn roles_text(roles: &[&str]) -> String {
    if roles.is_empty() {
        "none".to_string()
    } else {
        roles.join(", ")
    }
}

fn new_secret(prefix: &str) -> NewSecret {
    NewSecret(format!("{prefix}{}", ferry_store::random_id()))
}

/// Hashes a password with Argon2id (the crate's defaults: m=19 MiB, t=2, p=1), off the async
/// workers.
pub async fn hash_password(password: &str) -> Result<String, ServiceError> {
    check_password_rules(password)?;
    let password = password.to_string();
    tokio::task::spawn_blocking(move || {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| ServiceError::Internal(e.to_string()))?;
        let salt =
            SaltString::encode_b64(&salt).map_err(|e| ServiceError::Internal(e.to_string()))?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ServiceError::Internal(e.to_string()))
    })
    .await
    .map_err(|e| ServiceError::Internal(e.to_string()))?
}

fn check_password_rules(password: &str) -> Result<(), ServiceError> {
    if password.chars().count() < 10 {
        return Err(ServiceError::Invalid("a password needs at least 10 characters".into()));
    }
    Ok(())
}

async fn verify_password(password: &str, hash: Option<&str>) -> bool {
    let password = password.to_string();
    let hash = hash.map(str::to_string);
    tokio::task::spawn_blocking(move || match hash {
        Some(hash) => PasswordHash::new(&hash)
            .is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok()),
        // No such user, or one without a password: still spend one hash, so the time taken
        // does not tell which names exist.
        None => {
            let salt = SaltString::encode_b64(b"ferry-no-such-user").expect("a valid salt");
            let _ = Argon2::default().hash_password(password.as_bytes(), &salt);
            false
        }
    })
    .await
    .unwrap_or(false)
}

/// How the audit log shows a caller's address (`local`: an in-process call, without one).
pub fn address_text(address: Option<IpAddr>) -> String {
    address.map(|a| a.to_string()).unwrap_or_else(|| "local".into())
}

/// Checks an organisation name; `*` (every organisation) is one too.
pub(crate) fn check_org(org: &str) -> Result<(), ServiceError> {
    if org == "*" {
        return Ok(());
    }
    check_name("organisation", org)
}

/// Checks an organisation name (not `*`).
pub(crate) fn check_org_name(org: &str) -> Result<(), ServiceError> {
    check_name("organisation", org)
}

/// Checks a user's name.
pub(crate) fn check_user_name(name: &str) -> Result<(), ServiceError> {
    check_name("user name", name)
}

/// Checks a user or organisation name: what a URL path and a log line can carry as is.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), ServiceError> {
    if name.is_empty()
        || name.len() > 100
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))
    {
        return Err(ServiceError::Invalid(format!(
            "invalid {what} `{name}`: use 1 to 100 letters, digits, `-`, `_`, `.` or `@`"
        )));
    }
    Ok(())
}

/// Users, sessions, tokens, members, organisations' settings, the audit log, and who may do
/// what.
#[derive(Clone)]
pub struct Accounts {
    pub(crate) store: ferry_store::Store,
    pub(crate) sign_in_limits: std::sync::Arc<SignInLimits>,
    /// Where a discovery's or an identification's organisation is found.
    pub(crate) jobs: Jobs,
}

impl Accounts {
    pub(crate) fn new(store: ferry_store::Store, jobs: Jobs) -> Accounts {
        Accounts { store, sign_in_limits: Default::default(), jobs }
    }

    /// The caller a session cookie's value stands for (anonymous when it is not a live session).
    pub async fn caller_of_session(&self, secret: &str) -> Result<Caller, ServiceError> {
        match self.store.accounts().session_user(&hash_secret(secret)).await? {
            Some((user, method)) => {
                self.caller_of_user(user, Credential::Session { method }, None).await
            }
            None => Ok(Caller::anonymous()),
        }
    }

    /// The caller an API token stands for; an unknown, expired or revoked token is an error
    /// that says which (a client sending a dead token should hear why, not act anonymously).
    pub async fn caller_of_token(&self, secret: &str) -> Result<Caller, ServiceError> {
        let token = self
            .store
            .accounts()
            .api_token_by_hash(&hash_secret(secret))
            .await?
            .ok_or_else(|| ServiceError::BadCredentials("unknown API token".into()))?;
        if token.revoked_at.is_some() {
            return Err(ServiceError::BadCredentials(format!(
                "the API token `{}` was revoked",
                token.name
            )));
        }
        if !token.active {
            return Err(ServiceError::BadCredentials(format!(
                "the API token `{}` expired at {}",
                token.name, token.expires_at
            )));
        }
        let user = self.store.accounts().user(&token.user_id).await?;
        let role = token.role;
        self.caller_of_user(
            user,
            Credential::ApiToken { id: token.id.clone() },
            Some((token.org.as_str(), role)),
        )
        .await
    }

    /// A user's caller: their grants, or for a token only the token's role where the user
    /// still holds it.
    async fn caller_of_user(
        &self,
        user: User,
        credential: Credential,
        token: Option<(&str, Role)>,
    ) -> Result<Caller, ServiceError> {
        let held: Vec<RoleGrant> = self
            .store
            .accounts()
            .memberships(&user.id)
            .await?
            .into_iter()
            .filter_map(|m| m.role.parse().ok().map(|role| RoleGrant { org: m.org, role }))
            .collect();
        let grants = match token {
            None => held,
            Some((org, role)) => {
                let holder = Caller {
                    user: Some(CallerUser {
                        id: user.id.clone(),
                        name: user.name.clone(),
                        email: None,
                        grants: held.clone(),
                        credential: credential.clone(),
                    }),
                };
                let orgs: Vec<String> = if org == "*" {
                    held.iter().map(|g| g.org.clone()).collect()
                } else {
                    vec![org.to_string()]
                };
                let mut grants: Vec<RoleGrant> = orgs
                    .into_iter()
                    .filter(|o| holder.may(o, role))
                    .map(|org| RoleGrant { org, role })
                    .collect();
                grants.dedup();
                grants
            }
        };
        Ok(Caller {
            user: Some(CallerUser {
                id: user.id,
                name: user.name,
                email: user.email,
                grants,
                credential,
            }),
        })
    }

    /// Signs in with a name and password, within the attempt limits; every attempt is audited.
    /// `address` is the caller's, when known (`None`: an in-process call).
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<SignedIn, ServiceError> {
        let shown = address_text(address);
        // Each record is about the account named, when there is one: its organisations'
        // administrators see attempts on it; attempts on unknown names are for server
        // administrators only.
        let user = self.store.accounts().user_by_name(name).await?;
        let subject = user.as_ref().map(|u| u.id.clone());
        let audit = |outcome: String| {
            let shown = shown.clone();
            let subject = subject.clone();
            async move {
                self.audit(AuditEvent {
                    actor: name,
                    org: None,
                    action: "sign-in",
                    object: &format!("user {name}"),
                    address: &shown,
                    outcome: &outcome,
                    plan_id: None,
                    subject: subject.as_deref(),
                })
                .await
            }
        };
        if !self.sign_in_limits.allow(name, address, std::time::Instant::now()) {
            audit("denied: too many attempts".into()).await?;
            return Err(ServiceError::RateLimited(
                "too many sign-in attempts; wait a minute and try again".into(),
            ));
        }
        // A user of the OpenID Provider has no local password, even one set before that rule.
        let hash = user.as_ref().filter(|u| !u.is_oidc()).and_then(|u| u.password_hash.as_deref());
        if !verify_password(password, hash).await {
            self.sign_in_limits.failed(name, address, std::time::Instant::now());
            audit("failed: wrong name or password".into()).await?;
            return Err(ServiceError::BadCredentials("wrong name or password".into()));
        }
        let user = user.expect("a verified password has a user");
        let session = self.start_session(&user.id, SessionMethod::Password).await?;
        audit("ok".into()).await?;
        Ok(SignedIn { session, user })
    }

    /// Starts a session for the user, after a password, a sign-in link or OpenID Connect.
    pub async fn start_session(
        &self,
        user_id: &str,
        method: SessionMethod,
    ) -> Result<NewSecret, ServiceError> {
        let secret = new_secret("");
        self.store
            .accounts()
            .add_session(&hash_secret(&secret.0), user_id, SESSION_SECONDS, method)
            .await?;
        Ok(secret)
    }

    pub async fn end_session(&self, secret: &str) -> Result<(), ServiceError> {
        Ok(self.store.accounts().revoke_session(&hash_secret(secret)).await?)
    }

    /// Ends every session of the caller's user, on every device ("sign out everywhere").
    pub async fn end_all_sessions(&self, caller: &Caller) -> Result<(), ServiceError> {
        let me = caller.require_signed_in()?;
        Ok(self.store.accounts().revoke_sessions_of(&me.id).await?)
    }

    /// Uses a one-time sign-in link; the new session and its user.
    pub async fn use_sign_in_link(
        &self,
        secret: &str,
        address: Option<IpAddr>,
    ) -> Result<SignedIn, ServiceError> {
        let address = address_text(address);
        let user_id = self.store.accounts().use_sign_in_link(&hash_secret(secret)).await?;
        let outcome =
            if user_id.is_some() { "ok" } else { "failed: unknown, used or expired link" };
        let user = match &user_id {
            Some(id) => Some(self.store.accounts().user(id).await?),
            None => None,
        };
        let actor = user.as_ref().map(|u| u.name.as_str()).unwrap_or("anonymous");
        let subject = user.as_ref().map(|u| u.id.as_str());
        self.audit(AuditEvent {
            actor,
            org: None,
            action: "sign-in",
            object: "sign-in link",
            address: &address,
            outcome,
            plan_id: None,
            subject,
        })
        .await?;
        let user = user.ok_or_else(|| {
            ServiceError::BadCredentials(
                "this sign-in link is unknown, used or expired; ask for a new one".into(),
            )
        })?;
        let session = self.start_session(&user.id, SessionMethod::Link).await?;
        Ok(SignedIn { session, user })
    }

    /// A one-time sign-in link's secret for the user (first setup, a forgotten password).
    pub async fn new_sign_in_link(&self, user_id: &str) -> Result<NewSecret, ServiceError> {
        let secret = new_secret("");
        self.store
            .accounts()
            .add_sign_in_link(&hash_secret(&secret.0), user_id, SIGN_IN_LINK_SECONDS)
            .await?;
        Ok(secret)
    }

    /// On a store without users: makes `admin`, an administrator of every organisation, and
    /// returns a one-time sign-in link's secret for it. `None` when users exist.
    pub async fn ensure_first_admin(&self) -> Result<Option<NewSecret>, ServiceError> {
        if self.store.accounts().count_users().await? > 0 {
            return Ok(None);
        }
        let admin =
            self.store.accounts().add_user(NewUser { name: "admin", ..Default::default() }).await?;
        self.store.accounts().grant_role(&admin.id, "*", Role::Admin.as_str()).await?;
        Ok(Some(self.new_sign_in_link(&admin.id).await?))
    }

    pub async fn has_users(&self) -> Result<bool, ServiceError> {
        Ok(self.store.accounts().count_users().await? > 0)
    }

    /// The user `name`, made (without a password) when missing.
    pub async fn ensure_user(&self, name: &str) -> Result<User, ServiceError> {
        check_name("user name", name)?;
        if let Some(user) = self.store.accounts().user_by_name(name).await? {
            return Ok(user);
        }
        match self.store.accounts().add_user(NewUser { name, ..Default::default() }).await {
            Err(StoreError::UserExists(_)) => {
                Ok(self.store.accounts().user_by_name(name).await?.expect("a user that exists"))
            }
            other => Ok(other?),
        }
    }

    /// Sets a user's password; `set_by` is the ID of whoever chose it (the user's own when
    /// they did). A new password ends the user's sessions.
    async fn set_password(
        &self,
        user_id: &str,
        password: &str,
        set_by: &str,
    ) -> Result<(), ServiceError> {
        let hash = hash_password(password).await?;
        self.store.accounts().set_password_hash(user_id, &hash, set_by).await?;
        self.store.accounts().revoke_sessions_of(user_id).await?;
        Ok(())
    }

    /// Changes the caller's own password, given the current one (none needed when they have
    /// none yet, as after a sign-in link). Only from a session, never with an API token; a
    /// user who signs in through OpenID Connect has no local password (their provider is how
    /// they prove who they are, and its rules are the organisation's).
    pub async fn change_own_password(
        &self,
        caller: &Caller,
        current: Option<&str>,
        new: &str,
    ) -> Result<(), ServiceError> {
        let me = caller.require_session()?;
        let user = self.store.accounts().user(&me.id).await?;
        if user.is_oidc() {
            return Err(ServiceError::Forbidden(format!(
                "`{}` signs in through the OpenID Provider: Ferry keeps no password for them",
                user.name
            )));
        }
        if user.password_hash.is_some()
            && !verify_password(current.unwrap_or_default(), user.password_hash.as_deref()).await
        {
            return Err(ServiceError::BadCredentials("the current password is wrong".into()));
        }
        self.set_password(&user.id, new, &user.id).await
    }

    /// A new API token for the caller's user: the role must be one the user holds in `org`.
    /// Only from a session: a token never makes a token (a sibling would outlive it and its
    /// revocation).
    pub async fn create_api_token(
        &self,
        caller: &Caller,
        name: &str,
        org: &str,
        role: Role,
        days: i64,
    ) -> Result<CreatedToken, ServiceError> {
        let me = caller.require_session()?;
        if name.trim().is_empty() || name.len() > 100 {
            return Err(ServiceError::Invalid("name the token (1 to 100 characters)".into()));
        }
        check_org(org)?;
        if !(1..=366).contains(&days) {
            return Err(ServiceError::Invalid(format!("a token lasts 1 to 366 days, not {days}")));
        }
        // A token never grants more than its creator holds, nor does a token make tokens
        // beyond its own role.
        let allowed = if org == "*" {
            me.grants.iter().any(|g| g.org == "*" && g.role.grants(role))
        } else {
            caller.may(org, role)
        };
        if !allowed {
            return Err(ServiceError::Forbidden(format!(
                "`{}` is not {} in `{org}`, so no token can be",
                me.name,
                role.as_str()
            )));
        }
        self.issue_api_token(&me.id, name, org, role, days * 86_400).await
    }

    /// Issues a token without checks (the command line's `ferry token create`, run by whoever
    /// holds the data directory).
    pub async fn issue_api_token(
        &self,
        user_id: &str,
        name: &str,
        org: &str,
        role: Role,
        lifetime_seconds: i64,
    ) -> Result<CreatedToken, ServiceError> {
        let secret = new_secret(TOKEN_PREFIX);
        let record = self
            .store
            .accounts()
            .add_api_token(
                &hash_secret(&secret.0),
                user_id,
                name,
                org,
                role.as_str(),
                lifetime_seconds,
            )
            .await?;
        Ok(CreatedToken { token: Some(secret.0), ..record })
    }

    pub async fn api_tokens(&self, caller: &Caller) -> Result<Vec<ApiToken>, ServiceError> {
        let me = caller.require_signed_in()?;
        Ok(self.store.accounts().api_tokens_of(&me.id).await?)
    }

    /// Revokes one of the caller's tokens: from a session, or a token revoking itself (a CI
    /// job's last step), never a token revoking its siblings.
    pub async fn revoke_api_token(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<ApiToken, ServiceError> {
        let me = caller.require_signed_in()?;
        if matches!(&me.credential, Credential::ApiToken { id: own } if own != id) {
            caller.require_session()?;
        }
        Ok(self.store.accounts().revoke_api_token(&me.id, id).await?)
    }

    /// Grants `role` to user `user` in `org` (`*`: every organisation), creating the user if
    /// missing; for first setup from the command line.
    pub async fn grant(&self, user: &str, org: &str, role: Role) -> Result<User, ServiceError> {
        check_org(org)?;
        let user = self.ensure_user(user).await?;
        self.store.accounts().grant_role(&user.id, org, role.as_str()).await?;
        Ok(user)
    }

    /// The members of `org` (admins of it). Holders of roles in every organisation (`*`) who
    /// hold none in `org` itself are shown without their e-mail, except to server
    /// administrators.
    pub async fn members(
        &self,
        caller: &Caller,
        org: &str,
    ) -> Result<Vec<MemberView>, ServiceError> {
        caller.require(org, Role::Admin)?;
        let server_admin = caller.is_server_admin();
        Ok(self
            .store
            .accounts()
            .members(org)
            .await?
            .into_iter()
            .map(|(user, roles)| {
                let roles: Vec<RoleGrant> = roles
                    .into_iter()
                    .filter_map(|m| m.role.parse().ok().map(|role| RoleGrant { org: m.org, role }))
                    .collect();
                let member_here = roles.iter().any(|g| g.org == org);
                MemberView {
                    name: user.name,
                    email: user.email.filter(|_| member_here || server_admin),
                    roles,
                }
            })
            .collect())
    }

    /// Sets `name`'s roles in `org` (none: they leave it). An organisation's administrator
    /// changes the roles of the organisation's members only: someone who is not one joins by
    /// accepting an invitation (`invite`), and nobody is given an account or a password by an
    /// organisation's administrator. A server administrator may also make a local user, add
    /// anyone, and set a local user's password, from a session only; nobody gives a password to
    /// a user who signs in through an OpenID Provider.
    pub async fn set_member(
        &self,
        caller: &Caller,
        org: &str,
        name: &str,
        roles: &[Role],
        password: Option<&str>,
    ) -> Result<MemberView, ServiceError> {
        check_org(org)?;
        caller.require(org, Role::Admin)?;
        check_name("user name", name)?;
        let me = caller.require_signed_in()?;
        let server_admin = caller.is_server_admin();
        let invite = || {
            format!("invite them instead (`POST /api/v1/orgs/{org}/invitations`): they join by accepting it")
        };
        if password.is_some() {
            if !server_admin {
                return Err(ServiceError::Forbidden(format!("an organisation's administrator gives nobody a password: {}, choosing their own", invite())));
            }
            // A password is a credential: set from a browser session, never with an API token.
            caller.require_session()?;
        }
        let user = match self.store.accounts().user_by_name(name).await? {
            None if !server_admin => {
                return Err(ServiceError::Forbidden(format!(
                    "there is no user `{name}`: {}",
                    invite()
                )));
            }
            None => {
                let hash = match password {
                    Some(password) => Some(hash_password(password).await?),
                    None => None,
                };
                let new = NewUser {
                    name,
                    password: hash.as_deref().map(|h| (h, me.id.as_str())),
                    ..Default::default()
                };
                match self.store.accounts().add_user(new).await {
                    Ok(user) => user,
                    // Made by someone else a moment ago: not this request's to give a password.
                    Err(StoreError::UserExists(_)) => {
                        return Err(ServiceError::Conflict(format!(
                            "the user `{name}` was just made by someone else; try again"
                        )))
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Some(user) => {
                let member_here =
                    self.store.accounts().memberships(&user.id).await?.iter().any(|m| m.org == org);
                if !roles.is_empty() && !member_here && !server_admin {
                    return Err(ServiceError::Forbidden(format!(
                        "`{name}` is not a member of `{org}`: {}",
                        invite()
                    )));
                }
                if let Some(password) = password {
                    if user.is_oidc() {
                        return Err(ServiceError::Forbidden(format!("`{name}` signs in through the OpenID Provider: Ferry keeps no password for them")));
                    }
                    self.set_password(&user.id, password, &me.id).await?;
                }
                user
            }
        };
        let roles: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        self.store.accounts().set_roles(&user.id, org, &roles).await?;
        let members = self.members(caller, org).await?;
        members
            .into_iter()
            .find(|m| m.name == name)
            .ok_or_else(|| ServiceError::Internal("the member just set is missing".into()))
    }

    /// Appends one record to the audit log.
    pub async fn audit(&self, event: AuditEvent<'_>) -> Result<(), ServiceError> {
        let AuditEvent { actor, org, action, object, address, outcome, plan_id, subject } = event;
        let record =
            NewAuditRecord { actor, org, action, object, address, outcome, plan_id, subject };
        Ok(self.store.accounts().append_audit(record).await?)
    }

    /// Audit records of `org` (admins of it): its own, and the server-wide ones about its
    /// members (sign-ins, their credentials); `*`: every record, for server administrators.
    pub async fn audit_log(
        &self,
        caller: &Caller,
        org: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<AuditRecord>, ServiceError> {
        caller.require(org, Role::Admin)?;
        let org = (org != "*").then_some(org);
        Ok(self.store.accounts().audit(org, after, limit.clamp(1, 10_000)).await?)
    }
}
