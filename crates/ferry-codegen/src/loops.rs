//! Loops: the instances of one declaration (Terraform's `count` or `for_each`) that differ only by
//! values tied to their key become one loop over the keys, with the per-key values in a map,
//! as the configuration they came from had them. Instances that differ in anything else (a
//! secret, a reference, a shape, an option) stay separate resources: a loop never changes
//! what a program declares.

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Field, Kind, Loop, Resource, Slot, SlotValues, Value};
use crate::names::{camel, NameTable};
use crate::schema::Type;

/// A resource's address in the tool that managed it before (Terraform), shown as a comment;
/// and for one of the instances of a declaration (`count`, `for_each`), the declaration and
/// the instance's key, which make loops.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Origin {
    /// The tool's name (`Terraform`).
    pub tool: String,
    pub address: String,
    pub instance: Option<(String, String)>,
    /// What the tool's configuration computes from other resources: said as references.
    pub references: Vec<OriginReference>,
    /// What the tool's configuration takes from its variables: read from stack config.
    pub variables: Vec<OriginVariable>,
    /// What the tool's configuration writes as text made of references and variables.
    pub templates: Vec<OriginTemplate>,
}

/// A text property (or one key's value of a map property) that the source's configuration
/// writes as a template (`"${var.env}-${aws_s3_bucket.b.id}"`): the code says it as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginTemplate {
    /// The property's schema name.
    pub property: String,
    pub key: Option<String>,
    pub parts: Vec<OriginPart>,
}

/// A piece of an [`OriginTemplate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPart {
    Text(String),
    /// Another resource's output: its name, the property.
    Reference {
        target: String,
        target_property: String,
    },
    /// A variable (the config key) and the text it held.
    Variable {
        name: String,
        text: String,
    },
}

/// A property the source's configuration sets from one of its (root) variables
/// (`bucket = var.bucket_name`): the code reads it from stack config, the variable's name its
/// key, with the resource's value as the default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginVariable {
    /// The property's schema name.
    pub property: String,
    /// The variable's name: the config key.
    pub name: String,
}

/// A property (or one element of a list property, or one key's value of a map property) that the
/// source's configuration computes from another resource's output (`bucket = aws_s3_bucket.b.id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginReference {
    /// The property's schema name.
    pub property: String,
    pub element: Option<usize>,
    /// The key of a map property, when only its value there is the reference.
    pub key: Option<String>,
    /// The other resource's name.
    pub target: String,
    pub target_property: String,
}

/// The loops among `resources` (in declaration order); `origins[i]` says where resource `i`
/// came from.
pub(crate) fn find(resources: &[Resource], origins: &[Option<&Origin>]) -> Vec<Loop> {
    let mut groups: BTreeMap<(&str, &str), Vec<(usize, &str)>> = BTreeMap::new();
    for (i, origin) in origins.iter().enumerate() {
        if let Some(o) = origin {
            if let Some((declaration, key)) = &o.instance {
                groups
                    .entry((o.tool.as_str(), declaration.as_str()))
                    .or_default()
                    .push((i, key.as_str()));
            }
        }
    }
    let uses: Vec<BTreeSet<usize>> = resources.iter().map(Resource::uses).collect();
    let mut loops = Vec::new();
    for ((tool, declaration), members) in groups {
        if members.len() < 2 {
            continue;
        }
        let indices: Vec<usize> = members.iter().map(|(i, _)| *i).collect();
        if !placeable(&indices, &uses) {
            continue;
        }
        let instances: Vec<&Resource> = indices.iter().map(|&i| &resources[i]).collect();
        let keys: Vec<String> = members.iter().map(|(_, k)| k.to_string()).collect();
        // A `count` index is written bare in the address (`pets[0]`), a `for_each` key quoted.
        let numeric = members.iter().all(|(i, k)| {
            k.parse::<i64>().is_ok()
                && origins[*i].is_some_and(|o| o.address.ends_with(&format!("[{k}]")))
        });
        if let Some(mut l) = make_loop(declaration, &instances, indices, keys) {
            l.numeric = numeric;
            l.note = crate::names::Comment::new(&format!("{tool}: {declaration}, one per key"));
            loops.push(l);
        }
    }
    loops.sort_by_key(Loop::at);
    loops
}

/// Whether the loop can stand at its last member: no member uses another, and nothing declared
/// between its first and last member uses one (it would come before the loop that makes it).
fn placeable(members: &[usize], uses: &[BTreeSet<usize>]) -> bool {
    let set: BTreeSet<usize> = members.iter().copied().collect();
    let (first, last) = (members[0], members[members.len() - 1]);
    (first..=last).all(|j| uses[j].is_disjoint(&set))
}

/// `v` (of type `ty`) with its scalar literals replaced by `PerKey(n)`, n counting them in
/// order; the literals are pushed to `leaves` with their paths and types. Two values of the same
/// shape have equal skeletons.
fn skeleton(v: &Value, ty: &Type, path: &str, leaves: &mut Vec<Leaf>) -> Value {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Number(_) | Value::String(_) => {
            leaves.push(Leaf { path: path.to_string(), value: v.clone(), ty: ty.clone() });
            Value::PerKey(leaves.len() - 1)
        }
        Value::List(items, t) => Value::List(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| skeleton(x, t, &format!("{path} {i}"), leaves))
                .collect(),
            t.clone(),
        ),
        Value::Map(entries, t) => Value::Map(
            entries
                .iter()
                .map(|(k, x)| (k.clone(), skeleton(x, t, &format!("{path} {k}"), leaves)))
                .collect(),
            t.clone(),
        ),
        Value::Object(t, fields) => Value::Object(
            t.clone(),
            fields.iter().map(|f| field_skeleton(f, path, leaves)).collect(),
        ),
        other => other.clone(),
    }
}

