//! What the table and the detail panel show of a stored version's resources.

use ferry_state::sig::{for_each_secret, mask_secrets};
use ferry_state::urn::{name_of, split_provider_reference};
use ferry_state::Resource;
pub use ferry_types::{ResourceDetail, ResourcePage, ResourceRow, RowQuery};
use serde_json::{Map, Value};

use crate::{LoadedVersion, ServiceError};

pub(crate) fn row(r: &Resource) -> ResourceRow {
    ResourceRow {
        urn: r.urn.clone(),
        type_: r.type_.clone(),
        name: name_of(&r.urn).to_string(),
        id: r.id().map(str::to_string),
        provider: r
            .provider()
            .map(|p| split_provider_reference(p).map(|(u, _)| u).unwrap_or(p).to_string()),
        parent: r.parent().map(str::to_string),
        protect: r.is_protected(),
        custom: r.is_custom(),
        pending_delete: r.is_pending_delete(),
    }
}

/// The properties with secrets masked, pretty-printed, and how many secrets they hold.
fn masked(properties: Map<String, Value>) -> (String, usize) {
    let value = Value::Object(properties);
    let mut secrets = 0;
    for_each_secret(&value, &mut String::new(), &mut |_, _| secrets += 1);
    (
        serde_json::to_string_pretty(&mask_secrets(&value)).expect("JSON values always serialise"),
        secrets,
    )
}

/// The most rows one page of the table holds: a screenful is some thirty, and a client that
/// wants every row reads them page by page.
pub const MAX_PAGE_ROWS: usize = 1000;

/// A column the table sorts by, read from [`RowQuery::sort`].
#[derive(Clone, Copy)]
enum SortKey {
    Type,
    Name,
    Urn,
    Id,
}

fn sort_order(sort: &str) -> Result<Option<(SortKey, bool)>, ServiceError> {
    let (column, descending) = match sort.strip_prefix('-') {
        Some(column) => (column, true),
        None => (sort, false),
    };
    let key = match column {
        "" => return Ok(None),
        "type" => SortKey::Type,
        "name" => SortKey::Name,
        "urn" => SortKey::Urn,
        "id" => SortKey::Id,
        other => {
            return Err(ServiceError::Invalid(format!(
                "cannot sort the resources by `{other}`: sort by `type`, `name`, `urn` or `id` (`-` first for descending)"
            )))
        }
    };
    Ok(Some((key, descending)))
}

impl LoadedVersion {
    /// One page of the table for `query`: filtered and sorted here, so a browser showing a
    /// 100,000-resource stack holds a screenful of rows, not the stack.
    pub fn rows_page(&self, query: &RowQuery) -> Result<ResourcePage, ServiceError> {
        let order = sort_order(&query.sort)?;
        let resources = self.deployment.resources();
        let needle = query.filter.to_lowercase();
        let mut matches: Vec<usize> = if needle.is_empty() {
            (0..resources.len()).collect()
        } else {
            // Lower-cased once per version, not once per request.
            let keys = self.search_keys.get_or_init(|| {
                resources
                    .iter()
                    .map(|r| format!("{}\n{}", r.urn, r.id().unwrap_or("")).to_lowercase())
                    .collect()
            });
            keys.iter().enumerate().filter(|(_, k)| k.contains(&needle)).map(|(i, _)| i).collect()
        };
        if let Some((key, descending)) = order {
            let of = |i: usize| -> &str {
                let r = &resources[i];
                match key {
                    SortKey::Type => &r.type_,
                    SortKey::Name => name_of(&r.urn),
                    SortKey::Urn => &r.urn,
                    SortKey::Id => r.id().unwrap_or(""),
                }
            };
            // Stable: equal keys keep state order, so paging through a sorted table is stable.
            matches.sort_by(|&a, &b| if descending { of(b).cmp(of(a)) } else { of(a).cmp(of(b)) });
        }
        let limit = query.limit.clamp(1, MAX_PAGE_ROWS);
        let start = query.offset.min(matches.len());
        let end = (start + limit).min(matches.len());
        Ok(ResourcePage {
            total: resources.len(),
            matched: matches.len(),
            offset: start,
            rows: matches[start..end].iter().map(|&i| row(&resources[i])).collect(),
        })
    }

    /// The detail panel for `urn` (the live resource when pending deletes share its URN).
    pub fn detail(&self, urn: &str) -> Option<ResourceDetail> {
        let r = self.resource(urn)?;
        let ((inputs, input_secrets), (outputs, output_secrets)) =
            (masked(r.inputs_map()), masked(r.outputs_map()));
        Some(ResourceDetail {
            row: row(r),
            inputs,
            outputs,
            dependencies: r.dependency_urns().map(str::to_string).collect(),
            secrets: input_secrets + output_secrets,
        })
    }

    fn resource(&self, urn: &str) -> Option<&Resource> {
        let index = self.urn_index.get_or_init(|| {
            self.deployment
                .reference_index()
                .into_iter()
                .map(|(urn, i)| (urn.to_string(), i))
                .collect()
        });
        index.get(urn).map(|&i| &self.deployment.resources()[i])
    }
}
