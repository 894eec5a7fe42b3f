//! Lists of plans: the table every list shows (state, stack, author, what its preview found,
//! approvals, last activity), the home page's sections, and a stack's Plans tab with its
//! versions, each linked to the plan whose commit made it.

use ferry_types::plans::{PlanListPage, PlanListRow, PlanState};
use leptos::prelude::*;

use crate::server_fns::{plan_list, stack_versions};

/// What a plan's preview found, in words: `3 ready · 1 failed`, and how many still differ.
fn counts_text(row: &PlanListRow) -> String {
    let mut parts: Vec<String> =
        row.status.counts.iter().map(|(status, n)| format!("{n} {status}")).collect();
    if row.status.differing > 0 {
        parts.push(format!("{} differ", row.status.differing));
    }
    if parts.is_empty() {
        "not previewed".into()
    } else {
        parts.join(" · ")
    }
}

fn state_label(state: PlanState) -> &'static str {
    match state {
        PlanState::Draft => "Draft",
        PlanState::Previewed => "Previewed",
        PlanState::ChangesRequested => "Changes requested",
        PlanState::Approved => "Approved",
        PlanState::Committed => "Committed",
        PlanState::Closed => "Closed",
    }
}

/// A plan's state as a badge (its class names the state for the stylesheet and the tests).
#[component]
pub(crate) fn StateBadge(state: PlanState) -> impl IntoView {
    view! { <span class=format!("badge state state-{}", state.as_str())>{state_label(state)}</span> }
}

