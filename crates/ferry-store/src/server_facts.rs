//! Facts every instance sharing the store must agree on, kept in the store itself. Today one:
//! a check value of the payload key (a keyed hash, never the key), so that an instance started
//! with another key refuses to start instead of failing, later, to open what the others sealed.

use crate::{Store, StoreError};

const PAYLOAD_KEY_CHECK: &str = "payload_key_check";

/// Whether this instance's payload key is the store's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCheck {
    /// The first instance: the check value was recorded.
    Recorded,
    Matches,
    Differs,
}

impl Store {
    /// Records `check` as the payload key's check value if the store has none yet, and says
    /// whether the recorded one is `check`.
    pub async fn check_payload_key(&self, check: &str) -> Result<KeyCheck, StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO server_facts (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(PAYLOAD_KEY_CHECK)
        .bind(check)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if inserted == 1 {
            return Ok(KeyCheck::Recorded);
        }
        let recorded: String = sqlx::query_scalar("SELECT value FROM server_facts WHERE name = $1")
            .bind(PAYLOAD_KEY_CHECK)
            .fetch_one(&self.pool)
            .await?;
        Ok(if recorded == check { KeyCheck::Matches } else { KeyCheck::Differs })
    }
}
