//! Launched plugins, shared: one supervised process per provider resource, configured once,
//! reused by every resource that needs it, and stopped together. `GetSchema` is asked once per package
//! version and kept (in memory, and on disk when a cache folder is given); `GetMapping` likewise, per plugin
//! version, key and provider, and `GetMappings` per plugin version and key.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_rpc::pulumirpc::{CheckRequest, ConfigureRequest};
use tokio::sync::Mutex;

use super::supervisor::StartPlugin;
use super::{
    EngineService, LaunchOptions, PluginEnvironment, PluginError, PluginSearch, ProviderBinary,
    ProviderPlugin, SupervisedPlugin,
};
use crate::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_property::json::EncodeOptions;
use ferry_property::wire::to_struct;

pub struct PluginProviders {
    search: PluginSearch,
    engine: EngineService,
    options: LaunchOptions,
    root: PathBuf,
    schema_cache: Option<PathBuf>,
    running: Mutex<HashMap<String, Result<Arc<SupervisedPlugin>, PluginError>>>,
    by_package: Mutex<HashMap<(String, Option<String>), Arc<SupervisedPlugin>>>,
    schemas: Mutex<HashMap<(String, String), Arc<String>>>,
    /// Mappings by package, plugin version, key and provider: asked once, like schemas.
    mappings: Mutex<HashMap<(String, String, String, String), Option<Arc<Vec<u8>>>>>,
    /// Claims (`GetMappings`) by package, plugin version and key.
    claims: Mutex<HashMap<(String, String, String), Arc<Vec<String>>>>,
    /// Packages that run on another plugin, by package name.
    parameterized: std::sync::Mutex<HashMap<String, Parameterized>>,
    /// The packages whose plugins may be launched (`None`: any), and what to tell otherwise.
    allowed: Option<(std::collections::HashSet<String>, String)>,
    /// What each plugin sees of this process's environment.
    environment: Arc<PluginEnvironment>,
    /// The empty home this run's plugins share under a minimal environment, removed with the
    /// registry.
    _home: Option<tempfile::TempDir>,
}

/// A package that is a parameterization (or an extension) of another plugin: that plugin is
/// launched and told `Parameterize` before anything else, on every (re)start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameterized {
    pub plugin: String,
    pub plugin_version: String,
    pub package_version: String,
    pub value: Vec<u8>,
}

impl PluginProviders {
    pub fn new(
        search: PluginSearch,
        engine: EngineService,
        options: LaunchOptions,
        root: PathBuf,
        schema_cache: Option<PathBuf>,
    ) -> Self {
        PluginProviders {
            search,
            engine,
            options,
            root,
            schema_cache,
            running: Mutex::new(HashMap::new()),
            by_package: Mutex::new(HashMap::new()),
            schemas: Mutex::new(HashMap::new()),
            mappings: Mutex::new(HashMap::new()),
            claims: Mutex::new(HashMap::new()),
            parameterized: std::sync::Mutex::new(HashMap::new()),
            allowed: None,
            environment: Arc::new(PluginEnvironment::Inherited),
            _home: None,
        }
    }

    /// Launches plugins with `environment` rather than this process's whole environment. A
    /// minimal environment without a home gets an empty folder of this run's own as `HOME`.
    pub fn with_environment(mut self, mut environment: PluginEnvironment) -> Self {
        if let PluginEnvironment::Minimal { home: home @ None, .. } = &mut environment {
            match tempfile::Builder::new().prefix("ferry-plugin-home-").tempdir_in(&self.root) {
                Ok(dir) => {
                    *home = Some(dir.path().to_path_buf());
                    self._home = Some(dir);
                }
                // Without a folder of its own, a plugin gets no HOME at all: never the server's.
                Err(e) => {
                    tracing::warn!(error = %e, "could not make an empty home for plugins; they run without HOME")
                }
            }
        }
        self.environment = Arc::new(environment);
        self
    }

