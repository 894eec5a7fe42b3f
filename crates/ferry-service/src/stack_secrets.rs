//! A stack's secrets provider as a commit or a deployment needs it: decrypting the secrets
//! the state holds and encrypting the ones a commit writes (b64 or passphrase; others are
//! refused by name).

use std::sync::atomic::{AtomicBool, Ordering};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ferry_state::secrets::PassphraseCrypter;
use ferry_state::{Deployment, SecretsProviders};
use serde_json::json;

use crate::stacks::stack_config::StackConfig;
use crate::ServiceError;

pub(crate) struct StackSecrets {
    kind: Option<String>,
    crypter: Option<PassphraseCrypter>,
    /// Whether a secret had to be encrypted.
    needed: AtomicBool,
}

impl StackSecrets {
    /// For reading the stack's secrets (a wrong passphrase is an error; none just leaves
    /// passphrase secrets unreadable).
    pub fn for_reading(
        deployment: &Deployment,
        passphrase: Option<&str>,
    ) -> Result<StackSecrets, ServiceError> {
        let kind = deployment.secrets_providers.as_ref().map(|p| p.kind.clone());
        let crypter = match (kind.as_deref(), passphrase) {
            (Some("passphrase"), Some(pass)) => {
                let salt = deployment
                    .secrets_providers
                    .as_ref()
                    .and_then(|p| p.state.as_ref())
                    .and_then(|s| s["salt"].as_str())
                    .unwrap_or("");
                Some(PassphraseCrypter::from_salt_state(pass, salt)?)
            }
            _ => None,
        };
        Ok(StackSecrets { kind, crypter, needed: AtomicBool::new(false) })
    }

    /// For a commit into `deployment`: a stack without a secrets provider gets a passphrase one
    /// when a passphrase is given (with the salt of its `Pulumi.<stack>.yaml`, when Ferry has it).
    pub fn for_commit(
        deployment: &mut Deployment,
        passphrase: Option<&str>,
        config: &StackConfig,
    ) -> Result<StackSecrets, ServiceError> {
        StackSecrets::for_reading(deployment, passphrase)?
            .into_commit(deployment, passphrase, config)
    }

    /// These secrets (made `for_reading` the same deployment) for a commit into it: the key
    /// already derived serves. Only a stack without a secrets provider gets one, when a
    /// passphrase is given: the passphrase provider with its `Pulumi.<stack>.yaml`'s
    /// `encryptionsalt` (the passphrase must match it, as `pulumi` would require), or with a
    /// fresh salt when Ferry has no such file. A stack whose file names another secrets provider
    /// gets none: Ferry cannot encrypt for it, and a commit with secrets is refused naming it.
    pub fn into_commit(
        self,
        deployment: &mut Deployment,
        passphrase: Option<&str>,
        config: &StackConfig,
    ) -> Result<StackSecrets, ServiceError> {
        let (None, Some(pass)) = (&deployment.secrets_providers, passphrase) else {
            return Ok(self);
        };
        if let Some(other) =
            config.secrets_provider.as_deref().filter(|p| *p != "passphrase" && !p.is_empty())
        {
            return Ok(StackSecrets {
                kind: Some(other.to_string()),
                crypter: None,
                needed: AtomicBool::new(false),
            });
        }
        let (crypter, salt) = match config.encryption_salt.as_deref() {
            Some(salt) => {
                let crypter = PassphraseCrypter::from_salt_state(pass, salt).map_err(|e| {
                    ServiceError::Commit(if e.code == ferry_state::ErrorCode::WrongPassphrase {
                        "the passphrase does not match the `encryptionsalt` of the stack's Pulumi.<stack>.yaml".to_string()
                    } else {
                        format!("the `encryptionsalt` of the stack's Pulumi.<stack>.yaml cannot be used: {}", e.message)
                    })
                })?;
                (crypter, salt.to_string())
            }
            None => PassphraseCrypter::new_salt(pass),
        };
        deployment.secrets_providers = Some(SecretsProviders {
            kind: "passphrase".into(),
            state: Some(json!({"salt": salt})),
            extra: Default::default(),
        });
        Ok(StackSecrets {
            kind: Some("passphrase".into()),
            crypter: Some(crypter),
            needed: AtomicBool::new(false),
        })
    }

    /// The key derived from the passphrase, for checks that would otherwise derive it again.
    pub fn key(&self) -> Option<&PassphraseCrypter> {
        self.crypter.as_ref()
    }

    pub fn encrypt(&self, plain: &str) -> String {
        self.needed.store(true, Ordering::Relaxed);
        match (&self.crypter, self.kind.as_deref()) {
            (Some(c), _) => c.encrypt(plain.as_bytes()),
            (None, Some("b64")) => BASE64.encode(plain),
            // Refused by `check_encrypted`, once we know a secret needed it.
            _ => String::new(),
        }
    }

    pub fn decrypt(&self, ciphertext: &str) -> Result<String, String> {
        let bytes = match (&self.crypter, self.kind.as_deref()) {
            (Some(c), _) => c.decrypt(ciphertext).map_err(|e| match e {
                ferry_state::secrets::DecryptError::Malformed => {
                    "the ciphertext is malformed".to_string()
                }
                ferry_state::secrets::DecryptError::WrongKey => {
                    "the passphrase does not decrypt it".to_string()
                }
            })?,
            (None, Some("b64")) => BASE64.decode(ciphertext).map_err(|e| e.to_string())?,
            (None, Some("passphrase")) => {
                return Err("the stack's secrets need its passphrase (X-Ferry-Passphrase)".into())
            }
            (None, other) => {
                return Err(format!(
                    "Ferry cannot decrypt the stack's `{}` secrets",
                    other.unwrap_or("unknown")
                ))
            }
        };
        String::from_utf8(bytes).map_err(|_| "a decrypted secret is not text".to_string())
    }

    /// After writing: refuses when secrets had to be encrypted and could not be.
    pub fn check_encrypted(&self) -> Result<(), ServiceError> {
        if !self.needed.load(Ordering::Relaxed)
            || self.crypter.is_some()
            || self.kind.as_deref() == Some("b64")
        {
            return Ok(());
        }
        Err(ServiceError::Commit(match self.kind.as_deref() {
            Some("passphrase") | None => {
                "the resources hold secrets: commit with the stack's passphrase (X-Ferry-Passphrase) so Ferry can encrypt them".to_string()
            }
            Some(other) => format!("the resources hold secrets, and Ferry cannot encrypt for the stack's `{other}` secrets provider"),
        }))
    }
}
