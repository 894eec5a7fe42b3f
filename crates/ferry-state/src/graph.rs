//! The stack graph: one node per resource, edges for parents, dependencies and providers, and a
//! deterministic radial tree layout so the browser can draw 5,000 nodes without simulating.
//!
//! Layout is O(n log n) (a sort of each sibling group); everything else is O(n + edges).

use std::collections::HashSet;

use serde::Serialize;

use crate::deployment::Deployment;
use crate::urn::{name_of, split_provider_reference};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Stack,
    Component,
    Custom,
    Provider,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    Parent,
    Dependency,
    Provider,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphNode {
    pub urn: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub kind: NodeKind,
    pub protect: bool,
    pub pending_delete: bool,
    pub x: f64,
    pub y: f64,
}

/// An edge between node positions: `source` depends on, is parented by, or uses `target`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphEdge {
    pub source: usize,
    pub target: usize,
    pub kind: EdgeKind,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackGraph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// Sibling groups larger than this are spread over several rings so labels do not collide.
const RING_CAPACITY: usize = 48;
const RING_SPACING: f64 = 100.0;

impl StackGraph {
    pub fn from_deployment(deployment: &Deployment) -> StackGraph {
        let resources = deployment.resources();
        let by_urn = deployment.reference_index();

        let mut edges = Vec::new();
        let mut parent_of: Vec<Option<usize>> = vec![None; resources.len()];
        let mut seen: HashSet<(usize, usize, EdgeKind)> = HashSet::new();
        for (i, r) in resources.iter().enumerate() {
            let mut push = |target: usize, kind: EdgeKind| {
                if target != i && seen.insert((i, target, kind)) {
                    edges.push(GraphEdge { source: i, target, kind });
                }
            };
            if let Some(&p) = r.parent().and_then(|p| by_urn.get(p)) {
                if p != i {
                    parent_of[i] = Some(p);
                }
                push(p, EdgeKind::Parent);
            }
            if let Some(&p) = r.provider().and_then(split_provider_reference).and_then(|(u, _)| by_urn.get(u)) {
                push(p, EdgeKind::Provider);
            }
            for dep in r.dependency_urns() {
                if let Some(&d) = by_urn.get(dep) {
                    push(d, EdgeKind::Dependency);
                }
            }
        }

        // Layout only: resources with no parent (default providers, mostly) are placed under the
        // stack's root resource when there is exactly one, so they spread on its first ring
        // instead of crowding the root's own ring.
        let stack_roots: Vec<usize> = (0..resources.len()).filter(|&i| parent_of[i].is_none() && resources[i].type_ == "pulumi:pulumi:Stack").collect();
        let mut layout_parent = parent_of.clone();
        if let [root] = stack_roots[..] {
            for (i, p) in layout_parent.iter_mut().enumerate() {
                if p.is_none() && i != root {
                    *p = Some(root);
                }
            }
        }
        let positions = radial_layout(&layout_parent, |i| (&resources[i].type_, &resources[i].urn));
        let nodes = resources
            .iter()
            .zip(positions)
            .map(|(r, (x, y))| GraphNode {
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
                x,
                y,
            })
            .collect();
        StackGraph { nodes, edges }
    }
}

