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
    assert!(
        step["error"].is_null() && step["changed"].is_null() && step["warnings"].is_null(),
        "{step}"
    );
    assert!(step["diffs"].as_array().unwrap().iter().all(|d| d["kind"] == "none"), "{step}");
}

/// Adopts what `step`'s resource read for `property` in `plan`: the preview of the revision
/// that writes.
async fn adopt(
    app: &axum::Router,
    plan: &str,
    preview: &str,
    step: &Value,
    property: &str,
) -> String {
    let resolve =
        json!({"preview": preview, "urn": step["urn"], "property": property, "action": "adopt"})
            .to_string();
    let (status, resolved) =
        call(app, common::post_json(&format!("/api/v1/plans/{plan}/resolutions"), &resolve)).await;
    assert_eq!(status, StatusCode::CREATED, "{resolved}");
    let job = resolved["job"]["id"].as_str().unwrap();
    let res = tower::ServiceExt::oneshot(
        app.clone(),
        get(&format!("/api/v1/plans/{plan}/jobs/{job}/events")),
    )
    .await
    .unwrap();
    http_body_util::BodyExt::collect(res.into_body()).await.unwrap();
    let (_, job) = call(app, get(&format!("/api/v1/plans/{plan}/jobs/{job}"))).await;
    job["preview_id"].as_str().unwrap().to_string()
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
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=acme/tf-project/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let before = export(&app, &stack).await["deployment"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default();

    let (status, migration) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/migrations/terraform?title=From%20Terraform"),
            &terraform_fixture("tf-project.tfstate"),
        ),
    )
    .await;
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
    assert_eq!(
        plan["origins"],
        json!({"example": "random_string.example"}),
        "the review table's Terraform addresses"
    );
    assert_eq!(
        export(&app, &stack).await["deployment"]["resources"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        before,
        "a migration writes nothing to the stack"
    );

    // Read by the provider, diffed against what Terraform recorded: nothing changed since.
    let (preview, record) = plan_preview(&app, plan["id"].as_str().unwrap()).await;
    let steps = step_lines(&record["preview"]["plan"]);
    assert!(steps.contains(&"import example".to_string()), "{steps:?}");
    let step = record["preview"]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "example")
        .unwrap();
    assert_no_difference(step);

    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();
    let imported = after
        .iter()
        .find(|r| {
            r["type"] == "random:index/randomString:RandomString"
                && r["urn"].as_str().unwrap().ends_with("::example")
        })
        .unwrap();
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
        let (status, migration) = call(
            &app,
            post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &terraform_fixture(file)),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{file}: {migration}");
        assert_eq!(
            (
                migration["resources"][0]["status"].clone(),
                migration["resources"][0]["provider"].clone()
            ),
            (json!("mapped"), json!("hashicorp/random")),
            "{file}"
        );
        assert!(
            migration["plan"]["title"]
                .as_str()
                .unwrap()
                .starts_with("Migrate from Terraform into "),
            "{migration}"
        );
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
    state["resources"][0]["instances"][0]["attributes"]["override_special"] =
        json!("${not.a.reference}");
    let (status, migration) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &state.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let (_, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    let example =
        steps.iter().find(|s| s["name"] == "example").unwrap_or_else(|| panic!("{record}"));
    assert_no_difference(example);
    assert_eq!(example["inputs"]["overrideSpecial"], "${not.a.reference}", "{example}");
}

#[tokio::test(flavor = "multi_thread")]
async fn providers_nobody_maps_are_listed_with_their_package_and_data_sources_as_such() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let (status, migration) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/migrations/terraform"),
            &terraform_fixture("aws-serverless.show.json"),
        ),
    )
    .await;
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
    let bucket = rows
        .iter()
        .find(|r| r["address"] == "module.data_lake_bucket.aws_s3_bucket.this[0]")
        .unwrap();
    assert_eq!(
        (bucket["provider"].clone(), bucket["package"].clone()),
        (json!("hashicorp/aws"), json!("aws"))
    );
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
        let (status, error) =
            call(&app, post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("the Terraform state: ") && message.contains(expected),
            "{message}"
        );
    }
}

/// A plugin folder whose `pulumi-resource-acmecloud` is the Python provider beside this test,
/// run in the interop test's venv (PyPI `pulumi`, made under `target/` on first use).
fn acmecloud_plugin_dir() -> tempfile::TempDir {
    acmecloud_plugin_dir_mapping(None)
}

