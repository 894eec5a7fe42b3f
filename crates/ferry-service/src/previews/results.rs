//! A stored preview's results: its rows, one resource's two sides (what Read
//! returned, what the program or spec says) with each property's source and why it differs,
//! and the stack graph with the preview's resources marked by status.
//!
//! Reads only the stored (masked) preview, so the same views serve owners and read-only links.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use ferry_engine::deploy::{CheckFailure, DiffCause, DiffKind, PropertyDiff, Step, StepOp};
use ferry_state::deployment::Resource;
use ferry_state::graph_summary::{summarise, Summary, SUMMARY_BUDGET};
use ferry_state::{NodeMark, StackGraph};
use ferry_types::SourceKind;
use ferry_types::{
    ImportStatus, PreviewRef, PropertyResult, Resolution, ResultDetail, ResultPage, ResultQuery,
    ResultRow, ResultStatus,
};
use serde_json::{json, Map, Value};

use crate::{PreviewRecord, Previews, ServiceError};

/// A spec's rows are its entries; of a program's, steps of the stack's own root and default
/// providers say nothing a reviewer acts on.
fn reviewable(kind: SourceKind, step: &Step) -> bool {
    match kind {
        SourceKind::Spec => step.spec_index.is_some() && step.op != StepOp::Replace,
        SourceKind::Program => {
            !(step.op == StepOp::Same
                && (step.type_ == "pulumi:pulumi:Stack"
                    || step.type_.starts_with("pulumi:providers:")))
        }
    }
}

pub(crate) fn result_steps(record: &PreviewRecord) -> impl Iterator<Item = &Step> {
    let kind = record.plan.kind();
    record.plan.plan.steps.iter().filter(move |s| reviewable(kind, s))
}

/// A difference that is only a zero value Read returned or a default Check filled in: the
/// program leaves the property out, and writing down what the resource has resolves it.
pub(crate) fn only_zero_or_default(d: &PropertyDiff) -> bool {
    d.kind != DiffKind::None && matches!(d.cause, DiffCause::ZeroValue | DiffCause::ProviderDefault)
}

fn step_row(s: &Step) -> ResultRow {
    let mut warnings = s.warnings.clone();
    if let Some(m) = s.message() {
        warnings.insert(0, m);
    }
    // An import step already tells its Check failures among its warnings; a failed step's
    // failures are told here only. Each once.
    for text in s.check_failures.iter().map(CheckFailure::to_string) {
        if !warnings.contains(&text) {
            warnings.push(text);
        }
    }
    let imports = matches!(s.op, StepOp::Import | StepOp::ImportReplacement);
    let differs = if imports {
        s.diffs.iter().filter(|d| d.kind != DiffKind::None).map(|d| d.path.clone()).collect()
    } else {
        Vec::new()
    };
    let zero_or_default =
        if imports { s.diffs.iter().filter(|d| only_zero_or_default(d)).count() } else { 0 };
    ResultRow {
        urn: s.urn.clone(),
        name: s.name.clone(),
        type_: s.type_.clone(),
        status: s.result_status(),
        warnings,
        differs,
        zero_or_default,
    }
}

/// The preview's resources as table rows: a program's in the order the preview reports them,
/// a spec's in the spec's order.
pub fn result_rows(record: &PreviewRecord) -> Vec<ResultRow> {
    let mut steps: Vec<&Step> = result_steps(record).collect();
    if record.plan.kind() == SourceKind::Spec {
        steps.sort_by_key(|s| s.spec_index);
    }
    steps.into_iter().map(step_row).collect()
}

/// The most rows one page of results holds.
pub const MAX_REVIEW_ROWS: usize = 1000;

/// A stored preview's results rows with what the filters offer over all of them, counted once
/// when the rows are made (a stored preview never changes), not for each page.
pub struct ResultRows {
    rows: Vec<ResultRow>,
    by_status: std::collections::BTreeMap<ResultStatus, usize>,
    types: Vec<String>,
    zero_or_default: usize,
    /// Why the preview cannot be committed as it is, if it cannot (its own rules).
    refusal: Option<String>,
    /// Each row's result key by URN (what a reviewer's viewed mark is checked against).
    result_keys: HashMap<String, String>,
}

