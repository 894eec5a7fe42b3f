//! Reading what Terraform and OpenTofu write: a state file (`terraform.tfstate`, version 4) or
//! `terraform show -json` / `tofu show -json`. Every instance comes out with its address, its
//! provider, its recorded attributes, which of them are sensitive, what it depends on, and
//! whether it is tainted or deposed. Anything else is an error naming what is wrong and where.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::address::{parse_module_path, Address, IndexKey, Mode, ProviderAddress};
use crate::TerraformError;

/// Which file it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `terraform.tfstate`, version 4.
    StateV4,
    /// `terraform show -json` (`format_version` 1.x).
    ShowJson,
}

/// One step of a path into an instance's attributes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathStep {
    /// An attribute or a map's key.
    Key(String),
    /// A list's or set's element.
    Index(usize),
}

/// Whether an instance is as Terraform last left it, or marked for replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ready,
    /// Terraform would destroy and recreate it at its next apply (`status: tainted`).
    Tainted,
}

/// One object Terraform records.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub address: Address,
    pub provider: ProviderAddress,
    /// The provider's own recorded values (snake_case).
    pub attributes: Map<String, Value>,
    /// Paths into `attributes` that are sensitive.
    pub sensitive: BTreeSet<Vec<PathStep>>,
    /// The resources it depends on (addresses without instance keys, as Terraform records them).
    pub dependencies: Vec<String>,
    pub status: Status,
    /// A deposed object's key: an older object of a `create_before_destroy` replacement that
    /// Terraform has yet to destroy.
    pub deposed: Option<String>,
    pub schema_version: i64,
}

impl Instance {
    /// The address as Terraform writes it, with ` (deposed <key>)` for a deposed object.
    pub fn shown_address(&self) -> String {
        match &self.deposed {
            Some(key) => format!("{} (deposed {key})", self.address),
            None => self.address.to_string(),
        }
    }

    /// The `id` attribute Terraform recorded (every managed resource has one).
    pub fn id(&self) -> Option<&str> {
        self.attributes.get("id").and_then(Value::as_str)
    }
}

/// A state, read.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub format: Format,
    /// The Terraform (or OpenTofu) version that wrote it.
    pub terraform_version: Option<String>,
    /// In the file's order.
    pub instances: Vec<Instance>,
}

fn err(message: impl Into<String>, path: impl Into<String>) -> TerraformError {
    TerraformError { message: message.into(), path: Some(path.into()) }
}

/// Reads a state file (version 4) or `show -json` output.
pub fn read_state(bytes: &[u8]) -> Result<State, TerraformError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| {
        let what = if e.is_eof() {
            "the file ends before its JSON does (truncated?)"
        } else {
            "the file is not JSON"
        };
        TerraformError { message: format!("{what}: {e}"), path: None }
    })?;
    let Value::Object(root) = root else {
        return Err(TerraformError {
            message: "a Terraform state is a JSON object; this is not".into(),
            path: None,
        });
    };
    if root.contains_key("format_version") {
        return read_show_json(&root);
    }
    let version = match root.get("version") {
        Some(Value::Number(n)) => n.as_i64().unwrap_or(-1),
        Some(other) => return Err(err(format!("`version` is {other}, not a number"), "version")),
        None => {
            return Err(TerraformError {
                message: "not a Terraform state: it has no `version` (a state file) or `format_version` (`terraform show -json`)".into(),
                path: None,
            })
        }
    };
    match version {
        4 => read_state_v4(&root),
        1..=3 => Err(err(
            format!("a Terraform state file version {version}, written by Terraform 0.11 or older: Ferry reads version 4; upgrade the state with Terraform 0.12 or later (`terraform init` and `terraform apply -refresh-only` write version 4)"),
            "version",
        )),
        other => Err(err(format!("unknown Terraform state file version {other}: Ferry reads version 4 (Terraform 0.12 to 1.x, OpenTofu)"), "version")),
    }
}

