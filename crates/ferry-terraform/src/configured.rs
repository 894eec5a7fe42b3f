//! The configuration laid over a migration's imported instances: an argument that refers to
//! another imported resource's attribute becomes a reference to it (when the state agrees that
//! the value is that attribute's), a root variable becomes stack config holding the state's value
//! (when every use agrees), a string template of them a template, and whatever the state
//! contradicts (in nested blocks too) is said on the row, never guessed; locals and other
//! expressions keep the value the state holds.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::configuration::{
    declaration, Argument, Configuration, NestedBlock, NestedBlocks, Reference, TemplatePart,
};
use crate::state::{Instance, PathStep};
use crate::Row;

/// A property (or one element of a list property) that the configuration computes from another
/// imported resource's attribute: the program and the code say it as a reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfiguredReference {
    /// The property, as the program names it.
    pub property: String,
    /// The element of a list property, when only it is the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<usize>,
    /// The key of a map property, when only its value there is the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The referred resource's name in the program.
    pub target: String,
    /// Its property, as the program names it (`id` for Terraform's `id`).
    pub target_property: String,
}

/// A property the configuration sets from a root variable (`bucket = var.bucket_name`): the
/// program and the code read it from stack config, the state's value its default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfiguredVariable {
    /// The property, as the program names it.
    pub property: String,
    /// The variable: the config key.
    pub variable: String,
}

/// A text property (or one key's value of a map property) that the configuration writes as a
/// template of text, references to other imported resources and root variables
/// (`"${var.env}-${aws_s3_bucket.b.id}"`): the program and the code say it as one, a local's
/// piece the text the state implies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfiguredTemplate {
    /// The property, as the program names it.
    pub property: String,
    /// The key of a map property, when only its value there is the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub parts: Vec<ConfiguredPart>,
}

/// A piece of a [`ConfiguredTemplate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfiguredPart {
    Text(String),
    /// Another imported resource's property (its name in the program, the property's).
    Reference {
        target: String,
        target_property: String,
    },
    /// A root variable: its config key, and the text the state implies it held (the config's
    /// default in the code).
    Variable {
        name: String,
        text: String,
    },
}

impl ConfiguredTemplate {
    /// As the program writes it: a YAML string of its text (`$${` where the text holds `${`),
    /// `${target.property}` and `${variable}`.
    pub(crate) fn in_program(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                ConfiguredPart::Text(text) => out.push_str(&text.replace("${", "$${")),
                ConfiguredPart::Reference { target, target_property } => {
                    out.push_str(&format!("${{{target}.{target_property}}}"))
                }
                ConfiguredPart::Variable { name, .. } => out.push_str(&format!("${{{name}}}")),
            }
        }
        // Quoted as JSON (YAML reads it so) with the escapes already made.
        Value::String(out).to_string()
    }

    /// Whether anything of it is more than text (else the state's value says it all).
    fn connects(&self) -> bool {
        self.parts.iter().any(|p| !matches!(p, ConfiguredPart::Text(_)))
    }
}

impl ConfiguredReference {
    /// As the program writes it: `${target.property}`.
    pub(crate) fn in_program(&self) -> String {
        format!("${{{}.{}}}", self.target, self.target_property)
    }
}

/// What the configuration changes in a migration's program.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// By instance (its index in the state).
    pub references: BTreeMap<usize, Vec<ConfiguredReference>>,
    /// By instance: the properties whose value a variable's config gives.
    pub variables: BTreeMap<usize, Vec<ConfiguredVariable>>,
    /// By instance: the text properties written as templates.
    pub templates: BTreeMap<usize, Vec<ConfiguredTemplate>>,
    /// The program's config: each variable with its type and the state's value.
    pub config: BTreeMap<String, (&'static str, Value)>,
    /// What the configuration holds that no row shows.
    pub notes: Vec<String>,
}

