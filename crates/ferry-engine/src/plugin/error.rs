//! How a plugin fails: each way named, with the package and the call, and whether the process
//! broke or the plugin answered an error of its own (the supervisor retries only the first).

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    #[error("`{package}` is not a package name (lowercase letters, digits and `-`)")]
    InvalidPackage { package: String },
    #[error("the package `{package}` is not allowed here: {why}")]
    NotAllowed { package: String, why: String },
    /// The folders looked in are kept for the server's log, never shown: they are the server's
    /// insides (its user's home, toolchain and checkout folders).
    #[error("no plugin for package `{package}`: `{binary}` is not installed where this server looks for plugins (an administrator can install it; the server's log names the folders)")]
    NotFound { package: String, binary: String, looked_in: Vec<PathBuf> },
    #[error("could not start the `{package}` plugin: {message}")]
    Launch { package: String, path: PathBuf, message: String },
    #[error("the `{package}` plugin did not start: {message}{output}")]
    Startup { package: String, message: String, output: LoggedOutput },
    #[error("the `{package}` plugin did not answer {method} within {}", duration_text(.timeout))]
    Timeout { package: String, method: &'static str, timeout: Duration },
    #[error("the `{package}` plugin crashed during {method} ({status}){output}")]
    Crashed { package: String, method: &'static str, status: String, output: LoggedOutput },
    #[error("the `{package}` plugin failed {method}: {message}")]
    Call { package: String, method: &'static str, code: String, message: String },
    /// An idempotent call failed on this resource, was retried alone on a fresh process, and
    /// failed the same way again: the resource itself is what breaks the plugin.
    #[error("the `{package}` plugin {what} during {method} on this resource twice, the second time alone on a fresh process ({detail})")]
    FailedTwice { package: String, method: &'static str, what: String, detail: String },
    #[error("the `{package}` plugin was restarted {restarts} times and is given up on; the last failure: {last}")]
    GaveUp { package: String, restarts: u32, last: String },
    #[error(
        "the `{package}` plugin could not be started again after it failed ({after}): {message}"
    )]
    RestartFailed { package: String, after: String, message: String },
}

impl PluginError {
    /// Whether the plugin process broke (crashed, hung, could not be restarted), rather than
    /// answering with an error of its own.
    pub fn is_process_failure(&self) -> bool {
        matches!(
            self,
            PluginError::Crashed { .. }
                | PluginError::Timeout { .. }
                | PluginError::FailedTwice { .. }
                | PluginError::GaveUp { .. }
                | PluginError::RestartFailed { .. }
        )
    }
}

fn duration_text(d: &Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// What a failed plugin last printed: written to the server's log under a reference, never
/// into the error (a plugin's output holds the server's paths, and whatever the plugin read),
/// which names the reference so that an administrator finds the lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoggedOutput {
    reference: Option<String>,
}

impl LoggedOutput {
    /// Logs `output` of `package`'s plugin (nothing when it printed nothing).
    pub fn log(package: &str, output: &str) -> LoggedOutput {
        if output.trim().is_empty() {
            return LoggedOutput::default();
        }
        // The same output gets the same reference (what fails alike reads alike, run after
        // run), and the log line is found by it.
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&(package, output.trim_end()), &mut hasher);
        let reference = format!("{:016x}", std::hash::Hasher::finish(&hasher));
        tracing::warn!(plugin = %package, reference = %reference, "the plugin's last output:\n{}", output.trim_end());
        LoggedOutput { reference: Some(reference) }
    }
}

impl std::fmt::Display for LoggedOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reference {
            Some(reference) => {
                write!(f, "; its output is in the server's log (reference `{reference}`)")
            }
            None => Ok(()),
        }
    }
}
