//! "Migrate from Terraform" on a stack's page: a Terraform or OpenTofu state file (picked or
//! dropped), or the state where its backend keeps it (an S3 bucket's key or a local backend's
//! file, a workspace picked from those it has), becomes a plan through the API, and every
//! instance is listed with what became of it (mapped to its Pulumi type, a data source,
//! unmapped and why, tainted, deposed) before the plan opens. With the configuration the state
//! was applied from (`.tf` files, or a zip of their folder), each row shows its block beside
//! the program it becomes, and what the configuration says that the program does not follow.

use ferry_types::api;
use ferry_types::terraform::{
    resource_in_program, MigrationView, RemoteState, Row, RowStatus, Workspaces,
};
use leptos::prelude::*;

/// The status word a row shows.
fn status_word(status: RowStatus) -> &'static str {
    match status {
        RowStatus::Mapped => "mapped",
        RowStatus::DataSource => "data source",
        RowStatus::Unmapped => "unmapped",
        RowStatus::Tainted => "tainted",
        RowStatus::Deposed => "deposed",
    }
}

#[component]
pub fn MigrateTerraform(stack_id: String) -> impl IntoView {
    let file = NodeRef::<leptos::html::Input>::new();
    let configuration = NodeRef::<leptos::html::Input>::new();
    let folder = NodeRef::<leptos::html::Input>::new();
    // A folder picker (no attribute of the view macro's says so): set once the input exists.
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(input) = folder.get() {
            input.set_webkitdirectory(true);
        }
    });
    let result = RwSignal::new(None::<Result<MigrationView, String>>);
    let busy = RwSignal::new(false);
    let _migrate = api::MIGRATE_TERRAFORM.at(&[&stack_id]);
    // The state where its backend keeps it: its URL, the backend's workspace key prefix, and
    // the workspaces found there.
    let remote_url = RwSignal::new(String::new());
    let prefix = RwSignal::new(String::new());
    let workspaces = RwSignal::new(None::<Result<Workspaces, String>>);
    let workspace = RwSignal::new(String::from("default"));
    let _remote = move || RemoteState {
        url: remote_url.get_untracked().trim().to_string(),
        workspace: Some(workspace.get_untracked()),
        workspace_key_prefix: Some(prefix.get_untracked().trim().to_string())
            .filter(|p| !p.is_empty()),
    };
    let _stack = stack_id.clone();
    let on_list = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let asked = _remote();
            // The backend's workspaces, whichever is chosen.
            let call = api::TERRAFORM_WORKSPACES
                .at_with(&[&_stack], &RemoteState { workspace: None, ..asked });
            busy.set(true);
            leptos::task::spawn_local(async move {
                let found = crate::client::call(&call).await;
                if let Ok(found) = &found {
                    workspace.set(
                        found
                            .workspaces
                            .first()
                            .map(|w| w.name.clone())
                            .unwrap_or_else(|| "default".into()),
                    );
                }
                workspaces.set(Some(found));
                busy.set(false);
            });
        }
    };
    let _remote_post = api::MIGRATE_TERRAFORM_REMOTE.at(&[&stack_id]);
    let on_remote = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let call = _remote_post.clone();
            let remote = _remote();
            // With the configuration, where the state is and the files go as one form.
            let tf_files = chosen_configuration(&[configuration, folder]);
            busy.set(true);
            leptos::task::spawn_local(async move {
                let answer = match tf_files {
                    None => crate::client::send(&call, &api::JsonOrFile(remote)).await,
                    Some(files) => match web_sys::FormData::new() {
                        Ok(form) => {
                            let body =
                                serde_json::to_string(&remote).expect("a remote state serialises");
                            let _ = form.append_with_str("remote", &body);
                            append_files(&form, &files);
                            crate::client::send_form(&call, &form).await
                        }
                        Err(_) => Err("this browser cannot send a form".into()),
                    },
                };
                result.set(Some(answer));
                busy.set(false);
            });
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let Some(input) = file.get() else { return };
            let Some(chosen) = input.files().and_then(|list| list.get(0)) else {
                result.set(Some(Err(
                    "choose a terraform.tfstate file (or `terraform show -json` output)".into(),
                )));
                return;
            };
            let call = _migrate.clone();
            // With the configuration, the state and its files go as one form.
            let tf_files = chosen_configuration(&[configuration, folder]);
            busy.set(true);
            leptos::task::spawn_local(async move {
                let answer = match tf_files {
                    None => crate::client::send_file(&call, &chosen).await,
                    Some(files) => match web_sys::FormData::new() {
                        Ok(form) => {
                            let _ = form.append_with_blob_and_filename(
                                "state",
                                &chosen,
                                &chosen.name(),
                            );
                            append_files(&form, &files);
                            crate::client::send_form(&call, &form).await
                        }
                        Err(_) => Err("this browser cannot send a form".into()),
                    },
                };
                result.set(Some(answer));
                busy.set(false);
            });
        }
    };
    view! {
        <details class="migrate" id="migrate-terraform">
            <summary>"Migrate from Terraform"</summary>
            <p class="hint">
                "A Terraform or OpenTofu state file (" <code>"terraform.tfstate"</code> ", or " <code>"terraform show -json"</code>
                " output) becomes a plan: every resource a provider plugin maps is imported, read by its provider and diffed against what Terraform last recorded. Nothing reaches the stack before the plan's commit."
            </p>
            <form class="upload" id="migrate-form" on:submit=on_submit>
                <label>"The state"
                    <input type="file" id="migrate-file" aria-label="Terraform or OpenTofu state file" accept=".tfstate,.json,application/json" node_ref=file/>
                </label>
                <label>"Its configuration (optional, with either way of reading the state): .tf files, or a zip of their folder"
                    <input type="file" id="migrate-configuration" aria-label="Its configuration: .tf files or a zip of their folder" multiple accept=".tf,.zip" node_ref=configuration/>
                </label>
                <label>"or its folder"
                    <input type="file" id="migrate-configuration-folder" aria-label="Its configuration's folder" multiple node_ref=folder/>
                </label>
                <button type="submit" id="migrate-submit" disabled=move || busy.get()>{move || if busy.get() { "Reading…" } else { "Make the plan" }}</button>
            </form>
            <p class="hint">
                "Or read it where its backend keeps it: an S3 backend's " <code>"s3://<bucket>/<key>?endpoint=…&region=…"</code>
                " or a local backend's " <code>"file:///…/terraform.tfstate"</code> ", in a location an administrator allows this organisation."
            </p>
            <form class="upload remote-state" id="migrate-remote-form" on:submit=on_remote>
                <input type="text" id="migrate-url" aria-label="Where the state is (URL)" placeholder="s3://bucket/path/terraform.tfstate?region=…"
                    prop:value=move || remote_url.get() on:input=move |ev| remote_url.set(event_target_value(&ev))/>
                <input type="text" id="migrate-prefix" aria-label="Workspace key prefix" placeholder="env:" size="8"
                    prop:value=move || prefix.get() on:input=move |ev| prefix.set(event_target_value(&ev))/>
                <button type="button" id="migrate-list" on:click=on_list disabled=move || busy.get()>"Find workspaces"</button>
                {move || workspaces.get().map(|found| match found {
                    Err(message) => view! { <span class="error" id="migrate-workspaces-error" role="alert">{message}</span> }.into_any(),
                    Ok(found) if found.workspaces.is_empty() => view! { <span class="hint" id="migrate-no-workspaces">"No state there."</span> }.into_any(),
                    Ok(found) => view! {
                        <select id="migrate-workspace" aria-label="Workspace" on:change=move |ev| workspace.set(event_target_value(&ev))>
                            {found.workspaces.into_iter().map(|w| {
                                let name = w.name.clone();
                                view! { <option value=name.clone() title=w.url selected=move || workspace.get() == name>{w.name}</option> }
                            }).collect_view()}
                        </select>
                        <button type="submit" id="migrate-remote-submit" disabled=move || busy.get()>"Make the plan from this workspace"</button>
                    }.into_any(),
                })}
            </form>
            {move || result.get().map(|r| match r {
                Err(message) => view! { <div class="error" id="migrate-error" role="alert">{message}</div> }.into_any(),
                Ok(m) => {
                    let program = m.plan.as_ref().and_then(|p| p.current.program.clone()).unwrap_or_default();
                    let configured = m.resources.iter().any(|r| r.configuration.is_some());
                    view! {
                    <div id="migrate-result">
                        {(!m.notes.is_empty()).then(|| view! {
                            <ul class="migration-notes" id="migrate-notes">
                                {m.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}
                            </ul>
                        })}
                        {match m.plan.clone() {
                            Some(plan) => view! { <p><a id="migrate-plan" href=format!("/plans/{}", plan.plan.id)>{format!("Open the plan: {}", plan.plan.title)}</a></p> }.into_any(),
                            None => view! { <p class="hint">"Nothing in this file maps to a Pulumi type: no plan was made. Each resource says why."</p> }.into_any(),
                        }}
                        <table class="migration" id="migrate-rows">
                            <thead><tr><th>"Terraform address"</th><th>"Status"</th><th>"Provider"</th><th>"Pulumi type"</th><th>"Name"</th><th>"Why"</th></tr></thead>
                            <tbody>
                                {m.resources.into_iter().map(|row| { let row_copy = row.clone(); view! {
                                    <tr class=format!("status-{}", status_word(row.status).replace(' ', "-"))>
                                        <td><code>{row.address}</code></td>
                                        <td>{status_word(row.status)}</td>
                                        <td class="provider">
                                            <code>{row.provider}</code>
                                            {row.package.map(|p| view! { " → " <code class="package">{p}</code> })}
                                        </td>
                                        <td><code>{row.type_.unwrap_or_default()}</code></td>
                                        <td>{row.name.unwrap_or_default()}</td>
                                        <td>
                                            {row.reason.unwrap_or_default()}
                                            {(!row.unknown_attributes.is_empty()).then(|| view! {
                                                <p class="unknown-attributes">
                                                    "Left out, unknown to the provider's schema: "
                                                    {row.unknown_attributes.iter().map(|a| view! { <code>{a.clone()}</code>" " }).collect_view()}
                                                </p>
                                            })}
                                            {(!row.dependencies_not_imported.is_empty()).then(|| view! {
                                                <p class="dependencies-not-imported">
                                                    "Depends on what is not imported: "
                                                    {row.dependencies_not_imported.iter().map(|d| view! { <code>{d.clone()}</code>" " }).collect_view()}
                                                </p>
                                            })}
                                        </td>
                                    </tr>
                                    {configured.then(|| configured_row(&row_copy, &program))}
                                }}).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any()},
            })}
        </details>
    }
}

/// The configuration's files chosen in `inputs` (files, a zip, or a folder), each with its path:
/// a folder's files keep theirs in it (`infra/modules/vpc/main.tf`), which local module calls
/// are followed by. Of a folder only `.tf` files go, and none under `.terraform/` (the providers
/// and modules `terraform init` downloaded); `None` when nothing is chosen.
#[cfg(feature = "hydrate")]
fn chosen_configuration(
    inputs: &[NodeRef<leptos::html::Input>],
) -> Option<Vec<(web_sys::File, String)>> {
    let mut files = Vec::new();
    for list in inputs.iter().filter_map(|input| input.get_untracked()?.files()) {
        for f in (0..list.length()).filter_map(|n| list.get(n)) {
            let relative = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty());
            match relative {
                Some(path) => {
                    if path.ends_with(".tf") && !path.split('/').any(|part| part == ".terraform") {
                        files.push((f, path));
                    }
                }
                None => {
                    let name = f.name();
                    files.push((f, name));
                }
            }
        }
    }
    (!files.is_empty()).then_some(files)
}