/// Plans as a table; `id` names it for the tests and for people's bookmarks.
#[component]
pub(crate) fn PlanTable(
    id: &'static str,
    rows: Vec<PlanListRow>,
    #[prop(optional)] show_stack: bool,
) -> impl IntoView {
    view! {
        <table class="stacks plans" id=id>
            <thead>
                <tr>
                    <th>"Plan"</th>
                    {show_stack.then(|| view! { <th>"Stack"</th> })}
                    <th>"State"</th>
                    <th>"Author"</th>
                    <th>"Preview"</th>
                    <th>"Approvals"</th>
                    <th>"Last activity"</th>
                </tr>
            </thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let approvals = if row.status.required_approvals > 0 {
                        format!("{} of {}", row.status.approvals, row.status.required_approvals)
                    } else {
                        row.status.approvals.to_string()
                    };
                    let counts = counts_text(&row);
                    view! {
                        <tr class=format!("plan-row state-{}", row.status.state.as_str()) data-plan=row.id.clone()>
                            <td>
                                <a href=format!("/plans/{}", row.id)>{row.title.clone()}</a>
                                <span class="meta">{format!(" · revision {}", row.status.revision)}</span>
                            </td>
                            {show_stack.then(|| view! { <td><a href=format!("/stacks/{}/plans", row.stack_id)>{row.stack.clone()}</a></td> })}
                            <td><StateBadge state=row.status.state/></td>
                            <td>{row.author.clone().unwrap_or_else(|| "—".into())}</td>
                            <td>{counts}</td>
                            <td>{approvals}</td>
                            <td>{row.last_activity_at.clone()}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// How many a page holds, as a heading's count: `50+` when there are more.
fn count_text(page: &PlanListPage) -> String {
    format!("{}{}", page.plans.len(), if page.next.is_some() { "+" } else { "" })
}

/// One of the home page's sections: a heading with its count, and its plans (or what it means
/// that there are none).
#[component]
pub(crate) fn PlanSection(
    id: &'static str,
    title: &'static str,
    empty: &'static str,
    state: &'static str,
    awaiting: &'static str,
    author: &'static str,
    limit: usize,
) -> impl IntoView {
    let plans = Resource::new(
        || (),
        move |_| {
            plan_list(
                String::new(),
                state.into(),
                awaiting.into(),
                author.into(),
                String::new(),
                limit,
            )
        },
    );
    view! {
        <section class="card plan-section" id=id>
            <Suspense fallback=move || view! { <h2>{title}</h2><p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match plans.await {
                        Err(e) => view! { <h2>{title}</h2><p class="error">{super::error_text(&e)}</p> }.into_any(),
                        Ok(page) => {
                            let heading = format!("{title} ({})", count_text(&page));
                            if page.plans.is_empty() {
                                view! { <h2>{heading}</h2><p class="hint">{empty}</p> }.into_any()
                            } else {
                                let table_id = match id {
                                    "waiting-for-review" => "waiting-list",
                                    "your-plans" => "your-plan-list",
                                    _ => "recent-plan-list",
                                };
                                view! { <h2>{heading}</h2><PlanTable id=table_id rows=page.plans show_stack=true/> }.into_any()
                            }
                        }
                    }
                })}
            </Suspense>
        </section>
    }
}

/// What a stack's Plans tab reads: the plans of the state chosen (a page from `cursor`) and
/// the stack's versions. Made by the stack's page before its `Suspense`, not by the tab inside
/// it: rendering on the server, Leptos may run a `Suspend`'s body twice, and resources made in
/// the first body then take serialized IDs the browser never gives them (a first body's fetch,
/// its owner gone, even answers "service not available"), so the page did not hydrate.
#[derive(Clone, Copy)]
pub(crate) struct StackPlansData {
    state: RwSignal<String>,
    cursor: RwSignal<String>,
    plans: Resource<Result<PlanListPage, ServerFnError>>,
    versions: Resource<Result<Vec<ferry_types::StackSummary>, ServerFnError>>,
}

impl StackPlansData {
    /// The tab's resources for the stack `id` names.
    pub(crate) fn new(id: Memo<String>) -> StackPlansData {
        let state = RwSignal::new(String::from("open"));
        let cursor = RwSignal::new(String::new());
        let plans = Resource::new(
            move || (id.get(), state.get(), cursor.get()),
            move |(id, state, cursor)| {
                plan_list(id, state, String::new(), String::new(), cursor, 50)
            },
        );
        let versions = Resource::new(move || id.get(), stack_versions);
        StackPlansData { state, cursor, plans, versions }
    }
}

/// A stack's Plans tab: its plans by state, newest activity first, and its versions with the
/// plan that made each.
#[component]
pub(crate) fn StackPlans(data: StackPlansData) -> impl IntoView {
    let StackPlansData { state, cursor, plans, versions } = data;
    let choices = [("open", "Open"), ("", "All")]
        .into_iter()
        .chain(PlanState::ALL.into_iter().map(|s| (s.as_str(), state_label(s))));
    view! {
        <section class="card" id="stack-plans">
            <div class="plans-head">
                <h2>"Plans"</h2>
                <label>"State "
                    <select id="plan-state-filter" on:change=move |ev| { cursor.set(String::new()); state.set(event_target_value(&ev)); }>
                        {choices.map(|(value, label)| view! { <option value=value selected=move || state.get() == value>{label}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            <Suspense fallback=|| view! { <p>"Loading plans…"</p> }>
                {move || Suspend::new(async move {
                    match plans.await {
                        Err(e) => view! { <p class="error">{super::error_text(&e)}</p> }.into_any(),
                        Ok(page) if page.plans.is_empty() => view! { <p class="hint" id="stack-plans-empty">"No plans in this state."</p> }.into_any(),
                        Ok(page) => {
                            let next = page.next.clone();
                            view! {
                                <PlanTable id="stack-plan-list" rows=page.plans/>
                                {next.map(|next| view! { <button class="secondary" id="stack-plans-more" on:click=move |_| cursor.set(next.clone())>"Older plans"</button> })}
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        </section>
        <section class="card" id="stack-versions">
            <h2>"Versions"</h2>
            <Suspense fallback=|| view! { <p>"Loading versions…"</p> }>
                {move || Suspend::new(async move {
                    match versions.await {
                        Err(e) => view! { <p class="error">{super::error_text(&e)}</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="stacks" id="version-list">
                                <thead><tr><th>"Version"</th><th>"Resources"</th><th>"From"</th><th>"Plan"</th><th>"Made"</th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|v| view! {
                                        <tr data-version=v.version>
                                            <td>{v.version}</td>
                                            <td>{v.resources}</td>
                                            <td>{v.origin.clone()}</td>
                                            <td>{v.plan_id.clone().map(|plan| view! { <a class="version-plan" href=format!("/plans/{plan}")>"the plan that committed it"</a> })}</td>
                                            <td>{v.updated_at.clone()}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
