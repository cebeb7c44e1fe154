//! What reads a schedule's alerts at its `webhookUrl`: the generic signed webhook (its body as `docs/GUARD.md`
//! lists it), a chat (Slack, Discord, Microsoft Teams: each one's own message shape), or PagerDuty's Events API v2
//! (one event per alert, keyed by the alert, with a routing key the server keeps sealed).

use serde::{Deserialize, Serialize};

/// PagerDuty's Events API v2 endpoint, used when a PagerDuty receiver names no URL (the EU service is
/// `https://events.eu.pagerduty.com/v2/enqueue`).
pub const PAGERDUTY_EVENTS_URL: &str = "https://events.pagerduty.com/v2/enqueue";

/// The receiver kind (`notify.receiver`; `webhook` when absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Receiver {
    /// The generic webhook: the documented JSON body with a `text` line (`content` for a Discord URL).
    #[default]
    Webhook,
    /// A Slack incoming webhook: `text` and Block Kit `blocks`.
    Slack,
    /// A Discord webhook: `content` and one embed, mentions disabled.
    Discord,
    /// A Microsoft Teams workflow webhook: a message carrying one Adaptive Card.
    Teams,
    /// PagerDuty Events API v2: `trigger` when an alert opens, `resolve` when it recovers or is acknowledged.
    #[serde(rename = "pagerduty")]
    PagerDuty,
}

impl Receiver {
    /// Every kind, in the order the form lists them.
    pub const ALL: [Receiver; 5] =
        [Receiver::Webhook, Receiver::Slack, Receiver::Discord, Receiver::Teams, Receiver::PagerDuty];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Receiver::Webhook => "webhook",
            Receiver::Slack => "slack",
            Receiver::Discord => "discord",
            Receiver::Teams => "teams",
            Receiver::PagerDuty => "pagerduty",
        }
    }

    /// From the wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// What the form calls it.
    pub fn label(self) -> &'static str {
        match self {
            Receiver::Webhook => "Webhook (signed JSON)",
            Receiver::Slack => "Slack",
            Receiver::Discord => "Discord",
            Receiver::Teams => "Microsoft Teams",
            Receiver::PagerDuty => "PagerDuty (Events API v2)",
        }
    }

    /// What the form's address field asks for under this receiver, and an example of one.
    pub fn address_field(self) -> (&'static str, &'static str) {
        match self {
            Receiver::Webhook => {
                ("Webhook URL (optional; each message is signed)", "https://alerts.example.com/latency-guard")
            }
            Receiver::Slack => ("Slack incoming-webhook URL", "https://hooks.slack.com/services/T…/B…/…"),
            Receiver::Discord => ("Discord webhook URL", "https://discord.com/api/webhooks/…/…"),
            Receiver::Teams => (
                "Teams workflow URL (\"When a Teams webhook request is received\")",
                "https://….logic.azure.com/workflows/…",
            ),
            Receiver::PagerDuty => ("Events API URL (empty: PagerDuty's)", "https://events.pagerduty.com/v2/enqueue"),
        }
    }

    /// Whether each alert is its own message (PagerDuty de-duplicates by alert), rather than one per notice.
    pub fn one_message_per_alert(self) -> bool {
        self == Receiver::PagerDuty
    }
}

/// Checks a PagerDuty routing key as entered: an Events API v2 integration key is 32 letters and digits.
pub fn check_routing_key(key: &str) -> Result<(), RoutingKeyError> {
    let alphanumeric = key.bytes().all(|b| b.is_ascii_alphanumeric());
    if key.len() == 32 && alphanumeric {
        Ok(())
    } else {
        Err(RoutingKeyError { characters: key.chars().count(), alphanumeric })
    }
}

/// A routing key that is not 32 letters and digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "a PagerDuty routing key (the Events API v2 integration key) is 32 letters and digits; this one has {characters} \
     characters{}",
    if *alphanumeric { "" } else { ", not all letters and digits" }
)]
pub struct RoutingKeyError {
    /// How many characters it has.
    pub characters: usize,
    /// Whether they are all ASCII letters and digits.
    pub alphanumeric: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_by_name_and_absent_means_webhook() {
        for kind in Receiver::ALL {
            assert_eq!(Receiver::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(Receiver::default(), Receiver::Webhook);
        assert_eq!(Receiver::parse("opsgenie"), None);
    }

    #[test]
    fn routing_keys_are_32_letters_and_digits() {
        assert!(check_routing_key("R0UT1NGKEY0123456789abcdefABCDEF").is_ok());
        let short = check_routing_key("abc").unwrap_err().to_string();
        assert!(short.contains("this one has 3 characters"), "{short}");
        let odd = check_routing_key("R0UT1NGKEY0123456789abcdefABCDE-").unwrap_err().to_string();
        assert!(odd.ends_with("not all letters and digits"), "{odd}");
    }
}
