//! TypeScript against `@pulumi/pulumi` and the packages' npm SDKs.

use std::fmt::Write as _;

use super::{
    header, indented, key_literal, key_literals, literal_body, number, quoted, scalar_literal,
    slot_expressions, variables,
};
use crate::ir::{AssetKind, Kind, Loop, Piece, Program, Resource, Value};
use crate::names::{camel, NameTable, TS_RESERVED};
use crate::schema::{Type, TypeRef};

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn key(s: &str) -> String {
    if is_identifier(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}

fn alias(package: &str) -> String {
    camel(package)
}

fn type_path(t: &TypeRef) -> String {
    if t.is_index() {
        format!("{}.{}", alias(&t.package), t.name)
    } else {
        format!("{}.{}.{}", alias(&t.package), camel(&t.module), t.name)
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
            Value::Null => out.push_str("undefined"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Number(n) => out.push_str(&number(*n)),
            Value::String(s) => out.push_str(&quoted(s)),
            Value::Enum(_, _, value) => out.push_str(&value.to_string()),
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
                    let _ = write!(out, "{pad}{}: ", key(k));
                    self.value(x, indent + 1, out);
                    out.push_str(",\n");
                }
                out.push_str(&end);
                out.push('}');
            }
            Value::Object(_, fields) if fields.is_empty() => out.push_str("{}"),
            Value::Object(_, fields) => {
                out.push_str("{\n");
                for f in fields {
                    let _ = write!(out, "{pad}{}: ", key(&f.name.schema));
                    self.value(&f.value, indent + 1, out);
                    out.push_str(",\n");
                }
                out.push_str(&end);
                out.push('}');
            }
            Value::Secret { config, .. } | Value::Config { config } => {
                out.push_str(&self.config_vars[*config])
            }
            Value::Ref { resource, property } => {
                let _ = write!(out, "{}.{}", self.resource_vars[*resource], property);
            }
            Value::Asset(kind, s) => {
                let class = match kind {
                    AssetKind::Text => "StringAsset",
                    AssetKind::File => "FileAsset",
                    AssetKind::Remote => "RemoteAsset",
                };
                let _ = write!(out, "new pulumi.asset.{class}({})", quoted(s));
            }
            Value::Archive(kind, s) => match kind {
                AssetKind::Text => out.push_str("new pulumi.asset.AssetArchive({})"),
                AssetKind::File => {
                    let _ = write!(out, "new pulumi.asset.FileArchive({})", quoted(s));
                }
                AssetKind::Remote => {
                    let _ = write!(out, "new pulumi.asset.RemoteArchive({})", quoted(s));
                }
            },
            Value::Json(j) => out.push_str(&j.to_string()),
            Value::PerKey(slot) => out.push_str(&self.slots[*slot]),
            // A template literal resolves outputs only through `pulumi.interpolate`.
            Value::Interpolate(pieces) => {
                out.push_str("pulumi.interpolate`");
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => {
                            out.push_str(&literal_body(t).replace('`', "\\`").replace("${", "\\${"))
                        }
                        Piece::Value(v) => {
                            out.push_str("${");
                            self.value(v, indent, out);
                            out.push('}');
                        }
                    }
                }
                out.push('`');
            }
        }
    }

    /// `r`'s declaration: `target` (`const x = `) and its constructor call, named by `name` (an
    /// expression) and imported by `import` when the code imports.
    fn declare(&self, r: &Resource, target: &str, name: &str, import: Option<String>) -> String {
        let mut out = String::new();
        match &r.kind {
            Kind::Component { token } => {
                let _ = write!(
                    out,
                    "{target}new pulumi.ComponentResource({}, {name}, {{}}",
                    quoted(token)
                );
            }
            Kind::Custom { ty, provider } => {
                let _ = write!(out, "{target}new {}({name}, ", class(ty, *provider));
                if r.args.is_empty() {
                    out.push_str("{}");
                } else {
                    out.push_str("{\n");
                    for f in &r.args {
                        let _ = write!(out, "    {}: ", key(&f.name.schema));
                        self.value(&f.value, 1, &mut out);
                        out.push_str(",\n");
                    }
                    out.push('}');
                }
            }
        }
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("protect: true".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("parent: {}", self.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("provider: {}", self.resource_vars[provider]));
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
                    .map(|d| self.resource_vars[*d].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(id) = import {
            opts.push(format!("import: {id}"));
        }
        if !opts.is_empty() {
            out.push_str(", {\n");
            for o in opts {
                let _ = writeln!(out, "    {o},");
            }
            out.push('}');
        }
        out.push_str(");\n");
        out
    }

    /// A loop: the per-key values, the map of resources by key, and the `for` that fills it.
    fn declare_loop(
        &self,
        l: &Loop,
        var: &str,
        values_var: &str,
        key_var: &str,
        value_var: &str,
    ) -> String {
        let mut out = format!("// {}\n", l.note);
        let mapped: Vec<_> = l.mapped_slots().collect();
        let header = if mapped.is_empty() {
            format!("for (const {key_var} of [{}]) {{\n", key_literals(l))
        } else if l.numeric {
            // A `Map` keeps its keys numbers (an object's entries would give text).
            let _ = writeln!(out, "const {values_var} = new Map([");
            for (k, key_text) in l.keys.iter().enumerate() {
                let fields: Vec<String> = mapped
                    .iter()
                    .map(|(_, slot, values)| {
                        format!("{}: {}", key(&slot.name), literal(&values[k]))
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "    [{}, {{ {} }}],",
                    key_literal(l, key_text),
                    fields.join(", ")
                );
            }
            out.push_str("]);\n");
            format!("for (const [{key_var}, {value_var}] of {values_var}) {{\n")
        } else {
            let _ = writeln!(out, "const {values_var} = {{");
            for (k, key_text) in l.keys.iter().enumerate() {
                let fields: Vec<String> = mapped
                    .iter()
                    .map(|(_, slot, values)| {
                        format!("{}: {}", key(&slot.name), literal(&values[k]))
                    })
                    .collect();
                let _ = writeln!(out, "    {}: {{ {} }},", quoted(key_text), fields.join(", "));
            }
            out.push_str("};\n");
            format!("for (const [{key_var}, {value_var}] of Object.entries({values_var})) {{\n")
        };
        let Kind::Custom { ty, provider } = &l.template.kind else {
            unreachable!("loops are of custom resources")
        };
        let key_type = if l.numeric { "number" } else { "string" };
        let _ = writeln!(out, "const {var}: Record<{key_type}, {}> = {{}};", class(ty, *provider));
        out.push_str(&header);
        let slots = slot_expressions(l, key_var, &format!("String({key_var})"), &|_, s| {
            format!("{value_var}.{}", s.name)
        });
        let inner = Printer { slots, ..self.clone() };
        let body = inner.declare(
            &l.template,
            &format!("{var}[{key_var}] = "),
            &inner.slots[l.name_slot],
            l.import_slot.map(|s| inner.slots[s].clone()),
        );
        out.push_str(&indented(&body, "    "));
        out.push_str("}\n");
        out
    }
}

fn class(ty: &TypeRef, provider: bool) -> String {
    if provider {
        format!("{}.Provider", alias(&ty.package))
    } else {
        type_path(ty)
    }
}

/// A scalar literal of a loop's per-key values.
fn literal(v: &Value) -> String {
    scalar_literal(v, ["true", "false", "undefined"])
}

fn secret_getter(ty: &Type) -> &'static str {
    match ty {
        Type::String | Type::Enum(..) => "requireSecret",
        Type::Int | Type::Number => "requireSecretNumber",
        Type::Bool => "requireSecretBoolean",
        _ => "requireSecretObject<any>",
    }
}

/// The getter of a variable's setting, which is `undefined` when the stack sets none.
fn getter(ty: &Type) -> &'static str {
    match ty {
        Type::Int | Type::Number => "getNumber",
        Type::Bool => "getBoolean",
        Type::List(_) => "getObject<string[]>",
        _ => "get",
    }
}

