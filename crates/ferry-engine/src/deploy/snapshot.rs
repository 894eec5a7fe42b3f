//! The stack's next state from a deployment's resource states: ordered so every resource
//! follows its parent, provider and dependencies, written in Pulumi's state format with secrets
//! encrypted by the stack's secrets provider. Pure: the caller stores it, atomically.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use ferry_state::deployment::Resource;
use ferry_state::urn::split_provider_reference;
use ferry_state::Deployment;
use serde_json::{json, Map, Value};

use super::step::ResourceState;
use ferry_property::json::{encode_map, EncodeOptions, SecretEncoding};

/// Stable topological order: each resource after its parent, provider and dependencies
/// (those among `states`), otherwise in the given order. A state kept by its position in `base`
/// ([`ResourceState::kept`]) is ordered by the base's entry, which is what it is written as.
pub fn dependency_order(states: Vec<ResourceState>, base: &[Resource]) -> Vec<ResourceState> {
    // Borrowed, not cloned: a plan over a 100,000-resource stack orders every kept resource.
    let edges: Vec<Edges<'_>> = states.iter().map(|s| Edges::of(s, base)).collect();
    let index: HashMap<&str, usize> = edges.iter().enumerate().map(|(i, e)| (e.urn, i)).collect();
    let deps: Vec<Vec<usize>> = edges
        .iter()
        .map(|e| {
            let provider = e.provider.and_then(split_provider_reference).map(|(u, _)| u);
            e.parent
                .into_iter()
                .chain(provider)
                .chain(e.dependencies.iter().map(String::as_str))
                .filter_map(|u| index.get(u).copied())
                .collect()
        })
        .collect();
    let mut placed = vec![false; states.len()];
    let mut order = Vec::with_capacity(states.len());
    // Depth-first, visiting dependencies first; a cycle (impossible from a program) falls back
    // to the given order.
    let mut on_stack = vec![false; states.len()];
    for start in 0..states.len() {
        let mut stack = vec![(start, 0usize)];
        on_stack[start] = true;
        while let Some((node, next)) = stack.pop() {
            if placed[node] {
                on_stack[node] = false;
                continue;
            }
            if next < deps[node].len() {
                stack.push((node, next + 1));
                let d = deps[node][next];
                if !placed[d] && !on_stack[d] {
                    on_stack[d] = true;
                    stack.push((d, 0));
                }
            } else {
                placed[node] = true;
                on_stack[node] = false;
                order.push(node);
            }
        }
    }
    let mut slots: Vec<Option<ResourceState>> = states.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The states a preview computed, made ready to be written without executing anything (a
/// commit of imports, reads and unchanged resources): each provider resource the plan creates
/// gets its ID (a fresh UUID, as Pulumi's engine gives a provider resource), and references to
/// it (`urn::<unknown ID>`) name that ID.
pub fn assign_created_ids(states: &mut [ResourceState]) {
    let mut ids: HashMap<String, String> = HashMap::new();
    for s in states
        .iter_mut()
        .filter(|s| s.custom && s.id.is_none() && s.type_.starts_with("pulumi:providers:"))
    {
        let id = uuid::Uuid::new_v4().to_string();
        ids.insert(format!("{}::{}", s.urn, super::step::UNKNOWN_ID), format!("{}::{id}", s.urn));
        s.id = Some(id);
    }
    for s in states.iter_mut() {
        if let Some(real) = s.provider.as_ref().and_then(|p| ids.get(p)) {
            s.provider = Some(real.clone());
        }
    }
}

/// What orders one state: its URN and the URNs it follows.
struct Edges<'a> {
    urn: &'a str,
    parent: Option<&'a str>,
    provider: Option<&'a str>,
    dependencies: &'a [String],
}

impl<'a> Edges<'a> {
    fn of(s: &'a ResourceState, base: &'a [Resource]) -> Edges<'a> {
        match s.kept_entry(base) {
            Some(r) => Edges {
                urn: &r.urn,
                parent: r.parent.as_deref(),
                provider: r.provider.as_deref(),
                dependencies: r.dependencies.as_deref().unwrap_or(&[]),
            },
            None => Edges {
                urn: &s.urn,
                parent: s.parent.as_deref(),
                provider: s.provider.as_deref(),
                dependencies: &s.dependencies,
            },
        }
    }
}

