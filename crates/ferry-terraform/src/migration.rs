//! A Terraform state made into an import plan: a row for every instance (mapped to its Pulumi
//! type, or why not), a YAML program importing every mapped instance with its recorded
//! attributes translated as its inputs (so a preview's diff shows what changed in the cloud
//! since Terraform last looked), and each imported instance's prior state for its `Read`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::address::Mode;
use crate::components::{module_components, ModuleComponent};
use crate::configuration::Configuration;
use crate::configured::{
    apply, ConfiguredReference, ConfiguredTemplate, ConfiguredVariable, Imported,
};
use crate::providers::Mappings;
use crate::state::{State, Status};
use crate::translate::{program_secret, pulumi_name, state_secret, translate};

pub use ferry_types::terraform::{Row, RowStatus};

/// What an imported resource's `Read` starts from, as Pulumi refreshes a resource it already
/// tracks: its ID and its recorded values (Pulumi state form, secrets marked), which some
/// providers need (a `random_password`'s ID is `none`; its recorded password is what it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorState {
    pub id: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub outputs: Map<String, Value>,
    pub inputs: Map<String, Value>,
    /// Terraform's address, for messages and code.
    pub address: String,
    /// For one instance of a `count` or `for_each` resource (not deposed): the resource's
    /// address and the instance's key (`0`, `prod`), from which code makes loops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_of: Option<(String, String)>,
    /// The properties the configuration computes from other imported resources, which code
    /// says as references.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<ConfiguredReference>,
    /// The properties the configuration sets from root variables, which code reads from
    /// stack config.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<ConfiguredVariable>,
    /// The text properties the configuration writes as templates of references and variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<ConfiguredTemplate>,
    /// The components its module calls make, outermost first: the resource is their child.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ModuleComponent>,
}

/// What the caller chose.
#[derive(Debug, Clone, Default)]
pub struct MigrationOptions {
    /// The Pulumi project (the program's `name`).
    pub project: String,
    /// Import tainted instances too.
    pub include_tainted: bool,
    /// Import deposed objects too.
    pub include_deposed: bool,
    /// The configuration the state was applied from, when the user has it.
    pub configuration: Option<Configuration>,
}

/// The plan a state makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    pub rows: Vec<Row>,
    /// The YAML program importing every mapped instance (`None` when there is none).
    pub program: Option<String>,
    /// Each imported resource's prior state, by its name in the program.
    pub prior: BTreeMap<String, PriorState>,
    /// What the configuration holds that no row shows.
    pub notes: Vec<String>,
}

/// The comment above each resource of a migration's program that carries its Terraform address.
const ADDRESS_COMMENT: &str = "  # terraform: ";

/// Each resource's Terraform address as a migration's program carries it (the comment above
/// it), by the resource's name: what the review table shows beside each row. A resource whose
/// comment an edit removed has none.
pub fn addresses_in_program(program: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = program.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(address) = line.strip_prefix(ADDRESS_COMMENT) else { continue };
        let Some(next) = lines.peek() else { break };
        let name = next
            .strip_prefix("  ")
            .filter(|n| !n.starts_with(' '))
            .and_then(|n| n.strip_suffix(':'));
        if let Some(name) = name {
            let name = serde_json::from_str::<String>(name)
                .unwrap_or_else(|_| name.trim_matches('\'').to_string());
            out.insert(name, address.to_string());
        }
    }
    out
}

