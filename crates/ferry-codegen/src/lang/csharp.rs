//! C# against the `Pulumi` NuGet package and the packages' .NET SDKs (`Pulumi.<Namespace>`).

use std::fmt::Write as _;

use super::{
    header, indented, key_literal, key_literals, key_type, literal_body, number, quoted,
    scalar_literal, slot_expressions, variables,
};
use crate::ir::{AssetKind, Kind, Loop, Piece, Program, Resource, Value};
use crate::names::{camel, pascal, title, NameTable, CSHARP_RESERVED};
use crate::schema::{Type, TypeRef};

#[derive(Clone)]
struct Printer<'a> {
    program: &'a Program,
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
    /// In a loop's resource: each slot's expression.
    slots: Vec<String>,
}

impl Printer<'_> {
    fn namespace(&self, package: &str) -> String {
        self.program
            .packages
            .get(package)
            .map(|p| p.csharp_namespace.clone())
            .unwrap_or_else(|| pascal(package))
    }

    /// `Random.RandomPet`, `Command.Remote.Command`.
    fn class(&self, t: &TypeRef) -> String {
        if t.is_index() {
            format!("{}.{}", self.namespace(&t.package), t.name)
        } else {
            format!("{}.{}.{}", self.namespace(&t.package), pascal(&t.module), t.name)
        }
    }

    fn inputs_class(&self, t: &TypeRef) -> String {
        if t.is_index() {
            format!("{}.Inputs.{}Args", self.namespace(&t.package), t.name)
        } else {
            format!("{}.{}.Inputs.{}Args", self.namespace(&t.package), pascal(&t.module), t.name)
        }
    }

    /// `field`: the value sits right after `Name = `, where a collection initializer works.
    fn value(&self, v: &Value, field: bool, indent: usize, out: &mut String) {
        let pad = "    ".repeat(indent + 1);
        let end = "    ".repeat(indent);
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Number(n) => out.push_str(&number(*n)),
            Value::String(s) => out.push_str(&quoted(s)),
            Value::Enum(t, member, _) => {
                let _ = write!(out, "{}.{}", self.class(t), pascal(member));
            }
            Value::List(items, item) => {
                if field {
                    out.push('{');
                } else {
                    let _ = write!(out, "new {}[]", element_type(self, item));
                    out.push_str(" {");
                }
                if !items.is_empty() {
                    out.push('\n');
                    for x in items {
                        out.push_str(&pad);
                        self.value(x, false, indent + 1, out);
                        out.push_str(",\n");
                    }
                    out.push_str(&end);
                } else {
                    out.push(' ');
                }
                out.push('}');
            }
            Value::Map(entries, item) => {
                if field {
                    out.push('{');
                } else {
                    let _ = write!(out, "new Dictionary<string, {}>", element_type(self, item));
                    out.push_str(" {");
                }
                if !entries.is_empty() {
                    out.push('\n');
                    for (k, x) in entries {
                        let _ = write!(out, "{pad}{{ {}, ", quoted(k));
                        self.value(x, false, indent + 1, out);
                        out.push_str(" },\n");
                    }
                    out.push_str(&end);
                } else {
                    out.push(' ');
                }
                out.push('}');
            }
            Value::Object(t, fields) => {
                let _ = write!(out, "new {}", self.inputs_class(t));
                out.push('\n');
                let _ = writeln!(out, "{end}{{");
                for f in fields {
                    let _ = write!(out, "{pad}{} = ", f.name.csharp);
                    self.value(&f.value, true, indent + 1, out);
                    out.push_str(",\n");
                }
                out.push_str(&end);
                out.push('}');
            }
            Value::Secret { config, .. } | Value::Config { config } => {
                out.push_str(&self.config_vars[*config])
            }
            Value::Ref { resource, property } => {
                let _ = write!(out, "{}.{}", self.resource_vars[*resource], title(property));
            }
            Value::Asset(kind, s) => {
                let class = match kind {
                    AssetKind::Text => "StringAsset",
                    AssetKind::File => "FileAsset",
                    AssetKind::Remote => "RemoteAsset",
                };
                let _ = write!(out, "new {class}({})", quoted(s));
            }
            Value::Archive(kind, s) => match kind {
                AssetKind::Text => {
                    out.push_str("new AssetArchive(new Dictionary<string, AssetOrArchive>())")
                }
                AssetKind::File => {
                    let _ = write!(out, "new FileArchive({})", quoted(s));
                }
                AssetKind::Remote => {
                    let _ = write!(out, "new RemoteArchive({})", quoted(s));
                }
            },
            Value::Json(j) => json(j, out),
            Value::PerKey(slot) => out.push_str(&self.slots[*slot]),
            // An interpolated string through `Output.Format`, which resolves the outputs in it:
            // the text's braces doubled.
            Value::Interpolate(pieces) => {
                out.push_str("Output.Format($\"");
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => {
                            out.push_str(&literal_body(t).replace('{', "{{").replace('}', "}}"))
                        }
                        Piece::Value(v) => {
                            out.push('{');
                            self.value(v, false, indent, out);
                            out.push('}');
                        }
                    }
                }
                out.push_str("\")");
            }
        }
    }

    /// `r`'s declaration: `target` (`var x = `) and its constructor call, named by `name` (an
    /// expression) and imported by `import` when the code imports.
    fn declare(&self, r: &Resource, target: &str, name: &str, import: Option<String>) -> String {
        let mut out = String::new();
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("Protect = true".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("Parent = {}", self.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("Provider = {}", self.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!(
                "IgnoreChanges = {{ {} }}",
                o.ignore_changes.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")
            ));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!(
                "DependsOn = {{ {} }}",
                o.depends_on
                    .iter()
                    .map(|d| self.resource_vars[*d].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(id) = import {
            opts.push(format!("ImportId = {id}"));
        }
        let options_block = |class: &str| -> String {
            if opts.is_empty() {
                return String::new();
            }
            let mut s = format!(", new {class}\n{{\n");
            for o in &opts {
                let _ = writeln!(s, "    {o},");
            }
            s.push('}');
            s
        };
        match &r.kind {
            Kind::Component { token } => {
                let _ = writeln!(
                    out,
                    "{target}new ComponentResource({}, {name}{});",
                    quoted(token),
                    options_block("ComponentResourceOptions")
                );
            }
            Kind::Custom { ty, provider } => {
                let _ = write!(
                    out,
                    "{target}new {}({name}, new()\n{{\n",
                    self.resource_class(ty, *provider)
                );
                for f in &r.args {
                    let _ = write!(out, "    {} = ", f.name.csharp);
                    self.value(&f.value, true, 1, &mut out);
                    out.push_str(",\n");
                }
                out.push('}');
                out.push_str(&options_block("CustomResourceOptions"));
                out.push_str(");\n");
            }
        }
        out
    }

    fn resource_class(&self, ty: &TypeRef, provider: bool) -> String {
        if provider {
            format!("{}.Provider", self.namespace(&ty.package))
        } else {
            self.class(ty)
        }
    }

    /// A loop: the per-key values (a dictionary of tuples, or of the one value), the
    /// dictionary of resources by key, and the `foreach` that fills it.
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
            format!("foreach (var {key_var} in new[] {{ {} }})\n{{\n", key_literals(l))
        } else {
            let types: Vec<String> = mapped
                .iter()
                .map(|(_, slot, values)| {
                    format!("{} {}", csharp_scalar(&values[0], &slot.ty), title(&slot.name))
                })
                .collect();
            let value_type = if mapped.len() == 1 {
                csharp_scalar(&mapped[0].2[0], &mapped[0].1.ty).to_string()
            } else {
                format!("({})", types.join(", "))
            };
            let _ = writeln!(
                out,
                "var {values_var} = new Dictionary<{}, {value_type}>\n{{",
                key_type(l)
            );
            for (k, key_text) in l.keys.iter().enumerate() {
                let values: Vec<String> =
                    mapped.iter().map(|(_, _, values)| literal(&values[k])).collect();
                let tuple = if values.len() == 1 {
                    values[0].clone()
                } else {
                    format!("({})", values.join(", "))
                };
                let _ = writeln!(out, "    [{}] = {tuple},", key_literal(l, key_text));
            }
            out.push_str("};\n");
            format!("foreach (var ({key_var}, {value_var}) in {values_var})\n{{\n")
        };
        let Kind::Custom { ty, provider } = &l.template.kind else {
            unreachable!("loops are of custom resources")
        };
        let _ = writeln!(
            out,
            "var {var} = new Dictionary<{}, {}>();",
            key_type(l),
            self.resource_class(ty, *provider)
        );
        out.push_str(&header);
        let single = mapped.len() == 1;
        let slots = slot_expressions(l, key_var, &format!("{key_var}.ToString()"), &|_, s| {
            if single {
                value_var.to_string()
            } else {
                format!("{value_var}.{}", title(&s.name))
            }
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

/// The C# type holding a loop's per-key `value` of type `ty`.
fn csharp_scalar(value: &Value, ty: &Type) -> &'static str {
    match (value, ty) {
        (Value::Int(_) | Value::Number(_), Type::Number) => "double",
        (Value::Int(_), _) => "int",
        (Value::Number(_), _) => "double",
        (Value::Bool(_), _) => "bool",
        _ => "string",
    }
}

/// A scalar literal of a loop's per-key values.
fn literal(v: &Value) -> String {
    scalar_literal(v, ["true", "false", "null"])
}

fn element_type(p: &Printer<'_>, t: &Type) -> String {
    match t {
        Type::String => "string".into(),
        Type::Int => "int".into(),
        Type::Number => "double".into(),
        Type::Bool => "bool".into(),
        Type::Enum(r, _) => p.class(r),
        Type::Object(r) => p.inputs_class(r),
        Type::List(i) => format!("ImmutableArray<{}>", element_type(p, i)),
        Type::Map(i) => format!("ImmutableDictionary<string, {}>", element_type(p, i)),
        _ => "object".into(),
    }
}

fn json(j: &serde_json::Value, out: &mut String) {
    use serde_json::Value as J;
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => out.push_str(&n.to_string()),
        J::String(s) => out.push_str(&quoted(s)),
        J::Array(items) => {
            out.push_str("new object?[] { ");
            for x in items {
                json(x, out);
                out.push_str(", ");
            }
            out.push('}');
        }
        J::Object(m) => {
            out.push_str("new Dictionary<string, object?> { ");
            for (k, x) in m {
                let _ = write!(out, "[{}] = ", quoted(k));
                json(x, out);
                out.push_str(", ");
            }
            out.push('}');
        }
    }
}

fn secret_getter(ty: &Type) -> &'static str {
    match ty {
        Type::Int => "RequireSecretInt32",
        Type::Number => "RequireSecretDouble",
        Type::Bool => "RequireSecretBoolean",
        Type::String | Type::Enum(..) => "RequireSecret",
        _ => "RequireSecretObject<System.Text.Json.JsonElement>",
    }
}

/// The getter of a variable's setting, which is `null` when the stack sets none.
fn getter(ty: &Type) -> &'static str {
    match ty {
        Type::Int => "GetInt32",
        Type::Number => "GetDouble",
        Type::Bool => "GetBoolean",
        Type::List(_) => "GetObject<string[]>",
        _ => "Get",
    }
}

pub fn emit(program: &Program) -> String {
    let namespaces: Vec<String> =
        program.packages.values().map(|p| p.csharp_namespace.clone()).collect();
    let mut table = NameTable::new(
        CSHARP_RESERVED,
        namespaces.iter().cloned().chain(["Deployment".to_string(), "Pulumi".to_string()]),
    );
    let vars = variables(program, &mut table, camel, "Resource");
    let p = Printer {
        program,
        config_vars: vars.config,
        resource_vars: vars.resources,
        slots: Vec::new(),
    };
    let mut out = header(program, "//");
    out.push_str(
        "using System.Collections.Generic;\nusing System.Collections.Immutable;\nusing Pulumi;\n",
    );
    for package in program.packages.values() {
        let _ = writeln!(out, "using {0} = Pulumi.{0};", package.csharp_namespace);
    }
    out.push_str("\nreturn await Deployment.RunAsync(() =>\n{\n");
    if !program.config.is_empty() {
        out.push_str("    var config = new Config();\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            match &c.default {
                None => {
                    let _ = writeln!(
                        out,
                        "    var {var} = config.{}({});",
                        secret_getter(&c.ty),
                        quoted(&c.key)
                    );
                }
                Some(default) => {
                    let _ = write!(
                        out,
                        "    var {var} = config.{}({}) ?? ",
                        getter(&c.ty),
                        quoted(&c.key)
                    );
                    p.value(default, false, 1, &mut out);
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
                out.push_str(&indented(
                    &p.declare_loop(&program.loops[n], var, values, &vars.key, &vars.value),
                    "    ",
                ));
                out.push('\n');
            }
            (None, true) => {}
            (None, false) => {
                if let Some(note) = &r.note {
                    let _ = writeln!(out, "    // {note}");
                }
                let target = format!("var {} = ", p.resource_vars[i]);
                let import = r.options.import_id.as_deref().map(quoted);
                out.push_str(&indented(&p.declare(r, &target, &quoted(&r.name), import), "    "));
                out.push('\n');
            }
        }
    }
    out.push_str("});\n");
    out
}
