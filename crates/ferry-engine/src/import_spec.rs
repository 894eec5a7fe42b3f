//! Import specs: the `pulumi import --file` format, read with Pulumi's rules and every problem
//! reported at once with its JSON path (so an editor can underline each).
//!
//! Comments and trailing commas are accepted (Pulumi's own docs show `.jsonc` specs).

use std::collections::{BTreeMap, HashMap};

use ferry_state::urn::Urn;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One resource to import (an element of `resources`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportEntry {
    /// Missing `type` and `name` are problems the entry rules report, beside the entry's others.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// The resource's name in the program (and in its URN, unless `logicalName` is set); taken
    /// from `logicalName` when only that is given.
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A name from `nameTable` or of another entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Kept for compatibility; Ferry never downloads plugins.
    #[serde(default, rename = "pluginDownloadUrl", skip_serializing_if = "Option::is_none")]
    pub plugin_download_url: Option<String>,
    /// Limits which inputs Read returned are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub component: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remote: bool,
    /// The name in the URN, when it differs from `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Map<String, Value>>,
    /// Given outputs: the resource is taken as is, without a `Read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    /// The resource's package is a parameterization of another plugin (`Parameterize` is
    /// called on that plugin before its schema is asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameterization: Option<PackageParameterization>,
    /// Like `parameterization`, for a package that extends the plugin's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<PackageParameterization>,
}

/// Which plugin a parameterized package runs on, and the parameter value it is given. Unknown
/// keys are ignored, as Pulumi's reader ignores them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageParameterization {
    /// The base plugin's name (`pulumi-resource-<pluginName>`).
    #[serde(default)]
    pub plugin_name: String,
    /// The base plugin's version, a semantic version.
    #[serde(default)]
    pub plugin_version: String,
    /// The parameter, base64-encoded in the file.
    #[serde(default)]
    pub value: String,
}

impl PackageParameterization {
    /// The parameter's bytes (checked to be valid base64 when the spec was read).
    pub fn value_bytes(&self) -> Vec<u8> {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.decode(&self.value).unwrap_or_default()
    }
}

impl ImportEntry {
    pub fn is_provider(&self) -> bool {
        self.type_.starts_with("pulumi:providers:")
    }
    /// The name in the resource's URN.
    pub fn urn_name(&self) -> &str {
        self.logical_name.as_deref().unwrap_or(&self.name)
    }
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportFile {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub name_table: BTreeMap<String, String>,
    pub resources: Vec<ImportEntry>,
}

/// Where a `parent` or `provider` reference leads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryRef {
    /// Another entry of this file, by position.
    Entry(usize),
    /// A resource already in the stack, by URN (from `nameTable`).
    Urn(String),
}

/// A spec that was read and checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportSpec {
    pub file: ImportFile,
    /// Resolved `parent` per entry.
    pub parents: Vec<Option<EntryRef>>,
    /// Resolved `provider` per entry.
    pub providers: Vec<Option<EntryRef>>,
    /// Entry positions with parents first: the order in which the entries can be processed.
    pub order: Vec<usize>,
    pub warnings: Vec<SpecProblem>,
}

/// A problem with a spec, and where (a JSON path like `resources[2].parent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecProblem {
    pub path: String,
    pub message: String,
}

/// Every error found in a spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("the import spec has {} problem(s): {}", .errors.len(), .errors.iter().map(|e| format!("{}: {}", e.path, e.message)).collect::<Vec<_>>().join("; "))]
pub struct SpecErrors {
    pub errors: Vec<SpecProblem>,
    pub warnings: Vec<SpecProblem>,
}

const ENTRY_FIELDS: &[&str] = &[
    "type",
    "name",
    "id",
    "parent",
    "provider",
    "version",
    "pluginDownloadUrl",
    "properties",
    "component",
    "remote",
    "logicalName",
    "inputs",
    "outputs",
    "parameterization",
    "extension",
];

fn problem(path: impl Into<String>, message: impl Into<String>) -> SpecProblem {
    SpecProblem { path: path.into(), message: message.into() }
}

