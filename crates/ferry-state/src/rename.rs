//! A stack's name as its resources carry it. Every URN names its stack and project
//! (`urn:pulumi:<stack>::<project>::…`); a state stored under another name would give the
//! resources a later import adds a root that is not there. [`stack_names`] says which names a
//! state's URNs carry, so an upload can refuse a mismatch (as `pulumi stack import` does) and
//! offer them; [`rename_stack`] moves a state to a new name as `pulumi stack rename` would: every
//! URN, and every place one is written (parents, dependencies, provider references, property
//! dependencies, aliases, `deletedWith`, pending operations), rewritten consistently.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::deployment::Deployment;
use crate::urn::Urn;

/// The `(project, stack)` pairs the state's resource URNs carry, sorted.
pub fn stack_names(deployment: &Deployment) -> BTreeSet<(String, String)> {
    // Nearly every state carries one pair: only a pair not seen just before is looked up and
    // copied (an owned pair per resource was a fiftieth of a big upload's instructions).
    let mut names = BTreeSet::new();
    let mut last: Option<(&str, &str)> = None;
    for urn in deployment.resources().iter().filter_map(|r| Urn::parse(&r.urn)) {
        let pair = (urn.project, urn.stack);
        if last != Some(pair) {
            last = Some(pair);
            names.insert((pair.0.to_string(), pair.1.to_string()));
        }
    }
    names
}

/// `urn` under project `project` and stack `stack` (unchanged when it is not a URN). The
/// stack's root resource is named `<project>-<stack>`: its name moves too, as Pulumi's rename
/// moves it.
fn renamed(urn: &str, project: &str, stack: &str) -> String {
    match Urn::parse(urn) {
        Some(u) if u.qualified_type == "pulumi:pulumi:Stack" => {
            format!("urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}")
        }
        Some(u) => format!("urn:pulumi:{stack}::{project}::{}::{}", u.qualified_type, u.name),
        None => urn.to_string(),
    }
}

/// A provider reference `<urn>::<id>` with its URN renamed.
fn renamed_reference(reference: &str, project: &str, stack: &str) -> String {
    match crate::urn::split_provider_reference(reference) {
        Some((urn, id)) => format!("{}::{id}", renamed(urn, project, stack)),
        None => reference.to_string(),
    }
}

/// Every string in `value` that is a URN, renamed (lists of URNs, maps of lists of URNs).
fn rename_urns_in(value: &mut Value, project: &str, stack: &str) {
    match value {
        Value::String(s) if s.starts_with("urn:pulumi:") => *s = renamed(s, project, stack),
        Value::Array(items) => items.iter_mut().for_each(|v| rename_urns_in(v, project, stack)),
        Value::Object(map) => map.values_mut().for_each(|v| rename_urns_in(v, project, stack)),
        _ => {}
    }
}

