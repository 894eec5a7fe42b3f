//! A Terraform configuration (`.tf` files; the input split into files at lines
//! `--- <path>`): read, and where it reads, laid over a state whose instances it declares;
//! every problem an error naming the file, never a panic, and the plan's program always YAML
//! that parses.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Two `random_string`s at the root and one in `module.m`, the second's `override_special` the
/// first's result: what references, variables and modules in the input meet.
const STATE: &str = r#"{"version": 4, "terraform_version": "1.9.1", "serial": 1, "lineage": "fuzz", "outputs": {}, "resources": [
 {"mode": "managed", "type": "random_string", "name": "a", "provider": "provider[\"registry.terraform.io/hashicorp/random\"]",
  "instances": [{"schema_version": 2, "attributes": {"id": "aaaa", "result": "aaaa", "length": 4, "special": true, "override_special": null}}]},
 {"mode": "managed", "type": "random_string", "name": "b", "provider": "provider[\"registry.terraform.io/hashicorp/random\"]", "each": "list",
  "instances": [{"index_key": 0, "schema_version": 2, "attributes": {"id": "bbbb", "result": "bbbb", "length": 4, "special": false, "override_special": "aaaa"}}]},
 {"module": "module.m", "mode": "managed", "type": "random_string", "name": "c", "provider": "provider[\"registry.terraform.io/hashicorp/random\"]",
  "instances": [{"schema_version": 2, "attributes": {"id": "cccc", "result": "cccc", "length": 4, "special": true, "override_special": null}}]}
]}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut files =
        vec![ferry_terraform::ConfigurationFile { path: "main.tf".into(), text: String::new() }];
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("--- ") {
            Some(path) => files.push(ferry_terraform::ConfigurationFile {
                path: path.trim_end().to_string(),
                text: String::new(),
            }),
            None => files.last_mut().expect("one file at least").text.push_str(line),
        }
    }
    let configuration = match ferry_terraform::read_configuration(&files) {
        Ok(configuration) => configuration,
        Err(e) => {
            assert!(!e.message.is_empty());
            return;
        }
    };
    let state =
        ferry_terraform::read_state(STATE.as_bytes()).expect("the target's own state reads");
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let options = ferry_terraform::MigrationOptions {
        project: "fuzz".into(),
        configuration: Some(configuration),
        ..Default::default()
    };
    let migration = ferry_terraform::migrate(&state, &mappings, &options);
    let program = migration.program.expect("every instance maps");
    if let Err(e) = ferry_engine::program::parse_program("Pulumi.yaml", &program) {
        panic!("the program Ferry made does not read: {e}\n{program}");
    }
});
