//! Secrets in state: the `b64` provider (test-only, base64 of the JSON plaintext) and the
//! `passphrase` provider (PBKDF2-HMAC-SHA256 × 1,000,000 → AES-256-GCM), Pulumi's formats.
//!
//! Ferry keeps state encrypted as it came; a passphrase is used to prove the file decrypts and
//! is then dropped. Other providers (cloud KMS, Pulumi Cloud) are kept as they are, undecrypted.

use aes_gcm::aead::{Aead, AeadCore, KeyInit, OsRng};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::Value;

use crate::deployment::Deployment;
use crate::error::{ErrorCode, StateError};
use crate::sig::{for_each_secret, SECRET_SIG};
use crate::warning::StateWarning;

/// PBKDF2 rounds Pulumi's passphrase provider uses.
pub const PASSPHRASE_ROUNDS: u32 = 1_000_000;

/// What the load found out about the state's secrets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SecretsSummary {
    /// `b64`, `passphrase`, `service`, … or none when the state names no provider.
    pub provider: Option<String>,
    /// Secrets stored encrypted (`ciphertext`).
    pub encrypted: usize,
    /// Secrets stored decrypted (`plaintext`, from `pulumi stack export --show-secrets`).
    pub plaintext: usize,
    /// Every ciphertext was decrypted and held valid JSON.
    pub verified: bool,
}

/// A key derived from a passphrase and salt, able to decrypt and encrypt Pulumi ciphertexts.
pub struct PassphraseCrypter {
    cipher: Aes256Gcm,
}

/// Never shows the key.
impl std::fmt::Debug for PassphraseCrypter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PassphraseCrypter { .. }")
    }
}

impl PassphraseCrypter {
    /// Derives the key from `passphrase` and the provider state's `salt`
    /// (`v1:<base64 salt>:<ciphertext of "pulumi">`) and checks it against the check value.
    pub fn from_salt_state(passphrase: &str, salt_state: &str) -> Result<Self, StateError> {
        let broken = || {
            StateError::new(
                ErrorCode::InvalidState,
                "the passphrase provider's salt is not `v1:<base64 salt>:v1:<nonce>:<ciphertext>`",
            )
        };
        let rest = salt_state.strip_prefix("v1:").ok_or_else(broken)?;
        let (salt_b64, check) = rest.split_once(':').ok_or_else(broken)?;
        let salt = BASE64.decode(salt_b64).map_err(|_| broken())?;
        let mut key = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<sha2::Sha256>(
            passphrase.as_bytes(),
            &salt,
            PASSPHRASE_ROUNDS,
            &mut key,
        );
        let crypter = PassphraseCrypter { cipher: Aes256Gcm::new(&key.into()) };
        match crypter.decrypt(check) {
            Ok(plain) if plain == b"pulumi" => Ok(crypter),
            Err(DecryptError::Malformed) => Err(broken()),
            _ => Err(StateError::new(
                ErrorCode::WrongPassphrase,
                "the passphrase does not decrypt this state (wrong passphrase)",
            )),
        }
    }

    /// Whether this key is the one a provider state's salt (`v1:<salt>:<check>`) was made with:
    /// its check value decrypts to `pulumi`. No key derivation.
    pub fn matches_salt_state(&self, salt_state: &str) -> bool {
        let check = salt_state
            .strip_prefix("v1:")
            .and_then(|rest| rest.split_once(':'))
            .map(|(_, check)| check);
        check.is_some_and(|c| self.decrypt(c).is_ok_and(|plain| plain == b"pulumi"))
    }

    /// A crypter for a raw 256-bit key (Ferry's own payload key).
    pub fn from_key(key: &[u8; 32]) -> Self {
        PassphraseCrypter { cipher: Aes256Gcm::new(key.into()) }
    }

    /// A new passphrase provider: a random salt, the derived key, and the provider's state
    /// value (`v1:<salt>:<ciphertext of "pulumi">`).
    pub fn new_salt(passphrase: &str) -> (Self, String) {
        let salt: [u8; 8] =
            Aes256Gcm::generate_nonce(&mut OsRng)[..8].try_into().expect("12 bytes hold 8");
        let mut key = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<sha2::Sha256>(
            passphrase.as_bytes(),
            &salt,
            PASSPHRASE_ROUNDS,
            &mut key,
        );
        let crypter = Self::from_key(&key);
        let state = format!("v1:{}:{}", BASE64.encode(salt), crypter.encrypt(b"pulumi"));
        (crypter, state)
    }

    /// Decrypts `v1:<base64 nonce>:<base64 ciphertext+tag>`.
    pub fn decrypt(&self, ciphertext: &str) -> Result<Vec<u8>, DecryptError> {
        let rest = ciphertext.strip_prefix("v1:").ok_or(DecryptError::Malformed)?;
        let (nonce_b64, data_b64) = rest.split_once(':').ok_or(DecryptError::Malformed)?;
        let nonce = BASE64.decode(nonce_b64).map_err(|_| DecryptError::Malformed)?;
        let data = BASE64.decode(data_b64).map_err(|_| DecryptError::Malformed)?;
        if nonce.len() != 12 {
            return Err(DecryptError::Malformed);
        }
        self.cipher
            .decrypt(Nonce::from_slice(&nonce), data.as_slice())
            .map_err(|_| DecryptError::WrongKey)
    }

    /// Encrypts with a fresh random nonce, in the format `decrypt` reads.
    pub fn encrypt(&self, plaintext: &[u8]) -> String {
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let data = self.cipher.encrypt(&nonce, plaintext).expect("AES-GCM encryption cannot fail");
        format!("v1:{}:{}", BASE64.encode(nonce), BASE64.encode(data))
    }
}

