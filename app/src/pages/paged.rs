//! Rows the server hands out a page at a time: the pages held for the current query, which
//! ones were asked for, and a generation that drops answers to an older query. The stack's
//! resource table and a plan's results table page through the server this way; each says only
//! how to fetch a page.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::ops::Range;
use std::sync::Arc;

use leptos::prelude::*;

/// Rows fetched at a time; a page arrives with the first of them.
pub(crate) const PAGE_ROWS: usize = 100;

/// A page's answer: how many rows match the query, and the page's rows.
pub(crate) type Answer<T> = Result<(usize, Vec<T>), String>;

/// The pages known for one query at a time. `Copy`: its parts are signals.
pub(crate) struct PagedRows<T: Send + Sync + 'static> {
    pages: RwSignal<HashMap<usize, Arc<Vec<T>>>>,
    /// Pages asked for (or held) under the current query.
    requested: StoredValue<HashSet<usize>>,
    /// Bumped by each new query: answers to an older one are dropped.
    generation: RwSignal<u64>,
    /// Rows matching the current query (the scroller's height).
    pub matched: RwSignal<usize>,
    /// Why the last page failed to come (asked again on the next scroll).
    pub error: RwSignal<Option<String>>,
}

impl<T: Send + Sync + 'static> Clone for PagedRows<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for PagedRows<T> {}

impl<T: Clone + Send + Sync + 'static> PagedRows<T> {
    /// Rows for a query of which `matched` rows match, starting with its first page if known.
    pub(crate) fn new(matched: usize, first: Option<Vec<T>>) -> Self {
        let paged = PagedRows {
            pages: RwSignal::new(HashMap::new()),
            requested: StoredValue::new(HashSet::new()),
            generation: RwSignal::new(0),
            matched: RwSignal::new(matched),
            error: RwSignal::new(None),
        };
        paged.hold_first(matched, first);
        paged
    }

    /// A new query: its first page if known (otherwise the scroller keeps `matched` rows' height
    /// until the first answer), and every other page forgotten.
    pub(crate) fn reset(&self, matched: usize, first: Option<Vec<T>>) {
        self.generation.update(|g| *g += 1);
        self.error.set(None);
        self.hold_first(matched, first);
    }

    fn hold_first(&self, matched: usize, first: Option<Vec<T>>) {
        self.matched.set(matched);
        let held: HashMap<usize, Arc<Vec<T>>> =
            first.map(|rows| (0, Arc::new(rows))).into_iter().collect();
        self.requested.set_value(held.keys().copied().collect());
        self.pages.set(held);
    }

    /// The current query's generation (tracked: an effect reading it runs again on a new query).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// Asks for the pages that the rows `range` fall on and that were not asked for yet under
    /// this query; `fetch(offset)` fetches the page starting at `offset`. The answers land in
    /// the pages unless a new query came first.
    pub(crate) fn fetch<F, Fut>(&self, range: Range<usize>, fetch: F)
    where
        F: Fn(usize) -> Fut,
        Fut: Future<Output = Answer<T>> + 'static,
    {
        if range.is_empty() {
            return;
        }
        let this = *self;
        let asked_in = self.generation.get_untracked();
        for page in range.start / PAGE_ROWS..=(range.end - 1) / PAGE_ROWS {
            if !self.requested.try_update_value(|r| r.insert(page)).unwrap_or(false) {
                continue;
            }
            let answer = fetch(page * PAGE_ROWS);
            leptos::task::spawn_local(async move {
                let answer = answer.await;
                if this.generation.get_untracked() != asked_in {
                    return;
                }
                match answer {
                    Ok((matched, rows)) => {
                        this.matched.set(matched);
                        this.pages.update(|pages| {
                            pages.insert(page, Arc::new(rows));
                        });
                    }
                    Err(e) => {
                        this.requested.update_value(|r| {
                            r.remove(&page);
                        });
                        this.error.set(Some(e));
                    }
                }
            });
        }
    }

    /// The rows at `range`, each `None` until its page comes (tracked).
    pub(crate) fn rows(&self, range: Range<usize>) -> Vec<(usize, Option<T>)> {
        self.pages.with(|pages| {
            range
                .map(|i| {
                    (
                        i,
                        pages
                            .get(&(i / PAGE_ROWS))
                            .and_then(|rows| rows.get(i % PAGE_ROWS))
                            .cloned(),
                    )
                })
                .collect()
        })
    }
}
