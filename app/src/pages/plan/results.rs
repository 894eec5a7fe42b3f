//! A preview's results: a virtualised table (only the rows in view are in the DOM) with filters
//! by status, by type and by text. While a preview runs, its rows are the events as they
//! arrive; once stored, the server filters them and the table fetches the pages the user
//! scrolls to, so a 10,000-import plan's page holds a screenful, not every row.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use ferry_types::api::{Call, NoBody};
use ferry_types::{PreviewRef, ResultPage, ResultQuery, ResultRow, ResultStatus, StatusFilter};
use leptos::prelude::*;

use super::workspace::ViewedMarks;
use crate::pages::paged::{PagedRows, PAGE_ROWS};

/// Every row has this height (CSS `.results-table .row` says the same).
const ROW_HEIGHT: f64 = 30.0;
const OVERSCAN: usize = 10;
const VIEWPORT_ROWS: usize = 20;

/// A page of the stored preview's results: the rows with one of `statuses` (none: any), of
/// `type_`, whose name or URN holds `filter`.
pub(super) fn page_call(
    preview: &PreviewRef,
    statuses: &[ResultStatus],
    type_: &str,
    filter: &str,
    offset: usize,
    limit: usize,
) -> Call<NoBody, ResultPage> {
    preview.results(&ResultQuery {
        status: StatusFilter(statuses.to_vec()),
        type_: type_.to_string(),
        filter: filter.to_string(),
        offset,
        limit,
    })
}

/// A page of a stored preview's results, fetched by the browser (the server renders the first
/// page with the plan's page; it never fetches one).
pub(super) async fn fetch_page(call: Call<NoBody, ResultPage>) -> Result<ResultPage, String> {
    #[cfg(feature = "hydrate")]
    return crate::client::call(&call).await;
    #[cfg(not(feature = "hydrate"))]
    Err(format!("{call:?} is fetched in the browser"))
}

