//! Imports into a real stack: a 93-resource `pulumi stack export` written by a real tool, and a
//! program plan that declares only the two resources it imports. In the plan's default
//! `imports` scope the rest of the stack is untouched (never a delete), the commit writes it
//! back field for field in an order Pulumi accepts, and previewing again gives only `same`.

use crate::common;

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::{call, get};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

fn post(uri: &str, body: Value) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn fixture() -> Vec<u8> {
    let dir =
        std::env::var_os("FERRY_FIXTURES").map(std::path::PathBuf::from).unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
        });
    std::fs::read(dir.join("pulumi/state/tool-generated-export/dns-to-db-flat.export.json"))
        .expect("the shared fixtures")
}

async fn export(app: &Router, stack: &str) -> Value {
    let res = app.clone().oneshot(get(&format!("/api/v1/stacks/{stack}/export"))).await.unwrap();
    serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

fn ops(record: &Value) -> Vec<String> {
    record["preview"]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["op"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_two_resource_import_program_leaves_a_93_resource_stack_untouched() {
    let app = common::app(false).await;
    let req = Request::post("/api/v1/stacks?name=acme/dns-to-db/dev")
        .body(Body::from(fixture()))
        .unwrap();
    let (status, stack) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let before = export(&app, &stack).await;
    let olds = before["deployment"]["resources"].as_array().unwrap().clone();
    assert_eq!(olds.len(), 93);
    let vpc = olds.iter().find(|r| r["type"] == "aws:ec2/vpc:Vpc").unwrap()["urn"]
        .as_str()
        .unwrap()
        .to_string();

    // A snippet: two imports, one placed after a resource of the stack by URN.
    let program = format!(
        "name: dns-to-db\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1024\n      max: 65535\n    options:\n      import: \"8080,1024,65535\"\n  suffix:\n    type: random:RandomId\n    properties:\n      byteLength: 4\n    options:\n      import: kT3ZqA\n      dependsOn:\n        - {vpc}\n"
    );
    let (status, plan) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"title": "two imports", "program": program}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    assert_eq!(plan["current"]["options"]["scope"], "imports", "the default scope of a plan");
    let plan = plan["id"].as_str().unwrap().to_string();

    let (preview_id, record) = common::plan_preview(&app, &plan).await;
    assert_eq!(
        ops(&record),
        ["same dns-to-db-dev", "create default", "import port", "import suffix"],
        "no deletes"
    );
    assert_eq!(record["preview"]["plan"]["untouched"], 92);
    assert_eq!(record["preview"]["plan"]["scope"], "imports");
    let (_, rows) = call(&app, get(&format!("/api/v1/previews/{preview_id}/results"))).await;
    let rows = rows["rows"].clone();
    assert!(rows.as_array().unwrap().iter().all(|r| r["status"] != "delete"), "{rows}");

    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview_id}/commit"), json!({}))).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    assert_eq!(committed["version"], 2);

    // Every resource the program does not declare is written back field for field.
    let after = export(&app, &stack).await;
    let written = after["deployment"]["resources"].as_array().unwrap();
    assert_eq!(written.len(), 93 + 3, "the stack, a default random provider and the two imports");
    let by_urn: HashMap<&str, &Value> =
        written.iter().map(|r| (r["urn"].as_str().unwrap(), r)).collect();
    for old in &olds {
        assert_eq!(by_urn.get(old["urn"].as_str().unwrap()), Some(&old), "kept as it was");
    }
    // In an order Pulumi accepts: everything a resource refers to comes before it.
    let mut seen = std::collections::HashSet::new();
    for r in written {
        let provider =
            r["provider"].as_str().and_then(|p| p.rsplit_once("::")).map(|(u, _)| u.to_string());
        let refs = r["parent"].as_str().map(str::to_string).into_iter().chain(provider).chain(
            r["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str().map(str::to_string)),
        );
        for d in refs {
            assert!(seen.contains(&d), "`{}` comes before `{d}`", r["urn"]);
        }
        seen.insert(r["urn"].as_str().unwrap().to_string());
    }
    let suffix = written.iter().find(|r| r["urn"].as_str().unwrap().ends_with("::suffix")).unwrap();
    assert_eq!(suffix["dependencies"], json!([vpc]));

    // The same program again: nothing to do.
    let (_, again) = common::plan_preview(&app, &plan).await;
    assert_eq!(ops(&again), ["same dns-to-db-dev", "same default", "same port", "same suffix"]);
    assert_eq!(again["preview"]["plan"]["untouched"], 92);

    // As a whole-stack program, the same text would delete everything else, as `pulumi up` would.
    let (status, _) = call(
        &app,
        post(
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"program": program.replace("      dependsOn:\n        - ", "      # ").replace(&vpc, "no URN here"), "options": {"scope": "whole-stack"}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, whole) = common::plan_preview(&app, &plan).await;
    let deletes = ops(&whole).iter().filter(|o| o.starts_with("delete ")).count();
    assert_eq!(deletes, 92, "{:?}", ops(&whole));
}

#[tokio::test]
async fn a_whole_stack_program_may_not_name_the_stacks_resources_by_urn() {
    let app = common::app(false).await;
    let req = Request::post("/api/v1/stacks?name=acme/dns-to-db/dev")
        .body(Body::from(fixture()))
        .unwrap();
    let (_, stack) = call(&app, req).await;
    let stack = stack["id"].as_str().unwrap();
    let program = "name: dns-to-db\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1\n      max: 9\n    options:\n      import: \"5,1,9\"\n      parent: urn:pulumi:dev::dns-to-db::aws:ec2/vpc:Vpc::nowhere\n";
    for (scope, expected) in [
        ("whole-stack", "only a plan in the `imports` scope may name one"),
        ("imports", "is not a resource in the stack"),
    ] {
        let req = Request::post(format!("/api/v1/stacks/{stack}/previews?scope={scope}"))
            .header("content-type", "application/yaml")
            .body(Body::from(program))
            .unwrap();
        let (status, error) = call(&app, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
        assert!(error.to_string().contains(expected), "{scope}: {error}");
        assert!(error.to_string().contains("resources.port.options.parent"), "{error}");
    }
}

/// A state uploaded under a name its URNs do not carry is refused, naming the names it does
/// carry (as `pulumi stack import` refuses a file "from a different stack"); with `force` it is
/// moved to the new name as `pulumi stack rename` moves a stack, every URN and reference with
/// it, and a program import into it then commits.
#[tokio::test]
async fn a_state_under_another_stacks_name_is_refused_or_moved_whole() {
    let app = common::app(false).await;
    let req =
        Request::post("/api/v1/stacks?name=acme/web/prod").body(Body::from(fixture())).unwrap();
    let (status, refused) = call(&app, req).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("stack_mismatch")),
        "{refused}"
    );
    assert_eq!(
        refused["error"]["names"],
        json!(["acme/dns-to-db/dev"]),
        "the names the file carries, to offer: {refused}"
    );
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("acme/dns-to-db/dev"),
        "{refused}"
    );
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    assert_eq!(stacks, json!([]), "nothing stored");

    let req = Request::post("/api/v1/stacks?name=acme/web/prod&force=true")
        .body(Body::from(fixture()))
        .unwrap();
    let (status, stack) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let moved = export(&app, &stack).await;
    let text = moved.to_string();
    assert!(!text.contains("urn:pulumi:dev::dns-to-db::"), "every URN and reference renamed");
    let resources = moved["deployment"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 93);
    assert_eq!(resources[0]["urn"], "urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod");

    let program = "name: web\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1024\n      max: 65535\n    options:\n      import: \"8080,1024,65535\"\n";
    let (status, plan) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/plans"), json!({"program": program})))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let (preview, record) = common::plan_preview(&app, plan["id"].as_str().unwrap()).await;
    assert_eq!(ops(&record), ["same web-prod", "create default", "import port"], "{record}");
    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview}/commit"), json!({}))).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await;
    let port = after["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::port"))
        .unwrap()
        .clone();
    assert_eq!(port["parent"], "urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod", "{port}");
}

