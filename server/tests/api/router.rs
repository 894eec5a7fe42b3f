//! The whole router, called without a socket: API contracts, errors, and server-rendered pages.

use crate::common;

use std::path::PathBuf;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use ferry_service::Ferry;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

async fn app_with_limit(limit: usize) -> Router {
    let store = ferry_store::testing::scratch().await.unwrap();
    common::app_of(Ferry::new(store, limit), true).await
}

async fn app() -> Router {
    app_with_limit(ferry_service::DEFAULT_MAX_STATE_BYTES).await
}

async fn send(app: &Router, req: Request<Body>) -> (StatusCode, Vec<u8>, String) {
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let ctype = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, body, ctype)
}

async fn get_json(app: &Router, uri: &str) -> (StatusCode, Value) {
    let (status, body, _) = send(app, Request::get(uri).body(Body::empty()).unwrap()).await;
    (
        status,
        serde_json::from_slice(&body)
            .unwrap_or_else(|_| panic!("{uri}: not JSON: {}", String::from_utf8_lossy(&body))),
    )
}

fn upload(name: Option<&str>, body: impl Into<Body>) -> Request<Body> {
    let uri = match name {
        Some(n) => format!("/api/v1/stacks?name={n}"),
        None => "/api/v1/stacks".into(),
    };
    Request::post(uri).header("content-type", "application/json").body(body.into()).unwrap()
}

fn fixture(rel: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    std::fs::read(dir.join("pulumi/state").join(rel)).unwrap()
}

