//! Edits to a YAML program's text that keep everything else as the user wrote it (comments,
//! order, quoting): set or remove a resource's property (a top-level one, or a leaf at a
//! property path such as `tags["cost-center"]`), add a path to its `ignoreChanges`, set its
//! `import` option, or take a resource out.
//!
//! Positions come from the YAML parser; an edit replaces whole lines of one block (a key and
//! its more-indented value) so nested values, block or flow, are handled alike.

use marked_yaml::loader::LoaderOptions;
use marked_yaml::types::MarkedMappingNode;
use marked_yaml::{Node, Span};
use serde_json::Value;

/// What to change.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgramEdit {
    /// Sets an input of a resource, top-level or at a property path (adding what is absent).
    SetProperty {
        resource: String,
        property: String,
        value: Value,
    },
    RemoveProperty {
        resource: String,
        property: String,
    },
    /// Adds a property to the resource's `ignoreChanges` (a no-op when it is there).
    IgnoreChanges {
        resource: String,
        property: String,
    },
    /// Sets the resource's `import` option (identification's choice to adopt what exists).
    SetImport {
        resource: String,
        id: String,
    },
    /// Takes the resource's block out of the program (identification's choice to skip it).
    RemoveResource {
        resource: String,
    },
}

impl ProgramEdit {
    /// The resource edited (its key, or its `name:`).
    pub fn resource(&self) -> &str {
        match self {
            ProgramEdit::SetProperty { resource, .. }
            | ProgramEdit::RemoveProperty { resource, .. }
            | ProgramEdit::IgnoreChanges { resource, .. }
            | ProgramEdit::SetImport { resource, .. }
            | ProgramEdit::RemoveResource { resource } => resource,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, EditError> {
    Err(EditError(message.into()))
}

fn line_of(span: &Span) -> usize {
    span.start().map(|m| m.line()).unwrap_or(1)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The program's lines, each with its newline.
struct Text<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Text<'a> {
    fn new(text: &'a str) -> Self {
        Text { lines: text.split_inclusive('\n').collect() }
    }

    /// The 0-based line after the block that starts at 1-based `line` (the key's line and every
    /// more-indented line after it; trailing blank lines are not part of it).
    fn block_end(&self, line: usize) -> usize {
        let start = line - 1;
        let own = indent(self.lines[start]);
        let mut end = start + 1;
        let mut i = start + 1;
        while i < self.lines.len() {
            let l = self.lines[i];
            if is_blank_or_comment(l) {
                i += 1;
                continue;
            }
            if indent(l) <= own {
                break;
            }
            i += 1;
            end = i;
        }
        end
    }

    /// Lines `from..to` (0-based) replaced by `with`.
    fn splice(&self, from: usize, to: usize, with: &str) -> Splice {
        Splice { from, to, with: with.to_string() }
    }

    /// The text with each splice made; they replace lines of the text as it is, none of them
    /// the same line as another.
    fn apply(&self, mut splices: Vec<Splice>) -> Result<String, EditError> {
        splices.sort_by_key(|s| (s.from, s.to));
        let mut out = String::new();
        let mut kept = 0;
        for s in splices {
            if s.from < kept {
                return fail(format!("two edits change line {} of the program", s.from + 1));
            }
            for l in &self.lines[kept..s.from] {
                out.push_str(l);
            }
            if !s.with.is_empty() && !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&s.with);
            kept = s.to;
        }
        for l in &self.lines[kept..] {
            out.push_str(l);
        }
        Ok(out)
    }
}

/// An edit as lines of the text replaced.
struct Splice {
    from: usize,
    to: usize,
    with: String,
}

impl Splice {
    /// No change.
    fn none() -> Splice {
        Splice { from: 0, to: 0, with: String::new() }
    }
}

/// A YAML key as written: plain when it can be, quoted otherwise.
fn key_text(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        key.to_string()
    } else {
        serde_json::to_string(key).expect("a string serialises")
    }
}

/// `$${` keeps a literal `${` from being read as an interpolation.
fn escape_interpolations(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("${", "$${")),
        Value::Array(items) => Value::Array(items.iter().map(escape_interpolations).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), escape_interpolations(v))).collect())
        }
        other => other.clone(),
    }
}

/// A value in YAML's flow style (JSON is valid YAML flow).
fn flow(v: &Value) -> String {
    serde_json::to_string(&escape_interpolations(v)).expect("a value serialises")
}

