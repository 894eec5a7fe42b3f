//! The package schema `GetSchema` returns, built from the property table in `model.rs` and the
//! provider settings in `connection.rs`. Descriptions are Ferry's own.

use serde_json::{json, Map, Value};

use crate::connection::SETTINGS;
use crate::model::{Kind, Prop, Ty, KINDS};

const POLICY: &str = "postgresql:index/SchemaPolicy:SchemaPolicy";

fn type_spec(ty: Ty) -> Value {
    match ty {
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Int => json!({"type": "integer"}),
        Ty::Str => json!({"type": "string"}),
        Ty::StrList => json!({"type": "array", "items": {"type": "string"}}),
        Ty::PolicyList => json!({"type": "array", "items": {"$ref": format!("#/types/{POLICY}")}}),
    }
}

fn property_spec(p: &Prop) -> Value {
    let mut spec = type_spec(p.ty);
    spec["description"] = json!(p.description);
    if p.secret {
        spec["secret"] = json!(true);
    }
    if let Some(d) = p.deprecated {
        spec["deprecationMessage"] = json!(d);
    }
    spec
}

fn resource_spec(kind: Kind) -> Value {
    let props: Map<String, Value> =
        kind.props().iter().map(|p| (p.name.to_string(), property_spec(p))).collect();
    json!({
        "description": kind.description(),
        "properties": props,
        "required": kind.required_outputs(),
        "inputProperties": props,
        "listInputs": kind.list_inputs(),
        // Stated for Ferry's identification (the same formats `id_format` describes).
        "language": {"ferry": {"importId": kind.import_id_template()}},
    })
}

fn settings() -> Map<String, Value> {
    SETTINGS
        .iter()
        .map(|s| {
            let mut spec = json!({"type": s.ty, "description": s.description});
            if s.secret {
                spec["secret"] = json!(true);
            }
            if let Some(env) = s.env {
                spec["defaultInfo"] = json!({"environment": [env]});
            }
            if let Some(d) = s.deprecated {
                spec["deprecationMessage"] = json!(d);
            }
            (s.name.to_string(), spec)
        })
        .collect()
}

/// The schema JSON.
pub fn schema(version: &str) -> String {
    let resources: Map<String, Value> =
        KINDS.into_iter().map(|k| (k.token().to_string(), resource_spec(k))).collect();
    let policy = |d: &str| json!({"type": "boolean", "description": d});
    json!({
        "name": "postgresql",
        "displayName": "PostgreSQL",
        "version": version,
        "description": "Roles, databases, schemas and extensions of a PostgreSQL server.",
        "keywords": ["pulumi", "postgresql", "category/database"],
        "license": "Apache-2.0",
        "meta": {"moduleFormat": "(.*)(?:/[^/]*)"},
        "language": {
            "nodejs": {"packageName": "@pulumi/postgresql", "compatibility": "tfbridge20", "disableUnionOutputTypes": true},
            "python": {"packageName": "pulumi_postgresql", "compatibility": "tfbridge20"},
            "go": {"importBasePath": "github.com/pulumi/pulumi-postgresql/sdk/v3/go/postgresql", "generateResourceContainerTypes": true, "generateExtraInputTypes": true},
            "csharp": {"namespaces": {"postgresql": "PostgreSql"}, "compatibility": "tfbridge20"}
        },
        "config": {"variables": settings()},
        "provider": {
            "description": "The provider for the postgresql package: which server to connect to, and as whom.",
            "properties": settings(),
            "inputProperties": settings(),
        },
        "types": {
            POLICY: {
                "type": "object",
                "properties": {
                    "create": policy("Whether the role may create objects in the schema."),
                    "createWithGrant": policy("Whether the role may create objects and grant that to others."),
                    "role": {"type": "string", "description": "The role the policy is for; empty for PUBLIC."},
                    "usage": policy("Whether the role may use objects in the schema."),
                    "usageWithGrant": policy("Whether the role may use objects and grant that to others."),
                }
            }
        },
        "resources": resources,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    /// Every type states its import ID, and Ferry's reader takes each as it is: every part a
    /// property of the type (what identification builds an ID from).
    #[test]
    fn every_type_states_its_import_id_of_its_own_properties() {
        let schema: serde_json::Value = serde_json::from_str(&super::schema("1.0.0")).unwrap();
        let recipes = ferry_engine::recipes::recipes(&schema);
        let templates: Vec<(String, String)> =
            recipes.iter().map(|(t, r)| (t.clone(), r.template())).collect();
        assert_eq!(
            templates,
            [
                ("postgresql:index/database:Database", "<name>"),
                ("postgresql:index/extension:Extension", "<database>.<name>"),
                ("postgresql:index/role:Role", "<name>"),
                ("postgresql:index/schema:Schema", "<database>.<name>"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        for (token, recipe) in &recipes {
            for p in recipe.properties() {
                assert!(schema["resources"][token]["properties"].get(p).is_some(), "{token}: {p}");
            }
        }
    }
}
