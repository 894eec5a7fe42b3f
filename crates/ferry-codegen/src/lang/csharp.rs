//! C# against the `Pulumi` NuGet package and the packages' .NET SDKs (`Pulumi.<Namespace>`).

use std::fmt::Write as _;

use super::{header, number, quoted, variables};
use crate::ir::{AssetKind, Kind, Program, Value};
use crate::names::{camel, pascal, title, NameTable, CSHARP_RESERVED};
use crate::schema::{Type, TypeRef};

struct Printer<'a> {
    program: &'a Program,
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
}

impl Printer<'_> {
    fn namespace(&self, package: &str) -> String {
        self.program.packages.get(package).map(|p| p.csharp_namespace.clone()).unwrap_or_else(|| pascal(package))
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
            Value::Secret { config, .. } => out.push_str(&self.config_vars[*config]),
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
                AssetKind::Text => out.push_str("new AssetArchive(new Dictionary<string, AssetOrArchive>())"),
                AssetKind::File => {
                    let _ = write!(out, "new FileArchive({})", quoted(s));
                }
                AssetKind::Remote => {
                    let _ = write!(out, "new RemoteArchive({})", quoted(s));
                }
            },
            Value::Json(j) => json(j, out),
        }
    }
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

pub fn emit(program: &Program) -> String {
    let namespaces: Vec<String> = program.packages.values().map(|p| p.csharp_namespace.clone()).collect();
    let mut table = NameTable::new(CSHARP_RESERVED, namespaces.iter().cloned().chain(["Deployment".to_string(), "Pulumi".to_string()]));
    let (config_vars, resource_vars) = variables(program, &mut table, camel, "Resource");
    let p = Printer { program, config_vars, resource_vars };
    let mut out = header(program, "//");
    out.push_str("using System.Collections.Generic;\nusing System.Collections.Immutable;\nusing Pulumi;\n");
    for package in program.packages.values() {
        let _ = writeln!(out, "using {0} = Pulumi.{0};", package.csharp_namespace);
    }
    out.push_str("\nreturn await Deployment.RunAsync(() =>\n{\n");
    if !program.config.is_empty() {
        out.push_str("    var config = new Config();\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            let _ = writeln!(out, "    var {var} = config.{}({});", secret_getter(&c.ty), quoted(&c.key));
        }
        out.push('\n');
    }
    for (i, r) in program.resources.iter().enumerate() {
        if let Some(note) = &r.note {
            let _ = writeln!(out, "    // {note}");
        }
        let var = &p.resource_vars[i];
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("Protect = true".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("Parent = {}", p.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("Provider = {}", p.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!("IgnoreChanges = {{ {} }}", o.ignore_changes.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!("DependsOn = {{ {} }}", o.depends_on.iter().map(|d| p.resource_vars[*d].clone()).collect::<Vec<_>>().join(", ")));
        }
        if let Some(id) = &o.import_id {
            opts.push(format!("ImportId = {}", quoted(id)));
        }
        let options_block = |class: &str| -> String {
            if opts.is_empty() {
                return String::new();
            }
            let mut s = format!(", new {class}\n    {{\n");
            for o in &opts {
                let _ = writeln!(s, "        {o},");
            }
            s.push_str("    }");
            s
        };
        match &r.kind {
            Kind::Component { token } => {
                let _ = writeln!(
                    out,
                    "    var {var} = new ComponentResource({}, {}{});",
                    quoted(token),
                    quoted(&r.name),
                    options_block("ComponentResourceOptions")
                );
            }
            Kind::Custom { ty, provider } => {
                let class = if *provider { format!("{}.Provider", p.namespace(&ty.package)) } else { p.class(ty) };
                let _ = write!(out, "    var {var} = new {class}({}, new()\n    {{\n", quoted(&r.name));
                for f in &r.args {
                    let _ = write!(out, "        {} = ", f.name.csharp);
                    p.value(&f.value, true, 2, &mut out);
                    out.push_str(",\n");
                }
                out.push_str("    }");
                out.push_str(&options_block("CustomResourceOptions"));
                out.push_str(");\n");
            }
        }
        out.push('\n');
    }
    out.push_str("});\n");
    out
}
