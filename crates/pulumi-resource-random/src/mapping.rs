//! The Terraform mapping `GetMapping` returns for key `terraform`: what lets Ferry (and Pulumi's
//! converters) read a `hashicorp/random` state as this package's resources. It is the bridge's
//! provider-info format, built from the same table as the schema, so field names and shapes are
//! the ones the bridged `random` provider uses: Terraform's snake_case names, camelCase in
//! Pulumi, lists plural (`input` → `inputs`).

use serde_json::{json, Map, Value};

use crate::schema::{resources, Ty};

/// The Terraform provider this package stands for.
pub const TERRAFORM_PROVIDER: &str = "random";

/// Terraform's name of a Pulumi property: snake_case, lists singular.
fn terraform_name(pulumi: &str, ty: Ty) -> String {
    let mut out = String::with_capacity(pulumi.len() + 4);
    for c in pulumi.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    if ty == Ty::StrList {
        if let Some(singular) = out.strip_suffix('s') {
            return singular.to_string();
        }
    }
    out
}

/// Terraform's type of a resource (`random:index/randomString:RandomString` → `random_string`),
/// for the resources the Terraform provider has.
fn terraform_type(token: &str) -> Option<String> {
    let name = token.rsplit(':').next()?.strip_prefix("Random")?;
    let tf = format!(
        "random_{}",
        terraform_name(&name[..1].to_ascii_lowercase(), Ty::Str)
            + &terraform_name(&name[1..], Ty::Str)
    );
    // The version 4 and 7 UUIDs are Pulumi's own; Terraform's provider has only `random_uuid`.
    (!tf.starts_with("random_uuid") || tf == "random_uuid").then_some(tf)
}

/// One field of the Terraform schema, numbered as the bridge numbers value types.
fn terraform_field(ty: Ty, input: bool, required: bool, secret: bool) -> Value {
    let mut field = match ty {
        Ty::Bool => json!({"type": 1}),
        Ty::Int => json!({"type": 2}),
        Ty::Str => json!({"type": 4}),
        Ty::StrMap => json!({"type": 6, "element": {"schema": {"type": 4}}}),
        Ty::StrList => json!({"type": 5, "element": {"schema": {"type": 4}}}),
    };
    match (input, required) {
        (true, true) => field["required"] = json!(true),
        // Optional inputs the provider defaults (`lower`, `separator`) are computed too.
        (true, false) => {
            field["optional"] = json!(true);
            field["computed"] = json!(ty != Ty::StrMap && ty != Ty::StrList);
        }
        (false, _) => field["computed"] = json!(true),
    }
    if secret {
        field["sensitive"] = json!(true);
    }
    field
}

/// The mapping's bytes for the Terraform provider `provider` (empty for one this package does
/// not stand for, as the protocol asks).
pub fn terraform_mapping(version: &str, provider: &str) -> Vec<u8> {
    if !provider.is_empty() && provider != TERRAFORM_PROVIDER {
        return Vec::new();
    }
    let (mut schemas, mut infos) = (Map::new(), Map::new());
    for r in resources() {
        let Some(tf_type) = terraform_type(r.token) else { continue };
        let mut schema = Map::new();
        let mut fields = Map::new();
        for p in &r.props {
            let tf = terraform_name(p.name, p.ty);
            schema.insert(tf.clone(), terraform_field(p.ty, p.input, p.required_input, p.secret));
            let mut info = json!({"name": p.name});
            if p.secret {
                info["secret"] = json!(true);
            }
            fields.insert(tf, info);
        }
        schema.insert("id".into(), json!({"type": 4, "computed": true}));
        schemas.insert(tf_type.clone(), Value::Object(schema));
        infos.insert(tf_type, json!({"tok": r.token, "fields": fields}));
    }
    serde_json::to_vec(&json!({
        "name": "random",
        "version": version,
        "provider": {"resources": schemas},
        "resources": infos,
    }))
    .expect("a mapping serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terraform_names_are_the_providers() {
        assert_eq!(
            terraform_type("random:index/randomString:RandomString").as_deref(),
            Some("random_string")
        );
        assert_eq!(
            terraform_type("random:index/randomUuid:RandomUuid").as_deref(),
            Some("random_uuid")
        );
        assert_eq!(terraform_type("random:index/randomUuid4:RandomUuid4"), None);
        assert_eq!(terraform_name("minLower", Ty::Int), "min_lower");
        assert_eq!(terraform_name("b64Url", Ty::Str), "b64_url");
        assert_eq!(terraform_name("inputs", Ty::StrList), "input");
        let m: Value = serde_json::from_slice(&terraform_mapping("4.0.0", "random")).unwrap();
        assert_eq!(
            m["resources"]["random_shuffle"]["fields"]["result_count"]["name"],
            "resultCount"
        );
        assert_eq!(m["provider"]["resources"]["random_string"]["result"]["computed"], true);
        assert_eq!(m["provider"]["resources"]["random_password"]["result"]["sensitive"], true);
        assert!(terraform_mapping("4.0.0", "aws").is_empty());
        let names: Vec<&String> = m["resources"].as_object().unwrap().keys().collect();
        assert_eq!(
            names,
            [
                "random_bytes",
                "random_id",
                "random_integer",
                "random_password",
                "random_pet",
                "random_shuffle",
                "random_string",
                "random_uuid"
            ]
        );
    }
}
