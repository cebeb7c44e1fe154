//! PagerDuty Events API v2: each alert is an event keyed by the alert (`dedup_key`), `trigger`ed when it opens
//! (or its schedule cannot measure) and `resolve`d when it recovers (or measures again) or is acknowledged here.
//! The body is stored without `routing_key`: the sender adds the schedule's sealed key as it sends
//! ([`with_routing_key`]), so the outbox and its delivery log never hold it. Limits from PagerDuty's reference:
//! `summary` 1,024 characters, `dedup_key` 255; `severity` one of critical, error, warning, info.

use serde_json::{json, Value};

use super::clip;
use crate::guard::model::{Notice, Severity};
use crate::guard::notify::message::AlertMessage;
use crate::model::{iso8601_utc, AlertId};

/// The event for one alert's notice.
pub(super) fn event(message: &AlertMessage<'_>, alert: AlertId) -> String {
    match message.notice {
        Notice::Recovered(_) | Notice::MeasurableAgain => resolve_event(alert),
        Notice::Opened(_) | Notice::CannotMeasure(_) => trigger_event(message, alert),
    }
}

/// A `resolve` of alert `alert`'s incident (a recovery, or an acknowledgement in latency-guard).
pub fn resolve_event(alert: AlertId) -> String {
    resolve(&alert.to_string())
}

/// A `resolve` of the incident keyed `dedup_key`.
pub(super) fn resolve(dedup_key: &str) -> String {
    json!({"event_action": "resolve", "dedup_key": dedup_key}).to_string()
}

/// The "Send test" event: `info`, keyed `dedup_key`, resolved by the message after it.
pub(super) fn test_event(dedup_key: &str, summary: &str, at_ms: i64) -> String {
    json!({
        "event_action": "trigger",
        "dedup_key": dedup_key,
        "payload": {
            "summary": clip(summary, 1_024),
            "source": "latency-guard",
            "severity": "info",
            "timestamp": iso8601_utc(at_ms),
            "class": "latency_guard.guard.test",
        },
        "client": "latency-guard",
    })
    .to_string()
}

fn trigger_event(message: &AlertMessage<'_>, alert: AlertId) -> String {
    let severity = match (message.notice, message.severity()) {
        (Notice::CannotMeasure(_), _) => "error",
        (_, Severity::Critical) => "critical",
        (_, Severity::Warn) => "warning",
    };
    let summary = format!("{}: {}", message.headline(), message.details().join("; "));
    let component = match message.notice {
        Notice::Opened(breaches) => breaches.first().map(|b| b.metric.as_str()),
        _ => None,
    };
    // The generic webhook body, without its chat line, carries every figure for the incident's details.
    let mut details: Value = serde_json::from_str(&message.webhook_body("")).unwrap_or(Value::Null);
    if let Some(fields) = details.as_object_mut() {
        fields.remove("text");
    }
    json!({
        "event_action": "trigger",
        "dedup_key": alert.to_string(),
        "payload": {
            "summary": clip(&summary, 1_024),
            "source": clip(&format!("latency-guard schedule {}", message.schedule_name), 255),
            "severity": severity,
            "timestamp": iso8601_utc(message.at_ms),
            "component": component.unwrap_or("endpoint"),
            "group": clip(&message.schedule_name, 255),
            "class": message.event_type(),
            "custom_details": details,
        },
        "links": [{"href": message.link(), "text": "Open in latency-guard"}],
        "client": "latency-guard",
        "client_url": message.schedule_url,
    })
    .to_string()
}

/// `body` with the integration's routing key added, as it is sent.
pub fn with_routing_key(body: &str, routing_key: &str) -> Result<String, serde_json::Error> {
    let mut event: Value = serde_json::from_str(body)?;
    if let Some(fields) = event.as_object_mut() {
        fields.insert("routing_key".into(), Value::String(routing_key.to_string()));
    }
    serde_json::to_string(&event)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{breach, message};
    use super::*;
    use crate::guard::model::{CannotMeasure, Metric};

    #[test]
    fn an_opened_alert_triggers_with_its_figures_and_a_recovery_resolves_the_same_key() {
        let alert = AlertId::new_random();
        let notice = Notice::Opened(vec![breach(Metric::P95Ms, Severity::Critical)]);
        let trigger: Value = serde_json::from_str(&event(&message(&notice, "Checkout"), alert)).unwrap();
        assert_eq!(
            (trigger["event_action"].as_str(), trigger["dedup_key"].as_str()),
            (Some("trigger"), Some(&*alert.to_string()))
        );
        assert!(trigger.get("routing_key").is_none(), "added only as it is sent");
        let payload = &trigger["payload"];
        assert_eq!(
            payload["summary"],
            "🚨 latency-guard alert [critical] Checkout: p95_ms +119.2% (baseline 104 ms → observed 228 ms), p = 6.1e-6"
        );
        assert_eq!((payload["severity"].as_str(), payload["component"].as_str()), (Some("critical"), Some("p95_ms")));
        assert_eq!(payload["custom_details"]["breaches"][0]["metric"], "p95_ms");
        assert!(payload["custom_details"].get("text").is_none());
        assert_eq!(trigger["links"][0]["href"], "http://lg.example/runs/1");

        let recovered = Notice::Recovered(vec![breach(Metric::P95Ms, Severity::Critical)]);
        let resolve: Value = serde_json::from_str(&event(&message(&recovered, "Checkout"), alert)).unwrap();
        assert_eq!(resolve, json!({"event_action": "resolve", "dedup_key": alert.to_string()}));
    }

    #[test]
    fn cannot_measure_is_an_error_and_the_key_is_added_on_sending() {
        let notice = Notice::CannotMeasure(CannotMeasure { reason: "connect: refused".into(), evaluations: 3 });
        let body = event(&message(&notice, "Checkout"), AlertId::new_random());
        let trigger: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(trigger["payload"]["severity"], "error");
        let sent: Value =
            serde_json::from_str(&with_routing_key(&body, "R0UT1NGKEY0123456789abcdefABCDEF").unwrap()).unwrap();
        assert_eq!(sent["routing_key"], "R0UT1NGKEY0123456789abcdefABCDEF");
        assert_eq!(sent["payload"], trigger["payload"]);
        assert!(with_routing_key("not json", "k").is_err());
    }
}
