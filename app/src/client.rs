//! The browser's one client of the API: every call is a [`Call`] made from an endpoint of
//! `ferry_types::api`, so it sends that endpoint's body type and reads its answer type. A
//! failure is the API's own message (its error body), or what kept the call from reaching Ferry.

use ferry_types::api::{Call, FileBody, NoBody, NoContent, Text};
use ferry_types::ErrorDetail;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestInit, Response};

/// Calls an endpoint that takes no body.
pub async fn call<A: DeserializeOwned>(call: &Call<NoBody, A>) -> Result<A, String> {
    read(&answer(call.method.as_str(), &call.url, None).await?)
}

/// Calls an endpoint with its JSON body.
pub async fn send<B: Serialize, A: DeserializeOwned>(
    call: &Call<B, A>,
    body: &B,
) -> Result<A, String> {
    let text = serde_json::to_string(body).map_err(|e| format!("cannot write the request: {e}"))?;
    let body = BodyText { content_type: "application/json", text: &text };
    read(&answer(call.method.as_str(), &call.url, Some(body)).await?)
}

/// Calls an endpoint that answers text (generated code).
pub async fn text(call: &Call<NoBody, Text>) -> Result<String, String> {
    answer(call.method.as_str(), &call.url, None).await
}

/// Calls an endpoint that answers nothing (`204`).
pub async fn quietly(call: &Call<NoBody, NoContent>) -> Result<(), String> {
    answer(call.method.as_str(), &call.url, None).await.map(|_| ())
}

/// Sends text as a file body (an editor's text, to be checked).
pub async fn send_text<A: DeserializeOwned>(
    call: &Call<FileBody, A>,
    content_type: &str,
    text: &str,
) -> Result<A, String> {
    let body = BodyText { content_type, text };
    read(&answer(call.method.as_str(), &call.url, Some(body)).await?)
}

/// Sends the chosen file as it is (the browser streams it; wasm never copies it).
pub async fn send_file<A: DeserializeOwned>(
    call: &Call<FileBody, A>,
    file: &web_sys::File,
) -> Result<A, String> {
    send_browser_body(call, file).await
}

/// Sends a form (files and fields, as `multipart/form-data`), which endpoints that take files
/// beside their JSON accept.
pub async fn send_form<B, A: DeserializeOwned>(
    call: &Call<B, A>,
    form: &web_sys::FormData,
) -> Result<A, String> {
    send_browser_body(call, form).await
}

/// Sends a body the browser holds (a file, a form) as it is; the browser sets its type.
async fn send_browser_body<B, A: DeserializeOwned>(
    call: &Call<B, A>,
    body: &JsValue,
) -> Result<A, String> {
    let init = RequestInit::new();
    init.set_method(call.method.as_str());
    init.set_body(body);
    read(&fetch(&call.url, &init).await?)
}

struct BodyText<'a> {
    content_type: &'a str,
    text: &'a str,
}

async fn answer(method: &str, url: &str, body: Option<BodyText<'_>>) -> Result<String, String> {
    let init = RequestInit::new();
    init.set_method(method);
    if let Some(body) = body {
        let headers =
            web_sys::Headers::new().map_err(|_| "cannot build the request".to_string())?;
        let _ = headers.set("content-type", body.content_type);
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(body.text));
    }
    fetch(url, &init).await
}

/// Sends a request: the answer's text, or the API's error message.
async fn fetch(url: &str, init: &RequestInit) -> Result<String, String> {
    exchange(url, init).await.map_err(|e| e.message)
}

/// A failure that is the browser's, not the API's (`code` as the API's would be).
pub(crate) fn failure(code: &str, message: impl Into<String>) -> ErrorDetail {
    ErrorDetail {
        code: code.to_string(),
        message: message.into(),
        path: None,
        names: Vec::new(),
        details: Default::default(),
    }
}

/// Sends a request: the answer's text, or the API's whole error (what an upload's form reads
/// more of than its message), or what kept the request from reaching Ferry.
pub(crate) async fn exchange(url: &str, init: &RequestInit) -> Result<String, ErrorDetail> {
    let window = web_sys::window().ok_or_else(|| failure("browser", "no window"))?;
    let response = JsFuture::from(window.fetch_with_str_and_init(url, init))
        .await
        .map_err(|e| failure("network", format!("Ferry did not answer: {e:?}")))?;
    let response: Response = response.unchecked_into();
    let text = match response.text() {
        Ok(promise) => {
            JsFuture::from(promise).await.ok().and_then(|v| v.as_string()).unwrap_or_default()
        }
        Err(_) => String::new(),
    };
    if response.ok() {
        Ok(text)
    } else {
        match serde_json::from_str::<ferry_types::ErrorBody>(&text) {
            Ok(body) => Err(body.error),
            Err(_) => Err(failure("http_error", format!("HTTP {}", response.status()))),
        }
    }
}

fn read<A: DeserializeOwned>(text: &str) -> Result<A, String> {
    serde_json::from_str(text).map_err(|e| format!("Ferry's answer: {e}"))
}
