//! A plan's page (`/plans/:id`, `/plans/:id/r/:rev`, and read-only through `/shared/:token`):
//! the source editor, a background preview with each resource's status as it arrives, the
//! results table, a resource's review with resolutions, the graph, the code and the commit.
//! Leaving the page does not stop a preview; coming back shows where it is.

mod code;
mod diff_view;
mod discussion;
mod editor;
mod options;
pub(crate) mod results;
mod review;
mod share;

use std::sync::Arc;

use ferry_types::{EditorMarker, JobEvent, JobSnapshot, PlanPageData, PreviewRef, ReviewPage, ReviewRow};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::server_fns::plan_page;
use editor::{SourceEditor, SourceKind};
use results::ResultsTable;
use review::ReviewPanel;

#[component]
pub fn PlanPage() -> impl IntoView {
    let params = use_params_map();
    let key = move || {
        let p = params.read();
        (p.get("id").unwrap_or_default(), p.get("token").unwrap_or_default(), p.get("rev").and_then(|r| r.parse::<i64>().ok()))
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

fn running(job: RwSignal<Option<JobSnapshot>>) -> bool {
    job.with(|j| j.as_ref().is_some_and(|j| j.status.is_live()))
}

fn row_of(e: &JobEvent) -> ReviewRow {
    ReviewRow {
        urn: e.urn.clone(),
        name: e.name.clone(),
        type_: e.type_.clone(),
        status: e.status.clone(),
        warnings: e.message.clone().into_iter().collect(),
        differs: Vec::new(),
        zero_or_default: 0,
    }
}

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
    let committed = RwSignal::new(data.committed_version.map(|v| Ok(format!("Committed: {} is at version {v}.", data.stack_name))));
    // The stored preview's first page of results, with its counts by status (what the code and
    // the commit tell); the table fetches the rest as the user scrolls.
    let stored = RwSignal::new(data.results.clone());
    let origins = Arc::new(data.origins.clone());
    let selected = RwSignal::new(None::<String>);

    // Rows live from the running job's events (until a finished preview's first page arrives,
    // its events, when the page saw them, stand in for it); `None` once the stored preview
    // shows. A memo: scrolling reads it on every frame, and it changes only with the job.
    let live = Memo::new(move |_| {
        job.with(|j| {
            j.as_ref()
                .filter(|j| j.status.is_live() || preview.with(Option::is_none) || (stored.with(Option::is_none) && !j.events.is_empty()))
                .map(|j| Arc::new(j.events.iter().map(row_of).collect::<Vec<_>>()))
        })
    });
    // Resources of the stack an imports-scope program leaves as they are (from the job's end).
    let untouched = Signal::derive(move || job.with(|j| j.as_ref().map_or(0, |j| j.untouched)));
    // The table is made once and then follows the rows (a new table would lose its filters).
    let has_results = Memo::new(move |_| live.with(|r| r.as_ref().is_some_and(|r| !r.is_empty())) || job.with(Option::is_some) || stored.with(Option::is_some));
    // The page came with the first page of its preview's results; a new preview's is fetched.
    #[cfg(feature = "hydrate")]
    let shown_preview = StoredValue::new(data.results.as_ref().and(data.preview.clone()));
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let Some(p) = preview.get() else { return };
        if shown_preview.get_value().as_ref() == Some(&p) {
            return;
        }
        shown_preview.set_value(Some(p.clone()));
        leptos::task::spawn_local(async move {
            match results::fetch_page(results::page_url(&p, "", "", "", 0, crate::pages::paged::PAGE_ROWS)).await {
                Ok(r) => stored.set(Some(r)),
                Err(e) => problem.set(Some(e)),
            }
        });
    });

    // Back on a page whose preview still runs: follow it from the start.
    #[cfg(feature = "hydrate")]
    {
        let plan_id = plan_id.clone();
        Effect::new(move |_| {
            if let Some(j) = job.get_untracked().filter(|j| j.status.is_live()) {
                follow(&plan_id, &j.id, job, preview);
            }
        });
    }

    let start = {
        let plan_id = plan_id.clone();
        move |_| {
            let _plan_id = plan_id.clone();
            problem.set(None);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::browser::post_json::<JobSnapshot>(&format!("/api/v1/plans/{_plan_id}/previews")).await {
                    Ok(j) => {
                        let id = j.id.clone();
                        job.set(Some(j));
                        preview.set(None);
                        // The last preview's rows must not stand in for this one's.
                        stored.set(None);
                        selected.set(None);
                        committed.set(None);
                        follow(&_plan_id, &id, job, preview);
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let cancel = {
        let plan_id = plan_id.clone();
        move |_| {
            let _plan_id = plan_id.clone();
            let Some(_job_id) = job.get_untracked().map(|j| j.id) else { return };
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                if let Err(e) = crate::browser::post_json::<JobSnapshot>(&format!("/api/v1/plans/{_plan_id}/jobs/{_job_id}/cancel")).await {
                    problem.set(Some(e));
                }
            });
        }
    };

    // The sources being edited: the page came with a screenful of each; its editor fetches the
    // whole text, and until it has, there is nothing to compare or save.
    let present = |s: &ferry_types::SourceHead| s.more.is_some() || !s.head.trim().is_empty();
    let spec = data.spec.clone().filter(present);
    let program = data.program.clone().filter(present);
    let whole = |s: &Option<ferry_types::SourceHead>| s.as_ref().and_then(|s| s.whole()).map(str::to_string);
    let (spec_saved, program_saved) = (RwSignal::new(whole(&spec)), RwSignal::new(whole(&program)));
    let spec_text = RwSignal::new(spec_saved.get_untracked().unwrap_or_default());
    let program_text = RwSignal::new(program_saved.get_untracked().unwrap_or_default());
    let loaded = {
        let (has_spec, has_program) = (spec.is_some(), program.is_some());
        Memo::new(move |_| (!has_spec || spec_saved.with(Option::is_some)) && (!has_program || program_saved.with(Option::is_some)))
    };
    let revision_url = match &data.share_token {
        Some(t) => format!("/api/v1/shared/{t}?revision={}", data.revision),
        None => format!("/api/v1/plans/{}/revisions/{}", data.id, data.revision),
    };
    let spec_markers = RwSignal::new(Vec::<EditorMarker>::new());
    let program_markers = RwSignal::new(Vec::<EditorMarker>::new());
    let errors = Memo::new(move |_| {
        spec_markers.with(|m| m.iter().filter(|m| m.severity == "error").count()) + program_markers.with(|m| m.iter().filter(|m| m.severity == "error").count())
    });
    // The plan's options, edited beside the source and saved with it.
    let options = RwSignal::new(data.options.clone());
    let options_changed = {
        let saved = data.options.clone();
        Memo::new(move |_| options.with(|o| *o != saved))
    };
    let edited = |text: RwSignal<String>, saved: RwSignal<Option<String>>| saved.with(|s| s.as_ref().is_some_and(|s| text.with(|t| t != s)));
    let changed = Memo::new(move |_| loaded.get() && (edited(spec_text, spec_saved) || edited(program_text, program_saved) || options_changed.get()));
    let save = {
        let plan_id = plan_id.clone();
        let (has_spec, has_program) = (spec.is_some(), program.is_some());
        move |_| {
            // The options as they were (resolutions included), with the user's changes.
            let _body = serde_json::json!({
                "spec": has_spec.then(|| spec_text.get_untracked()),
                "program": has_program.then(|| program_text.get_untracked()),
                "options": options.get_untracked(),
            })
            .to_string();
            let _plan_id = plan_id.clone();
            problem.set(None);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::browser::send::<serde_json::Value>(&format!("/api/v1/plans/{_plan_id}/revisions"), "application/json", &_body).await {
                    Ok(_) => crate::browser::go_to(&format!("/plans/{_plan_id}")),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };

    // Differences across the plan that are only zero values or defaults, and one click that
    // adopts them all (the owner, on the latest revision, once its preview is stored).
    let zero_or_default = Memo::new(move |_| stored.with(|s| s.as_ref().map_or(0, |s| s.zero_or_default)));
    let adopt_zero = {
        let plan_id = plan_id.clone();
        move |_| {
            let Some(PreviewRef::Owner { preview: _preview }) = preview.get_untracked() else { return };
            let _plan_id = plan_id.clone();
            problem.set(None);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                let body = serde_json::json!({ "preview": _preview }).to_string();
                match crate::browser::send::<serde_json::Value>(&format!("/api/v1/plans/{_plan_id}/resolutions/zero-values"), "application/json", &body).await {
                    Ok(_) => crate::browser::go_to(&format!("/plans/{_plan_id}")),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let can_adopt = !read_only && latest;

    let stack_id = data.stack_id.clone();
    let stack_name = data.stack_name.clone();
    let is_program = program.is_some();
    let kind = if is_program { "YAML program" } else { "import spec" };
    let events_total = move || job.with(|j| j.as_ref().map(|j| format!("{} of {} steps", j.finished, j.total)).unwrap_or_default());
    let revision_link = {
        let (id, token) = (data.id.clone(), data.share_token.clone());
        move |n: i64| match &token {
            Some(t) => format!("/shared/{t}/r/{n}"),
            None => format!("/plans/{id}/r/{n}"),
        }
    };
    let owner_plan = (!read_only && latest).then(|| plan_id.clone());
    let access = data.access();
    // Bumped when something the approvals and the timeline show may have changed.
    let review_epoch = RwSignal::new(0u32);
    Effect::new(move |_| {
        if preview.get().is_some() || committed.get().is_some() {
            review_epoch.update(|e| *e += 1);
        }
    });
    let first_revision = (data.latest_revision - 9).max(1);
    view! {
        <section class="card plan-head">
            <h1 id="plan-title">{data.title.clone()}</h1>
            <p class="meta">
                "Into " <a href=format!("/stacks/{}", data.stack_id)>{data.stack_name.clone()}</a>
                {format!(" · revision {} of {} · {} · saved {}", data.revision, data.latest_revision, kind, data.created_at)}
                {(read_only && !may_commit).then(|| view! { <span class="badge readonly" id="plan-read-only">{if via_link { "read-only link" } else { "view only" }}</span> })}
            </p>
            <nav class="tabs revisions" id="plan-revisions">
                <span class="meta">"Revisions:"</span>
                {(first_revision..=data.latest_revision).map(|n| view! {
                    <a class=if n == data.revision { "tab active" } else { "tab" } href=revision_link(n)>{format!("r{n}")}</a>
                }).collect_view()}
            </nav>
            {(!read_only).then(|| view! { <share::SharePanel plan_id=plan_id.clone()/> })}
            {(!latest).then(|| view! { <p class="meta">"This is an earlier revision: saving here writes a new one on top of the latest."</p> })}
        </section>
        <section class="card">
            <h2>{if program.is_some() { "Program" } else { "Import spec" }}</h2>
            {spec.clone().map(|s| view! {
                <SourceEditor kind=SourceKind::Spec head=s revision_url=revision_url.clone() text=spec_text saved=spec_saved markers=spec_markers stack_id=stack_id.clone() read_only=read_only/>
            })}
            {program.clone().map(|p| view! {
                <SourceEditor kind=SourceKind::Program head=p revision_url=revision_url.clone() text=program_text saved=program_saved markers=program_markers stack_id=stack_id.clone() read_only=read_only/>
            })}
            <ul class="markers" id="plan-markers">
                {move || spec_markers.get().into_iter().chain(program_markers.get()).map(|m| view! {
                    <li class=format!("marker {}", m.severity)>{format!("{}:{} {} — {}", m.line, m.column, m.severity, m.message)}</li>
                }).collect_view()}
            </ul>
            {(!read_only).then(|| view! {
                <div class="actions">
                    <button id="plan-save" on:click=save disabled=move || { errors.get() > 0 || !changed.get() }>"Save revision"</button>
                    <span class="meta" id="plan-save-state">{move || if !loaded.get() {
                        format!("Loading the whole {}…", if is_program { SourceKind::Program.noun() } else { SourceKind::Spec.noun() })
                    } else if errors.get() > 0 {
                        format!("{} problem(s) to fix before saving", errors.get())
                    } else if changed.get() { "Unsaved changes".to_string() } else { "Saved".to_string() }}</span>
                </div>
            })}
            <options::PlanOptionsForm options=options is_program=is_program read_only=read_only/>
        </section>
        <section class="card">
            <h2>"Preview"</h2>
            {(!read_only).then(|| view! {
                <div class="actions">
                    <button id="plan-preview" on:click=start title=move || if changed.get() { "Save the revision first: a preview runs a saved revision" } else { "" } disabled=move || running(job) || changed.get()>"Preview"</button>
                    <button id="plan-cancel" on:click=cancel disabled=move || !running(job)>"Cancel"</button>
                    <span id="plan-progress">{events_total}</span>
                    <span id="plan-status" class="status">{move || job.with(|j| j.as_ref().map(|j| j.status.as_str().to_string())).unwrap_or_else(|| if preview.get().is_some() { "done".into() } else { "not previewed yet".into() })}</span>
                </div>
            })}
            {move || problem.get().map(|p| view! { <p class="error" id="plan-problem">{p}</p> })}
            {move || job.with(|j| j.as_ref().and_then(|j| j.error.clone())).map(|e| view! { <p class="error" id="plan-job-error">{e}</p> })}
            {move || has_results.get().then(|| view! { <ResultsTable live=live stored=stored preview=preview selected=selected origins=origins.clone()/> })}
            {move || Some(zero_or_default.get()).filter(|n| *n > 0 && preview.with(Option::is_some) && !running(job)).map(|n| {
                let adopt_zero = adopt_zero.clone();
                view! {
                    <p class="meta" id="plan-zero-values">
                        {format!("{n} of the differences are only zero values Read returned or defaults the provider filled in.")}
                        " "
                        {can_adopt.then(|| view! {
                            <button class="small" id="plan-adopt-zero" title="Write each of them into the plan as Read returned it, in one revision, and preview again"
                                on:click=adopt_zero>{format!("Adopt all {n}")}</button>
                        })}
                    </p>
                }
            })}
            {move || Some(untouched.get()).filter(|n| *n > 0).map(|n| view! {
                <p class="meta" id="plan-untouched">{format!("{n} resources in the stack, untouched (the plan imports: what it does not name stays as it is)")}</p>
            })}
        </section>
        {let review_access = access.clone(); move || match (preview.get(), selected.get()) {
            (Some(p), Some(urn)) => view! {
                <ReviewPanel preview=p urn=urn plan_id=owner_plan.clone() access=review_access.clone() on_close=Callback::new(move |_| selected.set(None))/>
            }.into_any(),
            _ => ().into_any(),
        }}
        {move || preview.get().map(|p| view! { <PlanGraph preview=p epoch=committed/> })}
        {move || preview.get().filter(|_| !is_program).map(|p| view! { <code::CodeTabs preview=p style=options.with_untracked(|o| o.code_style.as_str().to_string()) elide=options.with_untracked(|o| o.elide) results=stored/> })}
        {(!via_link).then(|| view! { <discussion::Approvals access=access.clone() epoch=review_epoch/> })}
        {move || match (preview.get(), may_commit) {
            (Some(PreviewRef::Owner { preview: id }), true) => view! { <Commit preview=id stack_name=stack_name.clone() results=stored untouched=untouched committed=committed/> }.into_any(),
            _ => ().into_any(),
        }}
        {(data.latest_revision > 1).then(|| view! { <discussion::CompareRevisions access=access.clone() latest=data.latest_revision/> })}
        {(!via_link).then(|| view! { <discussion::Timeline plan_id=plan_id.clone() epoch=review_epoch/> })}
    }
}

/// The stack graph with the preview's resources marked by status (after a commit: the new
/// version, the imported resources marked managed).
#[component]
fn PlanGraph(preview: PreviewRef, epoch: RwSignal<Option<Result<String, String>>>) -> impl IntoView {
    let url = format!("{}/graph", preview.api_base());
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

/// The statuses of what a commit writes.
const WRITES: [&str; 4] = ["ready", "ready-with-warnings", "import", "read"];
/// How many of them the confirmation names.
const NAMED_WRITES: usize = 100;

/// Committing the finished preview: a confirmation first, listing what will be written.
#[component]
fn Commit(
    preview: String,
    stack_name: String,
    results: RwSignal<Option<ReviewPage>>,
    untouched: Signal<usize>,
    committed: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let confirming = RwSignal::new(false);
    // How many resources the commit writes, by the stored preview's counts.
    let writes = move || results.with(|r| r.as_ref().map_or(0, |r| WRITES.iter().filter_map(|s| r.by_status.get(*s)).sum::<usize>()));
    // The first of them, named in the confirmation (fetched when it opens).
    let named = RwSignal::new(None::<Result<ReviewPage, String>>);
    let _preview_ref = PreviewRef::Owner { preview: preview.clone() };
    Effect::new(move |_| {
        if !confirming.get() {
            return;
        }
        let _url = results::page_url(&_preview_ref, &WRITES.join(","), "", "", 0, NAMED_WRITES);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            named.set(Some(results::fetch_page(_url).await));
        });
    });
    let commit = move |_| {
        let _url = format!("/api/v1/previews/{preview}/commit");
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let result = crate::browser::post_json::<ferry_types::StackSummary>(&_url).await;
            confirming.set(false);
            committed.set(Some(result.map(|v| format!("Committed: {} is now at version {}.", v.name, v.version))));
        });
    };
    view! {
        <section class="card" id="plan-commit-card">
            <h2>"Commit"</h2>
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
}

/// Follows a job's events into `job` (past events are replayed first), in batches so that a
/// preview of thousands of resources redraws a few times a second, not once per resource.
#[cfg(feature = "hydrate")]
fn follow(plan_id: &str, job_id: &str, job: RwSignal<Option<JobSnapshot>>, preview: RwSignal<Option<PreviewRef>>) {
    use std::cell::RefCell;
    use std::rc::Rc;
    job.update(|j| {
        if let Some(j) = j {
            j.events.clear();
            j.finished = 0;
        }
    });
    let pending: Rc<RefCell<Vec<JobEvent>>> = Rc::default();
    let scheduled = Rc::new(std::cell::Cell::new(false));
    let flush = {
        let pending = pending.clone();
        let scheduled = scheduled.clone();
        move || {
            scheduled.set(false);
            let batch: Vec<JobEvent> = pending.borrow_mut().drain(..).collect();
            if !batch.is_empty() {
                job.update(|j| {
                    if let Some(j) = j {
                        j.finished += batch.len();
                        j.events.extend(batch);
                    }
                });
            }
        }
    };
    let on_event = {
        let flush = flush.clone();
        move |event: JobEvent| {
            pending.borrow_mut().push(event);
            if !scheduled.get() {
                scheduled.set(true);
                let flush = flush.clone();
                set_timeout(flush, std::time::Duration::from_millis(100));
            }
        }
    };
    crate::browser::watch_job(plan_id, job_id, on_event, move |end: JobSnapshot| {
        flush();
        if let Some(id) = end.preview_id.clone() {
            preview.set(Some(PreviewRef::Owner { preview: id }));
        }
        // The end is the job without its events: the ones followed are kept.
        job.update(|j| {
            let events = j.take().map(|j| j.events).unwrap_or_default();
            *j = Some(JobSnapshot { events, ..end });
        });
    });
}
