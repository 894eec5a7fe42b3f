//! What connects the lowered resources beyond their values: the references and variables the
//! source's configuration made (the user's own, kept), and references guessed from literals
//! equal to another resource's ID, `name` or `arn`.

use std::collections::{BTreeSet, HashMap};

use ferry_property::PropertyValue;

use crate::ir::{ConfigSetting, Piece, ReferenceSuggestion, Resource, Value};
use crate::loops::OriginPart;
use crate::lower::{unique_names, Lowering, SourceResource};
use crate::schema::Type;

/// The references the source's configuration made (its [`Origin::references`]): the user's
/// own, so they are kept whatever the literal matching finds, unless turned off by key.
pub(crate) fn configured_references(
    out: &mut [Resource],
    sources: &[&SourceResource],
    lowering: &mut Lowering<'_>,
) {
    let by_name = unique_names(sources);
    for (at, source) in sources.iter().enumerate() {
        let Some(origin) = &source.origin else { continue };
        for reference in &origin.references {
            // As literal matching names a place (`a.tags.owner`, `a.inputs[0]`).
            let key = match (reference.element, &reference.key) {
                (Some(n), _) => format!("{}.{}[{n}]", out[at].name, reference.property),
                (None, Some(k)) => format!("{}.{}.{k}", out[at].name, reference.property),
                (None, None) => format!("{}.{}", out[at].name, reference.property),
            };
            if lowering.options.reference_exclusions.contains(&key) {
                continue;
            }
            let target = by_name.get(reference.target.as_str()).copied().filter(|t| *t < at);
            let Some(target) = target else {
                lowering.report.warnings.push(format!(
                    "`{}`: `{}` refers to `{}`, which the code cannot reach before it; the value is written out",
                    out[at].name, reference.property, reference.target
                ));
                continue;
            };
            let Some(field) = out[at].args.iter_mut().find(|f| f.name.schema == reference.property)
            else {
                continue;
            };
            let slot = match (reference.element, &reference.key, &mut field.value) {
                (None, None, value) => Some(value),
                (Some(n), None, Value::List(items, _)) => items.get_mut(n),
                (None, Some(k), Value::Map(entries, _)) => {
                    entries.iter_mut().find(|(e, _)| e == k).map(|(_, v)| v)
                }
                _ => None,
            };
            if let Some(slot) = slot {
                *slot =
                    Value::Ref { resource: target, property: reference.target_property.clone() };
                lowering.report.references.push(ReferenceSuggestion {
                    resource: out[at].name.clone(),
                    property: reference.property.clone(),
                    target: out[target].name.clone(),
                    target_property: reference.target_property.clone(),
                    key,
                });
            }
        }
    }
}

/// The variables the source's configuration set properties from (its [`Origin::variables`]):
/// each read once from stack config, its default the value the first use holds; a use whose
/// value or type is another, or that is no value config holds (text, a number, a boolean, a
/// list of text), keeps its value and says why.
pub(crate) fn configured_variables(
    out: &mut [Resource],
    sources: &[&SourceResource],
    lowering: &mut Lowering<'_>,
) {
    for (at, source) in sources.iter().enumerate() {
        let Some(origin) = &source.origin else { continue };
        for variable in &origin.variables {
            let name = out[at].name.clone();
            let Some(field) = out[at].args.iter_mut().find(|f| f.name.schema == variable.property)
            else {
                continue;
            };
            let holdable = match (&field.value, &field.ty) {
                (Value::String(_), Type::String)
                | (Value::Bool(_), Type::Bool)
                | (Value::Int(_), Type::Int | Type::Number) => true,
                (Value::Number(_), Type::Number) => true,
                (Value::List(items, Type::String), Type::List(_)) => {
                    items.iter().all(|x| matches!(x, Value::String(_)))
                }
                _ => false,
            };
            if !holdable {
                lowering.report.warnings.push(format!(
                    "`{name}`: `{}` is var.{} in the configuration, but its value is not one stack config holds here; the value is written out",
                    variable.property, variable.name
                ));
                continue;
            }
            let setting = ConfigSetting {
                key: variable.name.clone(),
                ty: field.ty.clone(),
                resource: name.clone(),
                property: variable.property.clone(),
                default: Some(field.value.clone()),
            };
            match variable_setting(lowering, setting) {
                Ok(config) => field.value = Value::Config { config },
                Err(other) => {
                    let other = &lowering.config[other];
                    lowering.report.warnings.push(format!(
                        "`{name}`: `{}` is var.{} in the configuration, but holds another value or type than `{}`'s `{}`; the value is written out",
                        variable.property, variable.name, other.resource, other.property
                    ));
                }
            }
        }
    }
}

