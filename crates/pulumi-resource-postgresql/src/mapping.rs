//! The Terraform mapping `GetMapping` returns for key `terraform`: what lets Ferry (and Pulumi's
//! converters) read a `cyrilgdn/postgresql` state as this package's resources. The bridge's
//! provider-info format, built from the property table in `model.rs`, so names and shapes are the
//! bridged `postgresql` provider's: snake_case in Terraform, camelCase in Pulumi, lists plural
//! (`search_path` → `searchPaths`, the `policy` blocks → `policies`).

use serde_json::{json, Map, Value};

use crate::model::{Kind, Ty, KINDS};

/// The Terraform provider this package stands for.
pub const TERRAFORM_PROVIDER: &str = "postgresql";

/// Terraform's name of a Pulumi property.
fn terraform_name(pulumi: &str) -> String {
    match pulumi {
        "searchPaths" => return "search_path".into(),
        "policies" => return "policy".into(),
        _ => {}
    }
    let mut out = String::with_capacity(pulumi.len() + 4);
    for c in pulumi.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn terraform_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Role => "postgresql_role",
        Kind::Database => "postgresql_database",
        Kind::Schema => "postgresql_schema",
        Kind::Extension => "postgresql_extension",
    }
}

/// A field's Terraform schema, value types numbered as the bridge numbers them.
fn terraform_field(ty: Ty) -> Value {
    match ty {
        Ty::Bool => json!({"type": 1}),
        Ty::Int => json!({"type": 2}),
        Ty::Str => json!({"type": 4}),
        Ty::StrList => json!({"type": 5, "element": {"schema": {"type": 4}}}),
        // A set of `policy` blocks.
        Ty::PolicyList => {
            let block: Map<String, Value> =
                ["create", "create_with_grant", "usage", "usage_with_grant"]
                    .into_iter()
                    .map(|f| (f.to_string(), json!({"type": 1, "optional": true})))
                    .chain([("role".to_string(), json!({"type": 4, "optional": true}))])
                    .collect();
            json!({"type": 7, "element": {"resource": block}})
        }
    }
}

/// The mapping's bytes for the Terraform provider `provider` (empty for one this package does
/// not stand for, as the protocol asks).
pub fn terraform_mapping(version: &str, provider: &str) -> Vec<u8> {
    if !provider.is_empty() && provider != TERRAFORM_PROVIDER {
        return Vec::new();
    }
    let (mut schemas, mut infos) = (Map::new(), Map::new());
    for kind in KINDS {
        let (mut schema, mut fields) = (Map::new(), Map::new());
        for p in kind.props() {
            let tf = terraform_name(p.name);
            let mut field = terraform_field(p.ty);
            if p.required {
                field["required"] = json!(true);
            } else {
                field["optional"] = json!(true);
                if p.computed {
                    field["computed"] = json!(true);
                }
            }
            if p.secret {
                field["sensitive"] = json!(true);
            }
            schema.insert(tf.clone(), field);
            let mut info = json!({"name": p.name});
            if p.secret {
                info["secret"] = json!(true);
            }
            fields.insert(tf, info);
        }
        schema.insert("id".into(), json!({"type": 4, "computed": true}));
        schemas.insert(terraform_type(kind).into(), Value::Object(schema));
        infos.insert(terraform_type(kind).into(), json!({"tok": kind.token(), "fields": fields}));
    }
    serde_json::to_vec(&json!({"name": "postgresql", "version": version, "provider": {"resources": schemas}, "resources": infos}))
        .expect("a mapping serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_shapes_are_the_bridged_providers() {
        assert_eq!(terraform_name("connectionLimit"), "connection_limit");
        assert_eq!(terraform_name("searchPaths"), "search_path");
        assert_eq!(terraform_name("roles"), "roles");
        let m: Value = serde_json::from_slice(&terraform_mapping("3.16.0", "postgresql")).unwrap();
        assert_eq!(m["resources"]["postgresql_role"]["tok"], "postgresql:index/role:Role");
        assert_eq!(
            m["resources"]["postgresql_role"]["fields"]["search_path"]["name"],
            "searchPaths"
        );
        assert_eq!(m["provider"]["resources"]["postgresql_role"]["password"]["sensitive"], true);
        assert_eq!(m["provider"]["resources"]["postgresql_schema"]["policy"]["type"], 7);
        assert_eq!(m["provider"]["resources"]["postgresql_database"]["owner"]["computed"], true);
        assert!(terraform_mapping("3.16.0", "aws").is_empty());
    }
}