/// A key of what a resource's review shows: its status, warnings, differences, each property's
/// values on both sides and its IDs. A reviewer's viewed mark keeps the key they saw; another
/// key means the result changed and asks to be looked at again. SHA-256 over the result's
/// JSON, so keys stay equal across restarts and releases as long as the result does.
fn result_key(s: &Step) -> String {
    use sha2::Digest;
    use std::io::Write;
    let mut hasher = sha2::Sha256::new();
    let seen = (step_row(s), &s.diffs, &s.id, &s.import_id);
    serde_json::to_writer(&mut hasher, &seen).expect("a result serialises");
    hasher.flush().expect("hashing does not fail");
    let digest = hasher.finalize();
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

impl ResultRows {
    pub fn of(record: &PreviewRecord) -> ResultRows {
        let rows = result_rows(record);
        let mut by_status = std::collections::BTreeMap::<ResultStatus, usize>::new();
        for r in &rows {
            *by_status.entry(r.status).or_insert(0) += 1;
        }
        let types: BTreeSet<&str> = rows.iter().map(|r| r.type_.as_str()).collect();
        let types = types.into_iter().map(str::to_string).collect();
        let zero_or_default = rows.iter().map(|r| r.zero_or_default).sum();
        let refusal = record.plan.plan.commit_refusal(false);
        let result_keys = result_steps(record).map(|s| (s.urn.clone(), result_key(s))).collect();
        ResultRows { rows, by_status, types, zero_or_default, refusal, result_keys }
    }

    /// The rows matching `query` (one of its statuses, its type, the text in the name or URN
    /// whatever its case), one page of them from its offset, and what the filters offer over
    /// all rows.
    pub fn page(&self, query: &ResultQuery) -> ResultPage {
        let needle = query.filter.to_lowercase();
        let matches = |r: &ResultRow| {
            query.status.keeps(r.status)
                && (query.type_.is_empty() || r.type_ == query.type_)
                && (needle.is_empty()
                    || r.name.to_lowercase().contains(&needle)
                    || r.urn.to_lowercase().contains(&needle))
        };
        let limit =
            if query.limit == 0 { MAX_REVIEW_ROWS } else { query.limit.min(MAX_REVIEW_ROWS) };
        let (mut matched, mut page) = (0, Vec::new());
        for r in self.rows.iter().filter(|r| matches(r)) {
            if matched >= query.offset && page.len() < limit {
                page.push(r.clone());
            }
            matched += 1;
        }
        ResultPage {
            total: self.rows.len(),
            matched,
            offset: query.offset.min(matched),
            rows: page,
            by_status: self.by_status.clone(),
            types: self.types.clone(),
            zero_or_default: self.zero_or_default,
        }
    }

    /// The key of the result the preview shows for `urn` (`None`: the preview does not review it).
    pub(crate) fn result_key(&self, urn: &str) -> Option<&str> {
        self.result_keys.get(urn).map(String::as_str)
    }

    /// How many resources the preview reviews.
    pub(crate) fn total(&self) -> usize {
        self.rows.len()
    }

    /// How many rows there are (what the cache weighs them by).
    pub fn weight(&self) -> usize {
        self.rows.len()
    }
}

/// How much a status asks of a reviewer, most first: a graph node standing for many resources
/// shows the status of the one that asks the most.
fn urgency(status: ResultStatus) -> u8 {
    use ImportStatus as I;
    use StepOp as S;
    match status {
        ResultStatus::Import(I::Failed | I::NotFound | I::Conflict) => 0,
        ResultStatus::Import(I::ReadyWithWarnings)
        | ResultStatus::Step(
            S::Delete
            | S::Replace
            | S::DeleteReplaced
            | S::CreateReplacement
            | S::ImportReplacement
            | S::ReadReplacement,
        ) => 1,
        ResultStatus::Step(S::Update | S::Create | S::Relinquish) => 2,
        ResultStatus::Import(I::AlreadyManaged) => 3,
        ResultStatus::Import(I::Ready) | ResultStatus::Step(S::Import | S::Read) => 4,
        ResultStatus::Step(S::Same) => 5,
    }
}

fn decision_for<'d>(decisions: &'d [Resolution], urn: &str, path: &str) -> Option<&'d Resolution> {
    decisions.iter().rev().find(|d| d.urn == urn && d.property == path)
}

