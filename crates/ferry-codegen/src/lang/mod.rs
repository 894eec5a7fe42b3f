//! The printers, one per language, from the intermediate form; and what they share: string
//! literals, variable names, which resources are used by others.

mod csharp;
mod go;
mod python;
mod typescript;
pub(crate) mod yaml;

use std::collections::BTreeSet;

use crate::ir::{Program, Value};
use crate::names::NameTable;

pub use ferry_types::previews::Language;

/// The program in `language`.
pub fn emit(program: &Program, language: Language) -> String {
    match language {
        Language::TypeScript => typescript::emit(program),
        Language::Python => python::emit(program),
        Language::Go => go::emit(program),
        Language::CSharp => csharp::emit(program),
        Language::Yaml => yaml::emit(program),
    }
}

/// A double-quoted string literal; JSON's escapes are valid in every target language. JSON
/// leaves U+2028 and U+2029 as they are, and C# ends a line (and so a string) at them: they are
/// escaped too.
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s)
        .expect("a string serialises")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The body of a string literal (`quoted` without its quotes), for templates that hold text
/// between values.
pub(crate) fn literal_body(s: &str) -> String {
    let q = quoted(s);
    q[1..q.len() - 1].to_string()
}

/// A number as a literal: integral values without a fraction.
pub(crate) fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}.0", n as i64)
    } else {
        format!("{n}")
    }
}

/// Resources another resource uses (parent, provider, dependsOn, reference).
pub(crate) fn used(program: &Program) -> BTreeSet<usize> {
    program.resources.iter().flat_map(|r| r.uses()).collect()
}

/// A scalar literal of a loop's per-key values, in a language's spelling of true, false and
/// nothing (JSON's escapes and numbers are every target language's).
pub(crate) fn scalar_literal(v: &Value, [yes, no, nothing]: [&str; 3]) -> String {
    match v {
        Value::Bool(b) => if *b { yes } else { no }.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Number(n) => number(*n),
        Value::String(s) => quoted(s),
        _ => nothing.to_string(),
    }
}

/// The variables a program declares: one per config secret and per resource, and per loop
/// its own and its per-key values' (`loops[n]`, for `program.loops[n]`). A loop's instance is
/// reached through the loop's variable: its `resources[i]` is `loopVar["key"]`.
pub(crate) struct Variables {
    pub config: Vec<String>,
    pub resources: Vec<String>,
    pub loops: Vec<(String, String)>,
    /// The loops' key and value variables (reserved in the file when there are loops).
    pub key: String,
    pub value: String,
    /// Per resource: the loop declared at it, if one is, and whether a loop declares it.
    pub roles: Vec<(Option<usize>, bool)>,
}

/// Claims every variable of `program` in `table`, styled by `style`.
pub(crate) fn variables(
    program: &Program,
    table: &mut NameTable,
    style: fn(&str) -> String,
    suffix: &str,
) -> Variables {
    let config = program.config.iter().map(|c| table.claim(&style(&c.key), suffix)).collect();
    let (key, value) = match program.loops.is_empty() {
        true => (String::new(), String::new()),
        false => (table.claim("key", suffix), table.claim("value", suffix)),
    };
    let mut in_loop = vec![None; program.resources.len()];
    let mut roles = vec![(None, false); program.resources.len()];
    for (n, l) in program.loops.iter().enumerate() {
        for (&m, key) in l.members.iter().zip(&l.keys) {
            in_loop[m] = Some((n, key));
            roles[m].1 = true;
        }
        roles[l.at()].0 = Some(n);
    }
    let mut resources: Vec<String> = program
        .resources
        .iter()
        .zip(&in_loop)
        .map(
            |(r, l)| if l.is_none() { table.claim(&style(&r.name), suffix) } else { String::new() },
        )
        .collect();
    let loops: Vec<(String, String)> = program
        .loops
        .iter()
        .map(|l| {
            let var = table.claim(&style(&l.name), suffix);
            let values = table.claim(&style(&format!("{} values", l.name)), suffix);
            (var, values)
        })
        .collect();
    for (i, l) in in_loop.iter().enumerate() {
        if let Some((n, key)) = l {
            resources[i] = format!("{}[{}]", loops[*n].0, key_literal(&program.loops[*n], key));
        }
    }
    Variables { config, resources, loops, key, value, roles }
}

/// `text` with every line indented by `pad`.
pub(crate) fn indented(text: &str, pad: &str) -> String {
    text.lines()
        .map(|l| if l.is_empty() { "\n".to_string() } else { format!("{pad}{l}\n") })
        .collect()
}

/// A loop's slot as an expression of the key and value variables: text made from the key
/// (`"logs-" + key`), or `per_key(slot name)` for the values the map holds.
/// `key_text` is the key as text, for a loop over numbers (`String(key)`).
pub(crate) fn slot_expressions(
    l: &crate::ir::Loop,
    key: &str,
    key_text: &str,
    per_key: &dyn Fn(usize, &crate::ir::Slot) -> String,
) -> Vec<String> {
    let key = if l.numeric { key_text } else { key };
    l.slots
        .iter()
        .enumerate()
        .map(|(i, s)| match &s.values {
            crate::ir::SlotValues::FromKey { prefix, suffix } => {
                let parts: Vec<String> = [
                    (!prefix.is_empty()).then(|| quoted(prefix)),
                    Some(key.to_string()),
                    (!suffix.is_empty()).then(|| quoted(suffix)),
                ]
                .into_iter()
                .flatten()
                .collect();
                parts.join(" + ")
            }
            crate::ir::SlotValues::PerKey(_) => per_key(i, s),
        })
        .collect()
}

/// A loop's key as a literal: a number for `count`'s, else quoted text.
pub(crate) fn key_literal(l: &crate::ir::Loop, key: &str) -> String {
    if l.numeric {
        key.to_string()
    } else {
        quoted(key)
    }
}

/// Go's and C#'s type of a loop's keys.
pub(crate) fn key_type(l: &crate::ir::Loop) -> &'static str {
    if l.numeric {
        "int"
    } else {
        "string"
    }
}

/// A loop's keys, each as a literal, comma-separated.
pub(crate) fn key_literals(l: &crate::ir::Loop) -> String {
    l.keys.iter().map(|k| key_literal(l, k)).collect::<Vec<_>>().join(", ")
}

/// A comment block of the report's notes, each line prefixed.
pub(crate) fn header(program: &Program, prefix: &str) -> String {
    let mut out = format!(
        "{prefix} Generated by Ferry for the `{}` project: review it before use.\n",
        program.project
    );
    if !program.report.config_commands.is_empty() {
        out.push_str(&format!("{prefix} Secrets are read from stack config; set them first:\n"));
        for c in &program.report.config_commands {
            out.push_str(&format!("{prefix}   {c}\n"));
        }
    }
    out
}
