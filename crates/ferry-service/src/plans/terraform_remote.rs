//! A Terraform or OpenTofu state read where its backend keeps it (through
//! `backends/terraform_state.rs`, where the organisation is allowed) made into a plan as an
//! uploaded state is.

use ferry_types::terraform::{ConfigurationFile, RemoteState, Workspace};

use crate::access::{org_of_name, Caller};
use crate::{Plans, ServiceError};
use ferry_types::api::MigrationChoices;
use ferry_types::terraform::MigrationView;

impl Plans {
    /// [`Plans::migrate_terraform`] of the state `remote` names, read from its backend (which
    /// the stack's organisation must be allowed to read), with the `configuration` it was
    /// applied from when the caller has it.
    pub async fn migrate_terraform_remote(
        &self,
        author: &Caller,
        stack_id: &str,
        remote: &RemoteState,
        configuration: &[ConfigurationFile],
        choices: &MigrationChoices,
    ) -> Result<MigrationView, ServiceError> {
        author.require_signed_in()?;
        let org = org_of_name(&self.stacks.summary(stack_id).await?.name).to_string();
        let (url, bytes) = self.backends.terraform_state(&org, remote).await?;
        self.migrate_terraform_named(
            author,
            stack_id,
            &bytes,
            &format!("the Terraform state at {url}"),
            configuration,
            choices,
        )
        .await
    }

    /// The workspaces a planner of the stack's organisation may pick from (see
    /// [`Backends::terraform_workspaces`]).
    pub async fn terraform_workspaces(
        &self,
        stack_id: &str,
        remote: &RemoteState,
    ) -> Result<Vec<Workspace>, ServiceError> {
        let org = org_of_name(&self.stacks.summary(stack_id).await?.name).to_string();
        self.backends.terraform_workspaces(&org, remote).await
    }
}