/// Where a new key of `map` (whose own key is on `line`) goes, and at what indentation.
fn child_indent(text: &Text<'_>, map: &MarkedMappingNode, line: usize) -> Result<usize, EditError> {
    match map.iter().next() {
        Some((k, _)) => {
            let child = line_of(k.span());
            if child == line {
                return fail("the block is written in flow style (`{…}`); edit it by hand");
            }
            Ok(indent(text.lines[child - 1]))
        }
        None => Ok(indent(text.lines[line - 1]) + 2),
    }
}

/// Applies one edit; the rest of the text is kept byte for byte.
pub fn edit_program(source: &str, edit: &ProgramEdit) -> Result<String, EditError> {
    edit_program_all(source, std::slice::from_ref(edit)).map_err(|(_, e)| e)
}

/// Applies edits of different resources at once, the program read once (identification's
/// choices, one per resource: a thousand of them, each re-reading the program, took time
/// growing with the square of its size). An edit that fails is returned with its index.
pub fn edit_program_all(source: &str, edits: &[ProgramEdit]) -> Result<String, (usize, EditError)> {
    let options = LoaderOptions::default().error_on_duplicate_keys(true).prevent_coercion(true);
    let whole = |e: EditError| (0, e);
    let root = marked_yaml::parse_yaml_with_options(0, source, options)
        .map_err(|e| whole(EditError(format!("the program does not parse: {e}"))))?;
    let Some(resources) = root.as_mapping().and_then(|m| m.get_mapping("resources")) else {
        return Err(whole(EditError("the program has no `resources`".into())));
    };
    // Each resource by its key and by its `name:` (the key wins where the two meet).
    let mut by_name: std::collections::HashMap<&str, (&MarkedMappingNode, usize)> =
        std::collections::HashMap::new();
    for (k, v) in resources.iter() {
        if let Some(m) = v.as_mapping() {
            if let Some(logical) = m.get_scalar("name") {
                by_name.entry(logical.as_str()).or_insert((m, line_of(k.span())));
            }
        }
    }
    for (k, v) in resources.iter() {
        if let Some(m) = v.as_mapping() {
            by_name.insert(k.as_str(), (m, line_of(k.span())));
        }
    }
    let text = Text::new(source);
    let mut edited = std::collections::HashSet::new();
    let mut splices = Vec::with_capacity(edits.len());
    for (i, edit) in edits.iter().enumerate() {
        let name = edit.resource();
        // Lines are those of the text as it is: a second edit of one resource would not see
        // the first's.
        if by_name.get(name).is_some_and(|(_, line)| !edited.insert(*line)) {
            return Err((i, EditError(format!("`{name}` is edited twice; edit it once"))));
        }
        splices.push(splice_of(&text, &by_name, edit).map_err(|e| (i, e))?);
    }
    text.apply(splices).map_err(whole)
}

