//! A Terraform migration sent with the configuration its state was applied from, as a form:
//! a reference between resources is one in the plan's program and in the code Ferry hands out
//! (type-checked against the real SDKs), a root variable is config holding the state's value,
//! a local module is read and a remote one noted, what the state contradicts is said on the
//! row, and a configuration that does not parse is refused by file and line with nothing saved.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};

use crate::common::{self, call, get, plan_preview, post, terraform_fixture};

const MAIN_TF: &str = r#"variable "len" {
  type = number
}

variable "env" {}

locals {
  team = "core"
}

resource "random_string" "a" {
  length           = var.len
  special          = true
  override_special = "/@£$"
}

resource "random_string" "b" {
  length           = var.len
  override_special = random_string.a.result
  keepers = {
    source = random_string.a.result
    label  = "${var.env}-${random_string.a.result}"
    team   = "${local.team}/${random_string.a.result}"
  }
}

module "m" {
  source = "./modules/m"
}

module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
}
"#;

const MODULE_TF: &str = "resource \"random_string\" \"c\" {\n  length = 12\n}\n";

/// The real random state's string as `a`, `b` whose `override_special` is `a`'s result, and
/// `module.m`'s `c`.
fn state() -> String {
    let mut state: Value =
        serde_json::from_str(&terraform_fixture("random-state.tfstate")).unwrap();
    let mut a = state["resources"][0].clone();
    a["name"] = json!("a");
    let mut b = a.clone();
    b["name"] = json!("b");
    let attributes = &mut b["instances"][0]["attributes"];
    attributes["id"] = json!("abcdefghijklmnop");
    attributes["result"] = json!("abcdefghijklmnop");
    attributes["override_special"] = a["instances"][0]["attributes"]["result"].clone();
    let a_result = a["instances"][0]["attributes"]["result"].as_str().unwrap().to_string();
    attributes["keepers"] = json!({
        "source": a_result,
        "label": format!("dev-{a_result}"),
        "team": format!("core/{a_result}"),
    });
    let mut c = a.clone();
    c["name"] = json!("c");
    c["module"] = json!("module.m");
    c["instances"][0]["attributes"]["id"] = json!("qrstuvwxyz012345");
    c["instances"][0]["attributes"]["result"] = json!("qrstuvwxyz012345");
    state["resources"] = json!([a, b, c]);
    state.to_string()
}

