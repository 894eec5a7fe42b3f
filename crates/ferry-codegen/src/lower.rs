//! From imported resources and package schemas to the intermediate form: declaration order,
//! schema-typed values, elision and secrets moved to config; what connects the resources
//! (references, variables) is [`crate::connections`]'.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ferry_property::{ArchiveSource, AssetSource, PropertyMap, PropertyValue};

use crate::ir::{
    AssetKind, ConfigSetting, Elided, Field, FieldName, Kind, Options as IrOptions, Package,
    Program, Report, Resource, Value,
};
use crate::loops::Origin;
use crate::names::{camel, python_property, title, Ident, NameTable, PYTHON_KEYWORDS};
use crate::schema::{PackageSchema, Property, Type, TypeRef};
use crate::CodeStyle;

/// A resource as the stack (or a preview) has it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceResource {
    pub urn: String,
    pub name: String,
    pub token: String,
    pub custom: bool,
    pub id: Option<String>,
    pub import_id: Option<String>,
    pub inputs: PropertyMap,
    pub outputs: PropertyMap,
    pub parent: Option<String>,
    /// `urn::id`.
    pub provider: Option<String>,
    pub protect: bool,
    pub ignore_changes: Vec<String>,
    pub depends_on: Vec<String>,
    /// Where it came from, when another tool managed it before.
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub style: CodeStyle,
    /// Leave out properties that only repeat a schema default or a zero value.
    pub elide: bool,
    /// Resources (by name or URN) whose properties are all kept.
    pub keep_all: BTreeSet<String>,
    /// Turn literals equal to another resource's ID, name or ARN into references.
    pub references: bool,
    /// Suggestions turned off, by key (`resource.property`).
    pub reference_exclusions: BTreeSet<String>,
    /// Properties kept although they could be left out, by resource URN: verification found
    /// that without them the provider's `Diff` reports a change.
    pub keep_properties: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("no schema for the `{0}` package: Ferry needs the provider's schema to type the code")]
    NoSchema(String),
    #[error("nothing to generate: no imported resources")]
    Empty,
    #[error("{0}")]
    Invalid(String),
}

/// The package a program imports, from its schema: each name a project file or an import
/// prints is checked against what such a name may hold (a plugin's schema is its author's
/// text), and a schema with one that does not fit is refused, naming it.
fn package_of_schema(schema: &PackageSchema) -> Result<Package, LowerError> {
    fn check<'a>(
        schema: &PackageSchema,
        field: &str,
        value: &'a str,
        extra: &[char],
    ) -> Result<&'a str, LowerError> {
        let fits = !value.is_empty()
            && value.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
            && !value.contains("..");
        if fits {
            Ok(value)
        } else {
            Err(LowerError::Invalid(format!(
                "the `{}` package's schema gives {field} as {value:?}, which is no such name",
                schema.name
            )))
        }
    }
    let name = check(schema, "its name", &schema.name, &['-', '_', '.'])?;
    let version = schema
        .version
        .as_deref()
        .map(|v| check(schema, "its version", v, &['.', '-', '+']))
        .transpose()?;
    let identifier_path = |field: &str, value: &str| -> Result<(), LowerError> {
        check(schema, field, value, &['.', '_'])?;
        if value.split('.').all(|part| Ident::is_plain(part, &[])) {
            Ok(())
        } else {
            Err(LowerError::Invalid(format!(
                "the `{}` package's schema gives {field} as {value:?}, which is no such name",
                schema.name
            )))
        }
    };
    identifier_path("its Python module", &schema.python_module)?;
    identifier_path("its C# namespace", &schema.csharp_namespace)?;
    Ok(Package {
        name: name.to_string(),
        version: version.map(str::to_string),
        nodejs: check(
            schema,
            "its npm package",
            &schema.nodejs_package,
            &['@', '/', '-', '_', '.'],
        )?
        .to_string(),
        python_package: check(
            schema,
            "its Python package",
            &schema.python_package,
            &['-', '_', '.'],
        )?
        .to_string(),
        python_module: schema.python_module.clone(),
        go_import: check(
            schema,
            "its Go import path",
            &schema.go_import,
            &['/', '-', '_', '.', '~'],
        )?
        .to_string(),
        csharp_namespace: schema.csharp_namespace.clone(),
    })
}

fn package_of(token: &str) -> &str {
    token.split(':').next().unwrap_or(token)
}

