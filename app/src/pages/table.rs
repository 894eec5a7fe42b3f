//! The resource table: virtualised (only the rows in view are in the DOM) and paged (only the
//! pages near the view are in the browser). The server filters and sorts; the page arrives
//! with the first rows, and the table fetches the pages the user scrolls to, so a
//! 100,000-resource stack loads and scrolls as ten resources do.

use ferry_types::ResourcePage;
use leptos::prelude::*;

use super::paged::{PagedRows, PAGE_ROWS};
use crate::format::{resource_link, urn_name};

/// Every row has this height (CSS `.row` says the same), so positions are arithmetic.
const ROW_HEIGHT: f64 = 30.0;
/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: usize = 10;
/// Rows a viewport shows at most (the scroller is at most this tall).
const VIEWPORT_ROWS: usize = 24;

/// The sortable columns, by the name the server sorts them by.
const SORTABLE: [(&str, &str); 4] =
    [("type", "Type"), ("name", "Name"), ("urn", "URN"), ("id", "ID")];

#[component]
pub(crate) fn ResourceTable(
    first: ResourcePage,
    stack_id: String,
    version: i64,
    selected: Memo<Option<String>>,
) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let sort = RwSignal::new(String::new());
    let scroll_top = RwSignal::new(0.0f64);
    let total = first.total;
    let rows = PagedRows::new(first.matched, Some(first.rows));
    let matched = rows.matched;
    let scroller = NodeRef::<leptos::html::Div>::new();

    let first_row =
        Memo::new(move |_| ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN));
    let shown = move || {
        let start = first_row.get().min(matched.get());
        start..(start + VIEWPORT_ROWS + 2 * OVERSCAN).min(matched.get())
    };

    // In the browser: fetch the pages the rows in view fall on.
    let id = stack_id.clone();
    Effect::new(move |_| {
        let range = shown();
        let _new_query = rows.generation();
        rows.fetch(range, |offset| {
            let (id, filter, sort) = (id.clone(), filter.get_untracked(), sort.get_untracked());
            async move {
                crate::server_fns::stack_rows(id, version, filter, sort, offset, PAGE_ROWS)
                    .await
                    .map(|p| (p.matched, p.rows))
                    .map_err(|e| super::error_text(&e))
            }
        });
    });

    // A new query: forget the pages and go back to the top; the effect fetches page 0.
    let requery = move || {
        rows.reset(matched.get_untracked(), None);
        scroll_top.set(0.0);
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(0);
        }
    };
    let sort_by = move |column: &'static str| {
        // Ascending, then descending, then state order.
        sort.update(|s| {
            *s = if s.as_str() == column {
                format!("-{column}")
            } else if s.strip_prefix('-') == Some(column) {
                String::new()
            } else {
                column.to_string()
            }
        });
        requery();
    };

    let visible = move || {
        let range = shown();
        rows.rows(range)
    };
    let spacer_top = move || format!("height:{}px", shown().start as f64 * ROW_HEIGHT);
    let spacer_bottom =
        move || format!("height:{}px", (matched.get() - shown().end) as f64 * ROW_HEIGHT);
    let header = move |(column, label): (&'static str, &'static str)| {
        let mark = move || match sort.get() {
            s if s == column => " ▲",
            s if s.strip_prefix('-') == Some(column) => " ▼",
            _ => "",
        };
        view! {
            <span role="columnheader"><button type="button" class="sort" data-sort=column on:click=move |_| sort_by(column)>{label}{mark}</button></span>
        }
    };

    view! {
        <div class="table-tools">
            <input type="search" id="resource-filter" placeholder="Filter by URN, type, name or ID" aria-label="Filter the resources"
                on:input=move |ev| { filter.set(event_target_value(&ev)); requery(); }/>
            <span class="count" id="resource-count">{move || format!("{} of {} resources", matched.get(), total)}</span>
            {move || rows.error.get().map(|e| view! { <span class="error" id="resource-error">{e}</span> })}
        </div>
        <div class="resource-table" role="table" aria-label="Resources">
            <div class="row head" role="row">
                {SORTABLE.into_iter().map(header).collect_view()}
                <span role="columnheader">"Provider"</span><span role="columnheader">"Parent"</span><span role="columnheader">"Protect"</span>
            </div>
            <div class="scroller" id="resource-scroller" node_ref=scroller
                on:scroll=move |ev| scroll_top.set(event_target::<leptos::web_sys::Element>(&ev).scroll_top() as f64)>
                <div style=spacer_top></div>
                <For each=visible key=|(i, row)| (*i, row.as_ref().map(|r| r.urn.clone())) let:((i, row))>
                    {match row {
                        None => view! { <div class="row loading" role="row" data-index=i><span role="cell">"…"</span></div> }.into_any(),
                        Some(r) => {
                            let urn = r.urn.clone();
                            let href = resource_link(&stack_id, "", &r.urn);
                            let is_selected = move || selected.with(|s| s.as_deref() == Some(urn.as_str()));
                            view! {
                                <a class="row" role="row" href=href class:selected=is_selected class:pending-delete=r.pending_delete data-urn=r.urn.clone() data-index=i>
                                    <span role="cell" title=r.type_.clone()>{r.type_.clone()}</span>
                                    <span role="cell" class="name" title=r.name.clone()>{r.name.clone()}</span>
                                    <span role="cell" class="urn" title=r.urn.clone()>{r.urn.clone()}</span>
                                    <span role="cell" title=r.id.clone().unwrap_or_default()>{r.id.clone().unwrap_or_default()}</span>
                                    <span role="cell" title=r.provider.clone().unwrap_or_default()>{r.provider.as_deref().map(urn_name).unwrap_or("").to_string()}</span>
                                    <span role="cell" title=r.parent.clone().unwrap_or_default()>{r.parent.as_deref().map(urn_name).unwrap_or("").to_string()}</span>
                                    <span role="cell">{if r.protect { "yes" } else { "" }}</span>
                                </a>
                            }.into_any()
                        }
                    }}
                </For>
                <div style=spacer_bottom></div>
            </div>
        </div>
    }
}
