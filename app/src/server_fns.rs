//! Server functions the pages call: thin wrappers over `ferry_service::Ferry`, which
//! the server provides as context. Their bodies exist only in the `ssr` build.

use ferry_types::{Me, PlanPageData, ResourceDetail, ResourcePage, StackPageData, StackSummary};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
mod ssr {
    use std::sync::Arc;

    use ferry_service::Ferry;
    use leptos::prelude::*;

    /// Who calls: the server's `identify` layer put it in the request's extensions.
    pub fn caller() -> ferry_service::access::Caller {
        use_context::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ferry_service::access::Caller>().cloned())
            .unwrap_or_default()
    }

    /// Checks the caller holds `role` on the object; its organisation.
    pub async fn authorize(
        object: ferry_service::access::Object,
        id: &str,
        role: ferry_service::access::Role,
    ) -> Result<String, ServerFnError> {
        ferry()?.accounts().authorize(&caller(), object, id, role).await.map_err(fail)
    }

    /// The caller's address, for the audit log: as the server found it (behind a trusted
    /// proxy, what the proxy says), else the socket's peer.
    pub fn address() -> String {
        let peer = use_context::<http::request::Parts>().and_then(|parts| {
            parts
                .extensions
                .get::<ferry_service::access::ClientAddress>()
                .map(|c| c.address)
                .unwrap_or_else(|| {
                    parts
                        .extensions
                        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                        .map(|c| c.0.ip())
                })
        });
        ferry_service::accounts::address_text(peer)
    }

    pub fn ferry() -> Result<Arc<Ferry>, ServerFnError> {
        use_context::<Arc<Ferry>>()
            .ok_or_else(|| ServerFnError::new("Ferry's service is not available"))
    }

    pub fn fail(e: ferry_service::ServiceError) -> ServerFnError {
        // A page rendered for something that does not exist (or no longer does, like a
        // revoked link) answers 404, not 200. The routes that can say so render in async
        // mode, so the status is still settable when this runs.
        // The service's one table says which (the same statuses the API answers).
        let status = Some(e.status())
            .filter(|s| matches!(s, 401 | 403 | 404))
            .and_then(|s| http::StatusCode::from_u16(s).ok());
        if let (Some(status), Some(response)) =
            (status, use_context::<leptos_axum::ResponseOptions>())
        {
            response.set_status(status);
        }
        ServerFnError::new(e.to_string())
    }
}

#[server(prefix = "/rpc")]
pub async fn list_stacks() -> Result<Vec<StackSummary>, ServerFnError> {
    ssr::ferry()?.stacks().list_for(&ssr::caller()).await.map_err(ssr::fail)
}

#[server(prefix = "/rpc")]
pub async fn stack_page(id: String) -> Result<StackPageData, ServerFnError> {
    use ferry_service::access::{Object, Role};
    let org = ssr::authorize(Object::Stack, &id, Role::Viewer).await?;
    let roles = ssr::caller().roles_in(&org);
    let version = ssr::ferry()?.stacks().version(&id, None).await.map_err(ssr::fail)?;
    let warnings = version
        .warnings
        .iter()
        .map(|w| match &w.path {
            Some(path) => format!("{} (at {path})", w.message),
            None => w.message.clone(),
        })
        .collect();
    let recovered_locks = ssr::ferry()?
        .backends()
        .backend_locks(&id)
        .await
        .map_err(ssr::fail)?
        .into_iter()
        .filter_map(|lock| {
            lock.recovery.map(|recovery| format!("{recovery} (lock file `{}`)", lock.path))
        })
        .collect();
    let first = version
        .rows_page(&ferry_types::RowQuery {
            limit: crate::pages::paged::PAGE_ROWS,
            ..Default::default()
        })
        .map_err(ssr::fail)?;
    Ok(StackPageData { summary: version.summary.clone(), first, warnings, roles, recovered_locks })
}

