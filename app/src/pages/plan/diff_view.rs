//! Monaco's diff editor over two texts, shared by a resource's review and the comparison of
//! revisions: plain text on the server and before hydration.

use leptos::prelude::*;

/// Monaco's diff editor over two texts (plain text on the server and before hydration).
#[component]
pub(super) fn DiffView(
    original: String,
    modified: String,
    #[prop(default = "review-diff")] id: &'static str,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    {
        let (original, modified) = (original.clone(), modified.clone());
        let editor = StoredValue::new_local(None::<wasm_bindgen::JsValue>);
        Effect::new(move |_| {
            if let Some(el) = host.get() {
                if editor.with_value(Option::is_none) {
                    editor.set_value(Some(crate::monaco_glue::create_diff(
                        &el, &original, &modified,
                    )));
                }
            }
        });
        on_cleanup(move || {
            if let Some(Some(e)) = editor.try_with_value(|e| e.clone()) {
                crate::monaco_glue::dispose(&e);
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (&original, &modified);
    view! { <div class="diff-host" id=id node_ref=host></div> }
}
