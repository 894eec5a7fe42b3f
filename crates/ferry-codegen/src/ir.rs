//! The intermediate form every language is printed from: resources in declaration order, their
//! typed arguments, options, references and the secret config values they read. Built once per
//! request by [`crate::lower`]; printing never re-parses anything.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::schema::{Type, TypeRef};

/// A package the code uses, and how each language names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Package {
    pub name: String,
    pub version: Option<String>,
    pub nodejs: String,
    pub python_package: String,
    pub python_module: String,
    pub go_import: String,
    pub csharp_namespace: String,
}

/// A property in each language's spelling.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldName {
    /// As the schema (and the SDKs' object keys in TypeScript and YAML, always quoted where
    /// it is no identifier) spells it.
    pub schema: String,
    pub python: crate::names::Ident,
    pub go: crate::names::Ident,
    pub csharp: crate::names::Ident,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: FieldName,
    pub ty: Type,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Number(f64),
    String(String),
    List(Vec<Value>, Type),
    /// Free-form keys.
    Map(Vec<(String, Value)>, Type),
    /// A schema object type.
    Object(TypeRef, Vec<Field>),
    /// An enum member: its name and value.
    Enum(TypeRef, String, serde_json::Value),
    /// A secret: read from stack config (`Program::config[config]`).
    Secret {
        config: usize,
        ty: Type,
    },
    /// A setting the source's configuration made a variable of: read from stack config
    /// (`Program::config[config]`), its default the value the resource holds.
    Config {
        config: usize,
    },
    /// Another generated resource's property (`id`, `urn`, or an output).
    Ref {
        resource: usize,
        property: String,
    },
    Asset(AssetKind, String),
    Archive(AssetKind, String),
    /// Any JSON (untyped properties).
    Json(serde_json::Value),
    /// In a loop's resource ([`Loop::template`]): the value of the loop's slot with this index
    /// for the instance being made.
    PerKey(usize),
    /// Text made of text and other values (references, config), as the source's configuration
    /// wrote it (`"${var.env}-${aws_s3_bucket.b.id}"`).
    Interpolate(Vec<Piece>),
}

/// A piece of [`Value::Interpolate`].
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    /// A [`Value::Ref`] or a [`Value::Config`].
    Value(Value),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssetKind {
    Text,
    File,
    Remote,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A resource of a package (a provider resource when `provider`).
    Custom { ty: TypeRef, provider: bool },
    /// A component the generated code does not import but its resources need as parent: a
    /// plain component with the same type and name keeps their URNs.
    Component { token: String },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    pub protect: bool,
    pub parent: Option<usize>,
    pub provider: Option<usize>,
    pub ignore_changes: Vec<String>,
    pub depends_on: Vec<usize>,
    /// Code-first style: the `import` option.
    pub import_id: Option<String>,
    /// The URN the resource had, for languages that cannot declare its parent (YAML).
    pub alias_urn: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// The name variables are made from (the logical name).
    pub name: String,
    pub kind: Kind,
    pub args: Vec<Field>,
    pub options: Options,
    /// A comment for the reader (why something is as it is).
    pub note: Option<crate::names::Comment>,
}

impl Resource {
    /// The resources this one uses: references in its arguments, parent, provider, `dependsOn`.
    pub fn uses(&self) -> std::collections::BTreeSet<usize> {
        fn walk(v: &Value, out: &mut std::collections::BTreeSet<usize>) {
            match v {
                Value::Ref { resource, .. } => {
                    out.insert(*resource);
                }
                Value::List(items, _) => items.iter().for_each(|x| walk(x, out)),
                Value::Map(entries, _) => entries.iter().for_each(|(_, x)| walk(x, out)),
                Value::Object(_, fields) => fields.iter().for_each(|f| walk(&f.value, out)),
                Value::Interpolate(pieces) => pieces.iter().for_each(|p| {
                    if let Piece::Value(v) = p {
                        walk(v, out)
                    }
                }),
                _ => {}
            }
        }
        let o = &self.options;
        let mut out: std::collections::BTreeSet<usize> =
            o.parent.into_iter().chain(o.provider).chain(o.depends_on.iter().copied()).collect();
        self.args.iter().for_each(|f| walk(&f.value, &mut out));
        out
    }
}

