//! What the table and the detail panel show of a stored version's resources.

use ferry_state::sig::{for_each_secret, mask_secrets};
use ferry_state::urn::{name_of, split_provider_reference};
use ferry_state::Resource;
pub use ferry_types::{ResourceDetail, ResourceRow};
use serde_json::{Map, Value};

use crate::LoadedVersion;

pub(crate) fn row(r: &Resource) -> ResourceRow {
    ResourceRow {
        urn: r.urn.clone(),
        type_: r.type_.clone(),
        name: name_of(&r.urn).to_string(),
        id: r.id().map(str::to_string),
        provider: r.provider().map(|p| split_provider_reference(p).map(|(u, _)| u).unwrap_or(p).to_string()),
        parent: r.parent().map(str::to_string),
        protect: r.is_protected(),
        custom: r.is_custom(),
        pending_delete: r.is_pending_delete(),
    }
}

fn pretty_masked(map: &Option<Map<String, Value>>) -> String {
    let value = map.as_ref().map(|m| mask_secrets(&Value::Object(m.clone()))).unwrap_or(Value::Object(Map::new()));
    serde_json::to_string_pretty(&value).expect("JSON values always serialise")
}

fn count_secrets(map: &Option<Map<String, Value>>) -> usize {
    let mut n = 0;
    if let Some(m) = map {
        let v = Value::Object(m.clone());
        for_each_secret(&v, &mut String::new(), &mut |_, _| n += 1);
    }
    n
}

impl LoadedVersion {
    /// The table: one row per resource, in state order.
    pub fn rows(&self) -> Vec<ResourceRow> {
        self.deployment.resources().iter().map(row).collect()
    }

    /// The detail panel for `urn` (the live resource when pending deletes share its URN).
    pub fn detail(&self, urn: &str) -> Option<ResourceDetail> {
        let r = self.resource(urn)?;
        Some(ResourceDetail {
            row: row(r),
            inputs: pretty_masked(&r.inputs),
            outputs: pretty_masked(&r.outputs),
            dependencies: r.dependency_urns().map(str::to_string).collect(),
            secrets: count_secrets(&r.inputs) + count_secrets(&r.outputs),
        })
    }

    fn resource(&self, urn: &str) -> Option<&Resource> {
        let index = self.urn_index.get_or_init(|| self.deployment.reference_index().into_iter().map(|(urn, i)| (urn.to_string(), i)).collect());
        index.get(urn).map(|&i| &self.deployment.resources()[i])
    }
}
