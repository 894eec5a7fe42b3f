//! Code generated from anyone's names, keys, values, addresses and paths (what a state or a
//! Terraform file holds): lowered and printed in every language without a panic, and the YAML
//! program Ferry hands out reads back with exactly the resources it declares — no map a
//! hostile key turned into a function call, no resource a name turned into two. The same texts
//! as a Terraform state's names, keys, IDs and values: the migration's program reads back with
//! exactly its imports.
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
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/pulumi/schemas/random.schema.json"
        ));
        HashMap::from([(
            "random".to_string(),
            PackageSchema::parse(text).expect("the fixture schema reads"),
        )])
    })
}

/// A Terraform state of `texts` in its free texts: the lineage, a module's key, `for_each`
/// keys, a deposed object's key, a `keepers` entry and IDs.
fn terraform_state(t: &[String]) -> Vec<u8> {
    let provider = "provider[\"registry.terraform.io/hashicorp/random\"]";
    let attributes = |id: &str| serde_json::json!({"id": id, "length": 8, "result": id, "keepers": {&t[0]: &t[1]}, "override_special": &t[2]});
    serde_json::json!({"version": 4, "serial": 1, "lineage": &t[3], "outputs": {}, "resources": [
        {"mode": "managed", "type": "random_string", "name": "hostile", "provider": provider,
         "instances": [{"attributes": attributes(&t[4]), "dependencies": ["random_string.hostile"]}]},
        {"module": format!("module.web[{}]", serde_json::Value::String(t[5].clone())), "mode": "managed", "type": "random_string", "name": "keyed", "each": "map", "provider": provider,
         "instances": [{"index_key": &t[6], "attributes": attributes(&t[7])}, {"index_key": &t[6], "deposed": &t[8], "attributes": attributes(&t[9])}]}
    ]})
    .to_string()
    .into_bytes()
}

fn migrate_terraform(texts: &[String]) {
    let Ok(state) = ferry_terraform::read_state(&terraform_state(texts)) else { return };
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let options = ferry_terraform::MigrationOptions {
        project: "fuzz".into(),
        include_deposed: true,
        ..Default::default()
    };
    let migration = ferry_terraform::migrate(&state, &mappings, &options);
    let Some(yaml) = migration.program else { return };
    let read = ferry_engine::program::parse_program("Pulumi.yaml", &yaml)
        .unwrap_or_else(|e| panic!("a migration's program does not read: {e}\n{yaml}"));
    assert_eq!(
        read.resources.len(),
        migration.prior.len(),
        "the migration's program declares other resources than its imports:\n{yaml}"
    );
    assert_eq!(
        ferry_terraform::addresses_in_program(&yaml).len(),
        migration.prior.len(),
        "an import lost its address:\n{yaml}"
    );
}

fuzz_target!(|data: &[u8]| {
    // The input is up to 12 texts separated by NUL bytes; missing ones are empty.
    let text = String::from_utf8_lossy(data);
    let texts: Vec<String> =
        (0..12).map(|i| text.split('\0').nth(i).unwrap_or_default().to_string()).collect();
    migrate_terraform(&texts);
    let mut parts = texts.into_iter();
    let mut next = || parts.next().unwrap_or_default();
    let (typed, untyped, migrated) = (next(), next(), next());
    let urn = |token: &str, name: &str| format!("urn:pulumi:dev::fuzz::{token}::{name}");
    let string = PropertyValue::String;
    let keepers = PropertyMap::from([
        (next(), string(next())),
        (next(), PropertyValue::Object(PropertyMap::from([(next(), string(next()))]))),
    ]);
    let resources = vec![
        SourceResource {
            urn: urn("random:index/randomString:RandomString", &typed),
            name: typed,
            token: "random:index/randomString:RandomString".into(),
            custom: true,
            id: Some("s".into()),
            inputs: PropertyMap::from([
                ("length".into(), PropertyValue::Number(8.0)),
                ("keepers".into(), PropertyValue::Object(keepers)),
            ]),
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
            origin: Some(Origin {
                tool: "Terraform".into(),
                address: next(),
                instance: None,
                references: Vec::new(),
                variables: Vec::new(),
                templates: Vec::new(),
            }),
            ..Default::default()
        },
    ];
    // Two resources of one type and name are one URN: not a program any state holds.
    if resources[0].urn == resources[1].urn || resources[1].urn == resources[2].urn {
        return;
    }
    let Ok(program) = lower(
        "fuzz",
        &resources,
        &[],
        schemas(),
        &Options { references: true, ..Default::default() },
    ) else {
        return;
    };
    for language in [Language::TypeScript, Language::Python, Language::Go, Language::CSharp] {
        let _ = ferry_codegen::emit(&program, language);
    }
    let yaml = ferry_codegen::emit(&program, Language::Yaml);
    let read = ferry_engine::program::parse_program("Pulumi.yaml", &yaml)
        .unwrap_or_else(|e| panic!("the YAML Ferry wrote does not read: {e}\n{yaml}"));
    assert_eq!(
        read.resources.len(),
        program.resources.len(),
        "the YAML declares other resources than the program:\n{yaml}"
    );
});