/// How the state is written.
pub struct WriteOptions<'a> {
    /// RFC 3339, for `created` (new resources) and `modified` (changed ones).
    pub now: &'a str,
    pub encrypt: &'a (dyn Fn(&str) -> String + Sync),
}

/// The deployment `base` becomes: its resources replaced by `states`, and the write recorded in
/// its manifest (time, writer, magic) as Pulumi records each of its own.
///
/// A resource kept verbatim moves out of an owned `base` (a commit's base is superseded by what
/// it writes: nothing copies the stack), and is copied from a borrowed one.
pub fn to_deployment(
    base: Cow<'_, Deployment>,
    states: &[ResourceState],
    options: &WriteOptions<'_>,
) -> Deployment {
    let opts = EncodeOptions {
        secrets: SecretEncoding::Encrypt(options.encrypt),
        ..EncodeOptions::wire()
    };
    let encode = |m| Value::Object(encode_map(m, &opts));
    let kept = verbatim_position;
    let olds = base.resources();
    // The resources the states write anew; the kept ones (`None` here) come from the base below.
    let written: Vec<Option<Resource>> = states
        .iter()
        .map(|s| {
            if kept(s).is_some() {
                return None;
            }
            let old = s.base.map(|i| &olds[i]);
            let mut v: Map<String, Value> = match old {
                Some(o) => match serde_json::to_value(o) {
                    Ok(Value::Object(m)) => m,
                    _ => Map::new(),
                },
                None => Map::new(),
            };
            v.insert("urn".into(), json!(s.urn));
            v.insert("custom".into(), json!(s.custom));
            v.insert("type".into(), json!(s.type_));
            set(&mut v, "id", s.id.as_ref().map(|i| json!(i)));
            v.insert("inputs".into(), encode(&s.inputs));
            v.insert("outputs".into(), encode(&s.outputs));
            set(&mut v, "parent", s.parent.as_ref().map(|p| json!(p)));
            set(&mut v, "provider", s.provider.as_ref().map(|p| json!(p)));
            set(&mut v, "protect", s.protect.then_some(json!(true)));
            set(&mut v, "external", s.external.then_some(json!(true)));
            set(&mut v, "deleteBeforeReplace", s.delete_before_replace.then_some(json!(true)));
            set(&mut v, "retainOnDelete", s.retain_on_delete.then_some(json!(true)));
            set(&mut v, "importID", s.import_id.as_ref().map(|i| json!(i)));
            set(
                &mut v,
                "dependencies",
                (!s.dependencies.is_empty()).then(|| json!(s.dependencies)),
            );
            let pd: BTreeMap<&String, Vec<&String>> =
                s.property_dependencies.iter().map(|(k, v)| (k, v.iter().collect())).collect();
            set(&mut v, "propertyDependencies", (!pd.is_empty()).then(|| json!(pd)));
            v.remove("delete");
            v.remove("pendingReplacement");
            let changed = match old {
                Some(o) => {
                    o.inputs.as_ref().map(|i| Value::Object(i.to_map())) != v.get("inputs").cloned()
                        || o.outputs.as_ref().map(|i| Value::Object(i.to_map()))
                            != v.get("outputs").cloned()
                }
                None => true,
            };
            if old.is_none() {
                v.insert("created".into(), json!(options.now));
            }
            if changed {
                v.insert("modified".into(), json!(options.now));
            }
            Some(
                serde_json::from_value(Value::Object(v))
                    .expect("a resource written from its fields always reads back"),
            )
        })
        .collect();
    // Everything but the resources (cloning them too would copy the whole stack once more).
    let mut next = base.without_resources();
    let mut taken = vec![false; olds.len()];
    let each_kept_once =
        states.iter().filter_map(kept).all(|i| !std::mem::replace(&mut taken[i], true));
    let resources: Vec<Resource> = match base {
        Cow::Owned(owned) if each_kept_once => {
            let mut olds: Vec<Option<Resource>> =
                owned.resources.unwrap_or_default().into_iter().map(Some).collect();
            written
                .into_iter()
                .zip(states)
                .map(|(w, s)| {
                    w.unwrap_or_else(|| {
                        olds[kept(s).expect("only kept resources are left")]
                            .take()
                            .expect("kept once")
                    })
                })
                .collect()
        }
        base => written
            .into_iter()
            .zip(states)
            .map(|(w, s)| {
                w.unwrap_or_else(|| {
                    base.resources()[kept(s).expect("only kept resources are left")].clone()
                })
            })
            .collect(),
    };
    next.resources = Some(resources);
    next.pending_operations = None;
    next.record_write(options.now);
    next
}