    /// Launches plugins only for `packages` (and, for a parameterized package, only when its
    /// base plugin is allowed too); any other is refused before anything runs, with `why`.
    pub fn with_allowed_packages(
        mut self,
        packages: std::collections::HashSet<String>,
        why: String,
    ) -> Self {
        self.allowed = Some((packages, why));
        self
    }

    fn check_allowed(&self, package: &str) -> Result<(), PluginError> {
        match &self.allowed {
            Some((allowed, why)) if !allowed.contains(package) => {
                Err(PluginError::NotAllowed { package: package.to_string(), why: why.clone() })
            }
            _ => Ok(()),
        }
    }

    /// Says that `package` runs on another plugin, parameterized; applies to every later launch.
    pub fn parameterize(&self, package: &str, parameterized: Parameterized) {
        self.parameterized
            .lock()
            .expect("parameterized lock")
            .insert(package.to_string(), parameterized);
    }

    /// The configured plugin for one provider resource (launched on first use, restarted by
    /// its supervisor after a crash or a hang). A plugin that cannot start is tried once per
    /// registry: every resource that needs it gets the same error, and nothing loops.
    async fn launch(
        &self,
        instance: &ProviderInstance,
    ) -> Result<Arc<SupervisedPlugin>, PluginError> {
        let package = instance.package.as_str();
        let mut running = self.running.lock().await;
        if let Some(p) = running.get(&instance.key) {
            return p.clone();
        }
        let started = self.start(instance).await;
        running.insert(instance.key.clone(), started.clone());
        let plugin = started?;
        self.by_package
            .lock()
            .await
            .insert((package.to_string(), instance.version.clone()), plugin.clone());
        Ok(plugin)
    }

    async fn start(
        &self,
        instance: &ProviderInstance,
    ) -> Result<Arc<SupervisedPlugin>, PluginError> {
        let parameterized =
            self.parameterized.lock().expect("parameterized lock").get(&instance.package).cloned();
        self.check_allowed(&instance.package)?;
        if let Some(p) = &parameterized {
            self.check_allowed(&p.plugin)?;
        }
        let binary = match &parameterized {
            Some(p) => self.search.find(
                &p.plugin,
                semver::Version::parse(p.plugin_version.trim_start_matches('v')).ok().as_ref(),
            )?,
            None => {
                let wanted = instance
                    .version
                    .as_deref()
                    .and_then(|v| semver::Version::parse(v.trim_start_matches('v')).ok());
                self.search.find(&instance.package, wanted.as_ref())?
            }
        };
        let (engine, root, options, instance_for_start) =
            (self.engine.addr, self.root.clone(), self.options, instance.clone());
        let environment = self.environment.clone();
        let start: StartPlugin = Arc::new(move || {
            let (binary, root, instance, parameterized) =
                (binary.clone(), root.clone(), instance_for_start.clone(), parameterized.clone());
            let environment = environment.clone();
            Box::pin(async move {
                start_configured(
                    &binary,
                    engine,
                    &root,
                    options,
                    &environment,
                    &instance,
                    parameterized.as_ref(),
                )
                .await
            })
        });
        Ok(Arc::new(
            SupervisedPlugin::start(&instance.package, start, self.options.max_restarts).await?,
        ))
    }

