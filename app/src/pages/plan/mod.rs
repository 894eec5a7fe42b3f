//! A plan's page (`/plans/:id`, `/plans/:id/r/:rev`, and read-only through `/shared/:token`):
//! the source editor, a background preview with each resource's status as it arrives, the
//! results table, a resource's review with resolutions, the graph, the code and the commit.
//! Leaving the page does not stop a preview; coming back shows where it is.

mod code;
mod diff_view;
mod discussion;
mod editor;
mod head;
mod identify;
mod options;
mod preview;
mod resource_diff;
pub(crate) mod results;
mod share;
mod source;
mod workspace;

use std::sync::Arc;

use ferry_types::api;
use ferry_types::{PlanPageData, PreviewRef, ResultPage, ResultStatus};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::server_fns::plan_page;
use head::PlanHead;
use preview::PreviewSection;
use resource_diff::DiffPanel;
use source::{Draft, SourceSection};
use workspace::{PlanTab, TabBar, TabPanel, ViewedMarks, ViewedProgress};

#[component]
pub fn PlanPage() -> impl IntoView {
    let params = use_params_map();
    let key = move || {
        let p = params.read();
        (
            p.get("id").unwrap_or_default(),
            p.get("token").unwrap_or_default(),
            p.get("rev").and_then(|r| r.parse::<i64>().ok()),
        )
    };
    let data = Resource::new(key, |(id, token, rev)| plan_page(id, token, rev));
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading the plan…"</p> }>
            {move || {
                data.get()
                    .map(|result| match result {
                        Ok(d) => view! { <PlanView data=d/> }.into_any(),
                        Err(e) => view! { <section class="card error" id="plan-error">{super::error_text(&e)}</section> }.into_any(),
                    })
            }}
        </Suspense>
    }
}

