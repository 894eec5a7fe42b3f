//! The plugin host: the one way every domain (previews, code, discovery, the editor's help,
//! Terraform migrations) launches providers for work on a stack, so that none launches a
//! package its organisation does not allow or hands a plugin more of the server's environment
//! than the organisation is given.

use ferry_engine::plugin::{EngineService, PluginEnvPolicy, PluginProviders, PluginSearch};

use crate::accounts::Accounts;
use crate::{EngineSlot, ServiceError};

/// Launches plugins for the domains that run providers, under the engine's configuration and
/// each stack's organisation's allow-list.
#[derive(Clone)]
pub(crate) struct PluginHost {
    engine: EngineSlot,
    accounts: Accounts,
}

impl PluginHost {
    pub(crate) fn new(engine: EngineSlot, accounts: Accounts) -> PluginHost {
        PluginHost { engine, accounts }
    }

    /// Freshly launched plugins for one run on `stack_id` (stopped by the caller): only the
    /// packages its organisation allows are launched, with the environment it is given.
    pub(crate) async fn providers(&self, stack_id: &str) -> Result<PluginProviders, ServiceError> {
        let config = self.engine.get()?.clone();
        let allowed = self.accounts.allowed_packages(stack_id).await?;
        let search = PluginSearch::from_env(config.plugin_dirs.clone());
        let (engine, _logs) = EngineService::start()
            .await
            .map_err(|e| ServiceError::Internal(format!("engine service: {e}")))?;
        let providers = PluginProviders::new(
            search,
            engine,
            config.launch,
            std::env::temp_dir(),
            config.schema_cache.clone(),
        )
        .with_environment(config.plugin_environment.for_org(&allowed.org));
        // The command line runs on its user's own machine, with their plugins and environment,
        // as Pulumi does: the organisations' allow-lists are the server's rule.
        let server = config.plugin_environment != PluginEnvPolicy::Inherited;
        Ok(match allowed.packages.filter(|_| server) {
            Some(packages) => providers.with_allowed_packages(
                packages,
                format!("organisation `{}` allows Ferry's `random` plugin and the packages an administrator lists (organisation settings)", allowed.org),
            ),
            None => providers,
        })
    }
}
