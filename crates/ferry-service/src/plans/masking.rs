//! Secrets typed into a plan's text, masked for everyone who may not edit the plan (viewers,
//! read-only links): an import ID a preview found to be the secret itself (a password imported
//! by its value), or one no preview has vouched for yet; values under `fn::secret`; defaults of
//! secret config. The text keeps its shape, with `[secret]` where a value was.

use std::collections::{HashMap, HashSet};

use ferry_engine::program::expr::{Builtin, Expr, ExprKind, Pos};
use jsonc_parser::ast::{ObjectPropName, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::{Plans, ServiceError};
use ferry_types::plans::RevisionView;

pub const MASK: &str = "[secret]";

/// What the revision's latest preview said of each import ID: by spec entry, and by resource
/// name for a program's `import` options; `true` when the ID is a secret.
#[derive(Default)]
struct Verdicts {
    by_entry: HashMap<usize, bool>,
    by_name: HashMap<String, bool>,
}

impl Plans {
    /// Masks the revision's text for someone who may not edit it.
    pub(crate) async fn mask_revision(
        &self,
        revision: &mut RevisionView,
    ) -> Result<(), ServiceError> {
        let mut verdicts = Verdicts::default();
        if let Some(latest) = revision.previews.last() {
            if let Ok(stored) = self.store.stacks().preview(latest).await {
                let record = crate::previews::parse_stored(&stored.preview_json)?;
                for step in &record.plan.steps {
                    let Some(id) = &step.import_id else { continue };
                    let secret = id == MASK;
                    if let Some(i) = step.spec_index {
                        verdicts.by_entry.insert(i, secret);
                    }
                    verdicts
                        .by_name
                        .insert(ferry_state::urn::name_of(&step.urn).to_string(), secret);
                }
            }
        }
        if let Some(spec) = &mut revision.spec {
            *spec = mask_spec(spec, &verdicts);
        }
        if let Some(program) = &mut revision.program {
            *program = mask_program(program, &verdicts);
        }
        Ok(())
    }
}

/// The spec with each entry's `id` masked unless a preview found it and did not call it secret.
fn mask_spec(text: &str, verdicts: &Verdicts) -> String {
    let options =
        ParseOptions { allow_comments: true, allow_trailing_commas: true, ..Default::default() };
    let Ok(parsed) = jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options) else {
        // Text that does not parse cannot be checked: none of it is shown.
        return MASK.to_string();
    };
    let mut ranges = Vec::new();
    if let Some(Ast::Object(root)) = &parsed.value {
        for prop in &root.properties {
            if prop_name(&prop.name) != "resources" {
                continue;
            }
            let Ast::Array(entries) = &prop.value else { continue };
            for (i, entry) in entries.elements.iter().enumerate() {
                let Ast::Object(entry) = entry else { continue };
                for field in &entry.properties {
                    if prop_name(&field.name) == "id" && verdicts.by_entry.get(&i) != Some(&false) {
                        let range = field.value.range();
                        ranges.push((range.start, range.end, format!("\"{MASK}\"")));
                    }
                }
            }
        }
    }
    splice(text, ranges)
}

fn prop_name(name: &ObjectPropName) -> String {
    match name {
        ObjectPropName::String(s) => s.value.to_string(),
        ObjectPropName::Word(w) => w.value.to_string(),
    }
}

/// The program with `fn::secret` values, secret config defaults, and import IDs no preview
/// vouched for masked.
fn mask_program(text: &str, verdicts: &Verdicts) -> String {
    let Ok(program) = ferry_engine::program::parse_program("Pulumi.yaml", text) else {
        return MASK.to_string();
    };
    let mut at: HashSet<Pos> = HashSet::new();
    for config in &program.config {
        if let (true, Some(default)) = (config.secret, &config.default) {
            scalars(default, &mut at);
        }
    }
    for variable in &program.variables {
        secrets_in(&variable.value, &mut at);
    }
    for resource in &program.resources {
        for (_, _, value) in &resource.properties {
            secrets_in(value, &mut at);
        }
        if let Some(import) = &resource.options.import {
            let name = resource.logical_name.as_deref().unwrap_or(&resource.name);
            if verdicts.by_name.get(name) != Some(&false) {
                scalars(import, &mut at);
            }
        }
    }
    for (_, _, value) in &program.outputs {
        secrets_in(value, &mut at);
    }
    let lines: Vec<usize> =
        std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut ranges = Vec::new();
    for pos in at {
        let Some(&line_start) = lines.get(pos.line.saturating_sub(1)) else { continue };
        let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
        let line = &text[line_start..line_end];
        let Some((start, _)) = line.char_indices().nth(pos.column.saturating_sub(1)) else {
            continue;
        };
        let rest = &line[start..];
        // The scalar: quoted up to its closing quote, or plain up to a comment or the line's end.
        let len = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].find(q).map_or(rest.len(), |i| i + 2),
            _ => rest.find(" #").unwrap_or(rest.len()),
        };
        // Quoted: a bare `[secret]` would be a YAML list.
        ranges.push((line_start + start, line_start + start + len, format!("\"{MASK}\"")));
    }
    splice(text, ranges)
}

