//! Program previews and commits through the API, against Ferry's real `pulumi-resource-random`
//! plugin: the `import` option end to end, the commit rules, and bad programs.

use crate::common;

use std::io::Write as _;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::{call, get, post};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

fn yaml(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/yaml")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// A new, empty stack `acme/shop/dev`; returns its ID.
async fn empty_stack(app: &Router) -> String {
    let (status, s) =
        call(app, post("/api/v1/stacks?name=acme/shop/dev", r#"{"version": 3, "deployment": {}}"#))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{s}");
    s["id"].as_str().unwrap().to_string()
}

const IMPORTS: &str = r#"name: shop
runtime: yaml
resources:
  port:
    type: random:RandomInteger
    properties:
      min: 1024
      max: 65535
    options:
      import: "8080,1024,65535"
      protect: true
  db-id:
    type: random:RandomId
    properties:
      byteLength: 4
    options:
      import: kT3ZqA
outputs:
  port: ${port.result}
  dbHex: ${db-id.hex}
"#;

fn ops(preview: &Value) -> Vec<String> {
    preview["preview"]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["op"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn an_import_program_previews_commits_and_then_previews_clean() {
    let app = common::app(false).await;
    let id = empty_stack(&app).await;

    let (status, preview) =
        call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), IMPORTS)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(ops(&preview), ["create shop-dev", "create default", "import port", "import db-id"]);
    assert_eq!(preview["preview"]["plan"]["outputs"], json!({"port": 8080, "dbHex": "913dd9a8"}));
    // Imports of other IDs the program would create are listed for `--import-file` users.
    assert_eq!(preview["preview"]["importFile"], json!({"resources": []}));
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{id}"))).await;
    assert_eq!(summary["version"], 1, "a preview writes nothing");

    let preview_id = preview["id"].as_str().unwrap();
    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    assert_eq!(committed["version"], 2);

    let res = app.clone().oneshot(get(&format!("/api/v1/stacks/{id}/export"))).await.unwrap();
    let export: Value =
        serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap();
    let resources = export["deployment"]["resources"].as_array().unwrap();
    let port = resources.iter().find(|r| r["urn"].as_str().unwrap().ends_with("::port")).unwrap();
    assert_eq!(
        (port["id"].clone(), port["importID"].clone(), port["protect"].clone()),
        (json!("8080"), json!("8080,1024,65535"), json!(true))
    );
    assert_eq!(port["type"], "random:index/randomInteger:RandomInteger");
    let root = &resources[0];
    assert_eq!(
        (root["type"].clone(), root["outputs"]["port"].clone()),
        (json!("pulumi:pulumi:Stack"), json!(8080))
    );

    // The committed import leaves no diff: the same program previews as unchanged, import
    // option and all (import case 2).
    let (status, again) = call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), IMPORTS)).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(ops(&again), ["same shop-dev", "same default", "same port", "same db-id"]);
}

#[tokio::test]
async fn commits_that_would_surprise_are_refused_and_change_nothing() {
    let app = common::app(false).await;
    let id = empty_stack(&app).await;

    // The program says max 60000; the resource has 65535: a warning in the preview, per property.
    let differs = IMPORTS.replace("max: 65535", "max: 60000");
    let (_, preview) = call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), &differs)).await;
    let port = &preview["preview"]["plan"]["steps"][2];
    assert_eq!(port["op"], "import");
    let max = port["diffs"].as_array().unwrap().iter().find(|d| d["path"] == "max").unwrap();
    assert_eq!(
        (max["program"].clone(), max["read"].clone(), max["kind"].clone(), max["cause"].clone()),
        (json!(60000), json!(65535), json!("replace"), json!("program"))
    );
    let (status, refused) = call(
        &app,
        post(&format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()), ""),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["code"], "commit_refused");
    assert!(refused["error"]["message"].as_str().unwrap().contains("`port`: `max`"), "{refused}");

    // A program that creates something: refused unless the user asks Ferry to apply it.
    let creates =
        format!("{IMPORTS}  pet:\n    type: random:RandomPet\n    properties:\n      length: 3\n")
            .replace("outputs:\n  port: ${port.result}\n  dbHex: ${db-id.hex}\n", "")
            + "outputs:\n  pet: ${pet.id}\n";
    let (status, preview) =
        call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), &creates)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(
        ops(&preview),
        ["create shop-dev", "create default", "import port", "import db-id", "create pet"]
    );
    assert_eq!(preview["preview"]["plan"]["outputs"]["pet"], "[unknown]");
    assert_eq!(
        preview["preview"]["importFile"]["resources"][0],
        json!({"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "<PLACEHOLDER>"})
    );
    let preview_id = preview["id"].as_str().unwrap();
    let (status, refused) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit"), "")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("create `pet`"), "{refused}");
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{id}"))).await;
    assert_eq!(summary["version"], 1, "refused commits write nothing");

    let (status, applied) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit?apply=true"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{applied}");
    let (_, again) = call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), &creates)).await;
    assert_eq!(
        ops(&again),
        ["same shop-dev", "same default", "same port", "same db-id", "same pet"]
    );
    let pet = again["preview"]["plan"]["outputs"]["pet"].as_str().unwrap();
    assert_eq!(pet.split('-').count(), 3, "a real pet name: {pet}");

    // A preview made before the stack moved on cannot be committed.
    let (status, stale) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit?apply=true"), "")).await;
    assert_eq!(status, StatusCode::CONFLICT, "{stale}");
}

