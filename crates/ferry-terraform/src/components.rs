//! A module call as a Pulumi component, as Pulumi's own Terraform migration lays a state out:
//! each instance of `module.vpc` is a component of type `terraform:module/vpc:Vpc` named after
//! the call and its key (`vpc`, `app-0`, `net-eu`), and what the module declares (its nested
//! calls' components too) is its child. A nested call's name carries its callers' (`db-subnets`),
//! as two instances of one module hold the same nested call and URNs must differ.

use serde::{Deserialize, Serialize};

use crate::address::{Address, IndexKey};
use crate::names::clean;

/// A component an imported resource is placed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleComponent {
    #[serde(rename = "type")]
    pub type_: String,
    pub name: String,
}

/// The components `address`'s module path makes, outermost first (none at the root).
pub fn module_components(address: &Address) -> Vec<ModuleComponent> {
    let mut name = String::new();
    address
        .modules()
        .into_iter()
        .map(|(call, key)| {
            if !name.is_empty() {
                name.push('-');
            }
            name.push_str(&clean(&call));
            match key {
                Some(IndexKey::Number(n)) => name.push_str(&format!("-{n}")),
                Some(IndexKey::Text(s)) => name.push_str(&format!("-{}", clean(&s))),
                None => {}
            }
            ModuleComponent { type_: component_type(&call), name: name.clone() }
        })
        .collect()
}

/// `terraform:module/<camelCase>:<PascalCase>` of a module call's name (`ec2_app` gives
/// `terraform:module/ec2App:Ec2App`), letters and digits only.
pub fn component_type(call: &str) -> String {
    let words: Vec<String> = call
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let capitalised = |w: &str| {
        let mut chars = w.chars();
        chars
            .next()
            .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
            .unwrap_or_default()
    };
    let pascal: String = words.iter().map(|w| capitalised(w)).collect();
    let pascal = if pascal.is_empty() { "Module".to_string() } else { pascal };
    let mut camel = pascal.clone();
    camel[..1].make_ascii_lowercase();
    format!("terraform:module/{camel}:{pascal}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::address::Mode;

    fn at(module: &str) -> Address {
        Address {
            module: module.into(),
            mode: Mode::Managed,
            type_: "aws_s3_bucket".into(),
            name: "b".into(),
            key: None,
        }
    }

    #[test]
    fn module_calls_become_components_named_by_call_and_key() {
        assert!(module_components(&at("")).is_empty(), "the root is no component");
        let shown = |module: &str| {
            module_components(&at(module))
                .into_iter()
                .map(|c| format!("{} {}", c.type_, c.name))
                .collect::<Vec<_>>()
        };
        assert_eq!(shown("module.vpc"), ["terraform:module/vpc:Vpc vpc"]);
        assert_eq!(
            shown("module.ec2_private_app1[0]"),
            ["terraform:module/ec2PrivateApp1:Ec2PrivateApp1 ec2_private_app1-0"]
        );
        assert_eq!(
            shown(r#"module.rdsdb.module.db_option_group["eu west"]"#),
            [
                "terraform:module/rdsdb:Rdsdb rdsdb",
                "terraform:module/dbOptionGroup:DbOptionGroup rdsdb-db_option_group-eu-west"
            ]
        );
        // Two instances of one module: their nested calls' components differ.
        assert_ne!(shown("module.a[0].module.b"), shown("module.a[1].module.b"));
        assert_eq!(component_type("9-lives"), "terraform:module/9Lives:9Lives");
        assert_eq!(component_type("__"), "terraform:module/module:Module");
    }
}