fn provider_package(token: &str) -> Option<&str> {
    token.strip_prefix("pulumi:providers:")
}

/// What lowering carries from resource to resource: the schemas and options it was given, the
/// report and the config settings it makes.
pub(crate) struct Lowering<'a> {
    pub(crate) schemas: &'a HashMap<String, PackageSchema>,
    pub(crate) options: &'a Options,
    pub(crate) report: Report,
    pub(crate) config: Vec<ConfigSetting>,
    pub(crate) config_names: NameTable,
    /// Each source variable's setting in `config`, by its key (see
    /// `connections::variable_setting`).
    pub(crate) variable_settings: HashMap<String, usize>,
}

impl Lowering<'_> {
    fn field_name(&self, p: Option<&Property>, name: &str) -> FieldName {
        let lang = |l: &str| p.and_then(|p| p.language_names.get(l)).cloned();
        FieldName {
            schema: name.to_string(),
            python: lang("python")
                .map(|n| Ident::new(&n, PYTHON_KEYWORDS))
                .unwrap_or_else(|| python_property(name)),
            go: lang("go").map(|n| title(&n)).unwrap_or_else(|| title(name)),
            csharp: lang("csharp").map(|n| title(&n)).unwrap_or_else(|| title(name)),
        }
    }

    fn secret(&mut self, resource: &str, path: &str, ty: &Type) -> Value {
        let key = self.config_names.claim(&camel(&format!("{resource} {path}")), "Value");
        self.report.config_commands.push(format!("pulumi config set --secret {key}"));
        self.config.push(ConfigSetting {
            key,
            ty: ty.clone(),
            resource: resource.to_string(),
            property: path.to_string(),
            default: None,
        });
        Value::Secret { config: self.config.len() - 1, ty: ty.clone() }
    }

    /// A value, typed by the schema where it says.
    fn value(
        &mut self,
        v: &PropertyValue,
        ty: &Type,
        schema: &PackageSchema,
        resource: &str,
        path: &str,
    ) -> Value {
        use PropertyValue as P;
        match (v, ty) {
            (P::Secret(_), _) => self.secret(resource, path, ty),
            (P::Output(o), _) if o.secret => self.secret(resource, path, ty),
            (P::Output(o), _) => match &o.element {
                Some(e) => self.value(e, ty, schema, resource, path),
                None => Value::Null,
            },
            (P::Null | P::Computed, _) => Value::Null,
            (P::Bool(b), _) => Value::Bool(*b),
            (P::Number(n), Type::Int) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
                Value::Int(*n as i64)
            }
            (P::Number(n), Type::Enum(t, _)) => {
                self.enum_member(t, serde_json::json!(n), schema).unwrap_or(Value::Number(*n))
            }
            (P::Number(n), Type::Any) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
                Value::Int(*n as i64)
            }
            (P::Number(n), _) => Value::Number(*n),
            (P::String(s), Type::Int) if s.parse::<i64>().is_ok() => {
                Value::Int(s.parse().expect("checked"))
            }
            (P::String(s), Type::Number) if s.parse::<f64>().is_ok_and(f64::is_finite) => {
                Value::Number(s.parse().expect("checked"))
            }
            (P::String(s), Type::Bool) if s == "true" || s == "false" => Value::Bool(s == "true"),
            (P::String(s), Type::Enum(t, _)) => self
                .enum_member(t, serde_json::json!(s), schema)
                .unwrap_or_else(|| Value::String(s.clone())),
            (P::String(s), _) => Value::String(s.clone()),
            (P::Array(items), Type::List(item)) => Value::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| self.value(x, item, schema, resource, &format!("{path}[{i}]")))
                    .collect(),
                (**item).clone(),
            ),
            (P::Array(items), _) => Value::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        self.value(x, &Type::Any, schema, resource, &format!("{path}[{i}]"))
                    })
                    .collect(),
                Type::Any,
            ),
            (P::Object(m), Type::Object(t)) => {
                match schema.objects.get(&t.token) {
                    Some(obj) => {
                        let mut fields = Vec::new();
                        for (k, x) in m {
                            match obj.properties.get(k) {
                            Some(p) => {
                                let value = self.value(x, &p.ty, schema, resource, &format!("{path}.{k}"));
                                if value != Value::Null {
                                    fields.push(Field { name: self.field_name(Some(p), k), ty: p.ty.clone(), value });
                                }
                            }
                            None => self.report.warnings.push(format!("`{resource}`: `{path}.{k}` is not a property of `{}`; left out", t.token)),
                        }
                        }
                        Value::Object(t.clone(), fields)
                    }
                    None => self.map(m, &Type::Any, schema, resource, path),
                }
            }
            (P::Object(m), Type::Map(item)) => self.map(m, item, schema, resource, path),
            (P::Object(m), _) => self.map(m, &Type::Any, schema, resource, path),
            (P::Asset(a), _) => match &a.source {
                AssetSource::Text(t) => Value::Asset(AssetKind::Text, t.clone()),
                AssetSource::Path(p) => Value::Asset(AssetKind::File, p.clone()),
                AssetSource::Uri(u) => Value::Asset(AssetKind::Remote, u.clone()),
            },
            (P::Archive(a), _) => match &a.source {
                ArchiveSource::Path(p) => Value::Archive(AssetKind::File, p.clone()),
                ArchiveSource::Uri(u) => Value::Archive(AssetKind::Remote, u.clone()),
                ArchiveSource::Assets(_) => {
                    self.report.warnings.push(format!("`{resource}`: `{path}` is an archive of assets, which Ferry writes as an empty archive"));
                    Value::Archive(AssetKind::Text, String::new())
                }
            },
            (P::ResourceReference(r), _) => match r.id.as_deref() {
                Some(P::String(id)) => Value::String(id.clone()),
                _ => Value::String(r.urn.clone()),
            },
        }
    }

    fn map(
        &mut self,
        m: &PropertyMap,
        item: &Type,
        schema: &PackageSchema,
        resource: &str,
        path: &str,
    ) -> Value {
        if crate::lang::yaml::calls_a_function(m.keys().map(String::as_str)) {
            self.report.warnings.push(format!(
                "`{resource}`: `{path}` is a map whose only key starts with `fn::`, which Pulumi YAML reads as a function call (it has no escape for it): the YAML program writes it as an empty map, the other languages as it is"
            ));
        }
        Value::Map(
            m.iter()
                .map(|(k, x)| {
                    (k.clone(), self.value(x, item, schema, resource, &format!("{path}.{k}")))
                })
                .collect(),
            item.clone(),
        )
    }

    fn enum_member(
        &self,
        t: &TypeRef,
        value: serde_json::Value,
        schema: &PackageSchema,
    ) -> Option<Value> {
        let members = schema.enums.get(&t.token)?;
        let m = members.iter().find(|m| m.value == value)?;
        let name = m.name.clone().unwrap_or_else(|| {
            value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string())
        });
        Some(Value::Enum(t.clone(), name, value))
    }
}

