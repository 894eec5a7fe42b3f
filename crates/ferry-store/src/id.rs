//! Identifiers: 128 random bits from the system's random source, as 32 hex digits. Preview, plan
//! and job IDs and share tokens are capabilities (they edit, commit or read), so none is guessable.

/// 128 random bits as 32 hex digits.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A capability's SHA-256, as hex: what the store keeps of session cookies, API tokens, sign-in
/// links and share links, so that reading the store opens nothing.
pub fn hash_secret(secret: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
