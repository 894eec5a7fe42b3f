//! Migrations from Terraform and OpenTofu through the API, against Ferry's real random plugin
//! (which answers `GetMapping` for `hashicorp/random`): the shared fixtures' state files become
//! plans that preview clean and commit into a live stack without touching its other
//! resources; unmapped providers and data sources are listed, never dropped; bad files are
//! refused by name before anything is asked of a plugin or saved.

use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::common::{self, call, get, plan_preview, post, step_lines, terraform_fixture};

/// An import step that shows no difference between what was recorded and what was read.
fn assert_no_difference(step: &Value) {
    assert_eq!(step["op"], "import", "{step}");
    assert!(step["error"].is_null() && step["changed"].is_null() && step["warnings"].is_null(), "{step}");
    assert!(step["diffs"].as_array().unwrap().iter().all(|d| d["kind"] == "none"), "{step}");
}

async fn demo_stack(app: &axum::Router) -> String {
    let (_, stacks) = call(app, get("/api/v1/stacks")).await;
    stacks[0]["id"].as_str().unwrap().to_string()
}

async fn export(app: &axum::Router, stack: &str) -> Value {
    let (status, export) = call(app, get(&format!("/api/v1/stacks/{stack}/export"))).await;
    assert_eq!(status, StatusCode::OK);
    export
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terraform_state_becomes_a_plan_that_previews_clean_and_commits() {
    let app = common::app(false).await;
    // A stack of its own: the code Ferry hands out must preview clean as the whole stack too.
    let (status, stack) = call(&app, post("/api/v1/stacks?name=acme/tf-project/dev", r#"{"version": 3, "deployment": {}}"#)).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let before = export(&app, &stack).await["deployment"]["resources"].as_array().cloned().unwrap_or_default();

    let (status, migration) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform?title=From%20Terraform"), &terraform_fixture("tf-project.tfstate"))).await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    assert_eq!(
        migration["resources"],
        json!([{"address": "random_string.example", "mode": "managed", "terraform_type": "random_string", "type": "random:index/randomString:RandomString",
                "name": "example", "id": "@(eF?C%#qSz<Jl5[", "status": "mapped", "reason": null, "provider": "hashicorp/random", "package": "random", "sensitive": false}])
    );
    let plan = &migration["plan"];
    assert_eq!(plan["title"], "From Terraform");
    let program = plan["current"]["program"].as_str().unwrap();
    assert!(program.contains("# terraform: random_string.example\n  example:\n    type: random:index/randomString:RandomString"), "{program}");
    assert_eq!(plan["current"]["options"]["scope"], "imports");
    assert_eq!(plan["origins"], json!({"example": "random_string.example"}), "the review table's Terraform addresses");
    assert_eq!(
        export(&app, &stack).await["deployment"]["resources"].as_array().cloned().unwrap_or_default(),
        before,
        "a migration writes nothing to the stack"
    );

    // Read by the provider, diffed against what Terraform recorded: nothing changed since.
    let (preview, record) = plan_preview(&app, plan["id"].as_str().unwrap()).await;
    let steps = step_lines(&record["preview"]["plan"]);
    assert!(steps.contains(&"import example".to_string()), "{steps:?}");
    let step = record["preview"]["plan"]["steps"].as_array().unwrap().iter().find(|s| s["name"] == "example").unwrap();
    assert_no_difference(step);

    let (status, committed) = call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();
    let imported = after.iter().find(|r| r["type"] == "random:index/randomString:RandomString" && r["urn"].as_str().unwrap().ends_with("::example")).unwrap();
    assert_eq!(imported["id"], "@(eF?C%#qSz<Jl5[");
    assert_eq!(after.len(), before.len() + 3, "the stack, its default provider and the import");
    common::assert_code_previews_same(&app, &stack, &preview, None, json!({})).await;
}

/// Every real `hashicorp/random` state of the fixtures, from Terraform and from OpenTofu, maps
/// and previews with no difference: each string is read as a refresh with what Terraform
/// recorded (`random-state.tfstate`'s has a character outside ASCII and an `override_special`,
/// which an import from the ID alone could not know).
#[tokio::test(flavor = "multi_thread")]
async fn every_real_random_state_previews_without_a_difference() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    for file in ["random-state.tfstate", "tf-project.tfstate", "tofu-project.tfstate"] {
        let (status, migration) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &terraform_fixture(file))).await;
        assert_eq!(status, StatusCode::CREATED, "{file}: {migration}");
        assert_eq!(
            (migration["resources"][0]["status"].clone(), migration["resources"][0]["provider"].clone()),
            (json!("mapped"), json!("hashicorp/random")),
            "{file}"
        );
        assert!(migration["plan"]["title"].as_str().unwrap().starts_with("Migrate from Terraform into "), "{migration}");
        let (_, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
        let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
        let imports: Vec<&Value> = steps.iter().filter(|s| s["op"] == "import").collect();
        assert_eq!(imports.len(), 1, "{file}: {steps:?}");
        assert_no_difference(imports[0]);
    }
}

