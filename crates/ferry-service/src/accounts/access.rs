//! Who may do what: roles in an organisation (the `org` of `org/project/stack`), the caller a
//! request acts as, and the one check every use case's guard goes through.
//!
//! Architecture Invariant: a decision is made here, from the caller's grants and the object's
//! organisation; the server only says which role each route needs and on which object.

use ferry_types::OrgSettingsView;
use serde::Serialize;

use crate::{Accounts, ServiceError};

pub use ferry_types::{Role, RoleGrant};

impl From<ferry_types::UnknownRole> for ServiceError {
    fn from(unknown: ferry_types::UnknownRole) -> ServiceError {
        ServiceError::Invalid(unknown.to_string())
    }
}

/// How the caller proved who they are: the protocol's type, as `GET /me` answers it.
pub use ferry_types::Credential;

/// Where a request came from: the client's address (`None` for an in-process call) and
/// whether it reached Ferry over TLS, as the server found them (the socket's peer, or what a
/// proxy the administrator trusts says). What the audit log and the sign-in limits use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientAddress {
    pub address: Option<std::net::IpAddr>,
    pub https: bool,
}

/// Who a request acts as: a signed-in user with their grants, or nobody.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Caller {
    pub user: Option<CallerUser>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CallerUser {
    pub id: String,
    pub name: String,
    pub email: Option<String>,
    pub grants: Vec<RoleGrant>,
    pub credential: Credential,
}

impl CallerUser {
    /// The caller as `GET /me` answers it.
    pub fn me(&self) -> ferry_types::Me {
        ferry_types::Me {
            name: self.name.clone(),
            email: self.email.clone(),
            roles: self.grants.clone(),
            credential: self.credential.clone(),
        }
    }
}

impl Caller {
    pub fn anonymous() -> Caller {
        Caller { user: None }
    }

    /// The name the audit log records.
    pub fn actor(&self) -> &str {
        self.user.as_ref().map(|u| u.name.as_str()).unwrap_or("anonymous")
    }

    /// Whether the caller holds a role in `org` that allows what `needed` allows.
    pub fn may(&self, org: &str, needed: Role) -> bool {
        self.user.as_ref().is_some_and(|u| {
            u.grants.iter().any(|g| (g.org == org || g.org == "*") && g.role.grants(needed))
        })
    }

    /// Whether the caller is an administrator of every organisation (server-wide settings,
    /// every user).
    pub fn is_server_admin(&self) -> bool {
        self.user
            .as_ref()
            .is_some_and(|u| u.grants.iter().any(|g| g.org == "*" && g.role == Role::Admin))
    }

    /// Sign-in needed, or a role the caller lacks, as the error a route answers with.
    pub fn require(&self, org: &str, needed: Role) -> Result<(), ServiceError> {
        match &self.user {
            None => Err(ServiceError::SignInRequired),
            Some(_) if self.may(org, needed) => Ok(()),
            Some(user) => Err(ServiceError::Forbidden(format!(
                "`{}` is not {} in organisation `{org}`",
                user.name,
                article(needed)
            ))),
        }
    }

    pub fn require_signed_in(&self) -> Result<&CallerUser, ServiceError> {
        self.user.as_ref().ok_or(ServiceError::SignInRequired)
    }

    /// Signed in through a browser session, not an API token: credentials (passwords, tokens)
    /// are managed only so, since a leaked token must not become the whole account, nor
    /// outlive its own revocation through a sibling.
    pub fn require_session(&self) -> Result<&CallerUser, ServiceError> {
        let user = self.require_signed_in()?;
        match user.credential {
            Credential::Session { .. } => Ok(user),
            Credential::ApiToken { .. } => {
                Err(ServiceError::Forbidden("passwords and API tokens are managed from a signed-in browser session, not with an API token".into()))
            }
        }
    }

    /// Whether the caller takes part in review in `org` (planners, approvers, committers and
    /// admins comment).
    pub fn may_review(&self, org: &str) -> bool {
        [Role::Planner, Role::Approver, Role::Committer].iter().any(|r| self.may(org, *r))
    }

    /// The roles whose rights the caller has in `org`, for the page to show what it may do.
    pub fn roles_in(&self, org: &str) -> Vec<Role> {
        Role::ALL.into_iter().filter(|r| self.may(org, *r)).collect()
    }
}

fn article(role: Role) -> String {
    match role {
        Role::Approver | Role::Admin => format!("an {}", role.as_str()),
        _ => format!("a {}", role.as_str()),
    }
}

/// The organisation of a stack name `org/project/stack`.
pub fn org_of_name(name: &str) -> &str {
    name.split('/').next().unwrap_or(name)
}

