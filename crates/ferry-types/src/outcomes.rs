//! What a preview finds for each resource, as words on the wire: an import spec entry's status,
//! a program step's operation (Pulumi's step operations), the one a results row shows, and
//! each property's kind of change and its cause. The engine's steps use these types as they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What became of an entry of an import spec: the statuses only a spec's planned imports have
/// (a program's import either goes ahead or is an error).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ImportStatus {
    Ready,
    /// Ready, with Check failures or a Diff the provider reported: committed all the same, as
    /// `pulumi import` does.
    ReadyWithWarnings,
    NotFound,
    Failed,
    /// Same URN and ID already in the stack: skipped.
    AlreadyManaged,
    /// Same URN in the stack with another ID.
    Conflict,
}

impl ImportStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ImportStatus::Ready => "ready",
            ImportStatus::ReadyWithWarnings => "ready-with-warnings",
            ImportStatus::NotFound => "not-found",
            ImportStatus::Failed => "failed",
            ImportStatus::AlreadyManaged => "already-managed",
            ImportStatus::Conflict => "conflict",
        }
    }

    /// Whether a commit adds the resource.
    pub fn is_ready(self) -> bool {
        matches!(self, ImportStatus::Ready | ImportStatus::ReadyWithWarnings)
    }
}

impl std::fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Pulumi's step operations: what a deployment does to a resource.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StepOp {
    /// Unchanged.
    Same,
    Create,
    Update,
    /// The marker that a resource is being replaced (its create and delete are separate steps).
    Replace,
    /// The new resource of a replacement.
    CreateReplacement,
    /// The old resource of a replacement, deleted.
    DeleteReplaced,
    /// Gone from the program: deleted.
    Delete,
    /// The `import` option: an existing resource adopted into the stack.
    Import,
    /// The `import` option with another ID than the stack holds: the old one is deleted and the
    /// given one imported.
    ImportReplacement,
    /// `get`: an external resource read, not managed.
    Read,
    /// `get` of a resource the stack manages under another ID: the managed one is deleted.
    ReadReplacement,
    /// `get` of a resource the stack manages with the same ID: released from management,
    /// kept as an external reference (nothing is deleted).
    Relinquish,
}

impl StepOp {
    /// Whether the step changes anything outside the stack when executed.
    pub fn mutates(self) -> bool {
        matches!(
            self,
            StepOp::Create
                | StepOp::Update
                | StepOp::CreateReplacement
                | StepOp::DeleteReplaced
                | StepOp::Delete
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StepOp::Same => "same",
            StepOp::Create => "create",
            StepOp::Update => "update",
            StepOp::Replace => "replace",
            StepOp::CreateReplacement => "create-replacement",
            StepOp::DeleteReplaced => "delete-replaced",
            StepOp::Delete => "delete",
            StepOp::Import => "import",
            StepOp::ImportReplacement => "import-replacement",
            StepOp::Read => "read",
            StepOp::ReadReplacement => "read-replacement",
            StepOp::Relinquish => "relinquish",
        }
    }
}

impl std::fmt::Display for StepOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of a resource in a preview, as its results and its job's events say: an import
/// spec entry's status, or a program step's operation. Written as its word (`ready`,
/// `not-found`, `import`, `create`, …); the two sets share none. Ordered by that word, so
/// counts keyed by status list in the order their words sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ResultStatus {
    Import(ImportStatus),
    Step(StepOp),
}

impl ResultStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Import(status) => status.as_str(),
            ResultStatus::Step(op) => op.as_str(),
        }
    }

    /// The status a word names (`ready`, `create`, …), if any.
    pub fn parse(word: &str) -> Option<ResultStatus> {
        use serde::de::IntoDeserializer;
        let word: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            word.into_deserializer();
        ResultStatus::deserialize(word).ok()
    }

    /// The statuses of what a commit writes into the stack: a spec's ready imports, a program's
    /// imports and reads.
    pub const WRITTEN: [ResultStatus; 4] = [
        ResultStatus::Import(ImportStatus::Ready),
        ResultStatus::Import(ImportStatus::ReadyWithWarnings),
        ResultStatus::Step(StepOp::Import),
        ResultStatus::Step(StepOp::Read),
    ];
}

impl PartialOrd for ResultStatus {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResultStatus {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// The statuses a results query keeps (none: every status), sent as one comma-separated query
/// parameter (`status=ready,failed`). A word that names no status is refused where the query
/// is read, rather than matching nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusFilter(pub Vec<ResultStatus>);

impl StatusFilter {
    /// Whether a row of `status` passes.
    pub fn keeps(&self, status: ResultStatus) -> bool {
        self.0.is_empty() || self.0.contains(&status)
    }

    /// The query parameter's text (empty for every status).
    pub fn to_query(&self) -> String {
        self.0.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
    }
}

impl Serialize for StatusFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_query())
    }
}

