//! A Pulumi YAML program and its `${…}` templates: parsed, every problem a diagnostic with a
//! line, never a panic (also for a template read on its own).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = ferry_engine::program::parse_program("Pulumi.yaml", &text);
    let _ = ferry_engine::program::expr::parse_template(&text, Default::default());
});
