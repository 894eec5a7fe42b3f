//! Accounts: users, their roles per organisation, sessions, API tokens, one-time sign-in links,
//! and the append-only audit log. Secrets arrive here already hashed; the store never sees one.

use serde::Serialize;
use sqlx::Row;

use crate::{random_id, AccountRows, StoreError};

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: Option<String>,
    #[serde(skip)]
    pub password_hash: Option<String>,
    #[serde(skip)]
    pub oidc_sub: Option<String>,
    /// The OpenID Provider that vouches for `oidc_sub` (`None` for rows from before issuers
    /// were kept, until their next sign-in).
    #[serde(skip)]
    pub oidc_issuer: Option<String>,
    /// Who set the password: the user's own ID when they chose it; `None` beside a password
    /// when that was not recorded (so it is not known to be theirs).
    #[serde(skip)]
    pub password_set_by: Option<String>,
    pub created_at: String,
}

impl User {
    /// Whether someone other than the user chose their current password (or it is not known
    /// who did): such an account may be one an administrator made to stand in for someone.
    pub fn password_set_by_someone_else(&self) -> bool {
        self.password_hash.is_some() && self.password_set_by.as_deref() != Some(self.id.as_str())
    }

    /// Whether the user signs in through an OpenID Provider.
    pub fn is_oidc(&self) -> bool {
        self.oidc_sub.is_some()
    }
}

pub use ferry_types::accounts::SessionMethod;

/// The method a stored session row names (`None`: a session from before methods were kept).
fn session_method_of_row(text: Option<&str>) -> Option<SessionMethod> {
    match text? {
        "password" => Some(SessionMethod::Password),
        "link" => Some(SessionMethod::Link),
        "oidc" => Some(SessionMethod::Oidc),
        _ => None,
    }
}

/// A user to add.
#[derive(Debug, Clone, Copy, Default)]
pub struct NewUser<'a> {
    pub name: &'a str,
    pub email: Option<&'a str>,
    /// An Argon2id hash, and the ID of the user who set it.
    pub password: Option<(&'a str, &'a str)>,
    /// The OpenID Provider's issuer and its subject for the user.
    pub oidc: Option<(&'a str, &'a str)>,
}

/// One role of a user in an organisation (`*`: every organisation).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Membership {
    pub org: String,
    pub role: String,
}

/// An API token as listed (never its secret).
pub type ApiToken = ferry_types::ApiTokenInfo;

/// One audit record.
pub type AuditRecord = ferry_types::AuditEntry;

/// What a new audit record says (the store adds its sequence number and time).
#[derive(Debug, Clone)]
pub struct NewAuditRecord<'a> {
    pub actor: &'a str,
    pub org: Option<&'a str>,
    pub action: &'a str,
    pub object: &'a str,
    pub address: &'a str,
    pub outcome: &'a str,
    pub plan_id: Option<&'a str>,
    /// The user a server-wide record (one without `org`) is about: the administrators of the
    /// organisations that user is a member of see it.
    pub subject: Option<&'a str>,
}

pub(crate) fn audit_record_of(r: &sqlx::any::AnyRow) -> AuditRecord {
    AuditRecord {
        seq: r.get("seq"),
        at: r.get("at"),
        actor: r.get("actor"),
        org: r.get("org"),
        action: r.get("action"),
        object: r.get("object"),
        address: Some(r.get("address")),
        outcome: r.get("outcome"),
        plan_id: r.get("plan_id"),
    }
}

/// Adds role `$3` to user `$2` in organisation `$1` (kept if already held), a member since `$4`
/// (now), or since they joined if they are one already.
pub(crate) const ADD_ROLE: &str = "INSERT INTO memberships (org, user_id, role, granted_at) VALUES ($1, $2, $3, \
     COALESCE((SELECT MIN(granted_at) FROM memberships WHERE org = $1 AND user_id = $2), $4)) ON CONFLICT DO NOTHING";

const USER_SELECT: &str = "SELECT id, name, email, password_hash, password_set_by, oidc_sub, oidc_issuer, created_at FROM users";

fn user_of(row: &sqlx::any::AnyRow) -> User {
    User {
        id: row.get("id"),
        name: row.get("name"),
        email: row.get("email"),
        password_hash: row.get("password_hash"),
        oidc_sub: row.get("oidc_sub"),
        oidc_issuer: row.get("oidc_issuer"),
        password_set_by: row.get("password_set_by"),
        created_at: row.get("created_at"),
    }
}

