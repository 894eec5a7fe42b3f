//! `/`: the stacks Ferry holds, and adding one by uploading a state file.

use leptos::prelude::*;

use crate::server_fns::list_stacks;

#[component]
pub fn HomePage() -> impl IntoView {
    let stacks = Resource::new(|| (), |_| list_stacks());
    view! {
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
    }
}

/// Upload status shown under the form.
#[derive(Clone, PartialEq)]
enum UploadStatus {
    Idle,
    Uploading,
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))] // only the browser uploads
    Failed(UploadStatusError),
}

/// Why an upload was refused, as the API said it.
#[derive(Clone, PartialEq, Debug)]
pub struct UploadStatusError {
    pub code: String,
    pub message: String,
    pub path: Option<String>,
}

#[component]
fn UploadForm() -> impl IntoView {
    let status = RwSignal::new(UploadStatus::Idle);
    let name = NodeRef::<leptos::html::Input>::new();
    let file = NodeRef::<leptos::html::Input>::new();
    let passphrase = NodeRef::<leptos::html::Input>::new();

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let navigate = leptos_router::hooks::use_navigate();
            let (Some(name), Some(file), Some(passphrase)) = (name.get(), file.get(), passphrase.get()) else { return };
            status.set(UploadStatus::Uploading);
            leptos::task::spawn_local(async move {
                match crate::browser::upload_state(&name, &file, &passphrase).await {
                    Ok(id) => {
                        status.set(UploadStatus::Idle);
                        navigate(&format!("/stacks/{id}"), Default::default());
                    }
                    Err(failure) => status.set(UploadStatus::Failed(failure)),
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (name, file, passphrase);
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
                <button type="submit" id="upload-submit" disabled=move || status.get() == UploadStatus::Uploading>
                    {move || if status.get() == UploadStatus::Uploading { "Uploading…" } else { "Upload" }}
                </button>
            </form>
            {move || match status.get() {
                UploadStatus::Failed(UploadStatusError { code, message, path }) => view! {
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
