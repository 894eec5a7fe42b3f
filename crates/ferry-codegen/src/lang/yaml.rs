//! Pulumi YAML. Components cannot be declared in YAML: a resource whose parent is one keeps its
//! identity through an alias to its URN.

use std::fmt::Write as _;

use super::{number, quoted};
use crate::ir::{AssetKind, Kind, Piece, Program, Value};
use crate::names::NameTable;
use crate::schema::Type;

fn plain_key(k: &str) -> bool {
    let special = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"];
    k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !special.contains(&k.to_ascii_lowercase().as_str())
}

/// Whether a map with these keys is what Pulumi YAML reads as a function call: one key, starting
/// with `fn::` (in any case). Pulumi YAML has no escape for such a key, so the map cannot be
/// written as data: a state's map `{"fn::readFile": "/etc/passwd"}` would otherwise become a
/// call in the program Ferry hands out.
pub(crate) fn calls_a_function<'a>(mut keys: impl Iterator<Item = &'a str>) -> bool {
    match (keys.next(), keys.next()) {
        (Some(only), None) => only.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("fn::")),
        _ => false,
    }
}

fn key(k: &str) -> String {
    if plain_key(k) {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// A string scalar; `${` is escaped so Pulumi YAML does not read it as a reference.
fn string(s: &str) -> String {
    quoted(&s.replace("${", "$${"))
}

struct Printer {
    keys: Vec<String>,
    config_keys: Vec<String>,
}

impl Printer {
    /// Writes `v` after `prefix` (`name:` or `-`), at `indent` spaces.
    fn entry(&self, prefix: &str, v: &Value, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        let keys: Option<Vec<&str>> = match v {
            Value::Map(entries, _) => Some(entries.iter().map(|(k, _)| k.as_str()).collect()),
            Value::Object(_, fields) => {
                Some(fields.iter().map(|f| f.name.schema.as_str()).collect())
            }
            Value::Json(serde_json::Value::Object(m)) => {
                Some(m.keys().map(String::as_str).collect())
            }
            _ => None,
        };
        if keys.is_some_and(|keys| calls_a_function(keys.into_iter())) {
            let _ = writeln!(out, "{pad}{prefix} {{}} # left out: its only key starts with `fn::`, which Pulumi YAML would call");
            return;
        }
        match v {
            Value::List(items, _) if !items.is_empty() => {
                let _ = writeln!(out, "{pad}{prefix}");
                for x in items {
                    self.entry("-", x, indent + 2, out);
                }
            }
            Value::Map(entries, _) if !entries.is_empty() => {
                let _ = writeln!(out, "{pad}{prefix}");
                for (k, x) in entries {
                    self.entry(&format!("{}:", key(k)), x, indent + 2, out);
                }
            }
            Value::Object(_, fields) if !fields.is_empty() => {
                let _ = writeln!(out, "{pad}{prefix}");
                for f in fields {
                    self.entry(&format!("{}:", key(&f.name.schema)), &f.value, indent + 2, out);
                }
            }
            Value::Json(serde_json::Value::Array(items)) if !items.is_empty() => {
                let _ = writeln!(out, "{pad}{prefix}");
                for x in items {
                    self.entry("-", &Value::Json(x.clone()), indent + 2, out);
                }
            }
            Value::Json(serde_json::Value::Object(m)) if !m.is_empty() => {
                let _ = writeln!(out, "{pad}{prefix}");
                for (k, x) in m {
                    self.entry(&format!("{}:", key(k)), &Value::Json(x.clone()), indent + 2, out);
                }
            }
            Value::Asset(kind, s) => {
                let f = match kind {
                    AssetKind::Text => "fn::stringAsset",
                    AssetKind::File => "fn::fileAsset",
                    AssetKind::Remote => "fn::remoteAsset",
                };
                let _ = writeln!(out, "{pad}{prefix}\n{pad}  {f}: {}", string(s));
            }
            Value::Archive(kind, s) => {
                let f = match kind {
                    AssetKind::Text => "fn::assetArchive",
                    AssetKind::File => "fn::fileArchive",
                    AssetKind::Remote => "fn::remoteArchive",
                };
                let arg = if *kind == AssetKind::Text { "{}".to_string() } else { string(s) };
                let _ = writeln!(out, "{pad}{prefix}\n{pad}  {f}: {arg}");
            }
            scalar => {
                let _ = writeln!(out, "{pad}{prefix} {}", self.scalar(scalar));
            }
        }
    }

    fn scalar(&self, v: &Value) -> String {
        match v {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Number(n) => number(*n),
            Value::String(s) => string(s),
            Value::Enum(_, _, value) => match value {
                serde_json::Value::String(s) => string(s),
                other => other.to_string(),
            },
            Value::List(..) | Value::Json(serde_json::Value::Array(_)) => "[]".into(),
            Value::Map(..) | Value::Object(..) | Value::Json(serde_json::Value::Object(_)) => {
                "{}".into()
            }
            Value::Json(serde_json::Value::String(s)) => string(s),
            Value::Json(j) => j.to_string(),
            Value::Secret { config, .. } | Value::Config { config } => {
                quoted(&format!("${{{}}}", self.config_keys[*config]))
            }
            Value::Ref { resource, property } => {
                quoted(&format!("${{{}.{}}}", self.keys[*resource], property))
            }
            // One string of `${…}` pieces; the text's own `${` escaped as `$${`.
            Value::Interpolate(pieces) => {
                let mut text = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => text.push_str(&t.replace("${", "$${")),
                        Piece::Value(Value::Ref { resource, property }) => {
                            let _ = write!(text, "${{{}.{}}}", self.keys[*resource], property);
                        }
                        Piece::Value(Value::Config { config }) => {
                            let _ = write!(text, "${{{}}}", self.config_keys[*config]);
                        }
                        Piece::Value(other) => text.push_str(&self.scalar(other)),
                    }
                }
                quoted(&text)
            }
            Value::Asset(..) | Value::Archive(..) => unreachable!("written as functions"),
            Value::PerKey(_) => unreachable!("YAML lists a loop's instances"),
        }
    }
}

