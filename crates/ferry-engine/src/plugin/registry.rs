//! Launched plugins, shared: one process per package and version, configured once, reused by
//! every resource that needs it, and stopped together. `GetSchema` is asked once per package
//! version and kept (in memory, and on disk when a cache folder is given).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_rpc::pulumirpc::{CheckRequest, ConfigureRequest};
use tokio::sync::Mutex;

use super::{EngineService, LaunchOptions, PluginError, PluginSearch, ProviderPlugin};
use crate::provider::{Provider, ProviderSource};

pub struct PluginProviders {
    search: PluginSearch,
    engine: EngineService,
    options: LaunchOptions,
    root: PathBuf,
    schema_cache: Option<PathBuf>,
    running: Mutex<HashMap<(String, Option<String>), Arc<ProviderPlugin>>>,
    schemas: Mutex<HashMap<(String, String), Arc<String>>>,
}

impl PluginProviders {
    pub fn new(search: PluginSearch, engine: EngineService, options: LaunchOptions, root: PathBuf, schema_cache: Option<PathBuf>) -> Self {
        PluginProviders {
            search,
            engine,
            options,
            root,
            schema_cache,
            running: Mutex::new(HashMap::new()),
            schemas: Mutex::new(HashMap::new()),
        }
    }

    async fn launch(&self, package: &str, version: Option<&str>) -> Result<Arc<ProviderPlugin>, PluginError> {
        let key = (package.to_string(), version.map(str::to_string));
        let mut running = self.running.lock().await;
        if let Some(p) = running.get(&key) {
            return Ok(p.clone());
        }
        let wanted = version.and_then(|v| semver::Version::parse(v.trim_start_matches('v')).ok());
        let binary = self.search.find(package, wanted.as_ref())?;
        let plugin = ProviderPlugin::launch(&binary, self.engine.addr, &self.root, self.options).await?;
        // A default provider has no configuration; still let the plugin check and take it.
        let empty = ferry_rpc::prost_types::Struct::default();
        let checked = plugin
            .check_config(CheckRequest {
                urn: format!("urn:pulumi:ferry::ferry::pulumi:providers:{package}::default"),
                news: Some(empty.clone()),
                olds: Some(empty.clone()),
                r#type: format!("pulumi:providers:{package}"),
                ..Default::default()
            })
            .await?
            .and_then(|r| r.inputs)
            .unwrap_or(empty);
        plugin
            .configure(ConfigureRequest {
                args: Some(checked),
                accept_secrets: true,
                accept_resources: true,
                ..Default::default()
            })
            .await?;
        let plugin = Arc::new(plugin);
        running.insert(key, plugin.clone());
        Ok(plugin)
    }

    /// The package's schema, asked of the plugin once per version.
    pub async fn schema(&self, package: &str, version: Option<&str>) -> Result<Arc<String>, PluginError> {
        let plugin = self.launch(package, version).await?;
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
                let fresh = plugin.get_schema().await?;
                if let Some(f) = &file {
                    // Write then rename: a reader never sees half a schema.
                    let tmp = f.with_extension("json.tmp");
                    if std::fs::create_dir_all(f.parent().expect("a file in a folder")).is_ok() && std::fs::write(&tmp, &fresh).is_ok() {
                        let _ = std::fs::rename(&tmp, f);
                    }
                }
                fresh
            }
        };
        let schema = Arc::new(schema);
        schemas.insert(key, schema.clone());
        Ok(schema)
    }

    /// Stops every plugin.
    pub async fn shutdown(&self) {
        for (_, plugin) in self.running.lock().await.drain() {
            plugin.shutdown().await;
        }
    }
}

#[tonic::async_trait]
impl ProviderSource for PluginProviders {
    async fn provider(&self, package: &str, version: Option<&str>) -> Result<Arc<dyn Provider>, PluginError> {
        Ok(self.launch(package, version).await?)
    }
}