/// Text Terraform recorded that looks like a YAML program's reference (`${…}`: a policy's
/// `${aws:username}`, a script's `${VAR}`) stays text: the program writes it escaped, and the
/// preview reads it back unchanged.
#[tokio::test(flavor = "multi_thread")]
async fn recorded_text_that_looks_like_a_reference_stays_text() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let mut state: Value = serde_json::from_str(&terraform_fixture("tf-project.tfstate")).unwrap();
    state["resources"][0]["instances"][0]["attributes"]["override_special"] = json!("${not.a.reference}");
    let (status, migration) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &state.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let (_, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    let example = steps.iter().find(|s| s["name"] == "example").unwrap_or_else(|| panic!("{record}"));
    assert_no_difference(example);
    assert_eq!(example["inputs"]["overrideSpecial"], "${not.a.reference}", "{example}");
}

#[tokio::test(flavor = "multi_thread")]
async fn providers_nobody_maps_are_listed_with_their_package_and_data_sources_as_such() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let (status, migration) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &terraform_fixture("aws-serverless.show.json"))).await;
    assert_eq!(status, StatusCode::OK, "no plan, nothing to import: {migration}");
    assert_eq!(migration["plan"], Value::Null);
    let rows = migration["resources"].as_array().unwrap();
    assert_eq!(rows.len(), 28);
    for row in rows {
        match row["mode"].as_str().unwrap() {
            "data" => assert_eq!(row["status"], "data_source", "{row}"),
            _ => assert_eq!(row["status"], "unmapped", "{row}"),
        }
    }
    let bucket = rows.iter().find(|r| r["address"] == "module.data_lake_bucket.aws_s3_bucket.this[0]").unwrap();
    assert_eq!((bucket["provider"].clone(), bucket["package"].clone()), (json!("hashicorp/aws"), json!("aws")));
    assert!(bucket["reason"].as_str().unwrap().contains("`hashicorp/aws`"), "{bucket}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_file_is_refused_by_name() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let real = terraform_fixture("tf-project.tfstate");
    let mut duplicate: Value = serde_json::from_str(&real).unwrap();
    let first = duplicate["resources"][0].clone();
    duplicate["resources"].as_array_mut().unwrap().push(first);
    for (body, expected) in [
        (real[..real.len() / 2].to_string(), "truncated"),
        ("{\"name\": \"web\"}".to_string(), "not a Terraform state"),
        (real.replace("\"version\": 4", "\"version\": 3"), "version 3"),
        (duplicate.to_string(), "`random_string.example` is in the state twice"),
    ] {
        let (status, error) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("the Terraform state: ") && message.contains(expected), "{message}");
    }
}

/// A plugin folder whose `pulumi-resource-acmecloud` is the Python provider beside this test,
/// run in the interop test's venv (PyPI `pulumi`, made under `target/` on first use).
fn acmecloud_plugin_dir() -> tempfile::TempDir {
    use std::path::Path;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-engine/tests/interop/venv.sh");
    let venv = std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("python-interop-venv");
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(script).arg(&venv).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "could not make the Python venv at {}: {}", venv.display(), String::from_utf8_lossy(&out.stderr));
    let provider = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/interop/acmecloud_provider.py");
    let plugin = dir.path().join("pulumi-resource-acmecloud");
    std::fs::write(&plugin, format!("#!/bin/sh\nexec \"{}\" \"{}\" \"$@\"\n", venv.join("bin/python").display(), provider.display())).unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    dir
}