/// Moves the state to project `project` and stack `stack`: every resource's URN and every
/// reference to one. Outputs and inputs are left as they are (a property holding a URN is the
/// user's data, as `pulumi stack rename` leaves it).
pub fn rename_stack(deployment: &mut Deployment, project: &str, stack: &str) {
    if let Some(resources) = deployment.resources.as_mut() {
        for r in resources.iter_mut() {
            r.urn = renamed(&r.urn, project, stack);
            if let Some(parent) = r.parent.as_mut() {
                *parent = renamed(parent, project, stack);
            }
            if let Some(dependencies) = r.dependencies.as_mut() {
                dependencies.iter_mut().for_each(|d| *d = renamed(d, project, stack));
            }
            if let Some(provider) = r.provider.as_mut() {
                *provider = renamed_reference(provider, project, stack);
            }
            if let Some(deps) = r.property_dependencies.as_mut() {
                deps.values_mut().for_each(|v| rename_urns_in(v, project, stack));
            }
            for key in ["aliases", "deletedWith"] {
                if let Some(v) = r.extra.get_mut(key) {
                    rename_urns_in(v, project, stack);
                }
            }
        }
    }
    if let Some(pending) = deployment.pending_operations.as_mut() {
        for op in pending.iter_mut() {
            if let Some(resource) = op.get_mut("resource").and_then(Value::as_object_mut) {
                for key in [
                    "urn",
                    "parent",
                    "dependencies",
                    "propertyDependencies",
                    "aliases",
                    "deletedWith",
                ] {
                    if let Some(v) = resource.get_mut(key) {
                        rename_urns_in(v, project, stack);
                    }
                }
                if let Some(Value::String(provider)) = resource.get_mut("provider") {
                    *provider = renamed_reference(provider, project, stack);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> Deployment {
        serde_json::from_value(serde_json::json!({"resources": [
            {"urn": "urn:pulumi:dev::dns-to-db::pulumi:pulumi:Stack::dns-to-db-dev", "type": "pulumi:pulumi:Stack", "custom": false},
            {"urn": "urn:pulumi:dev::dns-to-db::pulumi:providers:aws::default_6", "type": "pulumi:providers:aws", "custom": true, "id": "p-1"},
            {"urn": "urn:pulumi:dev::dns-to-db::my:index:Net$aws:ec2/vpc:Vpc::main", "type": "aws:ec2/vpc:Vpc", "custom": true, "id": "vpc-1",
             "parent": "urn:pulumi:dev::dns-to-db::pulumi:pulumi:Stack::dns-to-db-dev",
             "provider": "urn:pulumi:dev::dns-to-db::pulumi:providers:aws::default_6::p-1",
             "dependencies": ["urn:pulumi:dev::dns-to-db::pulumi:providers:aws::default_6"],
             "propertyDependencies": {"cidr": ["urn:pulumi:dev::dns-to-db::pulumi:providers:aws::default_6"]},
             "aliases": ["urn:pulumi:dev::dns-to-db::aws:ec2/vpc:Vpc::old"],
             "outputs": {"note": "urn:pulumi:dev::dns-to-db::kept::as-is"}}
        ], "pending_operations": [{"type": "creating", "resource": {"urn": "urn:pulumi:dev::dns-to-db::aws:s3/bucket:Bucket::b", "type": "aws:s3/bucket:Bucket",
            "provider": "urn:pulumi:dev::dns-to-db::pulumi:providers:aws::default_6::p-1"}}]}))
        .unwrap()
    }

    #[test]
    fn a_stack_moved_to_a_new_name_carries_it_everywhere() {
        let mut d = state();
        assert_eq!(stack_names(&d), BTreeSet::from([("dns-to-db".to_string(), "dev".to_string())]));
        rename_stack(&mut d, "web", "prod");
        assert_eq!(stack_names(&d), BTreeSet::from([("web".to_string(), "prod".to_string())]));
        let text = serde_json::to_string(&d).unwrap();
        assert!(
            !text.replace("urn:pulumi:dev::dns-to-db::kept::as-is", "").contains("dns-to-db::"),
            "every reference renamed: {text}"
        );
        let vpc = &d.resources()[2];
        assert_eq!(vpc.urn, "urn:pulumi:prod::web::my:index:Net$aws:ec2/vpc:Vpc::main");
        assert_eq!(
            vpc.provider.as_deref(),
            Some("urn:pulumi:prod::web::pulumi:providers:aws::default_6::p-1")
        );
        assert_eq!(
            vpc.parent.as_deref(),
            Some("urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod"),
            "the root's name is the stack's"
        );
        assert_eq!(d.resources()[0].urn, "urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod");
        assert!(
            text.contains("urn:pulumi:dev::dns-to-db::kept::as-is"),
            "outputs are the user's data"
        );
        // The renamed state still holds together: every reference resolves.
        assert!(crate::validate::check_references(&d, "deployment", &[]).is_ok());
    }
}
