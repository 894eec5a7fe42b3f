//! Referential checks on a deployment: every parent, provider and dependency names a resource
//! that is there. One pass to index URNs, one to check; O(1) per reference.

use std::collections::HashMap;

use crate::deployment::Deployment;
use crate::error::{ErrorCode, StateError};
use crate::urn::{split_provider_reference, Urn};
use crate::warning::StateWarning;

/// Index from URN to the positions of the resources that carry it (several only when the
/// state holds pending deletes or, in some tool-written files, duplicates).
pub fn urn_index(deployment: &Deployment) -> HashMap<&str, Vec<usize>> {
    let mut index: HashMap<&str, Vec<usize>> = HashMap::with_capacity(deployment.resources().len());
    for (i, r) in deployment.resources().iter().enumerate() {
        index.entry(r.urn.as_str()).or_default().push(i);
    }
    index
}

/// Fails on the first dangling reference; returns warnings for what is odd but loadable.
pub fn check_references(
    deployment: &Deployment,
    base: &str,
) -> Result<Vec<StateWarning>, StateError> {
    let index = urn_index(deployment);
    let resources = deployment.resources();
    let mut warnings = Vec::new();
    let at = |i: usize, field: &str| format!("{base}.resources[{i}].{field}");

    for (i, r) in resources.iter().enumerate() {
        if Urn::parse(&r.urn).is_none() {
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
            if !index.contains_key(parent) {
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
            let candidates = index.get(provider_urn).map(Vec::as_slice).unwrap_or(&[]);
            if candidates.is_empty() {
                return Err(StateError::new(
                    ErrorCode::DanglingReference,
                    format!(
                        "resource `{}` uses provider `{provider_urn}`, which is not in the state",
                        r.urn
                    ),
                )
                .at(at(i, "provider")));
            }
            let matches_id =
                candidates.iter().any(|&j| resources[j].id.as_deref().unwrap_or("") == provider_id);
            if !matches_id {
                let found = resources[candidates[0]].id.as_deref().unwrap_or("");
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
        if let Some(dep) = r.dependency_urns().find(|d| !index.contains_key(d)) {
            return Err(StateError::new(
                ErrorCode::DanglingReference,
                format!("resource `{}` depends on `{dep}`, which is not in the state", r.urn),
            )
            .at(at(i, "dependencies")));
        }
    }

    for (urn, positions) in &index {
        let live = positions.iter().filter(|&&i| !resources[i].is_pending_delete()).count();
        if live > 1 {
            warnings.push(StateWarning {
                message: format!(
                    "URN `{urn}` appears {live} times; Pulumi would refuse to update this stack until \
                     the duplicates are removed"
                ),
                path: Some(at(positions[0], "urn")),
            });
        }
    }
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(warnings)
}
