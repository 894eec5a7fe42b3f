//! Generated code for a preview's importable resources: a tab per language showing the code,
//! a copy button, and downloads of the file or the runnable project zip.

use std::collections::BTreeMap;

use ferry_types::previews::CodeQuery;
use ferry_types::{PreviewRef, ResultPage, ResultStatus};
use leptos::prelude::*;

pub(super) const LANGUAGES: [(&str, &str); 5] =
    [("ts", "TypeScript"), ("python", "Python"), ("go", "Go"), ("csharp", "C#"), ("yaml", "YAML")];

#[component]
pub(super) fn CodeTabs(
    preview: PreviewRef,
    style: String,
    elide: bool,
    results: RwSignal<Option<ResultPage>>,
) -> impl IntoView {
    // With nothing ready there is no code to ask for: say why instead.
    let blocked =
        Memo::new(move |_| results.with(|r| r.as_ref().and_then(|r| nothing_ready(&r.by_status))));
    // The plan's options choose the code's style and elision.
    let query = move |lang: &str, zip: bool| CodeQuery {
        lang: Some(lang.to_string()),
        format: zip.then(|| "zip".to_string()),
        style: Some(style.clone()),
        elide: Some(elide),
        ..CodeQuery::default()
    };
    let lang = RwSignal::new("ts");
    let code = RwSignal::new(None::<Result<String, String>>);
    let copied = RwSignal::new(false);
    let host = NodeRef::<leptos::html::Section>::new();
    #[cfg(feature = "hydrate")]
    {
        let (preview, query) = (preview.clone(), query.clone());
        let seen = RwSignal::new(false);
        Effect::new(move |_| {
            if let Some(el) = host.get() {
                crate::browser::when_visible(&el, move || seen.set(true));
            }
        });
        // Generated once the card is in view, and again for each language chosen.
        Effect::new(move |_| {
            if !seen.get() || blocked.get().is_some() {
                return;
            }
            let call = preview.code(&query(lang.get(), false));
            code.set(None);
            copied.set(false);
            leptos::task::spawn_local(async move {
                code.set(Some(crate::client::text(&call).await));
            });
        });
    }
    let copy = move |_| {
        if let Some(Ok(_text)) = code.get_untracked() {
            #[cfg(feature = "hydrate")]
            crate::browser::copy_text(&_text);
            copied.set(true);
        }
    };
    // The file, or the runnable project as a zip, to save.
    let href = move |l: &str, zip: bool| preview.code(&query(l, zip)).url;
    view! {
        <section class="card" id="plan-code" node_ref=host>
            <h2>"Code"</h2>
            <p class="meta">"For the resources this preview can import; secrets are read from stack config, never written."</p>
            <nav class="tabs code-tabs">
                {LANGUAGES.into_iter().map(|(l, label)| view! {
                    <button class="tab" class:active=move || lang.get() == l data-lang-tab=l on:click=move |_| lang.set(l)>{label}</button>
                }).collect_view()}
            </nav>
            <div class="actions">
                <button id="code-copy" class="secondary" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
                {move || {
                    let l = lang.get();
                    let label = LANGUAGES.iter().find(|(k, _)| *k == l).map(|(_, v)| *v).unwrap_or("");
                    view! {
                        <a class="download" id="code-download" data-lang=l href=href(l, false) download>{format!("Download {label}")}</a>
                        <a class="download zip" id="code-download-zip" href=href(l, true) download>{format!("{label} project (.zip)")}</a>
                    }
                }}
            </div>
            <pre id="code-view" class="source code">{move || match (blocked.get(), code.get()) {
                (Some(why), _) => format!("No code: {why}."),
                (None, None) => "Generating…".to_string(),
                (None, Some(Ok(text))) => text,
                (None, Some(Err(e))) => format!("No code: {e}"),
            }}</pre>
        </section>
    }
}

/// Why there is no code when no row of a finished preview is ready to import ("no resource is
/// ready to import: 4 failed"); `None` while rows are still coming or when some are ready.
pub(super) fn nothing_ready(by_status: &BTreeMap<ResultStatus, usize>) -> Option<String> {
    let ready = |s: &ResultStatus| matches!(s, ResultStatus::Import(i) if i.is_ready());
    if by_status.is_empty() || by_status.keys().any(ready) {
        return None;
    }
    Some(format!("no resource is ready to import: {}", status_counts(by_status)))
}

/// `4 failed, 1 not-found`: the rows by status.
pub(super) fn status_counts(by_status: &BTreeMap<ResultStatus, usize>) -> String {
    by_status.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
}
