//! What the plan editors need from the server: the problems of the text being typed, placed
//! for underlining, and what to complete (type tokens and their inputs from the providers'
//! schemas, parent and provider names from the stack), as a JSON schema of the import file.
//!
//! Schemas are read once per package and kept for the process (a package's installed plugin
//! does not change under a running server; a restart picks up a new one).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use ferry_codegen::schema::PackageSchema;
use ferry_engine::plugin::PluginSearch;
use ferry_engine::source_map::{program_markers, spec_markers};
use ferry_types::{EditorHelp, EditorMarker, NameHint, TypeHint};
use serde_json::{json, Value};

use crate::{ServiceError, Stacks};

pub use ferry_types::SourceKind;

/// nameTable completions offered at most (a stack of thousands would make the schema heavy).
const MAX_NAME_SNIPPETS: usize = 500;

/// Type tokens with their inputs, by package, once read.
#[derive(Default)]
pub struct SchemaHints(std::sync::Mutex<HashMap<String, Arc<Result<Vec<TypeHint>, String>>>>);

/// The problems of `text`, each placed in it; empty when it is fine.
pub fn markers(kind: SourceKind, text: &str) -> Vec<EditorMarker> {
    match kind {
        SourceKind::Spec => spec_markers(text),
        SourceKind::Program => program_markers(text),
    }
}

/// What the editor says of a type's import ID: its recipe, or that its package documents none.
pub fn id_help(t: &TypeHint) -> String {
    match &t.recipe {
        Some(r) => format!("The import ID: {}", r.template()),
        None => "Its package documents no import ID format: see the provider's documentation"
            .to_string(),
    }
}

/// The import file's JSON schema, with `type` completing to the known tokens and, per type,
/// `properties` completing to its inputs; `parent` and `provider` complete to stack names.
fn import_file_schema(types: &[TypeHint], names: &[NameHint]) -> Value {
    let tokens: Vec<&str> = types.iter().map(|t| t.token.as_str()).collect();
    let parents: Vec<&str> =
        names.iter().filter(|n| !n.provider).map(|n| n.name.as_str()).collect();
    let providers: Vec<&str> =
        names.iter().filter(|n| n.provider).map(|n| n.name.as_str()).collect();
    // The stack's resources, each a ready `"name": "urn"` entry for nameTable (the names
    // `parent` and `provider` can then use, as Pulumi's import file requires).
    let named = names.iter().take(MAX_NAME_SNIPPETS);
    let urns: Vec<&str> = named.clone().map(|n| n.urn.as_str()).collect();
    let snippets: Vec<Value> = named
        .map(|n| json!({"label": n.name, "description": n.urn, "body": {n.name.clone(): n.urn}}))
        .collect();
    let per_type: Vec<Value> = types
        .iter()
        .map(|t| {
            json!({
                "if": {"properties": {"type": {"const": t.token}}, "required": ["type"]},
                "then": {"properties": {
                    "properties": {"items": {"enum": t.inputs}},
                    "id": {"type": "string", "description": id_help(t)}
                }}
            })
        })
        .collect();
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Pulumi import file",
        "type": "object",
        "properties": {
            "nameTable": {
                "type": "object",
                "description": "Names for resources already in the stack, for `parent` and `provider`",
                "additionalProperties": {"type": "string", "pattern": "^urn:pulumi:", "examples": urns},
                "defaultSnippets": snippets
            },
            "resources": {
                "type": "array",
                "description": "The resources to import",
                "items": {
                    "type": "object",
                    "required": ["type", "name"],
                    "additionalProperties": false,
                    "properties": {
                        "type": {"type": "string", "description": "The resource's type token", "examples": tokens},
                        "name": {"type": "string", "description": "The resource's name in the program"},
                        "id": {"type": "string", "description": "The ID the provider knows the resource by"},
                        "parent": {"type": "string", "description": "A name from nameTable or of another entry", "examples": parents},
                        "provider": {"type": "string", "description": "A provider's name from nameTable or of another entry", "examples": providers},
                        "version": {"type": "string", "description": "The provider plugin's version"},
                        "pluginDownloadUrl": {"type": "string", "description": "Ignored: Ferry never downloads plugins"},
                        "properties": {"type": "array", "description": "Which inputs Read returned to keep", "items": {"type": "string"}},
                        "component": {"type": "boolean"},
                        "remote": {"type": "boolean"},
                        "logicalName": {"type": "string", "description": "The name in the URN, when it differs from `name`"},
                        "inputs": {"type": "object"},
                        "outputs": {"type": "object", "description": "Given outputs: the resource is taken as is, without Read"}
                    },
                    "allOf": per_type
                }
            }
        },
        "required": ["resources"]
    })
}

/// The packages a text names in its type tokens (`"random:index/x:X"`, `type: random:X`).
fn packages_named(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("type") {
        let rest = text[i + 4..].trim_start_matches(['"', ' ', ':', '\t']);
        let package: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if !package.is_empty() && rest[package.len()..].starts_with(':') && package != "pulumi" {
            out.insert(package);
        }
    }
    out
}