/// Sets `path` (`a`, `a.b`, `a[0]`) in `obj`; a path it cannot follow is kept as one key.
fn insert_path(obj: &mut Map<String, Value>, path: &str, value: Value) {
    match path.split_once('.') {
        Some((head, rest)) if !head.contains('[') => {
            let child = obj.entry(head.to_string()).or_insert_with(|| Value::Object(Map::new()));
            match child {
                Value::Object(m) => insert_path(m, rest, value),
                _ => {
                    obj.insert(path.to_string(), value);
                }
            }
        }
        _ => {
            obj.insert(path.to_string(), value);
        }
    }
}

fn pretty(map: Map<String, Value>) -> String {
    serde_json::to_string_pretty(&Value::Object(map)).expect("JSON serialises")
}

/// Why a property is as it is. A spec's "program" is the code generated from what Read
/// returned, so its reasons speak of that.
fn why(d: &PropertyDiff, kind: SourceKind) -> String {
    if kind == SourceKind::Spec {
        return match d.cause {
            DiffCause::Equal => "Read returned it; the spec keeps it, so the generated code sets it".into(),
            DiffCause::Missing | DiffCause::ZeroValue => "Read returned it; the spec's `properties` leave it out of the generated code".into(),
            DiffCause::ProviderDefault => "the generated code leaves it out; the provider's Check filled in this default".into(),
            DiffCause::Program | DiffCause::Ignored => "the generated code sets what Read returned, but the provider's Diff reports a difference".into(),
        };
    }
    match d.cause {
        DiffCause::Equal => "the program and the resource agree".into(),
        DiffCause::Program => "the program sets a value the resource does not have; an import must leave no diff".into(),
        DiffCause::ProviderDefault => "the program leaves it out; the provider's Check filled in this default".into(),
        DiffCause::ZeroValue if d.kind == DiffKind::None => "the program leaves it out and Read returned an empty value: no difference".into(),
        DiffCause::ZeroValue => "the program leaves it out and Read returned an empty value, but the provider's Diff counts it: adopt it to match".into(),
        DiffCause::Missing => "the program leaves it out but the resource has a value".into(),
        DiffCause::Ignored => "listed in ignoreChanges: the resource's value is kept".into(),
    }
}

/// Where the value shown comes from: a spec's values all come from Read (or Check's defaults).
fn source(d: &PropertyDiff, kind: SourceKind) -> &'static str {
    match d.cause {
        DiffCause::ProviderDefault => "default",
        _ if kind == SourceKind::Spec => "read",
        DiffCause::ZeroValue | DiffCause::Missing | DiffCause::Ignored => "read",
        DiffCause::Equal | DiffCause::Program => {
            if d.program.is_some() {
                "program"
            } else {
                "read"
            }
        }
    }
}

pub(crate) fn step_detail(s: &Step, kind: SourceKind, decisions: &[Resolution]) -> ResultDetail {
    let mut read = Map::new();
    let mut program = Map::new();
    let mut properties = Vec::new();
    for d in &s.diffs {
        if let Some(v) = &d.read {
            insert_path(&mut read, &d.path, v.clone());
        }
        if let Some(v) = &d.program {
            insert_path(&mut program, &d.path, v.clone());
        }
        let decision = decision_for(decisions, &s.urn, &d.path).map(|r| r.action);
        properties.push(PropertyResult {
            path: d.path.clone(),
            read: d.read.clone(),
            program: d.program.clone(),
            kind: d.kind,
            cause: d.cause,
            source: if decision.is_some() { "user".into() } else { source(d, kind).into() },
            why: why(d, kind),
            decision,
        });
    }
    ResultDetail {
        row: step_row(s),
        id: s.id.clone(),
        import_id: s.import_id.clone(),
        source_kind: kind,
        read_inputs: pretty(read),
        program_inputs: pretty(program),
        check_failures: s.check_failures.iter().map(CheckFailure::to_string).collect(),
        properties,
    }
}

/// One resource's review, or `None` when the preview does not hold `urn`.
pub fn result_detail(
    record: &PreviewRecord,
    urn: &str,
    decisions: &[Resolution],
) -> Option<ResultDetail> {
    result_steps(record)
        .find(|s| s.urn == urn)
        .map(|s| step_detail(s, record.plan.kind(), decisions))
}

/// A resource of the preview as a node of the graph: URN, type, parent and provider.
fn planned_resource(
    urn: &str,
    type_: &str,
    id: Option<&str>,
    parent: Option<&str>,
    provider: Option<&str>,
) -> Resource {
    serde_json::from_value(json!({
        "urn": urn,
        "type": type_,
        "custom": true,
        "id": id,
        "parent": parent,
        "provider": provider,
    }))
    .expect("a resource from plain fields")
}

