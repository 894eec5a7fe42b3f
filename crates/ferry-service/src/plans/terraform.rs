//! Migrations from Terraform and OpenTofu: a state file made into a plan. The file is read and
//! translated by `ferry-terraform` (pure); here the plugins the stack's organisation may run are
//! asked which Terraform providers they map and for their mappings (`GetMappings` and
//! `GetMapping`, key `terraform`), and the result is saved as a plan whose
//! program imports every mapped instance. Nothing reaches the stack before the plan's commit.

use ferry_terraform::providers::resolve;
use ferry_terraform::{
    migrate, read_configuration, read_state, Claim, ConfigurationFile, Mappings, Migration,
    MigrationOptions, Mode, Plugins, ProviderAddress, ProviderMapping, Resolution, State,
};
use ferry_types::api::MigrationChoices;
use ferry_types::plans::{PlanInput, PlanOptions};
use ferry_types::terraform::MigrationView;
use futures_util::StreamExt;

use crate::access::Caller;
use crate::{Plans, ServiceError};

/// The largest number of files a configuration may have, and of entries its zip may hold.
const MAX_CONFIGURATION_FILES: usize = 10_000;

/// The `.tf` files of a configuration sent as a zip of its folder: each file's path inside the
/// zip and its text. Other files are skipped; a `.tf` file that is not UTF-8, a zip that does
/// not read, or one larger than `max_bytes` unpacked is refused by name.
pub fn configuration_of_zip(
    bytes: &[u8],
    max_bytes: usize,
) -> Result<Vec<ConfigurationFile>, ServiceError> {
    let bad =
        |why: String| ServiceError::Invalid(format!("the Terraform configuration's zip: {why}"));
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| bad(e.to_string()))?;
    if archive.len() > MAX_CONFIGURATION_FILES {
        return Err(bad(format!(
            "it holds {} entries; at most {MAX_CONFIGURATION_FILES} are read",
            archive.len()
        )));
    }
    let mut files = Vec::new();
    let mut total = 0usize;
    for n in 0..archive.len() {
        let mut entry = archive.by_index(n).map_err(|e| bad(e.to_string()))?;
        let path = entry.name().to_string();
        if entry.is_dir() || !path.ends_with(".tf") {
            continue;
        }
        // Read no further than the limit, whatever the entry's header claims.
        let mut text = String::new();
        let room = max_bytes.saturating_sub(total) as u64 + 1;
        std::io::Read::read_to_string(&mut std::io::Read::take(&mut entry, room), &mut text)
            .map_err(|e| bad(format!("`{path}`: {e}")))?;
        total += text.len();
        if total > max_bytes {
            return Err(bad(format!("its `.tf` files are larger than {max_bytes} bytes unpacked")));
        }
        files.push(ConfigurationFile { path, text });
    }
    Ok(files)
}

impl Plans {
    /// Reads `file` (a Terraform or OpenTofu state, or `show -json` output) and, when any of its
    /// instances maps to a Pulumi type, saves a plan on the stack importing them, written by
    /// `author`. A file that does not read is an error naming what is wrong and where, and
    /// nothing is saved.
    pub async fn migrate_terraform(
        &self,
        author: &Caller,
        stack_id: &str,
        file: &[u8],
        configuration: &[ConfigurationFile],
        choices: &MigrationChoices,
    ) -> Result<MigrationView, ServiceError> {
        self.migrate_terraform_named(
            author,
            stack_id,
            file,
            "the Terraform state",
            configuration,
            choices,
        )
        .await
    }