/// The base position of the resource [`to_deployment`] writes for `state`, when it is a
/// verbatim copy of the base's entry there (`None`: written anew).
pub fn verbatim_position(state: &ResourceState) -> Option<usize> {
    state.base.filter(|_| state.verbatim)
}

fn set(v: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(x) => {
            v.insert(key.into(), x);
        }
        None => {
            v.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Deployment {
        serde_json::from_value(json!({"manifest": {"time": "t"}, "resources": [
            {"urn": "urn:pulumi:s::p::t:i:A::a", "type": "t:i:A", "custom": true, "id": "1", "outputs": {"x": 1}},
            {"urn": "urn:pulumi:s::p::t:i:B::b", "type": "t:i:B", "custom": true, "id": "2", "futureField": [1]},
        ]}))
        .unwrap()
    }

    /// An owned base gives the same new state as a borrowed one, kept resources and all (moved,
    /// not copied), and a resource kept twice still comes out twice.
    #[test]
    fn an_owned_base_writes_what_a_borrowed_one_writes() {
        let encrypt = |s: &str| s.to_string();
        let options = WriteOptions { now: "2026-11-24T00:00:00Z", encrypt: &encrypt };
        let mut new = ResourceState::kept(0);
        (new.urn, new.type_, new.custom, new.id, new.base, new.verbatim) = (
            "urn:pulumi:s::p::t:i:C::c".into(),
            "t:i:C".into(),
            true,
            Some("3".into()),
            None,
            false,
        );
        for states in [
            vec![ResourceState::kept(1), new.clone(), ResourceState::kept(0)],
            vec![ResourceState::kept(1), ResourceState::kept(1)],
        ] {
            let base = base();
            let borrowed = to_deployment(Cow::Borrowed(&base), &states, &options);
            let owned = to_deployment(Cow::Owned(base.clone()), &states, &options);
            assert_eq!(owned, borrowed);
            for (state, written) in states.iter().zip(owned.resources()) {
                if let Some(i) = state.base {
                    assert_eq!(
                        written,
                        &base.resources()[i],
                        "a kept resource is written as it was"
                    );
                }
            }
        }
    }

    /// A state kept by its position is ordered by its base entry: a new resource whose parent
    /// and dependency are kept ones follows them, and kept ones follow each other as the base
    /// says, though they carry no URN of their own.
    #[test]
    fn kept_states_are_ordered_by_their_base_entries() {
        let base: Deployment = serde_json::from_value(json!({"resources": [
            {"urn": "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s", "type": "pulumi:pulumi:Stack"},
            {"urn": "urn:pulumi:s::p::t:i:A::a", "type": "t:i:A", "custom": true, "id": "1", "parent": "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s"},
        ]}))
        .unwrap();
        let mut new = ResourceState::bare("urn:pulumi:s::p::t:i:C::c".into(), "t:i:C".into(), None);
        new.parent = Some("urn:pulumi:s::p::pulumi:pulumi:Stack::p-s".into());
        new.dependencies = vec!["urn:pulumi:s::p::t:i:A::a".into()];
        let ordered = dependency_order(
            vec![new, ResourceState::kept(1), ResourceState::kept(0)],
            base.resources(),
        );
        let urns: Vec<&str> = ordered.iter().map(|s| s.urn_in(base.resources())).collect();
        assert_eq!(
            urns,
            [
                "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s",
                "urn:pulumi:s::p::t:i:A::a",
                "urn:pulumi:s::p::t:i:C::c"
            ]
        );
    }
}
