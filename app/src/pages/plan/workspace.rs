//! The plan page as a workspace: tabs for its parts (the review's two panes, the source, the
//! code, the graph, the activity), and each reviewer's viewed marks — the resources they have
//! looked at, counted as "12 of 40 viewed" and reset by the server when a resource's result
//! changes.

use ferry_types::plans::ViewedResources;
use ferry_types::PreviewRef;
use leptos::prelude::*;

/// The plan page's tabs, in the order the tab bar shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PlanTab {
    Review,
    Source,
    Code,
    Identify,
    Graph,
    Activity,
}

impl PlanTab {
    // The address's fragment is the browser's alone: the server never reads a tab from it.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    const ALL: [PlanTab; 6] = [
        PlanTab::Review,
        PlanTab::Source,
        PlanTab::Code,
        PlanTab::Identify,
        PlanTab::Graph,
        PlanTab::Activity,
    ];

    fn label(self) -> &'static str {
        match self {
            PlanTab::Review => "Review",
            PlanTab::Source => "Source",
            PlanTab::Code => "Code",
            PlanTab::Identify => "Identify",
            PlanTab::Graph => "Graph",
            PlanTab::Activity => "Activity",
        }
    }

    /// The name in element IDs (`tab-review`, `panel-review`) and in the address's fragment.
    fn key(self) -> &'static str {
        match self {
            PlanTab::Review => "review",
            PlanTab::Source => "source",
            PlanTab::Code => "code",
            PlanTab::Identify => "identify",
            PlanTab::Graph => "graph",
            PlanTab::Activity => "activity",
        }
    }

    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn from_key(key: &str) -> Option<PlanTab> {
        PlanTab::ALL.into_iter().find(|t| t.key() == key)
    }
}

/// The tab bar (WAI-ARIA tabs: the arrow keys move between tabs, the open one is the one in the
/// tab order). `shown` says which tabs this page has (a spec has code, a program does not). The
/// open tab follows the address's fragment (`#graph`), so a link can open one.
#[component]
pub(super) fn TabBar(tab: RwSignal<PlanTab>, shown: Vec<PlanTab>) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        let from_hash = move || {
            let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
            if let Some(t) = PlanTab::from_key(hash.trim_start_matches('#')) {
                tab.set(t);
            }
        };
        Effect::new(move |_| from_hash());
        let handle = window_event_listener(leptos::ev::hashchange, move |_| from_hash());
        on_cleanup(move || handle.remove());
    }
    let tabs = StoredValue::new(shown.clone());
    let step = move |by: isize| {
        let tabs = tabs.get_value();
        let at = tabs.iter().position(|t| *t == tab.get_untracked()).unwrap_or(0) as isize;
        let next = tabs[(at + by).rem_euclid(tabs.len() as isize) as usize];
        open(tab, next, true);
    };
    view! {
        <div class="tabs plan-tabs" role="tablist" id="plan-tabs" aria-label="The plan's parts">
            {shown.into_iter().map(|t| view! {
                <button role="tab" class="tab" id=format!("tab-{}", t.key()) class:active=move || tab.get() == t
                    aria-selected=move || (tab.get() == t).to_string() aria-controls=format!("panel-{}", t.key())
                    tabindex=move || if tab.get() == t { "0" } else { "-1" }
                    on:click=move |_| open(tab, t, false)
                    on:keydown=move |ev| match ev.key().as_str() {
                        "ArrowRight" => { ev.prevent_default(); step(1) }
                        "ArrowLeft" => { ev.prevent_default(); step(-1) }
                        _ => {}
                    }>{t.label()}</button>
            }).collect_view()}
        </div>
    }
}

/// Opens `t`, naming it in the address (without a new history entry per tab); `focus` moves
/// the keyboard's focus to its tab (arrow keys).
fn open(tab: RwSignal<PlanTab>, t: PlanTab, focus: bool) {
    tab.set(t);
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        use wasm_bindgen::JsCast;
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(
                &wasm_bindgen::JsValue::NULL,
                "",
                Some(&format!("#{}", t.key())),
            );
        }
        if focus {
            if let Some(el) =
                window.document().and_then(|d| d.get_element_by_id(&format!("tab-{}", t.key())))
            {
                let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
            }
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = focus;
}