/// Makes the plan of `state`; `mappings` are the providers' mappings by their full source
/// address (what the plugins answered), and why the others have none.
pub fn migrate(state: &State, mappings: &Mappings, options: &MigrationOptions) -> Migration {
    let keys: Vec<_> =
        state.instances.iter().map(|i| (i.address.clone(), i.deposed.clone())).collect();
    let names = crate::names::names(&keys);
    let mut rows = Vec::with_capacity(state.instances.len());
    let mut imported: Vec<usize> = Vec::new();
    let mut translated = BTreeMap::new();
    let mut program_inputs: BTreeMap<usize, Map<String, Value>> = BTreeMap::new();
    for (i, inst) in state.instances.iter().enumerate() {
        let provider = &inst.provider;
        let mut row = Row {
            address: inst.shown_address(),
            mode: inst.address.mode,
            terraform_type: inst.address.type_.clone(),
            type_: None,
            name: None,
            id: inst.id().map(str::to_string),
            status: RowStatus::Mapped,
            reason: None,
            provider: provider.source(),
            package: provider.pulumi_package().map(str::to_string),
            unknown_attributes: Vec::new(),
            sensitive: !inst.sensitive.is_empty(),
            dependencies_not_imported: Vec::new(),
            configuration: None,
            configuration_notes: Vec::new(),
        };
        if inst.address.mode == Mode::Data {
            row.status = RowStatus::DataSource;
            row.reason = Some("a data source: a read-only lookup, never imported".into());
            rows.push(row);
            continue;
        }
        let mapping = mappings.get(provider);
        if let Some((package, _)) = mapping {
            row.package = Some(package.to_string());
        }
        let resource = mapping.and_then(|(_, m)| m.resources.get(&inst.address.type_));
        match (mapping, resource) {
            (None, _) => {
                row.status = RowStatus::Unmapped;
                row.reason = Some(mappings.why_unmapped(provider));
            }
            (Some((package, _)), None) => {
                row.status = RowStatus::Unmapped;
                row.reason = Some(format!(
                    "the `{package}` plugin's mapping has no Terraform type `{}`",
                    inst.address.type_
                ));
            }
            (Some((_, m)), Some(info)) => {
                row.type_ = Some(info.tok.clone());
                let (status, included) = match (&inst.deposed, inst.status) {
                    (Some(_), _) => (RowStatus::Deposed, options.include_deposed),
                    (None, Status::Tainted) => (RowStatus::Tainted, options.include_tainted),
                    (None, Status::Ready) => (RowStatus::Mapped, true),
                };
                row.status = status;
                if !included {
                    row.reason = Some(match status {
                        RowStatus::Deposed => "a deposed object Terraform has yet to destroy: not imported unless asked".into(),
                        _ => "tainted: Terraform would replace it at its next apply; not imported unless asked".into(),
                    });
                } else {
                    if status != RowStatus::Mapped {
                        row.reason = Some("imported, as asked".into());
                    }
                    let empty = BTreeMap::new();
                    let schema = m.provider.resources.get(&inst.address.type_).unwrap_or(&empty);
                    let for_program = translate(
                        &inst.attributes,
                        schema,
                        &info.fields,
                        &inst.sensitive,
                        program_secret,
                    );
                    let for_state = translate(
                        &inst.attributes,
                        schema,
                        &info.fields,
                        &inst.sensitive,
                        state_secret,
                    );
                    row.unknown_attributes = for_program.unknown.clone();
                    if !for_program.left_out.is_empty() {
                        let note = format!(
                            "`{}` left out of the program: a map whose only key starts with `fn::` is a function call in Pulumi YAML, so the preview shows it differing",
                            for_program.left_out.join("`, `")
                        );
                        row.reason = Some(match row.reason.take() {
                            Some(reason) => format!("{reason}; {note}"),
                            None => note,
                        });
                    }
                    row.sensitive |= for_program.has_secrets;
                    row.name = Some(names[i].clone());
                    program_inputs.insert(i, for_program.inputs);
                    translated.insert(i, for_state);
                    imported.push(i);
                }
            }
        }
        rows.push(row);
    }
    // Why each resource with no imported instance is left out: what a dependency on it says.
    let mut left_out: BTreeMap<String, &'static str> = BTreeMap::new();
    for (inst, row) in state.instances.iter().zip(&rows) {
        let why = match row.status {
            RowStatus::DataSource => "a data source",
            RowStatus::Unmapped => "unmapped",
            RowStatus::Tainted => "tainted",
            RowStatus::Deposed => "deposed",
            RowStatus::Mapped => continue,
        };
        left_out.entry(inst.address.resource()).or_insert(why);
    }
    // The configuration, where given: references, variables and what the state contradicts.
    let property_name = |i: usize, attribute: &str| -> String {
        let inst = &state.instances[i];
        let mapping = mappings.get(&inst.provider).map(|(_, m)| m);
        let schema = mapping.and_then(|m| m.provider.resources.get(&inst.address.type_));
        let info = mapping.and_then(|m| m.resources.get(&inst.address.type_));
        pulumi_name(
            attribute,
            schema.and_then(|s| s.get(attribute)),
            info.and_then(|info| info.fields.get(attribute)),
        )
    };
    let applied = options.configuration.as_ref().map(|configuration| {
        let imported = Imported {
            instances: &state.instances,
            names: imported.iter().map(|&i| (i, names[i].as_str())).collect(),
            inputs: &program_inputs,
            property_name: &property_name,
        };
        apply(configuration, &imported, &mut rows)
    });
    let mut applied = applied.unwrap_or_default();
    let mut prior = BTreeMap::new();
    let program = (!imported.is_empty()).then(|| {
        // Dependencies name resources (every instance of them) by address without a key.
        let mut by_resource: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for &i in &imported {
            by_resource.entry(state.instances[i].address.resource()).or_default().push(&names[i]);
        }
        let mut text = format!(
            "# Imports the resources of a Terraform state ({}), as Terraform last recorded them:\n# a preview shows what changed in the cloud since.\nname: {}\nruntime: yaml\n",
            match state.format {
                crate::Format::StateV4 => "a state file",
                crate::Format::ShowJson => "`show -json` output",
            },
            crate::yaml::key(&options.project)
        );
        if !applied.config.is_empty() {
            // Root variables, each holding the value the state recorded (see `configured`).
            text.push_str("config:\n");
            for (name, (kind, value)) in &applied.config {
                text.push_str(&format!("  {}:\n    type: {kind}\n    default:", crate::yaml::key(name)));
                crate::yaml::write_value(&mut text, value, 6);
            }
        }
        text.push_str("resources:\n");
        for &i in &imported {
            let inst = &state.instances[i];
            let inputs = program_inputs.remove(&i).expect("translated");
            let for_state = translated.remove(&i).expect("translated");
            let references = applied.references.remove(&i).unwrap_or_default();
            let variables = applied.variables.remove(&i).unwrap_or_default();
            let templates = applied.templates.remove(&i).unwrap_or_default();
            let name = &names[i];
            let token = rows[i].type_.clone().expect("a mapped row has a type");
            let id = inst.id().unwrap_or_default().to_string();
            // A plugin's token is written as it is unless YAML would read it otherwise; a
            // deposed key is the file's text: neither may end the comment or the line.
            let shown_token = if token.chars().all(|c| c.is_ascii_alphanumeric() || ":/._-".contains(c)) { token.clone() } else { crate::yaml::string(&token) };
            let comment: String = inst.shown_address().chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect();
            // A dependency on what is not imported cannot be `dependsOn`: the row and a comment
            // above the resource say what it was.
            let missing: Vec<String> = inst
                .dependencies
                .iter()
                .filter(|d| !by_resource.contains_key(*d))
                .map(|d| format!("{d} ({})", left_out.get(d).copied().unwrap_or("not in the state")))
                .collect();
            for m in &missing {
                let m: String = m.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
                text.push_str(&format!("  # depends on {m}, which is not imported\n"));
            }
            rows[i].dependencies_not_imported = missing;
            // The module calls' components are no YAML resources: the preview places the
            // resource in them through its recorded state, which this comment tells the reader.
            let components = module_components(&inst.address);
            if let Some(inner) = components.last() {
                let chain: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
                text.push_str(&format!("  # in component {} ({})\n", chain.join(" / "), inner.type_));
            }
            text.push_str(&format!("{ADDRESS_COMMENT}{comment}\n  {}:\n    type: {shown_token}\n", crate::yaml::key(name)));
            if !inputs.is_empty() {
                text.push_str("    properties:");
                write_properties(&mut text, inputs, &references, &variables, &templates);
            }
            text.push_str(&format!("    options:\n      import: {}\n", crate::yaml::string(&id)));
            let mut depends: Vec<&str> = inst.dependencies.iter().filter_map(|d| by_resource.get(d)).flatten().copied().filter(|n| *n != name).collect();
            depends.sort();
            depends.dedup();
            if !depends.is_empty() {
                text.push_str("      dependsOn:\n");
                for d in depends {
                    text.push_str(&format!("        - ${{{d}}}\n"));
                }
            }
            let instance_of = match (&inst.address.key, &inst.deposed) {
                (Some(key), None) => Some((inst.address.resource(), key.text())),
                _ => None,
            };
            let address = inst.shown_address();
            prior.insert(
                name.clone(),
                PriorState { id, type_: token, outputs: for_state.outputs, inputs: for_state.inputs, address, instance_of, references, variables, templates, components },
            );
        }
        text
    });
    Migration { rows, program, prior, notes: applied.notes }
}

