//! Go against `github.com/pulumi/pulumi/sdk/v3/go/pulumi` and the packages' Go SDKs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{
    header, indented, key_literal, key_literals, key_type, number, quoted, scalar_literal,
    slot_expressions, used, variables,
};
use crate::ir::{AssetKind, Kind, Loop, Piece, Program, Resource, Value};
use crate::names::{camel, pascal, title, NameTable, GO_RESERVED};
use crate::schema::{Type, TypeRef};

/// The package (or module) a type lives in: its Go import path and alias.
fn import_of(program: &Program, t: &TypeRef) -> (String, String) {
    let base = program
        .packages
        .get(&t.package)
        .map(|p| p.go_import.clone())
        .unwrap_or_else(|| format!("github.com/pulumi/pulumi-{0}/sdk/go/{0}", t.package));
    if t.is_index() {
        (base, t.package.replace('-', ""))
    } else {
        (
            format!("{base}/{}", t.module.to_ascii_lowercase()),
            t.module.to_ascii_lowercase().replace('-', ""),
        )
    }
}

fn array_type(item: &Type, alias: &dyn Fn(&TypeRef) -> String) -> String {
    match item {
        Type::String | Type::Enum(..) => "pulumi.StringArray".into(),
        Type::Int => "pulumi.IntArray".into(),
        Type::Number => "pulumi.Float64Array".into(),
        Type::Bool => "pulumi.BoolArray".into(),
        Type::Object(t) => format!("{}.{}Array", alias(t), t.name),
        _ => "pulumi.Array".into(),
    }
}

fn map_type(item: &Type, alias: &dyn Fn(&TypeRef) -> String) -> String {
    match item {
        Type::String | Type::Enum(..) => "pulumi.StringMap".into(),
        Type::Int => "pulumi.IntMap".into(),
        Type::Number => "pulumi.Float64Map".into(),
        Type::Bool => "pulumi.BoolMap".into(),
        Type::Object(t) => format!("{}.{}Map", alias(t), t.name),
        _ => "pulumi.Map".into(),
    }
}

#[derive(Clone)]
struct Printer<'a> {
    program: &'a Program,
    config_vars: Vec<String>,
    resource_vars: Vec<String>,
    aliases: BTreeMap<String, String>,
    /// In a loop's resource: each slot's expression.
    slots: Vec<String>,
}