/// What the overlay needs of the migration: the state's instances, which are imported and by
/// which name, each one's program inputs, and how a Terraform attribute is named in the program.
pub(crate) struct Imported<'a> {
    pub instances: &'a [Instance],
    /// Index in the state → name in the program.
    pub names: BTreeMap<usize, &'a str>,
    pub inputs: &'a BTreeMap<usize, Map<String, Value>>,
    pub property_name: &'a dyn Fn(usize, &str) -> String,
}

/// Lays `configuration` over `imported`, writing each row's source and notes.
pub(crate) fn apply(
    configuration: &Configuration,
    imported: &Imported<'_>,
    rows: &mut [Row],
) -> Applied {
    let mut applied = Applied { notes: configuration.notes.clone(), ..Default::default() };
    let mut by_declaration: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, inst) in imported.instances.iter().enumerate() {
        if inst.address.mode == crate::Mode::Managed {
            by_declaration.entry(declaration(&inst.address)).or_default().push(i);
        }
    }
    for declared in configuration.resources.keys() {
        if !by_declaration.contains_key(declared) {
            applied.notes.push(format!("`{declared}` is in the configuration but not in the state: Terraform has not created it, so nothing imports it"));
        }
    }
    let mut pending = Pending::default();
    for (i, inst) in imported.instances.iter().enumerate() {
        if inst.address.mode != crate::Mode::Managed || inst.deposed.is_some() {
            continue;
        }
        let Some(block) = configuration.resources.get(&declaration(&inst.address)) else {
            if imported.names.contains_key(&i) {
                rows[i].configuration_notes.push("not declared in the configuration given".into());
            }
            continue;
        };
        rows[i].configuration = Some(block.source.clone());
        let Some(inputs) = imported.inputs.get(&i) else { continue };
        // The attributes a sensitive path starts at.
        let sensitive_attributes: BTreeSet<&str> = inst
            .sensitive
            .iter()
            .filter_map(|path| match path.first() {
                Some(PathStep::Key(k)) => Some(k.as_str()),
                _ => None,
            })
            .collect();
        // Nested blocks hold no references the program could say: only what they contradict.
        contradicted_blocks(
            &block.blocks,
            &inst.attributes,
            "",
            &sensitive_attributes,
            &mut rows[i].configuration_notes,
        );
        for (attribute, argument) in &block.arguments {
            let property = (imported.property_name)(i, attribute);
            let Some(state_value) = inst.attributes.get(attribute) else { continue };
            let sensitive = sensitive_attributes.contains(attribute.as_str());
            if !inputs.contains_key(&property) {
                continue;
            }
            match argument {
                Argument::Literal(written) => {
                    if sensitive && !same(written, state_value) {
                        // Neither value is shown: either may be the secret.
                        rows[i]
                            .configuration_notes
                            .push(format!("`{attribute}` (sensitive) differs between the configuration and the state: the program keeps the state's"));
                    } else if !same(written, state_value) {
                        rows[i].configuration_notes.push(format!(
                            "`{attribute}` is {} in the configuration but {} in the state: the program keeps the state's",
                            shown(written),
                            shown(state_value)
                        ));
                    }
                }
                Argument::Reference(reference) if !sensitive => match resolve(reference, state_value, imported, &by_declaration, i) {
                    Ok((target, target_property)) => {
                        applied.references.entry(i).or_default().push(ConfiguredReference { property, element: None, key: None, target, target_property })
                    }
                    Err(why) => rows[i].configuration_notes.push(format!("`{attribute}` = {}: {why}", reference.text())),
                },
                Argument::List(items) if !sensitive => {
                    let Value::Array(values) = state_value else { continue };
                    // The program's list must be the state's, element for element.
                    let listed = matches!(&inputs[&property], Value::Array(program) if program.len() == values.len());
                    if !listed || values.len() != items.len() {
                        rows[i].configuration_notes.push(format!(
                            "`{attribute}` has {} elements in the configuration but {} in the state: the program keeps the state's",
                            items.len(),
                            values.len()
                        ));
                        continue;
                    }
                    for (n, (item, value)) in items.iter().zip(values).enumerate() {
                        if let Argument::Reference(reference) = item {
                            match resolve(reference, value, imported, &by_declaration, i) {
                                Ok((target, target_property)) => applied.references.entry(i).or_default().push(ConfiguredReference {
                                    property: property.clone(),
                                    element: Some(n),
                                    key: None,
                                    target,
                                    target_property,
                                }),
                                Err(why) => rows[i].configuration_notes.push(format!("`{attribute}[{n}]` = {}: {why}", reference.text())),
                            }
                        }
                    }
                }
                Argument::Map(entries) if !sensitive => {
                    let Value::Object(values) = state_value else { continue };
                    // The program's map must hold the state's keys as they are.
                    let Value::Object(program) = &inputs[&property] else { continue };
                    for (key, item) in entries {
                        if let (Argument::Template(parts), Some(value), true) = (item, values.get(key), program.contains_key(key)) {
                            match lay_template(parts, value, imported, &by_declaration, i, block.module.is_empty()) {
                                Ok((parts, variables)) => {
                                    let template = ConfiguredTemplate { property: property.clone(), key: Some(key.clone()), parts };
                                    pending.keep(i, template, variables);
                                }
                                Err(why) => rows[i].configuration_notes.push(format!("`{attribute}[\"{key}\"]` = a template: {why}")),
                            }
                            continue;
                        }
                        let Argument::Reference(reference) = item else { continue };
                        let (Some(value), true) = (values.get(key), program.contains_key(key)) else {
                            rows[i].configuration_notes.push(format!(
                                "`{attribute}[\"{key}\"]` = {}: the state's map has no such key, so the program keeps the state's",
                                reference.text()
                            ));
                            continue;
                        };
                        match resolve(reference, value, imported, &by_declaration, i) {
                            Ok((target, target_property)) => applied.references.entry(i).or_default().push(ConfiguredReference {
                                property: property.clone(),
                                element: None,
                                key: Some(key.clone()),
                                target,
                                target_property,
                            }),
                            Err(why) => rows[i].configuration_notes.push(format!("`{attribute}[\"{key}\"]` = {}: {why}", reference.text())),
                        }
                    }
                }
                Argument::Variable(name) if block.module.is_empty() && !sensitive => {
                    pending.variable_uses.entry(name.clone()).or_default().push((i, VariableUse::Property(property), state_value.clone()));
                }
                Argument::Template(parts) if !sensitive => {
                    let laid = lay_template(parts, state_value, imported, &by_declaration, i, block.module.is_empty());
                    match laid {
                        Ok((parts, variables)) => {
                            pending.keep(i, ConfiguredTemplate { property, key: None, parts }, variables)
                        }
                        Err(why) => rows[i].configuration_notes.push(format!("`{attribute}` = a template: {why}")),
                    }
                }
                Argument::Variable(name) if !sensitive => {
                    rows[i].configuration_notes.push(format!("`{attribute}` = var.{name}, a module's input: the program holds the state's value"))
                }
                _ => {}
            }
        }
    }
    let Pending { variable_uses, mut templates } = pending;
    for (name, uses) in variable_uses {
        let name = name.as_str();
        let (_, _, first) = &uses[0];
        let kind = config_type(first);
        let disagree = uses.iter().find(|(_, _, v)| !same(v, first));
        let why = if !configuration.variables.contains(name) {
            Some(format!("var.{name} is not declared in the configuration"))
        } else if imported.names.values().any(|n| *n == name) {
            Some(format!(
                "var.{name} has a resource's name in the program, so it cannot be config there"
            ))
        } else if name == "pulumi" {
            // `${pulumi}` is Pulumi YAML's own (`${pulumi.stack}`).
            Some("var.pulumi is named as Pulumi YAML's built-in `pulumi` variable, so it cannot be config there".to_string())
        } else if kind.is_none() {
            Some(format!("var.{name}'s value is not one stack config holds (text, a number, a boolean or a list of text)"))
        } else {
            disagree.map(|(i, _, v)| {
                format!(
                    "var.{name} is {} at {} but {} at {}",
                    shown(first),
                    rows[uses[0].0].address,
                    shown(v),
                    rows[*i].address
                )
            })
        };
        match (why, kind) {
            (None, Some(kind)) => {
                applied.config.insert(name.to_string(), (kind, first.clone()));
                for (i, used, _) in uses {
                    if let VariableUse::Property(property) = used {
                        applied
                            .variables
                            .entry(i)
                            .or_default()
                            .push(ConfiguredVariable { property, variable: name.to_string() });
                    }
                }
            }
            (why, _) => {
                let why = why.unwrap_or_default();
                for (i, used, _) in uses {
                    rows[i]
                        .configuration_notes
                        .push(format!("{why}: the program holds the state's value"));
                    // In a template, the variable's piece is the text the state implies.
                    if let VariableUse::Template(at) = used {
                        for part in &mut templates[at].1.parts {
                            if let ConfiguredPart::Variable { name: n, text } = part {
                                if n == name {
                                    *part = ConfiguredPart::Text(std::mem::take(text));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    for (i, template) in templates {
        if template.connects() {
            applied.templates.entry(i).or_default().push(template);
        }
    }
    applied
}

/// Where a variable is used: a whole property, or a piece of a template (its index among the
/// templates laid).
enum VariableUse {
    Property(String),
    Template(usize),
}

/// What waits for the variables' pass: each variable's uses (instance, where, the state's
/// value), of which it keeps the variables every use agrees on, and the templates laid (by
/// instance), whose variables that pass keeps or makes text.
#[derive(Default)]
struct Pending {
    variable_uses: BTreeMap<String, Vec<(usize, VariableUse, Value)>>,
    templates: Vec<(usize, ConfiguredTemplate)>,
}

impl Pending {
    /// Keeps instance `i`'s laid `template`, each of its variables a use with the text the
    /// state implies.
    fn keep(&mut self, i: usize, template: ConfiguredTemplate, variables: Vec<(String, String)>) {
        let at = self.templates.len();
        self.templates.push((i, template));
        for (name, text) in variables {
            self.variable_uses.entry(name).or_default().push((
                i,
                VariableUse::Template(at),
                Value::String(text),
            ));
        }
    }
}

/// A template's pieces as the program says them, with each root variable's text (what the
/// state implies it was), when the state's text is what the template makes: the references'
/// values come from the state, and at most one piece (a variable or a local) is unknown, its
/// text what the rest leaves. A local's piece, or a module's variable's, becomes that text.
fn lay_template(
    parts: &[TemplatePart],
    state_value: &Value,
    imported: &Imported<'_>,
    by_declaration: &BTreeMap<String, Vec<usize>>,
    from: usize,
    at_root: bool,
) -> Result<(Vec<ConfiguredPart>, Vec<(String, String)>), String> {
    let Value::String(state_text) = state_value else {
        return Err("the state's value is not text: the program keeps it".into());
    };
    // Each piece: its program form and its text (None: the unknown one).
    let mut laid: Vec<(ConfiguredPart, Option<String>)> = Vec::new();
    for part in parts {
        laid.push(match part {
            TemplatePart::Text(text) => (ConfiguredPart::Text(text.clone()), Some(text.clone())),
            TemplatePart::Reference(reference) => {
                let (target, target_name, target_property) =
                    resolve_target(reference, imported, by_declaration, from)?;
                let text = match imported.instances[target].attributes.get(&reference.attribute) {
                    Some(Value::String(s)) => s.clone(),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
                    _ => {
                        return Err(format!(
                            "{} is not text in the state: the program keeps the state's value",
                            reference.text()
                        ))
                    }
                };
                (ConfiguredPart::Reference { target: target_name, target_property }, Some(text))
            }
            TemplatePart::Variable(name) if at_root => {
                (ConfiguredPart::Variable { name: name.clone(), text: String::new() }, None)
            }
            TemplatePart::Variable(_) | TemplatePart::Local(_) => {
                (ConfiguredPart::Text(String::new()), None)
            }
        });
    }
    let unknown: Vec<usize> = (0..laid.len()).filter(|n| laid[*n].1.is_none()).collect();
    let known = |range: std::ops::Range<usize>| -> String {
        laid[range].iter().filter_map(|(_, t)| t.clone()).collect()
    };
    let mut variables = Vec::new();
    match unknown.as_slice() {
        [] => {
            if known(0..laid.len()) != *state_text {
                return Err("the state holds another text than the template makes with the state's values: the program keeps the state's".into());
            }
        }
        [n] => {
            let (before, after) = (known(0..*n), known(n + 1..laid.len()));
            let middle = state_text
                .strip_prefix(&before)
                .and_then(|rest| rest.strip_suffix(&after))
                .filter(|_| state_text.len() >= before.len() + after.len())
                .ok_or_else(|| "the state's text does not fit the template: the program keeps the state's".to_string())?
                .to_string();
            match &mut laid[*n].0 {
                ConfiguredPart::Variable { name, text } => {
                    variables.push((name.clone(), middle.clone()));
                    *text = middle;
                }
                piece => *piece = ConfiguredPart::Text(middle),
            }
        }
        _ => {
            return Err("more than one variable or local in it leaves their values unknown: the program keeps the state's".into())
        }
    }
    // Neighbouring text is one piece (a local's text beside the template's own).
    let mut parts: Vec<ConfiguredPart> = Vec::new();
    for (part, _) in laid {
        match (parts.last_mut(), part) {
            (Some(ConfiguredPart::Text(before)), ConfiguredPart::Text(text)) => {
                before.push_str(&text)
            }
            (_, part) => parts.push(part),
        }
    }
    Ok((parts, variables))
}

/// The imported instance `reference` names, and the program's name of its attribute, when the
/// state holds the same value at both ends; otherwise why the program keeps the value.
fn resolve(
    reference: &Reference,
    value: &Value,
    imported: &Imported<'_>,
    by_declaration: &BTreeMap<String, Vec<usize>>,
    from: usize,
) -> Result<(String, String), String> {
    let (target, name, property) = resolve_target(reference, imported, by_declaration, from)?;
    let target_value = imported.instances[target].attributes.get(&reference.attribute);
    if target_value.is_none_or(|v| !same(v, value)) {
        return Err(
            "the state holds another value here than there: the program keeps this one".into()
        );
    }
    Ok((name, property))
}

/// The imported instance `reference` names: its index, its name in the program and its
/// attribute's; otherwise why the program keeps the value.
fn resolve_target(
    reference: &Reference,
    imported: &Imported<'_>,
    by_declaration: &BTreeMap<String, Vec<usize>>,
    from: usize,
) -> Result<(usize, String, String), String> {
    if reference.deeper {
        return Err(
            "it reaches inside the attribute, which the program keeps as the state's value".into(),
        );
    }
    let candidates = by_declaration
        .get(&reference.resource)
        .ok_or_else(|| "not in the state: the program keeps the state's value".to_string())?;
    let target = candidates
        .iter()
        .copied()
        .find(|t| {
            imported.instances[*t].address.key == reference.key
                && imported.instances[*t].deposed.is_none()
        })
        .ok_or_else(|| {
            "no such instance in the state: the program keeps the state's value".to_string()
        })?;
    if target == from {
        return Err("it refers to itself".into());
    }
    let name = imported
        .names
        .get(&target)
        .ok_or_else(|| "not imported: the program keeps the state's value".to_string())?;
    let property = if reference.attribute == "id" {
        "id".to_string()
    } else {
        (imported.property_name)(target, &reference.attribute)
    };
    Ok((target, name.to_string(), property))
}

/// What the state contradicts of `blocks` (nested in a block whose state is `state`, at
/// `path`): a count of blocks of a type other than the configuration's, or a block no state
/// element agrees with (blocks of a set type have no order, so each written block is matched
/// with any element that agrees with its literals and its own nested blocks). A sensitive
/// type's values are never said; a `dynamic` type's count is not written.
fn contradicted_blocks(
    blocks: &NestedBlocks,
    state: &Map<String, Value>,
    path: &str,
    sensitive: &BTreeSet<&str>,
    notes: &mut Vec<String>,
) {
    for (type_, written) in &blocks.by_type {
        if blocks.dynamic.contains(type_) {
            continue;
        }
        let at = format!("{path}{type_}");
        let elements = elements_of(state, type_);
        if elements.len() != written.len() {
            notes.push(format!(
                "`{at}` has {} block{} in the configuration but {} in the state: the program keeps the state's",
                written.len(),
                if written.len() == 1 { "" } else { "s" },
                elements.len()
            ));
            continue;
        }
        if path.is_empty() && sensitive.contains(type_.as_str()) {
            if written.iter().any(|w| !elements.iter().any(|e| agrees(w, e))) {
                notes.push(format!("`{at}` (sensitive) differs between the configuration and the state: the program keeps the state's"));
            }
            continue;
        }
        for (n, w) in written.iter().enumerate() {
            if elements.iter().any(|e| agrees(w, e)) {
                continue;
            }
            // Said against the element that agrees with most of it (the one at the same place
            // among equals): its likeliest counterpart.
            let score = |e: &Map<String, Value>| {
                w.arguments
                    .iter()
                    .filter(|(name, a)| {
                        matches!((a, e.get(name.as_str())), (Argument::Literal(v), Some(h)) if same(v, h))
                    })
                    .count()
            };
            let best = (0..elements.len())
                .max_by_key(|k| (score(elements[*k]), *k == n))
                .expect("as many elements as blocks");
            let e = elements[best];
            let before = notes.len();
            for (name, argument) in &w.arguments {
                if let (Argument::Literal(value), Some(held)) = (argument, e.get(name)) {
                    if !same(value, held) {
                        notes.push(format!(
                            "`{at}[{n}].{name}` is {} in the configuration but {} in the state: the program keeps the state's",
                            shown(value),
                            shown(held)
                        ));
                    }
                }
            }
            contradicted_blocks(&w.blocks, e, &format!("{at}[{n}]."), sensitive, notes);
            if notes.len() == before {
                notes.push(format!("`{at}[{n}]` agrees with no `{type_}` block of the state: the program keeps the state's"));
            }
        }
    }
}

/// The state's blocks of `type_` in `state`: a list (or set) of objects, or one object.
fn elements_of<'s>(state: &'s Map<String, Value>, type_: &str) -> Vec<&'s Map<String, Value>> {
    match state.get(type_) {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        Some(Value::Object(one)) => vec![one],
        _ => Vec::new(),
    }
}

/// Whether a state element holds what `written` writes out (its literals, and its nested
/// blocks, each agreeing with some element); what is not written out is not compared.
fn agrees(written: &NestedBlock, element: &Map<String, Value>) -> bool {
    let literals =
        written.arguments.iter().all(|(name, argument)| match (argument, element.get(name)) {
            (Argument::Literal(value), Some(held)) => same(value, held),
            _ => true,
        });
    literals
        && written.blocks.by_type.iter().all(|(type_, nested)| {
            if written.blocks.dynamic.contains(type_) {
                return true;
            }
            let elements = elements_of(element, type_);
            elements.len() == nested.len()
                && nested.iter().all(|w| elements.iter().any(|e| agrees(w, e)))
        })
}

/// Whether a value written in the configuration and one in the state are the same as Terraform
/// sees them (a number written as text, or the reverse, converts).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => {
            s.parse::<f64>().ok() == n.as_f64()
        }
        (Value::String(s), Value::Bool(b)) | (Value::Bool(b), Value::String(s)) => {
            s == if *b { "true" } else { "false" }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The config type that holds `value`, where one does.
fn config_type(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(_) => Some("String"),
        Value::Bool(_) => Some("Boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("Integer"),
        Value::Number(_) => Some("Number"),
        Value::Array(items) if items.iter().all(Value::is_string) => Some("List<String>"),
        _ => None,
    }
}

/// A value for a note: short, one line.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}
