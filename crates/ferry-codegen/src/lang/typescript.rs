//! TypeScript against `@pulumi/pulumi` and the packages' npm SDKs.

use std::fmt::Write as _;

use super::{header, number, quoted, variables};
use crate::ir::{AssetKind, Kind, Program, Value};
use crate::names::{camel, NameTable, TS_RESERVED};
use crate::schema::{Type, TypeRef};

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$') && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
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

struct Printer {
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
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
            Value::Secret { config, .. } => out.push_str(&self.config_vars[*config]),
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
        }
    }
}

fn secret_getter(ty: &Type) -> &'static str {
    match ty {
        Type::String | Type::Enum(..) => "requireSecret",
        Type::Int | Type::Number => "requireSecretNumber",
        Type::Bool => "requireSecretBoolean",
        _ => "requireSecretObject<any>",
    }
}

pub fn emit(program: &Program) -> String {
    let aliases: Vec<String> = program.packages.keys().map(|p| alias(p)).collect();
    let mut table = NameTable::new(TS_RESERVED, aliases.iter().cloned());
    let (config_vars, resource_vars) = variables(program, &mut table, camel, "Resource");
    let p = Printer { config_vars, resource_vars };
    let mut out = header(program, "//");
    out.push_str("import * as pulumi from \"@pulumi/pulumi\";\n");
    for (name, package) in &program.packages {
        let _ = writeln!(out, "import * as {} from {};", alias(name), quoted(&package.nodejs));
    }
    out.push('\n');
    if !program.config.is_empty() {
        out.push_str("const config = new pulumi.Config();\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            let _ = writeln!(out, "const {var} = config.{}({});", secret_getter(&c.ty), quoted(&c.key));
        }
        out.push('\n');
    }
    for (i, r) in program.resources.iter().enumerate() {
        if let Some(note) = &r.note {
            let _ = writeln!(out, "// {note}");
        }
        let var = &p.resource_vars[i];
        match &r.kind {
            Kind::Component { token } => {
                let _ = write!(out, "const {var} = new pulumi.ComponentResource({}, {}, {{}}", quoted(token), quoted(&r.name));
            }
            Kind::Custom { ty, provider } => {
                let class = if *provider { format!("{}.Provider", alias(&ty.package)) } else { type_path(ty) };
                let _ = write!(out, "const {var} = new {class}({}, ", quoted(&r.name));
                if r.args.is_empty() {
                    out.push_str("{}");
                } else {
                    out.push_str("{\n");
                    for f in &r.args {
                        let _ = write!(out, "    {}: ", key(&f.name.schema));
                        p.value(&f.value, 1, &mut out);
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
            opts.push(format!("parent: {}", p.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("provider: {}", p.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!("ignoreChanges: [{}]", o.ignore_changes.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!("dependsOn: [{}]", o.depends_on.iter().map(|d| p.resource_vars[*d].clone()).collect::<Vec<_>>().join(", ")));
        }
        if let Some(id) = &o.import_id {
            opts.push(format!("import: {}", quoted(id)));
        }
        if !opts.is_empty() {
            out.push_str(", {\n");
            for o in opts {
                let _ = writeln!(out, "    {o},");
            }
            out.push('}');
        }
        out.push_str(");\n");
    }
    out
}
