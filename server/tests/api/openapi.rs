//! The OpenAPI document: served to anyone, read as OpenAPI 3.1 by a parser nobody on the project
//! wrote, and describing exactly the API's routes, each with its access rule and error codes.
//! (That real answers match its schemas is checked by every API test, in `common::call`.)

use std::collections::BTreeSet;

use axum::http::StatusCode;
use serde_json::Value;

use crate::common::{self, call, get, openapi};

#[tokio::test]
async fn the_document_is_served_to_anyone_and_reads_as_openapi_3_1() {
    let store = ferry_store::testing::scratch().await.unwrap();
    let (app, _) = common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20), false).await;
    let (status, served) = call(&app, get("/api/v1/openapi.json")).await;
    assert_eq!(status, StatusCode::OK, "{served}");
    assert_eq!(&served, openapi::document().await);
    assert_eq!(served["openapi"], "3.1.0");
    let parsed = oas3::from_json(served.to_string()).expect("an OpenAPI 3.1 document");
    assert_eq!(
        parsed.paths.as_ref().map(|p| p.len()),
        served["paths"].as_object().map(|p| p.len())
    );
}

#[tokio::test]
async fn every_route_of_the_table_is_in_the_document_with_its_access_and_errors() {
    let document = openapi::document().await;
    let table = common::access_table().await;
    let routes: BTreeSet<(String, String)> = table
        .decisions()
        .filter_map(|d| {
            let path = d.path.strip_prefix(ferry_types::api::PREFIX)?;
            Some((d.method.as_str().to_lowercase(), path.to_string()))
        })
        .collect();
    let mut described = BTreeSet::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            described.insert((method.clone(), path.clone()));
            let name = format!("{method} {path}");
            assert!(operation["x-ferry-access"]["gate"].is_string(), "{name}: no access rule");
            assert!(
                operation["description"].as_str().unwrap().contains("Who may call it: "),
                "{name}"
            );
            let responses = operation["responses"].as_object().unwrap();
            assert!(responses.contains_key("default"), "{name}: no error answer");
            let gate = operation["x-ferry-access"]["gate"].as_str().unwrap();
            if gate != "public" && gate != "share-link" {
                assert!(responses.contains_key("401"), "{name}: a signed-in route's 401");
            }
        }
    }
    assert_eq!(described, routes, "the document and the route table differ");
    assert_eq!(described.len(), ferry_types::api::ALL.len());
}

#[tokio::test]
async fn every_reference_resolves_and_every_error_code_is_the_tables() {
    let document = openapi::document().await;
    let mut refs = Vec::new();
    collect_refs(document, &mut refs);
    assert!(refs.len() > 100, "{} references", refs.len());
    for r in &refs {
        let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("{r} is not local"));
        assert!(document.pointer(pointer).is_some(), "{r} does not resolve");
    }
    let codes: Vec<&str> = ferry_types::errors::ALL.iter().map(|c| c.code).collect();
    assert_eq!(
        document["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"],
        serde_json::json!(codes)
    );
    // The protocol's enums are enums in the document, not free strings.
    let role = &document["components"]["schemas"]["Role"];
    assert!(role.to_string().contains("committer"), "{role}");
}

/// Each endpoint's query parameters are the fields of the query type its route reads (the
/// server checks the type on every request in debug builds): each named as the query string
/// names it, described, and required only when reading it without one fails.
#[tokio::test]
async fn query_parameters_are_the_fields_of_the_type_the_route_reads() {
    let document = openapi::document().await;
    let mut listed = Vec::new();
    let mut by_operation = std::collections::BTreeMap::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let query: Vec<&Value> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
                .collect();
            for p in &query {
                let name = format!("{method} {path} ?{}", p["name"].as_str().unwrap());
                assert!(p["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}");
                assert!(p["schema"].is_object(), "{name}");
            }
            if !query.is_empty() {
                let names: Vec<String> = query
                    .iter()
                    .map(|p| {
                        let required = if p["required"] == true { " (required)" } else { "" };
                        format!("{}{required}", p["name"].as_str().unwrap())
                    })
                    .collect();
                listed.push(format!("{} {path}: {}", method.to_uppercase(), names.join(", ")));
                by_operation.insert((method.clone(), path.clone()), query);
            }
        }
    }
    insta::assert_snapshot!(listed.join("\n"));
    let names = |method: &str, path: &str| -> BTreeSet<String> {
        by_operation[&(method.to_string(), path.to_string())]
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names("get", "/previews/{id}/results"),
        ["filter", "limit", "offset", "status", "type"].map(String::from).into()
    );
    // What the route reads, not what a comment once said (`language`, `urns`).
    assert!(names("get", "/stacks/{id}/code").contains("lang"));
    let results = &by_operation[&("get".into(), "/previews/{id}/results".into())];
    let status = results.iter().find(|p| p["name"] == "status").unwrap();
    assert_eq!(status["schema"]["$ref"], "#/components/schemas/StatusFilter", "{status}");
    let backend = &by_operation[&("get".into(), "/backends/stacks".into())];
    assert!(backend.iter().all(|p| p["required"] == true), "{backend:?}");
}

fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => into.push(r.clone()),
                    _ => collect_refs(v, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

#[tokio::test]
async fn an_answer_that_breaks_its_schema_is_named() {
    // The check every API test runs, given an answer of the wrong shape: it must fail, naming
    // the endpoint and where.
    let wrong =
        openapi::check("GET", "/plans/{id}/status", 200, br#"{"state": 3}"#).await.unwrap_err();
    assert!(wrong.contains("GET /plans/{id}/status 200"), "{wrong}");
    let error = openapi::check(
        "GET",
        "/plans/{id}/status",
        404,
        br#"{"error": {"code": "nope", "message": "x"}}"#,
    )
    .await
    .unwrap_err();
    assert!(error.contains("nope"), "{error}");
    let fine = br#"{"error": {"code": "not_found", "message": "no such plan"}}"#;
    openapi::check("GET", "/plans/{id}/status", 404, fine).await.unwrap();
}

#[tokio::test]
async fn every_example_in_the_document_is_valid_for_its_schema() {
    let document = openapi::document().await;
    let schemas = document["components"]["schemas"].as_object().unwrap();
    let mut checked = 0;
    for (name, schema) in schemas {
        let Some(examples) = schema.get("examples").and_then(Value::as_array) else { continue };
        let root = serde_json::json!({
            "$ref": format!("#/components/schemas/{name}"),
            "components": document["components"],
        });
        let validator = jsonschema::draft202012::new(&root).unwrap();
        for example in examples {
            let wrong: Vec<String> =
                validator.iter_errors(example).map(|e| e.to_string()).collect();
            assert!(wrong.is_empty(), "{name}'s example {example}: {wrong:?}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} examples");
}

/// Every endpoint that answers JSON shows a real answer as its example (recorded from these
/// tests by `scripts/api-examples.sh`), which the document carries, which its schema accepts,
/// and in which no token is left.
#[tokio::test]
async fn the_examples_are_real_answers_the_document_describes() {
    let document = openapi::document().await;
    let examples = server::openapi::examples();
    let mut missing = Vec::new();
    for endpoint in ferry_types::api::ALL {
        let key = format!("{} {}", endpoint.method.as_str(), endpoint.path);
        let method = endpoint.method.as_str().to_lowercase();
        let responses = &document["paths"][endpoint.path][&method]["responses"];
        let mut takes_one = false;
        for &status in endpoint.success {
            takes_one |= openapi::takes_an_example(endpoint, status).await;
        }
        let Some(example) = examples.get(&key) else {
            if takes_one {
                missing.push(key);
            }
            continue;
        };
        let status = example["status"].as_u64().unwrap() as u16;
        let answer = &example["answer"];
        let carried = &responses[status.to_string()]["content"]["application/json"]["example"];
        assert_eq!(carried, answer, "{key}: the document does not carry its example");
        let body = serde_json::to_vec(answer).unwrap();
        if let Err(wrong) =
            openapi::check(endpoint.method.as_str(), endpoint.path, status, &body).await
        {
            panic!("{key}'s example: {wrong}; record them again with scripts/api-examples.sh");
        }
        let text = answer.to_string();
        let token = text.match_indices("ferry_").find(|(at, _)| !text[at + 6..].starts_with('…'));
        assert!(token.is_none(), "{key}'s example holds a token: {text}");
    }
    let endpoints: BTreeSet<String> =
        ferry_types::api::ALL.iter().map(|e| format!("{} {}", e.method.as_str(), e.path)).collect();
    let stale: Vec<&String> = examples.keys().filter(|k| !endpoints.contains(*k)).collect();
    assert!(stale.is_empty(), "examples of no endpoint: {stale:?}");
    assert!(
        missing.is_empty(),
        "no example for {} endpoint(s) that answer JSON: {missing:?}; record them with \
         scripts/api-examples.sh (an endpoint no API test calls needs a test first)",
        missing.len()
    );
}
