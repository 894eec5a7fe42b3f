//! The real Terraform and OpenTofu files of the shared fixtures, and variants of them that
//! break in each way a file can: every real one reads, with each instance's address, provider
//! and attributes; each broken one is an error naming what is wrong and where.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferry_terraform::{migrate, read_state, Format, MigrationOptions, Mode, RowStatus, Status};
use serde_json::{json, Value};

fn fixture(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    });
    std::fs::read(dir.join("terraform").join(name))
        .unwrap_or_else(|e| panic!("the shared fixture terraform/{name}: {e}"))
}

#[test]
fn every_real_file_reads() {
    for (file, format, tool_version, count) in [
        ("random-state.tfstate", Format::StateV4, "1.9.1", 1),
        ("tf-project.tfstate", Format::StateV4, "1.13.3", 1),
        ("tofu-project.tfstate", Format::StateV4, "1.10.6", 1),
        ("aws-bucket.show.json", Format::ShowJson, "1.9.1", 1),
        ("aws-serverless.show.json", Format::ShowJson, "1.9.1", 28),
    ] {
        let state = read_state(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            (state.format, state.terraform_version.as_deref()),
            (format, Some(tool_version)),
            "{file}"
        );
        assert_eq!(state.instances.len(), count, "{file}");
    }
    let tofu = read_state(&fixture("tofu-project.tfstate")).unwrap();
    let random = &tofu.instances[0];
    assert_eq!(random.address.to_string(), "random_string.example");
    assert_eq!(
        (random.provider.host.as_str(), random.provider.source()),
        ("registry.opentofu.org", "hashicorp/random".to_string())
    );
    assert_eq!(random.id(), random.attributes["result"].as_str());
    let serverless = read_state(&fixture("aws-serverless.show.json")).unwrap();
    let addresses: Vec<String> =
        serverless.instances.iter().map(|i| i.address.to_string()).collect();
    assert!(
        addresses.contains(&"module.data_lake_bucket.aws_s3_bucket.this[0]".to_string()),
        "{addresses:?}"
    );
    assert!(addresses.contains(&"data.aws_region.current".to_string()));
    assert_eq!(serverless.instances.iter().filter(|i| i.address.mode == Mode::Data).count(), 6);
}