impl Printer<'_> {
    fn alias(&self, t: &TypeRef) -> String {
        let (path, _) = import_of(self.program, t);
        self.aliases.get(&path).cloned().unwrap_or_default()
    }

    /// `v` as an input of type `ty`; `top` when it is a field of args (objects by pointer).
    fn value(&self, v: &Value, ty: &Type, top: bool, indent: usize, out: &mut String) {
        let pad = "\t".repeat(indent + 1);
        let end = "\t".repeat(indent);
        let alias = |t: &TypeRef| self.alias(t);
        match v {
            Value::Null => out.push_str("nil"),
            Value::Bool(b) => {
                let _ = write!(out, "pulumi.Bool({b})");
            }
            Value::Int(i) => match ty {
                Type::Number => {
                    let _ = write!(out, "pulumi.Float64({i})");
                }
                Type::Any => {
                    let _ = write!(out, "pulumi.Any({i})");
                }
                _ => {
                    let _ = write!(out, "pulumi.Int({i})");
                }
            },
            Value::Number(n) => {
                let _ = write!(
                    out,
                    "{}({})",
                    if matches!(ty, Type::Any) { "pulumi.Any" } else { "pulumi.Float64" },
                    number(*n)
                );
            }
            Value::String(s) => {
                let _ = write!(
                    out,
                    "{}({})",
                    if matches!(ty, Type::Any) { "pulumi.Any" } else { "pulumi.String" },
                    quoted(s)
                );
            }
            Value::Enum(t, member, _) => {
                let _ = write!(out, "{}.{}{}", self.alias(t), t.name, pascal(member));
            }
            Value::List(items, item) => {
                let _ = write!(out, "{}{{", array_type(item, &alias));
                if !items.is_empty() {
                    out.push('\n');
                    for x in items {
                        out.push_str(&pad);
                        self.value(x, item, false, indent + 1, out);
                        out.push_str(",\n");
                    }
                    out.push_str(&end);
                }
                out.push('}');
            }
            Value::Map(entries, item) => {
                let _ = write!(out, "{}{{", map_type(item, &alias));
                if !entries.is_empty() {
                    out.push('\n');
                    for (k, x) in entries {
                        let _ = write!(out, "{pad}{}: ", quoted(k));
                        self.value(x, item, false, indent + 1, out);
                        out.push_str(",\n");
                    }
                    out.push_str(&end);
                }
                out.push('}');
            }
            Value::Object(t, fields) => {
                let _ =
                    write!(out, "{}{}.{}Args{{", if top { "&" } else { "" }, self.alias(t), t.name);
                if !fields.is_empty() {
                    out.push('\n');
                    for f in fields {
                        let _ = write!(out, "{pad}{}: ", f.name.go);
                        self.value(&f.value, &f.ty, true, indent + 1, out);
                        out.push_str(",\n");
                    }
                    out.push_str(&end);
                }
                out.push('}');
            }
            Value::Secret { config, .. } => out.push_str(&self.config_vars[*config]),
            // A variable is a plain Go value: made an input as a literal would be.
            Value::Config { config } => {
                // Every use has the setting's type (see `lower`).
                let var = &self.config_vars[*config];
                let _ = match &self.program.config[*config].ty {
                    Type::List(_) => write!(out, "pulumi.ToStringArray({var})"),
                    setting => write!(out, "{}({var})", scalar_input(setting)),
                };
            }
            Value::Ref { resource, property } => {
                let var = &self.resource_vars[*resource];
                match property.as_str() {
                    "id" => {
                        let _ = write!(out, "{var}.ID()");
                    }
                    "urn" => {
                        let _ = write!(out, "{var}.URN()");
                    }
                    other => {
                        let _ = write!(out, "{var}.{}", title(other));
                    }
                }
            }
            Value::Asset(kind, s) => {
                let f = match kind {
                    AssetKind::Text => "NewStringAsset",
                    AssetKind::File => "NewFileAsset",
                    AssetKind::Remote => "NewRemoteAsset",
                };
                let _ = write!(out, "pulumi.{f}({})", quoted(s));
            }
            Value::Archive(kind, s) => match kind {
                AssetKind::Text => out.push_str("pulumi.NewAssetArchive(map[string]interface{}{})"),
                AssetKind::File => {
                    let _ = write!(out, "pulumi.NewFileArchive({})", quoted(s));
                }
                AssetKind::Remote => {
                    let _ = write!(out, "pulumi.NewRemoteArchive({})", quoted(s));
                }
            },
            Value::Json(j) => {
                out.push_str("pulumi.Any(");
                json(j, out);
                out.push(')');
            }
            Value::PerKey(slot) => {
                let _ = write!(out, "{}({})", scalar_input(ty), self.slots[*slot]);
            }
            // `pulumi.Sprintf` resolves outputs among its arguments; a variable is passed as the
            // plain Go value it is.
            Value::Interpolate(pieces) => {
                let mut format = String::new();
                let mut args = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => format.push_str(&t.replace('%', "%%")),
                        Piece::Value(Value::Config { config }) => {
                            format.push_str("%v");
                            args.push(self.config_vars[*config].clone());
                        }
                        Piece::Value(v) => {
                            format.push_str("%v");
                            let mut arg = String::new();
                            self.value(v, &Type::String, false, indent, &mut arg);
                            args.push(arg);
                        }
                    }
                }
                let _ = write!(out, "pulumi.Sprintf({}", quoted(&format));
                for arg in args {
                    let _ = write!(out, ", {arg}");
                }
                out.push(')');
            }
        }
    }

    /// `r`'s declaration: assigned to `var` (`_`, a new `x`, or a loop's `m[key]`, which
    /// `declared` says exists), named by `name` (an expression) and imported by `import` when
    /// the code imports; `used` says whether `var` is used (a component's is declared anyway).
    fn declare(
        &self,
        r: &Resource,
        var: &str,
        declared: bool,
        name: &str,
        import: Option<String>,
        used: bool,
    ) -> String {
        let mut out = String::new();
        let o = &r.options;
        let mut opts: Vec<String> = Vec::new();
        if o.protect {
            opts.push("pulumi.Protect(true)".into());
        }
        if let Some(parent) = o.parent {
            opts.push(format!("pulumi.Parent({})", self.resource_vars[parent]));
        }
        if let Some(provider) = o.provider {
            opts.push(format!("pulumi.Provider({})", self.resource_vars[provider]));
        }
        if !o.ignore_changes.is_empty() {
            opts.push(format!(
                "pulumi.IgnoreChanges([]string{{{}}})",
                o.ignore_changes.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")
            ));
        }
        if !o.depends_on.is_empty() {
            opts.push(format!(
                "pulumi.DependsOn([]pulumi.Resource{{{}}})",
                o.depends_on
                    .iter()
                    .map(|d| self.resource_vars[*d].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(id) = import {
            opts.push(format!("pulumi.Import(pulumi.ID({id}))"));
        }
        let opts_text: String = opts.iter().map(|o| format!(", {o}")).collect();
        match &r.kind {
            Kind::Component { token } => {
                let _ = writeln!(out, "{var} := &pulumi.ResourceState{{}}");
                let _ = writeln!(
                    out,
                    "err = ctx.RegisterComponentResource({}, {name}, {var}{opts_text})",
                    quoted(token)
                );
                if !used {
                    let _ = writeln!(out, "_ = {var}");
                }
            }
            Kind::Custom { ty, provider } => {
                let (constructor, args_type) = if *provider {
                    let a = self.alias(&TypeRef {
                        package: ty.package.clone(),
                        module: "index".into(),
                        name: "Provider".into(),
                        token: String::new(),
                    });
                    (format!("{a}.NewProvider"), format!("{a}.ProviderArgs"))
                } else {
                    let a = self.alias(ty);
                    (format!("{a}.New{}", ty.name), format!("{a}.{}Args", ty.name))
                };
                let assign = if var == "_" || declared {
                    format!("{var}, err = {constructor}")
                } else {
                    format!("{var}, err := {constructor}")
                };
                let _ = write!(out, "{assign}(ctx, {name}, &{args_type}{{");
                if !r.args.is_empty() {
                    out.push('\n');
                    for f in &r.args {
                        let _ = write!(out, "\t{}: ", f.name.go);
                        self.value(&f.value, &f.ty, true, 1, &mut out);
                        out.push_str(",\n");
                    }
                }
                let _ = writeln!(out, "}}{opts_text})");
            }
        }
        out.push_str("if err != nil {\n\treturn err\n}\n");
        out
    }

    /// A loop: the per-key values (a map of structs), the map of resources by key, and the
    /// `for` over the keys, in their order, that fills it.
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
        if !mapped.is_empty() {
            let _ = writeln!(out, "{values_var} := map[{}]struct {{", key_type(l));
            for (_, slot, values) in &mapped {
                let _ =
                    writeln!(out, "\t{} {}", title(&slot.name), go_scalar(&values[0], &slot.ty));
            }
            out.push_str("}{\n");
            for (k, key_text) in l.keys.iter().enumerate() {
                let fields: Vec<String> = mapped
                    .iter()
                    .map(|(_, slot, values)| {
                        format!("{}: {}", title(&slot.name), literal(&values[k]))
                    })
                    .collect();
                let _ = writeln!(out, "\t{}: {{{}}},", key_literal(l, key_text), fields.join(", "));
            }
            out.push_str("}\n");
        }
        let Kind::Custom { ty, .. } = &l.template.kind else {
            unreachable!("loops are of custom resources")
        };
        let _ = writeln!(out, "{var} := map[{}]*{}.{}{{}}", key_type(l), self.alias(ty), ty.name);
        let _ =
            writeln!(out, "for _, {key_var} := range []{}{{{}}} {{", key_type(l), key_literals(l));
        if !mapped.is_empty() {
            let _ = writeln!(out, "\t{value_var} := {values_var}[{key_var}]");
        }
        let slots = slot_expressions(l, key_var, &format!("strconv.Itoa({key_var})"), &|_, s| {
            format!("{value_var}.{}", title(&s.name))
        });
        let inner = Printer { slots, ..self.clone() };
        let target = format!("{var}[{key_var}]");
        let body = inner.declare(
            &l.template,
            &target,
            true,
            &inner.slots[l.name_slot],
            l.import_slot.map(|s| inner.slots[s].clone()),
            true,
        );
        out.push_str(&indented(&body, "\t"));
        out.push_str("}\n");
        out
    }
}

/// The input a scalar of type `ty` is wrapped in.
fn scalar_input(ty: &Type) -> &'static str {
    match ty {
        Type::Int => "pulumi.Int",
        Type::Number => "pulumi.Float64",
        Type::Bool => "pulumi.Bool",
        Type::String | Type::Enum(..) => "pulumi.String",
        _ => "pulumi.Any",
    }
}

/// The Go type holding a loop's per-key `value` of type `ty`.
fn go_scalar(value: &Value, ty: &Type) -> &'static str {
    match (value, ty) {
        (Value::Int(_) | Value::Number(_), Type::Number) => "float64",
        (Value::Int(_), _) => "int",
        (Value::Number(_), _) => "float64",
        (Value::Bool(_), _) => "bool",
        _ => "string",
    }
}