/// Code for a plan's imports types what it imports: two random integers imported into the
/// stack of 93 AWS resources get their code without the `aws` provider's schema (no `aws`
/// plugin is installed here), and what users read never shows where the server looks for
/// plugins (its user's home, the toolchain's and the checkout's folders).
#[tokio::test]
async fn code_for_imports_needs_no_package_they_do_not_import_and_messages_show_no_server_folders()
{
    let app = common::app(false).await;
    let req = Request::post("/api/v1/stacks?name=acme/dns-to-db/dev")
        .body(Body::from(fixture()))
        .unwrap();
    let (status, stack) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [
        {"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "8080,1024,65535"},
        {"type": "random:index/randomId:RandomId", "name": "suffix", "id": "kT3ZqA"}
    ]});
    let (status, preview) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/previews"), spec)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let preview = preview["id"].as_str().unwrap();
    for lang in ["yaml", "ts"] {
        let (status, code) =
            call(&app, get(&format!("/api/v1/previews/{preview}/code?lang={lang}&format=json")))
                .await;
        assert_eq!(status, StatusCode::OK, "{lang}: {code}");
        let text = code["code"].as_str().unwrap();
        assert!(text.contains("65535") && !text.contains("aws"), "{lang}:\n{text}");
    }
    // The server's folders stay in its log: not in the Discover tab's reasons, nor in a
    // failed entry's message.
    let folders: Vec<String> =
        [common::plugin_dir().display().to_string(), std::env::var("HOME").unwrap_or_default()]
            .into_iter()
            .filter(|f| f.len() > 1)
            .chain(
                std::env::var("PATH")
                    .unwrap_or_default()
                    .split(':')
                    .filter(|d| d.len() > 1)
                    .map(str::to_string),
            )
            .collect();
    let (status, types) =
        call(&app, get(&format!("/api/v1/stacks/{stack}/discoveries/types"))).await;
    assert_eq!(status, StatusCode::OK, "{types}");
    let aws = types["packages_without_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["package"] == "aws")
        .cloned()
        .unwrap();
    assert!(aws["reason"].as_str().unwrap().contains("pulumi-resource-aws"), "{aws}");
    let spec = json!({"resources": [{"type": "aws:s3/bucket:Bucket", "name": "b", "id": "b"}]});
    let (_, failed) = call(&app, post(&format!("/api/v1/stacks/{stack}/previews"), spec)).await;
    for text in [types.to_string(), failed.to_string()] {
        for folder in &folders {
            assert!(!text.contains(folder.as_str()), "`{folder}` shown to a user: {text}");
        }
    }
}
