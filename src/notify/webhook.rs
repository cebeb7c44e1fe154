//! Webhook delivery from the outbox, signed per Standard Webhooks: `webhook-id`, `webhook-timestamp` (unix
//! seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 over "id.timestamp.body">` with the schedule's
//! `whsec_` secret. A failed attempt is retried with growing delays, then given up; every attempt is logged.
//! Receivers at private, loopback or link-local addresses are refused unless the allow-list names them: the
//! address is checked after resolving, and the request goes to that checked address (no second lookup).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::model::{Schedule, WebhookDelivery, WorkspaceId};
use crate::secrets::SecretBox;
use crate::store::{Attempt, OutboxMessage, Store, StoreError};

use super::error::{AddressError, DeliveryError, SignError, TestError};
use super::message::{new_message_id, test_message_body};
use super::retry::{every, next_step, BATCH, LEASE_MS};

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

/// Which receivers may be private: exact host names or IP addresses from the `webhook-allow` setting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(Vec<String>);

impl AllowList {
    /// From a comma-separated list.
    pub fn parse(text: &str) -> Self {
        Self(text.split(',').map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()).collect())
    }

    fn allows(&self, host: &str, ip: IpAddr) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        self.0.iter().any(|entry| *entry == host || entry.parse::<IpAddr>().is_ok_and(|allowed| allowed == ip))
    }
}

/// Addresses a public receiver never has: loopback, private, link-local, shared (CGNAT), unspecified, multicast.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || v6.to_ipv4_mapped().is_some_and(|v4| is_internal(IpAddr::V4(v4)))
        }
    }
}

/// Resolves `url`'s host and checks every address; the first allowed one is where the request goes.
pub async fn checked_address(url: &url::Url, allow: &AllowList) -> Result<SocketAddr, AddressError> {
    let host = url.host_str().ok_or(AddressError::NoHost)?;
    let port = url.port_or_known_default().ok_or(AddressError::NoPort)?;
    let addresses: Vec<SocketAddr> =
        tokio::net::lookup_host((host.trim_start_matches('[').trim_end_matches(']'), port))
            .await
            .map_err(|source| AddressError::Unresolvable { host: host.into(), source })?
            .collect();
    let first = *addresses.first().ok_or_else(|| AddressError::NoAddress { host: host.into() })?;
    if let Some(internal) = addresses.iter().find(|a| is_internal(a.ip()) && !allow.allows(host, a.ip())) {
        return Err(AddressError::Internal { host: host.into(), ip: internal.ip() });
    }
    Ok(first)
}

/// Sends the outbox's due messages.
#[derive(Clone)]
pub struct WebhookSender {
    store: Store,
    sealer: SecretBox,
    clock: Arc<dyn Clock>,
    allow: Arc<AllowList>,
    timeout: Duration,
}

impl WebhookSender {
    /// A sender over the shared store and clock; `allow` names private receivers that are permitted.
    pub fn new(store: Store, sealer: SecretBox, clock: Arc<dyn Clock>, allow: AllowList) -> Self {
        Self { store, sealer, clock, allow: Arc::new(allow), timeout: Duration::from_secs(10) }
    }

    /// One pass: leases the due messages and attempts each once. Returns how many were delivered.
    pub async fn deliver_due(&self) -> Result<usize, StoreError> {
        let due = self.store.lease_due_webhooks(self.clock.now_ms(), LEASE_MS, BATCH).await?;
        let mut delivered = 0;
        for message in due {
            delivered += usize::from(self.deliver(&message).await?);
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

    /// Writes a signed test message for `schedule` to the outbox and attempts it at once (it is retried like any
    /// other if this attempt fails); answers how the attempt went.
    pub async fn send_test(&self, workspace: WorkspaceId, schedule: &Schedule) -> Result<WebhookDelivery, TestError> {
        let url = schedule.input.notify.webhook_url.as_deref().ok_or(TestError::NoUrl)?;
        let now = self.clock.now_ms();
        let message_id = new_message_id();
        let body = test_message_body(schedule, url, now);
        self.store.queue_test_webhook(workspace, schedule.id, url, &message_id, &body, now).await?;
        self.deliver_now(workspace, &message_id).await?;
        Ok(self.store.webhook_delivery(workspace, &message_id).await?)
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
        let address = checked_address(&url, &self.allow).await?;
        let secret = self
            .store
            .schedule_webhook_secret(message.workspace, message.schedule, &self.sealer)
            .await
            .map_err(DeliveryError::Secret)?;
        let timestamp = self.clock.now_ms().div_euclid(1_000);
        let signature = sign(&secret, &message.id, timestamp, &message.body)?;
        let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_string();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .resolve(&host, address)
            .user_agent(concat!("latency-guard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(DeliveryError::Client)?;
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &message.id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(message.body.clone())
            .send()
            .await
            .map_err(DeliveryError::NoResponse)?;
        let status = response.status();
        if status.is_success() {
            Ok(status.as_u16())
        } else {
            let excerpt: String = response.text().await.unwrap_or_default().chars().take(200).collect();
            Err(DeliveryError::Refused { status, excerpt })
        }
    }
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

    #[test]
    fn internal_addresses_are_recognised() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(is_internal(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "1.1.1.1", "2606:4700::1111"] {
            assert!(!is_internal(ip.parse().unwrap()), "{ip}");
        }
        let allow = AllowList::parse(" 127.0.0.1, Hooks.Internal ");
        assert!(allow.allows("127.0.0.1", "127.0.0.1".parse().unwrap()));
        assert!(allow.allows("hooks.internal", "10.0.0.5".parse().unwrap()));
        assert!(!allow.allows("other.internal", "10.0.0.6".parse().unwrap()));
    }
}