fn config_type(t: &Type) -> &'static str {
    match t {
        Type::Int => "integer",
        Type::Number => "number",
        Type::Bool => "boolean",
        Type::List(_) => "List<String>",
        _ => "string",
    }
}

pub fn emit(program: &Program) -> String {
    // Resource keys are the logical names; a name used twice gets a numbered key and `name:`.
    let mut table = NameTable::new(&[], program.config.iter().map(|c| c.key.clone()));
    // A key is also what `${key.property}` references name: one Pulumi YAML cannot read as a
    // reference's root (or that would read as another reference) is made from the name's
    // words, and `name:` keeps the logical name.
    let keys: Vec<String> = program
        .resources
        .iter()
        .map(|r| {
            let referenceable = !r.name.is_empty()
                && r.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
            let base =
                if referenceable { r.name.clone() } else { crate::names::words(&r.name).join("-") };
            table.claim(if base.is_empty() { "resource" } else { &base }, "-resource")
        })
        .collect();
    let p = Printer { keys, config_keys: program.config.iter().map(|c| c.key.clone()).collect() };
    let mut out = super::header(program, "#");
    let _ = writeln!(out, "name: {}\nruntime: yaml", key(&program.project));
    if !program.config.is_empty() {
        out.push_str("config:\n");
        for c in &program.config {
            let _ = writeln!(out, "  {}:\n    type: {}", key(&c.key), config_type(&c.ty));
            match &c.default {
                None => out.push_str("    secret: true\n"),
                Some(default) => p.entry("default:", default, 4, &mut out),
            }
        }
    }
    out.push_str("resources:\n");
    for (i, r) in program.resources.iter().enumerate() {
        let Kind::Custom { ty, provider } = &r.kind else { continue };
        if let Some(note) = &r.note {
            let _ = writeln!(out, "  # {note}");
        }
        let _ = writeln!(out, "  {}:", key(&p.keys[i]));
        if p.keys[i] != r.name {
            let _ = writeln!(out, "    name: {}", string(&r.name));
        }
        let token =
            if *provider { format!("pulumi:providers:{}", ty.package) } else { ty.token.clone() };
        let _ = writeln!(out, "    type: {token}");
        if !r.args.is_empty() {
            out.push_str("    properties:\n");
            for f in &r.args {
                p.entry(&format!("{}:", key(&f.name.schema)), &f.value, 6, &mut out);
            }
        }
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("protect: true".into());
        }
        match o.parent.map(|i| (i, &program.resources[i].kind)) {
            Some((i, Kind::Custom { .. })) => {
                opts.push(format!("parent: {}", quoted(&format!("${{{}}}", p.keys[i]))))
            }
            Some((i, Kind::Component { token })) => {
                opts.push(format!(
                    "# parent `{}` is a `{token}` component, which Pulumi YAML cannot declare; the alias keeps this resource's URN",
                    program.resources[i].name
                ));
                if let Some(urn) = &o.alias_urn {
                    opts.push(format!("aliases:\n        - {}", quoted(urn)));
                }
            }
            None => {}
        }
        if let Some(provider) = o.provider {
            opts.push(format!("provider: {}", quoted(&format!("${{{}}}", p.keys[provider]))));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!(
                "ignoreChanges: [{}]",
                o.ignore_changes.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")
            ));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!(
                "dependsOn: [{}]",
                o.depends_on
                    .iter()
                    .map(|d| quoted(&format!("${{{}}}", p.keys[*d])))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(id) = &o.import_id {
            opts.push(format!("import: {}", string(id)));
        }
        if !opts.is_empty() {
            out.push_str("    options:\n");
            for o in opts {
                let _ = writeln!(out, "      {o}");
            }
        }
    }
    out
}
