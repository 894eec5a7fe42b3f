//! Webhooks: an organisation's administrators name a URL and the plan events it hears; Ferry
//! posts each event there as JSON (with a Slack-compatible `text`), signed with HMAC-SHA256 over
//! the body under the webhook's secret, retried with backoff, each delivery kept with its
//! outcome. The secret is shown once, when the webhook is made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What happened to a plan that a webhook may hear of.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum WebhookEvent {
    PlanCreated,
    PlanPreviewed,
    ChangesRequested,
    PlanApproved,
    PlanCommitted,
    PlanClosed,
}

impl WebhookEvent {
    pub const ALL: [WebhookEvent; 6] = [
        WebhookEvent::PlanCreated,
        WebhookEvent::PlanPreviewed,
        WebhookEvent::ChangesRequested,
        WebhookEvent::PlanApproved,
        WebhookEvent::PlanCommitted,
        WebhookEvent::PlanClosed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEvent::PlanCreated => "plan-created",
            WebhookEvent::PlanPreviewed => "plan-previewed",
            WebhookEvent::ChangesRequested => "changes-requested",
            WebhookEvent::PlanApproved => "plan-approved",
            WebhookEvent::PlanCommitted => "plan-committed",
            WebhookEvent::PlanClosed => "plan-closed",
        }
    }

    pub fn parse(s: &str) -> Option<WebhookEvent> {
        WebhookEvent::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// The event in words, after the actor's name (`pat previewed …`).
    pub fn verb(self) -> &'static str {
        match self {
            WebhookEvent::PlanCreated => "created",
            WebhookEvent::PlanPreviewed => "previewed",
            WebhookEvent::ChangesRequested => "requested changes to",
            WebhookEvent::PlanApproved => "approved",
            WebhookEvent::PlanCommitted => "committed",
            WebhookEvent::PlanClosed => "closed",
        }
    }
}

/// What an administrator sends to make a webhook (`POST /api/v1/orgs/{org}/webhooks`): the
/// URL (`https://…`, or `http://…`) and the events it hears (all when empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"url": "https://chat.acme.example/hooks/ferry", "events": ["plan-approved", "plan-committed"]}))]
pub struct WebhookInput {
    pub url: String,
    #[serde(default)]
    pub events: Vec<WebhookEvent>,
}

/// A webhook as its organisation's administrators see it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Webhook {
    pub id: String,
    pub org: String,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    pub created_by: String,
    pub created_at: String,
}

/// A webhook just made, with its secret: shown this once (Ferry keeps it sealed, to sign with).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NewWebhook {
    #[serde(flatten)]
    pub webhook: Webhook,
    pub secret: String,
}

/// Where a delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryStatus {
    /// Waiting for its first attempt or its next one.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Every attempt failed.
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<DeliveryStatus> {
        [DeliveryStatus::Pending, DeliveryStatus::Delivered, DeliveryStatus::Failed]
            .into_iter()
            .find(|d| d.as_str() == s)
    }
}

/// One delivery of one event to one webhook, as its log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookDelivery {
    pub id: String,
    pub webhook_id: String,
    pub event: WebhookEvent,
    pub plan_id: String,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub created_at: String,
    pub last_attempt_at: Option<String>,
    /// The receiver's last HTTP status, when it answered.
    pub response_code: Option<i64>,
    /// Why the last attempt failed, when it did.
    pub error: Option<String>,
    /// When the next attempt is due (pending deliveries).
    pub next_attempt_at: Option<String>,
}

/// The plan an event is about, as a delivery's body names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookPlan {
    pub id: String,
    pub title: String,
    /// The stack's name (`org/project/stack`).
    pub stack: String,
    /// The plan's page.
    pub url: String,
    pub state: crate::plans::PlanState,
    pub revision: i64,
}

/// What a delivery posts: the event, who did it, the plan with its link, and a one-line `text`
/// chat tools show as they are (Slack's incoming webhooks read `text`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookPayload {
    pub event: WebhookEvent,
    pub org: String,
    pub actor: String,
    pub at: String,
    pub plan: WebhookPlan,
    pub text: String,
}
