//! `/`: a person's page — the plans waiting for their review, their own open plans, recent
//! activity in their organisations — then the stacks Ferry holds, and adding one by uploading a
//! state file or connecting a stack of a Pulumi DIY backend.

use ferry_types::ErrorDetail;
use leptos::prelude::*;

use crate::server_fns::list_stacks;

#[component]
pub fn HomePage() -> impl IntoView {
    let stacks = Resource::new(|| (), |_| list_stacks());
    view! {
        <super::plan_list::PlanSection
            id="waiting-for-review" title="Waiting for your review" empty="Nothing waits for your review." state="" awaiting="me" author="" limit=50/>
        <super::plan_list::PlanSection
            id="your-plans" title="Your open plans" empty="You have no open plans." state="open" awaiting="" author="me" limit=50/>
        <super::plan_list::PlanSection
            id="recent-activity" title="Recent activity" empty="No plans in your organisations yet." state="" awaiting="" author="" limit=10/>
        <section class="card">
            <h1>"Stacks"</h1>
            <Suspense fallback=|| view! { <p>"Loading stacks…"</p> }>
                {move || Suspend::new(async move {
                    match stacks.await {
                        Err(e) => view! { <p class="error">{super::error_text(&e)}</p> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p>"No stacks yet. Upload a state file below."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="stacks" id="stack-list">
                                <thead><tr><th>"Name"</th><th>"Version"</th><th>"Resources"</th><th>"From"</th><th>"Updated"</th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|s| view! {
                                        <tr>
                                            <td><a href=format!("/stacks/{}", s.id)>{s.name.clone()}</a></td>
                                            <td>{s.version}</td>
                                            <td>{s.resources}</td>
                                            <td>{format!("{} ({})", s.source_format, s.origin)}</td>
                                            <td>{s.updated_at.clone()}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
        <UploadForm/>
        <ConnectForm/>
    }
}

/// Connects a stack of a DIY backend (a folder or a bucket the administrator allowed the
/// organisation): list the backend's stacks, pick one; it becomes `<org>/<project>/<stack>`.
#[component]
fn ConnectForm() -> impl IntoView {
    let url = RwSignal::new(String::new());
    let org = RwSignal::new(String::new());
    let found = RwSignal::new(None::<Vec<ferry_types::BackendStack>>);
    let problem = RwSignal::new(None::<String>);
    let list = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        problem.set(None);
        let query =
            ferry_types::api::BackendQuery { org: org.get_untracked(), url: url.get_untracked() };
        let _call = ferry_types::api::BACKEND_STACKS.at_with(&[], &query);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&_call).await {
                Ok(stacks) => found.set(Some(stacks)),
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let connect = move |_name: String| {
        // The name is the organisation's: the backend's own (`organization/…`) says nothing of it.
        let _stack = ferry_types::api::ConnectStack {
            backend: url.get_untracked(),
            name: _name,
            config: None,
        };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::send(
                &ferry_types::api::UPLOAD_STACK.at(&[]),
                &ferry_types::api::JsonOrFile(_stack),
            )
            .await
            {
                Ok(stack) => crate::browser::go_to(&format!("/stacks/{}", stack.summary.id)),
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Connect a stack of a DIY backend"</h2>
            <p class="hint">
                "A Pulumi DIY backend the server's administrator allows: a folder (" <code>"file:///…"</code> ") or S3-compatible storage ("
                <code>"s3://bucket?endpoint=…&region=…"</code> "). Every preview reads the stack there as it is; a commit writes there under Pulumi's lock."
            </p>
            <form id="connect-form" class="upload connect" on:submit=list>
                <label>"Organisation"
                    <input type="text" id="connect-org" placeholder="acme" required on:input=move |ev| org.set(event_target_value(&ev))/>
                </label>
                <label>"Backend URL"
                    <input type="text" id="connect-url" placeholder="file:///srv/pulumi-state" required on:input=move |ev| url.set(event_target_value(&ev))/>
                </label>
                <button type="submit" id="connect-list">"List its stacks"</button>
            </form>
            {move || problem.get().map(|p| view! { <div class="error" id="connect-error" role="alert">{p}</div> })}
            {move || found.get().map(|stacks| if stacks.is_empty() {
                view! { <p id="connect-empty">"The backend holds no stacks."</p> }.into_any()
            } else {
                view! {
                    <table class="stacks" id="connect-stacks">
                        <tbody>
                            {stacks.into_iter().map(|s| {
                                let name = format!("{}/{}/{}", org.get_untracked(), s.project, s.stack);
                                let n = name.clone();
                                view! { <tr><td>{name}</td><td><button class="secondary connect-stack" on:click=move |_| connect(n.clone())>"Connect"</button></td></tr> }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            })}
        </section>
    }
}

/// Upload status shown under the form.
#[derive(Clone, PartialEq)]
enum UploadStatus {
    Idle,
    Uploading,
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))] // only the browser uploads
    Failed(ErrorDetail),
}

#[component]
fn UploadForm() -> impl IntoView {
    let status = RwSignal::new(UploadStatus::Idle);
    let name = NodeRef::<leptos::html::Input>::new();
    let file = NodeRef::<leptos::html::Input>::new();
    let passphrase = NodeRef::<leptos::html::Input>::new();
    let force = NodeRef::<leptos::html::Input>::new();

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let navigate = leptos_router::hooks::use_navigate();
            let (Some(name), Some(file), Some(passphrase), Some(force)) =
                (name.get(), file.get(), passphrase.get(), force.get())
            else {
                return;
            };
            status.set(UploadStatus::Uploading);
            leptos::task::spawn_local(async move {
                match crate::browser::upload_state(&name, &file, &passphrase, force.checked()).await
                {
                    Ok(id) => {
                        status.set(UploadStatus::Idle);
                        navigate(&format!("/stacks/{id}"), Default::default());
                    }
                    Err(failure) => status.set(UploadStatus::Failed(failure)),
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (name, file, passphrase, force);
    };

    view! {
        <section class="card">
            <h2>"Add a stack"</h2>
            <p class="hint">
                "Upload a Pulumi state file: a " <code>"pulumi stack export"</code>
                " file or a checkpoint (v0–v4). Secrets stay encrypted; a passphrase is used for this upload only and never stored."
            </p>
            <form id="upload-form" class="upload" on:submit=on_submit>
                <label>"Stack name"
                    <input type="text" id="upload-name" name="name" placeholder="org/project/stack" node_ref=name/>
                </label>
                <label>"State file"
                    <input type="file" id="upload-file" name="file" accept=".json,application/json" required node_ref=file/>
                </label>
                <label>"Passphrase (only for passphrase-encrypted secrets)"
                    <input type="password" id="upload-passphrase" name="passphrase" autocomplete="off" node_ref=passphrase/>
                </label>
                <label class="check" title="A state whose resources carry another stack's name is refused, offering that name; this moves them to the name above instead (every URN renamed, as pulumi stack rename does)">
                    <input type="checkbox" id="upload-force" node_ref=force/>"Move its resources to this name"
                </label>
                <button type="submit" id="upload-submit" disabled=move || status.get() == UploadStatus::Uploading>
                    {move || if status.get() == UploadStatus::Uploading { "Uploading…" } else { "Upload" }}
                </button>
            </form>
            {move || match status.get() {
                UploadStatus::Failed(ErrorDetail { code, message, path, .. }) => view! {
                    <div class="error" id="upload-error" role="alert">
                        <strong>{code}</strong>": "{message}
                        {path.map(|p| view! { <div class="path">"at "<code>{p}</code></div> })}
                    </div>
                }.into_any(),
                _ => ().into_any(),
            }}
        </section>
    }
}