/// The same plugin, mapping the Terraform provider `terraform_name` (its `GetMappings` answer)
/// instead of `acmecloud`, when given.
fn acmecloud_plugin_dir_mapping(terraform_name: Option<&str>) -> tempfile::TempDir {
    use std::path::Path;
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/ferry-engine/tests/interop/venv.sh");
    let venv =
        std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("python-interop-venv");
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(script).arg(&venv).arg(dir.path()).output().unwrap();
    assert!(
        out.status.success(),
        "could not make the Python venv at {}: {}",
        venv.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let provider =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/interop/acmecloud_provider.py");
    let plugin = dir.path().join("pulumi-resource-acmecloud");
    let env =
        terraform_name.map(|n| format!("ACMECLOUD_TERRAFORM_PROVIDER={n} ")).unwrap_or_default();
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\n{env}exec \"{}\" \"{}\" \"$@\"\n",
            venv.join("bin/python").display(),
            provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    dir
}

/// The real `tf-project.tfstate` with resources of `acme/acmecloud` added: a module, `count`
/// (one instance tainted), `for_each`, a sensitive attribute, a dependency, a type the mapping
/// does not know and a data source.
fn acmecloud_state() -> String {
    acmecloud_state_of("registry.terraform.io/acme/acmecloud")
}

/// The same resources, of the Terraform provider `source` (`host/namespace/type`), whose
/// resource types start with its type.
fn acmecloud_state_of(source: &str) -> String {
    let mut state: Value = serde_json::from_str(&terraform_fixture("tf-project.tfstate")).unwrap();
    let provider = format!("provider[\"{source}\"]");
    let provider = provider.as_str();
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
    let type_ = source.rsplit('/').next().unwrap();
    for resource in state["resources"].as_array_mut().unwrap() {
        let renamed =
            resource["type"].as_str().unwrap().replace("acmecloud_", &format!("{type_}_"));
        resource["type"] = json!(renamed);
        for instance in resource["instances"].as_array_mut().unwrap() {
            if let Some(dependencies) = instance.get_mut("dependencies") {
                *dependencies = json!(dependencies
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_str().unwrap().replace("acmecloud_", &format!("{type_}_")))
                    .collect::<Vec<_>>());
            }
        }
    }
    state.to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_nobody_on_the_project_wrote_maps_its_own_state() {
    let plugins = acmecloud_plugin_dir();
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::admin_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true)
            .await;
    let stack = demo_stack(&app).await;
    let before = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();

    let (status, migration) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &acmecloud_state()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let table: Vec<(String, String, String)> = migration["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["address"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
                r["name"].as_str().unwrap_or("").to_string(),
            )
        })
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
    let (status, asked) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/migrations/terraform?include_tainted=true"),
            &acmecloud_state(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{asked}");
    let tainted = &asked["resources"][3];
    assert_eq!(
        (tainted["status"].clone(), tainted["name"].clone(), tainted["reason"].clone()),
        (json!("tainted"), json!("assets-1"), json!("imported, as asked")),
        "{tainted}"
    );
    assert!(
        asked["plan"]["current"]["program"]
            .as_str()
            .unwrap()
            .contains("# terraform: acmecloud_bucket.assets[1]"),
        "{asked}"
    );
    let legacy = &migration["resources"][6];
    assert!(
        legacy["reason"].as_str().unwrap().contains("has no Terraform type `acmecloud_legacy`"),
        "{legacy}"
    );
    let plan = migration["plan"]["id"].as_str().unwrap().to_string();
    let program = migration["plan"]["current"]["program"].as_str().unwrap();
    // The sensitive attribute is a secret; the dependency is `dependsOn`; the recorded size is the input.
    assert!(
        program.contains("secretKey:\n        fn::secret: s3cr3t-logs")
            || program.contains("secretKey:\n        fn::secret: \"s3cr3t-logs\""),
        "{program}"
    );
    assert!(program.contains("      dependsOn:\n        - ${storage-logs}\n"), "{program}");
    assert!(
        program.contains("      versioning:\n        enabled: true\n"),
        "maxItemsOne blocks are objects: {program}"
    );

    // A viewer sees the plan with its secrets masked.
    let viewer =
        common::token_for(&stacks, "vic", "ferry", ferry_service::access::Role::Viewer).await;
    let req = axum::http::Request::get(format!("/api/v1/plans/{plan}"))
        .header("authorization", format!("Bearer {viewer}"))
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, seen) = call(&app, req).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert!(!seen.to_string().contains("s3cr3t"), "{seen}");

    // One job previews both providers' resources, and counts each one's (its progress by
    // provider: the events carry each resource's type).
    let (preview, record, job) = common::plan_preview_job(&app, &plan).await;
    assert_eq!(
        job["packages"],
        json!([{"package": "random", "total": 1}, {"package": "acmecloud", "total": 4}]),
        "{job}"
    );
    // The preview reads each bucket from the cloud: the one that grew shows it at its leaf.
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no step {name}: {steps:?}"))
    };
    let grown = step("storage-logs");
    let differs: Vec<(&str, &Value, &Value)> = grown["diffs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "none")
        .map(|d| (d["path"].as_str().unwrap(), &d["program"], &d["read"]))
        .collect();
    assert_eq!(differs, [("size", &json!(10), &json!(20))], "{grown}");
    assert_eq!(grown["changed"], json!(["size"]), "{grown}");
    for name in ["example", "assets-0", "site-eu", "logs"] {
        assert_no_difference(step(name));
    }

    // Adopting the cloud's size writes the next revision; it previews clean and commits.
    let second = adopt(&app, &plan, &preview, grown, "size").await;
    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{second}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();
    for r in &before {
        assert!(after.contains(r), "{} changed", r["urn"]);
    }
    // The sensitive attribute is a Pulumi secret in the committed state.
    let logs =
        after.iter().find(|r| r["urn"].as_str().unwrap().ends_with("::storage-logs")).unwrap();
    assert_eq!(
        logs["outputs"]["secretKey"]["4dabf18193072939515e22adb298388d"],
        "1b47061264138c4ac30d75fd1eb44270",
        "{logs}"
    );
    assert!(!logs.to_string().contains("s3cr3t"), "{logs}");
    let policy = after
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::acmecloud:index/policy:Policy::logs"))
        .unwrap();
    assert!(
        policy["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().ends_with("::storage-logs")),
        "{policy}"
    );
    // The code for it says the same: `dependsOn` in TypeScript.
    let (status, code) =
        call(&app, get(&format!("/api/v1/previews/{second}/code?lang=ts&format=json"))).await;
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
    let mut state: Value =
        serde_json::from_str(&terraform_fixture("random-state.tfstate")).unwrap();
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
    let (status, migration) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &counted_random_state()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let names: Vec<&str> = migration["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["random-0", "random-1", "pets-blue", "pets-green"], "{migration}");
    let (preview, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
    let steps = step_lines(&record["preview"]["plan"]);
    for name in &names {
        assert!(steps.contains(&format!("import {name}")), "{steps:?}");
    }
    let code = |lang: &'static str| common::preview_code(&app, &preview, lang);
    let ts = code("ts").await;
    assert!(ts.contains("// Terraform: random_string.random, one per key\n"), "{ts}");
    // The `count`'s keys are numbers, as `count.index` is; the `for_each`'s text.
    assert!(ts.contains("const randomValues = new Map([\n    [0, "), "{ts}");
    assert!(ts.contains("for (const [key, value] of randomValues) {"), "{ts}");
    assert!(ts.contains(": Record<number, random.RandomString> = {};"), "{ts}");
    assert!(ts.contains("length: value.length,"), "{ts}");
    assert!(ts.contains("for (const key of [\"blue\", \"green\"]) {\n    pets[key] = new random.RandomPet(\"pets-\" + key, {"), "{ts}");
    assert!(
        !ts.contains("\"random-0\"") && !ts.contains("\"pets-blue\""),
        "no instance declared alone: {ts}"
    );
    let python = code("python").await;
    assert!(
        python.contains("for key, length in random_values.items():") && python.contains("    0: "),
        "{python}"
    );
    let go = code("go").await;
    assert!(go.contains("for _, key := range []string{\"blue\", \"green\"} {"), "{go}");
    let csharp = code("csharp").await;
    assert!(csharp.contains("foreach (var (key, value) in randomValues)"), "{csharp}");
    let yaml = code("yaml").await;
    for name in &names {
        assert!(yaml.contains(&format!("  {name}:\n")), "YAML lists every instance: {yaml}");
    }

    // The TypeScript and Python projects type-check against the SDKs the test command installs.
    common::type_check_ts_and_python(&app, &preview, "api-terraform-loops").await;
}

/// A plugin whose package (`acmecloud`) is not its Terraform provider's name (`acme-corp/stratus`,
/// claimed through `GetMappings` as `stratus`), as Pulumi's `gcp` maps `hashicorp/google`: Ferry
/// asks every plugin the organisation may run which providers it maps, finds this one, and the
/// migration maps, previews with no difference where the cloud did not change, commits and
/// hands out code of the plugin's package.
#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_that_maps_a_provider_of_another_name_is_found_through_get_mappings() {
    let plugins = acmecloud_plugin_dir_mapping(Some("stratus"));
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::admin_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true)
            .await;
    let settings = ferry_types::OrgSettingsView {
        allowed_packages: vec!["acmecloud".into()],
        share_links: true,
        share_link_days: 30,
    };
    stacks.accounts().set_org_settings("ferry", settings).await.unwrap();
    let stack = demo_stack(&app).await;
    let before = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();

    let (status, migration) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/migrations/terraform"),
            &acmecloud_state_of("registry.terraform.io/acme-corp/stratus"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let rows = migration["resources"].as_array().unwrap();
    let row = |address: &str| {
        rows.iter()
            .find(|r| r["address"] == address)
            .unwrap_or_else(|| panic!("no row {address}: {migration:#}"))
    };
    for address in [
        "module.storage.stratus_bucket.logs",
        "stratus_bucket.assets[0]",
        "stratus_bucket.site[\"eu\"]",
        "stratus_policy.logs",
    ] {
        let r = row(address);
        assert_eq!(
            (r["status"].as_str(), r["package"].as_str(), r["provider"].as_str()),
            (Some("mapped"), Some("acmecloud"), Some("acme-corp/stratus")),
            "{r}"
        );
    }
    assert_eq!(row("stratus_bucket.assets[0]")["type"], "acmecloud:index/bucket:Bucket");
    assert_eq!(
        row("random_string.example")["status"],
        "mapped",
        "the random plugin's own claim still maps hashicorp/random"
    );

    let plan = migration["plan"]["id"].as_str().unwrap().to_string();
    let (preview, record) = plan_preview(&app, &plan).await;
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no step {name}: {steps:?}"))
    };
    for name in ["example", "assets-0", "site-eu", "logs"] {
        assert_no_difference(step(name));
    }
    // The bucket that grew in the cloud since Terraform looked shows it, and only it; adopting
    // the cloud's size makes the revision that commits.
    let grown = step("storage-logs");
    assert_eq!(grown["changed"], json!(["size"]));
    let preview = adopt(&app, &plan, &preview, grown, "size").await;
    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let after = export(&app, &stack).await["deployment"]["resources"].as_array().unwrap().clone();
    for r in &before {
        assert!(after.contains(r), "{} changed", r["urn"]);
    }
    assert!(
        after.iter().any(|r| r["urn"]
            .as_str()
            .unwrap()
            .ends_with("::acmecloud:index/bucket:Bucket::site-eu")),
        "committed"
    );
    let (status, code) =
        call(&app, get(&format!("/api/v1/previews/{preview}/code?lang=ts&format=json"))).await;
    assert_eq!(status, StatusCode::OK, "{code}");
    let ts = code["code"].as_str().unwrap();
    assert!(
        ts.contains("import * as acmecloud from \"@pulumi/acmecloud\";")
            && ts.contains("new acmecloud.Bucket("),
        "{ts}"
    );
}

/// Another namespace's provider of a name Pulumi's registry knows (`evil/random`) never reads
/// with `hashicorp/random`'s mapping, though the random plugin claims `random`; and states of
/// Google and Azure providers with no plugin installed name on every row the package Pulumi
/// publishes for them (`gcp`, `azure`, never `google` or `azurerm`) and the plugin to install.
#[tokio::test(flavor = "multi_thread")]
async fn providers_map_by_their_whole_address_and_unmapped_rows_name_the_package_to_install() {
    let app = common::app(true).await;
    let stack = demo_stack(&app).await;
    let mut state: Value = serde_json::from_str(&terraform_fixture("tf-project.tfstate")).unwrap();
    let real = state["resources"][0].clone();
    let mut evil = real.clone();
    evil["name"] = json!("evil");
    evil["provider"] = json!("provider[\"registry.terraform.io/evil/random\"]");
    let cloud = |type_: &str, name: &str, provider: &str, id: &str| {
        json!({"mode": "managed", "type": type_, "name": name, "provider": format!("provider[\"{provider}\"]"),
               "instances": [{"schema_version": 0, "attributes": {"id": id, "name": name}}]})
    };
    state["resources"] = json!([
        real,
        evil,
        cloud(
            "google_storage_bucket",
            "assets",
            "registry.terraform.io/hashicorp/google",
            "assets-bucket"
        ),
        cloud(
            "google_compute_network",
            "vpc",
            "registry.opentofu.org/hashicorp/google-beta",
            "projects/p/global/networks/vpc"
        ),
        cloud(
            "azurerm_resource_group",
            "rg",
            "registry.terraform.io/hashicorp/azurerm",
            "/subscriptions/s/resourceGroups/rg"
        ),
    ]);
    let (status, migration) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/migrations/terraform"), &state.to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    let rows = migration["resources"].as_array().unwrap();
    let row = |address: &str| {
        rows.iter()
            .find(|r| r["address"] == address)
            .unwrap_or_else(|| panic!("no row {address}: {migration:#}"))
    };
    assert_eq!(row("random_string.example")["status"], "mapped");
    let evil = row("random_string.evil");
    assert_eq!(evil["status"], "unmapped", "{evil}");
    assert!(evil["package"].is_null(), "{evil}");
    assert!(evil["reason"].as_str().unwrap().contains("`evil/random`"), "{evil}");
    for (address, package) in [
        ("google_storage_bucket.assets", "gcp"),
        ("google_compute_network.vpc", "gcp"),
        ("azurerm_resource_group.rg", "azure"),
    ] {
        let r = row(address);
        assert_eq!(
            (r["status"].as_str(), r["package"].as_str()),
            (Some("unmapped"), Some(package)),
            "{r}"
        );
        let why = r["reason"].as_str().unwrap();
        assert!(
            why.contains(&format!("pulumi-resource-{package}"))
                && why.contains(&format!("pulumi plugin install resource {package}")),
            "{why}"
        );
    }
    let program = migration["plan"]["current"]["program"].as_str().unwrap();
    assert!(!program.contains("evil"), "only hashicorp/random's string is imported: {program}");
}

/// A state where its S3 backend keeps it (moto's S3 server): the workspaces are found where
/// Terraform puts them (`default` at the key, the others under `env:/<workspace>/<key>`), each
/// migrates into a plan; a key outside the locations allowed to the organisation, a workspace
/// name that is a path, an object that is no state and a workspace with no state are refused,
/// each by name, and nothing is saved for them.
#[tokio::test(flavor = "multi_thread")]
async fn a_state_in_an_s3_backend_migrates_from_the_workspace_picked() {
    let server = ferry_backend::testing::S3Server::start();
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    let options = format!("endpoint={}&region=us-east-1&s3ForcePathStyle=true", server.endpoint());
    let real = terraform_fixture("tf-project.tfstate");
    server.put("/tf-state", b"");
    server.put("/tf-state/ferry/web/terraform.tfstate", real.as_bytes());
    server.put(
        "/tf-state/env:/staging/ferry/web/terraform.tfstate",
        counted_random_state().as_bytes(),
    );
    server.put("/tf-state/env:/prod/ferry/web/terraform.tfstate", real.as_bytes());
    server.put("/tf-state/env:/prod/ferry/other.tfstate", real.as_bytes());
    server.put("/tf-state/ferry/web/broken.tfstate", br#"{"resources": "not a state"}"#);
    server.put("/tf-state/beta/terraform.tfstate", real.as_bytes());
    let allowed = ["ferry", "env:"].map(|prefix| ferry_service::AllowedBackend {
        org: "ferry".into(),
        url: format!("s3://tf-state/{prefix}?{options}"),
    });
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, _) = common::admin_app_of(
        ferry_service::Ferry::new(store, 1 << 20)
            .with_engine(engine)
            .with_allowed_backends(allowed.to_vec()),
        true,
    )
    .await;
    let stack = demo_stack(&app).await;
    let url = format!("s3://tf-state/ferry/web/terraform.tfstate?{options}");
    let escape = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();

    let (status, found) = call(
        &app,
        get(&format!(
            "/api/v1/stacks/{stack}/migrations/terraform/workspaces?url={}",
            escape(&url)
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let names: Vec<&str> = found["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "prod", "staging"], "{found}");
    assert!(
        found["workspaces"][2]["url"]
            .as_str()
            .unwrap()
            .starts_with("s3://tf-state/env:/staging/ferry/web/terraform.tfstate?"),
        "{found}"
    );

    let migrate = |body: Value| {
        let app = app.clone();
        let uri = format!("/api/v1/stacks/{stack}/migrations/terraform/remote");
        async move { call(&app, common::post_json(&uri, &body.to_string())).await }
    };
    let (status, staging) = migrate(json!({"url": url, "workspace": "staging"})).await;
    assert_eq!(status, StatusCode::CREATED, "{staging}");
    let rows: Vec<&str> = staging["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        rows,
        ["random-0", "random-1", "pets-blue", "pets-green"],
        "the staging workspace's own state: {staging}"
    );
    let (status, default) = migrate(json!({"url": url})).await;
    assert_eq!(status, StatusCode::CREATED, "{default}");
    assert_eq!(default["resources"][0]["address"], "random_string.example", "{default}");
    let plan = default["plan"]["id"].as_str().unwrap();
    let (_, record) = plan_preview(&app, plan).await;
    assert_no_difference(
        &record["preview"]["plan"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "example")
            .unwrap()
            .clone(),
    );

    // With the configuration it was applied from, as a form beside where the state is: its
    // variable is config in the plan's program, holding the state's value, and the row shows
    // its block.
    let main_tf = "variable \"len\" {\n  type = number\n}\n\nresource \"random_string\" \"example\" {\n  length = var.len\n}\n";
    let location = json!({"url": url}).to_string();
    let uri = format!("/api/v1/stacks/{stack}/migrations/terraform/remote");
    let parts: [(&str, &str, &[u8]); 2] = [
        ("remote", "remote.json", location.as_bytes()),
        ("configuration", "main.tf", main_tf.as_bytes()),
    ];
    let (status, configured) = call(&app, crate::terraform_configuration::form(&uri, &parts)).await;
    assert_eq!(status, StatusCode::CREATED, "{configured}");
    assert_eq!(configured["resources"][0]["configuration"]["file"], "main.tf", "{configured}");
    let program = configured["plan"]["current"]["program"].as_str().unwrap();
    assert!(
        program.contains("config:\n  len:\n    type: Integer\n    default: 16\n")
            && program.contains("      length: ${len}\n"),
        "{program}"
    );
    // A form without where the state is names the part it lacks.
    let (status, answer) =
        call(&app, crate::terraform_configuration::form(&uri, &parts[1..])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert!(
        answer["error"]["message"].as_str().unwrap().contains("it has no `remote` part"),
        "{answer}"
    );

    let (_, before) = call(&app, get(&format!("/api/v1/stacks/{stack}/plans"))).await;
    for (body, status, needle) in [
        (
            json!({"url": format!("s3://tf-state/beta/terraform.tfstate?{options}")}),
            StatusCode::FORBIDDEN,
            "is not one this server may open",
        ),
        (json!({"url": url, "workspace": "../../beta"}), StatusCode::BAD_REQUEST, "the workspace"),
        (
            json!({"url": format!("s3://tf-state/ferry/web/broken.tfstate?{options}")}),
            StatusCode::BAD_REQUEST,
            "the Terraform state at s3://tf-state/ferry/web/broken.tfstate",
        ),
        (
            json!({"url": url, "workspace": "nope"}),
            StatusCode::BAD_REQUEST,
            "env:/nope/ferry/web/terraform.tfstate",
        ),
        (json!({"url": 7}), StatusCode::BAD_REQUEST, "where the Terraform state is"),
    ] {
        let (got, answer) = migrate(body.clone()).await;
        assert_eq!(got, status, "{body}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(needle), "{body}: {answer}");
    }
    let (_, after) = call(&app, get(&format!("/api/v1/stacks/{stack}/plans"))).await;
    assert_eq!(before, after, "nothing was saved for the refused ones");
}