impl Stacks {
    /// Completion data for a stack's plan editors: the packages of the stack's providers, of
    /// the installed plugins and of `text`, and the stack's resources by name.
    pub async fn editor_help(
        &self,
        stack_id: &str,
        text: Option<&str>,
    ) -> Result<EditorHelp, ServiceError> {
        let version = self.version(stack_id, None).await?;
        let config = self.engine.get()?.clone();
        let search = PluginSearch::from_env(config.plugin_dirs.clone());
        let mut packages: BTreeSet<String> = search.installed_packages().into_iter().collect();
        let mut names = Vec::new();
        for r in version.deployment.resources().iter().filter(|r| !r.is_pending_delete()) {
            let provider = r.is_provider();
            if let Some(p) = r.type_.strip_prefix("pulumi:providers:") {
                packages.insert(p.to_string());
            }
            names.push(NameHint {
                name: ferry_state::urn::name_of(&r.urn).to_string(),
                urn: r.urn.clone(),
                type_: r.type_.clone(),
                provider,
            });
        }
        packages.extend(text.map(packages_named).unwrap_or_default());

        // Packages named in the text launch plugins only where the organisation allows them
        // (the hints are shared by every organisation, so a refusal is not kept).
        let allowed = self.accounts.allowed_packages(stack_id).await?;
        let missing: Vec<String> = {
            let known = self.schema_hints.0.lock().expect("hints lock");
            packages
                .iter()
                .filter(|p| {
                    !known.contains_key(*p)
                        && allowed.packages.as_ref().is_none_or(|a| a.contains(*p))
                })
                .cloned()
                .collect()
        };
        if !missing.is_empty() {
            let providers = self.plugins.providers(stack_id).await?;
            for package in missing {
                let hints = match providers.schema(&package, None).await {
                    Ok(text) => {
                        PackageSchema::parse(&text).map_err(|e| e.to_string()).map(|schema| {
                            // The import ID recipes come from the same text, read once with the hints.
                            let mut recipes = serde_json::from_str::<Value>(&text)
                                .map(|v| ferry_engine::recipes::recipes(&v))
                                .unwrap_or_default();
                            let mut types: Vec<TypeHint> = schema
                                .resources
                                .iter()
                                .map(|(token, r)| TypeHint {
                                    token: token.clone(),
                                    inputs: r.inputs.keys().cloned().collect(),
                                    recipe: recipes.remove(token),
                                })
                                .collect();
                            types.sort_by(|a, b| a.token.cmp(&b.token));
                            types
                        })
                    }
                    Err(e) => Err(e.to_string()),
                };
                self.schema_hints.0.lock().expect("hints lock").insert(package, Arc::new(hints));
            }
            providers.shutdown().await;
        }
        let mut types = Vec::new();
        let mut problems = Vec::new();
        {
            let known = self.schema_hints.0.lock().expect("hints lock");
            for p in &packages {
                match known.get(p).map(|h| h.as_ref()) {
                    Some(Ok(t)) => types.extend(t.iter().cloned()),
                    Some(Err(e)) => problems.push(format!("`{p}`: {e}")),
                    None => {}
                }
            }
        }
        Ok(EditorHelp { json_schema: import_file_schema(&types, &names), types, names, problems })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_come_from_type_tokens_in_either_language() {
        let spec = r#"{"resources": [{"type": "random:index/randomPet:RandomPet"}, {"type":"aws:s3/bucket:Bucket"}]}"#;
        assert_eq!(packages_named(spec).into_iter().collect::<Vec<_>>(), vec!["aws", "random"]);
        let yaml =
            "resources:\n  a:\n    type: tls:PrivateKey\n  b:\n    type: pulumi:providers:random\n";
        assert_eq!(packages_named(yaml).into_iter().collect::<Vec<_>>(), vec!["tls"]);
    }

    #[test]
    fn the_schema_completes_types_and_per_type_inputs() {
        let types = vec![TypeHint {
            token: "random:index/randomPet:RandomPet".into(),
            inputs: vec!["length".into(), "prefix".into()],
            recipe: None,
        }];
        let names = vec![NameHint {
            name: "web".into(),
            urn: "urn:pulumi:s::p::random:index/randomPet:RandomPet::web".into(),
            type_: "t".into(),
            provider: false,
        }];
        let schema = import_file_schema(&types, &names);
        let item = &schema["properties"]["resources"]["items"];
        assert_eq!(item["properties"]["type"]["examples"][0], "random:index/randomPet:RandomPet");
        assert_eq!(item["properties"]["parent"]["examples"][0], "web");
        assert_eq!(
            item["allOf"][0]["then"]["properties"]["properties"]["items"]["enum"][1],
            "prefix"
        );
        // A type without a recipe says so rather than guess.
        assert!(item["allOf"][0]["then"]["properties"]["id"]["description"]
            .as_str()
            .unwrap()
            .contains("no import ID format"));
        let table = &schema["properties"]["nameTable"];
        assert_eq!(
            table["defaultSnippets"][0]["body"]["web"],
            "urn:pulumi:s::p::random:index/randomPet:RandomPet::web"
        );
    }

    #[test]
    fn markers_come_placed() {
        let m = markers(
            SourceKind::Spec,
            "{\"resources\": [{\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"a\"}]}",
        );
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].severity, "error");
        assert!(m[0].message.contains("needs the ID"), "{}", m[0].message);
    }
}
