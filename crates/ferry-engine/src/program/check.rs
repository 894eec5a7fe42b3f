//! The checks of a read program that need no provider: unknown names, duplicates between
//! sections, options naming what is not there, and cycles; then the evaluation order.

use std::collections::{HashMap, HashSet};

use super::expr::Expr;
use super::parse::{is_stack_reference, suggest, Reader};
use super::Program;

/// Unknown names, duplicates between sections, and cycles; then the evaluation order.
pub(super) fn check_names(r: &mut Reader, program: &mut Program) {
    let resources: HashMap<&str, usize> =
        program.resources.iter().enumerate().map(|(i, d)| (d.name.as_str(), i)).collect();
    let variables: HashMap<&str, usize> =
        program.variables.iter().enumerate().map(|(i, v)| (v.name.as_str(), i)).collect();
    let config: HashSet<&str> = program.config.iter().map(|c| c.key.as_str()).collect();
    for v in &program.variables {
        if resources.contains_key(v.name.as_str()) {
            r.error(
                v.pos,
                &format!("variables.{}", v.name),
                format!("`{}` is both a variable and a resource", v.name),
            );
        }
    }
    let known_root = |root: &str| {
        root == "pulumi"
            || resources.contains_key(root)
            || variables.contains_key(root)
            || config.contains(root)
            || root.contains(':')
    };
    let mut all_names: Vec<&str> = resources.keys().chain(variables.keys()).copied().collect();
    all_names.extend(config.iter().copied());
    all_names.sort();
    let check_expr = |r: &mut Reader, e: &Expr, path: &str| {
        for reference in e.references() {
            if !known_root(&reference.root) {
                r.error(
                    reference.pos,
                    path,
                    format!(
                        "`${{{}}}` refers to `{}`, which is not a resource, variable or config value{}",
                        reference.text,
                        reference.root,
                        suggest(&reference.root, &all_names)
                    ),
                );
            } else if reference.root == "pulumi" {
                let ok = matches!(reference.path.first(), Some(super::Accessor::Property(p)) if ["stack", "project", "organization"].contains(&p.as_str()));
                if !ok || reference.path.len() != 1 {
                    r.error(
                        reference.pos,
                        path,
                        format!(
                            "`${{{}}}`: `pulumi` offers `stack`, `project` and `organization`",
                            reference.text
                        ),
                    );
                }
            }
        }
    };
    for v in &program.variables {
        check_expr(r, &v.value, &format!("variables.{}", v.name));
    }
    for (name, _, e) in &program.outputs {
        check_expr(r, e, &format!("outputs.{name}"));
    }
    for d in &program.resources {
        let path = format!("resources.{}", d.name);
        for (k, _, e) in &d.properties {
            check_expr(r, e, &format!("{path}.properties.{k}"));
        }
        if let Some(g) = &d.get {
            check_expr(r, &g.id, &format!("{path}.get.id"));
        }
        if let Some(i) = &d.options.import {
            check_expr(r, i, &format!("{path}.options.import"));
        }
        let mut named = Vec::new();
        named.extend(d.options.parent.iter().map(|n| ("parent", n)));
        named.extend(d.options.provider.iter().map(|n| ("provider", n)));
        named.extend(d.options.depends_on.iter().map(|n| ("dependsOn", n)));
        for (option, target) in named {
            let pos = d.options_pos.get(option).copied().unwrap_or(d.pos);
            if is_stack_reference(target) {
                continue;
            }
            match resources.get(target.as_str()) {
                None => r.error(
                    pos,
                    &format!("{path}.options.{option}"),
                    format!(
                        "`{target}` is not a resource in this program{}",
                        suggest(target, &all_names)
                    ),
                ),
                Some(&t) if option == "provider" && !program.resources[t].is_provider() => r.error(
                    pos,
                    &format!("{path}.options.provider"),
                    format!(
                        "`{target}` is a `{}`, not a provider (`pulumi:providers:<package>`)",
                        program.resources[t].type_
                    ),
                ),
                Some(&t) if option == "provider" && !d.type_.is_empty() => {
                    let package = d.type_.split(':').next().unwrap_or("");
                    let provider_package =
                        program.resources[t].type_.trim_start_matches("pulumi:providers:");
                    if package != provider_package {
                        r.error(
                            pos,
                            &format!("{path}.options.provider"),
                            format!("`{target}` is a `{provider_package}` provider, but `{}` needs a `{package}` provider", d.type_),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    if !r.diagnostics.is_empty() {
        return;
    }
    // Evaluation order: depth-first over references, reporting the first cycle found.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let node_of = |name: &str| -> Option<(bool, usize)> {
        resources.get(name).map(|&i| (true, i)).or_else(|| variables.get(name).map(|&i| (false, i)))
    };
    let deps_of = |(is_resource, i): (bool, usize)| -> Vec<(bool, usize)> {
        let names: Vec<String> = if is_resource {
            program.resources[i].references().into_iter().map(str::to_string).collect()
        } else {
            program.variables[i].value.references().into_iter().map(|r| r.root.clone()).collect()
        };
        names.iter().filter_map(|n| node_of(n)).collect()
    };
    let name_of = |(is_resource, i): (bool, usize)| {
        if is_resource {
            &program.resources[i].name
        } else {
            &program.variables[i].name
        }
    };
    let pos_of_node = |(is_resource, i): (bool, usize)| {
        if is_resource {
            program.resources[i].pos
        } else {
            program.variables[i].pos
        }
    };
    let mut marks: HashMap<(bool, usize), Mark> = HashMap::new();
    let mut order = Vec::new();
    let roots: Vec<(bool, usize)> = (0..program.variables.len())
        .map(|i| (false, i))
        .chain((0..program.resources.len()).map(|i| (true, i)))
        .collect();
    for root in roots {
        if marks.get(&root).copied().unwrap_or(Mark::New) != Mark::New {
            continue;
        }
        // Iterative DFS: (node, next dependency index).
        let mut stack: Vec<((bool, usize), Vec<(bool, usize)>, usize)> =
            vec![(root, deps_of(root), 0)];
        marks.insert(root, Mark::Active);
        while let Some((node, deps, next)) = stack.last_mut() {
            if *next < deps.len() {
                let dep = deps[*next];
                *next += 1;
                match marks.get(&dep).copied().unwrap_or(Mark::New) {
                    Mark::Done => {}
                    Mark::New => {
                        marks.insert(dep, Mark::Active);
                        let d = deps_of(dep);
                        stack.push((dep, d, 0));
                    }
                    Mark::Active => {
                        let start = stack.iter().position(|(n, _, _)| *n == dep).unwrap_or(0);
                        let cycle: Vec<&str> = stack[start..]
                            .iter()
                            .map(|(n, _, _)| name_of(*n).as_str())
                            .chain([name_of(dep).as_str()])
                            .collect();
                        let section = if dep.0 { "resources" } else { "variables" };
                        r.error(
                            pos_of_node(dep),
                            &format!("{section}.{}", name_of(dep)),
                            format!("a cycle: {}", cycle.join(" → ")),
                        );
                        return;
                    }
                }
            } else {
                let node = *node;
                marks.insert(node, Mark::Done);
                order.push(node);
                stack.pop();
            }
        }
    }
    program.order = order;
}
