//! Checking a program against its providers' package schemas: type tokens as written
//! (`random:RandomPet`) resolved to the schema's (`random:index/randomPet:RandomPet`), and
//! unknown types and properties reported with their lines. One schema request per package
//! and version.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::program::{Diagnostic, Program, ProgramError};
use crate::provider::ProviderSource;

/// A resource's type as the schema names it, and the inputs it accepts (when known).
#[derive(Debug, Clone)]
pub struct ResolvedType {
    pub token: String,
    pub inputs: Option<BTreeSet<String>>,
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_lowercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// The schema token for a written type: exact, `pkg:index:T`, `pkg:index/t:T`, `pkg:mod/t:T`.
pub fn resolve_token(written: &str, resources: &serde_json::Map<String, Value>) -> Option<String> {
    if resources.contains_key(written) {
        return Some(written.to_string());
    }
    let parts: Vec<&str> = written.split(':').collect();
    let candidates: Vec<String> = match parts.as_slice() {
        [pkg, name] => {
            vec![format!("{pkg}:index:{name}"), format!("{pkg}:index/{}:{name}", lower_first(name))]
        }
        [pkg, module, name] if !module.contains('/') => {
            vec![format!("{pkg}:{module}/{}:{name}", lower_first(name))]
        }
        _ => Vec::new(),
    };
    candidates.into_iter().find(|c| resources.contains_key(c))
}

fn close(word: &str, known: impl Iterator<Item = String>) -> String {
    known
        .map(|k| (strsim::jaro_winkler(word, &k), k))
        .filter(|(s, _)| *s > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

pub async fn resolve_types(
    program: &Program,
    providers: &dyn ProviderSource,
) -> Result<Vec<ResolvedType>, ProgramError> {
    let mut schemas: BTreeMap<(String, Option<String>), Result<Value, String>> = BTreeMap::new();
    for r in &program.resources {
        let package = if r.is_provider() {
            r.type_.trim_start_matches("pulumi:providers:")
        } else {
            r.type_.split(':').next().unwrap_or("")
        };
        let key = (package.to_string(), r.options.version.clone());
        if schemas.contains_key(&key) {
            continue;
        }
        let schema = match providers.schema(&key.0, key.1.as_deref()).await {
            Ok(text) if text.trim().is_empty() => Ok(Value::Null),
            Ok(text) => serde_json::from_str::<Value>(&text)
                .map_err(|e| format!("the `{package}` provider's schema is not JSON: {e}")),
            Err(e) => Err(e.to_string()),
        };
        schemas.insert(key, schema);
    }
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut out = Vec::with_capacity(program.resources.len());
    for r in &program.resources {
        let path = format!("resources.{}", r.name);
        let package = if r.is_provider() {
            r.type_.trim_start_matches("pulumi:providers:")
        } else {
            r.type_.split(':').next().unwrap_or("")
        };
        let schema = &schemas[&(package.to_string(), r.options.version.clone())];
        let schema = match schema {
            Ok(s) => s,
            Err(e) => {
                diagnostics.push(program.diagnostic(
                    r.type_pos,
                    format!("{path}.type"),
                    format!("the `{package}` provider is not available: {e}"),
                ));
                out.push(ResolvedType { token: r.type_.clone(), inputs: None });
                continue;
            }
        };
        if r.is_provider() {
            let inputs = schema["config"]["variables"]
                .as_object()
                .map(|v| v.keys().cloned().collect::<BTreeSet<_>>());
            out.push(ResolvedType {
                token: r.type_.clone(),
                inputs: inputs.filter(|i| !i.is_empty()).map(|mut i| {
                    i.insert("version".into());
                    i
                }),
            });
            continue;
        }
        let Some(resources) = schema["resources"].as_object() else {
            // A provider without a schema: types and properties are the provider's to check.
            out.push(ResolvedType { token: r.type_.clone(), inputs: None });
            continue;
        };
        match resolve_token(&r.type_, resources) {
            Some(token) => {
                let inputs: BTreeSet<String> = resources[&token]["inputProperties"]
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                for (name, pos, _) in &r.properties {
                    if !inputs.contains(name) {
                        diagnostics.push(program.diagnostic(
                            *pos,
                            format!("{path}.properties.{name}"),
                            format!(
                                "`{token}` has no input `{name}`{}",
                                close(name, inputs.iter().cloned())
                            ),
                        ));
                    }
                }
                out.push(ResolvedType { token, inputs: Some(inputs) });
            }
            None => {
                let short = |t: &String| {
                    let parts: Vec<&str> = t.split(':').collect();
                    format!("{}:{}", parts[0], parts.last().unwrap_or(&""))
                };
                diagnostics.push(program.diagnostic(
                    r.type_pos,
                    format!("{path}.type"),
                    format!(
                        "the `{package}` package has no resource type `{}`{}",
                        r.type_,
                        close(&r.type_, resources.keys().map(short))
                    ),
                ));
                out.push(ResolvedType { token: r.type_.clone(), inputs: None });
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(out)
    } else {
        diagnostics.sort_by_key(|d| (d.line, d.column));
        Err(ProgramError { diagnostics })
    }
}
