//! A state file as an upload or a DIY backend gives it: any `pulumi stack export` or checkpoint
//! (every version, gzipped as backends keep them). Loading must answer a value or an error,
//! never panic, and what loads must write out and load again the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A gzipped checkpoint, as a DIY backend keeps `<stack>.json.gz`.
    let bytes =
        match ferry_backend::decode_checkpoint(data, data.starts_with(&[0x1f, 0x8b]), 64 << 20) {
            Ok(b) => b,
            Err(_) => return,
        };
    if let Ok(loaded) = ferry_state::load_state(&bytes, Default::default()) {
        let again = ferry_state::load_state(loaded.export_text().as_bytes(), Default::default())
            .expect("what loaded writes out loadable");
        assert_eq!(again.deployment.resources().len(), loaded.deployment.resources().len());
        let _ = ferry_state::rename::stack_names(&loaded.deployment);
    }
});