    /// The package's schema, asked of the plugin once per version.
    pub async fn schema(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<String>, PluginError> {
        let plugin = self.package_plugin(package, version).await?;
        let plugin_version = plugin.get_plugin_info().await?;
        let key = (package.to_string(), plugin_version.clone());
        let mut schemas = self.schemas.lock().await;
        if let Some(s) = schemas.get(&key) {
            return Ok(s.clone());
        }
        let file = self
            .schema_cache
            .as_ref()
            .filter(|_| !plugin_version.is_empty())
            .map(|dir| dir.join(format!("{package}-{plugin_version}.json")));
        let schema = match file.as_ref().and_then(|f| std::fs::read_to_string(f).ok()) {
            Some(cached) => cached,
            None => {
                let fresh = Provider::get_schema(plugin.as_ref()).await?;
                if let Some(f) = &file {
                    keep_cached(f, fresh.as_bytes());
                }
                fresh
            }
        };
        let schema = Arc::new(schema);
        schemas.insert(key, schema.clone());
        Ok(schema)
    }

    /// The plugin for `package` (any version), launched unconfigured-by-the-stack as for its
    /// schema.
    async fn package_plugin(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<SupervisedPlugin>, PluginError> {
        let existing = self
            .by_package
            .lock()
            .await
            .get(&(package.to_string(), version.map(str::to_string)))
            .cloned();
        match existing {
            Some(p) => Ok(p),
            None => {
                let instance = ProviderInstance {
                    package: package.into(),
                    version: version.map(str::to_string),
                    key: format!("schema:{package}:{}", version.unwrap_or("")),
                    config: Default::default(),
                };
                self.launch(&instance).await
            }
        }
    }

    /// The `package` plugin's mapping for `key` and the other tool's `provider` (`GetMapping`,
    /// as Pulumi's converters ask it): `None` when it maps nothing for them. Asked once per
    /// plugin version.
    pub async fn mapping(
        &self,
        package: &str,
        key: &str,
        provider: &str,
    ) -> Result<Option<Arc<Vec<u8>>>, PluginError> {
        let plugin = self.package_plugin(package, None).await?;
        let plugin_version = plugin.get_plugin_info().await?;
        let cache_key =
            (package.to_string(), plugin_version, key.to_string(), provider.to_string());
        if let Some(m) = self.mappings.lock().await.get(&cache_key) {
            return Ok(m.clone());
        }
        // Kept beside the schemas on disk (an empty file: the plugin maps nothing for them).
        let file = self
            .schema_cache
            .as_ref()
            // Names from a user's file never make a path: only plain words are cached on disk.
            .filter(|_| {
                !cache_key.1.is_empty()
                    && [key, provider].iter().all(|w| {
                        w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    })
            })
            .map(|dir| dir.join(format!("{package}-{}.mapping-{key}-{provider}", cache_key.1)));
        let mapping = match file.as_ref().and_then(|f| std::fs::read(f).ok()) {
            Some(cached) => (!cached.is_empty()).then_some(cached),
            None => {
                let fresh = plugin.get_mapping(key, provider).await?;
                if let Some(f) = &file {
                    keep_cached(f, fresh.as_deref().unwrap_or_default());
                }
                fresh
            }
        }
        .map(Arc::new);
        self.mappings.lock().await.insert(cache_key, mapping.clone());
        Ok(mapping)
    }

    /// The other tool's providers the `package` plugin says it maps for `key` (`GetMappings`, or
    /// the one provider an older plugin's `GetMapping` names): asked once per plugin version,
    /// kept beside its mappings.
    pub async fn claims(&self, package: &str, key: &str) -> Result<Arc<Vec<String>>, PluginError> {
        let plugin = self.package_plugin(package, None).await?;
        let plugin_version = plugin.get_plugin_info().await?;
        let cache_key = (package.to_string(), plugin_version, key.to_string());
        if let Some(c) = self.claims.lock().await.get(&cache_key) {
            return Ok(c.clone());
        }
        let file = self
            .schema_cache
            .as_ref()
            .filter(|_| {
                !cache_key.1.is_empty()
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
            .map(|dir| dir.join(format!("{package}-{}.claims-{key}.json", cache_key.1)));
        let cached = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| serde_json::from_slice::<Vec<String>>(&bytes).ok());
        let claims = match cached {
            Some(c) => c,
            None => {
                let fresh = plugin.get_mappings(key).await?;
                if let Some(f) = &file {
                    keep_cached(
                        f,
                        &serde_json::to_vec(&fresh).expect("a list of names serialises"),
                    );
                }
                fresh
            }
        };
        let claims = Arc::new(claims);
        self.claims.lock().await.insert(cache_key, claims.clone());
        Ok(claims)
    }

    /// The packages whose plugins are installed (Ferry's folders and Pulumi's plugin cache), and
    /// of those, the ones this registry may launch.
    pub fn installed_and_runnable(&self) -> (Vec<String>, Vec<String>) {
        let installed = self.search.installed_packages();
        let runnable =
            installed.iter().filter(|p| self.check_allowed(p).is_ok()).cloned().collect();
        (installed, runnable)
    }

    /// Stops every plugin.
    pub async fn shutdown(&self) {
        self.by_package.lock().await.clear();
        for (_, plugin) in self.running.lock().await.drain() {
            if let Ok(plugin) = plugin {
                plugin.shutdown().await;
            }
        }
    }
}

/// Keeps an answer in the cache file `file`: written beside it, then renamed, so a reader never
/// sees half of one. A cache that cannot be written is no error: the plugin is asked again.
fn keep_cached(file: &std::path::Path, bytes: &[u8]) {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    if std::fs::create_dir_all(file.parent().expect("a file in a folder")).is_ok()
        && std::fs::write(&tmp, bytes).is_ok()
    {
        let _ = std::fs::rename(&tmp, file);
    }
}

/// Launches a plugin process and configures it from the provider resource's inputs.
async fn start_configured(
    binary: &ProviderBinary,
    engine: std::net::SocketAddr,
    root: &std::path::Path,
    options: LaunchOptions,
    environment: &PluginEnvironment,
    instance: &ProviderInstance,
    parameterized: Option<&Parameterized>,
) -> Result<ProviderPlugin, PluginError> {
    let package = instance.package.as_str();
    let plugin = ProviderPlugin::launch(binary, engine, root, options, environment).await?;
    if let Some(p) = parameterized {
        // Before GetSchema and configuration, as Pulumi does.
        let version = instance.version.clone().unwrap_or_else(|| p.package_version.clone());
        plugin.parameterize(package, &version, p.value.clone()).await.map_err(|e| match e {
            PluginError::Call { code, .. } if code == "Unimplemented" => PluginError::Call {
                package: p.plugin.clone(),
                method: "Parameterize",
                code,
                message: format!("the `{}` plugin does not answer Parameterize, so it cannot run the parameterized package `{package}`", p.plugin),
            },
            other => other,
        })?;
    }
    // The provider resource's inputs are its configuration: checked, then applied.
    let config = to_struct(&instance.config, &EncodeOptions::wire());
    let urn = instance
        .key
        .rsplit_once("::")
        .filter(|(u, _)| u.starts_with("urn:"))
        .map(|(u, _)| u)
        .unwrap_or(&instance.key);
    let checked = plugin
        .check_config(CheckRequest {
            urn: urn.to_string(),
            news: Some(config.clone()),
            olds: Some(config.clone()),
            r#type: format!("pulumi:providers:{package}"),
            ..Default::default()
        })
        .await?;
    let args = match checked {
        Some(r) if !r.failures.is_empty() => {
            let problems: Vec<String> =
                r.failures.iter().map(|f| format!("{}: {}", f.property, f.reason)).collect();
            return Err(PluginError::Call {
                package: package.to_string(),
                method: "CheckConfig",
                code: "InvalidArgument".into(),
                message: format!(
                    "the provider's configuration is not valid: {}",
                    problems.join("; ")
                ),
            });
        }
        Some(r) => r.inputs.unwrap_or(config),
        None => config,
    };
    // Older providers read `variables` (`<package>:config:<key>` → text) instead of `args`.
    let variables = instance
        .config
        .iter()
        .filter_map(|(k, v)| {
            let text = match ferry_property::json::encode_value(
                v,
                &EncodeOptions { keep_secrets: false, ..EncodeOptions::wire() },
            )? {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            Some((format!("{package}:config:{k}"), text))
        })
        .collect();
    plugin
        .configure(ConfigureRequest {
            variables,
            args: Some(args),
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await?;
    Ok(plugin)
}

#[tonic::async_trait]
impl ProviderSource for PluginProviders {
    async fn provider(
        &self,
        instance: &ProviderInstance,
    ) -> Result<Arc<dyn Provider>, PluginError> {
        Ok(self.launch(instance).await?)
    }
    async fn schema(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<String>, PluginError> {
        PluginProviders::schema(self, package, version).await
    }
}
