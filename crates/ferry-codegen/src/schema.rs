//! Package schemas, as code generation reads them: resources and their input properties with
//! types, object and enum types, each language's names for the package and its properties.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

/// A type token's parts: `pkg:module/file:Name` → (`pkg`, `module`, `Name`). The module is
/// `index` for the package's top level.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeRef {
    pub package: String,
    pub module: String,
    pub name: String,
    pub token: String,
}

impl TypeRef {
    /// A type token's parts, when each is one the languages can print: a package and module of
    /// letters, digits, `_`, `-` and `.`, and a name that is an identifier. Anything else (a
    /// token from a state file is anyone's text) is no type.
    pub fn parse(token: &str) -> Option<TypeRef> {
        let mut parts = token.splitn(3, ':');
        let (package, module, name) = (parts.next()?, parts.next()?, parts.next()?);
        let module = module.split('/').next().unwrap_or(module);
        let plain = |s: &str| {
            !s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        };
        if !plain(package)
            || !(module.is_empty() || plain(module))
            || !crate::names::Ident::is_plain(name, &[])
        {
            return None;
        }
        Some(TypeRef {
            package: package.into(),
            module: module.into(),
            name: name.into(),
            token: token.into(),
        })
    }

    pub fn is_index(&self) -> bool {
        self.module == "index" || self.module.is_empty()
    }
}

