//! Large states made from a real one, for the benchmarks: the first resource's first instance
//! repeated under `count`, 100 instances per resource, the resources spread over ten modules.

use serde_json::{json, Value};

/// `real` (a version 4 state file) with `instances` copies of its first resource's first
/// instance, each with its own `id` and `result` of the instance's length (16 characters).
pub fn repeated_instances(real: &[u8], instances: usize) -> Vec<u8> {
    let real: Value = serde_json::from_slice(real).expect("a state file");
    let template = real["resources"][0]["instances"][0].clone();
    let per_resource = 100;
    let resources: Vec<Value> = (0..instances.div_ceil(per_resource))
        .map(|r| {
            let mut resource = real["resources"][0].clone();
            resource["module"] = json!(format!("module.m{}", r % 10));
            resource["name"] = json!(format!("s{r}"));
            resource["each"] = json!("list");
            resource["instances"] = json!((0..per_resource.min(instances - r * per_resource))
                .map(|k| {
                    let mut i = template.clone();
                    i["index_key"] = json!(k);
                    let id = format!("{:0>16}", format!("{r}x{k}"));
                    i["attributes"]["id"] = json!(id);
                    i["attributes"]["result"] = json!(id);
                    i
                })
                .collect::<Vec<_>>());
            resource
        })
        .collect();
    let mut state = real;
    state["resources"] = json!(resources);
    serde_json::to_vec(&state).expect("JSON serialises")
}
