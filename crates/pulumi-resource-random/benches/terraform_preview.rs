//! A Terraform migration's preview against the same imports as a spec:
//! `cargo bench -p pulumi-resource-random --bench terraform_preview` makes a state of 1,000 and
//! of 10,000 `random_string` instances (the shared fixture's instance under `count`, in ten
//! modules), maps it through this plugin's own `GetMapping`, and previews, in interleaved
//! pairs, the migration's program (each instance read with its recorded state as the prior,
//! as the server runs it) and an import spec of the same instances by their IDs. Both sides
//! start from a launched, configured plugin and run 16 resources at a time. Prints the median
//! of the pairs' ratios; target ≤ 1.3. `cargo test` (or `-- --smoke`) runs 500 instances once each way and fails
//! past a loose bound (not a timed test: a regression by orders of magnitude).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferry_engine::deploy::{
    deploy, DeployContext, DeployOptions, ImportStatus, PlanScope, PriorState, StepOp,
};
use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::{EngineService, LaunchOptions, PluginProviders, PluginSearch};
use ferry_terraform::{migrate, read_state, MigrationOptions, ProviderMapping};
use serde_json::{json, Value};

const CONCURRENCY: usize = 16;
const PAIRS: usize = 7;

/// `instances` instances of the real fixture's `random_string`, under `count` in ten modules.
fn state(instances: usize) -> Vec<u8> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/terraform/tf-project.tfstate");
    ferry_terraform::testing::repeated_instances(
        &std::fs::read(file).expect("the shared fixture tf-project.tfstate"),
        instances,
    )
}

fn providers(engine: EngineService) -> PluginProviders {
    let dir =
        Path::new(env!("CARGO_BIN_EXE_pulumi-resource-random")).parent().unwrap().to_path_buf();
    let options = LaunchOptions {
        start_timeout: Duration::from_secs(30),
        call_timeout: Duration::from_secs(120),
        ..Default::default()
    };
    PluginProviders::new(
        PluginSearch { ferry_dirs: vec![dir], ..Default::default() },
        engine,
        options,
        std::env::temp_dir(),
        None,
    )
}

/// The migration of an `instances`-instance state: its program, its recorded states in the
/// engine's value model, and an import spec of the same instances.
struct Migrated {
    program: String,
    prior: Arc<BTreeMap<String, PriorState>>,
    spec: String,
    n: usize,
}

async fn migrated(instances: usize) -> Migrated {
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers = providers(engine);
    let data = providers
        .mapping("random", "terraform", "random")
        .await
        .unwrap()
        .expect("the random plugin maps hashicorp/random");
    providers.shutdown().await;
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ProviderMapping::parse(&data, "random").unwrap().unwrap(),
    );
    let state = read_state(&state(instances)).unwrap();
    let m = migrate(
        &state,
        &mappings,
        &MigrationOptions { project: "bench".into(), ..Default::default() },
    );
    let decode = ferry_property::json::DecodeOptions { decrypt: None };
    let prior = m
        .prior
        .iter()
        .map(|(name, p)| {
            let outputs = ferry_property::json::decode_map(&p.outputs, name, &decode).unwrap();
            let inputs = ferry_property::json::decode_map(&p.inputs, name, &decode).unwrap();
            (name.clone(), PriorState { outputs, inputs, components: Vec::new() })
        })
        .collect();
    let entries: Vec<Value> = m
        .prior
        .iter()
        .map(|(name, p)| json!({"type": p.type_, "name": name, "id": p.id}))
        .collect();
    Migrated {
        program: m.program.expect("every instance maps"),
        prior: Arc::new(prior),
        spec: json!({"resources": entries}).to_string(),
        n: instances,
    }
}

/// A launched, configured plugin, as a server has one for a preview.
async fn warmed() -> PluginProviders {
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers = providers(engine);
    providers.schema("random", None).await.unwrap();
    providers
}

fn empty_state() -> ferry_state::LoadedState {
    ferry_state::load_state(br#"{"version":3,"deployment":{}}"#, Default::default()).unwrap()
}

/// The migration's program previewed as a plan's is: parsed, its imports read with their
/// recorded states, scope `imports`.
async fn program_preview(m: &Migrated) -> Duration {
    let providers = warmed().await;
    let state = empty_state();
    let config = Default::default();
    let ctx = DeployContext {
        organization: "bench",
        project: "bench",
        stack: "bench",
        deployment: &state.deployment,
        config: &config,
        decrypt: None,
    };
    let options = DeployOptions {
        concurrency: CONCURRENCY,
        scope: PlanScope::Imports,
        import_prior: Some(m.prior.clone()),
        ..Default::default()
    };
    let started = Instant::now();
    let parsed = ferry_engine::program::parse_program("Pulumi.yaml", &m.program).unwrap();
    let deployed = deploy(&parsed, &ctx, &providers, &options).await.unwrap();
    let took = started.elapsed();
    let failed = deployed.plan.steps.iter().find(|s| s.error.is_some());
    assert_eq!(
        deployed.plan.counts.get(&StepOp::Import),
        Some(&m.n),
        "every instance imports: {failed:?}"
    );
    providers.shutdown().await;
    took
}

/// The same imports as a spec, by their IDs.
async fn spec_preview(m: &Migrated) -> Duration {
    let providers = warmed().await;
    let state = empty_state();
    let ctx = StackContext { stack: "bench", project: "bench", deployment: &state.deployment };
    let started = Instant::now();
    let spec = parse_import_spec(&m.spec).unwrap();
    let done = preview_import(
        &spec,
        &ctx,
        &providers,
        ImportOptions { concurrency: CONCURRENCY, ..Default::default() },
    )
    .await;
    let took = started.elapsed();
    let preview = SpecPreview::from_plan(&done.plan);
    assert_eq!(preview.counts.get(&ImportStatus::Ready), Some(&m.n), "every instance imports");
    providers.shutdown().await;
    took
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes `--bench` and gets the full run; `cargo test` (the test command)
    // passes nothing and gets the smoke, as `-- --smoke` does.
    let smoke =
        std::env::args().any(|a| a == "--smoke") || !std::env::args().any(|a| a == "--bench");
    if smoke {
        let m = migrated(500).await;
        let (program, spec) = (program_preview(&m).await, spec_preview(&m).await);
        println!(
            "terraform preview smoke: 500 instances, program {:.0} ms, spec {:.0} ms",
            ms(program),
            ms(spec)
        );
        assert!(
            program < spec * 5 + Duration::from_secs(2),
            "the migration's preview took {program:?} against the spec's {spec:?}"
        );
        return;
    }
    println!(
        "terraform migration preview: random_string instances through Ferry's random plugin, {CONCURRENCY} at a time ({PAIRS} interleaved pairs; medians)"
    );
    for n in [1_000, 10_000] {
        let m = migrated(n).await;
        // One of each first: the page cache and the allocator warmed alike.
        program_preview(&m).await;
        spec_preview(&m).await;
        let (mut programs, mut specs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..PAIRS {
            let (program, spec) = (program_preview(&m).await, spec_preview(&m).await);
            ratios.push(ms(program) / ms(spec));
            programs.push(program);
            specs.push(spec);
        }
        programs.sort();
        specs.sort();
        ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "  {n:>6} instances: migration {:>8.1} ms, spec {:>8.1} ms, ratio {:.2} (median of the pairs' ratios; target <= 1.3)",
            ms(programs[PAIRS / 2]),
            ms(specs[PAIRS / 2]),
            ratios[PAIRS / 2]
        );
    }
}