/// A variant of the real `tf-project.tfstate`, changed by `edit`.
fn variant(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(&fixture("tf-project.tfstate")).unwrap();
    edit(&mut v);
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn a_bad_file_names_what_is_wrong_and_where() {
    let real = fixture("tf-project.tfstate");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", real[..real.len() / 2].to_vec(), "truncated"),
        ("not JSON", b"resource \"aws_s3_bucket\" \"b\" {}".to_vec(), "not JSON"),
        ("not a state", br#"{"name": "web", "resources": []}"#.to_vec(), "not a Terraform state"),
        ("version 3", variant(|v| v["version"] = json!(3)), "version 3"),
        (
            "version 5",
            variant(|v| v["version"] = json!(5)),
            "unknown Terraform state file version 5",
        ),
        (
            "a duplicate address",
            variant(|v| {
                let r = v["resources"][0].clone();
                v["resources"].as_array_mut().unwrap().push(r);
            }),
            "`random_string.example` is in the state twice",
        ),
        (
            "no id",
            variant(|v| {
                v["resources"][0]["instances"][0]["attributes"]
                    .as_object_mut()
                    .unwrap()
                    .remove("id")
                    .map(|_| ())
                    .unwrap()
            }),
            "has no `id`",
        ),
        (
            "a bad mode",
            variant(|v| v["resources"][0]["mode"] = json!("imaginary")),
            "resources[0].mode",
        ),
        (
            "a bad provider",
            variant(|v| v["resources"][0]["provider"] = json!("provider[")),
            "resources[0].provider",
        ),
        // Found by the terraform_state fuzz target: a type with a line break ended the
        // program's comment and type line, and the YAML did not read.
        (
            "a type that is no identifier",
            variant(|v| v["resources"][0]["type"] = json!("random_string\n*g")),
            "resources[0].type",
        ),
        (
            "a name that is no identifier",
            variant(|v| v["resources"][0]["name"] = json!("ex ample")),
            "resources[0].name",
        ),
        (
            "a name starting with a digit",
            variant(|v| v["resources"][0]["name"] = json!("0example")),
            "resources[0].name",
        ),
    ];
    for (what, bytes, expected) in cases {
        let err = read_state(&bytes).expect_err(what);
        assert!(err.to_string().contains(expected), "{what}: {err}");
    }
}

#[test]
fn addresses_keys_modules_aliases_taint_deposed_and_sensitive_paths_read() {
    let state = variant(|v| {
        let base = v["resources"][0].clone();
        let mut counted = base.clone();
        counted["module"] = json!("module.web.module.cache[0]");
        counted["each"] = json!("list");
        counted["provider"] = json!("provider[\"registry.terraform.io/hashicorp/random\"].west");
        let mut second = counted["instances"][0].clone();
        counted["instances"][0]["index_key"] = json!(0);
        second["index_key"] = json!(1);
        second["status"] = json!("tainted");
        second["attributes"]["id"] = json!("other");
        second["sensitive_attributes"] = json!([[{"type": "get_attr", "value": "result"}]]);
        second["dependencies"] = json!(["random_string.example"]);
        let mut deposed = second.clone();
        deposed["deposed"] = json!("00000001");
        deposed.as_object_mut().unwrap().remove("status");
        counted["instances"].as_array_mut().unwrap().extend([second, deposed]);
        let mut keyed = base.clone();
        keyed["name"] = json!("by_key");
        keyed["each"] = json!("map");
        keyed["instances"][0]["index_key"] = json!("eu \"west\"");
        v["resources"].as_array_mut().unwrap().extend([counted, keyed]);
    });
    let state = read_state(&state).unwrap();
    let shown: Vec<String> = state.instances.iter().map(|i| i.shown_address()).collect();
    assert_eq!(
        shown,
        [
            "random_string.example",
            "module.web.module.cache[0].random_string.example[0]",
            "module.web.module.cache[0].random_string.example[1]",
            "module.web.module.cache[0].random_string.example[1] (deposed 00000001)",
            r#"random_string.by_key["eu \"west\""]"#,
        ]
    );
    assert_eq!(state.instances[1].provider.alias.as_deref(), Some("west"));
    assert_eq!(state.instances[2].status, Status::Tainted);
    assert_eq!(state.instances[2].dependencies, ["random_string.example"]);
    assert_eq!(state.instances[2].sensitive.len(), 1);
}

#[test]
fn a_random_state_becomes_a_program_importing_its_string() {
    let state = read_state(&fixture("tf-project.tfstate")).unwrap();
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let m = migrate(
        &state,
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    assert_eq!(m.rows.len(), 1);
    assert_eq!(
        (m.rows[0].status, m.rows[0].type_.as_deref(), m.rows[0].name.as_deref()),
        (RowStatus::Mapped, Some("random:index/randomString:RandomString"), Some("example"))
    );
    insta::assert_snapshot!("tf-project-program", m.program.clone().unwrap());
    let prior = &m.prior["example"];
    assert_eq!(prior.id, "@(eF?C%#qSz<Jl5[");
    assert_eq!(prior.outputs["result"], prior.id.as_str(), "the recorded result, for the Read");
    assert_eq!(prior.instance_of, None, "one instance, no count");
}

/// The instances of a `count` resource keep their resource and key (code makes them one loop),
/// and the program carries each one's address where the review table reads it.
#[test]
fn count_instances_keep_their_resource_and_key() {
    let bytes = variant(|v| {
        let r = &mut v["resources"][0];
        r["each"] = json!("list");
        let mut first = r["instances"][0].clone();
        first["index_key"] = json!(0);
        let mut second = first.clone();
        second["index_key"] = json!(1);
        r["instances"] = json!([first, second]);
    });
    let state = read_state(&bytes).unwrap();
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let m = migrate(
        &state,
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    let instances: Vec<_> =
        m.prior.iter().map(|(name, p)| (name.as_str(), p.instance_of.clone())).collect();
    let of = |key: &str| Some(("random_string.example".to_string(), key.to_string()));
    assert_eq!(instances, [("example-0", of("0")), ("example-1", of("1"))]);
    let addresses = ferry_terraform::addresses_in_program(m.program.as_deref().unwrap());
    assert_eq!(
        addresses,
        BTreeMap::from([
            ("example-0".to_string(), "random_string.example[0]".to_string()),
            ("example-1".to_string(), "random_string.example[1]".to_string())
        ])
    );
}

#[test]
fn aws_files_list_every_resource_unmapped_and_every_data_source_as_such() {
    for file in ["aws-bucket.show.json", "aws-serverless.show.json"] {
        let state = read_state(&fixture(file)).unwrap();
        let m = migrate(
            &state,
            &ferry_terraform::Mappings::default(),
            &MigrationOptions { project: "p".into(), ..Default::default() },
        );
        assert_eq!(m.program, None, "{file}");
        for row in &m.rows {
            match row.mode {
                Mode::Data => assert_eq!(row.status, RowStatus::DataSource, "{file}: {row:?}"),
                _ => {
                    assert_eq!(row.status, RowStatus::Unmapped, "{file}: {row:?}");
                    assert!(
                        row.reason.as_deref().unwrap().contains("hashicorp/aws")
                            || row.provider != "hashicorp/aws",
                        "{row:?}"
                    );
                }
            }
        }
        let aws = m
            .rows
            .iter()
            .find(|r| r.provider == "hashicorp/aws" && r.mode == Mode::Managed)
            .unwrap();
        assert_eq!(aws.package.as_deref(), Some("aws"));
        assert!(aws.reason.as_deref().unwrap().contains("`hashicorp/aws`"), "{aws:?}");
    }
}

/// A map whose only key starts with `fn::` would be a function call in the program Pulumi YAML
/// reads: it is left out, and the row says so (the preview shows it differing).
#[test]
fn a_map_pulumi_yaml_would_read_as_a_function_is_left_out_and_named() {
    let bytes = variant(|v| {
        v["resources"][0]["instances"][0]["attributes"]["keepers"] =
            json!({"fn::readFile": "/etc/passwd"})
    });
    let state = read_state(&bytes).unwrap();
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let m = migrate(
        &state,
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    let program = m.program.unwrap();
    assert!(!program.contains("fn::readFile") && !program.contains("keepers"), "{program}");
    let reason = m.rows[0].reason.as_deref().unwrap();
    assert!(reason.contains("`keepers` left out of the program"), "{reason}");
    assert_eq!(
        m.prior["example"].outputs["keepers"],
        json!({"fn::readFile": "/etc/passwd"}),
        "what Terraform recorded stays for the Read"
    );
    // With a second key it is a map, and stays.
    let bytes = variant(|v| {
        v["resources"][0]["instances"][0]["attributes"]["keepers"] =
            json!({"fn::readFile": "/etc/passwd", "env": "prod"})
    });
    let m = migrate(
        &read_state(&bytes).unwrap(),
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    assert!(m.program.unwrap().contains("keepers"), "a map of two keys is data");
}

/// A dependency on what is not imported (a data source, an unmapped provider's resource, a
/// tainted instance, an address not in the state) cannot be `dependsOn`: the dependent's row
/// lists each with why, and the program says so above the resource; dependencies on imported
/// resources stay `dependsOn`.
#[test]
fn a_dependency_on_what_is_not_imported_is_named_on_the_row_and_in_the_program() {
    let bytes = variant(|v| {
        let real = v["resources"][0].clone();
        let mut tainted = real.clone();
        tainted["name"] = json!("old");
        tainted["instances"][0]["status"] = json!("tainted");
        let mut dependent = real.clone();
        dependent["name"] = json!("dependent");
        dependent["instances"][0]["dependencies"] = json!([
            "random_string.example",
            "data.aws_region.current",
            "aws_s3_bucket.logs",
            "random_string.old",
            "module.gone.random_string.x"
        ]);
        let resources = v["resources"].as_array_mut().unwrap();
        resources.push(tainted);
        resources.push(dependent);
        resources.push(json!({"mode": "data", "type": "aws_region", "name": "current", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
                              "instances": [{"attributes": {"id": "eu-west-1", "name": "eu-west-1"}}]}));
        resources.push(json!({"mode": "managed", "type": "aws_s3_bucket", "name": "logs", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
                              "instances": [{"attributes": {"id": "logs", "bucket": "logs"}}]}));
    });
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let m = migrate(
        &read_state(&bytes).unwrap(),
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    let row = m.rows.iter().find(|r| r.address == "random_string.dependent").unwrap();
    assert_eq!(
        row.dependencies_not_imported,
        [
            "data.aws_region.current (a data source)",
            "aws_s3_bucket.logs (unmapped)",
            "random_string.old (tainted)",
            "module.gone.random_string.x (not in the state)"
        ]
    );
    let program = m.program.unwrap();
    assert!(
        program.contains(
            "  # depends on module.gone.random_string.x (not in the state), which is not imported\n  # terraform: random_string.dependent\n  dependent:\n"
        ),
        "{program}"
    );
    assert!(
        program.contains(
            "  # depends on data.aws_region.current (a data source), which is not imported\n"
        ),
        "{program}"
    );
    assert!(program.contains("      dependsOn:\n        - ${example}\n"), "{program}");
    assert_eq!(
        ferry_terraform::addresses_in_program(&program)["dependent"],
        "random_string.dependent",
        "the address comment still names the resource"
    );
    // The bucket's row names Pulumi's `aws` package and its plugin.
    let bucket = m.rows.iter().find(|r| r.address == "aws_s3_bucket.logs").unwrap();
    assert_eq!(bucket.package.as_deref(), Some("aws"));
    assert!(bucket.reason.as_deref().unwrap().contains("pulumi-resource-aws"), "{bucket:?}");
}

fn configuration_file(path: &str, text: &str) -> ferry_terraform::ConfigurationFile {
    ferry_terraform::ConfigurationFile { path: path.into(), text: text.into() }
}

/// The migration of a random state (`bytes`) with the configuration `main_tf`, in project `p`.
fn configured_random_migration(bytes: &[u8], main_tf: &str) -> ferry_terraform::Migration {
    let configuration =
        ferry_terraform::read_configuration(&[configuration_file("main.tf", main_tf)]).unwrap();
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    migrate(
        &read_state(bytes).unwrap(),
        &mappings,
        &MigrationOptions {
            project: "p".into(),
            configuration: Some(configuration),
            ..Default::default()
        },
    )
}

/// The real configuration `tf-project.tfstate` was applied from: each row shows its block, and
/// where the configuration and the state agree the program is the same as without it.
#[test]
fn the_configuration_a_state_was_applied_from_is_shown_on_its_rows() {
    let state = read_state(&fixture("tf-project.tfstate")).unwrap();
    let main = String::from_utf8(fixture("tf-project/main.tf")).unwrap();
    let configuration =
        ferry_terraform::read_configuration(&[configuration_file("main.tf", &main)]).unwrap();
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let plain = migrate(
        &state,
        &mappings,
        &MigrationOptions { project: "tf-project".into(), ..Default::default() },
    );
    let m = migrate(
        &state,
        &mappings,
        &MigrationOptions {
            project: "tf-project".into(),
            configuration: Some(configuration),
            ..Default::default()
        },
    );
    let source = m.rows[0].configuration.as_ref().expect("the row's block");
    assert_eq!((source.file.as_str(), source.line), ("main.tf", 10));
    assert!(
        source.text.starts_with("resource \"random_string\" \"example\" {\n  length  = 16\n")
            && source.text.ends_with('}'),
        "{}",
        source.text
    );
    assert!(
        m.rows[0].configuration_notes.is_empty(),
        "the state agrees: {:?}",
        m.rows[0].configuration_notes
    );
    assert!(m.notes.is_empty(), "{:?}", m.notes);
    assert_eq!(m.program, plain.program, "nothing to say as a reference or config");
}

/// A reference between two imported resources becomes one in the program (and in the prior
/// state code reads), a root variable every use agrees on becomes config holding the state's
/// value, and what the state contradicts (a literal, a variable's uses, a reference to what is
/// not in the state, a resource the state lacks) is said, the program keeping the state's value.
#[test]
fn references_and_variables_become_the_programs_and_contradictions_are_said() {
    let bytes = variant(|v| {
        let example = v["resources"][0].clone();
        let mut b = example.clone();
        b["name"] = json!("b");
        b["instances"][0]["attributes"]["length"] = json!(12);
        b["instances"][0]["attributes"]["upper"] = json!(false);
        b["instances"][0]["attributes"]["override_special"] =
            example["instances"][0]["attributes"]["result"].clone();
        b["instances"][0]["attributes"]["keepers"] = json!({
            "from": example["instances"][0]["attributes"]["result"].clone(),
            "fixed": "x",
        });
        let mut c = example.clone();
        c["name"] = json!("c");
        c["instances"][0]["attributes"]["override_special"] = json!("xyz");
        v["resources"] = json!([example, b, c]);
    });
    let m = configured_random_migration(
        &bytes,
        r#"
variable "len" {}
variable "flag" {}
variable "pulumi" {}
resource "random_string" "example" {
  length = var.len
  upper  = var.flag
  lower  = var.pulumi
}
resource "random_string" "b" {
  length           = 10
  upper            = var.flag
  override_special = random_string.example.result
  keepers = {
    from  = random_string.example.result
    fixed = "x"
  }
}
resource "random_string" "c" {
  length           = var.len
  override_special = random_string.gone.result
}
resource "random_string" "never" {
  length = 1
}
"#,
    );
    let program = m.program.clone().unwrap();
    insta::assert_snapshot!("configured-program", program);
    assert!(
        program.contains("config:\n  len:\n    type: Integer\n    default: 16\nresources:\n"),
        "{program}"
    );
    assert!(
        !program.contains("  flag:"),
        "var.flag is true at one use and false at another: {program}"
    );
    assert!(program.contains("      overrideSpecial: ${example.result}\n"), "{program}");
    assert_eq!(program.matches("      length: ${len}\n").count(), 2, "{program}");
    assert_eq!(
        m.prior["b"].references,
        [
            // A map's value by its key: the other keys keep their values.
            ferry_terraform::ConfiguredReference {
                property: "keepers".into(),
                element: None,
                key: Some("from".into()),
                target: "example".into(),
                target_property: "result".into()
            },
            ferry_terraform::ConfiguredReference {
                property: "overrideSpecial".into(),
                element: None,
                key: None,
                target: "example".into(),
                target_property: "result".into()
            }
        ]
    );
    assert!(program.contains("        from: ${example.result}\n"), "{program}");
    assert!(
        program.contains("        fixed: \"x\"\n"),
        "the other keys keep their values: {program}"
    );
    // The code reads a variable where the program does: the prior state says which.
    assert_eq!(
        m.prior["example"].variables,
        [ferry_terraform::ConfiguredVariable { property: "length".into(), variable: "len".into() }]
    );
    assert!(
        m.prior["b"].variables.is_empty(),
        "var.flag's uses disagree: {:?}",
        m.prior["b"].variables
    );
    let notes = |address: &str| {
        m.rows.iter().find(|r| r.address == address).unwrap().configuration_notes.join("\n")
    };
    assert!(
        notes("random_string.b")
            .contains("`length` is 10 in the configuration but 12 in the state"),
        "{}",
        notes("random_string.b")
    );
    assert!(
        notes("random_string.b")
            .contains("var.flag is true at random_string.example but false at random_string.b"),
        "{}",
        notes("random_string.b")
    );
    assert!(
        notes("random_string.example").contains("var.flag"),
        "each use is told: {}",
        notes("random_string.example")
    );
    assert!(
        notes("random_string.example").contains("var.pulumi is named as Pulumi YAML's built-in"),
        "{}",
        notes("random_string.example")
    );
    assert!(!program.contains("${pulumi}") && !program.contains("  pulumi:"), "{program}");
    assert!(
        notes("random_string.c")
            .contains("`override_special` = random_string.gone.result: not in the state"),
        "{}",
        notes("random_string.c")
    );
    assert_eq!(m.notes.len(), 1, "{:?}", m.notes);
    assert!(
        m.notes[0].contains("`random_string.never` is in the configuration but not in the state"),
        "{:?}",
        m.notes
    );
}

/// A template of text, references, root variables and locals is one in the program when the
/// state's text is what it makes: a variable's text is what the rest leaves (and becomes its
/// config where every use agrees), a local's piece the text it held; more than one unknown
/// piece, or a text the template cannot make, keeps the state's value and says why.
#[test]
fn templates_become_the_programs_where_the_state_bears_them_out() {
    let bytes = variant(|v| {
        let example = v["resources"][0].clone();
        let result = example["instances"][0]["attributes"]["result"].as_str().unwrap().to_string();
        let with = |name: &str, special: &str, keepers: Value| {
            let mut r = example.clone();
            r["name"] = json!(name);
            r["instances"][0]["attributes"]["override_special"] = json!(special);
            r["instances"][0]["attributes"]["keepers"] = keepers;
            r
        };
        let b = with(
            "b",
            &format!("pre-{result}"),
            json!({"name": "dev-web", "bad": "other", "plain": "x"}),
        );
        let c = with("c", "acme-dev", json!({"l": format!("acme-{result}"), "x": "dev-c"}));
        let d = with("d", "x", json!({"y": "eu-d"}));
        let e = with("e", "x", json!({"y": "us-e"}));
        v["resources"] = json!([example, b, c, d, e]);
    });
    let m = configured_random_migration(
        &bytes,
        r#"
variable "env" {}
variable "zone" {}
locals {
  prefix = "acme"
}
resource "random_string" "example" {
  length = 16
}
resource "random_string" "b" {
  length           = 16
  override_special = "pre-${random_string.example.result}"
  keepers = {
    name  = "${var.env}-web"
    bad   = "${random_string.example.result}!"
    plain = "x"
  }
}
resource "random_string" "c" {
  length           = 16
  override_special = "${local.prefix}-${var.env}"
  keepers = {
    l = "${local.prefix}-${random_string.example.result}"
    x = "${var.env}-c"
  }
}
resource "random_string" "d" {
  length  = 16
  keepers = { y = "${var.zone}-d" }
}
resource "random_string" "e" {
  length  = 16
  keepers = { y = "${var.zone}-e" }
}
"#,
    );
    let program = m.program.clone().unwrap();
    insta::assert_snapshot!("templated-program", program);
    assert!(program.contains("  env:\n    type: String\n    default: \"dev\"\n"), "{program}");
    assert!(!program.contains("  zone:"), "var.zone is eu at d and us at e: {program}");
    assert!(program.contains("      overrideSpecial: \"pre-${example.result}\"\n"), "{program}");
    assert!(program.contains("        name: \"${env}-web\"\n"), "{program}");
    assert!(program.contains("        bad: \"other\"\n"), "the state's text stays: {program}");
    assert!(program.contains("        l: \"acme-${example.result}\"\n"), "{program}");
    assert!(program.contains("        x: \"${env}-c\"\n"), "{program}");
    assert!(program.contains("      overrideSpecial: \"acme-dev\"\n"), "{program}");
    assert_eq!(
        m.prior["c"].templates,
        [
            ferry_terraform::ConfiguredTemplate {
                property: "keepers".into(),
                key: Some("l".into()),
                parts: vec![
                    ferry_terraform::ConfiguredPart::Text("acme-".into()),
                    ferry_terraform::ConfiguredPart::Reference {
                        target: "example".into(),
                        target_property: "result".into()
                    },
                ]
            },
            ferry_terraform::ConfiguredTemplate {
                property: "keepers".into(),
                key: Some("x".into()),
                parts: vec![
                    ferry_terraform::ConfiguredPart::Variable {
                        name: "env".into(),
                        text: "dev".into()
                    },
                    ferry_terraform::ConfiguredPart::Text("-c".into()),
                ]
            },
        ]
    );
    assert!(m.prior["d"].templates.is_empty(), "{:?}", m.prior["d"].templates);
    let notes = |address: &str| {
        m.rows.iter().find(|r| r.address == address).unwrap().configuration_notes.join("\n")
    };
    assert!(
        notes("random_string.b").contains("`keepers[\"bad\"]` = a template"),
        "{}",
        notes("random_string.b")
    );
    assert!(
        notes("random_string.c")
            .contains("`override_special` = a template: more than one variable or local"),
        "{}",
        notes("random_string.c")
    );
    assert!(
        notes("random_string.d").contains("var.zone is \"eu\""),
        "{}",
        notes("random_string.d")
    );
}

/// A sensitive attribute's values are never written into a note, nor made config, nor a
/// reference: either side may be the secret.
#[test]
fn sensitive_values_stay_out_of_notes_and_config() {
    let bytes = variant(|v| {
        let attributes = &mut v["resources"][0]["instances"][0];
        attributes["attributes"]["override_special"] = json!("s3cret-in-state");
        attributes["sensitive_attributes"] =
            json!([[{"type": "get_attr", "value": "override_special"}]]);
    });
    let m = configured_random_migration(
        &bytes,
        "variable \"special\" {}\nresource \"random_string\" \"example\" {\n  override_special = \"hunter2-in-config\"\n  length = 16\n}\n",
    );
    let notes = m.rows[0].configuration_notes.join("\n");
    assert!(notes.contains("`override_special` (sensitive) differs"), "{notes}");
    assert!(!notes.contains("s3cret") && !notes.contains("hunter2"), "{notes}");
    // The program holds the state's value as a secret, as it does without a configuration.
    let program = m.program.unwrap();
    assert!(
        program.contains("fn::secret")
            && !program.contains("hunter2")
            && !program.contains("config:"),
        "{program}"
    );
}

/// Nested blocks are compared with the state, as a set's are (in any order): a count of blocks
/// other than the state's, or a block no element of the state agrees with, is said on the row
/// against its likeliest counterpart, nested blocks too; `dynamic` and Terraform's own blocks
/// (`lifecycle`) are not compared.
#[test]
fn nested_blocks_the_state_contradicts_are_said() {
    let mapping = ferry_terraform::ProviderMapping::parse(
        json!({"name": "box", "version": "1.0.0",
          "provider": {"resources": {"box_thing": {
            "id": {"type": 4, "computed": true}, "name": {"type": 4, "required": true},
            "rule": {"type": 6, "optional": true, "element": {"resource": {
              "port": {"type": 2, "required": true}, "proto": {"type": 4, "required": true},
              "match": {"type": 5, "optional": true, "element": {"resource": {"path": {"type": 4, "optional": true}}}}}}},
            "setting": {"type": 5, "optional": true, "maxItems": 1, "element": {"resource": {"enabled": {"type": 1, "optional": true}}}},
            "extra": {"type": 5, "optional": true, "element": {"resource": {"v": {"type": 4, "optional": true}}}}}}},
          "resources": {"box_thing": {"tok": "box:index/thing:Thing", "fields": {}}}})
        .to_string()
        .as_bytes(),
        "box",
    )
    .unwrap()
    .unwrap();
    let state = json!({"version": 4, "terraform_version": "1.9.0", "serial": 1, "lineage": "l", "outputs": {},
      "resources": [{"mode": "managed", "type": "box_thing", "name": "a", "provider": "provider[\"registry.terraform.io/acme/box\"]",
        "instances": [{"schema_version": 0, "attributes": {"id": "a", "name": "a",
          "rule": [{"port": 80, "proto": "tcp", "match": [{"path": "/"}]}, {"port": 443, "proto": "tcp", "match": []}],
          "setting": [{"enabled": false}], "extra": [{"v": "1"}, {"v": "2"}]}}]}]});
    let tf = |body: &str| format!("resource \"box_thing\" \"a\" {{\n  name = \"a\"\n{body}}}\n");
    let notes_for = |body: &str| {
        let configuration =
            ferry_terraform::read_configuration(&[configuration_file("main.tf", &tf(body))])
                .unwrap();
        let m = migrate(
            &read_state(state.to_string().as_bytes()).unwrap(),
            &ferry_terraform::Mappings::of("acme/box", "box", mapping.clone()),
            &MigrationOptions {
                project: "p".into(),
                configuration: Some(configuration),
                ..Default::default()
            },
        );
        assert_eq!(m.rows[0].status, ferry_terraform::RowStatus::Mapped, "{:?}", m.rows[0]);
        m.rows[0].configuration_notes.clone()
    };
    // The state's blocks, in another order, with Terraform's own blocks beside them: nothing to say.
    let agreeing = "  rule {\n    port  = 443\n    proto = \"tcp\"\n  }\n  rule {\n    port  = 80\n    proto = \"tcp\"\n    match {\n      path = \"/\"\n    }\n  }\n  setting {\n    enabled = false\n  }\n  dynamic \"extra\" {\n    for_each = [1]\n    content {\n      v = \"x\"\n    }\n  }\n  lifecycle {\n    ignore_changes = [name]\n  }\n";
    assert_eq!(notes_for(agreeing), Vec::<String>::new());
    // A literal the state holds otherwise, said against the block that agrees with most of it;
    // a nested block's; a count.
    let notes = notes_for("  rule {\n    port  = 443\n    proto = \"tcp\"\n  }\n  rule {\n    port  = 80\n    proto = \"udp\"\n    match {\n      path = \"/\"\n    }\n  }\n  setting {\n    enabled = true\n  }\n");
    assert_eq!(
        notes,
        [
            "`rule[1].proto` is \"udp\" in the configuration but \"tcp\" in the state: the program keeps the state's",
            "`setting[0].enabled` is true in the configuration but false in the state: the program keeps the state's",
        ]
    );
    let notes = notes_for("  rule {\n    port  = 80\n    proto = \"tcp\"\n    match {\n      path = \"/x\"\n    }\n  }\n  rule {\n    port  = 443\n    proto = \"tcp\"\n  }\n  extra {\n    v = \"1\"\n  }\n");
    assert_eq!(
        notes,
        [
            "`extra` has 1 block in the configuration but 2 in the state: the program keeps the state's",
            "`rule[0].match[0].path` is \"/x\" in the configuration but \"/\" in the state: the program keeps the state's",
        ]
    );
}
