//! For tests and benchmarks: large states made from a real one (the first resource's first
//! instance repeated under `count`, 100 instances per resource, the resources spread over ten
//! modules), and the mapping Ferry's random plugin answers for `hashicorp/random`.

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

/// The mapping Ferry's random plugin gives for `hashicorp/random` (the shape the bridged Pulumi
/// provider's is), for `random_string`: what tests migrate states with without a plugin.
pub fn random_mapping() -> crate::ProviderMapping {
    let data = json!({"name": "random", "version": "4.21.2",
      "provider": {"resources": {"random_string": {
        "id": {"type": 4, "computed": true}, "length": {"type": 2, "required": true}, "result": {"type": 4, "computed": true},
        "keepers": {"type": 6, "optional": true, "element": {"schema": {"type": 4}}},
        "lower": {"type": 1, "optional": true, "computed": true}, "upper": {"type": 1, "optional": true, "computed": true},
        "number": {"type": 1, "optional": true, "computed": true}, "numeric": {"type": 1, "optional": true, "computed": true},
        "special": {"type": 1, "optional": true, "computed": true}, "min_lower": {"type": 2, "optional": true, "computed": true},
        "min_upper": {"type": 2, "optional": true, "computed": true}, "min_numeric": {"type": 2, "optional": true, "computed": true},
        "min_special": {"type": 2, "optional": true, "computed": true}, "override_special": {"type": 4, "optional": true}}}},
      "resources": {"random_string": {"tok": "random:index/randomString:RandomString", "fields": {}}}});
    crate::ProviderMapping::parse(data.to_string().as_bytes(), "random")
        .expect("the mapping reads")
        .expect("a mapping")
}
