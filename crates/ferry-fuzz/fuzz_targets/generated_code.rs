//! Code generated from anyone's names, keys, values, addresses and paths (what a state or a
//! Terraform file holds): lowered and printed in every language without a panic, and the YAML
//! program Ferry hands out reads back with exactly the resources it declares — no map a
//! hostile key turned into a function call, no resource a name turned into two.
#![no_main]

use std::collections::HashMap;
use std::sync::OnceLock;

use ferry_codegen::schema::PackageSchema;
use ferry_codegen::{lower, Language, Options, Origin, SourceResource};
use ferry_property::{PropertyMap, PropertyValue};
use libfuzzer_sys::fuzz_target;

/// The random package's real schema (a typed resource, and one the schema does not know).
fn schemas() -> &'static HashMap<String, PackageSchema> {
    static SCHEMAS: OnceLock<HashMap<String, PackageSchema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/pulumi/schemas/random.schema.json"));
        HashMap::from([("random".to_string(), PackageSchema::parse(text).expect("the fixture schema reads"))])
    })
}

fuzz_target!(|data: &[u8]| {
    // The input is up to 12 texts separated by NUL bytes; missing ones are empty.
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0').map(str::to_string);
    let mut next = || parts.next().unwrap_or_default();
    let (typed, untyped, migrated) = (next(), next(), next());
    let urn = |token: &str, name: &str| format!("urn:pulumi:dev::fuzz::{token}::{name}");
    let string = PropertyValue::String;
    let keepers = PropertyMap::from([(next(), string(next())), (next(), PropertyValue::Object(PropertyMap::from([(next(), string(next()))])))]);
    let resources = vec![
        SourceResource {
            urn: urn("random:index/randomString:RandomString", &typed),
            name: typed,
            token: "random:index/randomString:RandomString".into(),
            custom: true,
            id: Some("s".into()),
            inputs: PropertyMap::from([("length".into(), PropertyValue::Number(8.0)), ("keepers".into(), PropertyValue::Object(keepers))]),
            ignore_changes: vec![next()],
            ..Default::default()
        },
        SourceResource {
            urn: urn("random:index/notInTheSchema:NotInTheSchema", &untyped),
            name: untyped,
            token: "random:index/notInTheSchema:NotInTheSchema".into(),
            custom: true,
            id: Some("u".into()),
            inputs: PropertyMap::from([(next(), string(next()))]),
            ..Default::default()
        },
        SourceResource {
            urn: urn("random:index/randomPet:RandomPet", &migrated),
            name: migrated,
            token: "random:index/randomPet:RandomPet".into(),
            custom: true,
            id: Some("p".into()),
            origin: Some(Origin { tool: "Terraform".into(), address: next(), instance: None }),
            ..Default::default()
        },
    ];
    // Two resources of one type and name are one URN: not a program any state holds.
    if resources[0].urn == resources[1].urn || resources[1].urn == resources[2].urn {
        return;
    }
    let Ok(program) = lower("fuzz", &resources, &[], schemas(), &Options { references: true, ..Default::default() }) else { return };
    for language in [Language::TypeScript, Language::Python, Language::Go, Language::CSharp] {
        let _ = ferry_codegen::emit(&program, language);
    }
    let yaml = ferry_codegen::emit(&program, Language::Yaml);
    let read = ferry_engine::program::parse_program("Pulumi.yaml", &yaml).unwrap_or_else(|e| panic!("the YAML Ferry wrote does not read: {e}\n{yaml}"));
    assert_eq!(read.resources.len(), program.resources.len(), "the YAML declares other resources than the program:\n{yaml}");
});
