//! Code generation speed: `cargo bench -p ferry-codegen` prints, for 10,000 imported resources
//! (every random, tls and postgresql resource type in turn, each input set), the time to build
//! the intermediate form and to print it in each language. Target: ≤ 50 µs per resource per
//! language, lowering included. Under `cargo test` (no `--bench`), the test command's smoke: 500
//! resources once each way, every language printed.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use ferry_codegen::{emit, lower, Language, Options};

fn main() {
    // `cargo bench` passes `--bench` and gets the full run; `cargo test` passes nothing.
    let full = std::env::args().any(|a| a == "--bench");
    let (n, rounds) = if full { (10_000, 5) } else { (500, 1) };
    let schemas = common::schemas();
    let mut kinds = Vec::new();
    for package in ["random", "tls", "postgresql"] {
        kinds.extend(common::sample_resources(&schemas[package], "bench"));
    }
    let resources: Vec<_> = (0..n)
        .map(|i| {
            let mut r = kinds[i % kinds.len()].clone();
            r.name = format!("{}-{i}", r.name);
            r.urn = format!("{}-{i}", r.urn);
            r.id = Some(format!("id-{i}"));
            r
        })
        .collect();
    let options = Options { elide: true, references: true, ..Default::default() };
    println!(
        "code generation: {n} resources ({} types, every input set), best of {rounds}",
        kinds.len()
    );
    let best = |f: &mut dyn FnMut() -> usize| {
        let mut best = Duration::MAX;
        let mut bytes = 0;
        for _ in 0..rounds {
            let started = Instant::now();
            bytes = f();
            best = best.min(started.elapsed());
        }
        (best, bytes)
    };
    let (lowering, _) =
        best(&mut || lower("bench", &resources, &[], &schemas, &options).unwrap().resources.len());
    println!(
        "  intermediate form: {:>7.1} ms ({:.1} µs per resource)",
        lowering.as_secs_f64() * 1e3,
        lowering.as_secs_f64() * 1e6 / n as f64
    );
    let program = lower("bench", &resources, &[], &schemas, &options).unwrap();
    for lang in Language::ALL {
        let (took, bytes) = best(&mut || emit(&program, lang).len());
        let per = (took + lowering).as_secs_f64() * 1e6 / n as f64;
        println!(
            "  {:<8} {:>7.1} ms printing, {:>5.1} µs per resource with the intermediate form ({} KB) (target <= 50)",
            lang.id(),
            took.as_secs_f64() * 1e3,
            per,
            bytes / 1024
        );
    }
}
