//! Import preview speed: `cargo bench -p pulumi-resource-random` prints, in one run, the time
//! to preview importing 1,000 and 10,000 RandomIntegers through Ferry's engine and the random
//! plugin, against the floor: the same Read, Check and Diff calls (the import step's) sent
//! straight over tonic to the same plugin, with no engine. Targets: preview ≤ 1.3 × floor;
//! t(10k)/t(1k) ≤ 11; peak memory ≤ 500 MB. It then times the same imports written as a YAML
//! program's `import` options, to show a program preview scales linearly.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferry_engine::deploy::ImportStatus;
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch, ProviderPlugin};
use ferry_rpc::pulumirpc::{CheckRequest, DiffRequest, ReadRequest};
use tokio::sync::Semaphore;

const CONCURRENCY: usize = 16;
const TOKEN: &str = "random:index/randomInteger:RandomInteger";

fn search() -> PluginSearch {
    let dir = Path::new(env!("CARGO_BIN_EXE_pulumi-resource-random")).parent().unwrap().to_path_buf();
    PluginSearch { ferry_dirs: vec![dir], ..Default::default() }
}

fn options() -> LaunchOptions {
    LaunchOptions { start_timeout: Duration::from_secs(30), call_timeout: Duration::from_secs(120), ..Default::default() }
}

fn spec(n: usize) -> String {
    let resources: Vec<String> = (0..n).map(|i| format!(r#"{{"type":"{TOKEN}","name":"r{i}","id":"{i},0,{}"}}"#, n * 10)).collect();
    format!(r#"{{"resources":[{}]}}"#, resources.join(","))
}

async fn engine_preview(n: usize) -> Duration {
    let spec = parse_import_spec(&spec(n)).unwrap();
    let state = ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers = PluginProviders::new(search(), engine, options(), std::env::temp_dir(), None);
    // Start the plugin first: both sides are timed with a warm, connected plugin.
    providers.schema("random", None).await.unwrap();
    let ctx = StackContext { stack: "bench", project: "bench", deployment: &state.deployment };
    let started = Instant::now();
    let preview = SpecPreview::from_plan(&preview_import(&spec, &ctx, &providers, ImportOptions { concurrency: CONCURRENCY, ..Default::default() }).await.plan);
    let took = started.elapsed();
    assert_eq!(preview.counts.get(&ImportStatus::Ready), Some(&n), "every resource imports");
    providers.shutdown().await;
    took
}

async fn floor(n: usize) -> Duration {
    let (engine, _logs) = EngineService::start().await.unwrap();
    let binary = search().find("random", None).unwrap();
    let plugin = Arc::new(ProviderPlugin::launch(&binary, engine.addr, &std::env::temp_dir(), options()).await.unwrap());
    let limit = Arc::new(Semaphore::new(CONCURRENCY));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let (plugin, limit) = (plugin.clone(), limit.clone());
        tasks.spawn(async move {
            let _permit = limit.acquire_owned().await.unwrap();
            let urn = format!("urn:pulumi:bench::bench::{TOKEN}::r{i}");
            let read =
                plugin.read(ReadRequest { id: format!("{i},0,{}", n * 10), urn: urn.clone(), r#type: TOKEN.into(), ..Default::default() }).await.unwrap();
            let checked = plugin
                .check(CheckRequest { urn: urn.clone(), olds: read.inputs.clone(), news: read.inputs.clone(), r#type: TOKEN.into(), ..Default::default() })
                .await
                .unwrap();
            // The import step's last call, as the engine makes it.
            plugin
                .diff(DiffRequest {
                    id: read.id,
                    urn,
                    olds: read.properties,
                    news: checked.inputs,
                    old_inputs: read.inputs,
                    r#type: TOKEN.into(),
                    ..Default::default()
                })
                .await
                .unwrap();
        });
    }
    while tasks.join_next().await.is_some() {}
    let took = started.elapsed();
    plugin.shutdown().await;
    took
}

/// A Pulumi YAML program importing `n` RandomIntegers with the `import` option.
fn program(n: usize) -> String {
    let mut text = String::from("name: bench\nruntime: yaml\nresources:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  r{i}:\n    type: random:RandomInteger\n    properties: {{min: 0, max: {max}}}\n    options: {{import: \"{i},0,{max}\"}}\n",
            max = n * 10
        ));
    }
    text
}

/// The same imports as a program preview: parse, schema check, evaluation, step generation,
/// and each import step's Read, Check and Diff.
async fn program_preview(n: usize) -> Duration {
    use ferry_engine::deploy::{deploy, DeployContext, DeployOptions, StepOp};
    let text = program(n);
    let state = ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap();
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers = PluginProviders::new(search(), engine, options(), std::env::temp_dir(), None);
    providers.schema("random", None).await.unwrap();
    let config = Default::default();
    let ctx = DeployContext { organization: "bench", project: "bench", stack: "bench", deployment: &state.deployment, config: &config, decrypt: None };
    let started = Instant::now();
    let parsed = ferry_engine::program::parse_program("Pulumi.yaml", &text).unwrap();
    let deployed = deploy(&parsed, &ctx, &providers, &DeployOptions { concurrency: CONCURRENCY, ..Default::default() }).await.unwrap();
    let took = started.elapsed();
    assert_eq!(deployed.plan.counts.get(&StepOp::Import), Some(&n), "every resource imports: {:?}", deployed.plan.steps.iter().find(|s| s.error.is_some()));
    providers.shutdown().await;
    took
}

fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    println!("import preview: RandomIntegers through Ferry's random plugin, {CONCURRENCY} at a time (best of 3)");
    let mut previews = Vec::new();
    for n in [1_000, 10_000] {
        let mut best_preview = Duration::MAX;
        let mut best_floor = Duration::MAX;
        for _ in 0..3 {
            best_floor = best_floor.min(floor(n).await);
            best_preview = best_preview.min(engine_preview(n).await);
        }
        println!(
            "  {n:>6} resources: preview {:>8.1} ms, floor {:>8.1} ms, ratio {:.2} (target <= 1.3)",
            ms(best_preview),
            ms(best_floor),
            ms(best_preview) / ms(best_floor)
        );
        previews.push(best_preview);
    }
    println!("  scaling t(10k)/t(1k): {:.2} (target <= 11)", ms(previews[1]) / ms(previews[0]));
    println!("program preview: the same RandomIntegers imported with the `import` option of a YAML program (Read, Check and Diff each; best of 3)");
    let mut programs = Vec::new();
    for n in [1_000, 10_000] {
        let mut best = Duration::MAX;
        for _ in 0..3 {
            best = best.min(program_preview(n).await);
        }
        println!("  {n:>6} resources: {:>8.1} ms ({:.0} µs per resource)", ms(best), ms(best) * 1000.0 / n as f64);
        programs.push(best);
    }
    println!("  scaling t(10k)/t(1k): {:.2} (linear would be 10)", ms(programs[1]) / ms(programs[0]));
    match peak_memory_mb() {
        Some(mb) => println!("  peak memory of this process (VmHWM): {mb:.0} MB (target <= 500)"),
        None => println!("  peak memory: not available on this system"),
    }
}