pub fn emit(program: &Program) -> String {
    let aliases: Vec<String> = program.packages.keys().map(|p| alias(p)).collect();
    let mut table = NameTable::new(TS_RESERVED, aliases.iter().cloned());
    let vars = variables(program, &mut table, camel, "Resource");
    let p = Printer { config_vars: vars.config, resource_vars: vars.resources, slots: Vec::new() };
    let mut out = header(program, "//");
    out.push_str("import * as pulumi from \"@pulumi/pulumi\";\n");
    for (name, package) in &program.packages {
        let _ = writeln!(out, "import * as {} from {};", alias(name), quoted(&package.nodejs));
    }
    out.push('\n');
    if !program.config.is_empty() {
        out.push_str("const config = new pulumi.Config();\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            match &c.default {
                None => {
                    let _ = writeln!(
                        out,
                        "const {var} = config.{}({});",
                        secret_getter(&c.ty),
                        quoted(&c.key)
                    );
                }
                Some(default) => {
                    let _ = write!(
                        out,
                        "const {var} = config.{}({}) ?? ",
                        getter(&c.ty),
                        quoted(&c.key)
                    );
                    p.value(default, 0, &mut out);
                    out.push_str(";\n");
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
                    &vars.value,
                ));
            }
            (None, true) => {}
            (None, false) => {
                if let Some(note) = &r.note {
                    let _ = writeln!(out, "// {note}");
                }
                let target = format!("const {} = ", p.resource_vars[i]);
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