/// The lines one edit replaces.
fn splice_of(
    text: &Text<'_>,
    resources: &std::collections::HashMap<&str, (&MarkedMappingNode, usize)>,
    edit: &ProgramEdit,
) -> Result<Splice, EditError> {
    let name = edit.resource();
    let Some(&(resource, resource_line)) = resources.get(name) else {
        return fail(format!("the program has no resource `{name}`"));
    };
    if let ProgramEdit::RemoveResource { .. } = edit {
        return Ok(text.splice(resource_line - 1, text.block_end(resource_line), ""));
    }
    let child = child_indent(text, resource, resource_line)?;
    let pad = |n: usize| " ".repeat(n);
    // Finds a key of `map`, with its line.
    let entry = |map: &MarkedMappingNode, key: &str| {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(k, v)| (line_of(k.span()), v.clone()))
    };

    // A nested property (`tags["cost-center"]`, `versioning.mfaDelete`) is edited in place,
    // inside its blocks.
    match edit {
        ProgramEdit::SetProperty { property, value, .. }
            if property_segments(property)?.len() > 1 =>
        {
            let segments = property_segments(property)?;
            match entry(resource, "properties") {
                Some((props_line, Node::Mapping(props))) => {
                    set_nested(text, &props, props_line, &segments, value)
                }
                _ => {
                    fail(format!("`{name}` sets no `{}`; add it to the program first", segments[0]))
                }
            }
        }
        ProgramEdit::RemoveProperty { property, .. } if property_segments(property)?.len() > 1 => {
            let segments = property_segments(property)?;
            let Some((props_line, Node::Mapping(props))) = entry(resource, "properties") else {
                return fail(format!("`{name}` has no properties"));
            };
            remove_nested(text, &props, props_line, &segments)
                .map_err(|e| EditError(format!("`{name}`: {}", e.0)))
        }
        ProgramEdit::SetProperty { property, value, .. } => {
            let line = format!("{}: {}\n", key_text(property), flow(value));
            match entry(resource, "properties") {
                Some((props_line, Node::Mapping(props))) => match entry(&props, property) {
                    Some((at, _)) => {
                        let own = indent(text.lines[at - 1]);
                        Ok(text.splice(at - 1, text.block_end(at), &format!("{}{line}", pad(own))))
                    }
                    None => {
                        let inner = child_indent(text, &props, props_line)?;
                        let end = text.block_end(props_line);
                        Ok(text.splice(end, end, &format!("{}{line}", pad(inner))))
                    }
                },
                Some((props_line, _)) => {
                    // `properties:` with nothing (or not a mapping) under it: write it anew.
                    let end = text.block_end(props_line);
                    Ok(text.splice(
                        props_line - 1,
                        end,
                        &format!("{}properties:\n{}{line}", pad(child), pad(child + 2)),
                    ))
                }
                None => {
                    let end = text.block_end(resource_line);
                    Ok(text.splice(
                        end,
                        end,
                        &format!("{}properties:\n{}{line}", pad(child), pad(child + 2)),
                    ))
                }
            }
        }
        ProgramEdit::RemoveProperty { property, .. } => {
            let Some((_, Node::Mapping(props))) = entry(resource, "properties") else {
                return fail(format!("`{name}` has no properties"));
            };
            let Some((at, _)) = entry(&props, property) else {
                return fail(format!("`{name}` does not set `{property}`"));
            };
            Ok(text.splice(at - 1, text.block_end(at), ""))
        }
        ProgramEdit::SetImport { id, .. } => {
            let line = format!("import: {}\n", flow(&Value::String(id.clone())));
            let Some((options_line, options)) = entry(resource, "options") else {
                let end = text.block_end(resource_line);
                return Ok(text.splice(
                    end,
                    end,
                    &format!("{}options:\n{}{line}", pad(child), pad(child + 2)),
                ));
            };
            let Node::Mapping(options) = options else {
                return fail(format!("`{name}`'s options are not a mapping"));
            };
            match entry(&options, "import") {
                Some((at, _)) => {
                    let own = indent(text.lines[at - 1]);
                    Ok(text.splice(at - 1, text.block_end(at), &format!("{}{line}", pad(own))))
                }
                None => {
                    let inner = child_indent(text, &options, options_line)?;
                    let end = text.block_end(options_line);
                    Ok(text.splice(end, end, &format!("{}{line}", pad(inner))))
                }
            }
        }
        ProgramEdit::RemoveResource { .. } => unreachable!("taken out above"),
        ProgramEdit::IgnoreChanges { property, .. } => {
            let Some((options_line, options)) = entry(resource, "options") else {
                let end = text.block_end(resource_line);
                let block = format!(
                    "{}options:\n{}ignoreChanges: {}\n",
                    pad(child),
                    pad(child + 2),
                    flow(&Value::from(vec![property.clone()]))
                );
                return Ok(text.splice(end, end, &block));
            };
            let Node::Mapping(options) = options else {
                return fail(format!("`{name}`'s options are not a mapping"));
            };
            match entry(&options, "ignoreChanges") {
                Some((at, node)) => {
                    let Some(list) = node.as_sequence() else {
                        return fail(format!("`{name}`'s ignoreChanges is not a list"));
                    };
                    let mut names: Vec<String> = list
                        .iter()
                        .filter_map(|n| n.as_scalar().map(|s| s.as_str().to_string()))
                        .collect();
                    if names.contains(property) {
                        return Ok(Splice::none());
                    }
                    names.push(property.clone());
                    let own = indent(text.lines[at - 1]);
                    Ok(text.splice(
                        at - 1,
                        text.block_end(at),
                        &format!("{}ignoreChanges: {}\n", pad(own), flow(&Value::from(names))),
                    ))
                }
                None => {
                    let inner = child_indent(text, &options, options_line)?;
                    let end = text.block_end(options_line);
                    Ok(text.splice(
                        end,
                        end,
                        &format!(
                            "{}ignoreChanges: {}\n",
                            pad(inner),
                            flow(&Value::from(vec![property.clone()]))
                        ),
                    ))
                }
            }
        }
    }
}

