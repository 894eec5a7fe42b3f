//! Migrations from Terraform and OpenTofu: a state file made into a plan. The file is read and
//! translated by `ferry-terraform` (pure); here the stack's allowed plugins are asked for their
//! Terraform mappings (`GetMapping`, key `terraform`) and the result is saved as a plan whose
//! program imports every mapped instance. Nothing reaches the stack before the plan's commit.

use std::collections::BTreeMap;

use ferry_terraform::{migrate, read_state, Migration, MigrationOptions, Mode, ProviderMapping, Row, State};
use ferry_types::plans::{PlanInput, PlanOptions, PlanView};
use serde::{Deserialize, Serialize};

use crate::access::Caller;
use crate::{Plans, ServiceError};

/// What a migration made: the plan (none when no instance maps), and a row for every instance.
#[derive(Debug, Clone, Serialize)]
pub struct TerraformMigration {
    pub plan: Option<PlanView>,
    pub resources: Vec<Row>,
}

/// What the caller chose for a migration.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct MigrationChoices {
    /// The plan's title (default: "Migrate from Terraform into <stack>").
    #[serde(default)]
    pub title: Option<String>,
    /// Import instances Terraform marked tainted too (it would replace them at its next apply).
    #[serde(default)]
    pub include_tainted: bool,
    /// Import deposed objects too (older objects of a replacement, still to be destroyed).
    #[serde(default)]
    pub include_deposed: bool,
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
        choices: &MigrationChoices,
    ) -> Result<TerraformMigration, ServiceError> {
        author.require_signed_in()?;
        let migration = self.terraform_migration(stack_id, file, choices).await?;
        let summary = self.stacks().summary(stack_id).await?;
        let plan = match migration.program {
            Some(program) => {
                let title = choices
                    .title
                    .as_deref()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("Migrate from Terraform into {}", summary.name));
                let input = PlanInput { title: Some(title), spec: None, program: Some(program), options: PlanOptions::default() };
                Some(self.create_plan_with_prior(author, stack_id, input, Some(&migration.prior)).await?)
            }
            None => None,
        };
        Ok(TerraformMigration { plan, resources: migration.rows })
    }

    /// What `file` makes for the stack: a row per instance and the program importing every
    /// mapped one, through the mappings of the plugins the stack's organisation allows. Saves
    /// nothing (the CLI previews it directly).
    pub async fn terraform_migration(&self, stack_id: &str, file: &[u8], choices: &MigrationChoices) -> Result<Migration, ServiceError> {
        let state = read_state(file).map_err(|e| ServiceError::Invalid(format!("the Terraform state: {e}")))?;
        let summary = self.stacks().summary(stack_id).await?;
        let project = summary.name.split('/').nth(1).unwrap_or("imported").to_string();
        let mappings = self.terraform_mappings(stack_id, &state).await?;
        let options = MigrationOptions { project, include_tainted: choices.include_tainted, include_deposed: choices.include_deposed };
        Ok(migrate(&state, &mappings, &options))
    }

    /// The mappings of the state's providers, by Terraform provider type, from the plugins the
    /// stack's organisation allows: the Pulumi package Ferry knows for the provider, else the
    /// plugin of the provider's own name. A plugin that is missing, not allowed, does not
    /// answer `GetMapping` or answers nonsense maps nothing (its rows say so); the server's
    /// log says why.
    async fn terraform_mappings(&self, stack_id: &str, state: &State) -> Result<BTreeMap<String, ProviderMapping>, ServiceError> {
        let mut wanted: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for instance in state.instances.iter().filter(|i| i.address.mode == Mode::Managed) {
            let provider = &instance.provider;
            wanted.entry(provider.type_.clone()).or_insert_with(|| {
                let mut packages: Vec<String> = provider.pulumi_package().into_iter().collect();
                if !packages.contains(&provider.type_) {
                    packages.push(provider.type_.clone());
                }
                packages
            });
        }
        let mut mappings = BTreeMap::new();
        if wanted.is_empty() {
            return Ok(mappings);
        }
        let providers = self.previews().plugin_providers(stack_id).await?;
        for (terraform_provider, packages) in wanted {
            for package in packages {
                if !ferry_engine::plugin::valid_package(&package) {
                    continue;
                }
                match providers.mapping(&package, "terraform", &terraform_provider).await {
                    Ok(Some(data)) => match ProviderMapping::parse(&data, &package) {
                        Ok(Some(mapping)) => {
                            mappings.insert(terraform_provider.clone(), mapping);
                            break;
                        }
                        Ok(None) => {}
                        Err(e) => tracing::warn!(package, terraform_provider, error = %e, "a plugin's Terraform mapping does not read"),
                    },
                    Ok(None) => {}
                    Err(e) => tracing::info!(package, terraform_provider, error = %e, "no Terraform mapping from this plugin"),
                }
            }
        }
        providers.shutdown().await;
        Ok(mappings)
    }
}