/// The real `tf-project.tfstate` with resources of `acme/acmecloud` added: a module, `count`
/// (one instance tainted), `for_each`, a sensitive attribute, a dependency, a type the mapping
/// does not know and a data source.
fn acmecloud_state() -> String {
    let mut state: Value = serde_json::from_str(&terraform_fixture("tf-project.tfstate")).unwrap();
    let provider = "provider[\"registry.terraform.io/acme/acmecloud\"]";
    let bucket = |id: &str, size: i64, tags: Value| {
        json!({"schema_version": 0, "attributes": {"id": id, "name": id, "size": size, "tags": tags, "versioning": [{"enabled": true}],
               "secret_key": format!("s3cr3t-{id}"), "arn": format!("arn:acme:bucket/{id}")},
               "sensitive_attributes": [[{"type": "get_attr", "value": "secret_key"}]]})
    };
    let mut tainted = bucket("assets-1", 5, json!({}));
    tainted["status"] = json!("tainted");
    let mut first = bucket("assets-0", 5, json!({}));
    first["index_key"] = json!(0);
    tainted["index_key"] = json!(1);
    let mut eu = bucket("site-eu", 1, json!({"region": "eu"}));
    eu["index_key"] = json!("eu");
    let resources = state["resources"].as_array_mut().unwrap();
    resources.extend([
        json!({"module": "module.storage", "mode": "managed", "type": "acmecloud_bucket", "name": "logs", "provider": provider,
               "instances": [bucket("logs", 10, json!({"team": "web"}))]}),
        json!({"mode": "managed", "type": "acmecloud_bucket", "name": "assets", "each": "list", "provider": provider, "instances": [first, tainted]}),
        json!({"mode": "managed", "type": "acmecloud_bucket", "name": "site", "each": "map", "provider": provider, "instances": [eu]}),
        json!({"mode": "managed", "type": "acmecloud_policy", "name": "logs", "provider": provider,
               "instances": [{"schema_version": 0, "attributes": {"id": "policy-logs", "bucket": "logs", "document": "{\"allow\": \"read\"}"},
                              "dependencies": ["module.storage.acmecloud_bucket.logs"]}]}),
        json!({"mode": "managed", "type": "acmecloud_legacy", "name": "old", "provider": provider, "instances": [{"attributes": {"id": "legacy-1"}}]}),
        json!({"mode": "data", "type": "acmecloud_region", "name": "current", "provider": provider, "instances": [{"attributes": {"id": "eu", "name": "eu"}}]}),
    ]);
    state.to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_nobody_on_the_project_wrote_maps_its_own_state() {
    let plugins = acmecloud_plugin_dir();
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(vec![plugins.path().to_path_buf(), common::plugin_dir()], None, ferry_state::secrets::random_key());
    let (app, stacks) = common::admin_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true).await;
    let stack = demo_stack(&app).await;
    let before = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();

    let (status, migration) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &acmecloud_state())).await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let table: Vec<(String, String, String)> = migration["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["address"].as_str().unwrap().to_string(), r["status"].as_str().unwrap().to_string(), r["name"].as_str().unwrap_or("").to_string()))
        .collect();
    let row = |a: &str, s: &str, n: &str| (a.to_string(), s.to_string(), n.to_string());
    assert_eq!(
        table,
        [
            row("random_string.example", "mapped", "example"),
            row("module.storage.acmecloud_bucket.logs", "mapped", "storage-logs"),
            row("acmecloud_bucket.assets[0]", "mapped", "assets-0"),
            row("acmecloud_bucket.assets[1]", "tainted", ""),
            row("acmecloud_bucket.site[\"eu\"]", "mapped", "site-eu"),
            row("acmecloud_policy.logs", "mapped", "logs"),
            row("acmecloud_legacy.old", "unmapped", ""),
            row("data.acmecloud_region.current", "data_source", ""),
        ],
        "{migration:#}"
    );
    // Asked to, the tainted instance is imported too, and says so.
    let (status, asked) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform?include_tainted=true"), &acmecloud_state())).await;
    assert_eq!(status, StatusCode::CREATED, "{asked}");
    let tainted = &asked["resources"][3];
    assert_eq!(
        (tainted["status"].clone(), tainted["name"].clone(), tainted["reason"].clone()),
        (json!("tainted"), json!("assets-1"), json!("imported, as asked")),
        "{tainted}"
    );
    assert!(asked["plan"]["current"]["program"].as_str().unwrap().contains("# terraform: acmecloud_bucket.assets[1]"), "{asked}");
    let legacy = &migration["resources"][6];
    assert!(legacy["reason"].as_str().unwrap().contains("has no Terraform type `acmecloud_legacy`"), "{legacy}");
    let plan = migration["plan"]["id"].as_str().unwrap().to_string();
    let program = migration["plan"]["current"]["program"].as_str().unwrap();
    // The sensitive attribute is a secret; the dependency is `dependsOn`; the recorded size is the input.
    assert!(
        program.contains("secretKey:\n        fn::secret: s3cr3t-logs") || program.contains("secretKey:\n        fn::secret: \"s3cr3t-logs\""),
        "{program}"
    );
    assert!(program.contains("      dependsOn:\n        - ${storage-logs}\n"), "{program}");
    assert!(program.contains("      versioning:\n        enabled: true\n"), "maxItemsOne blocks are objects: {program}");

    // A viewer sees the plan with its secrets masked.
    let viewer = common::token_for(&stacks, "vic", "ferry", ferry_service::access::Role::Viewer).await;
    let req =
        axum::http::Request::get(format!("/api/v1/plans/{plan}")).header("authorization", format!("Bearer {viewer}")).body(axum::body::Body::empty()).unwrap();
    let (status, seen) = call(&app, req).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert!(!seen.to_string().contains("s3cr3t"), "{seen}");

    // The preview reads each bucket from the cloud: the one that grew shows it at its leaf.
    let (preview, record) = plan_preview(&app, &plan).await;
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    let step = |name: &str| steps.iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no step {name}: {steps:?}"));
    let grown = step("storage-logs");
    let differs: Vec<(&str, &Value, &Value)> =
        grown["diffs"].as_array().unwrap().iter().filter(|d| d["kind"] != "none").map(|d| (d["path"].as_str().unwrap(), &d["program"], &d["read"])).collect();
    assert_eq!(differs, [("size", &json!(10), &json!(20))], "{grown}");
    assert_eq!(grown["changed"], json!(["size"]), "{grown}");
    for name in ["example", "assets-0", "site-eu", "logs"] {
        assert_no_difference(step(name));
    }

    // Adopting the cloud's size writes the next revision; it previews clean and commits.
    let urn = grown["urn"].as_str().unwrap();
    let resolve = json!({"preview": preview, "urn": urn, "property": "size", "action": "adopt"}).to_string();
    let (status, resolved) = call(&app, common::post_json(&format!("/api/v1/plans/{plan}/resolutions"), &resolve)).await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    let job = resolved["job"]["id"].as_str().unwrap();
    let res = tower::ServiceExt::oneshot(app.clone(), get(&format!("/api/v1/plans/{plan}/jobs/{job}/events"))).await.unwrap();
    http_body_util::BodyExt::collect(res.into_body()).await.unwrap();
    let (_, job) = call(&app, get(&format!("/api/v1/plans/{plan}/jobs/{job}"))).await;
    let second = job["preview_id"].as_str().unwrap().to_string();
    let (status, committed) = call(&app, post(&format!("/api/v1/previews/{second}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();
    for r in &before {
        assert!(after.contains(r), "{} changed", r["urn"]);
    }
    // The sensitive attribute is a Pulumi secret in the committed state.
    let logs = after.iter().find(|r| r["urn"].as_str().unwrap().ends_with("::storage-logs")).unwrap();
    assert_eq!(logs["outputs"]["secretKey"]["4dabf18193072939515e22adb298388d"], "1b47061264138c4ac30d75fd1eb44270", "{logs}");
    assert!(!logs.to_string().contains("s3cr3t"), "{logs}");
    let policy = after.iter().find(|r| r["urn"].as_str().unwrap().ends_with("::acmecloud:index/policy:Policy::logs")).unwrap();
    assert!(policy["dependencies"].as_array().unwrap().iter().any(|d| d.as_str().unwrap().ends_with("::storage-logs")), "{policy}");
    // The code for it says the same: `dependsOn` in TypeScript.
    let (status, code) = call(&app, get(&format!("/api/v1/previews/{second}/code?lang=ts&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    let ts = code["code"].as_str().unwrap();
    assert!(ts.contains("dependsOn"), "{ts}");
    assert!(!ts.contains("s3cr3t"), "secrets never in code: {ts}");
    // The policy's bucket is the bucket's ID: Ferry's reference guessing makes it a reference.
    assert!(ts.contains("bucket: storageLogs.id,"), "{ts}");
}

/// The real `random-state.tfstate` with its string made a `count` of two that differ by length,
/// and two pets of a `for_each` that differ by key alone.
fn counted_random_state() -> String {
    let mut state: Value = serde_json::from_str(&terraform_fixture("random-state.tfstate")).unwrap();
    let resources = state["resources"].as_array_mut().unwrap();
    let string = &mut resources[0];
    string["each"] = json!("list");
    let mut first = string["instances"][0].clone();
    first["index_key"] = json!(0);
    let mut second = first.clone();
    second["index_key"] = json!(1);
    second["attributes"]["id"] = json!("abcdefghijkl");
    second["attributes"]["result"] = json!("abcdefghijkl");
    second["attributes"]["length"] = json!(12);
    string["instances"] = json!([first, second]);
    let provider = string["provider"].clone();
    let pet = |key: &str, id: &str| json!({"index_key": key, "schema_version": 0, "attributes": {"id": id, "keepers": null, "length": 2, "prefix": null, "separator": "-"}});
    resources.push(json!({"mode": "managed", "type": "random_pet", "name": "pets", "each": "map", "provider": provider,
                          "instances": [pet("blue", "sharp-ox"), pet("green", "calm-eel")]}));
    state.to_string()
}

/// A `count` and a `for_each` resource are each one loop in the code Ferry hands out for the
/// migration (YAML lists the instances), and that code type-checks against the real SDKs.
#[tokio::test(flavor = "multi_thread")]
async fn count_and_for_each_instances_are_loops_in_the_code() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let (status, migration) = call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &counted_random_state())).await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let names: Vec<&str> = migration["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["random-0", "random-1", "pets-blue", "pets-green"], "{migration}");
    let (preview, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
    let steps = step_lines(&record["preview"]["plan"]);
    for name in &names {
        assert!(steps.contains(&format!("import {name}")), "{steps:?}");
    }
    let code = |lang: &str| {
        let app = app.clone();
        let uri = format!("/api/v1/previews/{preview}/code?lang={lang}&format=json");
        async move {
            let (status, code) = call(&app, get(&uri)).await;
            assert_eq!(status, StatusCode::OK, "{code}");
            code["code"].as_str().unwrap().to_string()
        }
    };
    let ts = code("ts").await;
    assert!(ts.contains("// Terraform: random_string.random, one per key\n"), "{ts}");
    assert!(ts.contains("for (const [key, value] of Object.entries(randomValues)) {"), "{ts}");
    assert!(ts.contains("length: value.length,"), "{ts}");
    assert!(ts.contains("for (const key of [\"blue\", \"green\"]) {\n    pets[key] = new random.RandomPet(\"pets-\" + key, {"), "{ts}");
    assert!(!ts.contains("\"random-0\"") && !ts.contains("\"pets-blue\""), "no instance declared alone: {ts}");
    let python = code("python").await;
    assert!(python.contains("for key, length in random_values.items():"), "{python}");
    let go = code("go").await;
    assert!(go.contains("for _, key := range []string{\"blue\", \"green\"} {"), "{go}");
    let csharp = code("csharp").await;
    assert!(csharp.contains("foreach (var (key, value) in randomValues)"), "{csharp}");
    let yaml = code("yaml").await;
    for name in &names {
        assert!(yaml.contains(&format!("  {name}:\n")), "YAML lists every instance: {yaml}");
    }

    // The TypeScript and Python projects type-check against the SDKs the test command installs.
    let sdk = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-codegen/sdk-check");
    let tsc = sdk.join("node_modules/.bin/tsc");
    let pyright = sdk.join("node_modules/.bin/pyright");
    let python = sdk.join("../../../target/codegen-venv/bin/python");
    for tool in [&tsc, &pyright, &python] {
        assert!(tool.exists(), "{} is missing: run ./scripts/test.sh, which installs it", tool.display());
    }
    let dir = sdk.join("generated/api-terraform-loops");
    let _ = std::fs::remove_dir_all(&dir);
    let zip = |lang: &str| format!("/api/v1/previews/{preview}/code?lang={lang}&format=zip");
    let ts_dir = common::unpack(&app, &zip("ts"), &dir.join("ts")).await;
    let run = |cmd: &mut std::process::Command, what: &str| {
        let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(out.status.success(), "{what}:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    };
    run(std::process::Command::new(&tsc).args(["--noEmit", "-p"]).arg(ts_dir.join("tsconfig.json")), "tsc");
    let py_dir = common::unpack(&app, &zip("python"), &dir.join("py")).await;
    run(std::process::Command::new(&pyright).arg("--pythonpath").arg(&python).arg(py_dir.join("__main__.py")), "pyright");
}