/// Why a top-level input can be left out, if it can.
fn elidable(v: &PropertyValue, p: Option<&Property>, required: bool) -> Option<&'static str> {
    if required {
        return None;
    }
    let json = ferry_property::json::encode_value(v, &ferry_property::json::EncodeOptions::wire());
    if let (Some(d), Some(j)) = (p.and_then(|p| p.default.as_ref()), json.as_ref()) {
        if d == j {
            return Some("the schema's default");
        }
    }
    let default_differs = p.and_then(|p| p.default.as_ref()).is_some();
    match v {
        PropertyValue::Null => Some("null"),
        PropertyValue::String(s) if s.is_empty() && !default_differs => {
            Some("an empty string Read returned")
        }
        PropertyValue::Array(a) if a.is_empty() && !default_differs => {
            Some("an empty list Read returned")
        }
        PropertyValue::Object(o) if o.is_empty() && !default_differs => {
            Some("an empty map Read returned")
        }
        _ => None,
    }
}

/// The inputs of `r` its code would leave out (a schema default, or a zero value Read returned),
/// each with why: what verification asks the provider about. Without `r`'s schema, none.
pub fn elidable_inputs(
    r: &SourceResource,
    schemas: &HashMap<String, PackageSchema>,
) -> Vec<(String, &'static str)> {
    let package = provider_package(&r.token).unwrap_or_else(|| package_of(&r.token));
    let Some(rtype) = schemas.get(package).and_then(|s| s.resource(&r.token)) else {
        return Vec::new();
    };
    r.inputs
        .iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .filter_map(|(k, v)| {
            let required = rtype.required.iter().any(|q| q == k);
            elidable(v, Some(rtype.inputs.get(k)?), required).map(|why| (k.clone(), why))
        })
        .collect()
}