/// A scalar literal of an instance's arguments: where it is, what it is, and its type.
struct Leaf {
    path: String,
    value: Value,
    ty: Type,
}

fn field_skeleton(f: &Field, path: &str, leaves: &mut Vec<Leaf>) -> Field {
    Field {
        name: f.name.clone(),
        ty: f.ty.clone(),
        value: skeleton(&f.value, &f.ty, &format!("{path} {}", f.name.schema), leaves),
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// `prefix + key + suffix` for every instance's `values`, when there is such a pair.
fn from_key(values: &[&str], keys: &[String]) -> Option<(String, String)> {
    let (first, key) = (values[0], &keys[0]);
    first.match_indices(key.as_str()).find_map(|(at, _)| {
        let (prefix, suffix) = (&first[..at], &first[at + key.len()..]);
        values
            .iter()
            .zip(keys)
            .all(|(v, k)| {
                v.len() == prefix.len() + k.len() + suffix.len()
                    && v.starts_with(prefix)
                    && v.ends_with(suffix)
                    && &v[prefix.len()..v.len() - suffix.len()] == k
            })
            .then(|| (prefix.to_string(), suffix.to_string()))
    })
}

fn make_loop(
    declaration: &str,
    instances: &[&Resource],
    members: Vec<usize>,
    keys: Vec<String>,
) -> Option<Loop> {
    let first = instances[0];
    match &first.kind {
        Kind::Custom { provider: false, .. } => {}
        _ => return None,
    }
    let plain = |r: &Resource| {
        let mut o = r.options.clone();
        o.import_id = None;
        o.alias_urn = None;
        o
    };
    if instances.iter().any(|r| {
        r.kind != first.kind
            || plain(r) != plain(first)
            || r.options.import_id.is_some() != first.options.import_id.is_some()
    }) {
        return None;
    }
    // Every instance's arguments as a skeleton and its leaves: equal skeletons, one shape.
    let mut shapes = Vec::with_capacity(instances.len());
    for r in instances {
        let mut leaves = Vec::new();
        let fields: Vec<Field> =
            r.args.iter().map(|f| field_skeleton(f, "", &mut leaves)).collect();
        shapes.push((fields, leaves));
    }
    if shapes
        .iter()
        .any(|(fields, leaves)| *fields != shapes[0].0 || leaves.len() != shapes[0].1.len())
    {
        return None;
    }
    let mut names = NameTable::new(&[], ["name".to_string(), "importId".to_string()]);
    let mut slots =
        vec![text_slot("name".into(), instances.iter().map(|r| r.name.as_str()).collect(), &keys)];
    let import_slot = first.options.import_id.as_ref().map(|_| {
        slots.push(text_slot(
            "importId".into(),
            instances.iter().map(|r| r.options.import_id.as_deref().unwrap_or_default()).collect(),
            &keys,
        ));
        slots.len() - 1
    });
    // Each leaf: the same literal everywhere stays in the template; else it is a slot.
    let mut template_leaves: Vec<Value> = Vec::with_capacity(shapes[0].1.len());
    for (n, Leaf { path, value, ty }) in shapes[0].1.iter().enumerate() {
        let column: Vec<&Value> = shapes.iter().map(|(_, leaves)| &leaves[n].value).collect();
        if column.iter().all(|v| *v == value) {
            template_leaves.push(value.clone());
            continue;
        }
        if !column.iter().all(|v| same_kind(v, value)) {
            return None;
        }
        let name = names.claim(&camel(path.trim()), "Value");
        let values = match value {
            Value::String(_) => {
                let texts: Vec<&str> = column
                    .iter()
                    .map(|v| if let Value::String(s) = v { s.as_str() } else { "" })
                    .collect();
                text_slot(String::new(), texts, &keys).values
            }
            _ => SlotValues::PerKey(column.into_iter().cloned().collect()),
        };
        slots.push(Slot { name, ty: ty.clone(), values });
        template_leaves.push(Value::PerKey(slots.len() - 1));
    }
    let mut template = first.clone();
    template.args =
        shapes.swap_remove(0).0.into_iter().map(|f| fill(f, &template_leaves)).collect();
    template.options.alias_urn = None;
    let name = declaration.rsplit('.').next().unwrap_or(declaration).to_string();
    Some(Loop {
        declaration: declaration.to_string(),
        note: Default::default(),
        name,
        members,
        keys,
        numeric: false,
        template,
        slots,
        name_slot: 0,
        import_slot,
    })
}

fn text_slot(name: String, texts: Vec<&str>, keys: &[String]) -> Slot {
    let values = match from_key(&texts, keys) {
        Some((prefix, suffix)) => SlotValues::FromKey { prefix, suffix },
        None => {
            SlotValues::PerKey(texts.into_iter().map(|t| Value::String(t.to_string())).collect())
        }
    };
    Slot { name, ty: Type::String, values }
}

/// A skeleton field with its `PerKey(n)` leaves replaced by `leaves[n]`.
fn fill(f: Field, leaves: &[Value]) -> Field {
    fn value(v: Value, leaves: &[Value]) -> Value {
        match v {
            Value::PerKey(n) => leaves[n].clone(),
            Value::List(items, t) => {
                Value::List(items.into_iter().map(|x| value(x, leaves)).collect(), t)
            }
            Value::Map(entries, t) => {
                Value::Map(entries.into_iter().map(|(k, x)| (k, value(x, leaves))).collect(), t)
            }
            Value::Object(t, fields) => {
                Value::Object(t, fields.into_iter().map(|f| fill(f, leaves)).collect())
            }
            other => other,
        }
    }
    Field { value: value(f.value, leaves), ..f }
}
