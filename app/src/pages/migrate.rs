//! "Migrate from Terraform" on a stack's page: a Terraform or OpenTofu state file (picked or
//! dropped) becomes a plan through the API, and every instance is listed with what became of
//! it (mapped to its Pulumi type, a data source, unmapped and why, tainted, deposed) before the
//! plan opens.

use ferry_types::terraform::{MigrationView, RowStatus};
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
    let result = RwSignal::new(None::<Result<MigrationView, String>>);
    let busy = RwSignal::new(false);
    let _url = format!("/api/v1/stacks/{stack_id}/migrations/terraform");
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        #[cfg(feature = "hydrate")]
        {
            let Some(input) = file.get() else { return };
            let Some(chosen) = input.files().and_then(|list| list.get(0)) else {
                result.set(Some(Err("choose a terraform.tfstate file (or `terraform show -json` output)".into())));
                return;
            };
            let url = _url.clone();
            busy.set(true);
            leptos::task::spawn_local(async move {
                result.set(Some(crate::browser::post_file::<MigrationView>(&url, &chosen).await));
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
                <input type="file" id="migrate-file" aria-label="Terraform or OpenTofu state file" accept=".tfstate,.json,application/json" node_ref=file/>
                <button type="submit" id="migrate-submit" disabled=move || busy.get()>{move || if busy.get() { "Reading…" } else { "Make the plan" }}</button>
            </form>
            {move || result.get().map(|r| match r {
                Err(message) => view! { <div class="error" id="migrate-error" role="alert">{message}</div> }.into_any(),
                Ok(m) => view! {
                    <div id="migrate-result">
                        {match m.plan.clone() {
                            Some(plan) => view! { <p><a id="migrate-plan" href=format!("/plans/{}", plan.id)>{format!("Open the plan: {}", plan.title)}</a></p> }.into_any(),
                            None => view! { <p class="hint">"Nothing in this file maps to a Pulumi type: no plan was made. Each resource says why."</p> }.into_any(),
                        }}
                        <table class="migration" id="migrate-rows">
                            <thead><tr><th>"Terraform address"</th><th>"Status"</th><th>"Pulumi type"</th><th>"Name"</th><th>"Why"</th></tr></thead>
                            <tbody>
                                {m.resources.into_iter().map(|row| view! {
                                    <tr class=format!("status-{}", status_word(row.status).replace(' ', "-"))>
                                        <td><code>{row.address}</code></td>
                                        <td>{status_word(row.status)}</td>
                                        <td><code>{row.type_.unwrap_or_default()}</code></td>
                                        <td>{row.name.unwrap_or_default()}</td>
                                        <td>{row.reason.unwrap_or_default()}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any(),
            })}
        </details>
    }
}