fn suggest(unknown: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(&unknown.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// JSON paths under `at` where `values` hold Pulumi's unknown-value sentinel.
fn unknown_values(values: &Map<String, Value>, at: &str) -> Vec<String> {
    fn walk(v: &Value, path: String, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s == ferry_state::sig::UNKNOWN_VALUE => out.push(path),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .for_each(|(i, item)| walk(item, format!("{path}[{i}]"), out)),
            Value::Object(m) => {
                m.iter().for_each(|(k, item)| walk(item, format!("{path}.{k}"), out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in values {
        walk(v, format!("{at}.{k}"), &mut out);
    }
    out
}

/// Reads and checks an import spec.
pub fn parse_import_spec(text: &str) -> Result<ImportSpec, SpecErrors> {
    import_spec_from_value(read_spec_json(text)?)
}

/// Reads a spec's text as JSON, comments and trailing commas allowed. A caller that must look
/// at the JSON before knowing it is a spec (the API tells a program's JSON envelope from a spec
/// by its keys) reads it once here and checks it with [`import_spec_from_value`].
pub fn read_spec_json(text: &str) -> Result<Value, SpecErrors> {
    let fail = |message: String| {
        Err(SpecErrors { errors: vec![problem("", message)], warnings: Vec::new() })
    };
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..Default::default()
    };
    match jsonc_parser::parse_to_serde_value::<Option<Value>>(text, &options) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => fail("the import spec is empty".into()),
        Err(e) => fail(format!("not valid JSON: {e}")),
    }
}

/// Checks an import spec already read as JSON (see [`read_spec_json`]).
pub fn import_spec_from_value(root: Value) -> Result<ImportSpec, SpecErrors> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let fail =
        |errors: Vec<SpecProblem>, warnings: Vec<SpecProblem>| Err(SpecErrors { errors, warnings });

    let Value::Object(mut root) = root else {
        return fail(
            vec![problem(
                "",
                "an import spec is an object with `resources` (and optionally `nameTable`)",
            )],
            warnings,
        );
    };
    for key in root.keys() {
        if key != "resources" && key != "nameTable" {
            warnings.push(problem(
                key.clone(),
                format!(
                    "unknown field `{key}` is ignored{}",
                    suggest(key, &["resources", "nameTable"])
                ),
            ));
        }
    }

    let mut name_table = BTreeMap::new();
    match root.remove("nameTable") {
        None | Some(Value::Null) => {}
        Some(Value::Object(table)) => {
            for (name, urn) in table {
                let path = format!("nameTable.{name}");
                match urn.as_str() {
                    Some(u) if Urn::parse(u).is_some() => {
                        name_table.insert(name, u.to_string());
                    }
                    _ => {
                        errors.push(problem(path, format!("`{name}` must map to a resource URN (urn:pulumi:<stack>::<project>::<type>::<name>), found {urn}")))
                    }
                }
            }
        }
        Some(other) => errors
            .push(problem("nameTable", format!("must be an object of name → URN, found {other}"))),
    }

    let items = match root.remove("resources") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            return fail(vec![problem("resources", "the import spec lists no resources")], warnings)
        }
        None => {
            return fail(
                vec![problem("resources", "missing: the list of resources to import")],
                warnings,
            )
        }
        Some(other) => {
            return fail(
                vec![problem("resources", format!("must be an array, found {other}"))],
                warnings,
            )
        }
    };

    // Each entry on its own, so one malformed entry does not hide the others' problems.
    let mut entries: Vec<Option<ImportEntry>> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("resources[{i}]");
        let Value::Object(mut obj) = item else {
            errors.push(problem(at, "a resource must be an object"));
            entries.push(None);
            continue;
        };
        let unknown: Vec<String> =
            obj.keys().filter(|k| !ENTRY_FIELDS.contains(&k.as_str())).cloned().collect();
        for key in unknown {
            warnings.push(problem(
                format!("{at}.{key}"),
                format!("unknown field `{key}` is ignored{}", suggest(&key, ENTRY_FIELDS)),
            ));
            obj.remove(&key);
        }
        match serde_path_to_error::deserialize::<_, ImportEntry>(Value::Object(obj)) {
            Ok(mut entry) => {
                if entry.name.is_empty() {
                    if let Some(logical) = &entry.logical_name {
                        entry.name = logical.clone();
                    }
                }
                entries.push(Some(entry))
            }
            Err(e) => {
                let inner = e.path().to_string();
                let path = if inner == "." { at } else { format!("{at}.{inner}") };
                errors.push(problem(path, e.inner().to_string()));
                entries.push(None);
            }
        }
    }

    // Per-entry rules.
    for (i, entry) in entries.iter().enumerate() {
        let Some(e) = entry else { continue };
        let at = |field: &str| format!("resources[{i}].{field}");
        if e.type_.trim().is_empty() {
            errors.push(problem(at("type"), "a resource needs a type token (`type`)"));
        } else if !e.component && e.type_.split(':').count() != 3 {
            errors.push(problem(
                at("type"),
                format!("`{}` is not a type token (`<package>:<module>:<Type>`)", e.type_),
            ));
        }
        if e.name.trim().is_empty() {
            errors.push(problem(at("name"), "a resource needs a name (`name`, or `logicalName`)"));
        }
        if matches!(&e.logical_name, Some(n) if n.trim().is_empty()) {
            errors.push(problem(at("logicalName"), "must not be empty when given"));
        }
        let has_id = e.id.as_deref().is_some_and(|id| !id.is_empty());
        if e.component {
            if has_id {
                errors.push(problem(
                    at("id"),
                    "a component resource has no ID; remove `id` (or `component`)",
                ));
            }
            if e.version.is_some() || e.properties.is_some() {
                errors.push(problem(
                    at("component"),
                    "`version` and `properties` apply to custom resources, not components",
                ));
            }
        } else if e.is_provider() {
            if has_id {
                errors.push(problem(
                    at("id"),
                    "a provider entry takes no ID: the provider is created from its inputs",
                ));
            }
            if e.outputs.is_some() {
                errors.push(problem(
                    at("outputs"),
                    "a provider entry takes no outputs: the provider is created from its inputs",
                ));
            }
        } else if !has_id {
            errors.push(problem(
                at("id"),
                "a resource to import needs the ID its provider knows it by",
            ));
        }
        if e.remote && !e.component {
            errors.push(problem(at("remote"), "`remote` applies only to component resources"));
        }
        if let Some(v) = &e.version {
            if semver::Version::parse(v.trim_start_matches('v')).is_err() {
                errors.push(problem(
                    at("version"),
                    format!("`{v}` is not a semantic version (like 4.16.0)"),
                ));
            }
        }
        for (field, values) in [("inputs", &e.inputs), ("outputs", &e.outputs)] {
            if let Some(values) = values {
                for path in unknown_values(values, &at(field)) {
                    errors.push(problem(
                        path,
                        "holds Pulumi's unknown-value sentinel: an import needs the real value",
                    ));
                }
            }
        }
        if e.parameterization.is_some() && e.extension.is_some() {
            errors.push(problem(
                at("extension"),
                "an entry has `parameterization` or `extension`, not both",
            ));
        }
        for (field, p) in [("parameterization", &e.parameterization), ("extension", &e.extension)] {
            let Some(p) = p else { continue };
            if p.plugin_name.trim().is_empty() {
                errors.push(problem(
                    at(&format!("{field}.pluginName")),
                    "names the plugin the package runs on (like `terraform-provider`)",
                ));
            }
            if semver::Version::parse(p.plugin_version.trim_start_matches('v')).is_err() {
                errors.push(problem(
                    at(&format!("{field}.pluginVersion")),
                    format!("`{}` is not a semantic version (like 0.8.0)", p.plugin_version),
                ));
            }
            use base64::Engine as _;
            if p.value.is_empty()
                || base64::engine::general_purpose::STANDARD.decode(&p.value).is_err()
            {
                errors.push(problem(
                    at(&format!("{field}.value")),
                    "must be the parameter, base64-encoded",
                ));
            }
        }
        if e.plugin_download_url.is_some() {
            warnings.push(problem(
                at("pluginDownloadUrl"),
                "Ferry never downloads plugins; install the provider plugin on the server yourself",
            ));
        }
    }

    // Names other entries can refer to; a name given to several entries is ambiguous.
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(e) = e {
            by_name.entry(e.name.as_str()).or_default().push(i);
        }
    }
    let resolve = |reference: &str,
                   field: &str,
                   i: usize,
                   errors: &mut Vec<SpecProblem>|
     -> Option<EntryRef> {
        let path = format!("resources[{i}].{field}");
        let in_table = name_table.get(reference);
        let in_file = by_name.get(reference).map(Vec::as_slice).unwrap_or(&[]);
        match (in_table, in_file) {
            (Some(_), [_, ..]) => {
                errors.push(problem(path, format!("`{reference}` is both in `nameTable` and the name of a resource in this file; rename one")));
                None
            }
            (Some(urn), []) => Some(EntryRef::Urn(urn.clone())),
            (None, [j]) if *j == i => {
                errors.push(problem(path, format!("a resource cannot be its own {field}")));
                None
            }
            (None, [j]) => Some(EntryRef::Entry(*j)),
            (None, [_, _, ..]) => {
                errors.push(problem(path, format!("`{reference}` is the name of {} resources in this file; the reference is ambiguous", in_file.len())));
                None
            }
            (None, []) => {
                errors.push(problem(path, format!("`{reference}` is neither in `nameTable` nor the name of a resource in this file")));
                None
            }
        }
    };
    let mut parents = vec![None; entries.len()];
    let mut providers = vec![None; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        let Some(e) = e else { continue };
        if let Some(p) = e.parent.as_deref().filter(|p| !p.is_empty()) {
            parents[i] = resolve(p, "parent", i, &mut errors);
        }
        if let Some(p) = e.provider.as_deref().filter(|p| !p.is_empty()) {
            providers[i] = resolve(p, "provider", i, &mut errors);
            let is_provider = match &providers[i] {
                Some(EntryRef::Entry(j)) => {
                    entries[*j].as_ref().is_some_and(ImportEntry::is_provider)
                }
                Some(EntryRef::Urn(u)) => {
                    Urn::parse(u).is_some_and(|u| u.type_token().starts_with("pulumi:providers:"))
                }
                None => true,
            };
            if !is_provider {
                errors.push(problem(
                    format!("resources[{i}].provider"),
                    format!("`{p}` is not a provider resource (`pulumi:providers:<package>`)"),
                ));
            }
        }
    }

    // Parents before children; a cycle is an error.
    let order = match topological_order(&parents) {
        Ok(order) => order,
        Err(i) => {
            errors.push(problem(
                format!("resources[{i}].parent"),
                "the parents of this resource form a cycle",
            ));
            Vec::new()
        }
    };

    // The same URN twice: same type, URN name and parent.
    if errors.is_empty() {
        let mut seen: HashMap<(String, &str, Option<&EntryRef>), usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            let e = e.as_ref().expect("no errors, so every entry parsed");
            let key = (e.type_.clone(), e.urn_name(), parents[i].as_ref());
            if let Some(first) = seen.insert(key, i) {
                errors.push(problem(format!("resources[{i}]"), format!("same type, name and parent as resources[{first}]: both would have the same URN")));
            }
        }
    }

    if !errors.is_empty() {
        return fail(errors, warnings);
    }
    let resources = entries.into_iter().map(|e| e.expect("checked above")).collect();
    Ok(ImportSpec {
        file: ImportFile { name_table, resources },
        parents,
        providers,
        order,
        warnings,
    })
}

/// Positions ordered so that every entry comes after its parent entry; `Err(i)` names an
/// entry on a parent cycle.
fn topological_order(parents: &[Option<EntryRef>]) -> Result<Vec<usize>, usize> {
    let n = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in parents.iter().enumerate() {
        match p {
            Some(EntryRef::Entry(j)) => children[*j].push(i),
            _ => roots.push(i),
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut queue = std::collections::VecDeque::from(roots);
    while let Some(i) = queue.pop_front() {
        order.push(i);
        queue.extend(children[i].iter().copied());
    }
    if order.len() < n {
        let mut placed = vec![false; n];
        for &i in &order {
            placed[i] = true;
        }
        return Err((0..n).find(|&i| !placed[i]).expect("some entry is unplaced"));
    }
    Ok(order)
}
