//! From programs to import specs and back: the resources a preview would create become an
//! import spec with placeholder IDs (`pulumi preview --import-file`), or a mapping of names to
//! IDs (`cdk import --record-resource-mapping`) that, filled in, turns those creates into
//! imports.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::step::StepOp;
use super::DeploymentPlan;

/// What the user fills in: a placeholder, never a valid ID.
pub const PLACEHOLDER_ID: &str = "<PLACEHOLDER>";

/// The resources the plan would create that a person could import instead (not the stack's
/// root, nor a provider).
pub fn would_create(plan: &DeploymentPlan) -> impl Iterator<Item = &super::Step> {
    plan.steps.iter().filter(|s| {
        s.op == StepOp::Create
            && s.type_ != "pulumi:pulumi:Stack"
            && !s.type_.starts_with("pulumi:providers:")
    })
}

/// An import spec (`pulumi import --file` format) for every resource the plan would create.
/// Parents and providers that are themselves in the file are named; others go through the
/// spec's `nameTable` by URN.
pub fn import_file(plan: &DeploymentPlan, states: &[super::ResourceState]) -> Value {
    let parents: HashMap<String, String> =
        states.iter().filter_map(|s| Some((s.urn.clone(), s.parent.clone()?))).collect();
    let providers: HashMap<String, String> =
        states.iter().filter_map(|s| Some((s.urn.clone(), s.provider.clone()?))).collect();
    let creates: Vec<_> = would_create(plan).collect();
    let in_file: HashMap<&str, &str> =
        creates.iter().map(|s| (s.urn.as_str(), s.name.as_str())).collect();
    let mut name_table: BTreeMap<String, String> = BTreeMap::new();
    let mut resources = Vec::new();
    for s in creates {
        let mut entry = json!({"type": s.type_, "name": s.name, "id": PLACEHOLDER_ID});
        if let Some(parent) = parents.get(&s.urn).filter(|p| !p.contains("::pulumi:pulumi:Stack::"))
        {
            let name = match in_file.get(parent.as_str()) {
                Some(n) => n.to_string(),
                None => {
                    let n = format!("parent-{}", ferry_state::urn::name_of(parent));
                    name_table.insert(n.clone(), parent.clone());
                    n
                }
            };
            entry["parent"] = json!(name);
        }
        if let Some(provider) = providers.get(&s.urn) {
            let (urn, _) = ferry_state::urn::split_provider_reference(provider)
                .unwrap_or((provider.as_str(), ""));
            if !ferry_state::urn::name_of(urn).starts_with("default")
                && !provider.ends_with(super::step::UNKNOWN_ID)
            {
                let n = format!("provider-{}", ferry_state::urn::name_of(urn));
                name_table.insert(n.clone(), provider.clone());
                entry["provider"] = json!(n);
            }
        }
        resources.push(entry);
    }
    let mut file = json!({"resources": resources});
    if !name_table.is_empty() {
        file["nameTable"] = json!(name_table);
    }
    file
}

/// Names of the resources the plan would create, each mapped to an empty ID to fill in.
pub fn mapping_template(plan: &DeploymentPlan) -> BTreeMap<String, String> {
    would_create(plan).map(|s| (s.name.clone(), String::new())).collect()
}