#[tokio::test]
async fn upload_then_read_every_view_of_the_stack() {
    let app = app().await;
    let (status, body, _) = send(
        &app,
        upload(
            Some("acme/dns-to-db/dev"),
            fixture("tool-generated-export/dns-to-db-components.export.json"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    let created: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(created["name"], "acme/dns-to-db/dev");
    assert_eq!(created["version"], 1);
    assert_eq!(created["resources"], 111);
    assert_eq!(created["warnings"].as_array().unwrap().len(), 11, "duplicate URNs are reported");
    let id = created["id"].as_str().unwrap();

    let (status, list) = get_json(&app, "/api/v1/stacks").await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&str> =
        list.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["acme/dns-to-db/dev", "ferry/demo/dev"]);

    let (_, summary) = get_json(&app, &format!("/api/v1/stacks/{id}")).await;
    assert_eq!((summary["version"].clone(), summary["resources"].clone()), (json!(1), json!(111)));

    let (status, export) = get_json(&app, &format!("/api/v1/stacks/{id}/export")).await;
    assert_eq!(status, StatusCode::OK);
    let original: Value =
        serde_json::from_slice(&fixture("tool-generated-export/dns-to-db-components.export.json"))
            .unwrap();
    assert_eq!(export, original, "the export is the uploaded state, field for field");

    let (_, graph) = get_json(&app, &format!("/api/v1/stacks/{id}/graph")).await;
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 111);
    assert!(graph["edges"].as_array().unwrap().iter().any(|e| e["kind"] == "provider"));
    // What the stack is, not how it is drawn: the page lays the graph out.
    assert!(
        graph["nodes"][0]["kind"].is_string() && graph["nodes"][0].get("x").is_none(),
        "{}",
        graph["nodes"][0]
    );

    // A second upload is a new version; the first stays readable.
    let (status, body, _) = send(
        &app,
        upload(
            Some("acme/dns-to-db/dev"),
            fixture("tool-generated-export/dns-to-db-flat.export.json"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["version"], 2);
    let (_, v1) = get_json(&app, &format!("/api/v1/stacks/{id}/graph?version=1")).await;
    assert_eq!(v1["nodes"].as_array().unwrap().len(), 111);
    let (_, versions) = get_json(&app, &format!("/api/v1/stacks/{id}/versions")).await;
    assert_eq!(versions.as_array().unwrap().len(), 2);
}

/// Answers are compressed for clients that take it: zstd where offered (browsers do), gzip
/// otherwise, and what either decodes to is the answer itself.
#[tokio::test]
async fn answers_are_compressed_as_the_client_accepts() {
    let app = app().await;
    let (_, body, _) = send(
        &app,
        upload(
            Some("zip/dns-to-db/dev"),
            fixture("tool-generated-export/dns-to-db-components.export.json"),
        ),
    )
    .await;
    let id = serde_json::from_slice::<Value>(&body).unwrap()["id"].as_str().unwrap().to_string();
    let uri = format!("/api/v1/stacks/{id}/resources?limit=100");
    let (_, plain) = get_json(&app, &uri).await;
    let encoded = |accept: &'static str| {
        let (app, uri) = (app.clone(), uri.clone());
        async move {
            let res = app
                .oneshot(
                    Request::get(uri)
                        .header("accept-encoding", accept)
                        .body(Body::empty())
                        .unwrap(),
                )
                .await
                .unwrap();
            let encoding =
                res.headers().get("content-encoding").map(|v| v.to_str().unwrap().to_string());
            (encoding, res.into_body().collect().await.unwrap().to_bytes().to_vec())
        }
    };
    let (encoding, body) = encoded("gzip, deflate, br, zstd").await;
    assert_eq!(encoding.as_deref(), Some("zstd"));
    assert_eq!(
        serde_json::from_slice::<Value>(&zstd::stream::decode_all(body.as_slice()).unwrap())
            .unwrap(),
        plain
    );
    assert_eq!(encoded("gzip").await.0.as_deref(), Some("gzip"));
}

#[tokio::test]
async fn resource_details_mask_secrets() {
    let app = app().await;
    let (status, body, _) = send(
        &app,
        upload(Some("acme/countdown/foo"), fixture("pulumi-checkpoints/checkpoint-secrets.json")),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let id = serde_json::from_slice::<Value>(&body).unwrap()["id"].as_str().unwrap().to_string();
    let (_, page) = get_json(&app, &format!("/api/v1/stacks/{id}/resources")).await;
    let urn = page["rows"][3]["urn"].as_str().unwrap();
    let encoded: String = urn.bytes().map(|b| format!("%{b:02X}")).collect();
    let (status, detail) =
        get_json(&app, &format!("/api/v1/stacks/{id}/resource?urn={encoded}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(detail["secrets"].as_u64().unwrap() > 0);
    assert!(detail["inputs"].as_str().unwrap().contains("[secret]"));
    assert!(!detail.to_string().contains("ciphertext"));
}

#[tokio::test]
async fn bad_uploads_are_refused_with_a_code_a_message_and_a_path_and_store_nothing() {
    let app = app_with_limit(64 * 1024).await;
    let cases: Vec<(Option<&str>, Vec<u8>, StatusCode, &str, Option<&str>)> = vec![
        (Some("a/b/c"), b"{not json".to_vec(), StatusCode::BAD_REQUEST, "invalid_json", None),
        (Some("a/b/c"), br#"{"version": 7, "deployment": {}}"#.to_vec(), StatusCode::BAD_REQUEST, "unsupported_version", Some("version")),
        (Some("a/b/c"), Vec::new(), StatusCode::BAD_REQUEST, "empty_body", None),
        (Some("a/b/c"), br#"{"version":4,"features":["warp-drive"],"deployment":{}}"#.to_vec(), StatusCode::BAD_REQUEST, "unknown_feature", Some("features")),
        (
            Some("a/b/c"),
            br#"{"version":3,"deployment":{"resources":[{"urn":"urn:pulumi:d::p::t:m:T::x","type":"t:m:T","parent":"urn:pulumi:d::p::t:m:T::gone"}]}}"#
                .to_vec(),
            StatusCode::BAD_REQUEST,
            "dangling_reference",
            Some("deployment.resources[0].parent"),
        ),
        (Some("not-a-name"), br#"{"version":3,"deployment":{}}"#.to_vec(), StatusCode::BAD_REQUEST, "invalid_name", None),
        (None, br#"{"version":3,"deployment":{}}"#.to_vec(), StatusCode::BAD_REQUEST, "name_required", None),
        (Some("a/b/c"), vec![b' '; 70 * 1024], StatusCode::PAYLOAD_TOO_LARGE, "too_large", None),
    ];
    for (name, body, status, code, path) in cases {
        let (got, bytes, ctype) = send(&app, upload(name, body)).await;
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!((got, v["error"]["code"].as_str().unwrap()), (status, code), "{v}");
        assert!(ctype.starts_with("application/json"));
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
        assert_eq!(v["error"]["path"].as_str(), path, "{v}");
    }
    let (_, list) = get_json(&app, "/api/v1/stacks").await;
    assert_eq!(list.as_array().unwrap().len(), 1, "only the demo stack: nothing else was stored");
}

#[tokio::test]
async fn the_passphrase_travels_in_a_header() {
    let app = app().await;
    // The DIY checkpoint has a passphrase provider but no secrets: no passphrase needed...
    let (status, _, _) = send(
        &app,
        upload(
            Some("org/s3bucket-test/test-upsert"),
            fixture("real-diy-checkpoint/test-upsert.checkpoint.json"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    // ...but a wrong one is still refused, without storing anything.
    let req = Request::post("/api/v1/stacks?name=org/s3bucket-test/test-upsert")
        .header("x-ferry-passphrase", "not-the-passphrase")
        .body(Body::from(fixture("real-diy-checkpoint/test-upsert.checkpoint.json")))
        .unwrap();
    let (status, body, _) = send(&app, req).await;
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("wrong_passphrase"))
    );
}

#[tokio::test]
async fn unknown_things_are_json_404s() {
    let app = app().await;
    for uri in ["/api/v1/stacks/nope", "/api/v1/stacks/nope/graph", "/api/v1/nothing"] {
        let (status, v) = get_json(&app, uri).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (StatusCode::NOT_FOUND, Some("not_found")),
            "{uri}"
        );
    }
}

#[tokio::test]
async fn pages_render_on_the_server() {
    let app = app().await;
    let (status, body, ctype) = send(&app, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ctype.starts_with("text/html"));
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("ferry/demo/dev"), "the home page lists the demo stack");
    assert!(html.contains("upload-form"));

    let (_, list) = get_json(&app, "/api/v1/stacks").await;
    let id = list[0]["id"].as_str().unwrap();
    let (status, body, _) =
        send(&app, Request::get(format!("/stacks/{id}")).body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let html = String::from_utf8(body).unwrap();
    assert!(
        html.contains("resource-table") && html.contains("admin-password"),
        "the table is server-rendered"
    );
    assert!(!html.contains("ciphertext"), "no secret reaches the page");

    let (_, page) = get_json(&app, &format!("/api/v1/stacks/{id}/resources")).await;
    let urn =
        page["rows"].as_array().unwrap().iter().find(|r| r["name"] == "admin-password").unwrap()
            ["urn"]
            .as_str()
            .unwrap()
            .to_string();
    let uri = format!(
        "/stacks/{id}/graph?r={}",
        urn.bytes().map(|b| format!("%{b:02X}")).collect::<String>()
    );
    let (status, body, _) = send(&app, Request::get(uri).body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let html = String::from_utf8(body).unwrap();
    assert!(
        html.contains("stack-graph") && html.contains("resource-detail"),
        "graph page with the detail panel"
    );
    assert!(
        html.contains("[secret]") && !html.contains("q7(N=yD"),
        "secrets are masked in the panel"
    );
}

#[tokio::test]
async fn pages_of_unknown_things_are_404_error_pages() {
    let app = app().await;
    let (_, list) = get_json(&app, "/api/v1/stacks").await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let req = Request::post(format!("/api/v1/stacks/{stack}/plans"))
        .header("content-type", "application/json")
        .body(Body::from(r#"{"spec": "{\"resources\": [{\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"p\", \"id\": \"x\"}]}"}"#))
        .unwrap();
    let (status, body, _) = send(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    let plan: Value = serde_json::from_slice(&body).unwrap();
    let plan = plan["id"].as_str().unwrap();
    // What exists renders with 200...
    for uri in [format!("/stacks/{stack}"), format!("/plans/{plan}"), format!("/plans/{plan}/r/1")]
    {
        let (status, _, _) = send(&app, Request::get(&uri).body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
    }
    // ...what does not is a 404 with a page saying so.
    for (uri, says) in [
        ("/stacks/nope".to_string(), "Stack not available"),
        ("/stacks/nope/graph".to_string(), "Stack not available"),
        ("/plans/00000000000000000000000000000000".to_string(), "plan-error"),
        (format!("/plans/{plan}/r/9"), "plan-error"),
        ("/shared/00000000000000000000000000000000".to_string(), "plan-error"),
        ("/no/such/page".to_string(), "Page not found"),
    ] {
        let (status, body, ctype) =
            send(&app, Request::get(&uri).body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert!(ctype.starts_with("text/html"), "{uri}: {ctype}");
        assert!(String::from_utf8_lossy(&body).contains(says), "{uri}");
    }
}

/// A generated stack of `n` resources: the stack, a provider, 25 components under the stack and
/// custom resources spread under them, each with an ID.
fn generated_export(n: usize) -> Value {
    let urn = |qualified: &str, name: &str| format!("urn:pulumi:dev::big::{qualified}::{name}");
    let stack = urn("pulumi:pulumi:Stack", "big-dev");
    let provider = urn("pulumi:providers:random", "default");
    let mut resources = vec![
        json!({"urn": stack, "custom": false, "type": "pulumi:pulumi:Stack"}),
        json!({"urn": provider, "custom": true, "id": "p-1", "type": "pulumi:providers:random", "inputs": {}, "outputs": {}}),
    ];
    for c in 0..25 {
        resources.push(
            json!({"urn": urn("pulumi:pulumi:Stack$big:index:Group", &format!("group-{c}")), "custom": false, "type": "big:index:Group", "parent": stack}),
        );
    }
    for i in 0..n - resources.len() {
        let group = urn("pulumi:pulumi:Stack$big:index:Group", &format!("group-{}", i % 25));
        let type_ = ["random:index/randomPet:RandomPet", "random:index/randomId:RandomId"][i % 2];
        resources.push(json!({
            "urn": urn(&format!("pulumi:pulumi:Stack$big:index:Group${type_}"), &format!("res-{i}")),
            "custom": true, "id": format!("id-{i:05}"), "type": type_, "parent": group,
            "provider": format!("{provider}::p-1"), "inputs": {"n": i}, "outputs": {"n": i},
        }));
    }
    json!({"version": 3, "deployment": {"resources": resources}})
}

#[tokio::test]
async fn a_big_stacks_table_is_paged_filtered_and_sorted_on_the_server() {
    let app = app().await;
    let export = generated_export(3000);
    let (status, body, _) = send(&app, upload(Some("acme/big/dev"), export.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    let id = serde_json::from_slice::<Value>(&body).unwrap()["id"].as_str().unwrap().to_string();
    let urns: Vec<&str> = export["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["urn"].as_str().unwrap())
        .collect();

    // Pages partition the rows, in state order, and never pass the cap.
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let (status, page) =
            get_json(&app, &format!("/api/v1/stacks/{id}/resources?offset={offset}&limit=700"))
                .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            (page["total"].as_u64(), page["matched"].as_u64(), page["offset"].as_u64()),
            (Some(3000), Some(3000), Some(offset as u64))
        );
        let rows = page["rows"].as_array().unwrap();
        if rows.is_empty() {
            break;
        }
        assert!(rows.len() <= 700);
        paged.extend(rows.iter().map(|r| r["urn"].as_str().unwrap().to_string()));
        offset += rows.len();
    }
    assert_eq!(paged, urns);
    let (_, page) = get_json(&app, &format!("/api/v1/stacks/{id}/resources?limit=100000")).await;
    assert_eq!(
        page["rows"].as_array().unwrap().len(),
        ferry_service::MAX_PAGE_ROWS,
        "a page is capped"
    );

    // The filter matches URNs and IDs case-insensitively; the sort runs over every match.
    let (_, page) =
        get_json(&app, &format!("/api/v1/stacks/{id}/resources?filter=ID-0012&sort=-id&limit=5"))
            .await;
    let expected: Vec<String> = {
        let mut ids: Vec<String> =
            (0..2973).map(|i| format!("id-{i:05}")).filter(|s| s.contains("id-0012")).collect();
        ids.sort_by(|a, b| b.cmp(a));
        ids.truncate(5);
        ids
    };
    assert_eq!(page["matched"], 10);
    let got: Vec<&str> =
        page["rows"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(got, expected);
    let (_, page) =
        get_json(&app, &format!("/api/v1/stacks/{id}/resources?sort=name&limit=3")).await;
    let names: Vec<&str> =
        page["rows"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["big-dev", "default", "group-0"]);
    let (status, error) =
        get_json(&app, &format!("/api/v1/stacks/{id}/resources?sort=colour")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error["error"]["message"].as_str().unwrap().contains("`colour`"), "{error}");

    // The graph past its budget is summarised: every resource accounted for, siblings of a type
    // grouped; a group opens on demand; `full=true` gives every node.
    let (_, graph) = get_json(&app, &format!("/api/v1/stacks/{id}/graph")).await;
    let nodes = graph["nodes"].as_array().unwrap();
    assert!(nodes.len() <= ferry_state::graph_summary::SUMMARY_BUDGET, "{} nodes", nodes.len());
    assert_eq!(nodes.iter().map(|n| n["count"].as_u64().unwrap_or(1)).sum::<u64>(), 3000);
    let group = nodes.iter().find(|n| n["kind"] == "group").expect("a group node");
    let key = group["expand"].as_str().unwrap().to_string();
    let encoded: String = key.bytes().map(|b| format!("%{b:02X}")).collect();
    let (_, opened) = get_json(&app, &format!("/api/v1/stacks/{id}/graph?expand={encoded}")).await;
    let opened_nodes = opened["nodes"].as_array().unwrap();
    assert!(
        opened_nodes.len() > nodes.len()
            && !opened_nodes.iter().any(|n| n["expand"] == key.as_str()),
        "the group opened"
    );
    assert_eq!(opened_nodes.iter().map(|n| n["count"].as_u64().unwrap_or(1)).sum::<u64>(), 3000);
    let (_, full) = get_json(&app, &format!("/api/v1/stacks/{id}/graph?full=true")).await;
    assert_eq!(full["nodes"].as_array().unwrap().len(), 3000);

    // The page carries its first screenful of rows, not the stack.
    let (status, body, _) =
        send(&app, Request::get(format!("/stacks/{id}")).body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("title=\"res-0\""), "the first rows are server-rendered");
    assert!(!html.contains("res-2900"), "rows far down the table are not in the page");
    assert!(html.len() < 200 * 1024, "the page is {} bytes", html.len());
    // Its first frame waits for no stylesheet request: the stylesheet is in the page, as written.
    let stylesheet =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../style/main.css")).unwrap();
    assert!(
        html.contains(&format!("<style id=\"site-css\">{stylesheet}</style>")),
        "the stylesheet is carried verbatim"
    );
    assert!(!html.contains("rel=\"stylesheet\""), "no stylesheet to fetch");
}

/// A query string or JSON body that does not read is answered as every other error is: Ferry's
/// error body, with axum's status and reason, never axum's plain text.
#[tokio::test]
async fn unreadable_queries_and_bodies_answer_ferrys_error_body() {
    let app = app().await;
    let (status, body) = get_json(&app, "/api/v1/plans?limit=many").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "bad_request");
    assert!(body["error"]["message"].as_str().unwrap().starts_with("the query string:"), "{body}");
    let bad = |content_type: &str, text: &str| {
        Request::post("/api/v1/orgs/acme/webhooks")
            .header("content-type", content_type)
            .body(Body::from(text.to_string()))
            .unwrap()
    };
    for (request, expected) in [
        (bad("text/plain", "{}"), StatusCode::UNSUPPORTED_MEDIA_TYPE),
        (bad("application/json", "{not json"), StatusCode::BAD_REQUEST),
        (bad("application/json", r#"{"url": 3}"#), StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        let (status, body, content_type) = send(&app, request).await;
        let body: Value = serde_json::from_slice(&body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&body)));
        assert_eq!((status, content_type.as_str()), (expected, "application/json"), "{body}");
        assert_eq!(body["error"]["code"], "bad_request", "{body}");
        assert!(
            body["error"]["message"].as_str().unwrap().starts_with("the request body:"),
            "{body}"
        );
    }
}