/// A property's type.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    String,
    Int,
    Number,
    Bool,
    /// Anything (`pulumi.json#/Any`, `#/Json`, unions).
    Any,
    Asset,
    Archive,
    List(Box<Type>),
    Map(Box<Type>),
    Object(TypeRef),
    /// An enum type, with the type of its values.
    Enum(TypeRef, Box<Type>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub ty: Type,
    pub secret: bool,
    pub default: Option<Value>,
    /// Per-language names when the schema overrides them (`python`, `go`, `csharp`).
    pub language_names: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
pub struct ObjectType {
    pub properties: BTreeMap<String, Property>,
    pub required: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct EnumMember {
    pub name: Option<String>,
    pub value: Value,
}

#[derive(Debug, Clone)]
pub struct ResourceType {
    pub token: TypeRef,
    pub inputs: BTreeMap<String, Property>,
    pub required: Vec<String>,
}

/// One package's schema.
#[derive(Debug, Clone)]
pub struct PackageSchema {
    pub name: String,
    pub version: Option<String>,
    pub resources: HashMap<String, ResourceType>,
    pub objects: HashMap<String, ObjectType>,
    pub enums: HashMap<String, Vec<EnumMember>>,
    /// The provider resource's inputs (`config.variables`).
    pub provider: ResourceType,
    /// npm package (`@pulumi/<name>` unless the schema says otherwise).
    pub nodejs_package: String,
    /// PyPI package and module (`pulumi-<name>`, `pulumi_<name>`).
    pub python_package: String,
    pub python_module: String,
    /// Go import path of the package's top level.
    pub go_import: String,
    /// C# namespace under `Pulumi.` (`Random`, `PostgreSql`).
    pub csharp_namespace: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("package schema: {0}")]
pub struct SchemaError(pub String);

fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

impl PackageSchema {
    pub fn parse(text: &str) -> Result<PackageSchema, SchemaError> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| SchemaError(format!("not JSON: {e}")))?;
        PackageSchema::from_value(&v)
    }

    pub fn from_value(v: &Value) -> Result<PackageSchema, SchemaError> {
        let name = v["name"].as_str().ok_or_else(|| SchemaError("no `name`".into()))?.to_string();
        let types = v["types"].as_object().cloned().unwrap_or_default();
        let mut objects = HashMap::new();
        let mut enums = HashMap::new();
        for (token, t) in &types {
            if let Some(members) = t["enum"].as_array() {
                enums.insert(
                    token.clone(),
                    members
                        .iter()
                        .map(|m| EnumMember {
                            name: m["name"].as_str().map(str::to_string),
                            value: m["value"].clone(),
                        })
                        .collect(),
                );
            } else {
                objects.insert(
                    token.clone(),
                    ObjectType {
                        properties: properties(&t["properties"], &types),
                        required: strings(&t["required"]),
                    },
                );
            }
        }
        let mut resources = HashMap::new();
        for (token, r) in v["resources"].as_object().into_iter().flatten() {
            let Some(t) = TypeRef::parse(token) else { continue };
            resources.insert(
                token.clone(),
                ResourceType {
                    token: t,
                    inputs: properties(&r["inputProperties"], &types),
                    required: strings(&r["requiredInputs"]),
                },
            );
        }
        let provider_token = format!("pulumi:providers:{name}");
        let provider = ResourceType {
            token: TypeRef {
                package: name.clone(),
                module: "index".into(),
                name: "Provider".into(),
                token: provider_token,
            },
            inputs: properties(&v["config"]["variables"], &types),
            required: Vec::new(),
        };
        let lang = &v["language"];
        let nodejs_package = lang["nodejs"]["packageName"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("@pulumi/{name}"));
        let python_package = lang["python"]["packageName"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("pulumi-{name}"));
        let python_module = python_package.replace('-', "_");
        let go_import = lang["go"]["importBasePath"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("github.com/pulumi/pulumi-{name}/sdk/go/{name}"));
        let csharp_namespace = lang["csharp"]["namespaces"][&name]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| title(&name));
        Ok(PackageSchema {
            name,
            version: v["version"].as_str().map(str::to_string),
            resources,
            objects,
            enums,
            provider,
            nodejs_package,
            python_package,
            python_module,
            go_import,
            csharp_namespace,
        })
    }

    /// The resource type for `token` (provider resources included).
    pub fn resource(&self, token: &str) -> Option<&ResourceType> {
        if token == self.provider.token.token {
            return Some(&self.provider);
        }
        self.resources.get(token)
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn properties(v: &Value, types: &serde_json::Map<String, Value>) -> BTreeMap<String, Property> {
    v.as_object()
        .into_iter()
        .flatten()
        .map(|(name, p)| {
            let mut language_names = BTreeMap::new();
            for lang in ["python", "go", "csharp", "nodejs"] {
                if let Some(n) = p["language"][lang]["name"].as_str() {
                    language_names.insert(lang.to_string(), n.to_string());
                }
            }
            let property = Property {
                name: name.clone(),
                ty: type_of(p, types),
                secret: p["secret"].as_bool().unwrap_or(false),
                default: p.get("default").cloned(),
                language_names,
            };
            (name.clone(), property)
        })
        .collect()
}

fn type_of(p: &Value, types: &serde_json::Map<String, Value>) -> Type {
    if let Some(r) = p["$ref"].as_str() {
        return match r {
            "pulumi.json#/Asset" => Type::Asset,
            "pulumi.json#/Archive" => Type::Archive,
            "pulumi.json#/Any" | "pulumi.json#/Json" => Type::Any,
            _ => match r.rsplit_once("#/types/") {
                Some((_, token)) => match (TypeRef::parse(token), types.get(token)) {
                    (Some(t), Some(def)) if def["enum"].is_array() => {
                        let base = match def["type"].as_str() {
                            Some("integer") => Type::Int,
                            Some("number") => Type::Number,
                            Some("boolean") => Type::Bool,
                            _ => Type::String,
                        };
                        Type::Enum(t, Box::new(base))
                    }
                    (Some(t), Some(_)) => Type::Object(t),
                    // A type from another package, or one this schema lacks.
                    _ => Type::Any,
                },
                None => Type::Any,
            },
        };
    }
    if p["oneOf"].is_array() {
        return Type::Any;
    }
    match p["type"].as_str() {
        Some("string") => Type::String,
        Some("integer") => Type::Int,
        Some("number") => Type::Number,
        Some("boolean") => Type::Bool,
        Some("array") => Type::List(Box::new(type_of(&p["items"], types))),
        Some("object") => match p.get("additionalProperties") {
            Some(ap) if ap.is_object() => Type::Map(Box::new(type_of(ap, types))),
            _ => Type::Map(Box::new(Type::Any)),
        },
        _ => Type::Any,
    }
}
