//! Server functions the pages call: thin wrappers over `ferry_service::StackService`, which
//! the server provides as context. Their bodies exist only in the `ssr` build.

use ferry_types::{PlanPageData, ResourceDetail, ResourceRow, StackSummary};
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
        // A page rendered for something that does not exist (or no longer does, like a
        // revoked link) answers 404, not 200. The routes that can say so render in async
        // mode, so the status is still settable when this runs.
        if e.code() == "not_found" {
            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                response.set_status(http::StatusCode::NOT_FOUND);
            }
        }
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
    version.detail(&urn).ok_or_else(|| ServerFnError::new(format!("no resource `{urn}` in stack `{}`", version.summary.name)))
}

/// A plan's page: through its ID (`share` empty) or a read-only link's token (`id` empty).
#[server(prefix = "/rpc")]
pub async fn plan_page(id: String, share: String, revision: Option<i64>) -> Result<PlanPageData, ServerFnError> {
    let stacks = ssr::stacks()?;
    let view = if share.is_empty() { stacks.plan_view(&id, revision, false).await } else { stacks.shared_plan(&share, revision).await }.map_err(ssr::fail)?;
    let stack = stacks.summary(&view.plan.stack_id).await.map_err(ssr::fail)?;
    let shown = view.current.revision;
    // The same JSON the API gives, read as the browser reads it; a link's reader gets no job
    // (its ID belongs to the plan's owners).
    let job = if share.is_empty() {
        stacks
            .plan_jobs(&id)
            .into_iter()
            .find(|j| j.revision == shown)
            .map(|j| serde_json::to_value(j).and_then(serde_json::from_value))
            .transpose()
            .map_err(|e| ServerFnError::new(e.to_string()))?
    } else {
        None
    };
    let latest = view.current.previews.len().checked_sub(1);
    let preview = latest.map(|i| {
        if share.is_empty() {
            ferry_types::PreviewRef::Owner { preview: view.current.previews[i].clone() }
        } else {
            ferry_types::PreviewRef::Shared { token: share.clone(), revision: shown, index: i }
        }
    });
    let committed_version = match &preview {
        Some(p) => stacks.preview_by_ref(p).await.map_err(ssr::fail)?.committed_version,
        None => None,
    };
    Ok(PlanPageData {
        id: view.plan.id,
        title: view.plan.title,
        stack_id: view.plan.stack_id,
        stack_name: stack.name,
        revision: shown,
        latest_revision: view.plan.revision,
        created_at: view.current.created_at,
        spec: view.current.spec,
        program: view.current.program,
        options: serde_json::to_value(&view.current.options).map_err(|e| ServerFnError::new(e.to_string()))?,
        job,
        preview,
        committed_version,
        share_token: (!share.is_empty()).then_some(share),
    })
}

/// A new plan for the stack, started from an example the user edits; returns its ID.
#[server(prefix = "/rpc")]
pub async fn new_plan(stack_id: String, kind: String) -> Result<String, ServerFnError> {
    let stacks = ssr::stacks()?;
    let plan = stacks.create_plan_from_example(&stack_id, kind == "program").await.map_err(ssr::fail)?;
    Ok(plan.plan.id)
}