/// A zip of the configuration's folder.
fn folder_zip(files: &[(&str, &str)]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, text) in files {
        out.start_file(format!("infra/{path}"), zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut out, text.as_bytes()).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// A `multipart/form-data` POST of `parts` (name, file name, bytes).
pub(crate) fn form(uri: &str, parts: &[(&str, &str, &[u8])]) -> Request<Body> {
    let boundary = "ferry-test-boundary-7f3a";
    let mut body = Vec::new();
    for (name, file, bytes) in parts {
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\r\n").as_bytes());
        body.extend(*bytes);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{boundary}--\r\n").as_bytes());
    Request::post(uri)
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .body(Body::from(body))
        .unwrap()
}

async fn plan_count(app: &axum::Router, stack: &str) -> usize {
    let (_, plans) = call(app, get(&format!("/api/v1/stacks/{stack}/plans"))).await;
    plans["plans"].as_array().unwrap_or_else(|| panic!("{plans}")).len()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_state_with_its_configuration_keeps_references_and_variables_into_the_code() {
    let app = common::app(true).await;
    let (status, stack) = call(
        &app,
        post("/api/v1/stacks?name=ferry/configured/dev", r#"{"version": 3, "deployment": {}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let uri = format!("/api/v1/stacks/{stack}/migrations/terraform");
    let state = state();

    // A configuration that does not parse: refused by file and line, nothing saved.
    let broken = "resource \"random_string\" \"a\" {\n  length = \n}\n";
    let (status, error) = call(
        &app,
        form(
            &uri,
            &[
                ("state", "terraform.tfstate", state.as_bytes()),
                ("configuration", "main.tf", broken.as_bytes()),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the Terraform configuration")
            && message.contains("main.tf")
            && message.contains("line 2"),
        "{message}"
    );
    assert_eq!(plan_count(&app, &stack).await, 0, "nothing saved");
    let (status, error) =
        call(&app, form(&uri, &[("configuration", "main.tf", MAIN_TF.as_bytes())])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("no `state` part"), "{error}");

    // The folder as a zip: the local module is read, the remote one noted.
    let zip = folder_zip(&[
        ("main.tf", MAIN_TF),
        ("modules/m/main.tf", MODULE_TF),
        ("README.md", "not read"),
    ]);
    let (status, migration) = call(
        &app,
        form(
            &uri,
            &[
                ("state", "terraform.tfstate", state.as_bytes()),
                ("configuration", "infra.zip", &zip),
            ],
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
    assert_eq!(row("random_string.b")["configuration"]["file"], "infra/main.tf");
    assert_eq!(row("random_string.b")["configuration"]["line"], 17);
    assert!(row("random_string.b")["configuration"]["text"]
        .as_str()
        .unwrap()
        .contains("override_special = random_string.a.result"));
    assert!(
        row("random_string.a").get("configuration_notes").is_none(),
        "the state agrees with a: {}",
        row("random_string.a")
    );
    assert_eq!(row("module.m.random_string.c")["configuration"]["file"], "infra/modules/m/main.tf");
    let c_notes = row("module.m.random_string.c")["configuration_notes"].to_string();
    assert!(
        c_notes.contains("`length` is 12 in the configuration but 16 in the state"),
        "{c_notes}"
    );
    let notes = migration["notes"].to_string();
    assert!(
        notes.contains("module.vpc") && notes.contains("terraform-aws-modules/vpc/aws"),
        "{notes}"
    );
    let program = migration["plan"]["current"]["program"].as_str().unwrap();
    assert!(program.contains("\n  len:\n    type: Integer\n    default: 16\n"), "{program}");
    assert!(program.contains("      overrideSpecial: ${a.result}\n"), "{program}");
    assert!(program.contains("        source: ${a.result}\n"), "{program}");
    // A template of a variable and a reference: one in the program, the variable config.
    assert!(program.contains("        label: \"${env}-${a.result}\"\n"), "{program}");
    // A local's piece is the text the state implies.
    assert!(program.contains("        team: \"core/${a.result}\"\n"), "{program}");
    assert!(program.contains("  env:\n    type: String\n    default: \"dev\"\n"), "{program}");
    assert_eq!(program.matches("      length: ${len}\n").count(), 2, "{program}");

    // Read by the provider: the references and the config give what Terraform recorded.
    let (preview, record) = plan_preview(&app, migration["plan"]["id"].as_str().unwrap()).await;
    let steps = record["preview"]["plan"]["steps"].as_array().unwrap();
    for name in ["a", "b", "c"] {
        let step = steps
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no step {name}: {steps:?}"));
        assert_eq!(step["op"], "import", "{step}");
        assert!(step["error"].is_null() && step["changed"].is_null(), "{step}");
        assert!(step["diffs"].as_array().unwrap().iter().all(|d| d["kind"] == "none"), "{step}");
    }

    // The code keeps the reference and the variable (read once from stack config, the state's
    // value its default), and type-checks against the real SDKs.
    let code = |lang: &'static str| common::preview_code(&app, &preview, lang);
    let ts = code("ts").await;
    assert!(ts.contains("overrideSpecial: a.result,"), "{ts}");
    assert!(ts.contains("source: a.result,"), "a map's value by its key: {ts}");
    assert!(
        ts.contains("const len = config.getNumber(\"len\") ?? 16;\n")
            && ts.matches("length: len,").count() == 2,
        "{ts}"
    );
    assert!(ts.contains("label: pulumi.interpolate`${env}-${a.result}`,"), "{ts}");
    assert!(ts.contains("team: pulumi.interpolate`core/${a.result}`,"), "{ts}");
    assert!(ts.contains("const env = config.get(\"env\") ?? \"dev\";"), "{ts}");
    let python = code("python").await;
    assert!(
        python.contains("\"label\": pulumi.Output.format(\"{0}-{1}\", env, a.result),"),
        "{python}"
    );
    assert!(python.contains("override_special=a.result"), "{python}");
    assert!(python.contains("\"source\": a.result,"), "{python}");
    assert!(
        python.contains("len_ = config.get_int(\"len\")\nif len_ is None:\n    len_ = 16\n")
            && python.matches("length=len_,").count() == 2,
        "{python}"
    );
    let go = code("go").await;
    assert!(go.contains("pulumi.Sprintf(\"%v-%v\", env, a.Result)"), "{go}");
    let csharp = code("csharp").await;
    assert!(csharp.contains("Output.Format($\"{env}-{a.Result}\")"), "{csharp}");
    assert!(go.contains("OverrideSpecial: a.Result,"), "{go}");
    assert!(
        go.contains("lenRes = cfg.RequireInt(\"len\")")
            && go.matches("Length: pulumi.Int(lenRes),").count() == 2,
        "{go}"
    );
    let yaml = code("yaml").await;
    assert!(yaml.contains("overrideSpecial: \"${a.result}\""), "{yaml}");
    assert!(yaml.contains("label: \"${env}-${a.result}\""), "{yaml}");
    assert!(
        yaml.contains("  len:\n    type: integer\n    default: 16\n")
            && yaml.matches("length: \"${len}\"").count() == 2,
        "{yaml}"
    );
    common::type_check_ts_and_python(&app, &preview, "api-terraform-configuration").await;

    // The module call is a component, `c` its child, in every language that declares one.
    let component = "terraform:module/m:M";
    assert!(ts.contains(&format!("new pulumi.ComponentResource(\"{component}\", \"m\"")), "{ts}");
    assert!(ts.contains("parent: m,"), "{ts}");
    assert!(
        python.contains(&format!("pulumi.ComponentResource(\"{component}\", \"m\"")),
        "{python}"
    );
    let c_step = steps.iter().find(|s| s["name"] == "c").unwrap();
    let m_urn = format!("urn:pulumi:dev::configured::{component}::m");
    assert_eq!(
        c_step["urn"],
        format!(
            "urn:pulumi:dev::configured::{component}$random:index/randomString:RandomString::c"
        )
    );
    let m_step =
        steps.iter().find(|s| s["urn"] == m_urn.as_str()).unwrap_or_else(|| panic!("{steps:?}"));
    assert_eq!((&m_step["op"], &m_step["error"]), (&json!("create"), &Value::Null), "{m_step}");

    // Committed: the state holds the component before its child, nothing else moved.
    let (status, committed) =
        call(&app, post(&format!("/api/v1/previews/{preview}/commit"), "")).await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let (_, export) = call(&app, get(&format!("/api/v1/stacks/{stack}/export"))).await;
    let resources = export["deployment"]["resources"].as_array().unwrap();
    let at = |urn: &str| resources.iter().position(|r| r["urn"] == urn);
    let m_at = at(&m_urn).unwrap_or_else(|| panic!("{export:#}"));
    assert_eq!(resources[m_at]["custom"], false);
    let c_at = at(c_step["urn"].as_str().unwrap()).unwrap();
    assert!(m_at < c_at && resources[c_at]["parent"] == m_urn.as_str(), "{export:#}");
    // Pulumi YAML cannot declare a component: its code keeps the child's URN through an alias
    // and says so, and previews clean where the stack's other resources are left as they are.
    let yaml = common::preview_code(&app, &preview, "yaml").await;
    assert!(yaml.contains("Pulumi YAML cannot declare") && yaml.contains("aliases:"), "{yaml}");
    let body = json!({"program": yaml, "scope": "imports"}).to_string();
    let (status, again) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/previews"), &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    let lines = common::step_lines(&again["preview"]["plan"]);
    assert!(lines.iter().all(|s| s.starts_with("same ")), "{lines:?}\n{yaml}");

    // Files sent one by one (no folder): the local module's files are missing, which is said.
    let (status, migration) = call(
        &app,
        form(
            &uri,
            &[
                ("state", "terraform.tfstate", state.as_bytes()),
                ("configuration", "main.tf", MAIN_TF.as_bytes()),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{migration}");
    assert!(
        migration["notes"]
            .to_string()
            .contains("`module.m`'s source `./modules/m` is not among the configuration's files"),
        "{migration}"
    );
}
