//! Progress of a preview, resource by resource, for whoever watches it (a job streaming to the
//! browser). The engine only calls the hook; it never waits on it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// One resource done: its status (`ready`, `not-found`, … for imports; the step's operation
/// for programs) and why, when it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressEvent {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Called once per finished resource, from any task.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(ProgressEvent) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

impl Progress {
    pub fn report(&self, event: ProgressEvent) {
        (self.0)(event)
    }
}
