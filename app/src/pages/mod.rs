//! The app's pages, one URL each: `/` (what waits for you, your plans, recent activity, the
//! stacks, upload), `/stacks/:id` (table), `/stacks/:id/graph` (graph), `/stacks/:id/discover`
//! (discovery), `/stacks/:id/plans` (the stack's plans and versions), `/plans/:id` (a plan and
//! its preview's progress),
//! `/invitations/:token` (joining an organisation); `?r=<urn>`
//! opens a resource's details on the stack pages.

mod account;
mod detail;
mod discover;
mod graph;
mod home;
mod invitation;
mod migrate;
pub(crate) mod paged;
pub(crate) mod plan;
mod plan_list;
mod stack;
mod stack_view;
pub(crate) mod table;
mod webhooks;

pub use account::{AccountPage, SignInPage, UserMenu};
pub use home::HomePage;
pub use invitation::InvitationPage;
pub use plan::PlanPage;
pub use stack::{DiscoverPage, GraphPage, PlansPage, TablePage};

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="card">
            <h1>"Page not found"</h1>
            <p><a href="/">"Back to the stacks"</a></p>
        </section>
    }
}

/// A server function error as a user should read it.
pub(crate) fn error_text(e: &ServerFnError) -> String {
    match e {
        ServerFnError::ServerError(msg) => msg.clone(),
        other => other.to_string(),
    }
}
