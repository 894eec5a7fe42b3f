//! Wire compatibility: every message, field number, type and label the protocol facts list for
//! the files Ferry compiles is in the compiled descriptors, exactly.

use std::collections::HashMap;
use std::path::PathBuf;

use ferry_rpc::prost_types::field_descriptor_proto::{Label, Type};
use ferry_rpc::prost_types::{DescriptorProto, FileDescriptorSet};
use prost::Message;

fn facts() -> String {
    let dir = std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    });
    std::fs::read_to_string(dir.join("pulumi/protocol/PROTO_FIELDS-pypi-pulumi-3.272.0.md"))
        .unwrap()
}

/// (message full name) -> field number -> (name, type as the facts spell it, label)
fn compiled() -> HashMap<String, HashMap<i32, (String, String, String)>> {
    fn walk(
        prefix: &str,
        m: &DescriptorProto,
        out: &mut HashMap<String, HashMap<i32, (String, String, String)>>,
    ) {
        let name = format!("{prefix}.{}", m.name());
        let fields = m
            .field
            .iter()
            .map(|f| {
                let ty = match f.r#type() {
                    Type::Message | Type::Enum => f.type_name().trim_start_matches('.').to_string(),
                    other => format!("{other:?}").to_lowercase(),
                };
                let label = match (f.label(), f.proto3_optional()) {
                    (Label::Repeated, _) => "repeated",
                    (_, true) => "optional",
                    _ => "",
                };
                (f.number(), (f.name().to_string(), ty, label.to_string()))
            })
            .collect();
        out.insert(name.clone(), fields);
        for nested in &m.nested_type {
            walk(&name, nested, out);
        }
    }
    let set = FileDescriptorSet::decode(ferry_rpc::FILE_DESCRIPTOR_SET).unwrap();
    let mut out = HashMap::new();
    for file in &set.file {
        for m in &file.message_type {
            walk(file.package(), m, &mut out);
        }
    }
    out
}

#[test]
fn every_fact_of_the_compiled_files_holds() {
    let compiled = compiled();
    let wanted = [
        "pulumi/provider.proto",
        "pulumi/engine.proto",
        "pulumi/plugin.proto",
        "pulumi/alias.proto",
    ];
    let mut in_scope = false;
    let mut message = String::new();
    let mut checked = 0;
    for line in facts().lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            in_scope = wanted.iter().any(|w| rest.starts_with(w));
        } else if let Some(rest) = line.strip_prefix("### message ") {
            message = rest.split(' ').next().unwrap().to_string();
        } else if line.starts_with("### ") {
            message.clear();
        } else if in_scope && !message.is_empty() && line.starts_with("| ") {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let Ok(number) = cells[0].parse::<i32>() else { continue };
            let name = cells[1].trim_end_matches("(deprecated)").trim();
            let fields =
                compiled.get(&message).unwrap_or_else(|| panic!("message {message} is missing"));
            let (got_name, got_type, got_label) = fields
                .get(&number)
                .unwrap_or_else(|| panic!("{message} has no field {number} ({name})"));
            assert_eq!(got_name, name, "{message} field {number}");
            assert_eq!(got_type, cells[2], "{message}.{name} type");
            assert_eq!(got_label, cells[3], "{message}.{name} label");
            checked += 1;
        }
    }
    assert!(checked > 250, "only {checked} fields checked");
}
