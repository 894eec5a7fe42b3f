//! Browser-only glue: the upload request, the bridge to the graph renderer (`pkg/graph.js`),
//! the clipboard, and a job's server-sent events (calls of the API are `client.rs`'s).

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, RequestInit};

use ferry_types::ErrorDetail;

use crate::client::failure;

/// POSTs the chosen file to the upload endpoint (`api::UPLOAD_STACK`) as it is (the browser streams it; wasm never
/// copies it) and returns the new stack's ID or the API's error.
/// With `force`, a state whose resources carry another stack's name is moved to this one.
pub async fn upload_state(
    name: &HtmlInputElement,
    file: &HtmlInputElement,
    passphrase: &HtmlInputElement,
    force: bool,
) -> Result<String, ErrorDetail> {
    let Some(chosen) = file.files().and_then(|list| list.get(0)) else {
        return Err(failure("no_file", "choose a state file to upload"));
    };
    let typed = name.value();
    let named = typed.trim();
    let query = ferry_types::api::UploadQuery {
        name: Some(named.to_string()).filter(|n| !n.is_empty()),
        force: force && !named.is_empty(),
    };
    let url = ferry_types::api::UPLOAD_STACK.url_with(&[], &query);
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_body(&chosen);
    let headers =
        web_sys::Headers::new().map_err(|_| failure("browser", "cannot build the request"))?;
    let _ = headers.set("content-type", "application/json");
    let secret = passphrase.value();
    if !secret.is_empty() {
        let _ = headers.set("x-ferry-passphrase", &secret);
    }
    init.set_headers(&headers);
    // The passphrase is needed for this request only.
    passphrase.set_value("");

    match crate::client::exchange(&url, &init).await {
        Ok(text) => serde_json::from_str::<ferry_types::api::UploadOutcome>(&text)
            .map(|s| s.summary.id)
            .map_err(|e| failure("bad_response", format!("Ferry's answer is not a stack: {e}"))),
        Err(error) => {
            // The names the file's resources carry: the form offers the first.
            if let Some(first) = error.names.first() {
                name_input_offer(name, first);
            }
            Err(error)
        }
    }
}

/// Puts `offered` into the upload form's name field (the user may keep it or type another).
fn name_input_offer(name: &HtmlInputElement, offered: &str) {
    name.set_value(offered);
}

fn graph_module() -> Option<JsValue> {
    let window = web_sys::window()?;
    Reflect::get(&window, &JsValue::from_str("FerryGraph")).ok().filter(|v| !v.is_undefined())
}

fn method(module: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(module, &JsValue::from_str(name)).ok()?.dyn_into().ok()
}

/// Draws the graph at `url` (a stack's or a preview's) into the element `container` (once it
/// is attached); `on_select(urn)` runs on a click. Returns the renderer's token.
fn mount_graph(container: &str, url: &str, on_select: impl Fn(String) + 'static) -> Option<f64> {
    let Some(module) = graph_module() else {
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(container))
        {
            el.set_text_content(Some("The graph renderer (pkg/graph.js) did not load."));
        }
        return None;
    };
    let callback = Closure::<dyn Fn(String)>::new(on_select).into_js_value();
    let mount = method(&module, "mount")?;
    mount
        .call3(&module, &JsValue::from_str(container), &JsValue::from_str(url), &callback)
        .ok()?
        .as_f64()
}