/// The positions of the scalars under every `fn::secret` inside `expr`.
fn secrets_in(expr: &Expr, at: &mut HashSet<Pos>) {
    match &expr.kind {
        ExprKind::Call(Builtin::Secret, inner) => scalars(inner, at),
        ExprKind::Call(_, inner) => secrets_in(inner, at),
        ExprKind::List(items) => items.iter().for_each(|e| secrets_in(e, at)),
        ExprKind::Object(fields) => fields.iter().for_each(|(_, e)| secrets_in(e, at)),
        _ => {}
    }
}

/// The positions of every literal scalar inside `expr`.
fn scalars(expr: &Expr, at: &mut HashSet<Pos>) {
    match &expr.kind {
        ExprKind::String(_)
        | ExprKind::Number(_)
        | ExprKind::Bool(_)
        | ExprKind::Interpolate(_) => {
            at.insert(expr.pos);
        }
        ExprKind::Call(_, inner) => scalars(inner, at),
        ExprKind::List(items) => items.iter().for_each(|e| scalars(e, at)),
        ExprKind::Object(fields) => fields.iter().for_each(|(_, e)| scalars(e, at)),
        ExprKind::Null | ExprKind::Ref(_) => {}
    }
}

/// `text` with each byte range replaced (ranges do not overlap).
fn splice(text: &str, mut ranges: Vec<(usize, usize, String)>) -> String {
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut out = text.to_string();
    for (start, end, with) in ranges {
        out.replace_range(start..end, &with);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_ids_are_masked_unless_a_preview_vouched_for_them() {
        let spec = "{\n  // two\n  \"resources\": [\n    {\"type\": \"random:index/randomPassword:RandomPassword\", \"name\": \"pw\", \"id\": \"hunter2-hunter2\"},\n    {\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"pet\", \"id\": \"calm-cat\"}\n  ]\n}";
        let mut verdicts = Verdicts::default();
        verdicts.by_entry.insert(0, true);
        verdicts.by_entry.insert(1, false);
        let masked = mask_spec(spec, &verdicts);
        assert!(
            !masked.contains("hunter2")
                && masked.contains("\"id\": \"[secret]\"")
                && masked.contains("calm-cat"),
            "{masked}"
        );
        assert!(masked.contains("// two"), "the rest stays as written");
        let unvouched = mask_spec(spec, &Verdicts::default());
        assert!(!unvouched.contains("hunter2") && !unvouched.contains("calm-cat"), "{unvouched}");
        assert_eq!(mask_spec("{ not json", &Verdicts::default()), MASK);
    }

    #[test]
    fn program_secrets_are_masked_where_they_are_written() {
        let program = "name: p\nruntime: yaml\nconfig:\n  dbPassword:\n    type: string\n    secret: true\n    default: s3cret-default\nresources:\n  pw:\n    type: random:RandomPassword\n    properties:\n      length: 16\n      overrideSpecial: { fn::secret: \"top-secret\" }\n    options:\n      import: hunter2-hunter2 # the value\n  pet:\n    type: random:RandomPet\n    options:\n      import: calm-cat\n";
        let mut verdicts = Verdicts::default();
        verdicts.by_name.insert("pet".into(), false);
        let masked = mask_program(program, &verdicts);
        for secret in ["s3cret-default", "top-secret", "hunter2"] {
            assert!(!masked.contains(secret), "{secret}: {masked}");
        }
        assert!(
            masked.contains("import: calm-cat")
                && masked.contains("length: 16")
                && masked.contains("# the value"),
            "{masked}"
        );
        ferry_engine::program::parse_program("Pulumi.yaml", &masked)
            .expect("the masked program still parses");
    }
}
