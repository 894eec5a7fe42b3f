//! Webhooks in the store: each organisation's webhooks (the signing secret sealed by the
//! caller), and their deliveries as a durable queue — added with the event, claimed by one
//! instance with a lease, ended as delivered, scheduled again, or failed — and listed as a log.

use sqlx::Row;

use crate::{random_id, StoreError, WebhookRows};

pub use ferry_types::webhooks::{DeliveryStatus, Webhook, WebhookDelivery, WebhookEvent};

/// A webhook with what signing needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWebhook {
    pub webhook: Webhook,
    pub sealed_secret: String,
}

/// A delivery claimed for an attempt: what to post, where, and how many attempts came before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub id: String,
    pub webhook_id: String,
    pub event: String,
    pub body: String,
    pub attempts: i64,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Delivered {
        code: i64,
    },
    /// Tried again at `next_at`.
    Retry {
        code: Option<i64>,
        error: String,
        next_at: String,
    },
    Failed {
        code: Option<i64>,
        error: String,
    },
}

const WEBHOOK_SELECT: &str =
    "SELECT id, org, url, events, sealed_secret, created_by, created_at FROM webhooks";

fn webhook_of(row: &sqlx::any::AnyRow) -> StoredWebhook {
    let events: String = row.get("events");
    StoredWebhook {
        webhook: Webhook {
            id: row.get("id"),
            org: row.get("org"),
            url: row.get("url"),
            // Written by `add_webhook` from the same enum.
            events: serde_json::from_str(&events).unwrap_or_default(),
            created_by: row.get("created_by"),
            created_at: row.get("created_at"),
        },
        sealed_secret: row.get("sealed_secret"),
    }
}

fn delivery_of(row: &sqlx::any::AnyRow) -> WebhookDelivery {
    let event: String = row.get("event");
    let status: String = row.get("status");
    WebhookDelivery {
        id: row.get("id"),
        webhook_id: row.get("webhook_id"),
        event: WebhookEvent::parse(&event).unwrap_or(WebhookEvent::PlanCreated),
        plan_id: row.get("plan_id"),
        status: DeliveryStatus::parse(&status).unwrap_or(DeliveryStatus::Failed),
        attempts: row.get("attempts"),
        created_at: row.get("created_at"),
        last_attempt_at: row.get("last_attempt_at"),
        response_code: row.get("response_code"),
        error: row.get("error"),
        next_attempt_at: row.get("next_attempt_at"),
    }
}