/// A value the code reads from stack config: a secret (which must be set), or a variable of
/// the source's configuration (which falls back to its default).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigSetting {
    pub key: String,
    #[serde(skip)]
    pub ty: Type,
    /// Which resource property it came from (the first, for a variable several use).
    pub resource: String,
    pub property: String,
    /// A variable's value when the stack sets none (`None`: a secret, never written here).
    #[serde(skip)]
    pub default: Option<Value>,
}

impl ConfigSetting {
    pub fn secret(&self) -> bool {
        self.default.is_none()
    }
}

/// What was done to make the code small and connected.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Report {
    /// Properties left out: only a schema default or a zero value Read returned.
    pub elided: Vec<Elided>,
    /// Literals turned into references to other imported resources.
    pub references: Vec<ReferenceSuggestion>,
    /// `pulumi config set --secret` commands, one per secret.
    pub config_commands: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Elided {
    pub resource: String,
    pub property: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReferenceSuggestion {
    pub resource: String,
    /// The property holding the literal (`subnetId`, `tags.owner`).
    pub property: String,
    pub target: String,
    pub target_property: String,
    /// Pass this to turn the suggestion off (`resource.property`).
    pub key: String,
}

/// Instances of one declaration (Terraform's `count` or `for_each`) written as one loop: the
/// languages with loops declare [`Loop::template`] once per key, where YAML lists the members.
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    /// The declaration's address in its source (`module.web.aws_s3_bucket.logs`).
    pub declaration: String,
    /// A comment for the reader: where the loop came from.
    pub note: crate::names::Comment,
    /// What the loop's variable is named from.
    pub name: String,
    /// The instances (indices into [`Program::resources`], in order) and their keys.
    pub members: Vec<usize>,
    pub keys: Vec<String>,
    /// The keys are `count`'s indexes: numbers in the code, as the configuration had them
    /// (`for_each`'s are text, even when they look like numbers).
    pub numeric: bool,
    /// The first instance, its per-key values replaced by [`Value::PerKey`]; its `name` and
    /// import ID are the slots [`Loop::name_slot`] and [`Loop::import_slot`].
    pub template: Resource,
    pub slots: Vec<Slot>,
    pub name_slot: usize,
    pub import_slot: Option<usize>,
}

impl Loop {
    /// Where the loop is declared: at its last instance, so whatever an instance uses is
    /// declared before it.
    pub fn at(&self) -> usize {
        *self.members.last().expect("a loop has instances")
    }

    /// The slots whose values the per-key map holds (the rest are made from the key).
    pub fn mapped_slots(&self) -> impl Iterator<Item = (usize, &Slot, &Vec<Value>)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| match &s.values {
            SlotValues::PerKey(values) => Some((i, s, values)),
            SlotValues::FromKey { .. } => None,
        })
    }
}

/// A value that differs between a loop's instances.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// A name for it (camelCase; each language spells it its way).
    pub name: String,
    pub ty: Type,
    pub values: SlotValues,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SlotValues {
    /// Text made from the key: `prefix + key + suffix` for every instance.
    FromKey { prefix: String, suffix: String },
    /// A scalar literal per instance (all of one kind), in the order of [`Loop::keys`].
    PerKey(Vec<Value>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub project: String,
    pub packages: BTreeMap<String, Package>,
    pub config: Vec<ConfigSetting>,
    pub resources: Vec<Resource>,
    /// Resources written as loops, where a language has them; each resource is in one loop at most.
    pub loops: Vec<Loop>,
    pub report: Report,
}