/// A resource's `properties` block: each property as the state holds it, or as the
/// configuration computes it (a reference to another resource, whole, per list element or per
/// map key, a variable's config, or a template of them, whole or per map key).
fn write_properties(
    text: &mut String,
    inputs: Map<String, Value>,
    references: &[ConfiguredReference],
    variables: &[ConfiguredVariable],
    templates: &[ConfiguredTemplate],
) {
    if references.is_empty() && variables.is_empty() && templates.is_empty() {
        crate::yaml::write_value(text, &Value::Object(inputs), 6);
        return;
    }
    text.push('\n');
    for (key, value) in inputs {
        text.push_str(&format!("      {}:", crate::yaml::key(&key)));
        if let Some(r) =
            references.iter().find(|r| r.property == key && r.element.is_none() && r.key.is_none())
        {
            text.push_str(&format!(" {}\n", r.in_program()));
        } else if let Some(v) = variables.iter().find(|v| v.property == key) {
            text.push_str(&format!(" ${{{}}}\n", v.variable));
        } else if let Some(t) = templates.iter().find(|t| t.property == key && t.key.is_none()) {
            text.push_str(&format!(" {}\n", t.in_program()));
        } else if let (Value::Array(items), true) =
            (&value, references.iter().any(|r| r.property == key))
        {
            text.push('\n');
            for (n, item) in items.iter().enumerate() {
                text.push_str("        -");
                match references.iter().find(|r| r.property == key && r.element == Some(n)) {
                    Some(r) => text.push_str(&format!(" {}\n", r.in_program())),
                    None => crate::yaml::write_value(text, item, 10),
                }
            }
        } else if let (Value::Object(entries), true) = (
            &value,
            references.iter().any(|r| r.property == key && r.key.is_some())
                || templates.iter().any(|t| t.property == key && t.key.is_some()),
        ) {
            text.push('\n');
            for (k, item) in entries {
                text.push_str(&format!("        {}:", crate::yaml::key(k)));
                let at_key = |p: &str, pk: Option<&String>| p == key && pk == Some(k);
                if let Some(r) = references.iter().find(|r| at_key(&r.property, r.key.as_ref())) {
                    text.push_str(&format!(" {}\n", r.in_program()));
                } else if let Some(t) =
                    templates.iter().find(|t| at_key(&t.property, t.key.as_ref()))
                {
                    text.push_str(&format!(" {}\n", t.in_program()));
                } else {
                    crate::yaml::write_value(text, item, 10);
                }
            }
        } else {
            crate::yaml::write_value(text, &value, 8);
        }
    }
}