impl WebhookRows<'_> {
    pub async fn add_webhook(
        self,
        org: &str,
        url: &str,
        events: &[WebhookEvent],
        sealed_secret: &str,
        created_by: &str,
    ) -> Result<StoredWebhook, StoreError> {
        let id = random_id();
        let events = serde_json::to_string(events).expect("events serialise");
        sqlx::query("INSERT INTO webhooks (id, org, url, events, sealed_secret, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
            .bind(&id)
            .bind(org)
            .bind(url)
            .bind(&events)
            .bind(sealed_secret)
            .bind(created_by)
            .bind(self.store.clock.now())
            .execute(&self.store.pool)
            .await?;
        self.webhook(org, &id).await
    }

    /// The organisation's webhook `id` (removed ones are gone).
    pub async fn webhook(self, org: &str, id: &str) -> Result<StoredWebhook, StoreError> {
        let row = sqlx::query(&format!(
            "{WEBHOOK_SELECT} WHERE id = $1 AND org = $2 AND revoked_at IS NULL"
        ))
        .bind(id)
        .bind(org)
        .fetch_optional(&self.store.pool)
        .await?
        .ok_or_else(|| StoreError::WebhookNotFound(id.to_string()))?;
        Ok(webhook_of(&row))
    }

    /// The webhook `id`, in whichever organisation (what a delivery posts with).
    pub async fn webhook_by_id(self, id: &str) -> Result<StoredWebhook, StoreError> {
        let row = sqlx::query(&format!("{WEBHOOK_SELECT} WHERE id = $1 AND revoked_at IS NULL"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or_else(|| StoreError::WebhookNotFound(id.to_string()))?;
        Ok(webhook_of(&row))
    }

    /// The organisation's webhooks, oldest first.
    pub async fn webhooks(self, org: &str) -> Result<Vec<StoredWebhook>, StoreError> {
        let rows = sqlx::query(&format!(
            "{WEBHOOK_SELECT} WHERE org = $1 AND revoked_at IS NULL ORDER BY created_at, id"
        ))
        .bind(org)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows.iter().map(webhook_of).collect())
    }

    /// Removes the webhook: it hears nothing more, and its pending deliveries are dropped as
    /// failed (their log stays).
    pub async fn remove_webhook(self, org: &str, id: &str) -> Result<(), StoreError> {
        self.webhook(org, id).await?;
        let mut tx = self.store.begin().await?;
        sqlx::query("UPDATE webhooks SET revoked_at = $1 WHERE id = $2")
            .bind(self.store.clock.now())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE webhook_deliveries SET status = 'failed', error = 'the webhook was removed', next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending'")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Queues one delivery of `body` to each of `webhooks`, due now, in one transaction.
    pub async fn add_deliveries(
        self,
        webhooks: &[String],
        event: WebhookEvent,
        plan_id: &str,
        body: &str,
    ) -> Result<Vec<String>, StoreError> {
        let mut tx = self.store.begin().await?;
        let mut ids = Vec::with_capacity(webhooks.len());
        let at = self.store.clock.now();
        for webhook in webhooks {
            let id = random_id();
            sqlx::query(
                "INSERT INTO webhook_deliveries (id, webhook_id, event, plan_id, body, status, created_at, next_attempt_at) \
                 VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)",
            )
            .bind(&id)
            .bind(webhook)
            .bind(event.as_str())
            .bind(plan_id)
            .bind(body)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Pending deliveries due by now whose lease (if any) ended, oldest first.
    pub async fn due_deliveries(self, limit: i64) -> Result<Vec<String>, StoreError> {
        let at = self.store.clock.now();
        Ok(sqlx::query_scalar(
            "SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 \
             AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at, id LIMIT $2",
        )
        .bind(&at)
        .bind(limit)
        .fetch_all(&self.store.pool)
        .await?)
    }

    /// Claims a due delivery until `lease_until`; `None` when another instance has it, or it
    /// is no longer pending.
    pub async fn claim_delivery(
        self,
        id: &str,
        lease_until: &str,
    ) -> Result<Option<ClaimedDelivery>, StoreError> {
        let at = self.store.clock.now();
        let done =
            sqlx::query("UPDATE webhook_deliveries SET lease_until = $1 WHERE id = $2 AND status = 'pending' AND (lease_until IS NULL OR lease_until < $3)")
                .bind(lease_until)
                .bind(id)
                .bind(&at)
                .execute(&self.store.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT id, webhook_id, event, body, attempts FROM webhook_deliveries WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&self.store.pool)
        .await?;
        Ok(Some(ClaimedDelivery {
            id: row.get("id"),
            webhook_id: row.get("webhook_id"),
            event: row.get("event"),
            body: row.get("body"),
            attempts: row.get("attempts"),
        }))
    }

    /// Records an attempt's outcome and lets the lease go.
    pub async fn end_attempt(self, id: &str, attempt: &Attempt) -> Result<(), StoreError> {
        let (status, code, error, next_at) = match attempt {
            Attempt::Delivered { code } => ("delivered", Some(*code), None, None),
            Attempt::Retry { code, error, next_at } => {
                ("pending", *code, Some(error.as_str()), Some(next_at.as_str()))
            }
            Attempt::Failed { code, error } => ("failed", *code, Some(error.as_str()), None),
        };
        sqlx::query(
            "UPDATE webhook_deliveries SET status = $1, response_code = $2, error = $3, next_attempt_at = $4, \
             attempts = attempts + 1, last_attempt_at = $5, lease_until = NULL WHERE id = $6",
        )
        .bind(status)
        .bind(code)
        .bind(error)
        .bind(next_at)
        .bind(self.store.clock.now())
        .bind(id)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// A webhook's latest deliveries, newest first.
    pub async fn deliveries(
        self,
        webhook_id: &str,
        limit: i64,
    ) -> Result<Vec<WebhookDelivery>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, webhook_id, event, plan_id, status, attempts, created_at, last_attempt_at, response_code, error, next_attempt_at \
             FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        )
        .bind(webhook_id)
        .bind(limit)
        .fetch_all(&self.store.pool)
        .await?;
        Ok(rows.iter().map(delivery_of).collect())
    }
}
