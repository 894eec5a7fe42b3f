//! Identifiers: 128 random bits from the system's random source, as 32 hex digits. Preview, plan
//! and job IDs and share tokens are capabilities (they edit, commit or read), so none is guessable.

/// 128 random bits as 32 hex digits.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
