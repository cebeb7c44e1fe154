//! Webhook delivery from the outbox, signed per Standard Webhooks: `webhook-id`, `webhook-timestamp` (unix
//! seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 over "id.timestamp.body">` with the schedule's
//! `whsec_` secret. A failed attempt is retried with growing delays, then given up; every attempt is logged.
//! Receivers at addresses that are not public are refused unless the `webhook-allow` setting names them, by the
//! outbound-address policy every request on a user's behalf goes through (`crate::outbound`): the address is
//! checked after resolving, and the request goes to that checked address (no second lookup).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use futures::stream::{FuturesUnordered, StreamExt};
use hmac::{Hmac, Mac};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::engine::Redactor;
use crate::guard::model::{Receiver, Schedule, WebhookDelivery};
use crate::guard::store::{Attempt, OutboxMessage, OutboxRow, Recipient};
use crate::model::WorkspaceId;
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError};

use super::error::{DeliveryError, SignError, TestError};
use super::message::new_message_id;
use super::receivers::{test_bodies, with_routing_key};
use super::retry::{every, next_step, BATCH, LEASE_MS};
use super::turns::{chains_in_turns, Turns};
use crate::outbound::{AddressPolicy, Reach};

/// Test messages a workspace may send: a burst of 5, then one a minute (each is a request to a URL it chose).
pub const TEST_MESSAGE_BUDGET: crate::rate_limit::Budget =
    crate::rate_limit::Budget { burst: 5.0, refill: Duration::from_secs(60) };

/// A fresh signing secret: `whsec_` and 32 random bytes in base64.
pub fn new_webhook_secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// The `webhook-signature` value for a message.
pub fn sign(secret: &str, message_id: &str, timestamp_s: i64, body: &str) -> Result<String, SignError> {
    let key = STANDARD.decode(secret.strip_prefix("whsec_").unwrap_or(secret))?;
    #[expect(clippy::expect_used, reason = "HMAC-SHA256 accepts keys of any length")]
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&key).expect("any key length");
    mac.update(format!("{message_id}.{timestamp_s}.{body}").as_bytes());
    Ok(format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes())))
}

/// Sends the outbox's due messages.
#[derive(Clone)]
pub struct WebhookSender {
    store: Store,
    sealer: SecretBox,
    clock: Arc<dyn Clock>,
    addresses: AddressPolicy,
    timeout: Duration,
}

impl WebhookSender {
    /// A sender over the shared store and clock; receivers must be public or allowed by `addresses` (whose
    /// rules are the `webhook-allow` setting's: a schedule's owner does not widen where its webhooks may go).
    pub fn new(store: Store, sealer: SecretBox, clock: Arc<dyn Clock>, addresses: AddressPolicy) -> Self {
        Self { store, sealer, clock, addresses, timeout: Duration::from_secs(10) }
    }

    /// One pass: leases the due messages and attempts each once, many at once in turns across workspaces (each
    /// workspace and each destination within its own limit: `turns`), holding their leases while the pass lasts.
    /// One schedule's messages go one after another in the order they were written; when one fails, the rest of
    /// its chain waits for its next attempt (their leases are let go). Returns how many were delivered.
    pub async fn deliver_due(&self) -> Result<usize, StoreError> {
        let chains = chains_in_turns(self.store.lease_due_webhooks(self.clock.now_ms(), LEASE_MS, BATCH).await?);
        let unsent: Mutex<HashSet<String>> = Mutex::new(chains.iter().flatten().map(|m| m.id.clone()).collect());
        let sent = |id: &str| {
            if let Ok(mut unsent) = unsent.lock() {
                unsent.remove(id);
            }
        };
        let turns = Turns::default();
        let mut sending: FuturesUnordered<_> = chains
            .iter()
            .map(|chain| async {
                let mut delivered = 0;
                for (i, message) in chain.iter().enumerate() {
                    let attempt = match turns.take(message).await {
                        Some(_turn) => self.deliver(message).await,
                        None => Ok(false),
                    };
                    sent(&message.id);
                    match attempt {
                        Ok(true) => delivered += 1,
                        failed => {
                            if let Err(e) = failed {
                                tracing::error!(error = %e, "recording a webhook attempt failed");
                            }
                            let waiting: Vec<String> = chain[i + 1..].iter().map(|m| m.id.clone()).collect();
                            waiting.iter().for_each(|id| sent(id));
                            return self.store.release_webhook_leases(&waiting).await.map(|_| delivered);
                        }
                    }
                }
                Ok(delivered)
            })
            .collect();
        let every = Duration::from_millis(u64::try_from(LEASE_MS / 3).unwrap_or(20_000));
        let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        let mut delivered = 0;
        loop {
            tokio::select! {
                next = sending.next() => match next {
                    Some(Ok(sent)) => delivered += sent,
                    Some(Err(e)) => tracing::error!(error = %e, "letting go of a failed chain's webhook leases failed"),
                    None => break,
                },
                _ = renew.tick() => {
                    let ids: Vec<String> = unsent.lock().map(|u| u.iter().cloned().collect()).unwrap_or_default();
                    let renewed = self.store.renew_webhook_leases(&ids, self.clock.now_ms(), LEASE_MS).await;
                    match renewed {
                        Ok(n) if n < ids.len() as u64 => {
                            tracing::warn!(renewed = n, unsent = ids.len(), "some webhook leases ran out during a pass");
                        }
                        Ok(_) => {}
                        Err(e) => tracing::error!(error = %e, "renewing webhook leases failed"),
                    }
                }
            }
        }
        Ok(delivered)
    }

