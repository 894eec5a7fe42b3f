//! The frame of a stack's pages: header, view tabs, and the detail panel for `?r=<urn>`.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::detail::DetailPanel;
use super::table::ResourceTable;
use crate::server_fns::stack_page;

/// Which view of the stack a page shows.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum StackView {
    Table,
    Graph,
    Discover,
}

impl StackView {
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            StackView::Table => "",
            StackView::Graph => "/graph",
            StackView::Discover => "/discover",
        }
    }
}

pub(crate) fn use_stack_id() -> Memo<String> {
    let params = use_params_map();
    Memo::new(move |_| params.read().get("id").unwrap_or_default())
}

pub(crate) fn use_selected_urn() -> Memo<Option<String>> {
    let query = use_query_map();
    Memo::new(move |_| query.read().get("r").filter(|r| !r.is_empty()))
}

#[component]
pub fn TablePage() -> impl IntoView {
    view! { <StackFrame view=StackView::Table/> }
}

#[component]
pub fn DiscoverPage() -> impl IntoView {
    view! { <StackFrame view=StackView::Discover/> }
}

#[component]
pub(crate) fn StackFrame(view: StackView) -> impl IntoView {
    let id = use_stack_id();
    let selected = use_selected_urn();
    let data = Resource::new(move || id.get(), stack_page);
    view! {
        <Suspense fallback=|| view! { <section class="card"><p>"Loading stack…"</p></section> }>
            {move || Suspend::new(async move {
                match data.await {
                    Err(e) => view! {
                        <section class="card"><h1>"Stack not available"</h1><p class="error">{super::error_text(&e)}</p></section>
                    }.into_any(),
                    Ok(page) => {
                        let s = page.summary.clone();
                        let rows = Arc::new(page.rows);
                        let warnings = page.warnings;
                        let stack_id = s.id.clone();
                        let tab = move |target: StackView, label: &'static str| {
                            let href = format!("/stacks/{}{}", stack_id, target.suffix());
                            view! { <a class=if target == view { "tab active" } else { "tab" } href=href>{label}</a> }
                        };
                        view! {
                            <section class="stack-head">
                                <h1 id="stack-name">{s.name.clone()}</h1>
                                <span class="meta">
                                    {format!("version {} · {} resources · from {} ({}) · {}", s.version, s.resources, s.source_format, s.origin, s.updated_at)}
                                </span>
                                <nav class="tabs">
                                    {tab(StackView::Table, "Resources")}
                                    {tab(StackView::Graph, "Graph")}
                                    {tab(StackView::Discover, "Discover")}
                                    <a class="tab" href=format!("/api/v1/stacks/{}/export", s.id) download=format!("{}.export.json", s.name.replace('/', "-")) rel="external">"Export JSON"</a>
                                </nav>
                                <NewPlan stack_id=s.id.clone()/>
                            </section>
                            {(!warnings.is_empty()).then(|| view! {
                                <details class="warnings" id="stack-warnings">
                                    <summary>{format!("{} warning{} about this state", warnings.len(), if warnings.len() == 1 { "" } else { "s" })}</summary>
                                    <ul>{warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}</ul>
                                </details>
                            })}
                            <div class="stack-body">
                                <div class="stack-main">
                                    {match view {
                                        StackView::Table => view! { <ResourceTable rows=rows.clone() stack_id=s.id.clone() selected=selected/> }.into_any(),
                                        StackView::Graph => view! { <super::graph::StackGraph stack_id=s.id.clone()/> }.into_any(),
                                        StackView::Discover => view! { <super::discover::DiscoverPanel stack_id=s.id.clone()/> }.into_any(),
                                    }}
                                </div>
                                {move || selected.get().map(|urn| view! { <DetailPanel stack_id=id.get() urn=urn view=view/> })}
                            </div>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
}

/// Starts a plan for the stack from an example spec or program, and opens it.
#[component]
fn NewPlan(stack_id: String) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    // Taken while the component is made: the router's context is not there in a later task.
    let navigate = leptos_router::hooks::use_navigate();
    let create = move |kind: &'static str| {
        let (stack_id, navigate) = (stack_id.clone(), navigate.clone());
        move |_| {
            let (stack_id, navigate) = (stack_id.clone(), navigate.clone());
            leptos::task::spawn_local(async move {
                match crate::server_fns::new_plan(stack_id, kind.to_string()).await {
                    Ok(id) => navigate(&format!("/plans/{id}"), Default::default()),
                    Err(e) => problem.set(Some(super::error_text(&e))),
                }
            });
        }
    };
    view! {
        <div class="actions new-plan">
            <button id="new-plan-spec" on:click=create("spec")>"New import plan"</button>
            <button id="new-plan-program" class="secondary" on:click=create("program")>"New plan from a YAML program"</button>
            {move || problem.get().map(|p| view! { <span class="error">{p}</span> })}
        </div>
    }
}
