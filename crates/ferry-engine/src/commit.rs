//! Turning a preview into the stack's next state: the ready resources are added (protected by
//! default), with the stack's root resource and default providers created as Pulumi creates
//! them, and secrets encrypted by the stack's secrets provider. Pure: the caller stores it.

use std::collections::HashMap;

use ferry_state::deployment::Resource;
use ferry_state::Deployment;
use serde_json::{json, Map, Value};

use crate::import::Preview;
use crate::property::json::{encode_map, EncodeOptions, SecretEncoding};

/// How the commit goes.
pub struct CommitOptions<'a> {
    /// Imported resources get `protect: true` (Pulumi's `pulumi import` does the same).
    pub protect: bool,
    /// RFC 3339 time for `created` and `modified`.
    pub now: &'a str,
    /// Encrypts a secret's JSON text for the stack's secrets provider.
    pub encrypt: &'a (dyn Fn(&str) -> String + Sync),
}

/// Why a preview cannot be committed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommitError {
    #[error("nothing to commit: no resource in the preview is ready")]
    NothingReady,
}

fn resource(value: Value) -> Resource {
    serde_json::from_value(value).expect("a resource literal always deserialises")
}

/// The deployment after adding the preview's ready resources to `base`.
pub fn apply_import(base: &Deployment, preview: &Preview, options: &CommitOptions<'_>) -> Result<(Deployment, usize), CommitError> {
    let ready: Vec<_> = preview.resources.iter().filter(|r| r.status.is_ready()).collect();
    if ready.is_empty() {
        return Err(CommitError::NothingReady);
    }
    let mut next = base.clone();
    let resources = next.resources.get_or_insert_with(Vec::new);
    let stamp = |mut v: Value| {
        v["created"] = json!(options.now);
        v["modified"] = json!(options.now);
        v
    };
    let encode = |map| Value::Object(encode_map(map, &EncodeOptions { secrets: SecretEncoding::Encrypt(options.encrypt), ..EncodeOptions::wire() }));

    if !preview.root_exists {
        resources.insert(0, resource(stamp(json!({"urn": preview.root, "custom": false, "type": "pulumi:pulumi:Stack"}))));
    }
    // Provider URN -> reference (`urn::id`) for the providers this commit creates.
    let mut created: HashMap<String, String> = HashMap::new();
    for p in &preview.providers_to_create {
        if !ready.iter().any(|r| r.provider.as_deref() == Some(p.urn.as_str())) {
            continue;
        }
        let id = uuid::Uuid::new_v4().to_string();
        let inputs: Map<String, Value> = p.version.iter().map(|v| ("version".to_string(), json!(v))).collect();
        resources.push(resource(stamp(json!({"urn": p.urn, "custom": true, "id": id, "type": format!("pulumi:providers:{}", p.package),
            "inputs": inputs, "outputs": inputs}))));
        created.insert(p.urn.clone(), format!("{}::{id}", p.urn));
    }
    // Explicit provider entries first, so resources can refer to them.
    for r in ready.iter().filter(|r| r.type_.starts_with("pulumi:providers:")) {
        let id = uuid::Uuid::new_v4().to_string();
        resources.push(resource(stamp(json!({"urn": r.urn, "custom": true, "id": id, "type": r.type_,
            "inputs": encode(&r.inputs), "outputs": encode(&r.inputs), "parent": r.parent}))));
        created.insert(r.urn.clone(), format!("{}::{id}", r.urn));
    }
    let mut added = 0;
    // Parents before children, as state requires.
    let in_order = preview.order.iter().map(|&i| &preview.resources[i]);
    for r in in_order.filter(|r| r.status.is_ready() && !r.type_.starts_with("pulumi:providers:")) {
        let mut v = if r.component {
            json!({"urn": r.urn, "custom": false, "type": r.type_, "parent": r.parent})
        } else {
            let provider = r.provider.as_ref().map(|p| created.get(p).cloned().unwrap_or_else(|| p.clone()));
            json!({"urn": r.urn, "custom": true, "id": r.id, "type": r.type_, "inputs": encode(&r.inputs),
                   "outputs": encode(&r.outputs), "parent": r.parent, "provider": provider})
        };
        if options.protect && !r.component {
            v["protect"] = json!(true);
        }
        resources.push(resource(stamp(v)));
        added += 1;
    }
    Ok((next, added))
}