/// A scalar literal of a loop's per-key values.
fn literal(v: &Value) -> String {
    scalar_literal(v, ["true", "false", "nil"])
}

fn json(j: &serde_json::Value, out: &mut String) {
    use serde_json::Value as J;
    match j {
        J::Null => out.push_str("nil"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => out.push_str(&n.to_string()),
        J::String(s) => out.push_str(&quoted(s)),
        J::Array(items) => {
            out.push_str("[]interface{}{");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json(x, out);
            }
            out.push('}');
        }
        J::Object(m) => {
            out.push_str("map[string]interface{}{");
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
        Type::Int => "RequireSecretInt",
        Type::Number => "RequireSecretFloat64",
        Type::Bool => "RequireSecretBool",
        _ => "RequireSecret",
    }
}

/// The getter of a variable's setting the stack sets, which fails on a value of another type.
fn require_getter(ty: &Type) -> &'static str {
    match ty {
        Type::Int => "RequireInt",
        Type::Number => "RequireFloat64",
        _ => "RequireBool",
    }
}

/// A variable's default as a plain Go value of its setting's type `ty`.
fn go_literal(v: &Value, ty: &Type) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if matches!(ty, Type::Number) => format!("float64({i})"),
        Value::Int(i) => i.to_string(),
        Value::Number(n) => format!("float64({})", number(*n)),
        Value::String(s) => quoted(s),
        Value::List(items, _) => format!(
            "[]string{{{}}}",
            items.iter().map(|x| go_literal(x, &Type::String)).collect::<Vec<_>>().join(", ")
        ),
        _ => unreachable!("a variable holds text, a number, a boolean or a list of text"),
    }
}

