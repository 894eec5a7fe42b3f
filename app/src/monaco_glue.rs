//! Monaco in the browser, through the `monaco` crate: the spec and program editors with the
//! server's problems as markers, completion from the providers' schemas and the stack, and the
//! diff editor of a resource's inputs.
//!
//! Monaco's language workers are served as files (`/pkg/monaco/*.worker.js`, see
//! `scripts/build.sh`) instead of being embedded in the wasm; the shell sets
//! `MonacoEnvironment` to find them and to expose the `monaco` global, which this module uses
//! only for what the crate does not bind (the JSON language's schema settings).

use ferry_types::{EditorHelp, EditorMarker};
use js_sys::{Array, Function, Object, Reflect};
use monaco::api::{CodeEditor, TextModel};
use monaco::sys::editor::{IDiffEditorConstructionOptions, IStandaloneEditorConstructionOptions};

/// A code editor (a handle: clones share the one editor, which lives as long as the page).
#[derive(Clone)]
pub struct Editor(JsValue);

impl Editor {
    fn sys(&self) -> &monaco::sys::editor::IStandaloneCodeEditor {
        self.0.unchecked_ref()
    }
}
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

/// A plain JS object from JSON.
fn js(value: &serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(target, method).dyn_into()?;
    f.apply(target, &args.iter().collect::<Array>())
}

/// An editor for `text` in `language` (`json` or `yaml`) whose model has `uri`, so the JSON
/// schema can be matched to it.
pub fn create_editor(
    host: &HtmlElement,
    text: &str,
    language: &str,
    uri: &str,
    read_only: bool,
) -> Editor {
    let uri = monaco::sys::Uri::parse(uri, false);
    // A model left at this URI by an earlier editor on the page gets the text anew.
    let model = match TextModel::get(&uri) {
        Some(model) => {
            model.set_value(text);
            model
        }
        None => TextModel::create(text, Some(language), Some(&uri)).expect("a model"),
    };
    let options: IStandaloneEditorConstructionOptions = js(&serde_json::json!({
        "automaticLayout": true,
        "minimap": {"enabled": false},
        "readOnly": read_only,
        "scrollBeyondLastLine": false,
        "tabSize": 2,
        "fontSize": 13,
        "fixedOverflowWidgets": true,
    }))
    .unchecked_into();
    options.set_model(Some(model.as_ref()));
    let editor = CodeEditor::create(host, Some(options));
    let sys: &JsValue = editor.as_ref().as_ref();
    let handle = Editor(sys.clone());
    // Dropping the crate's wrapper would dispose of the editor; the page keeps it.
    std::mem::forget(editor);
    handle
}

/// Calls `f` with the editor's text after every change.
pub fn on_change(editor: &Editor, f: impl Fn(String) + 'static) {
    let Some(model) = editor.sys().get_model() else { return };
    let listener = Closure::<dyn Fn(JsValue)>::new(move |_| f(model.get_value(None, None)));
    let _ = editor.sys().on_did_change_model_content(listener.as_ref().unchecked_ref());
    // Lives as long as the editor (the page).
    listener.forget();
}

/// Shows `markers` in the editor's model (replacing the previous ones).
pub fn set_markers(editor: &Editor, markers: &[EditorMarker]) {
    let Some(model) = editor.sys().get_model() else { return };
    let list: Array = markers
        .iter()
        .map(|m| {
            js(&serde_json::json!({
                // Monaco's MarkerSeverity: Error = 8, Warning = 4.
                "severity": if m.severity == "error" { 8 } else { 4 },
                "message": m.message,
                "source": if m.path.is_empty() { "Ferry".to_string() } else { format!("Ferry · {}", m.path) },
                "startLineNumber": m.line,
                "startColumn": m.column,
                "endLineNumber": m.end_line,
                "endColumn": m.end_column,
            }))
        })
        .collect();
    monaco::sys::editor::set_model_markers(&model, "ferry", &list);
}

fn monaco_global() -> Option<JsValue> {
    let window = web_sys::window()?;
    let m = get(&window, "monaco");
    (!m.is_undefined()).then_some(m)
}

