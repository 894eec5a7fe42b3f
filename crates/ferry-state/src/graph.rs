//! The stack graph: one node per resource, and edges for parents, dependencies and providers,
//! in O(n + edges). Where each node goes is the browser's to decide (`app/js/graph.js` packs the
//! parent tree with d3-hierarchy), so the data says what the stack is, not how it is drawn.

use std::collections::HashSet;

use crate::deployment::{Deployment, Resource};
use crate::urn::{name_of, split_provider_reference};

pub use ferry_types::graph::{EdgeKind, GraphEdge, GraphNode, NodeKind, NodeMark, StackGraph};

/// The graph of a deployment's resources.
pub fn of_deployment(deployment: &Deployment) -> StackGraph {
    of_resources(&deployment.resources().iter().collect::<Vec<_>>())
}

/// The graph of `resources` in that order (a stack's, with what a preview would add).
pub fn of_resources(resources: &[&Resource]) -> StackGraph {
    let by_urn = crate::deployment::reference_index_of(resources.len(), |i| resources[i]);

    let mut edges = Vec::new();
    let mut seen: HashSet<(usize, usize, EdgeKind)> = HashSet::new();
    for (i, r) in resources.iter().enumerate() {
        let mut push = |target: usize, kind: EdgeKind| {
            if target != i && seen.insert((i, target, kind)) {
                edges.push(GraphEdge { source: i, target, kind });
            }
        };
        if let Some(&p) = r.parent().and_then(|p| by_urn.get(p)) {
            push(p, EdgeKind::Parent);
        }
        if let Some(&p) =
            r.provider().and_then(split_provider_reference).and_then(|(u, _)| by_urn.get(u))
        {
            push(p, EdgeKind::Provider);
        }
        for dep in r.dependency_urns() {
            if let Some(&d) = by_urn.get(dep) {
                push(d, EdgeKind::Dependency);
            }
        }
    }

    let nodes = resources
        .iter()
        .map(|r| GraphNode {
            urn: r.urn.clone(),
            name: name_of(&r.urn).to_string(),
            type_: r.type_.clone(),
            kind: if r.type_ == "pulumi:pulumi:Stack" {
                NodeKind::Stack
            } else if r.is_provider() {
                NodeKind::Provider
            } else if r.is_custom() {
                NodeKind::Custom
            } else {
                NodeKind::Component
            },
            protect: r.is_protected(),
            pending_delete: r.is_pending_delete(),
            count: None,
            expand: None,
            status: None,
        })
        .collect();
    StackGraph { nodes, edges, committed: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_name_parents_providers_and_dependencies_once_each() {
        let d: Deployment = serde_json::from_value(serde_json::json!({"resources": [
            {"urn": "urn:pulumi:d::p::pulumi:pulumi:Stack::p-d", "type": "pulumi:pulumi:Stack"},
            {"urn": "urn:pulumi:d::p::pulumi:providers:aws::a", "type": "pulumi:providers:aws", "id": "1"},
            {"urn": "urn:pulumi:d::p::aws:s3/bucket:Bucket::b", "type": "aws:s3/bucket:Bucket", "custom": true, "id": "b",
             "parent": "urn:pulumi:d::p::pulumi:pulumi:Stack::p-d", "provider": "urn:pulumi:d::p::pulumi:providers:aws::a::1",
             "dependencies": ["urn:pulumi:d::p::pulumi:providers:aws::a", "urn:pulumi:d::p::pulumi:providers:aws::a", "urn:pulumi:d::p::aws:s3/bucket:Bucket::b"]},
        ]}))
        .unwrap();
        let g = of_deployment(&d);
        assert_eq!(
            g.nodes.iter().map(|n| n.kind).collect::<Vec<_>>(),
            [NodeKind::Stack, NodeKind::Provider, NodeKind::Custom]
        );
        let edges: Vec<(usize, usize, EdgeKind)> =
            g.edges.iter().map(|e| (e.source, e.target, e.kind)).collect();
        // A parentless provider has no edge (its place is the browser's); a repeated dependency
        // is one edge; a resource depending on itself is none.
        assert_eq!(
            edges,
            [(2, 0, EdgeKind::Parent), (2, 1, EdgeKind::Provider), (2, 1, EdgeKind::Dependency)]
        );
    }
}