/// A plan's page, made of its parts: the head, then tabs — the review (the preview's resources
/// on one side, the selected one's review on the other, then approvals and the commit), the
/// source and its options, the code, the graph, and the activity. The signals they share live
/// here. The three big parts (head, source, preview)
/// hand back their views type-erased (`into_any`): nested as concrete types, the page's view type
/// was too deep for the server's compiler to lay out (its query depth limit, in a build with code
/// generation; `cargo check` does not reach it).
#[component]
fn PlanView(data: PlanPageData) -> impl IntoView {
    let read_only = data.read_only();
    let via_link = data.share_token.is_some();
    let may_commit = data.may_commit();
    let latest = data.revision == data.latest_revision;
    let plan_id = data.id.clone();
    let job = RwSignal::new(data.job.clone());
    let problem = RwSignal::new(None::<String>);
    // The stored preview the review reads (the latest of this revision, then the one a job made).
    let preview = RwSignal::new(data.preview.clone());
    let committed = RwSignal::new(
        data.committed_version
            .map(|v| Ok(format!("Committed: {} is at version {v}.", data.stack_name))),
    );
    // The stored preview's first page of results, with its counts by status (what the code and
    // the commit tell); the table fetches the rest as the user scrolls.
    let stored = RwSignal::new(data.results.clone());
    let selected = RwSignal::new(None::<String>);
    // Resources of the stack an imports-scope program leaves as they are (from the job's end).
    let untouched = Signal::derive(move || job.with(|j| j.as_ref().map_or(0, |j| j.untouched)));

    // The sources being edited: the page came with a screenful of each; its editor fetches the
    // whole text.
    let present = |s: &ferry_types::SourceHead| s.more.is_some() || !s.head.trim().is_empty();
    let spec = data.spec.clone().filter(present);
    let program = data.program.clone().filter(present);
    let draft = Draft::new(spec.as_ref(), program.as_ref(), data.options.clone());
    let is_program = program.is_some();
    let access = data.access();
    let revision_call = access.revision_view(data.revision);
    let badge =
        (read_only && !may_commit).then_some(if via_link { "read-only link" } else { "view only" });

    let stack_name = data.stack_name.clone();
    let owner_plan = (!read_only && latest).then(|| plan_id.clone());
    // Bumped when something the approvals and the timeline show may have changed.
    let review_epoch = RwSignal::new(0u32);
    Effect::new(move |_| {
        if preview.get().is_some() || committed.get().is_some() {
            review_epoch.update(|e| *e += 1);
        }
    });
    // Where the plan stands, read again whenever the review may have moved it.
    let plan_status = RwSignal::new(data.status.clone());
    {
        let _status = api::PLAN_STATUS.at(&[&data.id]);
        Effect::new(move |_| {
            review_epoch.track();
            let _status = _status.clone();
            #[cfg(feature = "hydrate")]
            if !via_link {
                leptos::task::spawn_local(async move {
                    if let Ok(status) = crate::client::call(&_status).await {
                        plan_status.set(Some(status));
                    }
                });
            }
        });
    }
    let tab = RwSignal::new(PlanTab::Review);
    // Identification writes a revision, so only the plan's owner sees it, on the latest one.
    let identifies = is_program && !read_only && latest;
    let tabs: Vec<PlanTab> = [PlanTab::Review, PlanTab::Source]
        .into_iter()
        .chain((!is_program).then_some(PlanTab::Code))
        .chain(identifies.then_some(PlanTab::Identify))
        .chain([PlanTab::Graph, PlanTab::Activity])
        .collect();
    // A reviewer's marks (not through a read-only link: it has no reviewer).
    let marks = ViewedMarks::follow(preview, !via_link);
    // Open comments by resource, for the resources' list.
    let comment_counts = RwSignal::new(std::collections::HashMap::<String, usize>::new());
    {
        let _comments = access.comments();
        Effect::new(move |_| {
            review_epoch.track();
            let _comments = _comments.clone();
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                if let Ok(list) = crate::client::call(&_comments).await {
                    let mut counts = std::collections::HashMap::new();
                    for c in
                        list.iter().filter(|c| c.resolved_at.is_none() && c.parent_id.is_none())
                    {
                        *counts.entry(c.urn.clone()).or_insert(0) += 1;
                    }
                    comment_counts.set(counts);
                }
            });
        });
    }
    let keys = Signal::derive(move || tab.get() == PlanTab::Review);
    // Each tab's panel is a closure of its own: each takes its own copies.
    let (plan_for_preview, plan_for_source, plan_for_timeline) =
        (plan_id.clone(), plan_id.clone(), plan_id.clone());
    let (access_for_review, access_for_approvals, access_for_compare) =
        (access.clone(), access.clone(), access.clone());
    let stack_for_source = data.stack_id.clone();
    let (plan_for_identify, stack_for_identify, revision) =
        (plan_id.clone(), data.stack_id.clone(), data.revision);
    let origins = Arc::new(data.origins.clone());
    let shown = data.results.as_ref().and(data.preview.clone());
    let latest_revision = data.latest_revision;
    view! {
        <PlanHead
            title=data.title.clone()
            plan_id=plan_id.clone()
            stack_id=data.stack_id.clone()
            stack_name=data.stack_name.clone()
            revision=data.revision
            latest_revision=data.latest_revision
            kind=if is_program { "YAML program" } else { "import spec" }
            created_at=data.created_at.clone()
            badge=badge
            share_token=data.share_token.clone()
            read_only=read_only
            status=plan_status
        />
        <TabBar tab=tab shown=tabs/>
        <TabPanel tab=tab of=PlanTab::Review>
            <div class="workspace">
                <div class="workspace-list">
                    <ViewedProgress marks=marks/>
                    <PreviewSection
                        plan_id=plan_for_preview
                        read_only=read_only
                        can_adopt=!read_only && latest
                        job=job
                        preview=preview
                        stored=stored
                        shown=shown
                        selected=selected
                        committed=committed
                        problem=problem
                        changed=draft.changed
                        untouched=untouched
                        origins=origins
                        marks=marks
                        comments=comment_counts.into()
                        keys=keys
                    />
                </div>
                <div class="workspace-detail">
                    {move || match (preview.get(), selected.get()) {
                        (Some(p), Some(urn)) => view! {
                            <DiffPanel preview=p urn=urn plan_id=owner_plan.clone() access=access_for_review.clone() marks=marks on_close=Callback::new(move |_| selected.set(None))/>
                        }.into_any(),
                        _ => view! {
                            <section class="card review-empty" id="review-empty">
                                <h2>"Resource review"</h2>
                                <p class="meta">"Pick a resource on the left to see what Read returned beside the program, why each property differs, and its comments."</p>
                                <p class="meta">"Keys: " <kbd>"j"</kbd> " next, " <kbd>"k"</kbd> " previous, " <kbd>"v"</kbd> " marks it viewed."</p>
                            </section>
                        }.into_any(),
                    }}
                </div>
            </div>
            {(!via_link).then(|| view! { <discussion::Approvals access=access_for_approvals epoch=review_epoch/> })}
            {move || match (preview.get(), may_commit) {
                (Some(PreviewRef::Owner { preview: id }), true) => view! { <Commit preview=id stack_name=stack_name.clone() results=stored untouched=untouched committed=committed status=plan_status/> }.into_any(),
                _ => ().into_any(),
            }}
        </TabPanel>
        <TabPanel tab=tab of=PlanTab::Source>
            <SourceSection
                draft=draft
                spec=spec
                program=program
                revision=revision_call
                stack_id=stack_for_source
                plan_id=plan_for_source
                read_only=read_only
                problem=problem
            />
        </TabPanel>
        {(!is_program).then(|| view! {
            <TabPanel tab=tab of=PlanTab::Code>
                {move || match preview.get() {
                    Some(p) => {
                        let (style, elide) = draft.options.with_untracked(|o| (o.code_style.as_str().to_string(), o.elide));
                        view! { <code::CodeTabs preview=p style=style elide=elide results=stored/> }.into_any()
                    }
                    None => view! { <p class="card meta">"The code is written from a preview: preview the plan first."</p> }.into_any(),
                }}
            </TabPanel>
        })}
        {identifies.then(|| view! {
            <TabPanel tab=tab of=PlanTab::Identify>
                <identify::IdentifyPanel plan_id=plan_for_identify stack_id=stack_for_identify revision=revision/>
            </TabPanel>
        })}
        <TabPanel tab=tab of=PlanTab::Graph>
            {move || match preview.get() {
                Some(p) => view! { <PlanGraph preview=p epoch=committed/> }.into_any(),
                None => view! { <p class="card meta">"The graph shows a preview's resources: preview the plan first."</p> }.into_any(),
            }}
        </TabPanel>
        <TabPanel tab=tab of=PlanTab::Activity>
            {(latest_revision > 1).then(|| view! { <discussion::CompareRevisions access=access_for_compare latest=latest_revision/> })}
            {(!via_link).then(|| view! { <discussion::Timeline plan_id=plan_for_timeline epoch=review_epoch/> })}
        </TabPanel>
    }
}

