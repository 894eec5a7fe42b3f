//! The API's OpenAPI document as the tests hold it to the server: every answer the API tests
//! receive is validated against the document's schema for its endpoint and status.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::OnceCell;

/// The document a server on an empty store serves, made once per test run.
pub async fn document() -> &'static Value {
    static DOCUMENT: OnceCell<Value> = OnceCell::const_new();
    DOCUMENT.get_or_init(|| async { server::openapi::document(&super::access_table().await) }).await
}

/// Checks `body`, answered `status` by `method` `template` (the endpoint's path under
/// `/api/v1`), against the document: a success against its operation's schema, a failure
/// against `ErrorBody`. What does not validate is named, with where.
pub async fn check(method: &str, template: &str, status: u16, body: &[u8]) -> Result<(), String> {
    static VALIDATORS: Mutex<Option<HashMap<String, Arc<jsonschema::Validator>>>> =
        Mutex::new(None);
    let document = document().await;
    let operation = &document["paths"][template][method.to_lowercase()];
    if operation.is_null() {
        return Err(format!("{method} {template} is not in the OpenAPI document"));
    }
    let responses = &operation["responses"];
    let response = if responses.get(status.to_string()).is_some() {
        &responses[status.to_string()]
    } else if status >= 400 {
        &responses["default"]
    } else {
        return Err(format!(
            "{method} {template} answered {status}, which the document does not list"
        ));
    };
    let response = resolve(document, response);
    let Some(schema) = response.pointer("/content/application~1json/schema") else {
        return Ok(());
    };
    let key = format!("{method} {template} {status}");
    let validator = {
        let mut cache = VALIDATORS.lock().unwrap();
        let cache = cache.get_or_insert_with(HashMap::new);
        match cache.get(&key) {
            Some(v) => v.clone(),
            None => {
                // The schema with the document's components beside it, so its `$ref`s
                // (`#/components/schemas/…`) resolve within it.
                let mut root = match schema {
                    Value::Object(map) => Value::Object(map.clone()),
                    other => json!({"allOf": [other]}),
                };
                root["components"] = document["components"].clone();
                let compiled = jsonschema::draft202012::new(&root)
                    .map_err(|e| format!("{key}: the document's schema does not compile: {e}"))?;
                let compiled = Arc::new(compiled);
                cache.insert(key.clone(), compiled.clone());
                compiled
            }
        }
    };
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("{key}: the answer is not JSON: {e}"))?;
    let wrong: Vec<String> = validator
        .iter_errors(&value)
        .take(5)
        .map(|e| format!("{e} (at {})", e.instance_path()))
        .collect();
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{key}: the answer does not match the OpenAPI document: {}", wrong.join("; ")))
    }
}

/// `value`, or what its `$ref` (into the document) points to.
fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => document.pointer(pointer).unwrap_or(value),
        None => value,
    }
}

/// With `FERRY_RECORD_API_EXAMPLES` naming a folder (`scripts/api-examples.sh` sets it), keeps
/// in it, for each endpoint, the answer that best shows it: the largest of at most
/// [`EXAMPLE_BYTES`], or the smallest when every answer is larger. Capability tokens are masked:
/// the document is public, and a token from a test's throwaway store still reads as a secret.
/// Only answers that [take an example](takes_an_example) are kept.
pub async fn record_example(endpoint: &ferry_types::api::EndpointInfo, status: u16, body: &[u8]) {
    static BEST: Mutex<Option<HashMap<&'static str, usize>>> = Mutex::new(None);
    let Some(folder) = std::env::var_os("FERRY_RECORD_API_EXAMPLES") else { return };
    if !takes_an_example(endpoint, status).await {
        return;
    }
    let Ok(mut answer) = serde_json::from_slice::<Value>(body) else { return };
    let better = |now: usize, new: usize| {
        (new <= EXAMPLE_BYTES && (now > EXAMPLE_BYTES || new > now))
            || (now > EXAMPLE_BYTES && new < now)
    };
    let mut best = BEST.lock().unwrap();
    let best = best.get_or_insert_with(HashMap::new);
    if best.get(endpoint.name).is_some_and(|&now| !better(now, body.len())) {
        return;
    }
    best.insert(endpoint.name, body.len());
    mask_tokens(&mut answer);
    let record = json!({
        "endpoint": format!("{} {}", endpoint.method.as_str(), endpoint.path),
        "status": status,
        "answer": answer,
    });
    let path = std::path::Path::new(&folder).join(format!("{}.json", endpoint.name));
    std::fs::write(&path, record.to_string())
        .unwrap_or_else(|e| panic!("cannot record {}: {e}", path.display()));
}

/// How big an answer may be to be preferred as an endpoint's example.
const EXAMPLE_BYTES: usize = 2_000;

/// Replaces what opens something (an API token, a share link's or an invitation's token, a
/// password) with a placeholder of the same kind.
fn mask_tokens(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s) if ["token", "password", "secret"].contains(&key.as_str()) => {
                        *s = if s.starts_with("ferry_") { "ferry_…" } else { "…" }.to_string();
                    }
                    _ => mask_tokens(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_tokens),
        Value::String(s) if s.starts_with("ferry_") => *s = "ferry_…".to_string(),
        _ => {}
    }
}

/// Whether `endpoint`'s `status` answer is shown by an example: the document describes it as
/// JSON of a known shape (not a download, whose schema is any JSON), and it is not the document
/// itself (whose example would be the document).
pub async fn takes_an_example(endpoint: &ferry_types::api::EndpointInfo, status: u16) -> bool {
    if endpoint.path == ferry_types::api::OPENAPI.path {
        return false;
    }
    let method = endpoint.method.as_str().to_lowercase();
    document().await["paths"][endpoint.path][method]["responses"][status.to_string()]
        .pointer("/content/application~1json/schema")
        .is_some_and(|schema| schema != &json!({}))
}
