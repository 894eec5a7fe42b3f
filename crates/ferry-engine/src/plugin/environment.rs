//! What a plugin process sees of its environment. On a user's own machine (the command line)
//! a plugin inherits it, as Pulumi's plugins do. A server runs plugins for requests, so there
//! a plugin starts from a minimal environment (where to find programs, a home, the locale, a
//! temporary folder) plus the server variables an administrator passes to its package by name
//! (`ferry serve --plugin-env <package>=<VAR>`): a planner's preview must never reach the
//! server's own cloud credentials.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// The variables every plugin of a server gets, when the server has them.
pub const MINIMAL_VARIABLES: &[&str] = &["PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TMP", "TEMP"];

/// How a plugin's environment is made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PluginEnvironment {
    /// This process's whole environment (the command line, on the user's own machine).
    #[default]
    Inherited,
    /// Only [`MINIMAL_VARIABLES`], plus, per package, the variables named for it.
    Minimal {
        /// Package → the names of the variables it is given, from this process's environment.
        passed: BTreeMap<String, Vec<String>>,
    },
}

/// A `--plugin-env` entry that is not `<package>=<VAR>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}`: pass a server variable to a plugin as `<package>=<VARIABLE>` (e.g. `aws=AWS_PROFILE`)")]
pub struct InvalidPluginEnv {
    pub entry: String,
}

impl PluginEnvironment {
    /// The minimal environment, with `entries` (`<package>=<VARIABLE>`) passed on.
    pub fn minimal<S: AsRef<str>>(entries: &[S]) -> Result<PluginEnvironment, InvalidPluginEnv> {
        let mut passed: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            let invalid = || InvalidPluginEnv { entry: entry.to_string() };
            let (package, variable) = entry.split_once('=').ok_or_else(invalid)?;
            let valid_variable = !variable.is_empty() && variable.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !super::valid_package(package) || !valid_variable {
                return Err(invalid());
            }
            let names = passed.entry(package.to_string()).or_default();
            if !names.iter().any(|n| n == variable) {
                names.push(variable.to_string());
            }
        }
        Ok(PluginEnvironment::Minimal { passed })
    }

    /// The variables a `package` plugin starts with, read from this process's environment;
    /// `None` when it inherits the whole environment.
    pub fn variables_for(&self, package: &str) -> Option<Vec<(String, OsString)>> {
        match self {
            PluginEnvironment::Inherited => None,
            PluginEnvironment::Minimal { passed } => {
                let names = MINIMAL_VARIABLES.iter().copied().chain(passed.get(package).into_iter().flatten().map(String::as_str));
                Some(names.filter_map(|name| std::env::var_os(name).map(|value| (name.to_string(), value))).collect())
            }
        }
    }

    /// Applies the environment to a plugin's command.
    pub(crate) fn apply(&self, package: &str, command: &mut tokio::process::Command) {
        if let Some(variables) = self.variables_for(package) {
            command.env_clear();
            command.envs(variables);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_name_a_package_and_a_variable() {
        let env = PluginEnvironment::minimal(&["aws=AWS_PROFILE", "aws=AWS_REGION", "postgresql=PGHOST", "aws=AWS_PROFILE"]).unwrap();
        let PluginEnvironment::Minimal { passed } = &env else { panic!("minimal") };
        assert_eq!(passed["aws"], ["AWS_PROFILE", "AWS_REGION"]);
        assert_eq!(passed["postgresql"], ["PGHOST"]);
        for bad in ["AWS_PROFILE", "aws=", "=X", "Aws=X", "aws=A-B", "aws=$X"] {
            assert!(PluginEnvironment::minimal(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_minimal_environment_holds_only_what_is_named() {
        // PATH is on every machine that runs these tests; CARGO_MANIFEST_DIR is set by cargo for
        // the test process, and a plugin must not see it unless passed.
        let env = PluginEnvironment::minimal(&["random=CARGO_MANIFEST_DIR"]).unwrap();
        let names = |package: &str| env.variables_for(package).unwrap().into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert!(names("random").contains(&"PATH".to_string()));
        assert!(names("random").contains(&"CARGO_MANIFEST_DIR".to_string()));
        assert!(!names("aws").contains(&"CARGO_MANIFEST_DIR".to_string()), "only the package it was passed to");
        assert_eq!(PluginEnvironment::Inherited.variables_for("aws"), None);
    }
}
