//! A plan's head: its title, the stack it goes into, which revision this is, the links to the
//! latest revisions, and (for those who may edit) its share links.

use leptos::prelude::*;

/// How many revisions the head links to (the latest ones).
const REVISION_LINKS: i64 = 10;

#[component]
pub(super) fn PlanHead(
    title: String,
    plan_id: String,
    stack_id: String,
    stack_name: String,
    revision: i64,
    latest_revision: i64,
    /// What the plan holds: "import spec" or "YAML program".
    kind: &'static str,
    created_at: String,
    /// The badge of a page that may not edit (`None` when it may).
    badge: Option<&'static str>,
    share_token: Option<String>,
    read_only: bool,
    /// Where the plan stands, as the page reads it again after each review event (the badge
    /// follows it).
    status: RwSignal<Option<ferry_types::plans::PlanStatus>>,
) -> impl IntoView {
    let state = RwSignal::new(status.with_untracked(|s| s.as_ref().map(|s| s.state)));
    Effect::new(move |_| {
        if let Some(now) = status.with(|s| s.as_ref().map(|s| s.state)) {
            state.set(Some(now));
        }
    });
    let problem = RwSignal::new(None::<String>);
    // Closing abandons the plan (its authors or an administrator; the server decides), and
    // reopening brings it back as its history makes it.
    let close_or_reopen = {
        let _plan = plan_id.clone();
        move |_close: bool| {
            let endpoint =
                if _close { ferry_types::api::CLOSE_PLAN } else { ferry_types::api::REOPEN_PLAN };
            let _call = endpoint.at(&[&_plan]);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&_call).await {
                    Ok(s) => {
                        problem.set(None);
                        state.set(Some(s.state));
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let revision_link = {
        let (id, token) = (plan_id.clone(), share_token);
        move |n: i64| match &token {
            Some(t) => format!("/shared/{t}/r/{n}"),
            None => format!("/plans/{id}/r/{n}"),
        }
    };
    let first_revision = (latest_revision - (REVISION_LINKS - 1)).max(1);
    view! {
        <section class="card plan-head">
            <h1 id="plan-title">{title}</h1>
            <div class="plan-state" id="plan-state">
                {move || state.get().map(|s| view! { <super::super::plan_list::StateBadge state=s/> })}
                {(!read_only).then(|| {
                    let act = close_or_reopen.clone();
                    move || match state.get() {
                        Some(ferry_types::plans::PlanState::Closed) => {
                            let act = act.clone();
                            Some(view! { <button class="secondary" id="plan-reopen" on:click=move |_| act(false)>"Reopen"</button> }.into_any())
                        }
                        Some(s) if s.is_open() => {
                            let act = act.clone();
                            Some(view! { <button class="secondary" id="plan-close" on:click=move |_| act(true)>"Close plan"</button> }.into_any())
                        }
                        _ => None,
                    }
                })}
                {move || problem.get().map(|p| view! { <span class="error" id="plan-state-error" role="alert">{p}</span> })}
            </div>
            <p class="meta">
                "Into " <a href=format!("/stacks/{stack_id}")>{stack_name}</a>
                {format!(" · revision {revision} of {latest_revision} · {kind} · saved {created_at}")}
                {badge.map(|b| view! { <span class="badge readonly" id="plan-read-only">{b}</span> })}
            </p>
            <nav class="tabs revisions" id="plan-revisions">
                <span class="meta">"Revisions:"</span>
                {(first_revision..=latest_revision).map(|n| view! {
                    <a class=if n == revision { "tab active" } else { "tab" } href=revision_link(n)>{format!("r{n}")}</a>
                }).collect_view()}
            </nav>
            {(!read_only).then(|| view! { <super::share::SharePanel plan_id=plan_id.clone()/> })}
            {(revision != latest_revision).then(|| view! { <p class="meta">"This is an earlier revision: saving here writes a new one on top of the latest."</p> })}
        </section>
    }
    .into_any()
}
