//! Import specs: every example Pulumi publishes parses; broken specs name every problem.

use std::path::PathBuf;

use ferry_engine::import_spec::{parse_import_spec, EntryRef};

fn examples() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
        })
        .join("pulumi/importfile/examples")
}

#[test]
fn every_example_parses() {
    let mut names: Vec<_> = std::fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".import.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 5);
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = parse_import_spec(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().unwrap().to_string_lossy().replace('.', "_");
        insta::assert_json_snapshot!(name, spec);
    }
}

#[test]
fn parents_in_the_file_come_first() {
    let spec = parse_import_spec(
        r#"{"resources": [
        {"type": "aws:s3/bucket:Bucket", "name": "b", "id": "b1", "parent": "c"},
        {"type": "acme:index:Site", "name": "c", "component": true},
        {"type": "pulumi:providers:aws", "name": "p"},
        {"type": "aws:s3/bucket:Bucket", "name": "d", "id": "d1", "provider": "p"}
    ]}"#,
    )
    .unwrap();
    assert_eq!(spec.parents[0], Some(EntryRef::Entry(1)));
    assert_eq!(spec.providers[3], Some(EntryRef::Entry(2)));
    let pos = |i| spec.order.iter().position(|&x| x == i).unwrap();
    assert!(pos(1) < pos(0));
}

#[test]
fn broken_specs_name_every_problem_and_where() {
    let cases = [
        ("not json", r#"{"resources": [}"#),
        ("empty", r#"{"resources": []}"#),
        ("no resources", r#"{"nameTable": {}}"#),
        ("not an object", r#"[1, 2]"#),
        (
            "entry rules",
            r#"{"nameTable": {"prod": "not-a-urn", "vpc": "urn:pulumi:dev::p::aws:ec2/vpc:Vpc::vpc"},
                "resources": [
                {"type": "aws:s3/bucket:Bucket", "name": "a"},
                {"type": "acme:index:Site", "name": "c", "component": true, "id": "x"},
                {"type": "pulumi:providers:aws", "name": "p", "id": "123"},
                {"type": "bucket", "name": "", "id": "1", "remote": true, "version": "latest"},
                {"type": "aws:s3/bucket:Bucket", "name": "b", "id": "b1", "parent": "nowhere", "provider": "vpc", "parnet": "x"},
                {"type": "aws:s3/bucket:Bucket", "name": "dup", "id": "1", "parent": "dup"},
                {"type": "aws:s3/bucket:Bucket", "name": "dup", "id": "2"},
                {"type": "aws:s3/bucket:Bucket", "name": 7, "id": "3"}
            ]}"#,
        ),
        (
            "every problem of an entry",
            r#"{"resources": [
                {},
                {"logicalName": "only-logical", "type": "random:index/randomPet:RandomPet", "id": "x"},
                {"type": "pulumi:providers:aws", "name": "p", "outputs": {"region": "eu-west-1"}},
                {"type": "aws:s3/bucket:Bucket", "name": "u", "id": "1", "inputs": {"tags": {"t": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"}},
                 "outputs": {"arns": ["04da6b54-80e4-46f7-96ec-b56ff0331ba9"]}}
            ]}"#,
        ),
        (
            "parameterization rules",
            r#"{"resources": [
                {"type": "tfaws:s3/bucket:Bucket", "name": "a", "id": "1", "version": "0.1.0",
                 "parameterization": {"pluginName": "terraform-provider", "pluginVersion": "0.8", "value": "not base64!"},
                 "extension": {"pluginName": "x", "pluginVersion": "1.0.0", "value": "e30="}},
                {"type": "tfaws:s3/bucket:Bucket", "name": "b", "id": "2", "parameterization": {"pluginName": "", "pluginVersion": "1.0.0", "value": "", "extra": 1}}
            ]}"#,
        ),
        (
            "same urn twice",
            r#"{"resources": [
                {"type": "aws:s3/bucket:Bucket", "name": "a", "id": "1"},
                {"type": "aws:s3/bucket:Bucket", "name": "x", "logicalName": "a", "id": "2"}
            ]}"#,
        ),
        (
            "parent cycle",
            r#"{"resources": [
                {"type": "a:b:C", "name": "x", "component": true, "parent": "y"},
                {"type": "a:b:C", "name": "y", "component": true, "parent": "x"}
            ]}"#,
        ),
    ];
    for (name, text) in cases {
        let err = parse_import_spec(text).unwrap_err();
        assert!(!err.errors.is_empty());
        if name == "every problem of an entry" {
            // An entry missing `type`, `name` and `id` has three problems, all reported; one
            // giving only `logicalName` has none.
            let paths = |prefix: &str| {
                err.errors
                    .iter()
                    .filter(|e| e.path.starts_with(prefix))
                    .map(|e| e.path.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                paths("resources[0]."),
                ["resources[0].type", "resources[0].name", "resources[0].id"]
            );
            assert_eq!(paths("resources[1]"), Vec::<String>::new());
            assert_eq!(paths("resources[2]"), ["resources[2].outputs"]);
            assert_eq!(
                paths("resources[3]"),
                ["resources[3].inputs.tags.t", "resources[3].outputs.arns[0]"]
            );
        }
        if name == "parameterization rules" {
            let paths: Vec<&str> = err.errors.iter().map(|e| e.path.as_str()).collect();
            assert_eq!(
                paths,
                [
                    "resources[0].extension",
                    "resources[0].parameterization.pluginVersion",
                    "resources[0].parameterization.value",
                    "resources[1].parameterization.pluginName",
                    "resources[1].parameterization.value"
                ],
                "{err}"
            );
        }
        insta::assert_json_snapshot!(name.replace(' ', "_"), err);
    }
}

#[test]
fn a_parameterized_entry_is_read_with_its_plugin_and_value() {
    let spec = parse_import_spec(
        r#"{"resources": [{"type": "tfaws:s3/bucket:Bucket", "name": "a", "id": "1", "version": "0.1.0",
            "parameterization": {"pluginName": "terraform-provider", "pluginVersion": "0.8.1", "value": "eyJyZW1vdGUiOnt9fQ=="}}]}"#,
    )
    .unwrap();
    let p = spec.file.resources[0].parameterization.as_ref().unwrap();
    assert_eq!(
        (p.plugin_name.as_str(), p.plugin_version.as_str()),
        ("terraform-provider", "0.8.1")
    );
    assert_eq!(p.value_bytes(), br#"{"remote":{}}"#);
}

#[test]
fn a_resource_may_give_only_its_logical_name() {
    let spec = parse_import_spec(r#"{"resources": [{"type": "random:index/randomPet:RandomPet", "logicalName": "pet", "id": "x"}]}"#).unwrap();
    assert_eq!(
        (spec.file.resources[0].name.as_str(), spec.file.resources[0].urn_name()),
        ("pet", "pet")
    );
}