/// Places a forest on concentric rings: each subtree gets an angular wedge proportional to its
/// number of leaves, children are ordered by `sort_key`, and a node's ring is its depth.
fn radial_layout<'a, K: Ord + 'a>(parent_of: &[Option<usize>], sort_key: impl Fn(usize) -> K) -> Vec<(f64, f64)> {
    let n = parent_of.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in parent_of.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    // Breadth-first order from the roots; nodes caught in a parent cycle are never reached
    // and become roots themselves, so a broken file still lays out.
    let mut order = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut queue_start = 0;
    let mut pending: Vec<usize> = roots.clone();
    let mut extra_roots = Vec::new();
    let mut next_unvisited = 0;
    loop {
        for &r in &pending {
            if !visited[r] {
                visited[r] = true;
                order.push(r);
            }
        }
        pending.clear();
        while queue_start < order.len() {
            let node = order[queue_start];
            queue_start += 1;
            for &c in &children[node] {
                if !visited[c] {
                    visited[c] = true;
                    order.push(c);
                }
            }
        }
        while next_unvisited < n && visited[next_unvisited] {
            next_unvisited += 1;
        }
        if next_unvisited == n {
            break;
        }
        // A node on a parent cycle: detach it from its parent so the forest is a tree again.
        if let Some(p) = parent_of[next_unvisited] {
            children[p].retain(|&c| c != next_unvisited);
        }
        extra_roots.push(next_unvisited);
        pending.push(next_unvisited);
    }
    roots.extend(extra_roots);

    let mut weight = vec![1.0f64; n];
    for &node in order.iter().rev() {
        let w: f64 = children[node].iter().map(|&c| weight[c]).sum();
        if w > 0.0 {
            weight[node] = w;
        }
    }
    for list in children.iter_mut() {
        list.sort_by_key(|&a| sort_key(a));
    }
    roots.sort_by_key(|&a| sort_key(a));

    let mut pos = vec![(0.0, 0.0); n];
    // (node, wedge start, wedge end, radius)
    let mut stack: Vec<(usize, f64, f64, f64)> = Vec::with_capacity(n);
    let single_root = roots.len() == 1;
    let root_total: f64 = roots.iter().map(|&r| weight[r]).sum();
    let mut angle = 0.0;
    let root_rings = rings_for(roots.len());
    for (k, &r) in roots.iter().enumerate() {
        let span = std::f64::consts::TAU * weight[r] / root_total.max(1.0);
        let radius = if single_root { 0.0 } else { RING_SPACING * (1.0 + (k % root_rings) as f64 / root_rings as f64) };
        stack.push((r, angle, angle + span, radius));
        angle += span;
    }
    while let Some((node, a0, a1, radius)) = stack.pop() {
        let mid = (a0 + a1) / 2.0;
        pos[node] = (radius * mid.cos(), radius * mid.sin());
        let kids = &children[node];
        let rings = rings_for(kids.len());
        let total: f64 = kids.iter().map(|&c| weight[c]).sum();
        let mut a = a0;
        for (k, &c) in kids.iter().enumerate() {
            let span = (a1 - a0) * weight[c] / total.max(1.0);
            // Large groups sit on `rings` staggered rings; the next generation starts past them.
            let child_radius = radius + RING_SPACING * (1.0 + (k % rings) as f64 / rings as f64);
            let base = radius + RING_SPACING * (rings as f64);
            let r = if children[c].is_empty() { child_radius } else { base.max(child_radius) };
            stack.push((c, a, a + span, r));
            a += span;
        }
    }
    pos
}

fn rings_for(count: usize) -> usize {
    count.div_ceil(RING_CAPACITY).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_deterministic_and_survives_parent_cycles() {
        let parents = vec![None, Some(0), Some(0), Some(4), Some(3)];
        let a = radial_layout(&parents, |i| i);
        let b = radial_layout(&parents, |i| i);
        assert_eq!(a, b);
        assert_eq!(a.len(), 5);
        assert!(a.iter().all(|(x, y)| x.is_finite() && y.is_finite()));
    }

    #[test]
    fn parentless_resources_ring_the_stack() {
        let d: Deployment = serde_json::from_value(serde_json::json!({"resources": [
            {"urn": "urn:pulumi:d::p::pulumi:pulumi:Stack::p-d", "type": "pulumi:pulumi:Stack"},
            {"urn": "urn:pulumi:d::p::pulumi:providers:aws::a", "type": "pulumi:providers:aws", "id": "1"},
            {"urn": "urn:pulumi:d::p::pulumi:providers:aws::b", "type": "pulumi:providers:aws", "id": "2"},
        ]}))
        .unwrap();
        let g = StackGraph::from_deployment(&d);
        assert_eq!((g.nodes[0].x, g.nodes[0].y), (0.0, 0.0), "the stack is the centre");
        let dist = (g.nodes[1].x - g.nodes[2].x).hypot(g.nodes[1].y - g.nodes[2].y);
        assert!(dist > 50.0, "providers do not overlap ({dist})");
        assert!(g.edges.is_empty(), "layout parents are not edges");
    }

    #[test]
    fn large_sibling_groups_spread_over_rings() {
        let mut parents = vec![None];
        parents.extend(std::iter::repeat_n(Some(0), 500));
        let pos = radial_layout(&parents, |i| i);
        let radii: HashSet<u64> = pos[1..].iter().map(|(x, y)| (x.hypot(*y) * 10.0).round() as u64).collect();
        assert!(radii.len() > 1, "500 children on a single ring");
    }
}
