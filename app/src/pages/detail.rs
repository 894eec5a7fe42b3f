//! The resource detail panel: identity, relations, and inputs and outputs as formatted JSON
//! (secrets arrive already masked from the server).

use leptos::prelude::*;

use super::stack_view::StackView;
use crate::format::urn_name;
use crate::server_fns::load_resource_detail;
use ferry_types::ResourceDetail;

/// The selected resource's detail, or `None` while none is selected: made by the stack's page
/// before its `Suspense` (see `StackPlansData` for why no resource is made inside one).
pub(crate) type DetailResource = Resource<Option<Result<ResourceDetail, ServerFnError>>>;

/// The detail resource for the stack `id` names and the resource `selected` names.
pub(crate) fn detail_resource(id: Memo<String>, selected: Memo<Option<String>>) -> DetailResource {
    Resource::new(
        move || (id.get(), selected.get()),
        |(id, urn)| async move {
            match urn {
                Some(urn) => Some(load_resource_detail(id, urn).await),
                None => None,
            }
        },
    )
}

#[component]
pub(crate) fn DetailPanel(
    stack_id: String,
    detail: DetailResource,
    view: StackView,
) -> impl IntoView {
    let close = format!("/stacks/{}{}", stack_id, view.suffix());
    view! {
        <aside class="detail" id="resource-detail">
            <a class="close" href=close title="Close">"×"</a>
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match detail.await {
                        None => ().into_any(),
                        Some(Err(e)) => view! { <p class="error">{super::error_text(&e)}</p> }.into_any(),
                        Some(Ok(d)) => {
                            view! {
                                <h2 id="detail-name">{d.row.name.clone()}</h2>
                                <dl>
                                    <dt>"Type"</dt><dd><code>{d.row.type_.clone()}</code></dd>
                                    <dt>"URN"</dt><dd><code class="wrap">{d.row.urn.clone()}</code></dd>
                                    <dt>"ID"</dt><dd><code>{d.row.id.clone().unwrap_or_else(|| "—".into())}</code></dd>
                                    <dt>"Provider"</dt><dd><code class="wrap">{d.row.provider.clone().unwrap_or_else(|| "—".into())}</code></dd>
                                    <dt>"Parent"</dt><dd><code class="wrap">{d.row.parent.clone().unwrap_or_else(|| "—".into())}</code></dd>
                                    <dt>"Protect"</dt><dd>{if d.row.protect { "yes" } else { "no" }}</dd>
                                    <dt>"Depends on"</dt>
                                    <dd>{if d.dependencies.is_empty() { "—".to_string() } else { d.dependencies.iter().map(|u| urn_name(u)).collect::<Vec<_>>().join(", ") }}</dd>
                                    <dt>"Secrets"</dt><dd>{if d.secrets == 0 { "none".to_string() } else { format!("{} (masked)", d.secrets) }}</dd>
                                </dl>
                                <h3>"Inputs"</h3>
                                <pre class="json" id="detail-inputs">{d.inputs.clone()}</pre>
                                <h3>"Outputs"</h3>
                                <pre class="json" id="detail-outputs">{d.outputs.clone()}</pre>
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        </aside>
    }
}
