//! Python against `pulumi` and the packages' PyPI SDKs (`pulumi_<package>`).

use std::fmt::Write as _;

use super::{
    header, indented, key_literal, key_literals, number, quoted, scalar_literal, slot_expressions,
    variables,
};
use crate::ir::{AssetKind, Kind, Loop, Piece, Program, Resource, Value};
use crate::names::{python_property, python_snake, snake, NameTable, PYTHON_RESERVED};
use crate::schema::{Type, TypeRef};

fn alias(package: &str) -> String {
    snake(package)
}

fn module_path(t: &TypeRef) -> String {
    if t.is_index() {
        alias(&t.package)
    } else {
        format!("{}.{}", alias(&t.package), snake(&t.module))
    }
}

/// `stdoutAndStderr` → `STDOUT_AND_STDERR`.
fn enum_member(name: &str) -> String {
    let n = python_property(name).as_str().to_ascii_uppercase();
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{n}")
    } else {
        n
    }
}

#[derive(Clone)]
struct Printer {
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
    /// In a loop's resource: each slot's expression.
    slots: Vec<String>,
}

impl Printer {
    fn value(&self, v: &Value, indent: usize, out: &mut String) {
        let pad = "    ".repeat(indent + 1);
        let end = "    ".repeat(indent);
        match v {
            Value::Null => out.push_str("None"),
            Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Number(n) => out.push_str(&number(*n)),
            Value::String(s) => out.push_str(&quoted(s)),
            Value::Enum(t, member, _) => {
                let _ = write!(out, "{}.{}.{}", module_path(t), t.name, enum_member(member));
            }
            Value::List(items, _) if items.is_empty() => out.push_str("[]"),
            Value::List(items, _) => {
                out.push_str("[\n");
                for x in items {
                    out.push_str(&pad);
                    self.value(x, indent + 1, out);
                    out.push_str(",\n");
                }
                out.push_str(&end);
                out.push(']');
            }
            Value::Map(entries, _) if entries.is_empty() => out.push_str("{}"),
            Value::Map(entries, _) => {
                out.push_str("{\n");
                for (k, x) in entries {
                    let _ = write!(out, "{pad}{}: ", quoted(k));
                    self.value(x, indent + 1, out);
                    out.push_str(",\n");
                }
                out.push_str(&end);
                out.push('}');
            }
            Value::Object(t, fields) => {
                let _ = write!(out, "{}.{}Args(", module_path(t), t.name);
                if !fields.is_empty() {
                    out.push('\n');
                    for f in fields {
                        let _ = write!(out, "{pad}{}=", f.name.python);
                        self.value(&f.value, indent + 1, out);
                        out.push_str(",\n");
                    }
                    out.push_str(&end);
                }
                out.push(')');
            }
            Value::Secret { config, .. } | Value::Config { config } => {
                out.push_str(&self.config_vars[*config])
            }
            Value::Ref { resource, property } => {
                let _ =
                    write!(out, "{}.{}", self.resource_vars[*resource], python_property(property));
            }
            Value::Asset(kind, s) => {
                let class = match kind {
                    AssetKind::Text => "StringAsset",
                    AssetKind::File => "FileAsset",
                    AssetKind::Remote => "RemoteAsset",
                };
                let _ = write!(out, "pulumi.{class}({})", quoted(s));
            }
            Value::Archive(kind, s) => match kind {
                AssetKind::Text => out.push_str("pulumi.AssetArchive({})"),
                AssetKind::File => {
                    let _ = write!(out, "pulumi.FileArchive({})", quoted(s));
                }
                AssetKind::Remote => {
                    let _ = write!(out, "pulumi.RemoteArchive({})", quoted(s));
                }
            },
            Value::Json(j) => json(j, out),
            Value::PerKey(slot) => out.push_str(&self.slots[*slot]),
            // `Output.format` takes any value (an output of a number too), in `str.format`'s
            // syntax: the text's braces doubled.
            Value::Interpolate(pieces) => {
                let mut format = String::new();
                let mut args = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => format.push_str(&t.replace('{', "{{").replace('}', "}}")),
                        Piece::Value(v) => {
                            let _ = write!(format, "{{{}}}", args.len());
                            let mut arg = String::new();
                            self.value(v, indent, &mut arg);
                            args.push(arg);
                        }
                    }
                }
                let _ = write!(out, "pulumi.Output.format({}", quoted(&format));
                for arg in args {
                    let _ = write!(out, ", {arg}");
                }
                out.push(')');
            }
        }
    }

    /// `r`'s declaration: `target` (`x = `) and its constructor call, named by `name` (an
    /// expression) and imported by `import` when the code imports.
    fn declare(&self, r: &Resource, target: &str, name: &str, import: Option<String>) -> String {
        let mut out = String::new();
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("protect=True".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("parent={}", self.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("provider={}", self.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!(
                "ignore_changes=[{}]",
                o.ignore_changes
                    .iter()
                    .map(|s| quoted(&python_snake(s)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!(
                "depends_on=[{}]",
                o.depends_on
                    .iter()
                    .map(|d| self.resource_vars[*d].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(id) = import {
            opts.push(format!("import_={id}"));
        }
        let opts_text =
            (!opts.is_empty()).then(|| format!("pulumi.ResourceOptions({})", opts.join(", ")));
        match &r.kind {
            Kind::Component { token } => {
                let _ = writeln!(
                    out,
                    "{target}pulumi.ComponentResource({}, {name}, None, {})",
                    quoted(token),
                    opts_text.unwrap_or_else(|| "None".into())
                );
            }
            Kind::Custom { ty, provider } => {
                let _ = write!(out, "{target}{}({name}", class(ty, *provider));
                for f in &r.args {
                    let _ = write!(out, ",\n    {}=", f.name.python);
                    self.value(&f.value, 1, &mut out);
                }
                if let Some(opts) = opts_text {
                    let _ = write!(out, ",\n    opts={opts}");
                }
                out.push_str(")\n");
            }
        }
        out
    }

    /// A loop: the per-key values, the dict of resources by key, and the `for` that fills it;
    /// `slot_vars` name the per-key values in the loop.
    fn declare_loop(
        &self,
        l: &Loop,
        var: &str,
        values_var: &str,
        key_var: &str,
        slot_vars: &[String],
    ) -> String {
        let mut out = format!("# {}\n", l.note);
        let mapped: Vec<_> = l.mapped_slots().collect();
        let header = if mapped.is_empty() {
            format!("for {key_var} in [{}]:\n", key_literals(l))
        } else {
            let _ = writeln!(out, "{values_var} = {{");
            for (k, key_text) in l.keys.iter().enumerate() {
                let values: Vec<String> =
                    mapped.iter().map(|(_, _, values)| literal(&values[k])).collect();
                let tuple = if values.len() == 1 {
                    values[0].clone()
                } else {
                    format!("({})", values.join(", "))
                };
                let _ = writeln!(out, "    {}: {tuple},", key_literal(l, key_text));
            }
            out.push_str("}\n");
            let names: Vec<&str> = mapped.iter().map(|(i, _, _)| slot_vars[*i].as_str()).collect();
            let unpack = if names.len() == 1 {
                names[0].to_string()
            } else {
                format!("({})", names.join(", "))
            };
            format!("for {key_var}, {unpack} in {values_var}.items():\n")
        };
        let Kind::Custom { ty, provider } = &l.template.kind else {
            unreachable!("loops are of custom resources")
        };
        let key_type = if l.numeric { "int" } else { "str" };
        let _ = writeln!(out, "{var}: dict[{key_type}, {}] = {{}}", class(ty, *provider));
        out.push_str(&header);
        let slots =
            slot_expressions(l, key_var, &format!("str({key_var})"), &|i, _| slot_vars[i].clone());
        let inner = Printer { slots, ..self.clone() };
        let body = inner.declare(
            &l.template,
            &format!("{var}[{key_var}] = "),
            &inner.slots[l.name_slot],
            l.import_slot.map(|s| inner.slots[s].clone()),
        );
        out.push_str(&indented(&body, "    "));
        out
    }
}

fn class(ty: &TypeRef, provider: bool) -> String {
    if provider {
        format!("{}.Provider", alias(&ty.package))
    } else {
        format!("{}.{}", module_path(ty), ty.name)
    }
}

/// A scalar literal of a loop's per-key values.
fn literal(v: &Value) -> String {
    scalar_literal(v, ["True", "False", "None"])
}

fn json(j: &serde_json::Value, out: &mut String) {
    use serde_json::Value as J;
    match j {
        J::Null => out.push_str("None"),
        J::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        J::Number(n) => out.push_str(&n.to_string()),
        J::String(s) => out.push_str(&quoted(s)),
        J::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json(x, out);
            }
            out.push(']');
        }
        J::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}: ", quoted(k));
                json(x, out);
            }
            out.push('}');
        }
    }
}

fn secret_getter(ty: &Type) -> &'static str {
    match ty {
        Type::String | Type::Enum(..) => "require_secret",
        Type::Int => "require_secret_int",
        Type::Number => "require_secret_float",
        Type::Bool => "require_secret_bool",
        _ => "require_secret_object",
    }
}

/// The getter of a variable's setting, which is `None` when the stack sets none.
fn getter(ty: &Type) -> &'static str {
    match ty {
        Type::Int => "get_int",
        Type::Number => "get_float",
        Type::Bool => "get_bool",
        Type::List(_) => "get_object",
        _ => "get",
    }
}

