//! Webhooks: an organisation's administrators name URLs that hear plan events; each event
//! becomes one stored delivery per webhook (so nothing is lost when the server stops), which a
//! background worker on any instance claims with a lease and posts — JSON with a Slack-style
//! `text`, signed with HMAC-SHA256 over the body (`X-Ferry-Signature-256: sha256=<hex>`) —
//! retried with doubling waits and failed after [`MAX_ATTEMPTS`].
//!
//! A webhook's URL is an organisation administrator's text that the server calls: unless the
//! server's administrator allows it (`--allow-private-webhooks`), an address on the server's
//! own machine or network (loopback, private, link-local) is refused, checked when the webhook
//! is made and again on every attempt, against the address the connection then uses.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use ferry_state::secrets::PassphraseCrypter;
use ferry_store::webhooks::{Attempt, ClaimedDelivery};
use ferry_types::webhooks::{
    NewWebhook, Webhook, WebhookDelivery, WebhookEvent, WebhookInput, WebhookPayload, WebhookPlan,
};

use crate::access::{Caller, Role};
use ferry_types::plans::PlanStatus;

use crate::{EngineSlot, ServiceError};

/// Attempts a delivery gets before it is marked failed.
pub const MAX_ATTEMPTS: i64 = 6;
/// How long one attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a claimed delivery is this instance's.
const LEASE: Duration = Duration::from_secs(60);
/// How often the worker looks for due deliveries without being woken.
const POLL: Duration = Duration::from_secs(1);
/// Deliveries in a log page.
const LOG_ROWS: i64 = 100;

/// How webhooks behave on this server.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// The wait before the first retry; each later one doubles it.
    pub first_retry: Duration,
    /// Whether URLs may reach the server's own machine or network.
    pub allow_private: bool,
    /// Where Ferry's pages are (`https://ferry.example`): plan links in deliveries.
    pub public_url: Option<String>,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            first_retry: Duration::from_secs(2),
            allow_private: false,
            public_url: None,
        }
    }
}

/// Whether an address is the server's own machine or network, which an organisation's URL may
/// not reach unless the server's administrator allows it.
fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64
        }
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || (v6.segments()[0] & 0xfe00) == 0xfc00
                || (v6.segments()[0] & 0xffc0) == 0xfe80
                || v6.to_ipv4_mapped().is_some_and(|v4| is_private(IpAddr::V4(v4)))
        }
    }
}

/// The URL, checked: `http` or `https`, with a host, no credentials in it.
fn check_url(url: &str) -> Result<url::Url, ServiceError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| ServiceError::Invalid(format!("`{url}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ServiceError::Invalid(format!(
            "`{url}`: a webhook is an `https://` (or `http://`) URL"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(ServiceError::Invalid(format!("`{url}` names no host")));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(ServiceError::Invalid(format!("`{url}`: put no credentials in the URL; deliveries are signed with the webhook's secret")));
    }
    Ok(parsed)
}

