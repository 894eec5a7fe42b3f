//! A big stack's graph, summarised to what a person can read: the parent tree is opened from the
//! top, breadth first, until a budget of nodes is spent; siblings of one type beyond a handful
//! are one group node; what is not opened is folded into its nearest shown ancestor, with edges
//! between what is shown. The user opens a folded node or a group on demand (`expand`).
//!
//! A graph within the budget is returned whole, so small stacks look as they always did.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::graph::{EdgeKind, GraphEdge, GraphNode, NodeKind, StackGraph};

/// The most nodes a summarised graph shows (beyond what the user opened themselves).
pub const SUMMARY_BUDGET: usize = 1500;
/// Siblings of one type are grouped from this many on.
pub const GROUP_MIN: usize = 12;
/// The most dependency edges a summarised graph draws (those standing for the most
/// resource-level dependencies); parent and provider edges are all drawn.
pub const MAX_DEPENDENCY_EDGES: usize = 1000;

/// The key that opens the group of `parent`'s children of type `type_` (`parent` is empty for
/// resources without a parent).
pub fn group_key(type_: &str, parent: &str) -> String {
    format!("{type_}@{parent}")
}

/// A summarised graph, and where each resource of the full graph is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub graph: StackGraph,
    /// For each node of the full graph, the node of `graph` that shows it: itself, its group,
    /// or its nearest shown ancestor (what is marked on a resource, a preview's status say,
    /// is marked there).
    pub shown_as: Vec<usize>,
}

