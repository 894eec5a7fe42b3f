//! The stack graph panel of `/stacks/:id/graph`: drawn by sigma.js (WebGL), laid out in the browser.

use leptos::prelude::*;

/// The graph container; in the browser, `pkg/graph.js` fetches the graph and draws it here.
#[component]
pub(crate) fn StackGraph(stack_id: String) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        let navigate = leptos_router::hooks::use_navigate();
        let id = stack_id.clone();
        let slot = crate::browser::GraphSlot::default();
        let drawn = slot.clone();
        Effect::new(move |_| {
            let navigate = navigate.clone();
            let stack = id.clone();
            drawn.draw(
                GRAPH_CONTAINER,
                &ferry_types::api::STACK_GRAPH.url(&[&id]),
                move |urn: String| {
                    navigate(
                        &crate::format::resource_link(&stack, "/graph", &urn),
                        Default::default(),
                    );
                },
            );
        });
        on_cleanup(move || slot.clear());
    }
    view! {
        <div class="graph-legend">
            <span class="dot stack"></span>"stack"
            <span class="dot component"></span>"component"
            <span class="dot custom"></span>"resource"
            <span class="dot provider"></span>"provider"
            <span class="dot group" title="In a big stack: siblings of one type, drawn as one node; click to open"></span>"many of a type"
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