/// The stack graph with the preview's resources marked by status (after a commit: the new
/// version, the imported resources marked managed).
#[component]
fn PlanGraph(
    preview: PreviewRef,
    epoch: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let url = preview.graph().url;
    let host = NodeRef::<leptos::html::Section>::new();
    #[cfg(feature = "hydrate")]
    {
        let seen = RwSignal::new(false);
        Effect::new(move |_| {
            if let Some(el) = host.get() {
                crate::browser::when_visible(&el, move || seen.set(true));
            }
        });
        let slot = crate::browser::GraphSlot::default();
        let drawn = slot.clone();
        Effect::new(move |_| {
            // Drawn once it is in view; a commit changes what it shows: drawn again.
            epoch.track();
            if seen.get() {
                drawn.draw("plan-graph", &url, |_| {});
            }
        });
        on_cleanup(move || slot.clear());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (&url, epoch);
    view! {
        <section class="card" node_ref=host>
            <h2>"Graph"</h2>
            <div class="graph-legend">
                <span class="dot stack"></span>"stack"
                <span class="dot custom"></span>"in the stack"
                <span class="dot status-ready"></span>"to import"
                <span class="dot status-warn"></span>"with warnings or a diff"
                <span class="dot status-failed"></span>"failed / not found / conflict"
                <span class="dot status-managed"></span>"imported (managed)"
            </div>
            <div id="plan-graph" class="graph plan-graph"></div>
        </section>
    }
}

/// How many of them the confirmation names.
const NAMED_WRITES: usize = 100;

/// Committing the finished preview: a confirmation first, listing what will be written.
#[component]
fn Commit(
    preview: String,
    stack_name: String,
    results: RwSignal<Option<ResultPage>>,
    untouched: Signal<usize>,
    committed: RwSignal<Option<Result<String, String>>>,
    /// Where the plan stands: what blocks its commit.
    status: RwSignal<Option<ferry_types::plans::PlanStatus>>,
) -> impl IntoView {
    let confirming = RwSignal::new(false);
    // Each blocker links to where its cause is on the page (the server refuses the commit
    // regardless of what the page shows).
    let blockers = move || {
        use ferry_types::plans::BlockerKind;
        let list = status.with(|s| s.as_ref().map(|s| s.blockers.clone()).unwrap_or_default());
        (!list.is_empty() && committed.get().is_none()).then(|| {
            view! {
                <div id="plan-commit-blockers">
                    <p class="meta">"What keeps the commit back:"</p>
                    <ul>
                        {list.into_iter().map(|b| {
                            let anchor = match b.kind {
                                BlockerKind::NoPreview | BlockerKind::Preview | BlockerKind::StalePreview => "#plan-results",
                                BlockerKind::ChangesRequested | BlockerKind::ApprovalsMissing => "#plan-approvals",
                                BlockerKind::Closed => "#plan-state",
                            };
                            view! { <li class=format!("blocker blocker-{}", b.kind.as_str())><a href=anchor>{b.message}</a></li> }
                        }).collect_view()}
                    </ul>
                </div>
            }
        })
    };
    // How many resources the commit writes, by the stored preview's counts.
    let writes = move || {
        results.with(|r| {
            r.as_ref().map_or(0, |r| {
                ResultStatus::WRITTEN.iter().filter_map(|s| r.by_status.get(s)).sum::<usize>()
            })
        })
    };
    // The first of them, named in the confirmation (fetched when it opens).
    let named = RwSignal::new(None::<Result<ResultPage, String>>);
    let _preview_ref = PreviewRef::Owner { preview: preview.clone() };
    Effect::new(move |_| {
        if !confirming.get() {
            return;
        }
        let _first =
            results::page_call(&_preview_ref, &ResultStatus::WRITTEN, "", "", 0, NAMED_WRITES);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            named.set(Some(results::fetch_page(_first).await));
        });
    });
    let commit = move |_| {
        let _commit = api::COMMIT_PREVIEW.at(&[&preview]);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let result = crate::client::call(&_commit).await;
            confirming.set(false);
            committed.set(Some(result.map(|v| {
                format!("Committed: {} is now at version {}.", v.summary.name, v.summary.version)
            })));
        });
    };
    view! {
        <section class="card" id="plan-commit-card">
            <h2>"Commit"</h2>
            {blockers}
            {move || match committed.get() {
                Some(Ok(text)) => view! { <p id="plan-committed">{text}</p> }.into_any(),
                Some(Err(e)) => view! {
                    <div><p class="error" id="plan-commit-error">{e}</p>
                    <button id="plan-commit" on:click=move |_| { committed.set(None); confirming.set(true); }>"Try again…"</button></div>
                }.into_any(),
                None if confirming.get() => {
                    let count = writes();
                    let names = move || match named.get() {
                        None => view! { <li class="loading">"…"</li> }.into_any(),
                        Some(Err(e)) => view! { <li class="error">{e}</li> }.into_any(),
                        Some(Ok(page)) => {
                            let more = page.matched.saturating_sub(page.rows.len());
                            view! {
                                {page.rows.into_iter().map(|e| view! { <li>{format!("{} ({}) — {}", e.name, e.type_, e.status)}</li> }).collect_view()}
                                {(more > 0).then(|| view! { <li class="meta">{format!("… and {more} more")}</li> })}
                            }.into_any()
                        }
                    };
                    view! {
                        <div id="plan-confirm">
                            <p>{format!(
                                "This adds {count} imported resource(s) to {stack_name} as its next version (with the stack's root resource and default provider if it has none yet). Nothing outside the stack changes.",
                            )}</p>
                            {(untouched.get() > 0).then(|| view! {
                                <p id="plan-confirm-untouched">{format!("The stack's other {} resource(s) stay exactly as they are.", untouched.get())}</p>
                            })}
                            <ul>{names}</ul>
                            <div class="actions">
                                <button id="plan-confirm-commit" on:click=commit.clone()>"Commit"</button>
                                <button class="secondary" on:click=move |_| confirming.set(false)>"Not yet"</button>
                            </div>
                        </div>
                    }.into_any()
                }
                None => {
                    // Nothing to write: the button says why instead of offering a refusal.
                    let why = move || match results.with(|r| r.as_ref().filter(|r| r.total > 0).map(|r| code::status_counts(&r.by_status))) {
                        Some(counts) if writes() == 0 => format!("Nothing to commit: {counts}."),
                        _ => String::new(),
                    };
                    view! {
                        <div class="actions">
                            <button id="plan-commit" on:click=move |_| confirming.set(true) disabled=move || !why().is_empty() title=why>"Commit…"</button>
                            <span class="meta" id="plan-commit-why">{why}</span>
                        </div>
                    }.into_any()
                }
            }}
        </section>
    }
    .into_any()
}
