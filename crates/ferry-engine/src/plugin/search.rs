//! Where provider plugins are found: Ferry's own plugin folders, then `PATH`, then Pulumi's
//! plugin cache (`$PULUMI_HOME/plugins` or `~/.pulumi/plugins`, as `resource-<pkg>-v<version>/`).

use std::path::{Path, PathBuf};

use super::error::PluginError;

/// A plugin binary that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderBinary {
    pub package: String,
    pub path: PathBuf,
    /// The version its folder names, when it came from Pulumi's plugin cache.
    pub version: Option<semver::Version>,
}

/// The places to look, in order.
#[derive(Debug, Clone, Default)]
pub struct PluginSearch {
    /// Ferry's own plugin folders (each holds `pulumi-resource-<pkg>` binaries).
    pub ferry_dirs: Vec<PathBuf>,
    /// The folders of `PATH`.
    pub path_dirs: Vec<PathBuf>,
    /// Pulumi's plugin cache.
    pub pulumi_plugins: Option<PathBuf>,
}

impl PluginSearch {
    /// Ferry's folders plus this process's `PATH` and Pulumi's cache.
    pub fn from_env(ferry_dirs: Vec<PathBuf>) -> PluginSearch {
        let path_dirs = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        let pulumi_home = std::env::var_os("PULUMI_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pulumi")));
        PluginSearch {
            ferry_dirs,
            path_dirs,
            pulumi_plugins: pulumi_home.map(|h| h.join("plugins")),
        }
    }

    /// Finds the plugin for `package`, preferring `version` in Pulumi's cache when given.
    pub fn find(
        &self,
        package: &str,
        version: Option<&semver::Version>,
    ) -> Result<ProviderBinary, PluginError> {
        if !valid_package(package) {
            return Err(PluginError::InvalidPackage { package: package.to_string() });
        }
        let exe = format!("pulumi-resource-{package}");
        let mut looked_in = Vec::new();
        for dir in self.ferry_dirs.iter().chain(&self.path_dirs) {
            let candidate = dir.join(&exe);
            looked_in.push(dir.clone());
            if is_executable(&candidate) {
                return Ok(ProviderBinary {
                    package: package.into(),
                    path: candidate,
                    version: None,
                });
            }
        }
        if let Some(cache) = &self.pulumi_plugins {
            looked_in.push(cache.clone());
            let prefix = format!("resource-{package}-v");
            let mut found: Vec<(semver::Version, PathBuf)> = std::fs::read_dir(cache)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|entry| {
                    let name = entry.file_name().into_string().ok()?;
                    let v = semver::Version::parse(name.strip_prefix(&prefix)?).ok()?;
                    let bin = entry.path().join(&exe);
                    is_executable(&bin).then_some((v, bin))
                })
                .collect();
            found.sort_by(|a, b| b.0.cmp(&a.0));
            let pick = match version {
                Some(v) => found.iter().find(|(fv, _)| fv == v).or(found.first()),
                None => found.first(),
            };
            if let Some((v, path)) = pick {
                return Ok(ProviderBinary {
                    package: package.into(),
                    path: path.clone(),
                    version: Some(v.clone()),
                });
            }
        }
        // Where it looked is for the server's administrator, not for users' messages.
        tracing::warn!(package, binary = %exe, folders = ?looked_in, "no plugin found");
        Err(PluginError::NotFound { package: package.to_string(), binary: exe, looked_in })
    }

    /// The packages whose plugins are installed in Ferry's folders or Pulumi's cache (not
    /// `PATH`), sorted: what an editor can offer type tokens from.
    pub fn installed_packages(&self) -> Vec<String> {
        let mut packages = std::collections::BTreeSet::new();
        for dir in &self.ferry_dirs {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some(p) = name.strip_prefix("pulumi-resource-") {
                    if is_executable(&entry.path()) && valid_package(p) {
                        packages.insert(p.to_string());
                    }
                }
            }
        }
        if let Some(cache) = &self.pulumi_plugins {
            for entry in std::fs::read_dir(cache).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some((p, _)) =
                    name.strip_prefix("resource-").and_then(|n| n.rsplit_once("-v"))
                {
                    if valid_package(p) {
                        packages.insert(p.to_string());
                    }
                }
            }
        }
        packages.into_iter().collect()
    }
}

/// A package name Ferry accepts: `[a-z0-9-]+`, so a plugin path never leaves its folder.
pub fn valid_package(p: &str) -> bool {
    !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