pub fn emit(program: &Program) -> String {
    let aliases: Vec<String> = program.packages.keys().map(|p| alias(p)).collect();
    let mut table = NameTable::new(PYTHON_RESERVED, aliases.iter().cloned());
    let vars = variables(program, &mut table, snake, "_");
    // The per-key values are names in the loop (and, Python's loops having no scope, in the file).
    let slot_vars: Vec<Vec<String>> = program
        .loops
        .iter()
        .map(|l| l.slots.iter().map(|s| table.claim(&snake(&s.name), "_")).collect())
        .collect();
    let p = Printer { config_vars: vars.config, resource_vars: vars.resources, slots: Vec::new() };
    let mut out = String::from("\"\"\"Resources imported by Ferry.\"\"\"\n");
    out.push_str(&header(program, "#"));
    out.push_str("import pulumi\n");
    for (name, package) in &program.packages {
        let _ = writeln!(out, "import {} as {}", package.python_module, alias(name));
    }
    out.push('\n');
    if !program.config.is_empty() {
        out.push_str("config = pulumi.Config()\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            match &c.default {
                None => {
                    let _ = writeln!(
                        out,
                        "{var} = config.{}({})",
                        secret_getter(&c.ty),
                        quoted(&c.key)
                    );
                }
                // `None` when the stack sets none; `or` would also replace a set `0` or `""`.
                Some(default) => {
                    let _ = writeln!(
                        out,
                        "{var} = config.{}({})\nif {var} is None:",
                        getter(&c.ty),
                        quoted(&c.key)
                    );
                    let _ = write!(out, "    {var} = ");
                    p.value(default, 1, &mut out);
                    out.push('\n');
                }
            }
        }
        out.push('\n');
    }
    for (i, r) in program.resources.iter().enumerate() {
        match vars.roles[i] {
            (Some(n), _) => {
                let (var, values) = &vars.loops[n];
                out.push_str(&p.declare_loop(
                    &program.loops[n],
                    var,
                    values,
                    &vars.key,
                    &slot_vars[n],
                ));
            }
            (None, true) => {}
            (None, false) => {
                if let Some(note) = &r.note {
                    let _ = writeln!(out, "# {note}");
                }
                let target = format!("{} = ", p.resource_vars[i]);
                out.push_str(&p.declare(
                    r,
                    &target,
                    &quoted(&r.name),
                    r.options.import_id.as_deref().map(quoted),
                ));
            }
        }
    }
    out
}
