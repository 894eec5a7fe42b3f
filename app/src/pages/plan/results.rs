//! A preview's results: a virtualised table (only the rows in view are in the DOM, so 10,000
//! resources stay fluid) with filters by status, by type and by text.

use std::collections::BTreeSet;
use std::sync::Arc;

use ferry_types::ReviewRow;
use leptos::prelude::*;

/// Every row has this height (CSS `.results-table .row` says the same).
const ROW_HEIGHT: f64 = 30.0;
const OVERSCAN: usize = 10;
const VIEWPORT_ROWS: usize = 20;

#[component]
pub(super) fn ResultsTable(rows: Signal<Arc<Vec<ReviewRow>>>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let type_ = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let scroll_top = RwSignal::new(0.0f64);
    let statuses = Memo::new(move |_| rows.with(|r| r.iter().map(|r| r.status.clone()).collect::<BTreeSet<_>>()));
    let types = Memo::new(move |_| rows.with(|r| r.iter().map(|r| r.type_.clone()).collect::<BTreeSet<_>>()));
    let matches = Memo::new(move |_| {
        let (status, type_, needle) = (status.get(), type_.get(), text.get().to_lowercase());
        rows.with(|all| {
            all.iter()
                .enumerate()
                .filter(|(_, r)| {
                    (status.is_empty() || r.status == status)
                        && (type_.is_empty() || r.type_ == type_)
                        && (needle.is_empty() || r.name.to_lowercase().contains(&needle) || r.urn.to_lowercase().contains(&needle))
                })
                .map(|(i, _)| i)
                .collect::<Vec<usize>>()
        })
    });
    let first = Memo::new(move |_| ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN));
    let total = move || matches.with(Vec::len);
    let visible = move || {
        let all = rows.get();
        matches.with(|m| {
            let start = first.get().min(m.len());
            let end = (start + VIEWPORT_ROWS + 2 * OVERSCAN).min(m.len());
            m[start..end].iter().map(|&i| (i, all[i].clone())).collect::<Vec<_>>()
        })
    };
    let spacer_top = move || format!("height:{}px", first.get().min(total()) as f64 * ROW_HEIGHT);
    let spacer_bottom = move || {
        let shown_end = (first.get() + VIEWPORT_ROWS + 2 * OVERSCAN).min(total());
        format!("height:{}px", (total() - shown_end) as f64 * ROW_HEIGHT)
    };
    let reset = move || scroll_top.set(0.0);
    view! {
        <div class="table-tools">
            <select id="results-status" on:change=move |ev| { status.set(event_target_value(&ev)); reset(); }>
                <option value="">"All statuses"</option>
                {move || statuses.get().into_iter().map(|s| view! { <option value=s.clone()>{s.clone()}</option> }).collect_view()}
            </select>
            <select id="results-type" on:change=move |ev| { type_.set(event_target_value(&ev)); reset(); }>
                <option value="">"All types"</option>
                {move || types.get().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
            </select>
            <input type="search" id="results-filter" placeholder="Filter by name or URN"
                on:input=move |ev| { text.set(event_target_value(&ev)); reset(); }/>
            <span class="count" id="results-count">{move || format!("{} of {} resources", total(), rows.with(|r| r.len()))}</span>
        </div>
        <div class="resource-table results-table" id="plan-results" role="table" aria-label="Preview results">
            <div class="row head" role="row">
                <span>"Status"</span><span>"Type"</span><span>"Name"</span><span>"Warnings"</span>
            </div>
            // A short list needs no scroller height (the virtualisation keeps working: every row shows).
            <div class="scroller" id="results-scroller" class:short=move || total() <= VIEWPORT_ROWS
                on:scroll=move |ev| scroll_top.set(event_target::<leptos::web_sys::Element>(&ev).scroll_top() as f64)>
                <div style=spacer_top></div>
                // Keyed by what the row shows, not only its position: when the live rows give way to the
                // stored preview's (in another order), a row at the same index is another resource.
                <For each=visible key=|(i, r)| (*i, r.urn.clone(), r.status.clone(), r.warnings.len(), r.differs.len()) let:item>
                    {
                        let (index, r) = item;
                        let urn = r.urn.clone();
                        let pick = urn.clone();
                        let is_selected = move || selected.with(|s| s.as_deref() == Some(urn.as_str()));
                        let note = r.warnings.first().cloned().unwrap_or_default();
                        let more = r.warnings.len().saturating_sub(1);
                        let differs = (!r.differs.is_empty()).then(|| format!("differs: {}", r.differs.join(", ")));
                        let shown = differs.clone().unwrap_or(note);
                        view! {
                            <div class=format!("row status-{}", r.status) role="row" data-urn=r.urn.clone() data-index=index
                                class:selected=is_selected on:click=move |_| selected.set(Some(pick.clone()))>
                                <span class="status">{r.status.clone()}</span>
                                <span title=r.type_.clone()>{r.type_.clone()}</span>
                                <span class="name" title=r.urn.clone()>{r.name.clone()}</span>
                                <span class="note" title=shown.clone()>{shown.clone()}{(more > 0).then(|| format!(" (+{more})"))}</span>
                            </div>
                        }
                    }
                </For>
                <div style=spacer_bottom></div>
            </div>
        </div>
    }
}