/// A property path's keys (`tags["cost-center"]` → `tags`, `cost-center`); list items are
/// refused (edit them by hand).
fn property_segments(path: &str) -> Result<Vec<String>, EditError> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let end = after
                .find(']')
                .ok_or_else(|| EditError(format!("`{path}` is not a property path")))?;
            let inside = &after[..end];
            match serde_json::from_str::<Value>(inside) {
                Ok(Value::String(key)) => out.push(key),
                _ => return fail(format!("`{path}` names a list item; edit lists by hand")),
            }
            rest = &after[end + 1..];
        } else {
            let rest_trimmed = rest.strip_prefix('.').unwrap_or(rest);
            let end = rest_trimmed.find(['.', '[']).unwrap_or(rest_trimmed.len());
            if end == 0 {
                return fail(format!("`{path}` is not a property path"));
            }
            out.push(rest_trimmed[..end].to_string());
            rest = &rest_trimmed[end..];
        }
    }
    if out.is_empty() {
        return fail("an empty property path");
    }
    Ok(out)
}

fn entry_of(map: &MarkedMappingNode, key: &str) -> Option<(usize, Node)> {
    map.iter().find(|(k, _)| k.as_str() == key).map(|(k, v)| (line_of(k.span()), v.clone()))
}

/// Sets `segments` below `map` (whose key is on `line`), creating the mappings on the way.
fn set_nested(
    text: &Text<'_>,
    map: &MarkedMappingNode,
    line: usize,
    segments: &[String],
    value: &Value,
) -> Result<Splice, EditError> {
    let pad = |n: usize| " ".repeat(n);
    let (head, rest) = segments.split_first().expect("at least one segment");
    match entry_of(map, head) {
        Some((at, _)) if rest.is_empty() => {
            let own = indent(text.lines[at - 1]);
            Ok(text.splice(
                at - 1,
                text.block_end(at),
                &format!("{}{}: {}\n", pad(own), key_text(head), flow(value)),
            ))
        }
        Some((at, Node::Mapping(inner))) => set_nested(text, &inner, at, rest, value),
        Some(_) => fail(format!("`{head}` is not a block mapping in the program; edit it by hand")),
        None => {
            // The missing keys, each a block inside the one before.
            let inner = child_indent(text, map, line)?;
            let mut block = String::new();
            for (depth, key) in segments.iter().enumerate() {
                if depth + 1 == segments.len() {
                    block.push_str(&format!(
                        "{}{}: {}\n",
                        pad(inner + 2 * depth),
                        key_text(key),
                        flow(value)
                    ));
                } else {
                    block.push_str(&format!("{}{}:\n", pad(inner + 2 * depth), key_text(key)));
                }
            }
            let end = text.block_end(line);
            Ok(text.splice(end, end, &block))
        }
    }
}

