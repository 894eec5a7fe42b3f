//! What a DIY backend holds besides checkpoints: `.pulumi/meta.yaml` (its layout) and the lock
//! files other `pulumi` processes write (their holder). Anything reads as a layout or no holder,
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ferry_backend::layout_of_meta(data);
    if let Some(holder) = ferry_backend::lock_holder(data) {
        let _ = holder.to_string();
    }
});
