//! Editing and reviewing plans through the API: problems placed for the editor, completion
//! data from the providers' schemas, review rows and details with each property's source,
//! one-click resolutions that write the next revision and preview it again, the graph of a
//! preview by status, and the same review (never the edits) through a read-only link.

use crate::common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::{call, get};
use serde_json::{json, Value};

fn post_json(uri: &str, body: Value) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn post_text(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri).body(Body::from(body.to_string())).unwrap()
}

const PROGRAM: &str = "name: demo\nruntime: yaml\nresources:\n  port:\n    type: random:RandomInteger\n    properties:\n      min: 1 # lowest\n      max: 20\n    options:\n      import: \"7,1,10\"\n";

async fn demo_stack(app: &Router) -> String {
    let (_, stacks) = call(app, get("/api/v1/stacks")).await;
    stacks[0]["id"].as_str().unwrap().to_string()
}

/// A plan of the demo stack holding `body` (`{"spec"}` or `{"program"}`); its ID.
async fn plan_with(app: &Router, body: Value) -> String {
    let stack = demo_stack(app).await;
    let (status, plan) = call(app, post_json(&format!("/api/v1/stacks/{stack}/plans"), body)).await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    plan["id"].as_str().unwrap().to_string()
}

/// Starts the plan's preview and waits for it to end; returns the job.
async fn preview(app: &Router, plan: &str) -> Value {
    let (status, job) = call(
        app,
        Request::post(format!("/api/v1/plans/{plan}/previews")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    wait(app, plan, job["id"].as_str().unwrap()).await
}

async fn wait(app: &Router, plan: &str, job: &str) -> Value {
    for _ in 0..600 {
        let (_, j) = call(app, get(&format!("/api/v1/plans/{plan}/jobs/{job}"))).await;
        if !matches!(j["status"].as_str(), Some("queued" | "running")) {
            assert_eq!(j["status"], "done", "{j}");
            return j;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the preview did not end");
}

#[tokio::test]
async fn problems_are_placed_for_the_editor() {
    let app = common::app(false).await;
    let spec = "{\n  \"resources\": [\n    {\"type\": \"random:index/randomPet:RandomPet\", \"nmae\": \"a\", \"id\": \"x\"}\n  ]\n}";
    let (status, markers) = call(&app, post_text("/api/v1/markers?kind=spec", spec)).await;
    assert_eq!(status, StatusCode::OK, "{markers}");
    let markers = markers.as_array().unwrap();
    let typo =
        markers.iter().find(|m| m["path"] == "resources[0].nmae").expect("the misspelled field");
    assert_eq!(
        (typo["severity"].clone(), typo["line"].clone(), typo["column"].clone()),
        (json!("warning"), json!(3), json!(50))
    );
    assert!(
        markers
            .iter()
            .any(|m| m["severity"] == "error" && m["message"].as_str().unwrap().contains("`name`")),
        "{markers:?}"
    );

    let (_, markers) =
        call(&app, post_text("/api/v1/markers?kind=spec", "{\"resources\": [")).await;
    assert_eq!(markers[0]["line"], 1);
    assert!(markers[0]["message"].as_str().unwrap().starts_with("not valid JSON"));

    let (_, markers) = call(
        &app,
        post_text("/api/v1/markers?kind=program", &PROGRAM.replace("options:", "optoins:")),
    )
    .await;
    assert_eq!(markers[0]["line"], 9, "{markers}");
    assert!(
        markers[0]["message"].as_str().unwrap().contains("did you mean `options`"),
        "{markers}"
    );
    let (_, markers) = call(&app, post_text("/api/v1/markers?kind=program", PROGRAM)).await;
    assert_eq!(markers, json!([]));

    let (status, error) = call(&app, post_text("/api/v1/markers?kind=toml", PROGRAM)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
}

#[tokio::test]
async fn editors_complete_types_from_the_providers_and_names_from_the_stack() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let (status, help) = call(&app, get(&format!("/api/v1/stacks/{stack}/editor-help"))).await;
    assert_eq!(status, StatusCode::OK, "{help}");
    let types = help["types"].as_array().unwrap();
    let integer = types
        .iter()
        .find(|t| t["token"] == "random:index/randomInteger:RandomInteger")
        .expect("RandomInteger from the random plugin's schema");
    assert!(integer["inputs"].as_array().unwrap().contains(&json!("max")));
    // Each type says what its import ID is made of, as its package states it; one without an
    // ID says so.
    assert_eq!(
        integer["recipe"]["parts"],
        json!([{"property": "result"}, {"literal": ","}, {"property": "min"}, {"literal": ","}, {"property": "max"}])
    );
    assert_eq!(integer["recipe"]["source"], "package");
    let pet = types.iter().find(|t| t["token"] == "random:index/randomPet:RandomPet").unwrap();
    assert!(pet.get("recipe").is_none(), "{pet}");
    let per_type =
        help["json_schema"]["properties"]["resources"]["items"]["allOf"].as_array().unwrap();
    let id_help = |token: &str| {
        per_type.iter().find(|t| t["if"]["properties"]["type"]["const"] == token).unwrap()["then"]
            ["properties"]["id"]["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        id_help("random:index/randomInteger:RandomInteger"),
        "The import ID: <result>,<min>,<max>"
    );
    assert!(id_help("random:index/randomPet:RandomPet").contains("documents no import ID format"));
    assert!(help["names"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["name"] == "web" && n["provider"] == false));
    assert!(help["names"].as_array().unwrap().iter().any(|n| n["provider"] == true));
    let items = &help["json_schema"]["properties"]["resources"]["items"];
    assert!(items["properties"]["type"]["examples"]
        .as_array()
        .unwrap()
        .contains(&json!("random:index/randomPet:RandomPet")));
    assert!(items["properties"]["parent"]["examples"].as_array().unwrap().contains(&json!("web")));
}

#[tokio::test]
async fn a_program_import_is_reviewed_and_resolved_until_it_commits_clean() {
    let app = common::app(true).await;
    let plan_id = plan_with(&app, json!({"title": "Port", "program": PROGRAM})).await;
    let job = preview(&app, &plan_id).await;
    let preview_id = job["preview_id"].as_str().unwrap().to_string();

    let (status, rows) = call(&app, get(&format!("/api/v1/previews/{preview_id}/results"))).await;
    let rows = rows["rows"].clone();
    assert_eq!(status, StatusCode::OK, "{rows}");
    let port = rows.as_array().unwrap().iter().find(|r| r["name"] == "port").unwrap().clone();
    assert_eq!(
        (port["status"].clone(), port["differs"].clone()),
        (json!("import"), json!(["max"]))
    );
    // The stack's root and default provider are not review items.
    assert!(!rows.as_array().unwrap().iter().any(|r| r["type"] == "pulumi:pulumi:Stack"));

    let urn = port["urn"].as_str().unwrap().to_string();
    let detail_uri = format!(
        "/api/v1/previews/{preview_id}/results/resource?urn={}",
        urn.replace(':', "%3A").replace('/', "%2F")
    );
    let (status, detail) = call(&app, get(&detail_uri)).await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail["source_kind"], "program");
    let read: Value = serde_json::from_str(detail["read_inputs"].as_str().unwrap()).unwrap();
    let program: Value = serde_json::from_str(detail["program_inputs"].as_str().unwrap()).unwrap();
    assert_eq!((read["max"].clone(), program["max"].clone()), (json!(10), json!(20)));
    let max = detail["properties"].as_array().unwrap().iter().find(|p| p["path"] == "max").unwrap();
    assert_eq!((max["kind"].clone(), max["source"].clone()), (json!("replace"), json!("program")));

    // Bad resolutions say what is wrong and write nothing.
    let resolve = format!("/api/v1/plans/{plan_id}/resolutions");
    let (status, error) = call(
        &app,
        post_json(
            &resolve,
            json!({"preview": preview_id, "urn": urn, "property": "max", "action": "merge"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("unknown variant `merge`"), "{message}");
    assert!(message.contains("`adopt`, `keep`, `ignore`, `omit`"), "{message}");
    let (status, error) = call(
        &app,
        post_json(
            &resolve,
            json!({"preview": preview_id, "urn": urn, "property": "seed", "action": "adopt"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let (_, current) = call(&app, get(&format!("/api/v1/plans/{plan_id}"))).await;
    assert_eq!(current["revision"], 1);

    // Adopting the read value writes revision 2 (the rest of the program as it was) and
    // previews it: the import no longer differs.
    let (status, resolved) = call(
        &app,
        post_json(
            &resolve,
            json!({"preview": preview_id, "urn": urn, "property": "max", "action": "adopt"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    assert_eq!(resolved["plan"]["current"]["revision"], 2);
    assert_eq!(resolved["plan"]["current"]["program"], PROGRAM.replace("max: 20", "max: 10"));
    let job = wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
    let second = job["preview_id"].as_str().unwrap().to_string();
    let (_, detail) = call(&app, get(&detail_uri.replace(&preview_id, &second))).await;
    let max = detail["properties"].as_array().unwrap().iter().find(|p| p["path"] == "max").unwrap();
    assert_eq!(
        (max["kind"].clone(), max["source"].clone(), max["decision"].clone()),
        (json!("none"), json!("user"), json!("adopt"))
    );
    assert_eq!(detail["differs"], json!([]));

    // A resolution against a preview of an older revision is refused.
    let (status, error) = call(
        &app,
        post_json(
            &resolve,
            json!({"preview": preview_id, "urn": urn, "property": "min", "action": "ignore"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("preview it again"), "{error}");
    // ignoreChanges goes into the program's options.
    let (status, resolved) = call(
        &app,
        post_json(
            &resolve,
            json!({"preview": second, "urn": urn, "property": "min", "action": "ignore"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    assert!(resolved["plan"]["current"]["program"]
        .as_str()
        .unwrap()
        .contains("      import: \"7,1,10\"\n      ignoreChanges: [\"min\"]\n"));
    wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
}

#[tokio::test]
async fn a_spec_resolution_edits_properties_and_the_graph_marks_statuses() {
    let app = common::app(true).await;
    let spec = r#"{"resources": [
        {"type": "random:index/randomString:RandomString", "name": "token", "id": "abcdef"},
        {"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "x"}
    ]}"#;
    let plan_id = plan_with(&app, json!({"spec": spec})).await;
    let job = preview(&app, &plan_id).await;
    let preview_id = job["preview_id"].as_str().unwrap().to_string();

    let (_, rows) = call(&app, get(&format!("/api/v1/previews/{preview_id}/results"))).await;
    let rows = rows["rows"].clone();
    let statuses: Vec<&str> =
        rows.as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["ready", "failed"]);
    assert!(rows[1]["warnings"][0].as_str().unwrap().contains("cannot be imported"));
    let urn = rows[0]["urn"].as_str().unwrap().to_string();

    let (_, graph) = call(&app, get(&format!("/api/v1/previews/{preview_id}/graph"))).await;
    let marked: Vec<(&str, &str)> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| Some((n["name"].as_str()?, n["status"].as_str()?)))
        .collect();
    assert_eq!(marked, vec![("token", "ready"), ("pet", "failed")]);
    assert_eq!(
        graph["nodes"].as_array().unwrap().len(),
        22,
        "the demo's 20 resources and the two planned"
    );
    assert_eq!(graph["committed"], false);

    // Leaving `special` out of the code writes `properties` with every other input Read returned.
    let (status, resolved) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan_id}/resolutions"),
            json!({"preview": preview_id, "urn": urn, "property": "special", "action": "omit"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    let spec: Value =
        serde_json::from_str(resolved["plan"]["current"]["spec"].as_str().unwrap()).unwrap();
    let kept = spec["resources"][0]["properties"].as_array().unwrap();
    assert!(kept.contains(&json!("length")) && !kept.contains(&json!("special")), "{kept:?}");
    // `ignore` is for programs.
    let job = wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
    let second = job["preview_id"].as_str().unwrap().to_string();
    // A spec's values come from Read; the property left out still shows, to adopt it back.
    let (_, detail) = call(
        &app,
        get(&format!("/api/v1/previews/{second}/results/resource?urn={}", urn.replace('$', "%24"))),
    )
    .await;
    assert_eq!(detail["source_kind"], "spec", "{detail}");
    let props = detail["properties"].as_array().unwrap();
    let length = props.iter().find(|p| p["path"] == "length").unwrap();
    assert_eq!(
        (length["source"].clone(), length["why"].clone()),
        (
            json!("read"),
            json!("Read returned it; the spec keeps it, so the generated code sets it")
        )
    );
    let special = props
        .iter()
        .find(|p| p["path"] == "special")
        .expect("the property left out is still reviewed");
    // Left out of the code, `special` comes back through the random provider's Check default.
    assert_eq!(
        (special["read"].clone(), special["program"].clone(), special["why"].clone()),
        (
            json!(true),
            json!(null),
            json!("the generated code leaves it out; the provider's Check filled in this default")
        )
    );
    let (status, error) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan_id}/resolutions"),
            json!({"preview": second, "urn": urn, "property": "length", "action": "ignore"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");

    // After a commit the graph is the new version, with the imported resource managed.
    let (status, committed) = call(
        &app,
        Request::post(format!("/api/v1/previews/{second}/commit")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let (_, graph) = call(&app, get(&format!("/api/v1/previews/{second}/graph"))).await;
    assert_eq!(graph["committed"], true);
    let managed: Vec<&str> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["status"] == "managed")
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(managed, vec!["token"]);
}

#[tokio::test]
async fn a_read_only_link_reviews_but_never_edits() {
    let app = common::app(true).await;
    let plan_id = plan_with(&app, json!({"program": PROGRAM})).await;
    let job = preview(&app, &plan_id).await;
    let preview_id = job["preview_id"].as_str().unwrap().to_string();
    let (_, share) = call(
        &app,
        Request::post(format!("/api/v1/plans/{plan_id}/shares")).body(Body::empty()).unwrap(),
    )
    .await;
    let token = share["token"].as_str().unwrap().to_string();

    let base = format!("/api/v1/shared/{token}/revisions/1/previews/0");
    let (status, rows) = call(&app, get(&format!("{base}/results"))).await;
    let rows = rows["rows"].clone();
    assert_eq!(status, StatusCode::OK, "{rows}");
    let urn = rows.as_array().unwrap().iter().find(|r| r["name"] == "port").unwrap()["urn"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, detail) = call(
        &app,
        get(&format!(
            "{base}/results/resource?urn={}",
            urn.replace(':', "%3A").replace('/', "%2F")
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    let (status, graph) = call(&app, get(&format!("{base}/graph"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        !graph.to_string().contains(&preview_id)
            && !detail.to_string().contains(&preview_id)
            && !rows.to_string().contains(&plan_id)
    );
    // A position past the previews, or another revision's, is not found.
    let (status, _) =
        call(&app, get(&format!("/api/v1/shared/{token}/revisions/1/previews/1/results"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The link is no key to edits: resolutions, saves and commits need the plan's and the
    // preview's IDs, which the link never shows; and a revoked link reads nothing.
    let (status, _) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{token}/resolutions"),
            json!({"preview": "0", "urn": urn, "property": "max", "action": "adopt"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let link = share["id"].as_str().unwrap();
    let (status, _) = call(
        &app,
        Request::delete(format!("/api/v1/plans/{plan_id}/shares/{link}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(&app, get(&format!("{base}/results"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The app with Ferry's random plugin and a `hang` plugin whose Read never answers.
async fn app_with_hanging_plugin(dir: &std::path::Path) -> Router {
    use std::os::unix::fs::PermissionsExt;
    let test_provider = common::plugin_dir().join("ferry-test-provider");
    assert!(test_provider.exists(), "cargo test --workspace builds ferry-test-provider");
    let wrapper = dir.join("pulumi-resource-hang");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nFERRY_TEST_PROVIDER_MODE=hang-on-read exec '{}' \"$@\"\n",
            test_provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![dir.to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    common::app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true).await
}

#[tokio::test]
async fn a_preview_that_hangs_is_cancelled_and_keeps_what_it_reported() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_with_hanging_plugin(dir.path()).await;
    let spec = r#"{"resources": [
        {"type": "hang:index:Thing", "name": "stuck", "id": "t-1"},
        {"type": "random:index/randomInteger:RandomInteger", "name": "port", "id": "7,1,10"}
    ]}"#;
    let plan_id = plan_with(&app, json!({"spec": spec})).await;
    let (_, job) = call(
        &app,
        Request::post(format!("/api/v1/plans/{plan_id}/previews")).body(Body::empty()).unwrap(),
    )
    .await;
    let job_id = job["id"].as_str().unwrap().to_string();
    // The random resource reports; the hanging one never does.
    let mut seen = json!(null);
    for _ in 0..400 {
        let (_, j) = call(&app, get(&format!("/api/v1/plans/{plan_id}/jobs/{job_id}"))).await;
        if j["finished"] == 1 {
            seen = j;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        (seen["status"].clone(), seen["events"][0]["name"].clone()),
        (json!("running"), json!("port")),
        "{seen}"
    );

    let (status, cancelled) = call(
        &app,
        Request::post(format!("/api/v1/plans/{plan_id}/jobs/{job_id}/cancel"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (
            cancelled["status"].clone(),
            cancelled["finished"].clone(),
            cancelled["preview_id"].clone()
        ),
        (json!("cancelled"), json!(1), json!(null))
    );
    // Nothing was stored for the revision, and the plan previews again.
    let (_, current) = call(&app, get(&format!("/api/v1/plans/{plan_id}"))).await;
    assert_eq!(current["current"]["previews"], json!([]));
    let (status, _) = call(
        &app,
        Request::post(format!("/api/v1/plans/{plan_id}/previews")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

/// A program importing a bucket of a provider whose Read returns zero values and defaults the
/// program leaves out, and whose Diff reports each: the review counts them, and one click adopts
/// them all (of a resource, or of the plan) as one revision, after which the import is clean.
#[tokio::test]
async fn zero_values_and_defaults_are_counted_and_adopted_in_one_click() {
    let plugins = common::naive_plugin_dir();
    let engine = ferry_service::EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let app = common::app_with(engine, false).await;
    let (status, stack) = call(
        &app,
        common::post("/api/v1/stacks?name=acme/buckets/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let bucket = |name: &str| {
        format!("  {name}:\n    type: test:index:Bucket\n    properties:\n      name: {name} # as it is called\n      versioning:\n        enabled: true\n    options:\n      import: {name}\n")
    };
    let program =
        format!("name: buckets\nruntime: yaml\nresources:\n{}{}", bucket("logs"), bucket("assets"));
    let (status, plan) = call(
        &app,
        post_json(
            &format!("/api/v1/stacks/{}/plans", stack["id"].as_str().unwrap()),
            json!({"program": program}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan_id = plan["id"].as_str().unwrap().to_string();
    let job = preview(&app, &plan_id).await;
    let preview_id = job["preview_id"].as_str().unwrap().to_string();

    let (_, rows) = call(&app, get(&format!("/api/v1/previews/{preview_id}/results"))).await;
    let rows = rows["rows"].clone();
    let logs = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "logs")
        .unwrap_or_else(|| panic!("{rows}"))
        .clone();
    let differs: Vec<&str> =
        logs["differs"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(differs.contains(&"forceDestroy") && differs.contains(&"tags"), "{logs}");
    let zero = logs["zero_or_default"].as_u64().unwrap() as usize;
    assert!(zero >= 2 && zero <= differs.len(), "{logs}");
    let urn = logs["urn"].as_str().unwrap().to_string();
    let detail_uri = format!(
        "/api/v1/previews/{preview_id}/results/resource?urn={}",
        urn.replace(':', "%3A").replace('/', "%2F")
    );
    let (_, detail) = call(&app, get(&detail_uri)).await;
    let property = |detail: &Value, path: &str| {
        detail["properties"].as_array().unwrap().iter().find(|p| p["path"] == path).cloned()
    };
    let force = property(&detail, "forceDestroy").unwrap();
    assert_eq!(
        (force["cause"].clone(), force["read"].clone()),
        (json!("zero-value"), json!(false)),
        "{force}"
    );
    // Down to the leaf: `versioning` differs only at `mfaDelete`, a zero value; `enabled` agrees.
    let leaf = property(&detail, "versioning.mfaDelete")
        .unwrap_or_else(|| panic!("no leaf versioning.mfaDelete: {detail}"));
    assert_eq!(
        (leaf["cause"].clone(), leaf["read"].clone(), leaf["program"].clone()),
        (json!("zero-value"), json!(false), Value::Null),
        "{leaf}"
    );
    assert_eq!(property(&detail, "versioning.enabled").unwrap()["cause"], "equal", "{detail}");

    // One leaf, adopted: written inside its block, the rest of the text as it was.
    let (status, resolved) = call(
        &app,
        post_json(
            &format!("/api/v1/plans/{plan_id}/resolutions"),
            json!({"preview": preview_id, "urn": urn, "property": "versioning.mfaDelete", "action": "adopt"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    let text = resolved["plan"]["current"]["program"].as_str().unwrap().to_string();
    assert!(
        text.contains("      versioning:\n        enabled: true\n        mfaDelete: false\n"),
        "{text}"
    );
    assert!(text.ends_with(&bucket("assets")), "the other resource's text is untouched: {text}");
    let job = wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
    let leaf_adopted = job["preview_id"].as_str().unwrap().to_string();
    let (_, detail) = call(&app, get(&detail_uri.replace(&preview_id, &leaf_adopted))).await;
    // The whole object now agrees, so it is one property again, equal.
    let versioning = property(&detail, "versioning.mfaDelete")
        .or_else(|| property(&detail, "versioning"))
        .unwrap_or_else(|| panic!("{detail}"));
    assert_eq!(
        (versioning["kind"].clone(), versioning["cause"].clone()),
        (json!("none"), json!("equal")),
        "{detail}"
    );
    assert!(
        !detail["differs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().starts_with("versioning")),
        "{detail}"
    );

    // One resource's, in one click: the other bucket is left as it was.
    let adopt = format!("/api/v1/plans/{plan_id}/resolutions/zero-values");
    let (status, resolved) =
        call(&app, post_json(&adopt, json!({"preview": leaf_adopted, "urn": urn}))).await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    let text = resolved["plan"]["current"]["program"].as_str().unwrap().to_string();
    let (logs_text, assets_text) = text.split_at(text.find("  assets:").unwrap());
    assert!(
        logs_text.contains("forceDestroy: false")
            && logs_text.contains("name: logs # as it is called"),
        "{text}"
    );
    assert_eq!(assets_text, bucket("assets"), "the other resource's text is untouched");
    let job = wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
    let second = job["preview_id"].as_str().unwrap().to_string();
    let (_, rows) = call(&app, get(&format!("/api/v1/previews/{second}/results"))).await;
    let rows = rows["rows"].clone();
    let row =
        |name: &str| rows.as_array().unwrap().iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(row("logs")["zero_or_default"], 0, "{rows}");
    assert!(row("assets")["zero_or_default"].as_u64().unwrap() >= 2, "{rows}");

    // The whole plan's: nothing is left that is only a zero value or a default.
    let (status, resolved) = call(&app, post_json(&adopt, json!({"preview": second}))).await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    assert_eq!(resolved["plan"]["current"]["revision"], 4);
    let job = wait(&app, &plan_id, resolved["job"]["id"].as_str().unwrap()).await;
    let third = job["preview_id"].as_str().unwrap().to_string();
    let (_, rows) = call(&app, get(&format!("/api/v1/previews/{third}/results"))).await;
    let rows = rows["rows"].clone();
    for r in rows.as_array().unwrap() {
        assert_eq!(r["zero_or_default"], 0, "{r}");
    }
    // Asked again, there is nothing to adopt: a clear refusal, and no revision is written.
    let (status, error) = call(&app, post_json(&adopt, json!({"preview": third}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("nothing to resolve"), "{error}");
    let (_, current) = call(&app, get(&format!("/api/v1/plans/{plan_id}"))).await;
    assert_eq!(current["revision"], 4);
    // What still differs is what is neither: `maxSessionDuration: 3600` (the schema's default,
    // but Check filled nothing, so Read's value is the resource's own), left to the reviewer.
    for r in rows.as_array().unwrap().iter().filter(|r| r["type"] == "test:index:Bucket") {
        assert_eq!(r["differs"], json!(["maxSessionDuration"]), "{r}");
    }
}

#[tokio::test]
async fn a_big_plans_results_are_paged_and_filtered_on_the_server_and_its_graph_summarised() {
    let app = common::app(true).await;
    const PORTS: usize = 1600;
    let mut resources: Vec<Value> = (0..PORTS)
        .map(|i| json!({"type": "random:index/randomInteger:RandomInteger", "name": format!("port-{i}"), "id": format!("{},1,10", 1 + i % 9)}))
        .collect();
    resources.push(json!({"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "x"}));
    let plan_id = plan_with(
        &app,
        json!({"title": "Many ports", "spec": json!({"resources": resources}).to_string()}),
    )
    .await;
    let job = preview(&app, &plan_id).await;
    let preview_id = job["preview_id"].as_str().unwrap().to_string();
    let base = format!("/api/v1/previews/{preview_id}/results");

    // Pages partition the rows, in the spec's order, and never pass the cap.
    let mut names = Vec::new();
    loop {
        let (status, page) =
            call(&app, get(&format!("{base}?offset={}&limit=700", names.len()))).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        assert_eq!(
            (page["total"].as_u64(), page["matched"].as_u64(), page["offset"].as_u64()),
            (Some(PORTS as u64 + 1), Some(PORTS as u64 + 1), Some(names.len() as u64))
        );
        let rows = page["rows"].as_array().unwrap();
        if rows.is_empty() {
            break;
        }
        assert!(rows.len() <= 700);
        names.extend(rows.iter().map(|r| r["name"].as_str().unwrap().to_string()));
    }
    let expected: Vec<String> =
        (0..PORTS).map(|i| format!("port-{i}")).chain(["pet".to_string()]).collect();
    assert_eq!(names, expected);
    let (_, page) = call(&app, get(&format!("{base}?limit=5000"))).await;
    assert_eq!(page["rows"].as_array().unwrap().len(), 1000, "a page holds at most 1,000 rows");
    // What the filters, the code and the commit need comes with every page.
    assert_eq!(page["by_status"], json!({"failed": 1, "ready": PORTS}));
    assert_eq!(
        page["types"],
        json!(["random:index/randomInteger:RandomInteger", "random:index/randomPet:RandomPet"])
    );

    // Filters run on the server: by status (one or several), by type, by text in any case.
    let (_, failed) = call(&app, get(&format!("{base}?status=failed"))).await;
    assert_eq!(
        (failed["matched"].as_u64(), failed["rows"][0]["name"].as_str()),
        (Some(1), Some("pet"))
    );
    let (_, some) =
        call(&app, get(&format!("{base}?status=ready,failed&filter=PORT-15&limit=20"))).await;
    // port-15, port-150…159 and port-1500…1599.
    assert_eq!((some["matched"].as_u64(), some["rows"].as_array().unwrap().len()), (Some(111), 20));
    // A word that names no status is refused by name, not taken as a filter matching nothing.
    let (status, error) = call(&app, get(&format!("{base}?status=ready,redy"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`redy` is not a status"), "{error}");
    let (_, pets) =
        call(&app, get(&format!("{base}?type=random%3Aindex%2FrandomPet%3ARandomPet"))).await;
    assert_eq!(pets["matched"], 1);

    // The graph is summarised: the ports are one group, marked as what they are.
    let (status, graph) = call(&app, get(&format!("/api/v1/previews/{preview_id}/graph"))).await;
    assert_eq!(status, StatusCode::OK);
    let nodes = graph["nodes"].as_array().unwrap();
    assert!(nodes.len() < 100, "{} nodes", nodes.len());
    let group = nodes.iter().find(|n| n["count"] == PORTS).unwrap_or_else(|| panic!("{graph}"));
    assert_eq!((group["kind"].as_str(), group["status"].as_str()), (Some("group"), Some("ready")));
    assert!(nodes.iter().any(|n| n["name"] == "pet" && n["status"] == "failed"));
    // Opened, each port shows its own status; `full=true` is every resource.
    let key = group["expand"]
        .as_str()
        .unwrap()
        .replace(':', "%3A")
        .replace('/', "%2F")
        .replace('@', "%40");
    let (_, opened) =
        call(&app, get(&format!("/api/v1/previews/{preview_id}/graph?expand={key}"))).await;
    let ports: Vec<&Value> = opened["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["type"] == "random:index/randomInteger:RandomInteger" && n["urn"] != "")
        .collect();
    assert!(
        ports.len() >= PORTS && ports.iter().all(|n| n["status"] == "ready"),
        "{} ports",
        ports.len()
    );
    let (_, full) =
        call(&app, get(&format!("/api/v1/previews/{preview_id}/graph?full=true"))).await;
    assert!(full["nodes"].as_array().unwrap().len() > PORTS);

    // The plan's page sends the first page of rows, not the job's events nor the other rows:
    // those come a page at a time. Of the spec it sends a screenful; the editor fetches the rest.
    let (status, html) = call(&app, get(&format!("/plans/{plan_id}"))).await;
    assert_eq!(status, StatusCode::OK);
    let html = html.as_str().unwrap();
    assert!(
        html.contains("more: the editor shows the whole import spec"),
        "a screenful of the spec is in the page"
    );
    assert!(
        html.contains(
            "data-urn=\"urn:pulumi:dev::demo::random:index/randomInteger:RandomInteger::port-9\""
        ),
        "the first rows are rendered in the page"
    );
    assert!(
        !html.contains("port-1599"),
        "no other row, no event, and not the rest of the spec in the page"
    );
    let (_, revision) = call(&app, get(&format!("/api/v1/plans/{plan_id}/revisions/1"))).await;
    assert!(
        revision["current"]["spec"].as_str().unwrap().contains("\"port-1599\""),
        "the editor's whole text comes from the API"
    );
}