/// A graph drawn into one container: drawing again replaces it, and `clear` (on the owner's
/// cleanup) stops the renderer and its pending fetch. Shareable across threads as Leptos's
/// cleanups require (it holds the renderer's token, an f64's bits; 0 = none).
#[derive(Clone, Default)]
pub struct GraphSlot(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl GraphSlot {
    pub fn draw(&self, container: &str, url: &str, on_select: impl Fn(String) + 'static) {
        self.clear();
        let token = mount_graph(container, url, on_select);
        self.0.store(token.map(f64::to_bits).unwrap_or(0), std::sync::atomic::Ordering::SeqCst);
    }

    pub fn clear(&self) {
        let bits = self.0.swap(0, std::sync::atomic::Ordering::SeqCst);
        if bits == 0 {
            return;
        }
        if let Some(module) = graph_module() {
            if let Some(unmount) = method(&module, "unmount") {
                let _ = unmount.call1(&module, &JsValue::from_f64(f64::from_bits(bits)));
            }
        }
    }
}

/// Runs `f` once, the first time `element` comes into view (heavy parts of a page, like a graph
/// of thousands of nodes or the code for them, wait until someone looks).
pub fn when_visible(element: &web_sys::Element, f: impl FnOnce() + 'static) {
    let f = std::rc::Rc::new(std::cell::RefCell::new(Some(f)));
    let run = {
        let f = f.clone();
        move || {
            if let Some(f) = f.borrow_mut().take() {
                f();
            }
        }
    };
    let on_change = run.clone();
    let callback = Closure::<dyn Fn(js_sys::Array, web_sys::IntersectionObserver)>::new(
        move |entries: js_sys::Array, observer: web_sys::IntersectionObserver| {
            if entries
                .iter()
                .any(|e| e.unchecked_into::<web_sys::IntersectionObserverEntry>().is_intersecting())
            {
                observer.disconnect();
                on_change();
            }
        },
    );
    match web_sys::IntersectionObserver::new(callback.as_ref().unchecked_ref()) {
        Ok(observer) => {
            observer.observe(element);
            // Lives until it fires (it disconnects itself then).
            callback.forget();
        }
        // No observer (a very old browser): do it now.
        Err(_) => run(),
    }
}

/// Puts `text` on the clipboard.
pub fn copy_text(text: &str) {
    if let Some(window) = web_sys::window() {
        let clipboard = Reflect::get(&window.navigator(), &JsValue::from_str("clipboard"))
            .unwrap_or(JsValue::UNDEFINED);
        if let Some(write) = method(&clipboard, "writeText") {
            let _ = write.call1(&clipboard, &JsValue::from_str(text));
        }
    }
}

/// Loads `url` as a new page (after a save or a resolution: the page starts from the new
/// revision's data, its editors included).
pub fn go_to(url: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.location().assign(url);
    }
}

/// Follows a job's server-sent events: `on_event` for each `event` message as JSON (past ones
/// first), `on_end` once with the `end` message, after which the source is closed. Returns the
/// source, for more listeners.
pub fn watch_events<T: serde::de::DeserializeOwned, E: serde::de::DeserializeOwned>(
    url: &str,
    event: &str,
    on_event: impl Fn(T) + 'static,
    on_end: impl Fn(E) + 'static,
) -> Option<web_sys::EventSource> {
    let source = web_sys::EventSource::new(url).ok()?;
    let data = |e: &web_sys::MessageEvent| e.data().as_string().unwrap_or_default();
    let each = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        if let Ok(event) = serde_json::from_str(&data(&e)) {
            on_event(event);
        }
    });
    let closing = source.clone();
    let end = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        // The job is over: no reconnecting.
        closing.close();
        if let Ok(job) = serde_json::from_str(&data(&e)) {
            on_end(job);
        }
    });
    let _ = source.add_event_listener_with_callback(event, each.as_ref().unchecked_ref());
    let _ = source.add_event_listener_with_callback("end", end.as_ref().unchecked_ref());
    // The listeners live as long as the source, which the browser keeps while it is open.
    each.forget();
    end.forget();
    Some(source)
}

/// Follows a preview job: `on_status` when a job that waited its turn (queued) starts,
/// `on_event` for each finished resource, `on_end` with the job.
pub fn watch_job(
    plan: &str,
    job: &str,
    on_status: impl Fn(ferry_types::JobStatus) + 'static,
    on_event: impl Fn(ferry_types::JobEvent) + 'static,
    on_end: impl Fn(ferry_types::JobView) + 'static,
) {
    let url = ferry_types::api::PLAN_JOB_EVENTS.url(&[plan, job]);
    let Some(source) = watch_events(&url, "resource", on_event, on_end) else { return };
    let status = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        if let Some(status) = e.data().as_string().and_then(|d| serde_json::from_str(&d).ok()) {
            on_status(status);
        }
    });
    let _ = source.add_event_listener_with_callback("status", status.as_ref().unchecked_ref());
    status.forget();
}