/// What a plan's status takes from its latest preview.
#[derive(Debug, Clone, Default)]
pub(crate) struct PreviewCounts {
    pub by_status: std::collections::BTreeMap<ResultStatus, usize>,
    pub differing: usize,
    pub refusal: Option<String>,
}

impl Previews {
    /// A preview of the shared plan's revision, by position, without its ID.
    pub async fn shared_preview(
        &self,
        token: &str,
        revision: Option<i64>,
        index: usize,
    ) -> Result<crate::PreviewRecord, ServiceError> {
        let id = self.shares.preview_id(token, revision, index).await?;
        let mut record = self.stored_preview(&id).await?;
        record.id = String::new();
        Ok(record)
    }

    /// The stored preview `r` names, checking the read-only link when it is one.
    pub async fn preview_by_ref(&self, r: &PreviewRef) -> Result<PreviewRecord, ServiceError> {
        match r {
            PreviewRef::Owner { preview } => self.stored_preview(preview).await,
            PreviewRef::Shared { token, revision, index } => {
                self.shared_preview(token, Some(*revision), *index).await
            }
        }
    }

    /// The stored preview's ID behind `r` (server-side only: a read-only link never shows it).
    pub async fn preview_id(&self, r: &PreviewRef) -> Result<String, ServiceError> {
        match r {
            PreviewRef::Owner { preview } => Ok(preview.clone()),
            PreviewRef::Shared { token, revision, index } => {
                self.shares.preview_id(token, Some(*revision), *index).await
            }
        }
    }

    /// The version the preview's commit wrote, if it was committed (without reading the
    /// preview).
    pub async fn preview_committed_version(
        &self,
        r: &PreviewRef,
    ) -> Result<Option<i64>, ServiceError> {
        Ok(self.store.stacks().preview_committed_version(&self.preview_id(r).await?).await?)
    }

    /// The resolutions of the plan revision a preview ran on (none for a preview made outside
    /// a plan).
    async fn preview_decisions(&self, r: &PreviewRef) -> Result<Vec<Resolution>, ServiceError> {
        let revision = match r {
            PreviewRef::Owner { preview } => {
                match self.store.plans().plan_of_preview(preview).await? {
                    Some((plan, revision)) => {
                        Some(self.store.plans().plan_revision(&plan, Some(revision)).await?)
                    }
                    None => None,
                }
            }
            PreviewRef::Shared { token, revision, .. } => {
                Some(self.shares.revision(token, Some(*revision)).await?)
            }
        };
        Ok(revision
            .map(|rev| rev.options_or_default::<ferry_types::plans::PlanOptions>().decisions)
            .unwrap_or_default())
    }

    /// The stored preview's results rows, made once and kept (a stored preview never changes),
    /// so paging through 10,000 of them does not parse the preview for each page.
    pub(crate) async fn rows_of(&self, r: &PreviewRef) -> Result<Arc<ResultRows>, ServiceError> {
        let id = self.preview_id(r).await?;
        if let Some(hit) = self.result_rows.lock().expect("result rows lock").get(&id) {
            return Ok(hit);
        }
        let rows = Arc::new(ResultRows::of(&self.stored_preview(&id).await?));
        self.result_rows.lock().expect("result rows lock").insert(id, rows.clone(), rows.weight());
        Ok(rows)
    }

    /// How many of the stored preview's resources have each status, and how many have
    /// properties that still differ: what a plan's status counts.
    pub(crate) async fn review_counts(
        &self,
        preview_id: &str,
    ) -> Result<PreviewCounts, ServiceError> {
        let rows = self.rows_of(&PreviewRef::Owner { preview: preview_id.to_string() }).await?;
        Ok(PreviewCounts {
            by_status: rows.by_status.clone(),
            differing: rows.rows.iter().filter(|r| !r.differs.is_empty()).count(),
            refusal: rows.refusal.clone(),
        })
    }

    /// One page of the stored preview's results (see [`ResultRows::page`]).
    pub async fn review_page(
        &self,
        r: &PreviewRef,
        query: &ResultQuery,
    ) -> Result<ResultPage, ServiceError> {
        Ok(self.rows_of(r).await?.page(query))
    }