/// What the code declares: the resources, plus the explicit providers and parent components
/// they need (transitively, from `context`), each once; and a warning for each option that
/// refers to something the stack does not hold.
fn declared<'a>(
    resources: &'a [SourceResource],
    context: &'a [SourceResource],
) -> (Vec<&'a SourceResource>, Vec<String>) {
    let by_urn: HashMap<&str, &SourceResource> =
        context.iter().chain(resources).map(|r| (r.urn.as_str(), r)).collect();
    let is_root = |urn: &str| urn.contains("::pulumi:pulumi:Stack::");
    let provider_urn = |reference: &str| {
        ferry_state::urn::split_provider_reference(reference)
            .map(|(u, _)| u.to_string())
            .unwrap_or_else(|| reference.to_string())
    };
    let is_default_provider = |urn: &str| ferry_state::urn::name_of(urn).starts_with("default");
    let mut chosen: Vec<&SourceResource> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut queue: Vec<&SourceResource> = resources.iter().collect();
    let mut warnings = Vec::new();
    while let Some(r) = queue.pop() {
        if !seen.insert(r.urn.as_str()) {
            continue;
        }
        chosen.push(r);
        let mut needs = Vec::new();
        if let Some(p) = r.parent.as_deref().filter(|p| !is_root(p)) {
            needs.push(p.to_string());
        }
        if let Some(p) = r.provider.as_deref().map(provider_urn).filter(|p| !is_default_provider(p))
        {
            needs.push(p);
        }
        for n in needs {
            match by_urn.get(n.as_str()) {
                Some(dep) => queue.push(dep),
                None => warnings.push(format!(
                    "`{}` refers to `{n}`, which is not in the stack; the option is left out",
                    r.name
                )),
            }
        }
    }
    (chosen, warnings)
}

/// The packages whose schemas the code for `resources` types: theirs, and those of the
/// providers and components of `context` they need. Nothing else of the stack is asked for.
pub fn packages_needed(
    resources: &[SourceResource],
    context: &[SourceResource],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let (chosen, _) = declared(resources, context);
    let targets: BTreeSet<&str> = resources.iter().map(|r| r.urn.as_str()).collect();
    let (mut own, mut needed) = (BTreeSet::new(), BTreeSet::new());
    for r in chosen.iter().filter(|r| r.custom) {
        let package =
            provider_package(&r.token).unwrap_or_else(|| package_of(&r.token)).to_string();
        if targets.contains(r.urn.as_str()) {
            own.insert(package);
        } else {
            needed.insert(package);
        }
    }
    needed.retain(|p| !own.contains(p));
    (own, needed)
}

