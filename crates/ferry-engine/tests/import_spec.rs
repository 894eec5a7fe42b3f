//! Import specs: every example Pulumi publishes parses; broken specs name every problem.

use std::path::PathBuf;

use ferry_engine::import_spec::{parse_import_spec, EntryRef};

fn examples() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"))
        .join("pulumi/importfile/examples")
}

#[test]
fn every_example_parses() {
    let mut names: Vec<_> =
        std::fs::read_dir(examples()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().contains(".import.json")).collect();
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
        insta::assert_json_snapshot!(name.replace(' ', "_"), err);
    }
}