/// A token row; a role it names that Ferry does not know fails to decode, rather than being read
/// as some other role.
fn token_of(row: &sqlx::any::AnyRow, now: &str) -> Result<ApiToken, sqlx::Error> {
    let expires_at: String = row.get("expires_at");
    let revoked_at: Option<String> = row.get("revoked_at");
    Ok(ApiToken {
        active: revoked_at.is_none() && expires_at.as_str() > now,
        id: row.get("id"),
        user_id: row.get("user_id"),
        name: row.get("name"),
        org: row.get("org"),
        role: row.get::<String, _>("role").parse().map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
        created_at: row.get("created_at"),
        expires_at,
        revoked_at,
        token: None,
    })
}

const TOKEN_SELECT: &str =
    "SELECT id, user_id, name, org, role, created_at, expires_at, revoked_at FROM api_tokens";

impl AccountRows<'_> {
    pub async fn count_users(self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(&self.store.pool).await?)
    }

    /// Adds a user; a taken name or OpenID subject is [`StoreError::UserExists`].
    pub async fn add_user(self, new: NewUser<'_>) -> Result<User, StoreError> {
        let id = random_id();
        let result =
            sqlx::query("INSERT INTO users (id, name, email, password_hash, password_set_by, oidc_issuer, oidc_sub, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
                .bind(&id)
                .bind(new.name)
                .bind(new.email)
                .bind(new.password.map(|p| p.0))
                .bind(new.password.map(|p| p.1))
                .bind(new.oidc.map(|o| o.0))
                .bind(new.oidc.map(|o| o.1))
                .bind(self.store.clock.now())
                .execute(&self.store.pool)
                .await;
        match result {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::UserExists(new.name.to_string()))
            }
            other => {
                other?;
                self.user(&id).await
            }
        }
    }

    pub async fn user(self, id: &str) -> Result<User, StoreError> {
        let row = sqlx::query(&format!("{USER_SELECT} WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref().map(user_of).ok_or_else(|| StoreError::UserNotFound(id.to_string()))
    }

    pub async fn user_by_name(self, name: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!("{USER_SELECT} WHERE name = $1"))
            .bind(name)
            .fetch_optional(&self.store.pool)
            .await?;
        Ok(row.as_ref().map(user_of))
    }

    /// The user an OpenID Provider's `issuer` knows as `sub`. A row kept before issuers were
    /// recorded matches any issuer once, and takes this one.
    pub async fn user_by_oidc(self, issuer: &str, sub: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!(
            "{USER_SELECT} WHERE oidc_sub = $1 AND (oidc_issuer = $2 OR oidc_issuer IS NULL)"
        ))
        .bind(sub)
        .bind(issuer)
        .fetch_optional(&self.store.pool)
        .await?;
        let Some(user) = row.as_ref().map(user_of) else { return Ok(None) };
        if user.oidc_issuer.is_none() {
            sqlx::query("UPDATE users SET oidc_issuer = $1 WHERE id = $2 AND oidc_issuer IS NULL")
                .bind(issuer)
                .bind(&user.id)
                .execute(&self.store.pool)
                .await?;
            return Ok(Some(self.user(&user.id).await?));
        }
        Ok(Some(user))
    }

    pub async fn users(self) -> Result<Vec<User>, StoreError> {
        let rows = sqlx::query(&format!("{USER_SELECT} ORDER BY name"))
            .fetch_all(&self.store.pool)
            .await?;
        Ok(rows.iter().map(user_of).collect())
    }

    /// Sets the user's password hash; `set_by` is the ID of the user who set it (their own
    /// when they chose it).
    pub async fn set_password_hash(
        self,
        user_id: &str,
        hash: &str,
        set_by: &str,
    ) -> Result<(), StoreError> {
        let done =
            sqlx::query("UPDATE users SET password_hash = $1, password_set_by = $2 WHERE id = $3")
                .bind(hash)
                .bind(set_by)
                .bind(user_id)
                .execute(&self.store.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UserNotFound(user_id.to_string()));
        }
        Ok(())
    }

    pub async fn set_email(self, user_id: &str, email: Option<&str>) -> Result<(), StoreError> {
        sqlx::query("UPDATE users SET email = $1 WHERE id = $2")
            .bind(email)
            .bind(user_id)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Every role of the user, in every organisation.
    pub async fn memberships(self, user_id: &str) -> Result<Vec<Membership>, StoreError> {
        let rows =
            sqlx::query("SELECT org, role FROM memberships WHERE user_id = $1 ORDER BY org, role")
                .bind(user_id)
                .fetch_all(&self.store.pool)
                .await?;
        Ok(rows.iter().map(|r| Membership { org: r.get("org"), role: r.get("role") }).collect())
    }

    /// Sets the user's roles in `org` to exactly `roles`, in one transaction. The membership
    /// keeps the time it began while the user holds any role there.
    pub async fn set_roles(
        self,
        user_id: &str,
        org: &str,
        roles: &[&str],
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin().await?;
        let (held, since): (i64, Option<String>) = sqlx::query_as(
            "SELECT COUNT(*), MIN(granted_at) FROM memberships WHERE user_id = $1 AND org = $2",
        )
        .bind(user_id)
        .bind(org)
        .fetch_one(&mut *tx)
        .await?;
        // A membership from before the time was kept has none, and keeps none.
        let since = if held > 0 { since } else { Some(self.store.clock.now()) };
        sqlx::query("DELETE FROM memberships WHERE user_id = $1 AND org = $2")
            .bind(user_id)
            .bind(org)
            .execute(&mut *tx)
            .await?;
        for role in roles {
            sqlx::query(
                "INSERT INTO memberships (org, user_id, role, granted_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(org)
            .bind(user_id)
            .bind(role)
            .bind(&since)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Adds one role (kept if already held).
    pub async fn grant_role(self, user_id: &str, org: &str, role: &str) -> Result<(), StoreError> {
        sqlx::query(ADD_ROLE)
            .bind(org)
            .bind(user_id)
            .bind(role)
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// The members of `org` (those with roles in it or in `*`), with those roles.
    pub async fn members(self, org: &str) -> Result<Vec<(User, Vec<Membership>)>, StoreError> {
        let rows =
            sqlx::query("SELECT DISTINCT user_id FROM memberships WHERE org = $1 OR org = '*'")
                .bind(org)
                .fetch_all(&self.store.pool)
                .await?;
        let mut members = Vec::with_capacity(rows.len());
        for row in rows {
            let user = self.user(row.get("user_id")).await?;
            let roles = self
                .memberships(&user.id)
                .await?
                .into_iter()
                .filter(|m| m.org == org || m.org == "*")
                .collect();
            members.push((user, roles));
        }
        members.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        Ok(members)
    }

    pub async fn add_session(
        self,
        token_hash: &str,
        user_id: &str,
        lifetime_seconds: i64,
        method: SessionMethod,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO sessions (token_hash, user_id, expires_at, method, created_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(token_hash)
            .bind(user_id)
            .bind(self.store.clock.in_seconds(lifetime_seconds))
            .bind(method.as_str())
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// The user of a live session (not revoked, not expired), and how it began (`None` for a
    /// session from before that was kept).
    pub async fn session_user(
        self,
        token_hash: &str,
    ) -> Result<Option<(User, Option<SessionMethod>)>, StoreError> {
        let row = sqlx::query("SELECT user_id, method FROM sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2")
            .bind(token_hash)
            .bind(self.store.clock.now())
            .fetch_optional(&self.store.pool)
            .await?;
        match row {
            Some(row) => {
                let method =
                    session_method_of_row(row.get::<Option<String>, _>("method").as_deref());
                Ok(Some((self.user(row.get("user_id")).await?, method)))
            }
            None => Ok(None),
        }
    }

    pub async fn revoke_session(self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(self.store.clock.now())
        .bind(token_hash)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Ends every session of the user (a password change, an admin's decision).
    pub async fn revoke_sessions_of(self, user_id: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
        )
        .bind(self.store.clock.now())
        .bind(user_id)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    pub async fn add_api_token(
        self,
        token_hash: &str,
        user_id: &str,
        name: &str,
        org: &str,
        role: &str,
        lifetime_seconds: i64,
    ) -> Result<ApiToken, StoreError> {
        let id = random_id();
        sqlx::query("INSERT INTO api_tokens (id, token_hash, user_id, name, org, role, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(&id)
            .bind(token_hash)
            .bind(user_id)
            .bind(name)
            .bind(org)
            .bind(role)
            .bind(self.store.clock.in_seconds(lifetime_seconds))
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        let row = sqlx::query(&format!("{TOKEN_SELECT} WHERE id = $1"))
            .bind(&id)
            .fetch_one(&self.store.pool)
            .await?;
        Ok(token_of(&row, &self.store.clock.now())?)
    }

    /// The token with this hash, live or not (the caller tells expired from revoked).
    pub async fn api_token_by_hash(self, token_hash: &str) -> Result<Option<ApiToken>, StoreError> {
        let row = sqlx::query(&format!("{TOKEN_SELECT} WHERE token_hash = $1"))
            .bind(token_hash)
            .fetch_optional(&self.store.pool)
            .await?;
        Ok(row.as_ref().map(|row| token_of(row, &self.store.clock.now())).transpose()?)
    }

    pub async fn api_tokens_of(self, user_id: &str) -> Result<Vec<ApiToken>, StoreError> {
        let rows =
            sqlx::query(&format!("{TOKEN_SELECT} WHERE user_id = $1 ORDER BY created_at DESC"))
                .bind(user_id)
                .fetch_all(&self.store.pool)
                .await?;
        let now = self.store.clock.now();
        Ok(rows.iter().map(|row| token_of(row, &now)).collect::<Result<_, _>>()?)
    }

    /// Revokes the user's token `id`; revoking twice keeps the first time.
    pub async fn revoke_api_token(self, user_id: &str, id: &str) -> Result<ApiToken, StoreError> {
        sqlx::query("UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL")
            .bind(self.store.clock.now())
            .bind(id)
            .bind(user_id)
            .execute(&self.store.pool)
            .await?;
        let row = sqlx::query(&format!("{TOKEN_SELECT} WHERE id = $1 AND user_id = $2"))
            .bind(id)
            .bind(user_id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref()
            .map(|row| token_of(row, &self.store.clock.now()))
            .transpose()?
            .ok_or(StoreError::TokenNotFound)
    }

    pub async fn add_sign_in_link(
        self,
        token_hash: &str,
        user_id: &str,
        lifetime_seconds: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sign_in_links (token_hash, user_id, expires_at) VALUES ($1, $2, $3)",
        )
        .bind(token_hash)
        .bind(user_id)
        .bind(self.store.clock.in_seconds(lifetime_seconds))
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Uses a one-time sign-in link: its user, once; `None` if unknown, used or expired.
    pub async fn use_sign_in_link(self, token_hash: &str) -> Result<Option<String>, StoreError> {
        let now = self.store.clock.now();
        let user_id: Option<String> =
            sqlx::query_scalar("UPDATE sign_in_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $3 RETURNING user_id")
                .bind(&now)
                .bind(token_hash)
                .bind(&now)
                .fetch_optional(&self.store.pool)
                .await?;
        Ok(user_id)
    }

    pub async fn append_audit(self, record: NewAuditRecord<'_>) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO audit_log (actor, org, action, object, address, outcome, plan_id, subject, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
            .bind(record.actor)
            .bind(record.org)
            .bind(record.action)
            .bind(record.object)
            .bind(record.address)
            .bind(record.outcome)
            .bind(record.plan_id)
            // A record of an organisation is that organisation's; only server-wide ones need a subject.
            .bind(if record.org.is_none() { record.subject } else { None })
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Audit records after `after`, oldest first, up to `limit`: those of `org`, with the
    /// server-wide ones about a user who holds a role in `org` itself (not only through `*`:
    /// a server administrator's records are for server administrators); or every record when
    /// `org` is `None`.
    pub async fn audit(
        self,
        org: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let rows = match org {
            Some(org) => {
                sqlx::query(
                    "SELECT * FROM audit_log WHERE seq > $1 AND (org = $2 OR (org IS NULL AND subject IN \
                     (SELECT user_id FROM memberships WHERE org = $2 AND (granted_at IS NULL OR granted_at <= audit_log.at)))) \
                     ORDER BY seq LIMIT $3",
                )
                .bind(after)
                .bind(org)
                .bind(limit)
                .fetch_all(&self.store.pool)
                .await?
            }
            None => sqlx::query("SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2").bind(after).bind(limit).fetch_all(&self.store.pool).await?,
        };
        Ok(rows.iter().map(audit_record_of).collect())
    }

    /// Keeps a sign-in started at the provider until `lifetime_seconds` from now (and drops
    /// those that expired).
    pub async fn add_oidc_login(
        self,
        state_hash: &str,
        login: &OidcLogin,
        lifetime_seconds: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin().await?;
        sqlx::query("DELETE FROM oidc_logins WHERE expires_at < $1")
            .bind(self.store.clock.now())
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO oidc_logins (state_hash, verifier, nonce, next, expires_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(state_hash)
            .bind(&login.verifier)
            .bind(&login.nonce)
            .bind(&login.next)
            .bind(self.store.clock.in_seconds(lifetime_seconds))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes a started sign-in, once; `None` if unknown, taken or expired.
    pub async fn take_oidc_login(self, state_hash: &str) -> Result<Option<OidcLogin>, StoreError> {
        let row = sqlx::query("DELETE FROM oidc_logins WHERE state_hash = $1 AND expires_at > $2 RETURNING verifier, nonce, next")
            .bind(state_hash)
            .bind(self.store.clock.now())
            .fetch_optional(&self.store.pool)
            .await?;
        Ok(row.map(|r| OidcLogin {
            verifier: r.get("verifier"),
            nonce: r.get("nonce"),
            next: r.get("next"),
        }))
    }
}

/// An OpenID Connect sign-in on its way through the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcLogin {
    pub verifier: String,
    pub nonce: String,
    pub next: String,
}