/// The intermediate form for `resources` (what to generate) with `context` (the rest of the
/// stack: parents and providers they need).
pub fn lower(
    project: &str,
    resources: &[SourceResource],
    context: &[SourceResource],
    schemas: &HashMap<String, PackageSchema>,
    options: &Options,
) -> Result<Program, LowerError> {
    if resources.is_empty() {
        return Err(LowerError::Empty);
    }
    let (mut chosen, warnings) = declared(resources, context);
    let provider_urn = |reference: &str| {
        ferry_state::urn::split_provider_reference(reference)
            .map(|(u, _)| u.to_string())
            .unwrap_or_else(|| reference.to_string())
    };
    // Declaration order: the given order, each after its parent and provider.
    let position: HashMap<&str, usize> =
        context.iter().chain(resources).enumerate().map(|(i, r)| (r.urn.as_str(), i)).collect();
    chosen.sort_by_key(|r| position[r.urn.as_str()]);
    let index: HashMap<&str, usize> =
        chosen.iter().enumerate().map(|(i, r)| (r.urn.as_str(), i)).collect();
    let by_name = unique_names(&chosen);
    let deps = |r: &SourceResource| -> Vec<usize> {
        let mut d = Vec::new();
        // What the source's configuration refers to is declared first, as a reference needs.
        if let Some(origin) = &r.origin {
            d.extend(
                origin.references.iter().filter_map(|x| by_name.get(x.target.as_str())).copied(),
            );
            let in_templates =
                origin.templates.iter().flat_map(|t| &t.parts).filter_map(|p| match p {
                    crate::loops::OriginPart::Reference { target, .. } => Some(target.as_str()),
                    _ => None,
                });
            d.extend(in_templates.filter_map(|t| by_name.get(t)).copied());
        }
        d.extend(r.parent.as_deref().and_then(|p| index.get(p)).copied());
        d.extend(
            r.provider.as_deref().map(provider_urn).and_then(|p| index.get(p.as_str()).copied()),
        );
        d.extend(r.depends_on.iter().filter_map(|u| index.get(u.as_str())).copied());
        d
    };
    let mut order: Vec<usize> = Vec::with_capacity(chosen.len());
    let mut state = vec![0u8; chosen.len()]; // 0 new, 1 visiting, 2 done
    for start in 0..chosen.len() {
        let mut stack = vec![(start, 0usize)];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if state[node] == 2 {
                stack.pop();
                continue;
            }
            state[node] = 1;
            let ds = deps(chosen[node]);
            if *next < ds.len() {
                let d = ds[*next];
                *next += 1;
                if state[d] == 0 {
                    stack.push((d, 0));
                }
            } else {
                state[node] = 2;
                order.push(node);
                stack.pop();
            }
        }
    }
    let ordered: Vec<&SourceResource> = order.iter().map(|&i| chosen[i]).collect();
    let slot: HashMap<&str, usize> =
        ordered.iter().enumerate().map(|(i, r)| (r.urn.as_str(), i)).collect();
    let targets: BTreeSet<&str> = resources.iter().map(|r| r.urn.as_str()).collect();

    let mut lowering = Lowering {
        schemas,
        options,
        report: Report { warnings, ..Default::default() },
        config: Vec::new(),
        config_names: NameTable::new(&[], []),
        variable_settings: HashMap::new(),
    };
    // A variable's key is its name in the source's configuration (what the stack's config
    // holds): claimed before any secret's key is made.
    let variables: BTreeSet<&str> = ordered
        .iter()
        .filter_map(|r| r.origin.as_ref())
        .flat_map(|o| {
            let in_templates = o.templates.iter().flat_map(|t| &t.parts).filter_map(|p| match p {
                crate::loops::OriginPart::Variable { name, .. } => Some(name.as_str()),
                _ => None,
            });
            o.variables.iter().map(|v| v.name.as_str()).chain(in_templates)
        })
        .collect();
    for name in variables {
        lowering.config_names.claim(name, "Value");
    }
    let mut packages = BTreeMap::new();
    let mut out = Vec::with_capacity(ordered.len());
    for r in &ordered {
        let package = provider_package(&r.token).unwrap_or_else(|| package_of(&r.token));
        if !r.custom {
            let mut options = IrOptions {
                parent: r.parent.as_deref().and_then(|p| slot.get(p)).copied(),
                ..Default::default()
            };
            options.alias_urn = Some(r.urn.clone());
            out.push(Resource {
                name: r.name.clone(),
                kind: Kind::Component { token: r.token.clone() },
                args: Vec::new(),
                options,
                note: Some(crate::names::Comment::new(&format!(
                    "the `{}` component your program declares; a plain component with the same type and name keeps the URNs",
                    r.token
                ))),
            });
            continue;
        }
        let schema = lowering
            .schemas
            .get(package)
            .ok_or_else(|| LowerError::NoSchema(package.to_string()))?;
        if !packages.contains_key(package) {
            packages.insert(package.to_string(), package_of_schema(schema)?);
        }
        let is_provider = provider_package(&r.token).is_some();
        let rtype = schema.resource(&r.token);
        let ty = match rtype {
            Some(t) => t.token.clone(),
            None => {
                lowering.report.warnings.push(format!(
                    "`{}`: the `{package}` schema has no resource `{}`; its properties are untyped",
                    r.name, r.token
                ));
                TypeRef::parse(&r.token).ok_or_else(|| {
                    LowerError::Invalid(format!(
                        "`{}`: the type `{}` is not a type token (`<package>:<module>:<Name>`)",
                        r.name, r.token
                    ))
                })?
            }
        };
        let keep = !lowering.options.elide
            || lowering.options.keep_all.contains(&r.name)
            || lowering.options.keep_all.contains(&r.urn);
        let mut args = Vec::new();
        for (k, v) in &r.inputs {
            if k.starts_with("__") || (is_provider && k == "version") {
                continue;
            }
            let p = rtype.and_then(|t| t.inputs.get(k));
            if rtype.is_some() && p.is_none() {
                lowering.report.warnings.push(format!(
                    "`{}`: `{k}` is not an input of `{}`; left out",
                    r.name, r.token
                ));
                continue;
            }
            // An untyped resource's input is passed by its name as it is: one that is no
            // identifier could not be passed (Python and Go spell inputs as identifiers) and is
            // never printed as code.
            if p.is_none() && !Ident::is_plain(k, PYTHON_KEYWORDS) {
                lowering.report.warnings.push(format!(
                    "`{}`: the input {k:?} is not a name the SDKs can pass; left out",
                    r.name
                ));
                continue;
            }
            let required = rtype.is_some_and(|t| t.required.iter().any(|q| q == k));
            // A property the source's configuration set from a variable is kept, as it wrote it.
            let verified_needed =
                lowering.options.keep_properties.get(&r.urn).is_some_and(|kept| kept.contains(k))
                    || r.origin.as_ref().is_some_and(|o| {
                        o.variables.iter().any(|v| v.property == *k)
                            || o.templates.iter().any(|t| t.property == *k)
                    });
            if !keep && !verified_needed {
                if let Some(reason) = elidable(v, p, required) {
                    lowering.report.elided.push(Elided {
                        resource: r.name.clone(),
                        property: k.clone(),
                        reason: reason.into(),
                    });
                    continue;
                }
            }
            let ty = p.map(|p| p.ty.clone()).unwrap_or(Type::Any);
            // A property the schema marks secret is a secret even when the value is not marked.
            let value = if p.is_some_and(|p| p.secret) && !matches!(v, PropertyValue::Null) {
                lowering.secret(&r.name, k, &ty)
            } else {
                lowering.value(v, &ty, schema, &r.name, k)
            };
            if value == Value::Null && !required {
                continue;
            }
            args.push(Field { name: lowering.field_name(p, k), ty, value });
        }
        let mut options = IrOptions {
            protect: r.protect
                || (targets.contains(r.urn.as_str()) && lowering.options.style == CodeStyle::Cli),
            parent: r.parent.as_deref().and_then(|p| slot.get(p)).copied(),
            provider: r
                .provider
                .as_deref()
                .map(provider_urn)
                .and_then(|p| slot.get(p.as_str()).copied()),
            ignore_changes: r.ignore_changes.clone(),
            depends_on: r.depends_on.iter().filter_map(|u| slot.get(u.as_str())).copied().collect(),
            import_id: None,
            alias_urn: Some(r.urn.clone()),
        };
        if lowering.options.style == CodeStyle::CodeFirst
            && targets.contains(r.urn.as_str())
            && !is_provider
        {
            let id = r.import_id.clone().or_else(|| r.id.clone());
            // Some import IDs are the secret itself (a password imported by its value).
            let secret = id.as_deref().is_some_and(|id| {
                id == "[secret]" || r.outputs.values().any(|v| v.holds_secret_string(id, false))
            });
            if secret {
                lowering.report.warnings.push(format!(
                    "`{}` is imported by a secret ID, which Ferry never writes into code: import it with `pulumi import` or a Ferry commit (CLI style)",
                    r.name
                ));
            } else {
                options.import_id = id;
            }
            options.protect = r.protect;
        }
        let note = r
            .origin
            .as_ref()
            .map(|o| crate::names::Comment::new(&format!("{}: {}", o.tool, o.address)));
        out.push(Resource {
            name: r.name.clone(),
            kind: Kind::Custom { ty, provider: is_provider },
            args,
            options,
            note,
        });
    }

    crate::connections::configured_references(&mut out, &ordered, &mut lowering);
    crate::connections::configured_variables(&mut out, &ordered, &mut lowering);
    crate::connections::configured_templates(&mut out, &ordered, &mut lowering);
    if lowering.options.references {
        crate::connections::references(&mut out, &ordered, &mut lowering);
    }
    let origins: Vec<Option<&Origin>> = ordered.iter().map(|r| r.origin.as_ref()).collect();
    let loops = crate::loops::find(&out, &origins);
    let mut report = lowering.report;
    report.references.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(Program {
        project: project.to_string(),
        packages,
        config: lowering.config,
        resources: out,
        loops,
        report,
    })
}

/// Each name that one resource of `resources` has, and its index.
pub(crate) fn unique_names<'a>(resources: &[&'a SourceResource]) -> HashMap<&'a str, usize> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in resources {
        *count.entry(r.name.as_str()).or_default() += 1;
    }
    resources
        .iter()
        .enumerate()
        .filter(|(_, r)| count[r.name.as_str()] == 1)
        .map(|(i, r)| (r.name.as_str(), i))
        .collect()
}