/// The templates the source's configuration wrote text properties as (its
/// [`Origin::templates`]): each becomes text made of its pieces, a reference to a resource
/// declared before, a variable read from stack config as text (the same setting as the
/// variable's other uses, when they hold the same text), the rest as written. A piece that
/// cannot be said so (a resource the code cannot reach before, a variable config holds as
/// another value or type) is its text, and says why.
pub(crate) fn configured_templates(
    out: &mut [Resource],
    sources: &[&SourceResource],
    lowering: &mut Lowering<'_>,
) {
    let by_name = unique_names(sources);
    for (at, source) in sources.iter().enumerate() {
        let Some(origin) = &source.origin else { continue };
        'template: for template in &origin.templates {
            let name = out[at].name.clone();
            let mut pieces = Vec::new();
            for part in &template.parts {
                let piece = match part {
                    OriginPart::Text(text) => Piece::Text(text.clone()),
                    OriginPart::Reference { target, target_property } => {
                        match by_name.get(target.as_str()).copied().filter(|t| *t < at) {
                            Some(t) => Piece::Value(Value::Ref {
                                resource: t,
                                property: target_property.clone(),
                            }),
                            None => {
                                lowering.report.warnings.push(format!(
                                    "`{name}`: `{}` refers to `{target}`, which the code cannot reach before it; the value is written out",
                                    template.property
                                ));
                                continue 'template;
                            }
                        }
                    }
                    OriginPart::Variable { name: variable, text } => {
                        let setting = ConfigSetting {
                            key: variable.clone(),
                            ty: Type::String,
                            resource: name.clone(),
                            property: template.property.clone(),
                            default: Some(Value::String(text.clone())),
                        };
                        match variable_setting(lowering, setting) {
                            Ok(config) => Piece::Value(Value::Config { config }),
                            Err(other) => {
                                let other = &lowering.config[other];
                                lowering.report.warnings.push(format!(
                                    "`{name}`: `{}` holds var.{variable} as the text {text:?}, another value or type than `{}`'s `{}`; the text is written out",
                                    template.property, other.resource, other.property
                                ));
                                Piece::Text(text.clone())
                            }
                        }
                    }
                };
                pieces.push(piece);
            }
            let Some(field) = out[at].args.iter_mut().find(|f| f.name.schema == template.property)
            else {
                continue;
            };
            let slot = match (&template.key, &mut field.value) {
                (None, value @ Value::String(_)) => Some(value),
                (Some(k), Value::Map(entries, _)) => entries
                    .iter_mut()
                    .find(|(e, v)| e == k && matches!(v, Value::String(_)))
                    .map(|(_, v)| v),
                _ => None,
            };
            if let Some(slot) = slot {
                *slot = Value::Interpolate(pieces);
            }
        }
    }
}

/// The config setting a source variable is read from: the one its earlier uses made, when it
/// has `setting`'s type and default; `setting`, added, at the first use; `Err` with the earlier
/// setting when this use holds another value or type (one variable is one setting).
fn variable_setting(lowering: &mut Lowering<'_>, setting: ConfigSetting) -> Result<usize, usize> {
    match lowering.variable_settings.get(&setting.key) {
        Some(&c) => {
            let earlier = &lowering.config[c];
            if earlier.ty == setting.ty && earlier.default == setting.default {
                Ok(c)
            } else {
                Err(c)
            }
        }
        None => {
            lowering.variable_settings.insert(setting.key.clone(), lowering.config.len());
            lowering.config.push(setting);
            Ok(lowering.config.len() - 1)
        }
    }
}

/// Literals equal to a unique ID, `name` or `arn` of a resource declared earlier become
/// references to it.
pub(crate) fn references(
    out: &mut [Resource],
    sources: &[&SourceResource],
    lowering: &mut Lowering<'_>,
) {
    let mut candidates: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
    for (i, r) in sources.iter().enumerate() {
        if !r.custom || r.token.starts_with("pulumi:providers:") {
            continue;
        }
        if let Some(id) = r.id.as_deref().filter(|id| id.len() >= 4 && *id != "none") {
            candidates.entry(id).or_default().push((i, "id"));
        }
        for key in ["name", "arn"] {
            if let Some(PropertyValue::String(s)) = r.outputs.get(key) {
                if s.len() >= 4 {
                    candidates.entry(s.as_str()).or_default().push((i, key));
                }
            }
        }
    }
    let unique: HashMap<String, (usize, String)> = candidates
        .into_iter()
        .filter(|(_, v)| v.iter().map(|(i, _)| i).collect::<BTreeSet<_>>().len() == 1)
        .map(|(k, v)| (k.to_string(), (v[0].0, v[0].1.to_string())))
        .collect();
    for i in 0..out.len() {
        let name = out[i].name.clone();
        let mut fields = std::mem::take(&mut out[i].args);
        for f in &mut fields {
            let path = f.name.schema.clone();
            replace_literals(&mut f.value, &path, i, &name, &unique, out, lowering);
        }
        out[i].args = fields;
    }
}

fn replace_literals(
    v: &mut Value,
    path: &str,
    at: usize,
    resource: &str,
    unique: &HashMap<String, (usize, String)>,
    out: &[Resource],
    lowering: &mut Lowering<'_>,
) {
    match v {
        Value::String(s) => {
            if let Some((target, property)) = unique.get(s.as_str()) {
                // Only to resources declared before this one (no cycles, no forward use).
                if *target < at {
                    let key = format!("{resource}.{path}");
                    if !lowering.options.reference_exclusions.contains(&key) {
                        lowering.report.references.push(ReferenceSuggestion {
                            resource: resource.to_string(),
                            property: path.to_string(),
                            target: out[*target].name.clone(),
                            target_property: property.clone(),
                            key,
                        });
                        *v = Value::Ref { resource: *target, property: property.clone() };
                    }
                }
            }
        }
        Value::List(items, _) => {
            for (n, x) in items.iter_mut().enumerate() {
                replace_literals(x, &format!("{path}[{n}]"), at, resource, unique, out, lowering);
            }
        }
        Value::Map(entries, _) => {
            for (k, x) in entries.iter_mut() {
                replace_literals(x, &format!("{path}.{k}"), at, resource, unique, out, lowering);
            }
        }
        Value::Object(_, fields) => {
            for f in fields.iter_mut() {
                let p = format!("{path}.{}", f.name.schema);
                replace_literals(&mut f.value, &p, at, resource, unique, out, lowering);
            }
        }
        _ => {}
    }
}
