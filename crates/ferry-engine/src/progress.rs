//! Progress of a preview, resource by resource, for whoever watches it (a job streaming to the
//! browser). The engine only calls the hook; it never waits on it.

use std::sync::Arc;

/// One resource done, as the wire carries it to a job's followers: its status (`ready`,
/// `not-found`, … for imports; the step's operation for programs) and why, when it failed.
pub use ferry_types::JobEvent;

/// Called once per finished resource, from any task.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(JobEvent) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

impl Progress {
    pub fn report(&self, event: JobEvent) {
        (self.0)(event)
    }
}