    /// [`Plans::migrate_terraform`] of `file`, named `what` in errors (`the Terraform state at
    /// s3://…`).
    pub(crate) async fn migrate_terraform_named(
        &self,
        author: &Caller,
        stack_id: &str,
        file: &[u8],
        what: &str,
        configuration: &[ConfigurationFile],
        choices: &MigrationChoices,
    ) -> Result<MigrationView, ServiceError> {
        author.require_signed_in()?;
        let migration =
            self.terraform_migration_of(stack_id, file, what, configuration, choices).await?;
        let summary = self.stacks.summary(stack_id).await?;
        let plan = match migration.program {
            Some(program) => {
                let title = choices
                    .title
                    .as_deref()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("Migrate from Terraform into {}", summary.name));
                let input = PlanInput {
                    title: Some(title),
                    spec: None,
                    program: Some(program),
                    options: PlanOptions::default(),
                };
                Some(
                    self.create_plan_with_prior(author, stack_id, input, Some(&migration.prior))
                        .await?,
                )
            }
            None => None,
        };
        Ok(MigrationView { plan, resources: migration.rows, notes: migration.notes })
    }

    /// What `file` makes for the stack: a row per instance and the program importing every
    /// mapped one, through the mappings of the plugins the stack's organisation allows. Saves
    /// nothing (the CLI previews it directly).
    pub async fn terraform_migration(
        &self,
        stack_id: &str,
        file: &[u8],
        configuration: &[ConfigurationFile],
        choices: &MigrationChoices,
    ) -> Result<Migration, ServiceError> {
        self.terraform_migration_of(stack_id, file, "the Terraform state", configuration, choices)
            .await
    }

    async fn terraform_migration_of(
        &self,
        stack_id: &str,
        file: &[u8],
        what: &str,
        configuration: &[ConfigurationFile],
        choices: &MigrationChoices,
    ) -> Result<Migration, ServiceError> {
        let state = read_state(file).map_err(|e| ServiceError::Invalid(format!("{what}: {e}")))?;
        // Read before any plugin is asked: a configuration that does not parse is refused as a
        // state that does not is.
        let configuration = (!configuration.is_empty())
            .then(|| read_configuration(configuration))
            .transpose()
            .map_err(|e| ServiceError::Invalid(format!("the Terraform configuration: {e}")))?;
        let summary = self.stacks.summary(stack_id).await?;
        let project = summary.name.split('/').nth(1).unwrap_or("imported").to_string();
        let mappings = self.terraform_mappings(stack_id, &state).await?;
        let options = MigrationOptions {
            project,
            include_tainted: choices.include_tainted,
            include_deposed: choices.include_deposed,
            configuration,
        };
        Ok(migrate(&state, &mappings, &options))
    }

    /// The mappings of the state's providers, by full source address, from the plugins the
    /// stack's organisation may run, decided as Pulumi's converters decide (see
    /// [`ferry_terraform::providers::resolve`]): every runnable plugin is asked which providers it
    /// maps (`GetMappings`, kept per plugin version), and the claimants, then the package
    /// Pulumi's table names, are asked for the mapping. A plugin that cannot start, does not
    /// answer or answers nonsense maps nothing (the server's log says why); a provider no plugin
    /// maps gets the reason on its rows, with the package and plugin to install.
    async fn terraform_mappings(
        &self,
        stack_id: &str,
        state: &State,
    ) -> Result<Mappings, ServiceError> {
        // Each provider once (an alias is the same provider): one key per instance, not one per
        // instance and provider.
        let mut by_key: std::collections::BTreeMap<String, &ProviderAddress> =
            std::collections::BTreeMap::new();
        for instance in state.instances.iter().filter(|i| i.address.mode == Mode::Managed) {
            by_key.entry(instance.provider.key()).or_insert(&instance.provider);
        }
        let providers: Vec<ProviderAddress> = by_key.into_values().cloned().collect();
        let mut mappings = Mappings::default();
        if providers.is_empty() {
            return Ok(mappings);
        }
        let plugins = self.plugins.providers(stack_id).await?;
        let (installed, runnable) = plugins.installed_and_runnable();
        // Launching a plugin takes a while: a few at once, never all of a large cache together.
        let claims: Vec<Claim> = futures_util::stream::iter(runnable.iter().cloned())
            .map(|package| {
                let plugins = &plugins;
                async move {
                    match plugins.claims(&package, "terraform").await {
                        Ok(names) => names.iter().map(|name| Claim { package: package.clone(), name: name.clone() }).collect(),
                        Err(e) => {
                            tracing::info!(package, error = %e, "a plugin said nothing of the Terraform providers it maps");
                            Vec::new()
                        }
                    }
                }
            })
            .buffer_unordered(4)
            .collect::<Vec<Vec<Claim>>>()
            .await
            .into_iter()
            .flatten()
            .collect();
        let known = Plugins {
            runnable: runnable.into_iter().collect(),
            installed: installed.into_iter().collect(),
        };
        let resolutions = resolve(&providers, &claims, &known);
        for provider in &providers {
            match &resolutions[&provider.key()] {
                Resolution::Ask(candidates) => {
                    for candidate in candidates {
                        match plugins.mapping(&candidate.package, "terraform", &candidate.name).await {
                            Ok(Some(data)) => match ProviderMapping::parse(&data, &candidate.package) {
                                Ok(Some(mapping)) => {
                                    mappings.insert(provider, &candidate.package, mapping);
                                    break;
                                }
                                Ok(None) => {}
                                Err(e) => {
                                    tracing::warn!(package = candidate.package, provider = %provider, error = %e, "a plugin's Terraform mapping does not read");
                                    mappings
                                        .unmapped(provider, format!("the `{}` plugin's mapping for `{}` does not read", candidate.package, provider.source()));
                                }
                            },
                            Ok(None) => mappings.unmapped(
                                provider,
                                format!(
                                    "the `{}` plugin gives no mapping for the Terraform provider `{}` (asked as `{}`)",
                                    candidate.package,
                                    provider.source(),
                                    candidate.name
                                ),
                            ),
                            Err(e) => {
                                tracing::info!(package = candidate.package, provider = %provider, error = %e, "no Terraform mapping from this plugin");
                                mappings.unmapped(
                                    provider,
                                    format!("the `{}` plugin failed when asked for its mapping of `{}`: {e}", candidate.package, provider.source()),
                                );
                            }
                        }
                    }
                }
                Resolution::Unmapped(why) => mappings.unmapped(provider, why.clone()),
            }
        }
        plugins.shutdown().await;
        Ok(mappings)
    }
}
