//! The frame of a stack's pages: header, view tabs, and the detail panel for `?r=<urn>`.

use ferry_types::SourceKind;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::detail::DetailPanel;
use super::stack_view::StackView;
use super::table::ResourceTable;
use crate::server_fns::stack_page;

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
pub fn GraphPage() -> impl IntoView {
    view! { <StackFrame view=StackView::Graph/> }
}

#[component]
pub fn DiscoverPage() -> impl IntoView {
    view! { <StackFrame view=StackView::Discover/> }
}

#[component]
pub fn PlansPage() -> impl IntoView {
    view! { <StackFrame view=StackView::Plans/> }
}

#[component]
pub(crate) fn StackFrame(view: StackView) -> impl IntoView {
    let id = use_stack_id();
    let selected = use_selected_urn();
    let data = Resource::new(move || id.get(), stack_page);
    // Every resource the page reads is made here, before the `Suspense` (see `StackPlansData`).
    let detail = super::detail::detail_resource(id, selected);
    let plans = (view == StackView::Plans).then(|| super::plan_list::StackPlansData::new(id));
    view! {
        <Suspense fallback=|| view! { <section class="card"><p>"Loading stack…"</p></section> }>
            {move || Suspend::new(async move {
                match data.await {
                    Err(e) => view! {
                        <section class="card"><h1>"Stack not available"</h1><p class="error">{super::error_text(&e)}</p></section>
                    }.into_any(),
                    Ok(page) => {
                        let s = page.summary.clone();
                        let warnings = page.warnings;
                        let recovered_locks = page.recovered_locks;
                        let may_plan = page.roles.contains(&ferry_types::Role::Planner);
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
                                    {tab(StackView::Plans, "Plans")}
                                    <a class="tab" href=ferry_types::api::STACK_EXPORT.url(&[&s.id]) download=format!("{}.export.json", s.name.replace('/', "-")) rel="external">"Export JSON"</a>
                                </nav>
                                {may_plan.then(|| view! { <NewPlan stack_id=s.id.clone()/> })}
                                {may_plan.then(|| view! { <super::migrate::MigrateTerraform stack_id=s.id.clone()/> })}
                                <ApprovalRule stack_id=s.id.clone() admin=page.roles.contains(&ferry_types::Role::Admin)/>
                            </section>
                            {(!warnings.is_empty()).then(|| view! {
                                <details class="warnings" id="stack-warnings">
                                    <summary>{format!("{} warning{} about this state", warnings.len(), if warnings.len() == 1 { "" } else { "s" })}</summary>
                                    <ul>{warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}</ul>
                                </details>
                            })}
                            {(!recovered_locks.is_empty()).then(|| view! {
                                <details class="warnings" id="stack-recovered-locks">
                                    <summary>{format!(
                                        "Ferry recovered {} lock{} it left in the stack's backend",
                                        recovered_locks.len(),
                                        if recovered_locks.len() == 1 { "" } else { "s" },
                                    )}</summary>
                                    <ul>{recovered_locks.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                                </details>
                            })}
                            <div class="stack-body">
                                <div class="stack-main">
                                    {match view {
                                        StackView::Table => view! { <ResourceTable first=page.first.clone() stack_id=s.id.clone() version=s.version selected=selected/> }.into_any(),
                                        StackView::Graph => view! { <super::graph::StackGraph stack_id=s.id.clone()/> }.into_any(),
                                        StackView::Discover => view! { <super::discover::DiscoverPanel stack_id=s.id.clone()/> }.into_any(),
                                        StackView::Plans => plans.map(|data| view! { <super::plan_list::StackPlans data=data/> }).into_any(),
                                    }}
                                </div>
                                {move || selected.get().map(|_| view! { <DetailPanel stack_id=id.get() detail=detail view=view/> })}
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
    let create = move |kind: SourceKind| {
        let (stack_id, navigate) = (stack_id.clone(), navigate.clone());
        move |_| {
            let (stack_id, navigate) = (stack_id.clone(), navigate.clone());
            leptos::task::spawn_local(async move {
                match crate::server_fns::new_plan(stack_id, kind).await {
                    Ok(id) => navigate(&format!("/plans/{id}"), Default::default()),
                    Err(e) => problem.set(Some(super::error_text(&e))),
                }
            });
        }
    };
    view! {
        <div class="actions new-plan">
            <button id="new-plan-spec" on:click=create(SourceKind::Spec)>"New import plan"</button>
            <button id="new-plan-program" class="secondary" on:click=create(SourceKind::Program)>"New plan from a YAML program"</button>
            {move || problem.get().map(|p| view! { <span class="error">{p}</span> })}
        </div>
    }
}

/// The stack's approval rule: what a commit needs. Administrators change it here.
#[component]
fn ApprovalRule(stack_id: String, admin: bool) -> impl IntoView {
    let rule = RwSignal::new(None::<ferry_types::StackSettingsView>);
    let saved = RwSignal::new(None::<Result<(), String>>);
    #[cfg(feature = "hydrate")]
    {
        let call = ferry_types::api::STACK_SETTINGS.at(&[&stack_id]);
        leptos::task::spawn_local(async move {
            if let Ok(r) = crate::client::call(&call).await {
                rule.set(Some(r));
            }
        });
    }
    let _set = ferry_types::api::SET_STACK_SETTINGS.at(&[&stack_id]);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(_rule) = rule.get_untracked() else { return };
        let _set = _set.clone();
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            saved.set(Some(crate::client::send(&_set, &_rule).await.map(|_| ())));
        });
    };
    view! {
        {move || rule.get().map(|r| {
            let text = match r.required_approvals {
                0 => "Commits need no approval.".to_string(),
                n => format!("Commits need {n} approval(s){}.", if r.author_may_approve { "" } else { ", not the plan's author's" }),
            };
            if !admin {
                return view! { <p class="meta" id="stack-approval-rule">{text}</p> }.into_any();
            }
            view! {
                <form class="row meta" id="stack-approval-rule" on:submit=save.clone()>
                    <label>"Approvals a commit needs "<input type="number" id="stack-required-approvals" min="0" max="10" prop:value=r.required_approvals.to_string()
                        on:change=move |ev| rule.update(|r| if let Some(r) = r { r.required_approvals = event_target_value(&ev).parse().unwrap_or(0) })/></label>
                    <label><input type="checkbox" id="stack-author-may-approve" prop:checked=r.author_may_approve
                        on:change=move |ev| rule.update(|r| if let Some(r) = r { r.author_may_approve = event_target_checked(&ev) })/>"authors may approve their own plans"</label>
                    <button type="submit" class="small secondary" id="stack-rule-save">"Save"</button>
                    {move || saved.get().map(|s| match s { Ok(()) => view! { <span>"Saved."</span> }.into_any(), Err(e) => view! { <span class="error">{e}</span> }.into_any() })}
                </form>
            }.into_any()
        })}
    }
}
