//! What each stack manages, for the store's index (`ferry_store::managed`): what a commit
//! changes in it, the rebuild of a stack whose rows are stale (after an upload, say: it writes
//! none), and the lookup a discovery makes, limited to the stack's own organisation.

use std::collections::HashMap;

use ferry_state::Deployment;
use ferry_store::managed::{ManagedChange, ManagedResource};

use crate::{ServiceError, Stacks};
use ferry_types::discovery::Managed;

/// The resources of `deployment` a discovery can find again: custom resources with a cloud
/// ID, not providers, not pending deletion.
/// A URN held twice (a state Ferry loads with a warning) is listed once, the first.
pub(crate) fn managed_of(deployment: &Deployment) -> Vec<ManagedResource> {
    managed_rows(deployment)
        .map(|(urn, type_, id)| ManagedResource {
            urn: urn.to_string(),
            type_: type_.to_string(),
            id: id.to_string(),
        })
        .collect()
}

/// [`managed_of`]'s rows, borrowed: URN, type and ID.
fn managed_rows(deployment: &Deployment) -> impl Iterator<Item = (&str, &str, &str)> {
    let mut seen = foldhash::HashSet::default();
    deployment
        .resources()
        .iter()
        .filter(move |r| {
            r.is_custom()
                && !r.is_provider()
                && !r.is_pending_delete()
                && seen.insert(r.urn.as_str())
        })
        .filter_map(|r| {
            r.id().filter(|id| !id.is_empty()).map(|id| (r.urn.as_str(), r.type_.as_str(), id))
        })
}

/// What a commit's base managed, by URN: what [`managed_change`] compares its result with
/// (owned, since the base moves into the result).
pub(crate) struct ManagedBefore(foldhash::HashMap<String, (String, String)>);

/// What `next` changes of `base`'s managed resources: those added or changed, and the URNs no
/// longer managed. One pass over each, in the size of the stack (as the commit's own write is),
/// copying only what changed.
pub(crate) fn managed_change(base: &ManagedBefore, next: &Deployment) -> ManagedChange {
    let mut still = foldhash::HashSet::with_capacity_and_hasher(base.0.len(), Default::default());
    let mut upserted = Vec::new();
    for (urn, type_, id) in managed_rows(next) {
        still.insert(urn);
        let same = base.0.get(urn).is_some_and(|(t, i)| t == type_ && i == id);
        if !same {
            upserted.push(ManagedResource {
                urn: urn.to_string(),
                type_: type_.to_string(),
                id: id.to_string(),
            });
        }
    }
    let removed = base.0.keys().filter(|urn| !still.contains(urn.as_str())).cloned().collect();
    ManagedChange::Delta { upserted, removed }
}

/// `deployment`'s managed resources by URN, before a commit changes it.
pub(crate) fn managed_by_urn(deployment: &Deployment) -> ManagedBefore {
    ManagedBefore(
        managed_rows(deployment)
            .map(|(urn, type_, id)| (urn.to_string(), (type_.to_string(), id.to_string())))
            .collect(),
    )
}

impl Stacks {
    /// Which of `type_`'s resources the stacks of `stack_id`'s organisation manage, by cloud ID
    /// (the stack itself winning over the others): what a discovery marks its results with.
    /// Nothing of another organisation is ever looked at. Stacks whose index rows are stale
    /// (an upload's or a backend's version, one stored before the index, or a commit's it
    /// could not follow) are rebuilt first, from their latest version, once.
    pub(crate) async fn managed_lookup(
        &self,
        stack_id: &str,
        type_: &str,
    ) -> Result<HashMap<String, Managed>, ServiceError> {
        let org = crate::access::org_of_name(&self.store.stacks().stack(stack_id).await?.name)
            .to_string();
        for (stale, version) in self.store.stacks().stale_managed_stacks(&org).await? {
            let loaded = self.version(&stale, Some(version)).await?;
            let rows = managed_of(&loaded.deployment);
            self.store.stacks().rebuild_managed(&stale, version, rows).await?;
        }
        let mut index = HashMap::new();
        for (id, by) in self.store.stacks().managed_of_type(&org, type_).await? {
            let managed = if by.stack_id == stack_id {
                Managed::InThisStack { urn: by.urn }
            } else {
                Managed::InOtherStack { stack_id: by.stack_id, stack: by.stack, urn: by.urn }
            };
            let this = matches!(managed, Managed::InThisStack { .. });
            if this || !index.contains_key(&id) {
                index.insert(id, managed);
            }
        }
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(resources: serde_json::Value) -> Deployment {
        serde_json::from_value(serde_json::json!({"resources": resources})).unwrap()
    }

    #[test]
    fn a_commit_writes_what_changed_and_what_went() {
        let base = deployment(serde_json::json!([
            {"urn": "urn:pulumi:s::p::pulumi:providers:random::default", "type": "pulumi:providers:random", "custom": true, "id": "x"},
            {"urn": "urn:pulumi:s::p::random:index/randomPet:RandomPet::a", "type": "random:index/randomPet:RandomPet", "custom": true, "id": "a-1"},
            {"urn": "urn:pulumi:s::p::random:index/randomPet:RandomPet::b", "type": "random:index/randomPet:RandomPet", "custom": true, "id": "b-1"},
        ]));
        let next = deployment(serde_json::json!([
            {"urn": "urn:pulumi:s::p::pulumi:providers:random::default", "type": "pulumi:providers:random", "custom": true, "id": "x"},
            {"urn": "urn:pulumi:s::p::random:index/randomPet:RandomPet::a", "type": "random:index/randomPet:RandomPet", "custom": true, "id": "a-2"},
            {"urn": "urn:pulumi:s::p::random:index/randomPet:RandomPet::c", "type": "random:index/randomPet:RandomPet", "custom": true, "id": "c-1"},
            {"urn": "urn:pulumi:s::p::my:index:Component::d", "type": "my:index:Component", "custom": false},
        ]));
        assert_eq!(managed_of(&base).len(), 2, "no provider");
        let ManagedChange::Delta { upserted, removed } =
            managed_change(&managed_by_urn(&base), &next)
        else {
            panic!("a delta")
        };
        let ids: Vec<&str> = upserted.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a-2", "c-1"], "changed and added; the component has no ID");
        assert_eq!(removed, ["urn:pulumi:s::p::random:index/randomPet:RandomPet::b"]);
    }
}