fn read_state_v4(root: &Map<String, Value>) -> Result<State, TerraformError> {
    let resources = match root.get("resources") {
        Some(Value::Array(r)) => r,
        Some(Value::Null) | None => &Vec::new(),
        Some(_) => return Err(err("`resources` is not a list", "resources")),
    };
    let mut instances = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        let at = format!("resources[{i}]");
        let r = r.as_object().ok_or_else(|| err("a resource is a JSON object", &at))?;
        let text = |key: &str| text_field(r.get(key), key, &at);
        let mode = mode_of(&text("mode")?, &at)?;
        let (type_, name) =
            (identifier(text("type")?, "type", &at)?, identifier(text("name")?, "name", &at)?);
        let module = r.get("module").and_then(Value::as_str).unwrap_or_default().to_string();
        if !module.is_empty() && parse_module_path(&module).is_none() {
            return Err(err(
                format!("`{module}` is not a module path (`module.a.module.b[0]`)"),
                format!("{at}.module"),
            ));
        }
        let provider_text = text("provider")?;
        let provider = ProviderAddress::parse(&provider_text).ok_or_else(|| {
            err(format!("`{provider_text}` is not a provider address"), format!("{at}.provider"))
        })?;
        let list = match r.get("instances") {
            Some(Value::Array(list)) => list,
            _ => {
                return Err(err("`instances` is missing or not a list", format!("{at}.instances")))
            }
        };
        for (j, inst) in list.iter().enumerate() {
            let at = format!("{at}.instances[{j}]");
            let inst = inst.as_object().ok_or_else(|| err("an instance is a JSON object", &at))?;
            let key = match inst.get("index_key") {
                None | Some(Value::Null) => None,
                Some(k) => Some(IndexKey::from_json(k).ok_or_else(|| {
                    err("`index_key` is neither a number nor a string", format!("{at}.index_key"))
                })?),
            };
            let attributes = match inst.get("attributes") {
                Some(Value::Object(a)) => a.clone(),
                Some(Value::Null) | None => Map::new(),
                Some(_) => {
                    return Err(err("`attributes` is not an object", format!("{at}.attributes")))
                }
            };
            let sensitive = match inst.get("sensitive_attributes") {
                None | Some(Value::Null) => BTreeSet::new(),
                Some(Value::Array(paths)) => {
                    let mut set = BTreeSet::new();
                    for (k, path) in paths.iter().enumerate() {
                        set.insert(sensitive_path(path).ok_or_else(|| {
                            err(
                                "not a path into the attributes",
                                format!("{at}.sensitive_attributes[{k}]"),
                            )
                        })?);
                    }
                    set
                }
                Some(_) => {
                    return Err(err(
                        "`sensitive_attributes` is not a list",
                        format!("{at}.sensitive_attributes"),
                    ))
                }
            };
            let dependencies = match inst.get("dependencies") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(d)) => d
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        err("a dependency is not an address", format!("{at}.dependencies"))
                    })?,
                Some(_) => {
                    return Err(err("`dependencies` is not a list", format!("{at}.dependencies")))
                }
            };
            let status = match inst.get("status").and_then(Value::as_str) {
                Some("tainted") => Status::Tainted,
                _ => Status::Ready,
            };
            let deposed = inst.get("deposed").and_then(Value::as_str).map(str::to_string);
            let schema_version = inst.get("schema_version").and_then(Value::as_i64).unwrap_or(0);
            let address = Address {
                module: module.clone(),
                mode,
                type_: type_.clone(),
                name: name.clone(),
                key,
            };
            instances.push(Instance {
                address,
                provider: provider.clone(),
                attributes,
                sensitive,
                dependencies,
                status,
                deposed,
                schema_version,
            });
        }
    }
    check(&instances)?;
    Ok(State {
        format: Format::StateV4,
        terraform_version: root
            .get("terraform_version")
            .and_then(Value::as_str)
            .map(str::to_string),
        instances,
    })
}

/// A `sensitive_attributes` path: `[{"type": "get_attr", "value": "result"}, {"type": "index",
/// "value": {"value": 0, "type": "number"}}]`.
fn sensitive_path(path: &Value) -> Option<Vec<PathStep>> {
    path.as_array()?
        .iter()
        .map(|step| {
            let kind = step.get("type")?.as_str()?;
            let value = step.get("value")?;
            match kind {
                "get_attr" => Some(PathStep::Key(value.as_str()?.to_string())),
                "index" => {
                    // `{"value": …, "type": "number" | "string"}`
                    let inner = value.get("value").unwrap_or(value);
                    match inner {
                        Value::Number(n) => Some(PathStep::Index(n.as_u64()? as usize)),
                        Value::String(s) => Some(PathStep::Key(s.clone())),
                        _ => None,
                    }
                }
                _ => None,
            }
        })
        .collect()
}

fn read_show_json(root: &Map<String, Value>) -> Result<State, TerraformError> {
    let version = root.get("format_version").and_then(Value::as_str).unwrap_or_default();
    if !version.starts_with("1.") {
        return Err(err(
            format!("`terraform show -json` format `{version}`: Ferry reads format 1.x"),
            "format_version",
        ));
    }
    let mut instances = Vec::new();
    // A state with nothing in it shows no `values`.
    if let Some(values) = root.get("values").filter(|v| !v.is_null()) {
        let module = values
            .get("root_module")
            .ok_or_else(|| err("`values` has no `root_module`", "values"))?;
        walk_module(module, "values.root_module", &mut instances)?;
    }
    check(&instances)?;
    Ok(State {
        format: Format::ShowJson,
        terraform_version: root
            .get("terraform_version")
            .and_then(Value::as_str)
            .map(str::to_string),
        instances,
    })
}

