//! A warning about a state: something worth telling the user that does not stop the load
//! (an undecryptable secret, a duplicate URN), named with its JSON path. Every check that finds
//! one (loading, secrets, references) makes it.

/// Something worth telling the user that does not stop the load.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StateWarning {
    pub message: String,
    pub path: Option<String>,
}
