//! The plan's source editor: Monaco with the import file's JSON schema (or YAML for programs),
//! completion from the providers' schemas and the stack, and the server's problems underlined
//! as the user types (checked a moment after typing stops). A screenful of the text is also
//! rendered as plain text on the server, for the page before it hydrates and without JavaScript.

use ferry_types::EditorMarker;
use leptos::prelude::*;

/// Which language an editor holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SourceKind {
    Spec,
    Program,
}

impl SourceKind {
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(super) fn api(self) -> &'static str {
        match self {
            SourceKind::Spec => "spec",
            SourceKind::Program => "program",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            SourceKind::Spec => "import spec",
            SourceKind::Program => "program",
        }
    }
}

/// How much of the text is rendered before the editor mounts: more than a screen holds.
const SHOWN_LINES: usize = 120;
const SHOWN_BYTES: usize = 16 * 1024;

/// How long typing must pause before the server checks the text.
#[cfg(feature = "hydrate")]
const CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(350);

#[component]
pub(super) fn SourceEditor(
    kind: SourceKind,
    initial: String,
    /// The text as it is now (updated on every change).
    text: RwSignal<String>,
    /// The server's problems with the current text.
    markers: RwSignal<Vec<EditorMarker>>,
    stack_id: String,
    read_only: bool,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let mounted = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let initial = initial.clone();
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            let Some(el) = host.get() else { return false };
            mount(&el, kind, &initial, text, markers, &stack_id, read_only);
            mounted.set(true);
            true
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (&stack_id, read_only, markers, text);
    let id = match kind {
        SourceKind::Spec => "spec-editor",
        SourceKind::Program => "program-editor",
    };
    // Before the editor mounts (and without JavaScript) the page shows a screenful of the text:
    // the whole of it is in the data the page hydrates from, and sending a 10,000-entry spec a
    // second time would double the page.
    let (shown, rest) = crate::format::screenful(&initial, SHOWN_LINES, SHOWN_BYTES);
    let more = crate::format::left_out(shown, rest).map(|more| format!("… {more}: the editor shows the whole {}", kind.noun()));
    view! {
        <div class="editor-host" id=id node_ref=host data-mounted=move || mounted.get().to_string()></div>
        <pre id=format!("{id}-text") class="source" class:hidden=move || mounted.get()>{shown.to_string()}</pre>
        {more.map(|more| view! { <p class="source-more" class:hidden=move || mounted.get()>{more}</p> })}
    }
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
    // Completion data, once per page.
    {
        let stack_id = stack_id.to_string();
        leptos::task::spawn_local(async move {
            if let Ok(help) = crate::browser::get_json::<ferry_types::EditorHelp>(&format!("/api/v1/stacks/{stack_id}/editor-help")).await {
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
                let url = format!("/api/v1/markers?kind={}", kind.api());
                let content_type = if kind == SourceKind::Spec { "application/json" } else { "application/yaml" };
                if let Ok(found) = crate::browser::send::<Vec<EditorMarker>>(&url, content_type, &value).await {
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