fn walk_module(module: &Value, at: &str, out: &mut Vec<Instance>) -> Result<(), TerraformError> {
    let module = module.as_object().ok_or_else(|| err("a module is a JSON object", at))?;
    let path = module.get("address").and_then(Value::as_str).unwrap_or_default().to_string();
    if !path.is_empty() && parse_module_path(&path).is_none() {
        return Err(err(format!("`{path}` is not a module path"), format!("{at}.address")));
    }
    for (i, r) in module
        .get("resources")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let at = format!("{at}.resources[{i}]");
        let text = |key: &str| text_field(r.get(key), key, &at);
        let mode = mode_of(&text("mode")?, &at)?;
        let provider_name = text("provider_name")?;
        let provider = ProviderAddress::parse(&provider_name).ok_or_else(|| {
            err(
                format!("`{provider_name}` is not a provider address"),
                format!("{at}.provider_name"),
            )
        })?;
        let key = match r.get("index") {
            None | Some(Value::Null) => None,
            Some(k) => Some(IndexKey::from_json(k).ok_or_else(|| {
                err("`index` is neither a number nor a string", format!("{at}.index"))
            })?),
        };
        let attributes = r.get("values").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut sensitive = BTreeSet::new();
        if let Some(s) = r.get("sensitive_values") {
            sensitive_marks(s, &mut Vec::new(), &mut sensitive);
        }
        let dependencies = r
            .get("depends_on")
            .and_then(Value::as_array)
            .map(|d| d.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let status = if r.get("tainted").and_then(Value::as_bool) == Some(true) {
            Status::Tainted
        } else {
            Status::Ready
        };
        let deposed = r.get("deposed_key").and_then(Value::as_str).map(str::to_string);
        let address = Address {
            module: path.clone(),
            mode,
            type_: identifier(text("type")?, "type", &at)?,
            name: identifier(text("name")?, "name", &at)?,
            key,
        };
        out.push(Instance {
            address,
            provider,
            attributes,
            sensitive,
            dependencies,
            status,
            deposed,
            schema_version: r.get("schema_version").and_then(Value::as_i64).unwrap_or(0),
        });
    }
    for (i, child) in module
        .get("child_modules")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        walk_module(child, &format!("{at}.child_modules[{i}]"), out)?;
    }
    Ok(())
}

/// `sensitive_values`: the attributes' shape with `true` where a value is sensitive.
fn sensitive_marks(value: &Value, path: &mut Vec<PathStep>, out: &mut BTreeSet<Vec<PathStep>>) {
    match value {
        Value::Bool(true) => {
            out.insert(path.clone());
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(PathStep::Key(k.clone()));
                sensitive_marks(v, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                sensitive_marks(v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Every address once; every managed, current instance with its `id`.
fn check(instances: &[Instance]) -> Result<(), TerraformError> {
    let mut seen = BTreeSet::new();
    for i in instances {
        let shown = i.shown_address();
        if !seen.insert(shown.clone()) {
            return Err(TerraformError {
                message: format!("`{shown}` is in the state twice"),
                path: Some(shown),
            });
        }
        if i.address.mode == Mode::Managed
            && i.deposed.is_none()
            && i.id().is_none_or(str::is_empty)
        {
            return Err(TerraformError {
                message: format!("`{shown}` has no `id` attribute: every managed resource Terraform records has one"),
                path: Some(format!("{shown}.id")),
            });
        }
    }
    Ok(())
}

/// A resource's text field `key`, or an error naming it at `at`.
/// A resource's type or name as Terraform's grammar (HCL's identifiers) allows it: a letter
/// or `_`, then letters, digits, `_` and `-`, letters being Unicode's. Anything else is no
/// state Terraform wrote.
fn identifier(text: String, key: &str, at: &str) -> Result<String, TerraformError> {
    let mut chars = text.chars();
    let valid = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(text)
    } else {
        Err(err(
            format!(
                "`{}` is not a Terraform {key} (letters, digits, `_` and `-`)",
                text.escape_debug()
            ),
            format!("{at}.{key}"),
        ))
    }
}

fn text_field(value: Option<&Value>, key: &str, at: &str) -> Result<String, TerraformError> {
    value
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| err(format!("`{key}` is missing or not text"), format!("{at}.{key}")))
}

/// A resource's `mode`, as both formats write it.
fn mode_of(text: &str, at: &str) -> Result<Mode, TerraformError> {
    match text {
        "managed" => Ok(Mode::Managed),
        "data" => Ok(Mode::Data),
        other => {
            Err(err(format!("`mode` is `{other}`, not `managed` or `data`"), format!("{at}.mode")))
        }
    }
}
