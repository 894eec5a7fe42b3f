//! What a deployment is given: the stack it runs against (`DeployContext`), its mode and scope,
//! and the options of its run; shared by the evaluator, the step generator and the import
//! deployment, so none of them imports another for them.

use std::collections::BTreeMap;

use ferry_property::PropertyMap;
use ferry_state::Deployment;

use super::eval::ConfigValue;

pub use ferry_types::deployment::{DeployMode, SkippedResource};
pub use ferry_types::plans::{ImportStrategy, PlanScope};

/// Decrypts a state `ciphertext` into the JSON text of the secret.
pub type Decrypt<'a> = &'a (dyn Fn(&str) -> Result<String, String> + Sync);

/// The stack a program is deployed to.
pub struct DeployContext<'a> {
    pub organization: &'a str,
    pub project: &'a str,
    pub stack: &'a str,
    pub deployment: &'a Deployment,
    /// Stack config: `key` or `project:key`.
    pub config: &'a BTreeMap<String, ConfigValue>,
    pub decrypt: Option<Decrypt<'a>>,
}

#[derive(Debug, Clone)]
pub struct DeployOptions {
    pub mode: DeployMode,
    pub scope: PlanScope,
    /// Registrations in flight at once.
    pub concurrency: usize,
    /// `cdk import --resource-mapping`: resource name → ID. Resources the program would create
    /// are imported with the mapped ID instead; those without one are skipped.
    pub import_mapping: Option<BTreeMap<String, String>>,
    /// Told of each step as it is generated.
    pub progress: Option<crate::progress::Progress>,
    /// What another tool last recorded of resources the program imports, by resource name:
    /// each is read as Pulumi refreshes a resource it already tracks (the recorded values as
    /// the `Read`'s prior state), which some providers need (a `random_password`'s Terraform
    /// `id` is `none`; its recorded password is what it is).
    pub import_prior: Option<std::sync::Arc<BTreeMap<String, PriorState>>>,
    /// Identification (a preview's): each resource the program would create is tried as an
    /// import, under an ID typed for it or built from its type's recipe; found, it is
    /// imported, otherwise it stays a create. Every attempt is kept on its step.
    pub identify: Option<Identify>,
}

/// What identification is given besides the program.
#[derive(Debug, Clone, Default)]
pub struct Identify {
    /// IDs typed by a person, by the resource's logical name: tried instead of the recipe's.
    pub typed: BTreeMap<String, String>,
}

impl Default for DeployOptions {
    fn default() -> Self {
        DeployOptions {
            mode: DeployMode::Preview,
            scope: PlanScope::WholeStack,
            concurrency: 16,
            import_mapping: None,
            progress: None,
            import_prior: None,
            identify: None,
        }
    }
}

/// A resource's recorded state from before its import (see [`DeployOptions::import_prior`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriorState {
    pub outputs: PropertyMap,
    pub inputs: PropertyMap,
    /// The components the other tool kept the resource in, outermost first (a Terraform
    /// module call's instances): registered in state as a spec's components are, the
    /// resource their child, unless the program gives it a parent of its own.
    pub components: Vec<PriorComponent>,
}

/// A component a prior state places its resource in: state only, no provider manages it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorComponent {
    pub type_: String,
    pub name: String,
}
