//! Invitations to an organisation: made by its administrators, kept by their token's hash, and
//! used up by the one acceptance that gives the accepting user their roles — in one transaction,
//! so two people holding one link never both join.

use sqlx::Row;

use crate::{random_id, AccountRows, StoreError};

pub type Invitation = ferry_types::invitations::Invitation;

/// The invitation's columns, with the inviter's and the accepting user's names.
const INVITATION_SELECT: &str = "SELECT i.id, i.org, i.roles, i.created_at, i.expires_at, i.accepted_at, i.revoked_at, \
     inviter.name AS invited_by, accepter.name AS accepted_by \
     FROM invitations i JOIN users inviter ON inviter.id = i.invited_by LEFT JOIN users accepter ON accepter.id = i.accepted_by";

fn invitation_of(row: &sqlx::any::AnyRow, now: &str) -> Invitation {
    let roles: String = row.get("roles");
    let accepted_at: Option<String> = row.get("accepted_at");
    let revoked_at: Option<String> = row.get("revoked_at");
    let expires_at: String = row.get("expires_at");
    Invitation {
        id: row.get("id"),
        org: row.get("org"),
        roles: serde_json::from_str(&roles).unwrap_or_default(),
        invited_by: row.get("invited_by"),
        created_at: row.get("created_at"),
        active: accepted_at.is_none() && revoked_at.is_none() && expires_at.as_str() > now,
        expires_at,
        accepted_by: row.get("accepted_by"),
        accepted_at,
        revoked_at,
    }
}

impl AccountRows<'_> {
    /// Keeps a new invitation to `org` with `roles`, by `invited_by` (a user's ID), open for
    /// `lifetime_seconds`: its token's hash (the token is the caller's to hand out once).
    pub async fn add_invitation(
        self,
        org: &str,
        roles: &[&str],
        invited_by: &str,
        token_hash: &str,
        lifetime_seconds: i64,
    ) -> Result<Invitation, StoreError> {
        let id = random_id();
        let roles = serde_json::to_string(roles).expect("role names serialise");
        sqlx::query("INSERT INTO invitations (id, token_hash, org, roles, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
            .bind(&id)
            .bind(token_hash)
            .bind(org)
            .bind(&roles)
            .bind(invited_by)
            .bind(self.store.clock.now())
            .bind(self.store.clock.in_seconds(lifetime_seconds))
            .execute(&self.store.pool)
            .await?;
        self.invitation(&id).await
    }

    pub async fn invitation(self, id: &str) -> Result<Invitation, StoreError> {
        let row = sqlx::query(&format!("{INVITATION_SELECT} WHERE i.id = $1"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref()
            .map(|row| invitation_of(row, &self.store.clock.now()))
            .ok_or(StoreError::InvitationNotFound)
    }

    /// The invitation whose token hashes to `token_hash`.
    pub async fn invitation_by_token(self, token_hash: &str) -> Result<Invitation, StoreError> {
        let row = sqlx::query(&format!("{INVITATION_SELECT} WHERE i.token_hash = $1"))
            .bind(token_hash)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref()
            .map(|row| invitation_of(row, &self.store.clock.now()))
            .ok_or(StoreError::InvitationNotFound)
    }

    /// `org`'s invitations, newest first.
    pub async fn invitations(self, org: &str) -> Result<Vec<Invitation>, StoreError> {
        let rows = sqlx::query(&format!(
            "{INVITATION_SELECT} WHERE i.org = $1 ORDER BY i.created_at DESC, i.id"
        ))
        .bind(org)
        .fetch_all(&self.store.pool)
        .await?;
        let now = self.store.clock.now();
        Ok(rows.iter().map(|row| invitation_of(row, &now)).collect())
    }

    /// Revokes `org`'s invitation `id` (an accepted one stays accepted).
    pub async fn revoke_invitation(self, org: &str, id: &str) -> Result<Invitation, StoreError> {
        if self.invitation(id).await?.org != org {
            return Err(StoreError::InvitationNotFound);
        }
        sqlx::query("UPDATE invitations SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL AND accepted_at IS NULL")
            .bind(self.store.clock.now())
            .bind(id)
            .execute(&self.store.pool)
            .await?;
        self.invitation(id).await
    }

    /// Uses up the open invitation whose token hashes to `token_hash` for `user_id`, and gives
    /// them its roles (kept with those they hold), in one transaction: `None` when it is not
    /// open (used, revoked, expired, or someone accepted it a moment ago).
    pub async fn accept_invitation(
        self,
        token_hash: &str,
        user_id: &str,
    ) -> Result<Option<Invitation>, StoreError> {
        let mut tx = self.store.begin().await?;
        let at = self.store.clock.now();
        let taken = sqlx::query(
            "UPDATE invitations SET accepted_by = $1, accepted_at = $2 WHERE token_hash = $3 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2",
        )
        .bind(user_id)
        .bind(&at)
        .bind(token_hash)
        .execute(&mut *tx)
        .await?;
        if taken.rows_affected() != 1 {
            return Ok(None);
        }
        let row = sqlx::query("SELECT id, org, roles FROM invitations WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_one(&mut *tx)
            .await?;
        let (id, org, roles): (String, String, String) =
            (row.get("id"), row.get("org"), row.get("roles"));
        let roles: Vec<String> = serde_json::from_str(&roles).unwrap_or_default();
        for role in &roles {
            sqlx::query(crate::accounts::ADD_ROLE)
                .bind(&org)
                .bind(user_id)
                .bind(role)
                .bind(&at)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(Some(self.invitation(&id).await?))
    }
}
