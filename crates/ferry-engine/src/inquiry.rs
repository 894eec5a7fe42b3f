//! Asking a provider outside a deployment, in the engine's terms (property maps, IDs, pages)
//! rather than its wire messages: inputs checked and diffed against a recorded state (code
//! verification), one page of `List` (discovery), and whether an ID exists (`Read`).

use std::collections::BTreeSet;

use ferry_property::json::EncodeOptions;
use ferry_property::wire::{json_object_to_struct, to_struct};
use ferry_property::PropertyMap;
use ferry_rpc::pulumirpc::diff_response::DiffChanges;
use ferry_rpc::pulumirpc::{list_response, CheckRequest, DiffRequest, ListRequest, ReadRequest};

use crate::plugin::PluginError;
use crate::provider::Provider;

/// A resource as a state records it: what Check and Diff compare inputs against.
#[derive(Debug, Clone, Copy)]
pub struct RecordedResource<'a> {
    pub urn: &'a str,
    pub name: &'a str,
    /// Its type token.
    pub token: &'a str,
    pub id: &'a str,
    pub inputs: &'a PropertyMap,
    pub outputs: &'a PropertyMap,
}

/// What the provider said of inputs against a recorded resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// Check refused them: each failure as `property: reason`.
    CheckFailed(Vec<String>),
    /// Diff's answer to what Check returned.
    Diffed {
        /// The top-level properties Diff names (`tags.team` is `tags`).
        changed: BTreeSet<String>,
        /// Diff reports a change without naming a property.
        unnamed_change: bool,
    },
}

/// Which of the two calls did not run.
#[derive(Debug)]
pub enum ComparisonError {
    Check(PluginError),
    Diff(PluginError),
}

/// `news` as a program's `pulumi up` sends them: Check with the recorded inputs as olds, then
/// Diff of what Check returned against the recorded state.
pub async fn compare_inputs(
    provider: &dyn Provider,
    resource: RecordedResource<'_>,
    news: &PropertyMap,
) -> Result<Comparison, ComparisonError> {
    let wire = EncodeOptions::wire();
    let check = provider
        .check(CheckRequest {
            urn: resource.urn.to_string(),
            name: resource.name.to_string(),
            r#type: resource.token.to_string(),
            olds: Some(to_struct(resource.inputs, &wire)),
            news: Some(to_struct(news, &wire)),
            ..Default::default()
        })
        .await
        .map_err(ComparisonError::Check)?;
    if !check.failures.is_empty() {
        let failures =
            check.failures.iter().map(|f| format!("{}: {}", f.property, f.reason)).collect();
        return Ok(Comparison::CheckFailed(failures));
    }
    let checked = check.inputs.unwrap_or_else(|| to_struct(news, &wire));
    let diff = provider
        .diff(DiffRequest {
            id: resource.id.to_string(),
            urn: resource.urn.to_string(),
            name: resource.name.to_string(),
            r#type: resource.token.to_string(),
            olds: Some(to_struct(resource.outputs, &wire)),
            old_inputs: Some(to_struct(resource.inputs, &wire)),
            news: Some(checked),
            ..Default::default()
        })
        .await
        .map_err(ComparisonError::Diff)?;
    let changed: BTreeSet<String> = diff
        .diffs
        .iter()
        .chain(diff.detailed_diff.keys())
        .map(|k| k.split(['.', '[']).next().unwrap_or(k).to_string())
        .collect();
    let unnamed_change = changed.is_empty() && diff.changes == DiffChanges::DiffSome as i32;
    Ok(Comparison::Diffed { changed, unnamed_change })
}

/// One `List` call of a type: its query (the type's list inputs), at most `limit` results in
/// all (`0`: no limit), `page_size` a call, from `continuation` (empty: the start).
#[derive(Debug, Clone, Copy)]
pub struct ListCall<'a> {
    pub token: &'a str,
    pub query: Option<&'a serde_json::Map<String, serde_json::Value>>,
    pub limit: i64,
    pub page_size: i64,
    pub continuation: &'a str,
}

/// A page of `List`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListPage {
    /// Each result's ID and name.
    pub results: Vec<(String, String)>,
    /// Results without an ID (which nothing can import or match).
    pub nameless: usize,
    /// Where the next page starts, when the provider said.
    pub continuation: Option<String>,
    /// The provider cannot list this type until something it depends on exists.
    pub computed: bool,
}

/// One page of `List`.
pub async fn list_page(
    provider: &dyn Provider,
    call: ListCall<'_>,
) -> Result<ListPage, PluginError> {
    let request = ListRequest {
        token: call.token.to_string(),
        query: call.query.map(|q| json_object_to_struct(q.clone())),
        limit: call.limit,
        page_size: call.page_size,
        continuation_token: call.continuation.to_string(),
    };
    let mut page = ListPage::default();
    for item in provider.list_page(request).await? {
        match item.response {
            Some(list_response::Response::Result(r)) if r.id.trim().is_empty() => {
                page.nameless += 1
            }
            Some(list_response::Response::Result(r)) => page.results.push((r.id, r.name)),
            Some(list_response::Response::Continuation(c)) => {
                page.continuation = Some(c.continuation_token)
            }
            Some(list_response::Response::Computed(_)) => page.computed = true,
            None => {}
        }
    }
    Ok(page)
}

/// Whether the provider finds a resource of type `token` under `id` (`Read` answers an ID).
pub async fn exists(provider: &dyn Provider, token: &str, id: &str) -> Result<bool, PluginError> {
    let read = provider
        .read(ReadRequest {
            id: id.to_string(),
            urn: format!("urn:pulumi:probe::probe::{token}::probe"),
            r#type: token.to_string(),
            ..Default::default()
        })
        .await?;
    Ok(!read.id.is_empty())
}