pub fn emit(program: &Program) -> String {
    // Imports: each package's (and module's) path, with an alias unique in the file.
    let mut paths: BTreeMap<String, String> = BTreeMap::new();
    let mut collect = |t: &TypeRef| {
        let (path, alias) = import_of(program, t);
        paths.entry(path).or_insert(alias);
    };
    fn types_in(v: &Value, f: &mut dyn FnMut(&TypeRef)) {
        match v {
            Value::Object(t, fields) => {
                f(t);
                fields.iter().for_each(|x| types_in(&x.value, f));
            }
            Value::Enum(t, ..) => f(t),
            Value::List(items, item) => {
                if let Type::Object(t) = item {
                    f(t);
                }
                items.iter().for_each(|x| types_in(x, f));
            }
            Value::Map(entries, item) => {
                if let Type::Object(t) = item {
                    f(t);
                }
                entries.iter().for_each(|(_, x)| types_in(x, f));
            }
            _ => {}
        }
    }
    for r in &program.resources {
        if let Kind::Custom { ty, provider } = &r.kind {
            if *provider {
                collect(&TypeRef {
                    package: ty.package.clone(),
                    module: "index".into(),
                    name: "Provider".into(),
                    token: String::new(),
                });
            } else {
                collect(ty);
            }
        }
        for f in &r.args {
            types_in(&f.value, &mut collect);
        }
    }
    let mut reserved_aliases =
        NameTable::new(GO_RESERVED, ["pulumi".to_string(), "config".to_string()]);
    let aliases: BTreeMap<String, String> = paths
        .iter()
        .map(|(path, alias)| (path.clone(), reserved_aliases.claim(alias, "pkg")))
        .collect();
    let mut table = NameTable::new(
        GO_RESERVED,
        aliases.values().cloned().chain(["pulumi".into(), "config".into(), "strconv".into()]),
    );
    let vars = variables(program, &mut table, camel, "Res");
    let p = Printer {
        program,
        config_vars: vars.config,
        resource_vars: vars.resources,
        aliases: aliases.clone(),
        slots: Vec::new(),
    };
    let used = used(program);

    let mut out = header(program, "//");
    out.push_str("package main\n\nimport (\n");
    let mut imports: Vec<String> = Vec::new();
    for (path, alias) in &aliases {
        let last = path.rsplit('/').next().unwrap_or("");
        imports.push(if last == alias {
            format!("\t{}", quoted(path))
        } else {
            format!("\t{alias} {}", quoted(path))
        });
    }
    imports.push(format!("\t{}", quoted("github.com/pulumi/pulumi/sdk/v3/go/pulumi")));
    // A `count` loop's names are made of its number keys.
    let key_text = program.loops.iter().any(|l| {
        l.numeric
            && l.slots.iter().any(|s| matches!(s.values, crate::ir::SlotValues::FromKey { .. }))
    });
    if key_text {
        imports.push(format!("\t{}", quoted("strconv")));
    }
    if !program.config.is_empty() {
        imports.push(format!("\t{}", quoted("github.com/pulumi/pulumi/sdk/v3/go/pulumi/config")));
    }
    imports.sort_by(|a, b| {
        a.trim_start_matches(|c: char| c != '"').cmp(b.trim_start_matches(|c: char| c != '"'))
    });
    for i in imports {
        out.push_str(&i);
        out.push('\n');
    }
    out.push_str(")\n\nfunc main() {\n\tpulumi.Run(func(ctx *pulumi.Context) error {\n");
    if !program.config.is_empty() {
        out.push_str("\t\tcfg := config.New(ctx, \"\")\n");
        for (c, var) in program.config.iter().zip(&p.config_vars) {
            match &c.default {
                None => {
                    let _ = writeln!(
                        out,
                        "\t\t{var} := cfg.{}({})",
                        secret_getter(&c.ty),
                        quoted(&c.key)
                    );
                }
                // The default, replaced by what the stack sets (text as it is, anything else
                // read by a getter that fails on a value that does not read as its type).
                Some(default) => {
                    let _ = writeln!(out, "\t\t{var} := {}", go_literal(default, &c.ty));
                    let key = quoted(&c.key);
                    let _ = match &c.ty {
                        Type::String => writeln!(out, "\t\tif param := cfg.Get({key}); param != \"\" {{\n\t\t\t{var} = param\n\t\t}}"),
                        Type::List(_) => writeln!(out, "\t\tif cfg.Get({key}) != \"\" {{\n\t\t\tcfg.RequireObject({key}, &{var})\n\t\t}}"),
                        ty => writeln!(out, "\t\tif cfg.Get({key}) != \"\" {{\n\t\t\t{var} = cfg.{}({key})\n\t\t}}", require_getter(ty)),
                    };
                }
            }
        }
    }
    out.push_str("\t\tvar err error\n");
    for (i, r) in program.resources.iter().enumerate() {
        match vars.roles[i] {
            (Some(n), _) => {
                let (var, values) = &vars.loops[n];
                out.push_str(&indented(
                    &p.declare_loop(&program.loops[n], var, values, &vars.key, &vars.value),
                    "\t\t",
                ));
            }
            (None, true) => {}
            (None, false) => {
                if let Some(note) = &r.note {
                    let _ = writeln!(out, "\t\t// {note}");
                }
                let var = match (&r.kind, used.contains(&i)) {
                    (Kind::Component { .. }, _) | (_, true) => p.resource_vars[i].clone(),
                    _ => "_".to_string(),
                };
                let import = r.options.import_id.as_deref().map(quoted);
                out.push_str(&indented(
                    &p.declare(r, &var, false, &quoted(&r.name), import, used.contains(&i)),
                    "\t\t",
                ));
            }
        }
    }
    out.push_str("\t\treturn nil\n\t})\n}\n");
    out
}
