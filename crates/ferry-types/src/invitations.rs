//! Invitations: how a person joins an organisation. An organisation's administrator makes one
//! (with the roles it gives); whoever holds its link accepts it, signed in (an existing user
//! joins) or by choosing a name and password (a new local account). Nobody is added to an
//! organisation, nor given a password, without taking that step themselves.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What an administrator asks for: the roles it gives, and how many days it may be accepted in
/// (7 by default, 1 to 30).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"roles": ["viewer"], "days": 7}))]
pub struct InvitationInput {
    pub roles: Vec<crate::Role>,
    #[serde(default)]
    pub days: Option<i64>,
}

/// An invitation as its organisation's administrators, and the person holding its link, see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Invitation {
    pub id: String,
    pub org: String,
    pub roles: Vec<crate::Role>,
    /// The administrator who made it.
    pub invited_by: String,
    pub created_at: String,
    pub expires_at: String,
    /// Who accepted it, and when (it is then used up).
    pub accepted_by: Option<String>,
    pub accepted_at: Option<String>,
    pub revoked_at: Option<String>,
    /// Whether it may still be accepted.
    pub active: bool,
}

/// An invitation just made, with the token of its link (`/invitations/<token>`): shown this
/// once (Ferry keeps its hash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NewInvitation {
    #[serde(flatten)]
    pub invitation: Invitation,
    pub token: String,
}

/// Accepting: signed in, nothing (the signed-in user joins); otherwise the new local account's
/// name and the password its owner chooses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AcceptInvitation {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
}

/// What accepting did: who joined which organisation with which roles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Accepted {
    pub name: String,
    pub org: String,
    pub roles: Vec<crate::Role>,
}
