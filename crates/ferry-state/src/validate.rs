//! Referential checks on a deployment: every parent, provider and dependency names a resource
//! that is there. One pass to index URNs, one to check; O(1) per reference.

use crate::deployment::Deployment;
use crate::error::{ErrorCode, StateError};
use crate::urn::{split_provider_reference, Urn};
use crate::warning::StateWarning;

/// Index from URN to the positions of the resources that carry it (several only when the
/// state holds pending deletes or, in some tool-written files, duplicates): one table entry per
/// URN and one link per resource, where a list per URN cost an allocation per resource. The
/// table's hash is seeded per process (the URNs are the uploader's) and fast on long keys.
pub struct UrnIndex<'a> {
    /// Each URN's first and last position.
    ends: foldhash::HashMap<&'a str, (usize, usize)>,
    /// Each position's next position with the same URN (`NONE` for the last).
    next: Vec<usize>,
}

const NONE: usize = usize::MAX;

impl<'a> UrnIndex<'a> {
    pub fn new(deployment: &'a Deployment) -> UrnIndex<'a> {
        let resources = deployment.resources();
        let mut ends: foldhash::HashMap<&str, (usize, usize)> =
            foldhash::HashMap::with_capacity_and_hasher(resources.len(), Default::default());
        let mut next = vec![NONE; resources.len()];
        for (i, r) in resources.iter().enumerate() {
            ends.entry(r.urn.as_str())
                .and_modify(|(_, last)| {
                    next[*last] = i;
                    *last = i;
                })
                .or_insert((i, i));
        }
        UrnIndex { ends, next }
    }

    pub fn contains(&self, urn: &str) -> bool {
        self.ends.contains_key(urn)
    }

    /// The positions of the resources whose URN is `urn`, in the state's order.
    pub fn positions(&self, urn: &str) -> impl Iterator<Item = usize> + '_ {
        let first = self.ends.get(urn).map(|&(first, _)| first);
        std::iter::successors(first, |&i| Some(self.next[i]).filter(|&next| next != NONE))
    }

    /// Each URN carried by more than one resource, with its positions.
    fn repeated(&self) -> impl Iterator<Item = (&'a str, Vec<usize>)> + '_ {
        self.ends
            .iter()
            .filter(|(_, &(first, last))| first != last)
            .map(|(&urn, _)| (urn, self.positions(urn).collect()))
    }
}

/// Fails on the first dangling reference; returns warnings for what is odd but loadable. A
/// resource marked in `stored_copies` (see [`crate::load::LoadOptions::stored_copies`]) keeps
/// a URN that was checked when it was stored: only its references are checked again.
pub fn check_references(
    deployment: &Deployment,
    base: &str,
    stored_copies: &[bool],
) -> Result<Vec<StateWarning>, StateError> {
    let index = UrnIndex::new(deployment);
    let resources = deployment.resources();
    let at = |i: usize, field: &str| format!("{base}.resources[{i}].{field}");

    for (i, r) in resources.iter().enumerate() {
        let stored_copy = stored_copies.get(i).copied().unwrap_or(false);
        if !stored_copy && Urn::parse(&r.urn).is_none() {
            return Err(StateError::new(
                ErrorCode::InvalidState,
                format!(
                    "`{}` is not a Pulumi URN (urn:pulumi:<stack>::<project>::<type>::<name>)",
                    r.urn
                ),
            )
            .at(at(i, "urn")));
        }
        if let Some(parent) = r.parent() {
            if !index.contains(parent) {
                return Err(StateError::new(
                    ErrorCode::DanglingReference,
                    format!(
                        "resource `{}` names parent `{parent}`, which is not in the state",
                        r.urn
                    ),
                )
                .at(at(i, "parent")));
            }
        }
        if let Some(reference) = r.provider() {
            let (provider_urn, provider_id) = split_provider_reference(reference).ok_or_else(|| {
                StateError::new(ErrorCode::InvalidState, format!("provider reference `{reference}` is not `<provider URN>::<provider ID>`"))
                    .at(at(i, "provider"))
            })?;
            let mut candidates = index.positions(provider_urn).peekable();
            let Some(&first) = candidates.peek() else {
                return Err(StateError::new(
                    ErrorCode::DanglingReference,
                    format!(
                        "resource `{}` uses provider `{provider_urn}`, which is not in the state",
                        r.urn
                    ),
                )
                .at(at(i, "provider")));
            };
            let matches_id =
                candidates.any(|j| resources[j].id.as_deref().unwrap_or("") == provider_id);
            if !matches_id {
                let found = resources[first].id.as_deref().unwrap_or("");
                return Err(StateError::new(
                    ErrorCode::DanglingReference,
                    format!(
                        "resource `{}` uses provider `{provider_urn}` with ID `{provider_id}`, but that \
                         provider's ID in the state is `{found}`",
                        r.urn
                    ),
                )
                .at(at(i, "provider")));
            }
        }
        if let Some(dep) = r.dependency_urns().find(|d| !index.contains(d)) {
            return Err(StateError::new(
                ErrorCode::DanglingReference,
                format!("resource `{}` depends on `{dep}`, which is not in the state", r.urn),
            )
            .at(at(i, "dependencies")));
        }
    }

    Ok(repeated_urns(deployment, &index, base))
}

/// The warnings [`check_references`] gives a state it passes (URNs held by more than one live
/// resource), without its checks: for a state that passed them when it was stored.
pub fn reference_warnings(deployment: &Deployment, base: &str) -> Vec<StateWarning> {
    repeated_urns(deployment, &UrnIndex::new(deployment), base)
}

fn repeated_urns(deployment: &Deployment, index: &UrnIndex<'_>, base: &str) -> Vec<StateWarning> {
    let resources = deployment.resources();
    let mut warnings = Vec::new();
    for (urn, positions) in index.repeated() {
        let live = positions.iter().filter(|&&i| !resources[i].is_pending_delete()).count();
        if live > 1 {
            warnings.push(StateWarning {
                message: format!(
                    "URN `{urn}` appears {live} times; Pulumi would refuse to update this stack until \
                     the duplicates are removed"
                ),
                path: Some(format!("{base}.resources[{}].urn", positions[0])),
            });
        }
    }
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(resources: serde_json::Value) -> Deployment {
        serde_json::from_value(json!({"manifest": {"time": "t"}, "resources": resources})).unwrap()
    }

    /// A stored copy's URN is not parsed again, but its references are checked like any
    /// other's; a resource that is not a copy is checked whole.
    #[test]
    fn a_stored_copy_skips_only_the_urn_check() {
        let a = json!({"urn": "urn:pulumi:s::p::t:i:R::a", "type": "t:i:R"});
        let odd = json!({"urn": "not-a-urn", "type": "t:i:R"});
        let dangling = json!({"urn": "urn:pulumi:s::p::t:i:R::b", "type": "t:i:R",
            "parent": "urn:pulumi:s::p::t:i:R::gone"});
        let d = deployment(json!([a, odd]));
        let err = check_references(&d, "deployment", &[]).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("deployment.resources[1].urn"));
        assert!(check_references(&d, "deployment", &[false, true]).is_ok());
        let d = deployment(json!([a, dangling]));
        for copies in [&[][..], &[true, true][..]] {
            let err = check_references(&d, "deployment", copies).unwrap_err();
            assert_eq!(err.path.as_deref(), Some("deployment.resources[1].parent"), "{copies:?}");
        }
    }
}