/// A new 256-bit key from the operating system's secure random source.
pub fn random_key() -> [u8; 32] {
    Aes256Gcm::generate_key(&mut OsRng).into()
}

/// Why a ciphertext did not decrypt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecryptError {
    Malformed,
    WrongKey,
}

/// Counts the deployment's secrets and, where the provider allows, proves they decrypt.
/// `key`, when the caller already derived it from the passphrase (a commit did, to encrypt),
/// stands in for `passphrase`: the key is derived once per request, not once per check.
pub fn verify_secrets(
    deployment: &Deployment,
    base: &str,
    passphrase: Option<&str>,
    key: Option<&PassphraseCrypter>,
    unchecked_ok: bool,
    warnings: &mut Vec<StateWarning>,
) -> Result<SecretsSummary, StateError> {
    let mut ciphertexts: Vec<(String, Value)> = Vec::new();
    let mut plaintext = 0usize;
    let mut malformed: Option<String> = None;
    for (i, r) in deployment.resources().iter().enumerate() {
        for (field, properties) in [("inputs", &r.inputs), ("outputs", &r.outputs)] {
            // Only objects whose text may hold a secret are parsed: the signature as Pulumi writes
            // it, or any `\u` escape (which could spell it otherwise).
            let Some(properties) =
                properties.as_ref().filter(|p| p.mentions(SECRET_SIG) || p.mentions("\\u"))
            else {
                continue;
            };
            for (key, value) in &properties.to_map() {
                let mut path = format!("{base}.resources[{i}].{field}.{key}");
                for_each_secret(value, &mut path, &mut |p, obj| match (
                    obj.get("ciphertext"),
                    obj.get("plaintext"),
                ) {
                    (Some(c), _) => ciphertexts.push((p.to_string(), c.clone())),
                    (None, Some(_)) => plaintext += 1,
                    (None, None) => {
                        malformed.get_or_insert_with(|| p.to_string());
                    }
                });
            }
        }
    }
    if let Some(path) = malformed {
        return Err(StateError::new(
            ErrorCode::InvalidSecret,
            "a secret has neither `ciphertext` nor `plaintext`",
        )
        .at(path));
    }

    let provider = deployment.secrets_providers.as_ref().map(|p| p.kind.clone());
    let mut summary = SecretsSummary {
        provider: provider.clone(),
        encrypted: ciphertexts.len(),
        plaintext,
        verified: false,
    };
    let provider_path = format!("{base}.secrets_providers");

    match provider.as_deref() {
        None if ciphertexts.is_empty() => summary.verified = true,
        None => {
            return Err(StateError::new(
                ErrorCode::InvalidSecret,
                format!(
                    "the state holds {} encrypted secrets but names no secrets provider",
                    ciphertexts.len()
                ),
            )
            .at(&ciphertexts[0].0))
        }
        Some("b64") => {
            for (path, c) in &ciphertexts {
                let ok = c
                    .as_str()
                    .and_then(|s| BASE64.decode(s).ok())
                    .is_some_and(|bytes| serde_json::from_slice::<Value>(&bytes).is_ok());
                if !ok {
                    return Err(StateError::new(
                        ErrorCode::InvalidSecret,
                        "this `b64` secret is not base64 of a JSON value",
                    )
                    .at(path));
                }
            }
            summary.verified = true;
        }
        Some("passphrase") => {
            let salt = deployment
                .secrets_providers
                .as_ref()
                .and_then(|p| p.state.as_ref())
                .and_then(|s| s.get("salt"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    StateError::new(
                        ErrorCode::InvalidState,
                        "the passphrase provider's state has no `salt`",
                    )
                    .at(format!("{provider_path}.state"))
                })?;
            let derived;
            let key = match (key.filter(|k| k.matches_salt_state(salt)), passphrase) {
                (Some(k), _) => Some(k),
                (None, Some(passphrase)) => {
                    derived = PassphraseCrypter::from_salt_state(passphrase, salt)
                        .map_err(|e| e.at(format!("{provider_path}.state.salt")))?;
                    Some(&derived)
                }
                (None, None) => None,
            };
            match key {
                None if ciphertexts.is_empty() => {}
                None if unchecked_ok => warnings.push(StateWarning {
                    message: format!("{} passphrase-encrypted secrets were read without the passphrase, so not checked", ciphertexts.len()),
                    path: None,
                }),
                None => {
                    return Err(StateError::new(
                        ErrorCode::PassphraseRequired,
                        format!(
                            "the state's {} secrets are encrypted with a passphrase; supply it to load the \
                             state (it is used for this upload only and never stored)",
                            ciphertexts.len()
                        ),
                    ))
                }
                Some(crypter) => {
                    for (path, c) in &ciphertexts {
                        let plain = c.as_str().ok_or(DecryptError::Malformed).and_then(|s| crypter.decrypt(s));
                        let ok = plain.is_ok_and(|p| serde_json::from_slice::<Value>(&p).is_ok());
                        if !ok {
                            return Err(StateError::new(ErrorCode::InvalidSecret, "this secret does not decrypt with the state's passphrase key").at(path));
                        }
                    }
                    summary.verified = true;
                }
            }
        }
        Some(other) => {
            if !ciphertexts.is_empty() {
                warnings.push(StateWarning {
                    message: format!(
                        "{} secrets are encrypted by the `{other}` secrets provider; Ferry keeps them \
                         as they are and shows them masked",
                        ciphertexts.len()
                    ),
                    path: Some(provider_path),
                });
            }
        }
    }
    Ok(summary)
}