/// HMAC-SHA256 of `body` under `secret`, as the signature header carries it.
pub fn signature(secret: &str, body: &[u8]) -> String {
    use hmac::Mac as _;
    let mut mac = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key");
    mac.update(body);
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

/// Organisations' webhooks and the deliveries of plan events to them (signed, retried, never
/// to the server's own network unless allowed). Told what happened, with the plan's status, by
/// the workflow; it calls no domain.
#[derive(Clone)]
pub struct Webhooks {
    store: ferry_store::Store,
    engine: EngineSlot,
    webhook_settings: Arc<WebhookSettings>,
    /// Wakes the worker when a delivery is queued.
    webhook_wake: Arc<tokio::sync::Notify>,
}

impl Webhooks {
    pub(crate) fn new(
        store: ferry_store::Store,
        engine: EngineSlot,
        settings: WebhookSettings,
    ) -> Webhooks {
        Webhooks {
            store,
            engine,
            webhook_settings: Arc::new(settings),
            webhook_wake: Default::default(),
        }
    }

    fn crypter(&self) -> Result<PassphraseCrypter, ServiceError> {
        Ok(PassphraseCrypter::from_key(&self.engine.get()?.payload_key))
    }

    /// Makes a webhook of `org` (its administrators; `*`: every organisation's events, for a
    /// server administrator): the secret deliveries are signed with is made here and shown this
    /// once.
    pub async fn create(
        &self,
        caller: &Caller,
        org: &str,
        input: &WebhookInput,
    ) -> Result<NewWebhook, ServiceError> {
        caller.require(org, Role::Admin)?;
        let me = caller.require_signed_in()?;
        let url = check_url(input.url.trim())?;
        if !self.webhook_settings.allow_private {
            // A literal address or a name is checked now; a name is checked again against what
            // it resolves to at each attempt.
            let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']);
            if host.eq_ignore_ascii_case("localhost")
                || host.parse::<IpAddr>().is_ok_and(is_private)
            {
                return Err(ServiceError::Invalid(format!(
                    "`{}` reaches the server's own machine or network, which this server does not allow webhooks to (its administrator may, with --allow-private-webhooks)",
                    input.url
                )));
            }
        }
        let mut events =
            if input.events.is_empty() { WebhookEvent::ALL.to_vec() } else { input.events.clone() };
        events.sort();
        events.dedup();
        let secret = format!("whsec_{}", ferry_store::random_id());
        let sealed = self.crypter()?.encrypt(secret.as_bytes());
        let stored = self
            .store
            .webhooks()
            .add_webhook(org, url.as_str(), &events, &sealed, &me.name)
            .await?;
        Ok(NewWebhook { webhook: stored.webhook, secret })
    }

    pub async fn list(&self, caller: &Caller, org: &str) -> Result<Vec<Webhook>, ServiceError> {
        caller.require(org, Role::Admin)?;
        Ok(self.store.webhooks().webhooks(org).await?.into_iter().map(|w| w.webhook).collect())
    }

    pub async fn remove(&self, caller: &Caller, org: &str, id: &str) -> Result<(), ServiceError> {
        caller.require(org, Role::Admin)?;
        Ok(self.store.webhooks().remove_webhook(org, id).await?)
    }

    /// The webhook's latest deliveries, newest first.
    pub async fn deliveries(
        &self,
        caller: &Caller,
        org: &str,
        id: &str,
    ) -> Result<Vec<WebhookDelivery>, ServiceError> {
        caller.require(org, Role::Admin)?;
        self.store.webhooks().webhook(org, id).await?;
        Ok(self.store.webhooks().deliveries(id, LOG_ROWS).await?)
    }

    /// Queues `event` of `plan_id` for every webhook of its organisation that hears it, and
    /// wakes the worker. `actor`: who did it (none for what Ferry did, as a preview finishing).
    pub(crate) async fn notify(
        &self,
        plan_id: &str,
        event: WebhookEvent,
        actor: Option<&str>,
        status: impl std::future::Future<Output = Result<PlanStatus, ServiceError>>,
    ) -> Result<(), ServiceError> {
        let plan = self.store.plans().plan(plan_id).await?;
        let org = self.store.plans().lifecycle_facts(plan_id).await?.org;
        // The organisation's webhooks, and a server administrator's of every organisation (`*`).
        let mut hooks = self.store.webhooks().webhooks(&org).await?;
        if org != "*" {
            hooks.extend(self.store.webhooks().webhooks("*").await?);
        }
        let hearing: Vec<String> = hooks
            .into_iter()
            .filter(|w| w.webhook.events.contains(&event))
            .map(|w| w.webhook.id)
            .collect();
        if hearing.is_empty() {
            return Ok(());
        }
        let status = status.await?;
        let stack = self.store.stacks().stack(&plan.stack_id).await?.name;
        let path = format!("/plans/{plan_id}");
        let url = match &self.webhook_settings.public_url {
            Some(base) => format!("{}{path}", base.trim_end_matches('/')),
            None => path,
        };
        let who = actor.unwrap_or("Ferry");
        let text = match event {
            WebhookEvent::PlanPreviewed => {
                let counts: Vec<String> =
                    status.counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
                format!(
                    "Revision {} of “{}” ({stack}) was previewed: {}. {url}",
                    status.revision,
                    plan.title,
                    counts.join(", ")
                )
            }
            WebhookEvent::PlanCommitted => {
                format!(
                    "“{}” was committed into {stack} as version {}. {url}",
                    plan.title,
                    status.committed_version.unwrap_or_default()
                )
            }
            other => format!("{who} {} “{}” ({stack}). {url}", other.verb(), plan.title),
        };
        let payload = WebhookPayload {
            event,
            org,
            actor: who.to_string(),
            at: self.store.clock().now(),
            plan: WebhookPlan {
                id: plan.id.clone(),
                title: plan.title.clone(),
                stack,
                url,
                state: status.state,
                revision: status.revision,
            },
            text,
        };
        let body = serde_json::to_string(&payload).expect("a payload serialises");
        self.store.webhooks().add_deliveries(&hearing, event, plan_id, &body).await?;
        self.webhook_wake.notify_one();
        Ok(())
    }

    /// [`Self::notify`] after an event that already happened: a delivery that could not be
    /// queued is logged, never the event's failure.
    pub(crate) async fn after_event(
        &self,
        plan_id: &str,
        event: WebhookEvent,
        actor: Option<&str>,
        status: impl std::future::Future<Output = Result<PlanStatus, ServiceError>>,
    ) {
        if let Err(e) = self.notify(plan_id, event, actor, status).await {
            tracing::warn!(plan = %plan_id, event = event.as_str(), error = %e, "a webhook delivery was not queued");
        }
    }

    /// Works through due deliveries until the process ends: woken when one is queued, and
    /// every second for retries that came due (and deliveries another instance left).
    pub async fn run(self) {
        loop {
            if let Err(e) = self.deliver_due().await {
                tracing::warn!(error = %e, "webhook deliveries could not be read");
            }
            tokio::select! {
                _ = self.webhook_wake.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Attempts every delivery due now; how many were attempted.
    pub async fn deliver_due(&self) -> Result<usize, ServiceError> {
        let mut attempted = 0;
        loop {
            let due = self.store.webhooks().due_deliveries(20).await?;
            if due.is_empty() {
                return Ok(attempted);
            }
            let lease_until = self.store.clock().in_millis(LEASE.as_millis() as i64);
            let mut claimed_any = false;
            for id in due {
                let Some(claimed) = self.store.webhooks().claim_delivery(&id, &lease_until).await?
                else {
                    continue;
                };
                claimed_any = true;
                let outcome = self.attempt(&claimed).await;
                if let Attempt::Failed { error, .. } = &outcome {
                    tracing::warn!(delivery = %claimed.id, webhook = %claimed.webhook_id, %error, "a webhook delivery failed for good");
                }
                self.store.webhooks().end_attempt(&claimed.id, &outcome).await?;
                attempted += 1;
            }
            if !claimed_any {
                // Another instance holds what is due.
                return Ok(attempted);
            }
        }
    }

    async fn attempt(&self, delivery: &ClaimedDelivery) -> Attempt {
        let attempts = delivery.attempts + 1;
        let (code, error) = match self.post(delivery).await {
            Ok(code) if (200..300).contains(&code) => return Attempt::Delivered { code },
            Ok(code) => (Some(code), format!("the receiver answered {code}")),
            Err(e) => (None, e),
        };
        if attempts >= MAX_ATTEMPTS {
            return Attempt::Failed { code, error: format!("{error} ({attempts} attempts)") };
        }
        let wait = self.webhook_settings.first_retry * 2u32.saturating_pow((attempts - 1) as u32);
        Attempt::Retry {
            code,
            error,
            next_at: self.store.clock().in_millis(wait.as_millis() as i64),
        }
    }

    /// Posts the delivery: its status code, or why there was none.
    async fn post(&self, delivery: &ClaimedDelivery) -> Result<i64, String> {
        let stored = self
            .store
            .webhooks()
            .webhook_by_id(&delivery.webhook_id)
            .await
            .map_err(|e| e.to_string())?;
        let secret = self
            .crypter()
            .map_err(|e| e.to_string())?
            .decrypt(&stored.sealed_secret)
            .map_err(|_| {
                "the webhook's secret does not unseal (was the payload key replaced?)".to_string()
            })?;
        let secret =
            String::from_utf8(secret).map_err(|_| "the webhook's secret is damaged".to_string())?;
        let url = check_url(&stored.webhook.url).map_err(|e| e.to_string())?;
        let host = url.host_str().unwrap_or_default().to_string();
        let port = url.port_or_known_default().unwrap_or(443);
        // The address the connection uses is the one checked.
        let lookup = tokio::time::timeout(
            ATTEMPT_TIMEOUT,
            tokio::net::lookup_host((host.trim_matches(['[', ']']), port)),
        )
        .await
        .map_err(|_| format!("resolving `{host}` took over {} s", ATTEMPT_TIMEOUT.as_secs()))?
        .map_err(|e| format!("`{host}` does not resolve: {e}"))?;
        let addresses: Vec<std::net::SocketAddr> = lookup.collect();
        let Some(address) = addresses
            .iter()
            .find(|a| self.webhook_settings.allow_private || !is_private(a.ip()))
            .copied()
        else {
            return Err(format!("`{host}` resolves to the server's own machine or network, which this server does not allow webhooks to"));
        };
        let client = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .resolve(&host, address)
            .build()
            .map_err(|e| format!("no HTTP client: {e}"))?;
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("user-agent", "Ferry-Webhook")
            .header("x-ferry-event", &delivery.event)
            .header("x-ferry-delivery", &delivery.id)
            .header("x-ferry-signature-256", signature(&secret, delivery.body.as_bytes()))
            .body(delivery.body.clone())
            .send()
            .await
            .map_err(|e| format!("the receiver could not be reached: {e}"))?;
        Ok(response.status().as_u16() as i64)
    }
}
