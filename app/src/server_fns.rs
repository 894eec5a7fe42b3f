//! Server functions the pages call: thin wrappers over `ferry_service::StackService`, which
//! the server provides as context. Their bodies exist only in the `ssr` build.

use ferry_types::{ResourceDetail, ResourceRow, StackSummary};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What the stack pages need: the summary and every row of the table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StackPageData {
    pub summary: StackSummary,
    pub rows: Vec<ResourceRow>,
    /// Load warnings, as `message (at path)`.
    pub warnings: Vec<String>,
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::sync::Arc;

    use ferry_service::StackService;
    use leptos::prelude::*;

    pub fn stacks() -> Result<Arc<StackService>, ServerFnError> {
        use_context::<Arc<StackService>>().ok_or_else(|| ServerFnError::new("the stack service is not available"))
    }

    pub fn fail(e: ferry_service::ServiceError) -> ServerFnError {
        ServerFnError::new(e.to_string())
    }
}

#[server(prefix = "/rpc")]
pub async fn list_stacks() -> Result<Vec<StackSummary>, ServerFnError> {
    ssr::stacks()?.list().await.map_err(ssr::fail)
}

#[server(prefix = "/rpc")]
pub async fn stack_page(id: String) -> Result<StackPageData, ServerFnError> {
    let version = ssr::stacks()?.version(&id, None).await.map_err(ssr::fail)?;
    let warnings = version
        .warnings
        .iter()
        .map(|w| match &w.path {
            Some(path) => format!("{} (at {path})", w.message),
            None => w.message.clone(),
        })
        .collect();
    Ok(StackPageData { summary: version.summary.clone(), rows: version.rows(), warnings })
}

#[server(prefix = "/rpc")]
pub async fn load_resource_detail(id: String, urn: String) -> Result<ResourceDetail, ServerFnError> {
    let version = ssr::stacks()?.version(&id, None).await.map_err(ssr::fail)?;
    version
        .detail(&urn)
        .ok_or_else(|| ServerFnError::new(format!("no resource `{urn}` in stack `{}`", version.summary.name)))
}
