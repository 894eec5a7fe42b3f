//! Terraform and OpenTofu state, read and translated to Pulumi through the providers' own
//! mappings: pure (no IO), so the service asks plugins for mappings and runs what this crate
//! makes of them. `state` reads the files, `address` their addresses, `providers` which plugin
//! maps each provider (the plugins' claims, and Pulumi's bridged packages), `mapping` a plugin's
//! mapping, `translate` attributes into properties, `names` unique Pulumi names, `components` the
//! components module calls become, `configuration` the `.tf` files and `configured` what they change
//! in a plan, and `migration`
//! puts them together into a plan's rows and YAML program; `testing` makes large states from a
//! real one for the benchmarks.

pub mod address;
pub mod components;
pub mod configuration;
mod configured;
pub mod mapping;
pub mod migration;
pub mod names;
pub mod providers;
pub mod state;
pub mod testing;
pub mod translate;
mod yaml;

pub use address::{Address, IndexKey, Mode, ProviderAddress};
pub use components::ModuleComponent;
pub use configuration::{read_configuration, Configuration, ConfigurationFile};
pub use configured::{ConfiguredPart, ConfiguredReference, ConfiguredTemplate, ConfiguredVariable};
pub use mapping::ProviderMapping;
pub use migration::{
    addresses_in_program, migrate, Migration, MigrationOptions, PriorState, Row, RowStatus,
};
pub use providers::{Claim, Mappings, Plugins, Resolution};
pub use state::{read_state, Format, Instance, State, Status};

/// A file that is not a state Ferry reads: what is wrong, and where (a JSON path, or an
/// instance's address).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", .path.as_ref().map(|p| format!(" (at {p})")).unwrap_or_default())]
pub struct TerraformError {
    pub message: String,
    pub path: Option<String>,
}