#[component]
pub(super) fn ResultsTable(
    live: Memo<Option<Arc<Vec<ResultRow>>>>,
    stored: RwSignal<Option<ResultPage>>,
    preview: RwSignal<Option<PreviewRef>>,
    selected: RwSignal<Option<String>>,
    /// Each resource's Terraform address by name (a migrated plan's): a column when there are any.
    origins: Arc<BTreeMap<String, String>>,
    /// The reviewer's viewed marks: a tick on each row, `v` on the selected one.
    marks: ViewedMarks,
    /// Open comments by resource URN.
    comments: Signal<HashMap<String, usize>>,
    /// Whether the review's keys (`j`, `k`, `v`) act: the review tab is open.
    keys: Signal<bool>,
) -> impl IntoView {
    let with_origins = !origins.is_empty();
    let status = RwSignal::new(None::<ResultStatus>);
    let type_ = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let scroll_top = RwSignal::new(0.0f64);
    let scroller = NodeRef::<leptos::html::Div>::new();

    // Live: the events so far, filtered here.
    let live_matches = Memo::new(move |_| {
        let (status, type_, needle) = (status.get(), type_.get(), text.get().to_lowercase());
        live.with(|rows| {
            rows.as_ref().map(|all| {
                all.iter()
                    .enumerate()
                    .filter(|(_, r)| {
                        status.is_none_or(|s| r.status == s)
                            && (type_.is_empty() || r.type_ == type_)
                            && (needle.is_empty()
                                || r.name.to_lowercase().contains(&needle)
                                || r.urn.to_lowercase().contains(&needle))
                    })
                    .map(|(i, _)| i)
                    .collect::<Vec<usize>>()
            })
        })
    });
    // Stored: the pages fetched under the current filters, and how many rows match them (the
    // page comes with the first, so the server renders it).
    let first_page = stored.get_untracked();
    let pages =
        PagedRows::new(first_page.as_ref().map_or(0, |p| p.matched), first_page.map(|p| p.rows));
    let filtered = move || {
        status.with_untracked(Option::is_some)
            || !type_.with_untracked(String::is_empty)
            || !text.with_untracked(String::is_empty)
    };

    let first =
        Memo::new(move |_| ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN));
    let matched = move || match live_matches.with(|m| m.as_ref().map(Vec::len)) {
        Some(n) => n,
        None => pages.matched.get(),
    };
    let all = move || match live.with(|r| r.as_ref().map(|r| r.len())) {
        Some(n) => n,
        None => stored.with(|s| s.as_ref().map_or(0, |s| s.total)),
    };
    let shown = move || {
        let start = first.get().min(matched());
        start..(start + VIEWPORT_ROWS + 2 * OVERSCAN).min(matched())
    };

    // A new stored preview or new filters: forget the pages (the unfiltered first page came
    // with the preview; anything else is fetched). New filters go back to the top; the stored
    // rows taking over from the live ones keep the place the user scrolled to.
    let requery = move |to_top: bool| {
        match stored.with_untracked(|s| s.clone()).filter(|_| !filtered()) {
            Some(p) => pages.reset(p.matched, Some(p.rows)),
            // Until the first answer, the scroller keeps its height.
            None => pages.reset(stored.with_untracked(|s| s.as_ref().map_or(0, |s| s.total)), None),
        }
        if to_top {
            scroll_top.set(0.0);
            if let Some(el) = scroller.get_untracked() {
                el.set_scroll_top(0);
            }
        }
    };
    Effect::new(move |_| {
        stored.track();
        requery(false);
    });

    // In the browser, for a stored preview: fetch the pages the rows in view fall on.
    Effect::new(move |_| {
        let range = shown();
        let _new_query = pages.generation();
        let Some(p) = preview.get() else { return };
        if live.with(Option::is_some) || stored.with(Option::is_none) {
            return;
        }
        pages.fetch(range, |offset| {
            let call = page_call(
                &p,
                status.get_untracked().as_slice(),
                &type_.get_untracked(),
                &text.get_untracked(),
                offset,
                PAGE_ROWS,
            );
            async move { fetch_page(call).await.map(|p| (p.matched, p.rows)) }
        });
    });

    let statuses = Memo::new(move |_| {
        match live.with(|r| r.as_ref().map(|r| r.iter().map(|r| r.status).collect::<BTreeSet<_>>()))
        {
            Some(s) => s,
            None => stored.with(|s| {
                s.as_ref().map(|s| s.by_status.keys().copied().collect()).unwrap_or_default()
            }),
        }
    });
    let types = Memo::new(move |_| {
        match live.with(|r| {
            r.as_ref().map(|r| r.iter().map(|r| r.type_.clone()).collect::<BTreeSet<_>>())
        }) {
            Some(t) => t,
            None => stored.with(|s| {
                s.as_ref().map(|s| s.types.iter().cloned().collect()).unwrap_or_default()
            }),
        }
    });
    let visible = move || {
        let range = shown();
        match live.get() {
            Some(all) => live_matches.with(|m| {
                let m = m.as_deref().unwrap_or_default();
                range
                    .filter_map(|i| m.get(i).map(|&at| (i, Some(all[at].clone()))))
                    .collect::<Vec<_>>()
            }),
            None => pages.rows(range),
        }
    };
    // The row the keys move from: the one last clicked or moved to, by its place in the rows
    // matching the filters. Moving scrolls it into view (which fetches its page), and once its
    // row is there it becomes the selected resource.
    let cursor = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        let Some(i) = cursor.get() else { return };
        let row = match live.get() {
            Some(all) => live_matches
                .with(|m| m.as_ref().and_then(|m| m.get(i)).map(|&at| all[at].urn.clone())),
            None => pages.rows(i..i + 1).pop().and_then(|(_, r)| r).map(|r| r.urn),
        };
        if let Some(urn) = row.filter(|u| selected.with_untracked(|s| s.as_ref() != Some(u))) {
            selected.set(Some(urn));
        }
    });
    let move_cursor = move |by: isize| {
        let last = matched().saturating_sub(1) as isize;
        if matched() == 0 {
            return;
        }
        let next = match cursor.get_untracked() {
            None => 0,
            Some(i) => (i as isize + by).clamp(0, last),
        } as usize;
        cursor.set(Some(next));
        if let Some(el) = scroller.get_untracked() {
            let (top, height) = (next as f64 * ROW_HEIGHT, el.client_height() as f64);
            let at = el.scroll_top() as f64;
            if top < at {
                el.set_scroll_top(top as i32);
            } else if top + ROW_HEIGHT > at + height {
                el.set_scroll_top((top + ROW_HEIGHT - height) as i32);
            }
        }
    };
    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            if !keys.get_untracked()
                || ev.ctrl_key()
                || ev.meta_key()
                || ev.alt_key()
                || typing(&ev)
            {
                return;
            }
            match ev.key().as_str() {
                "j" => move_cursor(1),
                "k" => move_cursor(-1),
                "v" => {
                    if let Some(urn) = selected.get_untracked().filter(|_| marks.enabled()) {
                        marks.toggle(urn);
                    }
                }
                "Escape" if selected.with_untracked(Option::is_some) => selected.set(None),
                _ => return,
            }
            ev.prevent_default();
        });
        on_cleanup(move || handle.remove());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (keys, move_cursor);
    let spacer_top = move || format!("height:{}px", shown().start as f64 * ROW_HEIGHT);
    let spacer_bottom =
        move || format!("height:{}px", (matched() - shown().end) as f64 * ROW_HEIGHT);
    let changed = move || {
        if live.with_untracked(Option::is_none) {
            requery(true);
        } else {
            scroll_top.set(0.0);
        }
    };
    view! {
        <div class="table-tools">
            <select id="results-status" aria-label="Status" on:change=move |ev| { status.set(ResultStatus::parse(&event_target_value(&ev))); changed(); }>
                <option value="">"All statuses"</option>
                {move || statuses.get().into_iter().map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> }).collect_view()}
            </select>
            <select id="results-type" aria-label="Type" on:change=move |ev| { type_.set(event_target_value(&ev)); changed(); }>
                <option value="">"All types"</option>
                {move || types.get().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
            </select>
            <input type="search" id="results-filter" placeholder="Filter by name or URN" aria-label="Filter by name or URN"
                on:input=move |ev| { text.set(event_target_value(&ev)); changed(); }/>
            <span class="count" id="results-count">{move || format!("{} of {} resources", matched(), all())}</span>
            {move || pages.error.get().map(|e| view! { <span class="error" id="results-error">{e}</span> })}
        </div>
        <div class="resource-table results-table" class:with-origins=with_origins id="plan-results" role="table" aria-label="Preview results">
            <div class="row head" role="row">
                <span class="viewed-head" role="columnheader"><span class="sr-only">"Viewed"</span></span>
                <span role="columnheader">"Status"</span><span role="columnheader">"Type"</span><span role="columnheader">"Name"</span>{with_origins.then(|| view! { <span role="columnheader">"Terraform address"</span> })}<span role="columnheader">"Warnings"</span>
            </div>
            // A short list needs no scroller height (the virtualisation keeps working: every row shows).
            <div class="scroller" id="results-scroller" node_ref=scroller class:short=move || matched() <= VIEWPORT_ROWS
                role="rowgroup" tabindex="0" aria-label="Resources (j and k move, v marks viewed)"
                on:scroll=move |ev| scroll_top.set(event_target::<leptos::web_sys::Element>(&ev).scroll_top() as f64)>
                <div style=spacer_top></div>
                // Keyed by what the row shows, not only its position: when the live rows give way to the
                // stored preview's (in another order), a row at the same index is another resource.
                <For each=visible key=|(i, r)| (*i, r.as_ref().map(|r| (r.urn.clone(), r.status, r.warnings.len(), r.differs.len()))) let:item>
                    {
                        let (index, row) = item;
                        match row {
                            None => view! { <div class="row loading" role="row" data-index=index><span role="cell">"…"</span></div> }.into_any(),
                            Some(r) => {
                                let urn = r.urn.clone();
                                let pick = urn.clone();
                                let (tick, ticked) = (urn.clone(), urn.clone());
                                let open_comments = { let urn = urn.clone(); move || comments.with(|c| c.get(&urn).copied().unwrap_or(0)) };
                                let is_selected = move || selected.with(|s| s.as_deref() == Some(urn.as_str()));
                                let note = r.warnings.first().cloned().unwrap_or_default();
                                let more = r.warnings.len().saturating_sub(1);
                                let differs = (!r.differs.is_empty()).then(|| format!("differs: {}", r.differs.join(", ")));
                                let shown = differs.clone().unwrap_or(note);
                                let origin = with_origins.then(|| {
                                    let address = origins.get(&r.name).cloned().unwrap_or_default();
                                    view! { <span role="cell" class="origin" title=address.clone()>{address.clone()}</span> }
                                });
                                view! {
                                    <div class=format!("row status-{}", r.status) role="row" data-urn=r.urn.clone() data-index=index
                                        class:selected=is_selected class:viewed=move || marks.is_viewed(&ticked)
                                        on:click=move |_| { cursor.set(Some(index)); selected.set(Some(pick.clone())); }>
                                        <span role="cell" class="viewed-cell">
                                            {move || marks.enabled().then(|| {
                                                let tick = tick.clone();
                                                let label = format!("Viewed {}", tick.rsplit("::").next().unwrap_or_default());
                                                let checked = { let tick = tick.clone(); move || marks.is_viewed(&tick) };
                                                view! {
                                                    <input type="checkbox" class="viewed-mark" aria-label=label prop:checked=checked
                                                        on:click=move |ev| ev.stop_propagation()
                                                        on:change=move |ev| marks.set(tick.clone(), event_target_checked(&ev))/>
                                                }
                                            })}
                                        </span>
                                        <span role="cell" class="status">{r.status.as_str()}</span>
                                        <span role="cell" title=r.type_.clone()>{r.type_.clone()}</span>
                                        <span role="cell" class="name" title=r.urn.clone()>{r.name.clone()}
                                            {move || Some(open_comments()).filter(|n| *n > 0).map(|n| view! {
                                                <span class="comment-count" title=format!("{n} open comment(s)")>{format!(" 💬{n}")}</span>
                                            })}
                                        </span>
                                        {origin}
                                        <span role="cell" class="note" title=shown.clone()>{shown.clone()}{(more > 0).then(|| format!(" (+{more})"))}</span>
                                    </div>
                                }.into_any()
                            }
                        }
                    }
                </For>
                <div style=spacer_bottom></div>
            </div>
        </div>
    }
}

/// Whether a key press goes to something the user types into (a field, an editor): the
/// review's keys leave those alone.
#[cfg(feature = "hydrate")]
fn typing(ev: &leptos::web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok()) else {
        return false;
    };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || el.closest(".monaco-editor, [contenteditable]").ok().flatten().is_some()
}