impl<'de> Deserialize<'de> for StatusFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.split(',')
            .filter(|w| !w.is_empty())
            .map(|w| {
                ResultStatus::parse(w).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "`{w}` is not a status (a spec's `ready`, `ready-with-warnings`, \
                         `not-found`, `failed`, `already-managed`, `conflict`, or a program \
                         step's operation such as `import` or `create`)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(StatusFilter)
    }
}

impl JsonSchema for StatusFilter {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StatusFilter".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Statuses, comma-separated (`ready,failed`); empty keeps every status.",
            "examples": ["ready,ready-with-warnings"]
        })
    }
}

impl std::fmt::Display for ResultStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of change a property sees, from the resource's current value to the program's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiffKind {
    /// No change.
    None,
    Add,
    Delete,
    Update,
    /// A change the provider can only make by replacing the resource.
    Replace,
}

/// Why a property differs (or looks like it does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiffCause {
    /// Values agree.
    Equal,
    /// The program sets a value the resource does not have (a real difference).
    Program,
    /// The program leaves it out; the provider's `Check` filled in a default.
    ProviderDefault,
    /// The program leaves it out and Read returned a zero value (`""`, `0`, `false`, `[]`,
    /// `{}`): a provider that invents values for unset properties (2022 import notes).
    ZeroValue,
    /// The program leaves it out and the resource has a value.
    Missing,
    /// Listed in `ignoreChanges`: the resource's value is kept.
    Ignored,
}

impl DiffKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiffKind::None => "none",
            DiffKind::Add => "add",
            DiffKind::Delete => "delete",
            DiffKind::Update => "update",
            DiffKind::Replace => "replace",
        }
    }
}

impl DiffCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DiffCause::Equal => "equal",
            DiffCause::Program => "program",
            DiffCause::ProviderDefault => "provider-default",
            DiffCause::ZeroValue => "zero-value",
            DiffCause::Missing => "missing",
            DiffCause::Ignored => "ignored",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_status() -> Vec<ResultStatus> {
        use ImportStatus as I;
        use StepOp as S;
        let imports = [I::Ready, I::ReadyWithWarnings, I::NotFound, I::Failed, I::AlreadyManaged];
        let imports = imports.into_iter().chain([I::Conflict]).map(ResultStatus::Import);
        let steps = [
            S::Same,
            S::Create,
            S::Update,
            S::Replace,
            S::CreateReplacement,
            S::DeleteReplaced,
            S::Delete,
            S::Import,
            S::ImportReplacement,
            S::Read,
            S::ReadReplacement,
            S::Relinquish,
        ];
        imports.chain(steps.into_iter().map(ResultStatus::Step)).collect()
    }

    #[test]
    fn every_status_reads_back_from_its_word_and_the_two_sets_share_none() {
        let all = every_status();
        for status in &all {
            assert_eq!(ResultStatus::parse(status.as_str()), Some(*status), "{status}");
            let json = serde_json::to_string(status).unwrap();
            assert_eq!(json, format!("\"{status}\""));
        }
        let words: std::collections::BTreeSet<&str> = all.iter().map(|s| s.as_str()).collect();
        assert_eq!(words.len(), all.len(), "no word names two statuses");
        assert_eq!(ResultStatus::parse("managed"), None);
        assert_eq!(ResultStatus::parse(""), None);
    }

    #[test]
    fn statuses_sort_by_their_words_so_counts_list_as_before() {
        let mut all = every_status();
        all.sort();
        let words: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
        let mut sorted = words.clone();
        sorted.sort();
        assert_eq!(words, sorted);
        let counts: std::collections::BTreeMap<ResultStatus, usize> = [
            (ResultStatus::Step(StepOp::Import), 2),
            (ResultStatus::Import(ImportStatus::Failed), 1),
        ]
        .into();
        assert_eq!(serde_json::to_string(&counts).unwrap(), r#"{"failed":1,"import":2}"#);
        let back: std::collections::BTreeMap<ResultStatus, usize> =
            serde_json::from_str(r#"{"import":2,"failed":1}"#).unwrap();
        assert_eq!(back, counts);
    }

    #[test]
    fn a_status_filter_is_one_comma_separated_parameter_and_refuses_unknown_words() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Query {
            #[serde(default)]
            status: StatusFilter,
        }
        let all = StatusFilter(every_status());
        let text = serde_json::to_string(&Query { status: all.clone() }).unwrap();
        let back: Query = serde_json::from_str(&text).unwrap();
        assert_eq!(back.status, all, "{text}");
        let none: Query = serde_json::from_str("{}").unwrap();
        assert!(none.status.0.is_empty());
        assert!(none.status.keeps(ResultStatus::Step(StepOp::Create)), "empty keeps every status");
        let ready: Query = serde_json::from_str(r#"{"status": "ready,,import"}"#).unwrap();
        assert!(ready.status.keeps(ResultStatus::Step(StepOp::Import)));
        assert!(!ready.status.keeps(ResultStatus::Import(ImportStatus::Failed)));
        let error = serde_json::from_str::<Query>(r#"{"status": "ready,bogus"}"#).unwrap_err();
        assert!(error.to_string().contains("`bogus` is not a status"), "{error}");
    }
}
