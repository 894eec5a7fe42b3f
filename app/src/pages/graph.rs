//! `/stacks/:id/graph`: the stack drawn by sigma.js (WebGL), laid out by the server.

use leptos::prelude::*;

use super::stack::{StackFrame, StackView};

#[component]
pub fn GraphPage() -> impl IntoView {
    view! { <StackFrame view=StackView::Graph/> }
}

/// The graph container; in the browser, `pkg/graph.js` fetches the graph and draws it here.
#[component]
pub(crate) fn StackGraph(stack_id: String) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::sync::Arc;

        let navigate = leptos_router::hooks::use_navigate();
        let id = stack_id.clone();
        // The renderer's token (an f64's bits; 0 = none), for the cleanup.
        let token = Arc::new(AtomicU64::new(0));
        let set_token = token.clone();
        Effect::new(move |_| {
            let navigate = navigate.clone();
            let stack = id.clone();
            let url = format!("/api/v1/stacks/{id}/graph");
            let mounted = crate::browser::mount_graph(GRAPH_CONTAINER, &url, move |urn: String| {
                navigate(&crate::format::resource_link(&stack, "/graph", &urn), Default::default());
            });
            set_token.store(mounted.map(f64::to_bits).unwrap_or(0), Ordering::SeqCst);
        });
        on_cleanup(move || {
            let bits = token.swap(0, Ordering::SeqCst);
            if bits != 0 {
                crate::browser::unmount_graph(f64::from_bits(bits));
            }
        });
    }
    view! {
        <div class="graph-legend">
            <span class="dot stack"></span>"stack"
            <span class="dot component"></span>"component"
            <span class="dot custom"></span>"resource"
            <span class="dot provider"></span>"provider"
            <span class="line parent"></span>"parent"
            <span class="line dependency"></span>"depends on"
            <span class="line provider"></span>"uses provider"
        </div>
        <div id=GRAPH_CONTAINER class="graph" data-stack=stack_id>
            <noscript>"The graph needs JavaScript."</noscript>
        </div>
    }
}

const GRAPH_CONTAINER: &str = "stack-graph";