/// Gives the JSON editor at `uri` the import file's schema, for completion of type tokens, their
/// inputs, and stack names.
pub fn set_json_schema(uri: &str, help: &EditorHelp) {
    let Some(monaco) = monaco_global() else { return };
    let defaults = get(&get(&get(&monaco, "languages"), "json"), "jsonDefaults");
    let options = js(&serde_json::json!({
        // The server's markers are the one judge of a spec (what a save and a preview use);
        // Monaco's own schema validation would say the same things twice, or differently.
        "validate": false,
        "allowComments": true,
        "trailingCommas": "ignore",
        "enableSchemaRequest": false,
        "schemas": [{"uri": "https://ferry.invalid/import-file.schema.json", "fileMatch": [uri], "schema": help.json_schema}],
    }));
    let _ = call(&defaults, "setDiagnosticsOptions", &[options]);
}

/// Completion for YAML programs: type tokens (with each type's inputs after `properties:`)
/// and the stack's resource names.
pub fn register_yaml_completion(help: &EditorHelp) {
    let mut words: Vec<(String, &str, u32)> = Vec::new();
    // CompletionItemKind: Class = 5, Reference = 17, Property = 9.
    for t in &help.types {
        words.push((t.token.clone(), "type token", 5));
        for input in &t.inputs {
            words.push((input.clone(), "input", 9));
        }
    }
    for n in &help.names {
        words.push((
            n.name.clone(),
            if n.provider { "provider in the stack" } else { "resource in the stack" },
            17,
        ));
    }
    words.sort();
    words.dedup();
    let items = serde_json::Value::Array(
        words.iter().map(|(w, detail, kind)| serde_json::json!({"label": w, "insertText": w, "detail": detail, "kind": kind})).collect(),
    );
    let provide = Closure::<dyn Fn(JsValue, JsValue) -> JsValue>::new(
        move |model: JsValue, position: JsValue| {
            let word = call(&model, "getWordUntilPosition", std::slice::from_ref(&position))
                .unwrap_or(JsValue::UNDEFINED);
            let line = get(&position, "lineNumber");
            let range = js(&serde_json::json!({
                "startLineNumber": line.as_f64().unwrap_or(1.0),
                "endLineNumber": line.as_f64().unwrap_or(1.0),
                "startColumn": get(&word, "startColumn").as_f64().unwrap_or(1.0),
                "endColumn": get(&word, "endColumn").as_f64().unwrap_or(1.0),
            }));
            let suggestions = js(&items);
            for item in Array::from(&suggestions).iter() {
                let _ = Reflect::set(&item, &JsValue::from_str("range"), &range);
            }
            let result = Object::new();
            let _ = Reflect::set(&result, &JsValue::from_str("suggestions"), &suggestions);
            result.into()
        },
    );
    let provider = Object::new();
    let _ = Reflect::set(&provider, &JsValue::from_str("provideCompletionItems"), provide.as_ref());
    let _ = Reflect::set(
        &provider,
        &JsValue::from_str("triggerCharacters"),
        &js(&serde_json::json!([":", " "])),
    );
    provide.forget();
    monaco::sys::languages::register_completion_item_provider("yaml", provider.unchecked_ref());
}

/// A read-only side-by-side diff: what Read returned (left) against the program's inputs.
/// Returns the editor so the caller can dispose of it.
pub fn create_diff(host: &HtmlElement, original: &str, modified: &str) -> JsValue {
    let options: IDiffEditorConstructionOptions = js(&serde_json::json!({
        "automaticLayout": true,
        "readOnly": true,
        "originalEditable": false,
        "renderSideBySide": true,
        "minimap": {"enabled": false},
        "scrollBeyondLastLine": false,
        "fontSize": 13,
    }))
    .unchecked_into();
    let diff = monaco::sys::editor::create_diff_editor(host, Some(&options), None);
    let left = monaco::sys::editor::create_model(original, Some("json"), None).expect("a model");
    let right = monaco::sys::editor::create_model(modified, Some("json"), None).expect("a model");
    let pair = Object::new();
    let _ = Reflect::set(&pair, &JsValue::from_str("original"), &left);
    let _ = Reflect::set(&pair, &JsValue::from_str("modified"), &right);
    let diff: JsValue = diff.into();
    let _ = call(&diff, "setModel", &[pair.into()]);
    diff
}

/// Disposes of an editor (and a diff editor's models) made here.
pub fn dispose(editor: &JsValue) {
    let models = call(editor, "getModel", &[]).unwrap_or(JsValue::NULL);
    let _ = call(editor, "dispose", &[]);
    for side in ["original", "modified"] {
        let m = get(&models, side);
        if !m.is_undefined() && !m.is_null() {
            let _ = call(&m, "dispose", &[]);
        }
    }
}
