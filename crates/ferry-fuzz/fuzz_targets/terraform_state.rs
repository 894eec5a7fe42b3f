//! A Terraform or OpenTofu state file (or `show -json` output): read, and where it reads, made
//! into a plan through a mapping of every resource type it names; every problem an error naming
//! what and where, never a panic, and the plan's program always YAML that parses.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(state) = ferry_terraform::read_state(data) else { return };
    // A mapping that knows every type in the file, with a schema built from its attributes,
    // so translation runs over whatever shapes the file holds.
    let mut by_provider: BTreeMap<
        String,
        (ferry_terraform::ProviderAddress, ferry_terraform::ProviderMapping),
    > = BTreeMap::new();
    for instance in &state.instances {
        let (_, mapping) = by_provider
            .entry(instance.provider.key())
            .or_insert_with(|| (instance.provider.clone(), Default::default()));
        let fields: serde_json::Map<String, serde_json::Value> = instance
            .attributes
            .keys()
            .map(|k| (k.clone(), serde_json::json!({"type": 4, "optional": true})))
            .collect();
        let schema = serde_json::from_value(serde_json::Value::Object(fields)).unwrap_or_default();
        mapping.provider.resources.insert(instance.address.type_.clone(), schema);
        mapping.resources.insert(
            instance.address.type_.clone(),
            ferry_terraform::mapping::ResourceInfo {
                tok: format!("fuzz:index/{0}:{0}", instance.address.type_),
                fields: BTreeMap::new(),
            },
        );
    }
    let mut mappings = ferry_terraform::Mappings::default();
    for (provider, mapping) in by_provider.into_values() {
        mappings.insert(&provider, "fuzz", mapping);
    }
    let migration = ferry_terraform::migrate(
        &state,
        &mappings,
        &ferry_terraform::MigrationOptions { project: "fuzz".into(), ..Default::default() },
    );
    assert_eq!(migration.rows.len(), state.instances.len());
    if let Some(program) = migration.program {
        if let Err(e) = ferry_engine::program::parse_program("Pulumi.yaml", &program) {
            // Names and types come from the file: a program may be refused (a type token the
            // engine does not take), but it must be YAML that reads.
            assert!(!e.to_string().contains("YAML"), "{e}\n{program}");
        }
    }
});
