//! An import spec (`pulumi import --file` JSON, with comments as Ferry's editor allows): read
//! and checked, every problem an error with its path, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = ferry_engine::import_spec::read_spec_json(&text);
    if let Ok(spec) = ferry_engine::import_spec::parse_import_spec(&text) {
        assert!(!spec.file.resources.is_empty() || text.contains("resources"));
    }
});
