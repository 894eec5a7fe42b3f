//! A plan's page: what it imports (the spec or program of its current revision), and its
//! preview, run in the background, with each resource's status as it arrives, a count and a
//! cancel button. Leaving the page does not stop the preview; coming back shows where it is.

use ferry_types::{JobEvent, JobSnapshot, PlanPageData};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::server_fns::plan_page;

#[component]
pub fn PlanPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let data = Resource::new(id, plan_page);
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

fn running(job: &Option<JobSnapshot>) -> bool {
    job.as_ref().is_some_and(|j| j.status == "running")
}

#[component]
fn PlanView(data: PlanPageData) -> impl IntoView {
    let job = RwSignal::new(data.job.clone());
    let problem = RwSignal::new(None::<String>);
    let plan_id = data.id.clone();

    // Back on a page whose preview still runs: follow it from the start.
    #[cfg(feature = "hydrate")]
    {
        let plan_id = plan_id.clone();
        Effect::new(move |_| {
            if let Some(j) = job.get_untracked().filter(|j| j.status == "running") {
                follow(&plan_id, &j.id, job);
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
                match crate::browser::start_plan_preview(&_plan_id).await {
                    Ok(j) => {
                        let id = j.id.clone();
                        job.set(Some(j));
                        follow(&_plan_id, &id, job);
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
                if let Err(e) = crate::browser::cancel_job(&_plan_id, &_job_id).await {
                    problem.set(Some(e));
                }
            });
        }
    };
    // Committing the finished preview: a confirmation first, listing what will be written.
    let confirming = RwSignal::new(false);
    let committed = RwSignal::new(None::<Result<String, String>>);
    let commit = move |_| {
        let Some(_preview) = job.get_untracked().and_then(|j| j.preview_id) else { return };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let result = crate::browser::post_json(&format!("/api/v1/previews/{_preview}/commit")).await;
            confirming.set(false);
            committed.set(Some(result.map(|v| format!("Committed: {} is now at version {}.", v["name"].as_str().unwrap_or(""), v["version"]))));
        });
    };
    let ready = move || {
        job.get().map(|j| j.events.into_iter().filter(|e| e.status == "ready" || e.status == "ready-with-warnings" || e.status == "import").collect::<Vec<_>>()).unwrap_or_default()
    };
    let finished_preview = move || job.get().filter(|j| j.status == "done").and_then(|j| j.preview_id);
    let stack_name = data.stack_name.clone();
    let source = data.program.clone().filter(|p| !p.trim().is_empty()).or(data.spec.clone()).unwrap_or_default();
    let kind = if data.program.as_deref().is_some_and(|p| !p.trim().is_empty()) { "YAML program" } else { "import spec" };
    let events = move || job.get().map(|j| j.events).unwrap_or_default();
    view! {
        <section class="card">
            <h1 id="plan-title">{data.title.clone()}</h1>
            <p class="meta">
                "Into " <a href=format!("/stacks/{}", data.stack_id)>{data.stack_name.clone()}</a>
                {format!(" · revision {} · {kind}", data.revision)}
            </p>
            <pre id="plan-source" class="source">{source}</pre>
        </section>
        <section class="card">
            <div class="actions">
                <button id="plan-preview" on:click=start disabled=move || running(&job.get())>"Preview"</button>
                <button id="plan-cancel" on:click=cancel disabled=move || !running(&job.get())>"Cancel"</button>
                <span id="plan-progress">{move || job.get().map(|j| format!("{} of {}", j.finished, j.total)).unwrap_or_default()}</span>
                <span id="plan-status" class="status">{move || job.get().map(|j| j.status).unwrap_or_else(|| "not previewed yet".into())}</span>
            </div>
            {move || problem.get().map(|p| view! { <p class="error" id="plan-problem">{p}</p> })}
            {move || job.get().and_then(|j| j.error).map(|e| view! { <p class="error">{e}</p> })}
            <table id="plan-results" class="results">
                <thead><tr><th>"Status"</th><th>"Type"</th><th>"Name"</th><th>"Note"</th></tr></thead>
                <tbody>
                    {move || events().into_iter().map(|e: JobEvent| view! {
                        <tr class=format!("status-{}", e.status)>
                            <td class="status">{e.status.clone()}</td>
                            <td>{e.type_.clone()}</td>
                            <td>{e.name.clone()}</td>
                            <td>{e.message.clone().unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
        {move || finished_preview().map(|preview| {
            let stack_name = stack_name.clone();
            let languages = [("ts", "TypeScript"), ("python", "Python"), ("go", "Go"), ("csharp", "C#"), ("yaml", "YAML")];
            view! {
                <section class="card" id="plan-code">
                    <h2>"Code"</h2>
                    <p class="meta">"For the resources this preview can import; secrets are read from stack config."</p>
                    <div class="actions">
                        {languages.into_iter().map(|(lang, label)| view! {
                            <a class="download" data-lang=lang href=format!("/api/v1/previews/{preview}/code?lang={lang}") download>{label}</a>
                            <a class="download zip" href=format!("/api/v1/previews/{preview}/code?lang={lang}&format=zip") download>{format!("{label} project (.zip)")}</a>
                        }).collect_view()}
                    </div>
                </section>
                <section class="card" id="plan-commit-card">
                    <h2>"Commit"</h2>
                    {move || match committed.get() {
                        Some(Ok(text)) => view! { <p id="plan-committed">{text}</p> }.into_any(),
                        Some(Err(e)) => view! { <p class="error" id="plan-commit-error">{e}</p> }.into_any(),
                        None if confirming.get() => {
                            let names = ready().into_iter().map(|e| view! { <li>{format!("{} ({})", e.name, e.type_)}</li> }).collect_view();
                            view! {
                                <div id="plan-confirm">
                                    <p>{format!(
                                        "This adds {} imported resource(s) to {} as its next version (with the stack's root resource and default provider if it has none yet). Nothing outside the stack changes.",
                                        ready().len(),
                                        stack_name
                                    )}</p>
                                    <ul>{names}</ul>
                                    <div class="actions">
                                        <button id="plan-confirm-commit" on:click=commit>"Commit"</button>
                                        <button class="secondary" on:click=move |_| confirming.set(false)>"Not yet"</button>
                                    </div>
                                </div>
                            }.into_any()
                        }
                        None => view! { <button id="plan-commit" on:click=move |_| confirming.set(true)>"Commit…"</button> }.into_any(),
                    }}
                </section>
            }
        })}
    }
}

/// Follows a job's events into `job` (its past events are replayed first).
#[cfg(feature = "hydrate")]
fn follow(plan_id: &str, job_id: &str, job: RwSignal<Option<JobSnapshot>>) {
    job.update(|j| {
        if let Some(j) = j {
            j.events.clear();
            j.finished = 0;
        }
    });
    crate::browser::watch_job(
        plan_id,
        job_id,
        move |event| {
            job.update(|j| {
                if let Some(j) = j {
                    j.finished += 1;
                    j.events.push(event);
                }
            })
        },
        move |end| job.set(Some(end)),
    );
}