/// One tab's panel: always in the page (an editor keeps its text, a drawn graph its layout),
/// hidden while another tab is open.
#[component]
pub(super) fn TabPanel(tab: RwSignal<PlanTab>, of: PlanTab, children: Children) -> impl IntoView {
    view! {
        <div role="tabpanel" class="tab-panel" id=format!("panel-{}", of.key()) aria-labelledby=format!("tab-{}", of.key()) hidden=move || tab.get() != of>
            {children()}
        </div>
    }
}

/// The caller's viewed marks on the preview the page shows (a signed-in reviewer's, on an owner's
/// preview; a read-only link has none).
#[derive(Clone, Copy)]
pub(crate) struct ViewedMarks {
    pub(crate) state: RwSignal<Option<ViewedResources>>,
    preview: RwSignal<Option<PreviewRef>>,
    pub(crate) problem: RwSignal<Option<String>>,
}

impl ViewedMarks {
    /// Follows `preview`: each new stored preview's marks are fetched (when `enabled`).
    pub(super) fn follow(preview: RwSignal<Option<PreviewRef>>, enabled: bool) -> ViewedMarks {
        let marks =
            ViewedMarks { state: RwSignal::new(None), preview, problem: RwSignal::new(None) };
        Effect::new(move |_| {
            let Some(PreviewRef::Owner { preview: _id }) = preview.get().filter(|_| enabled) else {
                marks.state.set(None);
                return;
            };
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&ferry_types::api::VIEWED.at(&[&_id])).await {
                    Ok(v) => marks.state.set(Some(v)),
                    Err(e) => marks.problem.set(Some(e)),
                }
            });
        });
        marks
    }

    /// Whether the page keeps marks at all.
    pub(crate) fn enabled(&self) -> bool {
        self.state.with(Option::is_some)
    }

    /// Whether `urn` is viewed (tracked).
    pub(crate) fn is_viewed(&self, urn: &str) -> bool {
        self.state.with(|s| {
            s.as_ref().is_some_and(|s| s.viewed.binary_search_by(|v| v.as_str().cmp(urn)).is_ok())
        })
    }

    /// Marks `urn` viewed, or takes the mark off; the server answers the marks as they are then.
    pub(crate) fn set(&self, urn: String, viewed: bool) {
        let Some(PreviewRef::Owner { preview: _id }) = self.preview.get_untracked() else { return };
        // Shown at once; the server's answer follows.
        let this = *self;
        this.state.update(|s| {
            if let Some(s) = s {
                match s.viewed.binary_search(&urn) {
                    Ok(at) if !viewed => {
                        s.viewed.remove(at);
                    }
                    Err(at) if viewed => s.viewed.insert(at, urn.clone()),
                    _ => {}
                }
            }
        });
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let body = ferry_types::plans::ViewedMarkInput { urn, viewed };
            // The answer is a count (the page already shows the mark): a different count means
            // marks changed elsewhere (another tab), so the list is read again.
            match crate::client::send(&ferry_types::api::MARK_VIEWED.at(&[&_id]), &body).await {
                Ok(answer) => {
                    this.problem.set(None);
                    if this.state.with_untracked(|s| s.as_ref().map(|s| s.viewed.len()))
                        == Some(answer.count)
                    {
                        return;
                    }
                    if let Ok(v) = crate::client::call(&ferry_types::api::VIEWED.at(&[&_id])).await
                    {
                        this.state.set(Some(v));
                    }
                }
                Err(e) => this.problem.set(Some(e)),
            }
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = (urn, viewed);
    }

    /// The `v` key's action (keys are the browser's alone).
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(crate) fn toggle(&self, urn: String) {
        let viewed = self.is_viewed(&urn);
        self.set(urn, !viewed);
    }
}

/// "12 of 40 viewed", with a bar.
#[component]
pub(super) fn ViewedProgress(marks: ViewedMarks) -> impl IntoView {
    move || {
        marks.state.get().map(|s| {
            let text = format!("{} of {} viewed", s.viewed.len(), s.total);
            view! {
                <div class="viewed-progress">
                    <progress max=s.total.max(1).to_string() value=s.viewed.len().to_string() aria-label="Resources viewed"></progress>
                    <span id="viewed-progress">{text}</span>
                    {move || marks.problem.get().map(|p| view! { <span class="error" role="alert" id="viewed-error">{p}</span> })}
                </div>
            }
        })
    }
}
