//! Where a schedule's alerts go — a webhook URL and what reads it, an extra address, the owner — and the checks
//! each receiver's settings need. Pure data shared with the browser; the routing key is sealed by the store.

use serde::{Deserialize, Serialize};

use super::receiver::{check_routing_key, Receiver, PAGERDUTY_EVENTS_URL};
use crate::model::{is_one_email_address, ValidationError};

/// Where a schedule's alerts go: `notify: {webhookUrl, email}` on the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Notify {
    /// Where alerts are posted, if anywhere.
    #[serde(default)]
    pub webhook_url: Option<String>,
    /// An address mailed besides the owner, if any.
    #[serde(default)]
    pub email: Option<String>,
    /// Whether the workspace owner's verified contact address is mailed too.
    #[serde(default)]
    pub email_owner: bool,
    /// What reads the messages at `webhookUrl`.
    #[serde(default)]
    pub receiver: Receiver,
    /// A PagerDuty routing key as entered: sent to the server once and sealed there; a stored schedule never
    /// carries it (it says `routingKeySet`). Absent on a save: the stored key stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing_key: Option<String>,
    /// Whether the server holds a routing key for this schedule (written by the server; ignored on input).
    #[serde(default)]
    pub routing_key_set: bool,
}

impl Notify {
    /// Trimmed and checked: the URL is http(s) with a host (its address is checked again at each delivery), the
    /// receiver has what it needs, the extra address is one address.
    pub fn validated(&self) -> Result<Self, ValidationError> {
        let webhook_url = self.webhook_url.as_deref().map(str::trim).filter(|u| !u.is_empty()).map(String::from);
        if let Some(url) = &webhook_url {
            let parsed = url::Url::parse(url)
                .map_err(|e| ValidationError::new("notify.webhookUrl", format!("not a URL ({e}): {url}")))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(ValidationError::new(
                    "notify.webhookUrl",
                    "must be an http:// or https:// URL with a host",
                ));
            }
        }
        let (webhook_url, routing_key) = self.checked_receiver(webhook_url)?;
        let email = self.email.as_deref().map(str::trim).filter(|e| !e.is_empty()).map(String::from);
        if let Some(address) = &email {
            if !is_one_email_address(address) {
                return Err(ValidationError::new("notify.email", format!("not one e-mail address: {address}")));
            }
        }
        Ok(Self { webhook_url, email, routing_key, ..self.clone() })
    }

    /// The receiver's URL and routing key, checked for its kind: a chat needs its webhook URL; PagerDuty takes its
    /// Events API endpoint when none is given and a routing key of the right shape (whether one is stored is the
    /// store's to check); other kinds carry no routing key.
    fn checked_receiver(&self, url: Option<String>) -> Result<(Option<String>, Option<String>), ValidationError> {
        let key = self.routing_key.as_deref().map(str::trim).filter(|k| !k.is_empty()).map(String::from);
        match self.receiver {
            Receiver::PagerDuty => {
                if let Some(key) = &key {
                    check_routing_key(key).map_err(|why| ValidationError::new("notify.routingKey", why.to_string()))?;
                }
                Ok((Some(url.unwrap_or_else(|| PAGERDUTY_EVENTS_URL.to_string())), key))
            }
            Receiver::Slack | Receiver::Discord | Receiver::Teams if url.is_none() => Err(ValidationError::new(
                "notify.webhookUrl",
                format!("a {} receiver needs its incoming-webhook URL", self.receiver.label()),
            )),
            _ if key.is_some() => {
                Err(ValidationError::new("notify.routingKey", "only a PagerDuty receiver takes a routing key"))
            }
            _ => Ok((url, None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_receiver_gets_what_it_needs() {
        let with = |receiver: Receiver, url: Option<&str>, key: Option<&str>| Notify {
            webhook_url: url.map(String::from),
            receiver,
            routing_key: key.map(String::from),
            ..Notify::default()
        };
        let key = "R0UT1NGKEY0123456789abcdefABCDEF";
        let paged = with(Receiver::PagerDuty, None, Some(&format!(" {key} "))).validated().unwrap();
        assert_eq!(paged.webhook_url.as_deref(), Some(PAGERDUTY_EVENTS_URL), "the Events API by default");
        assert_eq!(paged.routing_key.as_deref(), Some(key), "trimmed");
        let eu = with(Receiver::PagerDuty, Some("https://events.eu.pagerduty.com/v2/enqueue"), None).validated();
        assert_eq!(eu.unwrap().routing_key, None, "no key given: the stored one stays");
        let bad_key = with(Receiver::PagerDuty, None, Some("short")).validated().unwrap_err();
        assert_eq!(bad_key.field, "notify.routingKey");
        for chat in [Receiver::Slack, Receiver::Discord, Receiver::Teams] {
            let missing = with(chat, Some(" "), None).validated().unwrap_err();
            assert_eq!(missing.field, "notify.webhookUrl");
            assert!(missing.reason.contains(chat.label()), "{}", missing.reason);
        }
        let stray = with(Receiver::Slack, Some("https://hooks.slack.com/services/x"), Some(key)).validated();
        assert_eq!(stray.unwrap_err().field, "notify.routingKey", "a key is never stored for a chat");
        assert!(with(Receiver::Webhook, None, None).validated().is_ok(), "no receiver at all is fine");
    }

    #[test]
    fn a_blank_url_is_none_and_a_bad_url_or_address_is_named() {
        let blank =
            Notify { webhook_url: Some(" ".into()), email: Some(" ops@example.com ".into()), ..Notify::default() };
        let ok = blank.validated().unwrap();
        assert_eq!((ok.webhook_url, ok.email.as_deref()), (None, Some("ops@example.com")));
        let field = |n: Notify| n.validated().unwrap_err().field;
        assert_eq!(field(Notify { webhook_url: Some("ftp://x".into()), ..Notify::default() }), "notify.webhookUrl");
        assert_eq!(field(Notify { email: Some("a@b, c@d.e".into()), ..Notify::default() }), "notify.email");
    }
}