/// The configuration's files as the form's `configuration` parts.
#[cfg(feature = "hydrate")]
fn append_files(form: &web_sys::FormData, files: &[(web_sys::File, String)]) {
    for (f, path) in files {
        let _ = form.append_with_blob_and_filename("configuration", f, path);
    }
}

/// A row's configuration: the block it came from beside the program it becomes, and what the
/// program does not follow of it.
fn configured_row(row: &Row, program: &str) -> impl IntoView {
    let became = row.name.as_deref().and_then(|name| resource_in_program(program, name));
    let source = row.configuration.clone();
    let notes = row.configuration_notes.clone();
    view! {
        <tr class="configured">
            <td colspan="6">
                <div class="side-by-side">
                    <figure class="hcl">
                        <figcaption>{match &source {
                            Some(s) => format!("{}, line {}", s.file, s.line),
                            None => "Not declared in the configuration".to_string(),
                        }}</figcaption>
                        {source.map(|s| view! { <pre><code>{s.text}</code></pre> })}
                    </figure>
                    <figure class="program">
                        <figcaption>"In the plan's program"</figcaption>
                        {match became {
                            Some(text) => view! { <pre><code>{text}</code></pre> }.into_any(),
                            None => view! { <p class="hint">"Not imported"</p> }.into_any(),
                        }}
                    </figure>
                </div>
                {(!notes.is_empty()).then(|| view! {
                    <ul class="configuration-notes">
                        {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                    </ul>
                })}
            </td>
        </tr>
    }
}