    pub async fn result_detail(
        &self,
        r: &PreviewRef,
        urn: &str,
    ) -> Result<ResultDetail, ServiceError> {
        let record = self.preview_by_ref(r).await?;
        let decisions = self.preview_decisions(r).await?;
        result_detail(&record, urn, &decisions)
            .ok_or_else(|| ServiceError::Plan(format!("the preview has no resource `{urn}`")))
    }

    /// The stack graph with the preview's resources: before a commit, the stack it ran against
    /// plus every resource it would add, each node marked with its status; after, the version
    /// the commit wrote, the imported resources marked `managed`.
    ///
    /// Summarised as a stack's graph is, opening what `expand` names (`None`: the whole graph);
    /// a node standing for many resources shows the status that asks the most of a reviewer.
    pub async fn preview_graph(
        &self,
        r: &PreviewRef,
        expand: Option<&HashSet<String>>,
    ) -> Result<StackGraph, ServiceError> {
        let record = self.preview_by_ref(r).await?;
        // From the record just read: the kept rows would parse the preview again when cold.
        let rows = result_rows(&record);
        let status: HashMap<&str, ResultStatus> =
            rows.iter().map(|row| (row.urn.as_str(), row.status)).collect();
        let committed = record.committed_version.is_some();
        let (version, planned);
        let full: &StackGraph = match record.committed_version {
            Some(v) => {
                version = self.stacks.version(&record.stack_id, Some(v)).await?;
                version.graph()
            }
            None => {
                let base = self.stacks.version(&record.stack_id, Some(record.base_version)).await?;
                let existing = base.deployment.reference_index();
                let added: Vec<Resource> = result_steps(&record)
                    .filter(|s| !existing.contains_key(s.urn.as_str()))
                    .map(|s| {
                        planned_resource(
                            &s.urn,
                            &s.type_,
                            s.id.as_deref(),
                            s.parent.as_deref(),
                            s.provider.as_deref(),
                        )
                    })
                    .collect();
                // Parents and providers the graph cannot find are dropped by the layout, not errors.
                let resources: Vec<&Resource> =
                    base.deployment.resources().iter().chain(&added).collect();
                planned = ferry_state::graph::of_resources(&resources);
                &planned
            }
        };
        let Summary { mut graph, shown_as } = match expand {
            Some(expand) => summarise(full, SUMMARY_BUDGET, expand),
            None => Summary { graph: full.clone(), shown_as: (0..full.nodes.len()).collect() },
        };
        let mut marks: Vec<Option<ResultStatus>> = vec![None; graph.nodes.len()];
        for (node, &at) in full.nodes.iter().zip(&shown_as) {
            if let Some(&s) = status.get(node.urn.as_str()) {
                if marks[at].is_none_or(|m| urgency(s) < urgency(m)) {
                    marks[at] = Some(s);
                }
            }
        }
        for (node, mark) in graph.nodes.iter_mut().zip(marks) {
            node.status = mark.map(|s| {
                let ready = matches!(
                    s,
                    ResultStatus::Import(ImportStatus::Ready | ImportStatus::ReadyWithWarnings)
                        | ResultStatus::Step(StepOp::Import | StepOp::Same)
                );
                if committed && ready {
                    NodeMark::Managed
                } else {
                    NodeMark::Result(s)
                }
            });
        }
        graph.committed = Some(committed);
        Ok(graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_paths_build_nested_objects() {
        let mut m = Map::new();
        insert_path(&mut m, "tags.team", json!("a"));
        insert_path(&mut m, "max", json!(1));
        insert_path(&mut m, "list[0]", json!(2));
        assert_eq!(Value::Object(m), json!({"tags": {"team": "a"}, "max": 1, "list[0]": 2}));
    }

    #[test]
    fn a_check_failure_is_listed_once() {
        let mut step = Step::new(StepOp::Import, "urn:pulumi:s::p::t:m:T::a", "t:m:T", "a");
        // An import step tells its failures among its warnings too; a failed step does not.
        step.check_failures = vec![
            CheckFailure { property: "length".into(), reason: "too short".into() },
            CheckFailure { property: String::new(), reason: "bad".into() },
        ];
        step.warnings = vec!["Check: length: too short".into(), "Check: bad".into()];
        assert_eq!(step_row(&step).warnings, ["Check: length: too short", "Check: bad"]);
        step.warnings.clear();
        assert_eq!(step_row(&step).warnings, ["Check: length: too short", "Check: bad"]);
    }
}
