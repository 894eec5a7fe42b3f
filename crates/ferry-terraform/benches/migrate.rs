//! How long a Terraform state takes to become a plan: 10,000 `random_string` instances (the
//! shared fixture's instance, repeated under `count` and in modules) read and mapped into rows,
//! a YAML program and recorded states, as `POST …/migrations/terraform` does before it saves
//! the plan; then the same 10,000 spread over three providers (`hashicorp/random` and two more
//! of their own namespaces and types, each with its own mapping), as an estate of several
//! providers is. Prints the median of 7 runs after one warm-up of each; `--smoke` runs 1,000
//! instances once and fails past a loose bound (not a timed test: a regression by orders of
//! magnitude).

use std::time::{Duration, Instant};

use ferry_terraform::{migrate, read_state, Mappings, MigrationOptions, ProviderMapping};
use serde_json::json;

fn state(instances: usize) -> Vec<u8> {
    let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/terraform/tf-project.tfstate");
    ferry_terraform::testing::repeated_instances(
        &std::fs::read(file).expect("the shared fixture tf-project.tfstate"),
        instances,
    )
}

/// The state's instances spread over three providers: a third stay `hashicorp/random`'s, the
/// others are `acme/alpha`'s and `acme/beta`'s (`random_string` renamed `alpha_string` and
/// `beta_string`).
fn three_providers(bytes: &[u8]) -> Vec<u8> {
    let mut state: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    for (i, resource) in state["resources"].as_array_mut().unwrap().iter_mut().enumerate() {
        let other = ["", "alpha", "beta"][i % 3];
        if !other.is_empty() {
            resource["type"] = json!(format!("{other}_string"));
            resource["provider"] =
                json!(format!("provider[\"registry.terraform.io/acme/{other}\"]"));
        }
    }
    serde_json::to_vec(&state).unwrap()
}

fn mapping() -> Mappings {
    let mut mappings = Mappings::default();
    for (source, type_) in
        [("hashicorp/random", "random"), ("acme/alpha", "alpha"), ("acme/beta", "beta")]
    {
        let provider = ferry_terraform::ProviderAddress::parse(source).unwrap();
        mappings.insert(&provider, type_, provider_mapping(type_));
    }
    mappings
}

fn provider_mapping(type_: &str) -> ProviderMapping {
    let bool_ = json!({"type": 1, "optional": true, "computed": true});
    let int = json!({"type": 2, "optional": true, "computed": true});
    let data = json!({"name": type_, "provider": {"resources": {format!("{type_}_string"): {
        "id": {"type": 4, "computed": true}, "length": {"type": 2, "required": true}, "result": {"type": 4, "computed": true},
        "keepers": {"type": 6, "optional": true, "element": {"schema": {"type": 4}}}, "override_special": {"type": 4, "optional": true},
        "lower": bool_, "upper": bool_, "number": bool_, "numeric": bool_, "special": bool_,
        "min_lower": int, "min_upper": int, "min_numeric": int, "min_special": int}}},
      "resources": {format!("{type_}_string"): {"tok": format!("{type_}:index/randomString:RandomString")}}});
    ProviderMapping::parse(data.to_string().as_bytes(), type_).unwrap().unwrap()
}

fn run(bytes: &[u8], mappings: &Mappings) -> Duration {
    let started = Instant::now();
    let state = read_state(bytes).unwrap();
    let m = migrate(
        &state,
        mappings,
        &MigrationOptions { project: "bench".into(), ..Default::default() },
    );
    let took = started.elapsed();
    assert_eq!(m.prior.len(), state.instances.len(), "every instance maps");
    assert!(m.program.is_some());
    took
}

fn main() {
    // `cargo bench` passes `--bench` and gets the full run; `cargo test` (the test command)
    // passes nothing and gets the smoke, as `-- --smoke` does.
    let smoke =
        std::env::args().any(|a| a == "--smoke") || !std::env::args().any(|a| a == "--bench");
    let instances = if smoke { 1_000 } else { 10_000 };
    let bytes = state(instances);
    let mappings = mapping();
    if smoke {
        let took = run(&three_providers(&bytes), &mappings);
        println!("terraform migrate smoke: {instances} instances in {} ms", took.as_millis());
        assert!(
            took < Duration::from_secs(5),
            "1,000 instances took {took:?}: far past the 10,000-in-1-s target"
        );
        return;
    }
    let spread = three_providers(&bytes);
    for (what, bytes) in [("one provider", &bytes), ("three providers", &spread)] {
        run(bytes, &mappings);
        let mut times: Vec<Duration> = (0..7).map(|_| run(bytes, &mappings)).collect();
        times.sort();
        println!(
            "terraform migrate, {what}: {instances} instances ({} KiB of state) read and mapped in {} ms (median of 7)",
            bytes.len() / 1024,
            times[3].as_millis()
        );
    }
}
