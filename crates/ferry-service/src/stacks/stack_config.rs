//! A stack's `Pulumi.<stack>.yaml`, as far as Ferry needs it: the passphrase secrets
//! provider's `encryptionsalt` (the key new secrets of a stack whose state has no secrets
//! provider yet are written with, so that the team's `pulumi` reads them with its own config),
//! and which `secretsprovider` the stack names.

use marked_yaml::Node;

use crate::{ServiceError, Stacks};

// What Ferry reads of a stack's configuration file, as the API answers it.
pub use ferry_types::api::StackConfig;

/// Reads `Pulumi.<stack>.yaml` text; what is wrong is named with its line.
pub fn parse_stack_config(yaml: &str) -> Result<StackConfig, ServiceError> {
    let invalid = |what: String| {
        ServiceError::Invalid(format!(
            "the stack's configuration file (Pulumi.<stack>.yaml) {what}"
        ))
    };
    if yaml.trim().is_empty() {
        return Ok(StackConfig::default());
    }
    let root = marked_yaml::parse_yaml(0, yaml)
        .map_err(|e| invalid(format!("does not parse as YAML: {e}")))?;
    let Node::Mapping(map) = root else {
        return Err(invalid("is not a mapping of keys (`config:`, `encryptionsalt:`, …)".into()));
    };
    let text = |key: &str| -> Result<Option<String>, ServiceError> {
        match map.get_node(key) {
            None => Ok(None),
            Some(Node::Scalar(s)) => Ok(Some(s.as_str().to_string())),
            Some(other) => Err(invalid(format!(
                "has a `{key}` that is not text (line {})",
                other.span().start().map(|m| m.line()).unwrap_or(0)
            ))),
        }
    };
    let encryption_salt = text("encryptionsalt")?;
    if let Some(salt) = &encryption_salt {
        let parts: Vec<&str> = salt.splitn(3, ':').collect();
        if parts.len() != 3 || parts[0] != "v1" || parts[1].is_empty() || parts[2].is_empty() {
            return Err(invalid("has an `encryptionsalt` that is not `v1:<salt>:<check>`, as `pulumi stack init` writes it".into()));
        }
    }
    Ok(StackConfig { encryption_salt, secrets_provider: text("secretsprovider")? })
}

impl Stacks {
    /// Keeps `yaml` as the stack's `Pulumi.<stack>.yaml` (checked first), and returns what
    /// Ferry reads of it.
    pub async fn set_stack_config(
        &self,
        stack_id: &str,
        yaml: &str,
    ) -> Result<StackConfig, ServiceError> {
        let config = parse_stack_config(yaml)?;
        self.store.stacks().stack(stack_id).await?;
        self.store.stacks().set_stack_config(stack_id, yaml).await?;
        Ok(config)
    }

    /// What Ferry reads of the stack's `Pulumi.<stack>.yaml`; empty when none was given.
    pub async fn stack_config(&self, stack_id: &str) -> Result<StackConfig, ServiceError> {
        match self.store.stacks().stack_config(stack_id).await? {
            Some(yaml) => parse_stack_config(&yaml),
            None => Ok(StackConfig::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_stack_config, StackConfig};

    #[test]
    fn the_salt_and_provider_are_read_and_bad_files_named() {
        let config = parse_stack_config(
            "encryptionsalt: v1:c2FsdA==:v1:bm9uY2U=:Y2hlY2s=\nconfig:\n  aws:region: us-west-2\n",
        )
        .unwrap();
        assert_eq!(config.encryption_salt.as_deref(), Some("v1:c2FsdA==:v1:bm9uY2U=:Y2hlY2s="));
        assert_eq!(config.secrets_provider, None);
        let kms = parse_stack_config("secretsprovider: awskms://alias/team\nencryptedkey: abc\n")
            .unwrap();
        assert_eq!(kms.secrets_provider.as_deref(), Some("awskms://alias/team"));
        assert_eq!(parse_stack_config("").unwrap(), StackConfig::default());
        for bad in ["encryptionsalt: nope", "- a list", "encryptionsalt: [1]", "a: : b: ["] {
            let err = parse_stack_config(bad).unwrap_err().to_string();
            assert!(err.contains("Pulumi.<stack>.yaml"), "{bad}: {err}");
        }
    }
}
