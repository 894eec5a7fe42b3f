//! A stack's graph as the graph view draws it: one node per resource (or per group of siblings
//! in a summarised graph), edges between node positions, and, for a preview's graph, each node's
//! mark. The browser's renderer (`app/js/graph.js`) decides where each node goes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ResultStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Stack,
    Component,
    Custom,
    Provider,
    /// Siblings of one type drawn as one node (a summarised graph).
    Group,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    Parent,
    Dependency,
    Provider,
}

/// What a preview's graph marks a node with: the result of the resource it stands for (of the
/// one asking the most of a reviewer, for a node standing for many), or, once the preview is
/// committed, `managed` for what it imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NodeMark {
    Managed,
    #[serde(untagged)]
    Result(ResultStatus),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GraphNode {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub kind: NodeKind,
    pub protect: bool,
    pub pending_delete: bool,
    /// In a summarised graph: how many resources the node stands for (itself and what it
    /// holds), when it stands for more than itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// In a summarised graph: what to ask for (`expand=`) to see what the node holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expand: Option<String>,
    /// In a preview's graph: the node's mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<NodeMark>,
}

/// An edge between node positions: `source` depends on, is parented by, or uses `target`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GraphEdge {
    pub source: usize,
    pub target: usize,
    pub kind: EdgeKind,
}

/// A stack's graph, whole or summarised; a preview's also says whether it was committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackGraph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// In a preview's graph: whether the preview was committed (its marks then say `managed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ImportStatus, StepOp};

    #[test]
    fn a_mark_is_its_word_and_reads_back() {
        let marks = [
            NodeMark::Managed,
            NodeMark::Result(ResultStatus::Import(ImportStatus::NotFound)),
            NodeMark::Result(ResultStatus::Step(StepOp::Import)),
        ];
        let text = serde_json::to_string(&marks).unwrap();
        assert_eq!(text, r#"["managed","not-found","import"]"#);
        assert_eq!(serde_json::from_str::<Vec<NodeMark>>(&text).unwrap(), marks);
    }
}
