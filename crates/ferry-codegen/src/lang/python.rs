//! Python against `pulumi` and the packages' PyPI SDKs (`pulumi_<package>`).

use std::fmt::Write as _;

use super::{header, number, quoted, variables};
use crate::ir::{AssetKind, Kind, Program, Value};
use crate::names::{python_property, snake, NameTable, PYTHON_RESERVED};
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
    let n = python_property(name).to_ascii_uppercase();
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{n}")
    } else {
        n
    }
}

struct Printer {
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
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
            Value::Secret { config, .. } => out.push_str(&self.config_vars[*config]),
            Value::Ref { resource, property } => {
                let _ = write!(out, "{}.{}", self.resource_vars[*resource], python_property(property));
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
        }
    }
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

pub fn emit(program: &Program) -> String {
    let aliases: Vec<String> = program.packages.keys().map(|p| alias(p)).collect();
    let mut table = NameTable::new(PYTHON_RESERVED, aliases.iter().cloned());
    let (config_vars, resource_vars) = variables(program, &mut table, snake, "_");
    let p = Printer { config_vars, resource_vars };
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
            let _ = writeln!(out, "{var} = config.{}({})", secret_getter(&c.ty), quoted(&c.key));
        }
        out.push('\n');
    }
    for (i, r) in program.resources.iter().enumerate() {
        if let Some(note) = &r.note {
            let _ = writeln!(out, "# {note}");
        }
        let var = &p.resource_vars[i];
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("protect=True".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("parent={}", p.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("provider={}", p.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!("ignore_changes=[{}]", o.ignore_changes.iter().map(|s| quoted(&python_property(s))).collect::<Vec<_>>().join(", ")));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!("depends_on=[{}]", o.depends_on.iter().map(|d| p.resource_vars[*d].clone()).collect::<Vec<_>>().join(", ")));
        }
        if let Some(id) = &o.import_id {
            opts.push(format!("import_={}", quoted(id)));
        }
        let opts_text = (!opts.is_empty()).then(|| format!("pulumi.ResourceOptions({})", opts.join(", ")));
        match &r.kind {
            Kind::Component { token } => {
                let _ = writeln!(
                    out,
                    "{var} = pulumi.ComponentResource({}, {}, None, {})",
                    quoted(token),
                    quoted(&r.name),
                    opts_text.unwrap_or_else(|| "None".into())
                );
            }
            Kind::Custom { ty, provider } => {
                let class = if *provider { format!("{}.Provider", alias(&ty.package)) } else { format!("{}.{}", module_path(ty), ty.name) };
                let _ = write!(out, "{var} = {class}({}", quoted(&r.name));
                for f in &r.args {
                    let _ = write!(out, ",\n    {}=", f.name.python);
                    p.value(&f.value, 1, &mut out);
                }
                if let Some(opts) = opts_text {
                    let _ = write!(out, ",\n    opts={opts}");
                }
                out.push_str(")\n");
            }
        }
    }
    out
}
