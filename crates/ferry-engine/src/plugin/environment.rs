//! What a plugin process sees of its environment. On a user's own machine (the command line)
//! a plugin inherits it, as Pulumi's plugins do. A server runs plugins for requests, so there
//! a plugin starts from a minimal environment (where to find programs, the locale, a temporary
//! folder, and an empty home of its own) plus the server variables an administrator passes to
//! one organisation's plugins of one package by name (`ferry serve --plugin-env
//! <org>:<package>=<VAR>`): a planner's preview must never reach the server's own credentials,
//! nor those meant for another organisation.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

/// The variables every plugin of a server gets, when the server has them. `HOME` is not one:
/// a plugin gets an empty home of its own (a server's home holds its credentials), unless an
/// administrator passes `HOME` to its package.
pub const MINIMAL_VARIABLES: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
];

/// How a plugin's environment is made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PluginEnvironment {
    /// This process's whole environment (the command line, on the user's own machine).
    #[default]
    Inherited,
    /// Only [`MINIMAL_VARIABLES`], plus, per package, the variables named for it, and `HOME`
    /// set to `home` (unless passed).
    Minimal {
        /// Package → the names of the variables it is given, from this process's environment.
        passed: BTreeMap<String, Vec<String>>,
        /// The empty folder plugins get as their home (the plugin host makes one per run).
        home: Option<PathBuf>,
    },
}

/// A `--plugin-env` entry that is not `<org>:<package>=<VAR>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}`: pass a server variable to one organisation's plugins of a package as `<org>:<package>=<VARIABLE>` (`*:<package>=<VARIABLE>` for every organisation; e.g. `acme:aws=AWS_PROFILE`)")]
pub struct InvalidPluginEnv {
    pub entry: String,
}

/// The server's `--plugin-env` grants: which organisation's plugins of which package get which
/// of the server's variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginEnvGrants {
    /// (organisation or `*`, package, variable)
    grants: Vec<(String, String, String)>,
}

impl PluginEnvGrants {
    /// Reads `<org>:<package>=<VARIABLE>` entries (`*` for every organisation).
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<PluginEnvGrants, InvalidPluginEnv> {
        let mut grants = Vec::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            let invalid = || InvalidPluginEnv { entry: entry.to_string() };
            let (scope, variable) = entry.split_once('=').ok_or_else(invalid)?;
            let (org, package) = scope.split_once(':').ok_or_else(invalid)?;
            let valid_org = org == "*"
                || (!org.is_empty()
                    && org
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')));
            let valid_variable = !variable.is_empty()
                && variable.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid_org || !super::valid_package(package) || !valid_variable {
                return Err(invalid());
            }
            let grant = (org.to_string(), package.to_string(), variable.to_string());
            if !grants.contains(&grant) {
                grants.push(grant);
            }
        }
        Ok(PluginEnvGrants { grants })
    }

    /// The environment plugins run with for work of `org`: the minimal one, with what was
    /// granted to `org` or to every organisation.
    pub fn for_org(&self, org: &str) -> PluginEnvironment {
        let mut passed: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (scope, package, variable) in &self.grants {
            if scope == "*" || scope == org {
                let names = passed.entry(package.clone()).or_default();
                if !names.contains(variable) {
                    names.push(variable.clone());
                }
            }
        }
        PluginEnvironment::Minimal { passed, home: None }
    }
}

/// Where plugins' environments come from: this process's (the command line), or the minimal
/// one with the server's grants (`ferry serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginEnvPolicy {
    Inherited,
    Granted(PluginEnvGrants),
}

impl PluginEnvPolicy {
    /// The environment plugins run with for work of `org`.
    pub fn for_org(&self, org: &str) -> PluginEnvironment {
        match self {
            PluginEnvPolicy::Inherited => PluginEnvironment::Inherited,
            PluginEnvPolicy::Granted(grants) => grants.for_org(org),
        }
    }
}

impl PluginEnvironment {
    /// The variables a `package` plugin starts with, read from this process's environment;
    /// `None` when it inherits the whole environment.
    pub fn variables_for(&self, package: &str) -> Option<Vec<(String, OsString)>> {
        match self {
            PluginEnvironment::Inherited => None,
            PluginEnvironment::Minimal { passed, home } => {
                let granted = passed.get(package).into_iter().flatten().map(String::as_str);
                let mut variables: Vec<(String, OsString)> = MINIMAL_VARIABLES
                    .iter()
                    .copied()
                    .chain(granted)
                    .filter_map(|name| {
                        std::env::var_os(name).map(|value| (name.to_string(), value))
                    })
                    .collect();
                if let Some(home) =
                    home.as_ref().filter(|_| !variables.iter().any(|(name, _)| name == "HOME"))
                {
                    variables.push(("HOME".to_string(), home.clone().into_os_string()));
                }
                Some(variables)
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
    fn entries_name_an_organisation_a_package_and_a_variable() {
        let grants = PluginEnvGrants::parse(&[
            "acme:aws=AWS_PROFILE",
            "acme:aws=AWS_REGION",
            "*:postgresql=PGHOST",
            "acme:aws=AWS_PROFILE",
        ])
        .unwrap();
        let PluginEnvironment::Minimal { passed, .. } = grants.for_org("acme") else {
            panic!("minimal")
        };
        assert_eq!(passed["aws"], ["AWS_PROFILE", "AWS_REGION"]);
        assert_eq!(passed["postgresql"], ["PGHOST"]);
        let PluginEnvironment::Minimal { passed, .. } = grants.for_org("other") else {
            panic!("minimal")
        };
        assert!(!passed.contains_key("aws"), "acme's grant is acme's alone: {passed:?}");
        assert_eq!(passed["postgresql"], ["PGHOST"], "a `*` grant is every organisation's");
        for bad in [
            "AWS_PROFILE",
            "aws=AWS_PROFILE",
            "acme:aws=",
            ":aws=X",
            "acme:=X",
            "acme:Aws=X",
            "acme:aws=A-B",
            "acme:aws=$X",
            "a/b:aws=X",
        ] {
            assert!(PluginEnvGrants::parse(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_minimal_environment_holds_only_what_is_named_and_a_home_of_its_own() {
        // PATH and HOME are set for every test run; CARGO_MANIFEST_DIR is set by cargo for the
        // test process, and a plugin must not see it unless passed.
        let grants = PluginEnvGrants::parse(&["org:random=CARGO_MANIFEST_DIR"]).unwrap();
        let mut env = grants.for_org("org");
        if let PluginEnvironment::Minimal { home, .. } = &mut env {
            *home = Some(PathBuf::from("/nonexistent/plugin-home"));
        }
        let vars = |package: &str| {
            env.variables_for(package).unwrap().into_iter().collect::<BTreeMap<_, _>>()
        };
        assert!(vars("random").contains_key("PATH"));
        assert!(vars("random").contains_key("CARGO_MANIFEST_DIR"));
        assert!(
            !vars("aws").contains_key("CARGO_MANIFEST_DIR"),
            "only the package it was passed to"
        );
        assert_eq!(
            vars("aws")["HOME"],
            OsString::from("/nonexistent/plugin-home"),
            "not the server's home"
        );
        let with_home = PluginEnvGrants::parse(&["*:aws=HOME"]).unwrap().for_org("org");
        assert_eq!(
            with_home
                .variables_for("aws")
                .unwrap()
                .into_iter()
                .find(|(k, _)| k == "HOME")
                .map(|(_, v)| v),
            std::env::var_os("HOME"),
            "passed by name"
        );
        assert_eq!(PluginEnvironment::Inherited.variables_for("aws"), None);
    }
}