/// Removes `segments` below `map` (whose key is on `line`); a mapping left empty is written `{}`.
fn remove_nested(
    text: &Text<'_>,
    map: &MarkedMappingNode,
    line: usize,
    segments: &[String],
) -> Result<Splice, EditError> {
    let (head, rest) = segments.split_first().expect("at least one segment");
    let Some((at, node)) = entry_of(map, head) else {
        return fail(format!("the program does not set `{head}`"));
    };
    if !rest.is_empty() {
        return match node {
            Node::Mapping(inner) => remove_nested(text, &inner, at, rest),
            _ => fail(format!("`{head}` is not a block mapping in the program; edit it by hand")),
        };
    }
    if map.len() == 1 {
        // The last key: the mapping stays, empty.
        let own = indent(text.lines[line - 1]);
        let key = text.lines[line - 1].trim().split(':').next().unwrap_or("").to_string();
        return Ok(text.splice(
            line - 1,
            text.block_end(line),
            &format!("{}{key}: {{}}\n", " ".repeat(own)),
        ));
    }
    Ok(text.splice(at - 1, text.block_end(at), ""))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NESTED: &str = "\
name: shop
runtime: yaml
variables:
  team: data
resources:
  bucket:
    type: aws:s3:Bucket
    properties:
      # the team's tags
      tags:
        cost-center: \"42\"
        team: ${team}
      versioning:
        enabled: true
    options:
      import: logs
";

    #[test]
    fn nested_properties_are_set_and_removed_in_their_blocks() {
        let set = |p: &str, v: Value| {
            edit_program(
                NESTED,
                &ProgramEdit::SetProperty {
                    resource: "bucket".into(),
                    property: p.into(),
                    value: v,
                },
            )
            .unwrap()
        };
        let remove = |p: &str| {
            edit_program(
                NESTED,
                &ProgramEdit::RemoveProperty { resource: "bucket".into(), property: p.into() },
            )
        };
        assert_eq!(
            set("tags[\"cost-center\"]", json!("41")),
            NESTED.replace("cost-center: \"42\"", "cost-center: \"41\"")
        );
        assert_eq!(
            set("versioning.mfaDelete", json!(false)),
            NESTED.replace(
                "        enabled: true\n",
                "        enabled: true\n        mfaDelete: false\n"
            )
        );
        assert_eq!(
            set("lifecycle.rule.days", json!(30)),
            NESTED.replace(
                "    options:\n",
                "      lifecycle:\n        rule:\n          days: 30\n    options:\n"
            )
        );
        assert_eq!(
            remove("tags.team").unwrap(),
            NESTED.replace("        team: ${team}\n", ""),
            "the reference beside it is kept as written"
        );
        assert_eq!(
            remove("versioning.enabled").unwrap(),
            NESTED.replace("      versioning:\n        enabled: true\n", "      versioning: {}\n")
        );
        assert!(remove("tags.owner").unwrap_err().0.contains("does not set `owner`"));
        assert!(edit_program(
            NESTED,
            &ProgramEdit::SetProperty {
                resource: "bucket".into(),
                property: "groups[0]".into(),
                value: json!(1)
            }
        )
        .unwrap_err()
        .0
        .contains("list item"));
        for out in [set("tags[\"cost-center\"]", json!("41")), remove("tags.team").unwrap()] {
            crate::program::parse_program("Pulumi.yaml", &out)
                .unwrap_or_else(|e| panic!("{e}\n{out}"));
        }
    }

    const PROGRAM: &str = "\
name: demo
runtime: yaml
resources:
  # the web tier's port
  port:
    type: random:RandomInteger
    properties:
      min: 1   # lowest
      max: 20
      keepers:
        a: b
    options:
      import: \"7,1,10\"
  pet:
    type: random:RandomPet
outputs:
  p: ${port.result}
";

    fn edit(e: ProgramEdit) -> String {
        let out = edit_program(PROGRAM, &e).expect("edits");
        crate::program::parse_program("Pulumi.yaml", &out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        out
    }

    #[test]
    fn setting_a_property_replaces_its_line_only() {
        let out = edit(ProgramEdit::SetProperty {
            resource: "port".into(),
            property: "max".into(),
            value: json!(10),
        });
        assert_eq!(out, PROGRAM.replace("      max: 20\n", "      max: 10\n"));
    }

    #[test]
    fn setting_a_nested_value_replaces_its_block() {
        let out = edit(ProgramEdit::SetProperty {
            resource: "port".into(),
            property: "keepers".into(),
            value: json!({"a": "${x}"}),
        });
        assert_eq!(
            out,
            PROGRAM.replace("      keepers:\n        a: b\n", "      keepers: {\"a\":\"$${x}\"}\n")
        );
    }

    #[test]
    fn setting_a_new_property_adds_it_to_the_block_or_a_new_block() {
        let out = edit(ProgramEdit::SetProperty {
            resource: "port".into(),
            property: "seed".into(),
            value: json!("s"),
        });
        assert_eq!(out, PROGRAM.replace("        a: b\n", "        a: b\n      seed: \"s\"\n"));
        let out = edit(ProgramEdit::SetProperty {
            resource: "pet".into(),
            property: "length".into(),
            value: json!(2),
        });
        assert_eq!(
            out,
            PROGRAM.replace(
                "    type: random:RandomPet\n",
                "    type: random:RandomPet\n    properties:\n      length: 2\n"
            )
        );
    }

    #[test]
    fn removing_a_property_keeps_the_rest() {
        let out =
            edit(ProgramEdit::RemoveProperty { resource: "port".into(), property: "min".into() });
        assert_eq!(out, PROGRAM.replace("      min: 1   # lowest\n", ""));
        assert!(edit_program(
            PROGRAM,
            &ProgramEdit::RemoveProperty { resource: "pet".into(), property: "x".into() }
        )
        .is_err());
    }

    #[test]
    fn ignore_changes_goes_into_the_options() {
        let out =
            edit(ProgramEdit::IgnoreChanges { resource: "port".into(), property: "max".into() });
        assert_eq!(
            out,
            PROGRAM.replace(
                "      import: \"7,1,10\"\n",
                "      import: \"7,1,10\"\n      ignoreChanges: [\"max\"]\n"
            )
        );
        let twice = edit_program(
            &out,
            &ProgramEdit::IgnoreChanges { resource: "port".into(), property: "min".into() },
        )
        .unwrap();
        assert!(twice.contains("      ignoreChanges: [\"max\",\"min\"]\n"), "{twice}");
        assert_eq!(
            edit_program(
                &twice,
                &ProgramEdit::IgnoreChanges { resource: "port".into(), property: "min".into() }
            )
            .unwrap(),
            twice
        );
        let out =
            edit(ProgramEdit::IgnoreChanges { resource: "pet".into(), property: "length".into() });
        assert!(out.contains("    type: random:RandomPet\n    options:\n      ignoreChanges: [\"length\"]\noutputs:"), "{out}");
    }

    #[test]
    fn identification_sets_imports_and_takes_resources_out() {
        let out = edit(ProgramEdit::SetImport { resource: "pet".into(), id: "a,b".into() });
        assert!(
            out.contains(
                "    type: random:RandomPet\n    options:\n      import: \"a,b\"\noutputs:"
            ),
            "{out}"
        );
        let replaced =
            edit(ProgramEdit::SetImport { resource: "port".into(), id: "8,1,10".into() });
        assert_eq!(replaced, PROGRAM.replace("import: \"7,1,10\"", "import: \"8,1,10\""));
        // An ID is text: `${` in it is not an interpolation.
        assert!(edit(ProgramEdit::SetImport { resource: "pet".into(), id: "${x}".into() })
            .contains("import: \"$${x}\""));
        let out = edit(ProgramEdit::RemoveResource { resource: "pet".into() });
        assert!(!out.contains("RandomPet"), "{out}");
        crate::program::parse_program("Pulumi.yaml", &replaced).unwrap();
    }

    /// Edits of different resources made at once give what making them one after another
    /// gives; two edits of one resource's lines are refused, and a failing edit is named by
    /// its index.
    #[test]
    fn edits_made_at_once_equal_edits_made_in_turn() {
        let edits = [
            ProgramEdit::SetImport { resource: "port".into(), id: "8,1,10".into() },
            ProgramEdit::RemoveResource { resource: "pet".into() },
        ];
        let in_turn =
            edits.iter().fold(PROGRAM.to_string(), |text, e| edit_program(&text, e).unwrap());
        let at_once = edit_program_all(PROGRAM, &edits).unwrap();
        assert_eq!(at_once, in_turn);
        assert!(
            at_once.contains("import: \"8,1,10\"") && !at_once.contains("RandomPet"),
            "{at_once}"
        );
        // The other order, and an insertion right where a removed block starts.
        let (a, b) = (
            ProgramEdit::SetImport { resource: "pet".into(), id: "x".into() },
            ProgramEdit::RemoveResource { resource: "port".into() },
        );
        let at_once = edit_program_all(PROGRAM, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(at_once, edit_program(&edit_program(PROGRAM, &a).unwrap(), &b).unwrap());
        let twice = [
            ProgramEdit::RemoveResource { resource: "pet".into() },
            ProgramEdit::SetImport { resource: "pet".into(), id: "x".into() },
        ];
        assert_eq!(
            edit_program_all(PROGRAM, &twice).unwrap_err(),
            (1, EditError("`pet` is edited twice; edit it once".into()))
        );
        let (at, e) = edit_program_all(
            PROGRAM,
            &[edits[0].clone(), ProgramEdit::RemoveResource { resource: "nope".into() }],
        )
        .unwrap_err();
        assert_eq!((at, e.0.as_str()), (1, "the program has no resource `nope`"));
    }

    #[test]
    fn unknown_resources_are_named() {
        let e = edit_program(
            PROGRAM,
            &ProgramEdit::RemoveProperty { resource: "nope".into(), property: "x".into() },
        )
        .unwrap_err();
        assert_eq!(e.0, "the program has no resource `nope`");
    }
}