#[tokio::test]
async fn bad_programs_are_refused_with_file_line_and_property() {
    let app = common::app(false).await;
    let id = empty_stack(&app).await;
    let bad = "resources:\n  pet:\n    type: random:RandomPett\n  port:\n    type: random:RandomInteger\n    properties:\n      min: ${nothing.here}\n";
    let (status, error) = call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), bad)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["error"]["code"], "invalid_program");
    assert_eq!(error["error"]["diagnostics"][0]["line"], 7);
    assert_eq!(error["error"]["diagnostics"][0]["path"], "resources.port.properties.min");

    // Past the structure, types are checked against the provider's schema.
    let (status, error) = call(
        &app,
        yaml(
            &format!("/api/v1/stacks/{id}/previews"),
            "resources:\n  pet:\n    type: random:RandomPett\n",
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let d = &error["error"]["diagnostics"][0];
    assert_eq!((d["line"].clone(), d["path"].clone()), (json!(3), json!("resources.pet.type")));
    assert!(d["message"].as_str().unwrap().contains("did you mean `random:RandomPet`"), "{d}");

    let (status, error) =
        call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), "resources: [unclosed\n")).await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("invalid_program"))
    );
    let (_, summary) = call(&app, get(&format!("/api/v1/stacks/{id}"))).await;
    assert_eq!(summary["version"], 1);
}

#[tokio::test]
async fn a_project_zip_and_the_json_form_with_config_and_a_mapping() {
    let app = common::app(false).await;
    let id = empty_stack(&app).await;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("shop/Pulumi.yaml", options).unwrap();
    zip.write_all(b"name: shop\nruntime: yaml\n").unwrap();
    zip.start_file("shop/Main.yaml", options).unwrap();
    zip.write_all(IMPORTS.as_bytes()).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let req = Request::post(format!("/api/v1/stacks/{id}/previews"))
        .header("content-type", "application/zip")
        .body(Body::from(bytes))
        .unwrap();
    let (status, preview) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(preview["preview"]["file"], "shop/Main.yaml");
    assert_eq!(ops(&preview)[2..], ["import port", "import db-id"]);

    // Config (a secret one too) and a mapping that turns a would-be create into an import.
    let program = "config:\n  size:\n    type: integer\n  token:\n    type: string\n    secret: true\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: ${size}\n      max: 65535\n  other:\n    type: random:RandomInteger\n    properties:\n      min: 1\n      max: 2\noutputs:\n  token: ${token}\n";
    let body = json!({"program": program, "config": {"size": "1024", "token": {"value": "s3cr3t", "secret": true}}, "mapping": {"port": "8080,1024,65535"}});
    let (status, preview) =
        call(&app, post(&format!("/api/v1/stacks/{id}/previews"), &body.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(ops(&preview), ["create shop-dev", "create default", "import port"]);
    assert_eq!(preview["preview"]["plan"]["skipped"][0]["name"], "other");
    assert_eq!(preview["preview"]["plan"]["outputs"]["token"], "[secret]");
    assert!(!preview.to_string().contains("s3cr3t"), "secret config never shows");
}

#[tokio::test]
async fn a_password_imported_by_its_value_never_shows_and_previews_clean_after_commit() {
    let app = common::app(false).await;
    let id = empty_stack(&app).await;
    let program = "resources:\n  admin:\n    type: random:RandomPassword\n    properties:\n      length: 21\n    options:\n      import: correct-horse-battery\noutputs:\n  password: ${admin.result}\n";
    let (status, preview) =
        call(&app, yaml(&format!("/api/v1/stacks/{id}/previews"), program)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let step = &preview["preview"]["plan"]["steps"][2];
    assert_eq!(
        (step["op"].clone(), step["import_id"].clone()),
        (json!("import"), json!("[secret]"))
    );
    assert_eq!(preview["preview"]["plan"]["outputs"]["password"], "[secret]");
    assert!(!preview["preview"].to_string().contains("correct-horse-battery"), "{preview}");

    // Secrets need the stack's passphrase to be written (the stack has no secrets provider yet).
    let commit = |pass: Option<&str>| {
        let mut req =
            Request::post(format!("/api/v1/previews/{}/commit", preview["id"].as_str().unwrap()));
        if let Some(p) = pass {
            req = req.header("x-ferry-passphrase", p);
        }
        req.body(Body::empty()).unwrap()
    };
    let (status, refused) = call(&app, commit(None)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let (status, committed) = call(&app, commit(Some("open sesame"))).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let res = app.clone().oneshot(get(&format!("/api/v1/stacks/{id}/export"))).await.unwrap();
    let export =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(
        !export.contains("correct-horse-battery"),
        "the state holds the password encrypted only"
    );

    let again = Request::post(format!("/api/v1/stacks/{id}/previews"))
        .header("content-type", "application/yaml")
        .header("x-ferry-passphrase", "open sesame")
        .body(Body::from(program))
        .unwrap();
    let (status, again) = call(&app, again).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(ops(&again), ["same shop-dev", "same default", "same admin"]);
}
