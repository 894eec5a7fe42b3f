//! The plan's source editor: Monaco with the import file's JSON schema (or YAML for programs),
//! completion from the providers' schemas and the stack, and the server's problems underlined
//! as the user types (checked a moment after typing stops). The page carries a screenful of the
//! text, rendered as plain text for the page before it hydrates and without JavaScript; the
//! editor fetches the whole when it mounts, so a 10,000-entry spec is not in the page's HTML.

use ferry_types::api::{Call, NoBody};
use ferry_types::plans::PlanView;
use ferry_types::{EditorMarker, SourceHead};
use leptos::prelude::*;

pub(super) use ferry_types::SourceKind;

/// How long typing must pause before the server checks the text.
#[cfg(feature = "hydrate")]
const CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(350);

#[component]
pub(super) fn SourceEditor(
    kind: SourceKind,
    head: SourceHead,
    /// The API's view of the revision (its `current.spec` or `current.program`): where the
    /// whole text comes from when the head is not all of it.
    revision: Call<NoBody, PlanView>,
    /// The text as it is now (updated on every change).
    text: RwSignal<String>,
    /// The revision's whole text, once the page has it (what an edit is compared with).
    saved: RwSignal<Option<String>>,
    /// The server's problems with the current text.
    markers: RwSignal<Vec<EditorMarker>>,
    stack_id: String,
    read_only: bool,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let mounted = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    {
        let whole = head.whole().map(str::to_string);
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            let Some(el) = host.get() else { return false };
            let (revision, stack_id) = (revision.clone(), stack_id.clone());
            let whole = whole.clone();
            leptos::task::spawn_local(async move {
                let loaded = match whole {
                    Some(t) => Ok(t),
                    None => whole_text(&revision, kind).await,
                };
                match loaded {
                    Ok(t) => {
                        saved.set(Some(t.clone()));
                        text.set(t.clone());
                        mount(&el, kind, &t, text, markers, &stack_id, read_only);
                        mounted.set(true);
                    }
                    Err(e) => problem
                        .set(Some(format!("The whole {} could not be loaded: {e}", kind.noun()))),
                }
            });
            true
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (&stack_id, &revision, read_only, markers, text, saved);
    let id = match kind {
        SourceKind::Spec => "spec-editor",
        SourceKind::Program => "program-editor",
    };
    let more =
        head.more.map(|more| format!("… {more}: the editor shows the whole {}", kind.noun()));
    view! {
        <div class="editor-host" id=id node_ref=host data-mounted=move || mounted.get().to_string()></div>
        // Until the editor mounts, its text stands in the editor's place at the editor's height:
        // the page below (a plan's results table) does not move when the editor arrives, so a
        // user already scrolling the results does not find the editor under the pointer.
        <div class="editor-placeholder" class:hidden=move || mounted.get()>
            <pre id=format!("{id}-text") class="source">{head.head}</pre>
            {more.map(|more| view! { <p class="source-more">{more}</p> })}
        </div>
        {move || problem.get().map(|p| view! { <p class="error" id=format!("{id}-problem")>{p}</p> })}
    }
}

/// The revision's whole source, from the API's view of it.
#[cfg(feature = "hydrate")]
async fn whole_text(revision: &Call<NoBody, PlanView>, kind: SourceKind) -> Result<String, String> {
    let current = crate::client::call(revision).await?.current;
    match kind {
        SourceKind::Spec => current.spec,
        SourceKind::Program => current.program,
    }
    .ok_or_else(|| format!("the revision holds no {}", kind.noun()))
}

#[cfg(feature = "hydrate")]
fn mount(
    el: &leptos::web_sys::HtmlDivElement,
    kind: SourceKind,
    initial: &str,
    text: RwSignal<String>,
    markers: RwSignal<Vec<EditorMarker>>,
    stack_id: &str,
    read_only: bool,
) {
    use std::cell::Cell;
    use std::rc::Rc;

    use crate::monaco_glue;

    let (language, uri) = match kind {
        SourceKind::Spec => ("json", "inmemory://ferry/import-spec.json"),
        SourceKind::Program => ("yaml", "inmemory://ferry/Pulumi.yaml"),
    };
    let editor = monaco_glue::create_editor(el, initial, language, uri, read_only);
    // A read-only editor shows a saved revision (checked when it was saved) to someone who may
    // not change it — perhaps through a link, with no account to ask the server's checks as:
    // no completion, no checking.
    if read_only {
        return;
    }
    // Completion data, once per page.
    {
        let stack_id = stack_id.to_string();
        leptos::task::spawn_local(async move {
            if let Ok(help) =
                crate::client::call(&ferry_types::api::EDITOR_HELP.at(&[&stack_id])).await
            {
                match kind {
                    SourceKind::Spec => monaco_glue::set_json_schema(uri, &help),
                    SourceKind::Program => monaco_glue::register_yaml_completion(&help),
                }
            }
        });
    }
    // Check the text with the server after each pause in typing; only the latest answer counts.
    let generation = Rc::new(Cell::new(0u64));
    let check = {
        let editor = editor.clone();
        move |value: String, at: u64, generation: Rc<Cell<u64>>| {
            let editor = editor.clone();
            leptos::task::spawn_local(async move {
                let call = ferry_types::api::MARKERS
                    .at_with(&[], &ferry_types::api::MarkersQuery { kind });
                let content_type =
                    if kind == SourceKind::Spec { "application/json" } else { "application/yaml" };
                if let Ok(found) = crate::client::send_text(&call, content_type, &value).await {
                    if generation.get() == at {
                        monaco_glue::set_markers(&editor, &found);
                        markers.set(found);
                    }
                }
            });
        }
    };
    check(initial.to_string(), 0, generation.clone());
    let check = Rc::new(check);
    monaco_glue::on_change(&editor, move |value| {
        text.set(value.clone());
        let at = generation.get() + 1;
        generation.set(at);
        let (check, generation) = (check.clone(), generation.clone());
        set_timeout(
            move || {
                if generation.get() == at {
                    check(value, at, generation);
                }
            },
            CHECK_DELAY,
        );
    });
}
