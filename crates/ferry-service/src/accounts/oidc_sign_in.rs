//! Signing in through an OpenID Provider: the login a browser starts (kept under its `state`
//! and a cookie's secret), and the user the provider vouches for, matched by issuer and subject,
//! with the roles its groups grant.

use std::net::IpAddr;

use ferry_store::accounts::{NewUser, SessionMethod};
use ferry_store::StoreError;

use crate::access::Role;
use crate::accounts::{address_text, check_name, hash_secret, roles_text, AuditEvent, SignedIn};
use crate::{Accounts, ServiceError};

/// A sign-in started at the OpenID Provider, kept until its callback: the PKCE verifier, the
/// nonce the ID token must carry, and the local path to return to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingOidcLogin {
    pub verifier: String,
    pub nonce: String,
    pub next: String,
}

impl Accounts {
    /// Keeps a sign-in started at the OpenID Provider under its `state` and a new secret, which
    /// it answers, for the starting browser to hold in a cookie: the callback finds it only
    /// with both, so a
    /// `state` (and code) another browser started is nothing in this one. In the store (keyed by
    /// their hash) for `lifetime_seconds`, so the provider's callback may reach any instance.
    pub async fn begin_oidc_login(
        &self,
        state: &str,
        login: PendingOidcLogin,
        lifetime_seconds: i64,
    ) -> Result<String, ServiceError> {
        let browser = ferry_store::random_id();
        let PendingOidcLogin { verifier, nonce, next } = login;
        let login = ferry_store::accounts::OidcLogin { verifier, nonce, next };
        self.store
            .accounts()
            .add_oidc_login(&hash_secret(&format!("{state}\n{browser}")), &login, lifetime_seconds)
            .await?;
        Ok(browser)
    }

    /// Takes the sign-in the provider's callback names by its `state`, in the browser that
    /// started it, once.
    pub async fn finish_oidc_login(
        &self,
        state: &str,
        browser: &str,
    ) -> Result<Option<PendingOidcLogin>, ServiceError> {
        let login = self
            .store
            .accounts()
            .take_oidc_login(&hash_secret(&format!("{state}\n{browser}")))
            .await?;
        Ok(login.map(|l| PendingOidcLogin { verifier: l.verifier, nonce: l.nonce, next: l.next }))
    }

    /// Signs in a user an OpenID Provider vouched for: matched by issuer and `sub`, never by a
    /// name (made on first sign-in, named uniquely), email kept current, and, when the provider
    /// sends groups, their roles set from them (`<org>:<role>`; others ignored). Roles in every
    /// organisation (`*:<role>`) are taken from the provider only when `allow_server_roles`
    /// (`--oidc-allow-server-roles`); otherwise they are ignored and left as they are. Audited.
    pub async fn sign_in_oidc(
        &self,
        identity: OidcIdentity,
        address: Option<IpAddr>,
        allow_server_roles: bool,
    ) -> Result<SignedIn, ServiceError> {
        let shown = address_text(address);
        let user =
            match self.store.accounts().user_by_oidc(&identity.issuer, &identity.subject).await? {
                Some(user) => user,
                None => {
                    let base: String = identity
                        .name
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))
                        .take(90)
                        .collect();
                    let base = if base.is_empty() { "user".to_string() } else { base };
                    let mut made = None;
                    for n in 0..100 {
                        let name = if n == 0 { base.clone() } else { format!("{base}-{n}") };
                        let new = NewUser {
                            name: &name,
                            email: identity.email.as_deref(),
                            oidc: Some((&identity.issuer, &identity.subject)),
                            ..Default::default()
                        };
                        match self.store.accounts().add_user(new).await {
                            Ok(user) => {
                                made = Some(user);
                                break;
                            }
                            Err(StoreError::UserExists(_)) => continue,
                            Err(e) => return Err(e.into()),
                        }
                    }
                    made.ok_or_else(|| {
                        ServiceError::Internal(format!("no free user name for `{base}`"))
                    })?
                }
            };
        if identity.email.is_some() && identity.email != user.email {
            self.store.accounts().set_email(&user.id, identity.email.as_deref()).await?;
        }
        if let Some(groups) = &identity.groups {
            let mut by_org: std::collections::BTreeMap<String, Vec<&'static str>> =
                std::collections::BTreeMap::new();
            for group in groups {
                if let Some((org, role)) = group.split_once(':') {
                    if org == "*" && !allow_server_roles {
                        tracing::warn!(user = %user.name, group = %group, "ignored a server-wide role from the OpenID Provider (see --oidc-allow-server-roles)");
                        continue;
                    }
                    if let (Ok(role), true) = (
                        role.parse::<Role>(),
                        org == "*" || check_name("organisation", org).is_ok(),
                    ) {
                        by_org.entry(org.to_string()).or_default().push(role.as_str());
                    }
                }
            }
            // The provider is the source of truth for memberships it manages: orgs it no longer
            // lists lose their roles. Server-wide roles it is not trusted with stay as a server
            // administrator set them.
            let before = self.store.accounts().memberships(&user.id).await?;
            for m in &before {
                if m.org != "*" || allow_server_roles {
                    by_org.entry(m.org.clone()).or_default();
                }
            }
            for (org, roles) in by_org {
                let mut held: Vec<&str> =
                    before.iter().filter(|m| m.org == org).map(|m| m.role.as_str()).collect();
                let mut given = roles.clone();
                held.sort_unstable();
                given.sort_unstable();
                given.dedup();
                self.store.accounts().set_roles(&user.id, &org, &roles).await?;
                if held != given {
                    // Roles the provider's groups changed are recorded in the organisation's log,
                    // as an administrator's change would be.
                    let outcome =
                        format!("ok: roles {} (were {})", roles_text(&given), roles_text(&held));
                    let record = AuditEvent {
                        actor: &user.name,
                        org: Some(&org),
                        action: "member.roles-from-oidc-groups",
                        object: &format!("member {}", user.name),
                        address: &shown,
                        outcome: &outcome,
                        plan_id: None,
                        subject: Some(&user.id),
                    };
                    self.audit(record).await?;
                }
            }
        }
        let session = self.start_session(&user.id, SessionMethod::Oidc).await?;
        let record = AuditEvent {
            actor: &user.name,
            org: None,
            action: "sign-in",
            object: "OpenID Connect",
            address: &shown,
            outcome: "ok",
            plan_id: None,
            subject: Some(&user.id),
        };
        self.audit(record).await?;
        Ok(SignedIn { session, user })
    }
}

/// Who an OpenID Provider says signed in.
pub struct OidcIdentity {
    /// The provider (the ID token's `iss`): a user is the pair of it and `subject`.
    pub issuer: String,
    pub subject: String,
    pub email: Option<String>,
    /// A name to show (`preferred_username`, the email's local part, or the subject).
    pub name: String,
    /// Groups from the configured claim; `<org>:<role>` grants that role there.
    pub groups: Option<Vec<String>>,
}