/// What a route acts on, named by the ID in its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    Stack,
    Plan,
    Preview,
    Discovery,
    Identification,
}

impl Accounts {
    /// The organisation `id` (a stack, plan, preview, discovery or identification ID) belongs to.
    pub async fn org_of(&self, object: Object, id: &str) -> Result<String, ServiceError> {
        let stack_id = match object {
            Object::Stack => id.to_string(),
            Object::Plan => self.store.plans().plan(id).await?.stack_id,
            Object::Preview => self.store.stacks().preview_stack(id).await?,
            Object::Discovery => {
                self.jobs.status::<ferry_types::discovery::DiscoveryView>(id, None).await?.stack_id
            }
            Object::Identification => {
                self.jobs
                    .status::<ferry_types::identify::IdentificationJob>(id, None)
                    .await?
                    .stack_id
            }
        };
        Ok(org_of_name(&self.store.stacks().stack(&stack_id).await?.name).to_string())
    }

    /// Checks that `caller` holds `needed` on the object; its organisation.
    pub async fn authorize(
        &self,
        caller: &Caller,
        object: Object,
        id: &str,
        needed: Role,
    ) -> Result<String, ServiceError> {
        caller.require_signed_in()?;
        let org = self.org_of(object, id).await?;
        caller.require(&org, needed)?;
        Ok(org)
    }

    pub async fn org_settings(&self, org: &str) -> Result<OrgSettingsView, ServiceError> {
        Ok(org_settings_view(self.store.plans().org_settings(org).await?))
    }

    pub async fn set_org_settings(
        &self,
        org: &str,
        settings: OrgSettingsView,
    ) -> Result<OrgSettingsView, ServiceError> {
        if !(1..=366).contains(&settings.share_link_days) {
            return Err(ServiceError::Invalid(format!(
                "`share_link_days` must be 1 to 366, not {}",
                settings.share_link_days
            )));
        }
        for package in &settings.allowed_packages {
            if package != "*" && !ferry_engine::plugin::valid_package(package) {
                return Err(ServiceError::Invalid(format!(
                    "`allowed_packages`: `{package}` is not a package name"
                )));
            }
        }
        let settings = ferry_store::review::OrgSettings {
            share_links: settings.share_links,
            share_link_days: settings.share_link_days,
            allowed_packages: settings.allowed_packages,
        };
        Ok(org_settings_view(self.store.plans().set_org_settings(org, &settings).await?))
    }

    /// The packages requests about `stack_id` may launch plugins for, in its organisation:
    /// Ferry's `random`, and those an administrator listed in the organisation's settings or in
    /// every organisation's (`*`). Only an administrator widens it: what the organisation's
    /// stacks hold never does (anyone who may upload a state would otherwise choose).
    pub(crate) async fn allowed_packages(
        &self,
        stack_id: &str,
    ) -> Result<AllowedPackages, ServiceError> {
        let org = org_of_name(&self.store.stacks().stack(stack_id).await?.name).to_string();
        let mut allowed: std::collections::HashSet<String> =
            DEFAULT_PACKAGES.iter().map(|p| p.to_string()).collect();
        for settings in [
            self.store.plans().org_settings(&org).await?,
            self.store.plans().org_settings("*").await?,
        ] {
            allowed.extend(settings.allowed_packages);
        }
        let packages = (!allowed.contains("*")).then_some(allowed);
        Ok(AllowedPackages { org, packages })
    }
}

/// The plugins work in one organisation may launch.
pub(crate) struct AllowedPackages {
    pub org: String,
    /// `None`: an administrator allowed any (`*`).
    pub packages: Option<std::collections::HashSet<String>>,
}

/// The packages every organisation may use without an administrator's word: Ferry's own
/// `random`, which reaches nothing outside the process. (Ferry's `postgresql` connects to any
/// host a program names, so an administrator allows it.)
pub const DEFAULT_PACKAGES: &[&str] = &["random"];

/// The package a type token belongs to: `aws` for `aws:s3/bucket:Bucket` and for the provider
/// type `pulumi:providers:aws`.
pub(crate) fn package_of_type(token: &str) -> &str {
    token.strip_prefix("pulumi:providers:").unwrap_or_else(|| token.split(':').next().unwrap_or(""))
}

fn org_settings_view(settings: ferry_store::review::OrgSettings) -> OrgSettingsView {
    OrgSettingsView {
        share_links: settings.share_links,
        share_link_days: settings.share_link_days,
        allowed_packages: settings.allowed_packages,
    }
}
