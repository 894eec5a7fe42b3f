//! Accounts as the API shows them: who is signed in and how, roles and their grants, API
//! tokens, organisation members, the audit log, and how users may sign in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who is signed in, as the pages show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Me {
    pub name: String,
    pub email: Option<String>,
    /// `role in org` pairs (`*`: every organisation).
    pub roles: Vec<RoleGrant>,
    /// How the caller proved who they are.
    pub credential: Credential,
}

/// How a caller proved who they are: a browser session (and how it began, when known), or an
/// API token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Credential {
    /// A browser session, and how it began (`None`: a session from before that was kept).
    Session {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<SessionMethod>,
    },
    ApiToken {
        id: String,
    },
}

/// How a session began: the credential it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionMethod {
    Password,
    Link,
    Oidc,
}

impl SessionMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionMethod::Password => "password",
            SessionMethod::Link => "link",
            SessionMethod::Oidc => "oidc",
        }
    }
}

/// One role in one organisation (`*`: every organisation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoleGrant {
    pub org: String,
    pub role: Role,
}

/// A role in an organisation. Each grants itself and reading; `admin` grants everything.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Reads stacks, plans and previews.
    Viewer,
    /// Creates and revises plans, previews, resolves, uploads and discovers.
    Planner,
    /// Approves plan revisions.
    Approver,
    /// Commits previews and applies programs.
    Committer,
    /// Manages members and settings; reads the audit log.
    Admin,
}

impl Role {
    pub const ALL: [Role; 5] =
        [Role::Viewer, Role::Planner, Role::Approver, Role::Committer, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Planner => "planner",
            Role::Approver => "approver",
            Role::Committer => "committer",
            Role::Admin => "admin",
        }
    }

    /// Whether holding `self` allows what `needed` allows.
    pub fn grants(self, needed: Role) -> bool {
        self == needed || self == Role::Admin || needed == Role::Viewer
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role's name that is none of [`Role::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(pub String);

impl std::fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown role `{}` (roles: viewer, planner, approver, committer, admin)", self.0)
    }
}

impl std::error::Error for UnknownRole {}

impl std::str::FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Role, UnknownRole> {
        Role::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| UnknownRole(s.to_string()))
    }
}

/// An API token as its owner sees it listed (its secret was shown once, at creation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApiTokenInfo {
    pub id: String,
    #[serde(default)]
    pub user_id: String,
    pub name: String,
    pub org: String,
    pub role: Role,
    pub created_at: String,
    pub expires_at: String,
    pub revoked_at: Option<String>,
    pub active: bool,
    /// The token itself: only in the answer that created it (it is stored as a hash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// One audit record, as admins read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AuditEntry {
    pub seq: i64,
    pub at: String,
    pub actor: String,
    pub org: Option<String>,
    pub action: String,
    pub object: String,
    /// Where the call came from; only administrators of the record's organisation see it (a
    /// plan's timeline leaves it out for everyone else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub outcome: String,
    /// The plan the record is about, if any (a plan's timeline).
    #[serde(default)]
    pub plan_id: Option<String>,
}

/// How users may sign in here, as the sign-in page offers it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SignInMethods {
    /// OpenID Connect (`/auth/oidc/login`).
    pub oidc: bool,
}

/// A member of an organisation as its administrators see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MemberView {
    pub name: String,
    pub email: Option<String>,
    pub roles: Vec<RoleGrant>,
}