    /// Attempts one message of `workspace` now ("Send test"); `false` when it was not delivered (or not there to
    /// send: delivered already, given up, or being sent by another deliverer).
    pub async fn deliver_now(&self, workspace: WorkspaceId, message_id: &str) -> Result<bool, StoreError> {
        match self.store.lease_webhook(workspace, message_id, self.clock.now_ms(), LEASE_MS).await? {
            Some(message) => self.deliver(&message).await,
            None => Ok(false),
        }
    }

    /// Writes a signed test message for `schedule` in its receiver's shape to the outbox and attempts it at once
    /// (it is retried like any other if this attempt fails); answers how the attempt went. For PagerDuty the test
    /// is an `info` event resolved by a second one, sent right after.
    pub async fn send_test(&self, workspace: WorkspaceId, schedule: &Schedule) -> Result<WebhookDelivery, TestError> {
        let url = schedule.input.notify.webhook_url.as_deref().ok_or(TestError::NoUrl)?;
        let to = Recipient { url, receiver: schedule.input.notify.receiver };
        let now = self.clock.now_ms();
        let mut ids = Vec::new();
        for body in test_bodies(schedule, url, &new_message_id(), now) {
            let id = new_message_id();
            let row = OutboxRow { schedule: schedule.id, alert: None, id: &id, body: &body };
            self.store.queue_webhook(workspace, to, row, now).await?;
            ids.push(id);
        }
        for id in &ids {
            self.deliver_now(workspace, id).await?;
        }
        let first = ids.first().ok_or(TestError::NoUrl)?;
        Ok(self.store.webhook_delivery(workspace, first).await?)
    }

    /// One attempt at a leased message, logged, with its next step (delivered, retry later, given up).
    async fn deliver(&self, message: &OutboxMessage) -> Result<bool, StoreError> {
        let started = Instant::now();
        let result = self.attempt(message).await;
        let error = result.as_ref().err().map(ToString::to_string);
        let attempt = Attempt {
            at_ms: self.clock.now_ms(),
            status: result.as_ref().map_or_else(DeliveryError::status, |status| Some(*status)),
            error: error.as_deref(),
            duration_ms: started.elapsed().as_secs_f64() * 1e3,
        };
        let outcome = next_step(result.is_ok(), message.attempts, attempt.at_ms);
        crate::telemetry::counters().webhook_attempt(outcome.label());
        if result.is_err() {
            tracing::warn!(message = %message.id, error = ?attempt.error, ?outcome, "webhook delivery failed");
        }
        self.store.record_webhook_attempt(message, &attempt, outcome).await?;
        Ok(result.is_ok())
    }

    /// Delivers every `interval` until the process ends.
    pub async fn deliver_forever(self, interval: Duration) {
        every(interval, "webhook delivery pass", || self.deliver_due()).await;
    }

    /// Sends one message: the HTTP status on a 2xx, else the status (if any) and what went wrong.
    async fn attempt(&self, message: &OutboxMessage) -> Result<u16, DeliveryError> {
        let url = url::Url::parse(&message.url)?;
        let addresses = self.addresses.resolve(Reach::PublicOnly, &url).await?;
        let secret = self
            .store
            .schedule_webhook_secret(message.workspace, message.schedule, &self.sealer)
            .await
            .map_err(DeliveryError::Secret)?;
        // A PagerDuty event gets the routing key only now, so neither the outbox nor its log ever holds it.
        let routing_key = match message.receiver {
            Receiver::PagerDuty => Some(
                self.store
                    .schedule_routing_key(message.workspace, message.schedule, &self.sealer)
                    .await
                    .map_err(DeliveryError::RoutingKey)?,
            ),
            _ => None,
        };
        let body = match &routing_key {
            Some(key) => with_routing_key(&message.body, key).map_err(DeliveryError::Body)?,
            None => message.body.clone(),
        };
        let timestamp = self.clock.now_ms().div_euclid(1_000);
        let signature = sign(&secret, &message.id, timestamp, &body)?;
        let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_string();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .resolve_to_addrs(&host, &addresses)
            .user_agent(concat!("latency-guard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(DeliveryError::Client)?;
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &message.id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body)
            .send()
            .await
            .map_err(DeliveryError::NoResponse)?;
        let status = response.status();
        if status.is_success() {
            Ok(status.as_u16())
        } else {
            let body = refusal_text(response).await;
            // A receiver that echoes the request must not put the routing key (or the signing secret, never
            // sent) into the delivery log, in any spelling (its case changed, encoded, split, cut at the excerpt's
            // edge): the connectors' redactor scrubs every echo before the cut.
            let redactor = Redactor::new(routing_key.as_deref().into_iter().chain([secret.as_str()]));
            let excerpt = redactor.scrub_and_clip(&body, REFUSAL_EXCERPT_CHARS);
            Err(DeliveryError::Refused { status, excerpt })
        }
    }
}

/// How much of a refusing receiver's answer the delivery log keeps, in characters.
const REFUSAL_EXCERPT_CHARS: usize = 200;

/// The most of a refusing receiver's answer read: enough for the excerpt after scrubbing (an escaped character
/// takes up to 10 bytes), never the whole of an endless body.
const REFUSAL_READ_BYTES: usize = 16 * 1024;

/// The start of a refusing receiver's answer as text, at most [`REFUSAL_READ_BYTES`] of it (cut at a character).
async fn refusal_text(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < REFUSAL_READ_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body.truncate(REFUSAL_READ_BYTES);
    String::from_utf8_lossy(&body).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_like_the_standard_webhooks_reference() {
        // The Standard Webhooks specification's example: secret, id, timestamp and body as published, and the
        // signature its reference libraries produce for them.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        assert!(new_webhook_secret().starts_with("whsec_") && sign(&new_webhook_secret(), "m", 1, "{}").is_ok());
    }
}