/// One page of a stack version's resource table (`sort`: see [`ferry_types::RowQuery`]).
#[server(prefix = "/rpc")]
pub async fn stack_rows(
    id: String,
    version: i64,
    filter: String,
    sort: String,
    offset: usize,
    limit: usize,
) -> Result<ResourcePage, ServerFnError> {
    ssr::authorize(ferry_service::access::Object::Stack, &id, ferry_service::access::Role::Viewer)
        .await?;
    let loaded = ssr::ferry()?.stacks().version(&id, Some(version)).await.map_err(ssr::fail)?;
    loaded.rows_page(&ferry_types::RowQuery { filter, sort, offset, limit }).map_err(ssr::fail)
}

#[server(prefix = "/rpc")]
pub async fn load_resource_detail(
    id: String,
    urn: String,
) -> Result<ResourceDetail, ServerFnError> {
    ssr::authorize(ferry_service::access::Object::Stack, &id, ferry_service::access::Role::Viewer)
        .await?;
    let version = ssr::ferry()?.stacks().version(&id, None).await.map_err(ssr::fail)?;
    version.detail(&urn).ok_or_else(|| {
        ServerFnError::new(format!("no resource `{urn}` in stack `{}`", version.summary.name))
    })
}

/// A plan's page: through its ID (`share` empty) or a read-only link's token (`id` empty).
#[server(prefix = "/rpc")]
pub async fn plan_page(
    id: String,
    share: String,
    revision: Option<i64>,
) -> Result<PlanPageData, ServerFnError> {
    let ferry = ssr::ferry()?;
    // Through its ID, a plan is for its organisation's members; a link is its own capability.
    let roles = if share.is_empty() {
        let org = ssr::authorize(
            ferry_service::access::Object::Plan,
            &id,
            ferry_service::access::Role::Viewer,
        )
        .await?;
        ssr::caller().roles_in(&org)
    } else {
        Vec::new()
    };
    let view = if share.is_empty() {
        ferry.plans().plan_view_for(&ssr::caller(), &id, revision).await
    } else {
        ferry.plans().shared_plan(&share, revision).await
    }
    .map_err(ssr::fail)?;
    let stack = ferry.stacks().summary(&view.plan.stack_id).await.map_err(ssr::fail)?;
    let shown = view.current.revision;
    // The job as the API answers it; a link's reader gets none (its ID belongs to the plan's
    // owners).
    let job = if share.is_empty() {
        let latest = ferry
            .jobs()
            .plan_jobs(&id)
            .await
            .map_err(ssr::fail)?
            .into_iter()
            .find(|j| j.revision == shown);
        match latest {
            Some(j) => {
                // A job that stored its preview is shown from the preview, a page at a time; a
                // running one is followed from its first event: neither needs its events here
                // (10,000 of them would be megabytes of page). One that ended without a
                // preview shows what it reported.
                let job = ferry
                    .jobs()
                    .status::<ferry_types::JobView>(&j.id, Some(&id))
                    .await
                    .map_err(ssr::fail)?;
                Some(if job.preview_id.is_none() && !job.status.is_live() {
                    ferry
                        .jobs()
                        .get::<ferry_types::JobView>(&j.id, Some(&id))
                        .await
                        .map_err(ssr::fail)?
                } else {
                    job
                })
            }
            None => None,
        }
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
    let (committed_version, results) = match &preview {
        Some(p) => (
            ferry.previews().preview_committed_version(p).await.map_err(ssr::fail)?,
            Some(
                ferry
                    .previews()
                    .review_page(
                        p,
                        &ferry_types::ResultQuery {
                            limit: crate::pages::paged::PAGE_ROWS,
                            ..Default::default()
                        },
                    )
                    .await
                    .map_err(ssr::fail)?,
            ),
        ),
        None => (None, None),
    };
    Ok(PlanPageData {
        id: view.plan.id,
        title: view.plan.title,
        stack_id: view.plan.stack_id,
        stack_name: stack.name,
        revision: shown,
        latest_revision: view.plan.revision,
        created_at: view.current.created_at,
        spec: view.current.spec.as_deref().map(source_head),
        program: view.current.program.as_deref().map(source_head),
        options: view.current.options.clone(),
        job,
        preview,
        committed_version,
        results,
        share_token: (!share.is_empty()).then_some(share),
        roles,
        origins: view.origins,
        status: view.status,
    })
}

/// A new plan for the stack, started from an example the user edits; returns its ID.
#[server(prefix = "/rpc")]
pub async fn new_plan(
    stack_id: String,
    kind: ferry_types::SourceKind,
) -> Result<String, ServerFnError> {
    let ferry = ssr::ferry()?;
    let caller = ssr::caller();
    let org = ssr::authorize(
        ferry_service::access::Object::Stack,
        &stack_id,
        ferry_service::access::Role::Planner,
    )
    .await?;
    let plan = ferry
        .plans()
        .create_plan_from_example(&caller, &stack_id, kind)
        .await
        .map_err(ssr::fail)?;
    ferry
        .plans()
        .audit_plan_created(&caller, &org, &plan.plan.id, &ssr::address())
        .await
        .map_err(ssr::fail)?;
    Ok(plan.plan.id)
}

/// Who is signed in (`None`: nobody).
#[server(prefix = "/rpc")]
pub async fn current_user() -> Result<Option<Me>, ServerFnError> {
    Ok(ssr::caller().user.map(|u| u.me()))
}

/// The open invitation a link's token names (the token is the capability: no sign-in needed).
#[server(prefix = "/rpc")]
pub async fn invitation(
    token: String,
) -> Result<ferry_types::invitations::Invitation, ServerFnError> {
    ssr::ferry()?.accounts().invitation(&token).await.map_err(ssr::fail)
}

/// How one may sign in here.
#[server(prefix = "/rpc")]
pub async fn sign_in_methods() -> Result<ferry_types::SignInMethods, ServerFnError> {
    Ok(use_context::<ferry_types::SignInMethods>().unwrap_or_default())
}

/// How much of the text the page carries: more than a screen holds.
#[cfg(feature = "ssr")]
const SHOWN_LINES: usize = 120;
#[cfg(feature = "ssr")]
const SHOWN_BYTES: usize = 16 * 1024;

/// The screenful of `text` a plan's page carries, and what it leaves out.
#[cfg(feature = "ssr")]
fn source_head(text: &str) -> ferry_types::SourceHead {
    let (shown, rest) = crate::format::screenful(text, SHOWN_LINES, SHOWN_BYTES);
    ferry_types::SourceHead { head: shown.to_string(), more: crate::format::left_out(shown, rest) }
}

/// One page of the plans the caller reads (empty texts filter nothing; `awaiting` and `author`
/// take `me`): what the home page's sections and a stack's Plans tab show.
#[server(prefix = "/rpc")]
pub async fn plan_list(
    stack: String,
    state: String,
    awaiting: String,
    author: String,
    cursor: String,
    limit: usize,
) -> Result<ferry_types::plans::PlanListPage, ServerFnError> {
    let query = ferry_types::plans::PlanListQuery {
        stack: Some(stack),
        state: Some(state),
        awaiting: Some(awaiting),
        author: Some(author),
        cursor: Some(cursor),
        limit: Some(limit),
        ..Default::default()
    };
    ssr::ferry()?.workflow().list_plans(&ssr::caller(), &query).await.map_err(ssr::fail)
}

/// The stack's versions, newest first, each with the plan whose commit made it.
#[server(prefix = "/rpc")]
pub async fn stack_versions(id: String) -> Result<Vec<StackSummary>, ServerFnError> {
    ssr::authorize(ferry_service::access::Object::Stack, &id, ferry_service::access::Role::Viewer)
        .await?;
    ssr::ferry()?.stacks().versions(&id).await.map_err(ssr::fail)
}
