//! How long a Terraform state takes to become a plan: 10,000 `random_string` instances (the
//! shared fixture's instance, repeated under `count` and in modules) read and mapped into rows,
//! a YAML program and recorded states, as `POST …/migrations/terraform` does before it saves
//! the plan. Prints the median of 7 runs after one warm-up; `--smoke` runs 1,000 instances once
//! and fails past a loose bound (not a timed test: a regression by orders of magnitude).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ferry_terraform::{migrate, read_state, MigrationOptions, ProviderMapping};
use serde_json::json;

fn state(instances: usize) -> Vec<u8> {
    let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/terraform/tf-project.tfstate");
    ferry_terraform::testing::repeated_instances(&std::fs::read(file).expect("the shared fixture tf-project.tfstate"), instances)
}

fn mapping() -> BTreeMap<String, ProviderMapping> {
    let bool_ = json!({"type": 1, "optional": true, "computed": true});
    let int = json!({"type": 2, "optional": true, "computed": true});
    let data = json!({"name": "random", "provider": {"resources": {"random_string": {
        "id": {"type": 4, "computed": true}, "length": {"type": 2, "required": true}, "result": {"type": 4, "computed": true},
        "keepers": {"type": 6, "optional": true, "element": {"schema": {"type": 4}}}, "override_special": {"type": 4, "optional": true},
        "lower": bool_, "upper": bool_, "number": bool_, "numeric": bool_, "special": bool_,
        "min_lower": int, "min_upper": int, "min_numeric": int, "min_special": int}}},
      "resources": {"random_string": {"tok": "random:index/randomString:RandomString"}}});
    BTreeMap::from([("random".to_string(), ProviderMapping::parse(data.to_string().as_bytes(), "random").unwrap().unwrap())])
}

fn run(bytes: &[u8], mappings: &BTreeMap<String, ProviderMapping>) -> Duration {
    let started = Instant::now();
    let state = read_state(bytes).unwrap();
    let m = migrate(&state, mappings, &MigrationOptions { project: "bench".into(), ..Default::default() });
    let took = started.elapsed();
    assert_eq!(m.prior.len(), state.instances.len());
    assert!(m.program.is_some());
    took
}

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    let instances = if smoke { 1_000 } else { 10_000 };
    let bytes = state(instances);
    let mappings = mapping();
    if smoke {
        let took = run(&bytes, &mappings);
        println!("terraform migrate smoke: {instances} instances in {} ms", took.as_millis());
        assert!(took < Duration::from_secs(5), "1,000 instances took {took:?}: far past the 10,000-in-1-s target");
        return;
    }
    run(&bytes, &mappings);
    let mut times: Vec<Duration> = (0..7).map(|_| run(&bytes, &mappings)).collect();
    times.sort();
    println!("terraform migrate: {instances} instances ({} KiB of state) read and mapped in {} ms (median of 7)", bytes.len() / 1024, times[3].as_millis());
}
