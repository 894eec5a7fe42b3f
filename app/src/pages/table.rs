//! The resource table: filterable, and virtualised (only the rows in view are in the DOM), so
//! 10,000 resources scroll as smoothly as ten.

use std::sync::Arc;

use ferry_types::ResourceRow;
use leptos::prelude::*;

use crate::format::{resource_link, urn_name};

/// Every row has this height (CSS `.row` says the same), so positions are arithmetic.
const ROW_HEIGHT: f64 = 30.0;
/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: usize = 10;
/// Rows a viewport shows at most (the scroller is at most this tall).
const VIEWPORT_ROWS: usize = 24;

#[component]
pub(crate) fn ResourceTable(rows: Arc<Vec<ResourceRow>>, stack_id: String, selected: Memo<Option<String>>) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let scroll_top = RwSignal::new(0.0f64);
    let all = rows.clone();
    // Indices of the rows that match the filter, in state order.
    let matches = Memo::new(move |_| {
        let needle = filter.get().to_lowercase();
        all.iter()
            .enumerate()
            .filter(|(_, r)| {
                needle.is_empty() || r.urn.to_lowercase().contains(&needle) || r.id.as_deref().is_some_and(|id| id.to_lowercase().contains(&needle))
            })
            .map(|(i, _)| i)
            .collect::<Vec<usize>>()
    });
    let first = Memo::new(move |_| ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN));
    let visible = move || {
        matches.with(|m| {
            let start = first.get().min(m.len());
            let end = (start + VIEWPORT_ROWS + 2 * OVERSCAN).min(m.len());
            m[start..end].to_vec()
        })
    };
    let total = move || matches.with(Vec::len);
    let row_count = rows.len();
    let spacer_top = move || format!("height:{}px", first.get().min(total()) as f64 * ROW_HEIGHT);
    let spacer_bottom = move || {
        let shown_end = (first.get() + VIEWPORT_ROWS + 2 * OVERSCAN).min(total());
        format!("height:{}px", (total() - shown_end) as f64 * ROW_HEIGHT)
    };

    view! {
        <div class="table-tools">
            <input type="search" id="resource-filter" placeholder="Filter by URN, type, name or ID"
                on:input=move |ev| { filter.set(event_target_value(&ev)); scroll_top.set(0.0); }/>
            <span class="count" id="resource-count">{move || format!("{} of {} resources", total(), row_count)}</span>
        </div>
        <div class="resource-table" role="table" aria-label="Resources">
            <div class="row head" role="row">
                <span>"Type"</span><span>"Name"</span><span>"URN"</span><span>"ID"</span>
                <span>"Provider"</span><span>"Parent"</span><span>"Protect"</span>
            </div>
            <div class="scroller" id="resource-scroller"
                on:scroll=move |ev| scroll_top.set(event_target::<leptos::web_sys::Element>(&ev).scroll_top() as f64)>
                <div style=spacer_top></div>
                <For each=visible key=|i| *i let:i>
                    {
                        let r = &rows[i];
                        let urn = r.urn.clone();
                        let href = resource_link(&stack_id, "", &r.urn);
                        let is_selected = move || selected.with(|s| s.as_deref() == Some(urn.as_str()));
                        view! {
                            <a class="row" role="row" href=href class:selected=is_selected class:pending-delete=r.pending_delete data-urn=r.urn.clone() data-index=i>
                                <span title=r.type_.clone()>{r.type_.clone()}</span>
                                <span class="name" title=r.name.clone()>{r.name.clone()}</span>
                                <span class="urn" title=r.urn.clone()>{r.urn.clone()}</span>
                                <span title=r.id.clone().unwrap_or_default()>{r.id.clone().unwrap_or_default()}</span>
                                <span title=r.provider.clone().unwrap_or_default()>{r.provider.as_deref().map(urn_name).unwrap_or("").to_string()}</span>
                                <span title=r.parent.clone().unwrap_or_default()>{r.parent.as_deref().map(urn_name).unwrap_or("").to_string()}</span>
                                <span>{if r.protect { "yes" } else { "" }}</span>
                            </a>
                        }
                    }
                </For>
                <div style=spacer_bottom></div>
            </div>
        </div>
    }
}