/// `full` summarised within `budget` nodes, with the folded nodes and groups named in `expand`
/// (URNs and [`group_key`]s) opened.
pub fn summarise(full: &StackGraph, budget: usize, expand: &HashSet<String>) -> Summary {
    let n = full.nodes.len();
    if n <= budget {
        return Summary { graph: full.clone(), shown_as: (0..n).collect() };
    }
    // The parent tree, under a virtual root (`n`) that holds every parentless resource. A
    // parent cycle (malformed state) is cut where the walk below first meets it.
    const NONE: usize = usize::MAX;
    let root = n;
    let mut parent = vec![NONE; n];
    for e in &full.edges {
        if e.kind == EdgeKind::Parent {
            parent[e.source] = e.target;
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, &p) in parent.iter().enumerate() {
        children[if p == NONE { root } else { p }].push(i);
    }
    // Breadth-first order from the root (parents before children); what a cycle keeps out is
    // hung under the root.
    let mut order = Vec::with_capacity(n);
    let mut reached = vec![false; n + 1];
    reached[root] = true;
    let mut walk = VecDeque::from([root]);
    loop {
        while let Some(p) = walk.pop_front() {
            for &c in &children[p] {
                if !reached[c] {
                    reached[c] = true;
                    order.push(c);
                    walk.push_back(c);
                }
            }
        }
        let Some(stray) = (0..n).find(|&i| !reached[i]) else { break };
        children[root].push(stray);
        parent[stray] = NONE;
        reached[stray] = true;
        order.push(stray);
        walk.push_back(stray);
    }
    // How many resources each one stands for: itself and everything under it.
    let mut size = vec![1usize; n];
    for &i in order.iter().rev() {
        if parent[i] != NONE && reached[parent[i]] {
            size[parent[i]] += size[i];
        }
    }
    // A child of `p` in the tree (a cut cycle's member is under the root only).
    let parent = &parent;
    let tree_children = |p: usize| {
        children[p].iter().copied().filter(move |&c| parent[c] == if p == root { NONE } else { p })
    };

    // Open the tree breadth first while the budget lasts; `shown[i]` is i's node in the output.
    let mut nodes: Vec<GraphNode> = Vec::new();
    let mut shown = vec![NONE; n];
    let mut opened = vec![false; n + 1];
    opened[root] = true;
    let mut queue = VecDeque::from([root]);
    while let Some(p) = queue.pop_front() {
        let parent_urn = if p == root { "" } else { full.nodes[p].urn.as_str() };
        // Children by type, in state order.
        let mut by_type: Vec<(&str, Vec<usize>)> = Vec::new();
        let mut slot: HashMap<&str, usize> = HashMap::new();
        for c in tree_children(p) {
            let t = full.nodes[c].type_.as_str();
            let k = *slot.entry(t).or_insert_with(|| {
                by_type.push((t, Vec::new()));
                by_type.len() - 1
            });
            by_type[k].1.push(c);
        }
        // Many siblings of a type are one group, unless the user opened it, or they hold more
        // (components: the structure people navigate by) and fit in the budget.
        let mut cost = 0;
        let grouped: Vec<bool> = by_type
            .iter()
            .map(|(t, members)| {
                let structural = members.iter().any(|&m| !children[m].is_empty());
                let group = members.len() >= GROUP_MIN
                    && !expand.contains(&group_key(t, parent_urn))
                    && !(structural && nodes.len() + cost + members.len() <= budget);
                cost += if group { 1 } else { members.len() };
                group
            })
            .collect();
        // What the user opened is opened whatever the budget says.
        let asked = expand.contains(parent_urn)
            || by_type.iter().any(|(t, _)| expand.contains(&group_key(t, parent_urn)));
        if p != root && nodes.len() + cost > budget && !asked {
            continue;
        }
        opened[p] = true;
        for ((t, members), &group) in by_type.iter().zip(&grouped) {
            if group {
                let count = members.iter().map(|&m| size[m]).sum();
                let short = t.rsplit(':').next().unwrap_or(t);
                for &m in members {
                    shown[m] = nodes.len();
                }
                nodes.push(GraphNode {
                    urn: String::new(),
                    name: format!("{} × {short}", members.len()),
                    type_: t.to_string(),
                    kind: NodeKind::Group,
                    protect: false,
                    pending_delete: false,
                    count: Some(count),
                    expand: Some(group_key(t, parent_urn)),
                    status: None,
                });
            } else {
                for &m in members {
                    shown[m] = nodes.len();
                    nodes.push(full.nodes[m].clone());
                    if !children[m].is_empty() {
                        queue.push_back(m);
                    }
                }
            }
        }
    }
    // What stayed folded says how much it holds and how to open it.
    for (i, &at) in shown.iter().enumerate() {
        if at != NONE && !opened[i] && size[i] > 1 && nodes[at].kind != NodeKind::Group {
            nodes[at].count = Some(size[i]);
            nodes[at].expand = Some(full.nodes[i].urn.clone());
        }
    }
    // Everything not shown is drawn as its nearest shown ancestor (or its group).
    let mut rep = shown;
    for &i in &order {
        if rep[i] == NONE && parent[i] != NONE {
            rep[i] = rep[parent[i]];
        }
    }
    // Edges between shown nodes, once each, with how many they stand for.
    let mut weight: HashMap<(usize, usize, EdgeKind), usize> = HashMap::new();
    let mut edges = Vec::new();
    for e in &full.edges {
        let (s, t) = (rep[e.source], rep[e.target]);
        if s == NONE || t == NONE || s == t {
            continue;
        }
        let w = weight.entry((s, t, e.kind)).or_insert(0);
        if *w == 0 {
            edges.push(GraphEdge { source: s, target: t, kind: e.kind });
        }
        *w += 1;
    }
    // Between groups, dependencies can join nearly everything to everything: past the cap, the
    // dependencies standing for the most resource-level ones are drawn.
    let dependencies = edges.iter().filter(|e| e.kind == EdgeKind::Dependency).count();
    if dependencies > MAX_DEPENDENCY_EDGES {
        let mut ranked: Vec<usize> = edges
            .iter()
            .filter(|e| e.kind == EdgeKind::Dependency)
            .map(|e| weight[&(e.source, e.target, e.kind)])
            .collect();
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        let floor = ranked[MAX_DEPENDENCY_EDGES - 1];
        let mut at_floor = ranked[..MAX_DEPENDENCY_EDGES].iter().filter(|&&w| w == floor).count();
        edges.retain(|e| {
            if e.kind != EdgeKind::Dependency {
                return true;
            }
            let w = weight[&(e.source, e.target, e.kind)];
            if w == floor && at_floor > 0 {
                at_floor -= 1;
                return true;
            }
            w > floor
        });
    }
    // Every resource is reached from the root, whose children are all shown or grouped.
    debug_assert!(rep.iter().all(|&r| r != NONE));
    Summary { graph: StackGraph { nodes, edges, committed: None }, shown_as: rep }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Deployment;

    /// A stack, one provider, 3 components, 40 buckets under each and 2 objects under each
    /// bucket: 366 resources.
    fn tree() -> StackGraph {
        let urn = |t: &str, n: &str| format!("urn:pulumi:d::p::{t}::{n}");
        let stack = urn("pulumi:pulumi:Stack", "p-d");
        let mut resources = vec![serde_json::json!({"urn": stack, "type": "pulumi:pulumi:Stack"})];
        resources.push(serde_json::json!({"urn": urn("pulumi:providers:aws", "default"), "type": "pulumi:providers:aws", "custom": true, "id": "1"}));
        for c in 0..3 {
            let comp = urn("x:index:Site", &format!("site-{c}"));
            resources
                .push(serde_json::json!({"urn": comp, "type": "x:index:Site", "parent": stack}));
            for b in 0..40 {
                let bucket = urn("aws:s3/bucket:Bucket", &format!("b-{c}-{b}"));
                resources.push(serde_json::json!({"urn": bucket, "type": "aws:s3/bucket:Bucket", "custom": true, "id": format!("b-{c}-{b}"), "parent": comp}));
                for o in 0..2 {
                    resources.push(serde_json::json!({"urn": urn("aws:s3/object:Object", &format!("o-{c}-{b}-{o}")), "type": "aws:s3/object:Object", "custom": true, "id": "o", "parent": bucket, "dependencies": [urn("x:index:Site", "site-0")]}));
                }
            }
        }
        let d: Deployment =
            serde_json::from_value(serde_json::json!({"resources": resources})).unwrap();
        crate::graph::of_deployment(&d)
    }

    fn names(g: &StackGraph) -> Vec<String> {
        g.nodes
            .iter()
            .map(|n| {
                format!("{}{}", n.name, n.count.map(|c| format!(" ({c})")).unwrap_or_default())
            })
            .collect()
    }

    #[test]
    fn a_graph_within_the_budget_is_whole() {
        let full = tree();
        assert_eq!(summarise(&full, 1000, &HashSet::new()).graph, full);
    }

    #[test]
    fn siblings_are_grouped_by_type_and_every_resource_is_accounted_for() {
        let full = tree();
        // Within 10 nodes, even the buckets (which hold objects) are grouped.
        let Summary { graph: g, shown_as } = summarise(&full, 10, &HashSet::new());
        assert_eq!(
            names(&g),
            [
                "p-d",
                "default",
                "site-0",
                "site-1",
                "site-2",
                "40 × Bucket (120)",
                "40 × Bucket (120)",
                "40 × Bucket (120)"
            ]
        );
        // Every resource is one shown node, or counted in exactly one.
        assert_eq!(g.nodes.iter().map(|n| n.count.unwrap_or(1)).sum::<usize>(), full.nodes.len());
        // ... and is drawn as the node that counts it: itself, or the group holding it or its
        // bucket (the objects of site-1's buckets are in site-1's group of buckets).
        for (i, &at) in shown_as.iter().enumerate() {
            let by_count = shown_as.iter().filter(|&&a| a == at).count();
            assert_eq!(g.nodes[at].count.unwrap_or(1), by_count, "{}", full.nodes[i].urn);
        }
        let object = full.nodes.iter().position(|n| n.name == "o-1-7-1").unwrap();
        assert_eq!(
            g.nodes[shown_as[object]].expand.as_deref(),
            Some("aws:s3/bucket:Bucket@urn:pulumi:d::p::x:index:Site::site-1")
        );
        assert_eq!(g.nodes[shown_as[2]].urn, full.nodes[2].urn);
        // Edges join shown nodes: the groups' parents, and the objects' dependency on site-0
        // drawn from each group that holds them.
        let kinds: Vec<(usize, usize, EdgeKind)> =
            g.edges.iter().map(|e| (e.source, e.target, e.kind)).collect();
        assert!(
            kinds.contains(&(5, 2, EdgeKind::Parent))
                && kinds.contains(&(6, 3, EdgeKind::Parent))
                && kinds.contains(&(6, 2, EdgeKind::Dependency))
        );
        assert!(kinds.iter().all(|&(s, t, _)| s < g.nodes.len() && t < g.nodes.len() && s != t));
    }

    #[test]
    fn a_group_and_a_folded_node_open_on_demand() {
        let full = tree();
        let site = "urn:pulumi:d::p::x:index:Site::site-1";
        let open: HashSet<String> = [group_key("aws:s3/bucket:Bucket", site)].into();
        let g = summarise(&full, 47, &open).graph;
        // site-0's buckets fit the budget and are shown; site-1's are shown because the user
        // opened them (past the budget). site-1's buckets are folded (each holds its two objects) since
        // their objects would pass the budget.
        let buckets: Vec<&GraphNode> =
            g.nodes.iter().filter(|n| n.name.starts_with("b-1-")).collect();
        assert_eq!(buckets.len(), 40);
        assert!(buckets
            .iter()
            .all(|b| b.count == Some(3) && b.expand.as_deref() == Some(b.urn.as_str())));
        assert_eq!(g.nodes.iter().filter(|n| n.name.starts_with("b-0-")).count(), 40);
        // What the user opened took the budget: site-2 stays folded, with all it holds.
        assert!(g.nodes.iter().all(|n| n.kind != NodeKind::Group));
        assert_eq!(g.nodes.iter().find(|n| n.name == "site-2").unwrap().count, Some(121));
        let open: HashSet<String> = [
            group_key("aws:s3/bucket:Bucket", site),
            "urn:pulumi:d::p::aws:s3/bucket:Bucket::b-1-7".to_string(),
        ]
        .into();
        let g = summarise(&full, 47, &open).graph;
        assert_eq!(g.nodes.iter().map(|n| n.count.unwrap_or(1)).sum::<usize>(), full.nodes.len());
        assert!(
            g.nodes.iter().any(|n| n.name == "o-1-7-0")
                && g.nodes.iter().any(|n| n.name == "o-1-7-1")
        );
    }

    #[test]
    fn dependencies_between_groups_are_capped_at_the_strongest() {
        let urn = |t: &str, n: &str| format!("urn:pulumi:d::p::{t}::{n}");
        let stack = urn("pulumi:pulumi:Stack", "p-d");
        let mut resources = vec![serde_json::json!({"urn": stack, "type": "pulumi:pulumi:Stack"})];
        for c in 0..60 {
            resources.push(serde_json::json!({"urn": urn("x:index:C", &format!("c{c}")), "type": "x:index:C", "parent": stack}));
        }
        for c in 0..60 {
            for l in 0..20 {
                // Each leaf depends on a leaf of every other component.
                let deps: Vec<String> = (0..60)
                    .filter(|&o| o != c)
                    .map(|o| urn("x:index:L", &format!("l{o}-{}", (l + 1) % 20)))
                    .collect();
                resources.push(serde_json::json!({"urn": urn("x:index:L", &format!("l{c}-{l}")), "type": "x:index:L", "custom": true, "id": "i",
                    "parent": urn("x:index:C", &format!("c{c}")), "dependencies": deps}));
            }
        }
        let d: Deployment =
            serde_json::from_value(serde_json::json!({"resources": resources})).unwrap();
        let full = crate::graph::of_deployment(&d);
        let g = summarise(&full, 100, &HashSet::new()).graph;
        let dependencies = g.edges.iter().filter(|e| e.kind == EdgeKind::Dependency).count();
        assert_eq!(dependencies, MAX_DEPENDENCY_EDGES);
        // Parent edges are never dropped: every shown node but the stack has its parent's.
        let parents = g.edges.iter().filter(|e| e.kind == EdgeKind::Parent).count();
        assert_eq!(parents, g.nodes.len() - 1);
    }

    #[test]
    fn parentless_resources_are_grouped_too_and_parent_cycles_end() {
        let mut resources: Vec<serde_json::Value> =
            (0..500).map(|i| serde_json::json!({"urn": format!("urn:pulumi:d::p::t:i:R::r{i}"), "type": "t:i:R", "custom": true, "id": "x"})).collect();
        resources.push(serde_json::json!({"urn": "urn:pulumi:d::p::t:i:C::a", "type": "t:i:C", "parent": "urn:pulumi:d::p::t:i:C::b"}));
        resources.push(serde_json::json!({"urn": "urn:pulumi:d::p::t:i:C::b", "type": "t:i:C", "parent": "urn:pulumi:d::p::t:i:C::a"}));
        let d: Deployment =
            serde_json::from_value(serde_json::json!({"resources": resources})).unwrap();
        let g = summarise(&crate::graph::of_deployment(&d), 100, &HashSet::new()).graph;
        assert_eq!(names(&g), ["500 × R (500)", "a", "b"]);
    }
}
