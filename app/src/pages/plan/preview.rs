//! A plan's preview: starting and cancelling the background preview, following its job (past
//! events replayed, then each as it comes), the results table, and the notes about them (the
//! differences that are only zero values or defaults, the resources an imports-scope program
//! leaves untouched).

use std::collections::BTreeMap;
use std::sync::Arc;

use ferry_types::{JobEvent, JobView, PreviewRef, ResultPage, ResultRow};
use leptos::prelude::*;

use super::results::ResultsTable;

pub(super) fn running(job: RwSignal<Option<JobView>>) -> bool {
    job.with(|j| j.as_ref().is_some_and(|j| j.status.is_live()))
}

fn row_of(e: &JobEvent) -> ResultRow {
    ResultRow {
        urn: e.urn.clone(),
        name: e.name.clone(),
        type_: e.type_.clone(),
        status: e.status,
        warnings: e.message.clone().into_iter().collect(),
        differs: Vec::new(),
        zero_or_default: 0,
    }
}

#[component]
#[allow(clippy::too_many_arguments)] // the page's shared signals, each named at the call
pub(super) fn PreviewSection(
    plan_id: String,
    read_only: bool,
    /// Whether this page may adopt every zero value in one revision (the owner, on the latest).
    can_adopt: bool,
    job: RwSignal<Option<JobView>>,
    preview: RwSignal<Option<PreviewRef>>,
    /// The stored preview's first page of results (the table fetches the rest).
    stored: RwSignal<Option<ResultPage>>,
    /// The preview whose first page the page came with (a new preview's is fetched).
    shown: Option<PreviewRef>,
    selected: RwSignal<Option<String>>,
    committed: RwSignal<Option<Result<String, String>>>,
    problem: RwSignal<Option<String>>,
    /// Unsaved changes: a preview runs a saved revision.
    changed: Memo<bool>,
    untouched: Signal<usize>,
    origins: Arc<BTreeMap<String, String>>,
    marks: super::workspace::ViewedMarks,
    comments: Signal<std::collections::HashMap<String, usize>>,
    keys: Signal<bool>,
) -> impl IntoView {
    // Rows live from the running job's events (until a finished preview's first page arrives,
    // its events, when the page saw them, stand in for it); `None` once the stored preview
    // shows. A memo: scrolling reads it on every frame, and it changes only with the job.
    let live = Memo::new(move |_| {
        job.with(|j| {
            j.as_ref()
                .filter(|j| {
                    j.status.is_live()
                        || preview.with(Option::is_none)
                        || (stored.with(Option::is_none) && !j.events.is_empty())
                })
                .map(|j| Arc::new(j.events.iter().map(row_of).collect::<Vec<_>>()))
        })
    });
    // The table is made once and then follows the rows (a new table would lose its filters).
    let has_results = Memo::new(move |_| {
        live.with(|r| r.as_ref().is_some_and(|r| !r.is_empty()))
            || job.with(Option::is_some)
            || stored.with(Option::is_some)
    });
    #[cfg(feature = "hydrate")]
    let shown_preview = StoredValue::new(shown);
    // Only the browser fetches a new preview's first page, or clears the last commit's message
    // when a preview starts.
    #[cfg(not(feature = "hydrate"))]
    let _ = (shown, committed);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let Some(p) = preview.get() else { return };
        if shown_preview.get_value().as_ref() == Some(&p) {
            return;
        }
        shown_preview.set_value(Some(p.clone()));
        leptos::task::spawn_local(async move {
            match super::results::fetch_page(super::results::page_call(
                &p,
                &[],
                "",
                "",
                0,
                crate::pages::paged::PAGE_ROWS,
            ))
            .await
            {
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
                match crate::client::call(&ferry_types::api::START_PLAN_PREVIEW.at(&[&_plan_id]))
                    .await
                {
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
                let call = ferry_types::api::CANCEL_PLAN_JOB.at(&[&_plan_id, &_job_id]);
                if let Err(e) = crate::client::call(&call).await {
                    problem.set(Some(e));
                }
            });
        }
    };

    // Differences across the plan that are only zero values or defaults, and one click that
    // adopts them all (the owner, on the latest revision, once its preview is stored).
    let zero_or_default =
        Memo::new(move |_| stored.with(|s| s.as_ref().map_or(0, |s| s.zero_or_default)));
    let adopt_zero = move |_| {
        let Some(PreviewRef::Owner { preview: _preview }) = preview.get_untracked() else { return };
        let _plan_id = plan_id.clone();
        problem.set(None);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let every = ferry_types::api::ZeroValuesInput { preview: _preview, urn: None };
            let call = ferry_types::api::ADOPT_ZERO_VALUES.at(&[&_plan_id]);
            match crate::client::send(&call, &every).await {
                Ok(_) => crate::browser::go_to(&format!("/plans/{_plan_id}")),
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let events_total = move || {
        job.with(|j| {
            j.as_ref().map(|j| format!("{} of {} steps", j.finished, j.total)).unwrap_or_default()
        })
    };
    // With resources of several packages (a migration's providers), each one's progress.
    let by_package = move || {
        job.with(|j| j.as_ref().filter(|j| j.packages.len() > 1).map(package_progress))
            .unwrap_or_default()
    };
    view! {
        <section class="card">
            <h2>"Preview"</h2>
            {(!read_only).then(|| view! {
                <div class="actions">
                    <button id="plan-preview" on:click=start title=move || if changed.get() { "Save the revision first: a preview runs a saved revision" } else { "" } disabled=move || running(job) || changed.get()>"Preview"</button>
                    <button id="plan-cancel" on:click=cancel disabled=move || !running(job)>"Cancel"</button>
                    <span id="plan-progress">{events_total}</span>
                    <span id="plan-progress-packages" class="meta">{by_package}</span>
                    <span id="plan-status" class="status">{move || job.with(|j| j.as_ref().map(|j| j.status.as_str().to_string())).unwrap_or_else(|| if preview.get().is_some() { "done".into() } else { "not previewed yet".into() })}</span>
                </div>
            })}
            {move || problem.get().map(|p| view! { <p class="error" id="plan-problem">{p}</p> })}
            {move || job.with(|j| j.as_ref().and_then(|j| j.error.clone())).map(|e| view! { <p class="error" id="plan-job-error">{e}</p> })}
            {move || has_results.get().then(|| view! { <ResultsTable live=live stored=stored preview=preview selected=selected origins=origins.clone() marks=marks comments=comments keys=keys/> })}
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
    }
    .into_any()
}

/// Each package's finished and total resources (`random 3 of 5 · aws 2 of 10`), from the
/// job's events, counted in one pass.
fn package_progress(j: &JobView) -> String {
    let mut finished: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for package in j.events.iter().filter_map(|e| ferry_types::PackageTotal::package_of(&e.type_)) {
        *finished.entry(package).or_default() += 1;
    }
    j.packages
        .iter()
        .map(|p| {
            format!(
                "{} {} of {}",
                p.package,
                finished.get(p.package.as_str()).copied().unwrap_or(0).min(p.total),
                p.total
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Follows a job's events into `job` (past events are replayed first), in batches so that a
/// preview of thousands of resources redraws a few times a second, not once per resource.
#[cfg(feature = "hydrate")]
fn follow(
    plan_id: &str,
    job_id: &str,
    job: RwSignal<Option<JobView>>,
    preview: RwSignal<Option<PreviewRef>>,
) {
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
    let on_status = move |status| {
        job.update(|j| {
            if let Some(j) = j {
                j.status = status;
            }
        })
    };
    crate::browser::watch_job(plan_id, job_id, on_status, on_event, move |end: JobView| {
        flush();
        if let Some(id) = end.preview_id.clone() {
            preview.set(Some(PreviewRef::Owner { preview: id }));
        }
        // The end is the job without its events: the ones followed are kept.
        job.update(|j| {
            let events = j.take().map(|j| j.events).unwrap_or_default();
            *j = Some(JobView { events, ..end });
        });
    });
}
