//! The `ferry` binary as its users run it, in one test binary: its commands (`cli`), the
//! container image it ships in (`container`), and several `ferry serve` processes on one
//! database (`instances`).

mod cli;
mod container;
mod instances;

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_path_buf()
}

/// Where cargo put the plugins beside `ferry`, and the scripted test provider.
pub fn plugin_dir() -> PathBuf {
    // target/<profile>/deps/<test>-<hash> -> target/<profile>
    let dir = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
    assert!(
        dir.join("pulumi-resource-random").exists(),
        "build the plugin first: cargo test --workspace (looked in {})",
        dir.display()
    );
    dir
}
