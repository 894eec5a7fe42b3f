//! Import preview speed: `cargo bench -p pulumi-resource-random` prints, in one run, the time
//! to preview importing 1,000 and 10,000 RandomIntegers through Ferry's engine and the random
//! plugin, against the floor: the same Read and Check calls sent straight over tonic to the
//! same plugin, with no engine. Targets: preview ≤ 1.3 × floor; t(10k)/t(1k) ≤ 11; peak
//! memory ≤ 500 MB.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferry_engine::import::{preview_import, ImportOptions, ImportStatus, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch, ProviderPlugin};
use ferry_rpc::pulumirpc::{CheckRequest, ReadRequest};
use tokio::sync::Semaphore;

const CONCURRENCY: usize = 16;
const TOKEN: &str = "random:index/randomInteger:RandomInteger";

fn search() -> PluginSearch {
    let dir = Path::new(env!("CARGO_BIN_EXE_pulumi-resource-random")).parent().unwrap().to_path_buf();
    PluginSearch { ferry_dirs: vec![dir], ..Default::default() }
}

fn options() -> LaunchOptions {
    LaunchOptions { start_timeout: Duration::from_secs(30), call_timeout: Duration::from_secs(120) }
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
    let preview = preview_import(&spec, &ctx, &providers, ImportOptions { concurrency: CONCURRENCY, ..Default::default() }).await;
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
            let read = plugin
                .read(ReadRequest { id: format!("{i},0,{}", n * 10), urn: urn.clone(), r#type: TOKEN.into(), ..Default::default() })
                .await
                .unwrap();
            plugin
                .check(CheckRequest { urn, olds: read.inputs.clone(), news: read.inputs, r#type: TOKEN.into(), ..Default::default() })
                .await
                .unwrap();
        });
    }
    while tasks.join_next().await.is_some() {}
    let took = started.elapsed();
    plugin.shutdown().await;
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
    match peak_memory_mb() {
        Some(mb) => println!("  peak memory of this process (VmHWM): {mb:.0} MB (target <= 500)"),
        None => println!("  peak memory: not available on this system"),
    }
}
