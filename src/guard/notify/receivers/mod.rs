//! One alert message in each receiver's own shape: the generic webhook body (`message.rs`), Slack's Block Kit,
//! Discord's embed, a Microsoft Teams Adaptive Card, PagerDuty's Events API v2. Each formatter keeps to the
//! limits its receiver documents (a longer field would make the receiver refuse the whole message), clipping with
//! an ellipsis.

mod discord;
mod pagerduty;
mod slack;
mod teams;

use crate::guard::model::{Notice, Receiver, Schedule};
use crate::model::AlertId;

use super::message::{test_message_body, AlertMessage};

pub use pagerduty::{resolve_event, with_routing_key};

/// The messages one notice makes for a receiver, each with the alert it is about: one per alert for PagerDuty
/// (its `dedup_key` is the alert), else one for the notice, about its first alert. `alerts` are the notice's
/// alerts in the order of its breaches (one for a notice about measuring).
pub fn bodies(
    receiver: Receiver,
    url: &str,
    notice: &Notice,
    alerts: &[AlertId],
    message: impl Fn(&Notice) -> AlertMessage<'_>,
) -> Vec<(AlertId, String)> {
    if receiver.one_message_per_alert() {
        return notice
            .one_per_alert()
            .iter()
            .zip(alerts)
            .map(|(one, alert)| (*alert, pagerduty::event(&message(one), *alert)))
            .collect();
    }
    let Some(first) = alerts.first() else { return Vec::new() };
    let message = message(notice);
    let body = match receiver {
        Receiver::Webhook | Receiver::PagerDuty => message.webhook_body(url),
        Receiver::Slack => slack::body(&message),
        Receiver::Discord => discord::body(&message),
        Receiver::Teams => teams::body(&message),
    };
    vec![(*first, body)]
}

/// The "Send test" messages for `schedule` in its receiver's shape: the generic test body; a chat message saying
/// it is a test; for PagerDuty an `info` event keyed `test_key` and its `resolve`, so no incident stays open.
pub fn test_bodies(schedule: &Schedule, url: &str, test_key: &str, at_ms: i64) -> Vec<String> {
    let headline = format!("✅ latency-guard test message [{}]", schedule.input.name);
    let line = "Alerts of this schedule will arrive here.";
    match schedule.input.notify.receiver {
        Receiver::Webhook => vec![test_message_body(schedule, url, at_ms)],
        Receiver::Slack => vec![slack::plain(&headline, line)],
        Receiver::Discord => vec![discord::plain(&headline, line)],
        Receiver::Teams => vec![teams::plain(&headline, line)],
        Receiver::PagerDuty => {
            let key = format!("latency-guard-test-{test_key}");
            vec![pagerduty::test_event(&key, &headline, at_ms), pagerduty::resolve(&key)]
        }
    }
}

/// `text` cut to at most `max` characters, the last one an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
pub(super) mod fixtures {
    use crate::guard::model::{Breach, GuardSummary, Metric, Notice, Op, Severity};
    use crate::model::ScheduleId;

    use super::AlertMessage;

    pub fn breach(metric: Metric, severity: Severity) -> Breach {
        Breach {
            metric,
            op: Op::PctIncrease,
            threshold: 20.0,
            delta: 124.0,
            pct_change: Some(119.23076923076923),
            p_value: Some(6.0905791809414e-06),
            severity,
            baseline: 104.0,
            observed: 228.0,
            test: None,
            latest: None,
        }
    }

    pub fn message<'a>(notice: &'a Notice, name: &str) -> AlertMessage<'a> {
        let summary = GuardSummary { p95_ms: Some(104.0), mean_ms: Some(100.5), ..GuardSummary::default() };
        AlertMessage {
            notice,
            schedule_id: ScheduleId(uuid::Uuid::nil()),
            schedule_name: name.into(),
            benchmark_set_id: uuid::Uuid::nil().to_string(),
            baseline: Some(summary),
            observed: Some(GuardSummary { p95_ms: Some(228.0), ..summary }),
            set_url: "http://lg.example/guard/sets#set-1".into(),
            schedule_url: "http://lg.example/guard/schedules/1".into(),
            report_url: Some("http://lg.example/runs/1".into()),
            at_ms: 1_795_000_000_000,
            context: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{breach, message};
    use super::*;
    use crate::guard::model::{Metric, Severity};

    #[test]
    fn clipping_keeps_the_limit_and_says_it_cut() {
        assert_eq!(clip("short", 10), "short");
        let cut = clip("ééééé", 3);
        assert_eq!((cut.as_str(), cut.chars().count()), ("éé…", 3));
    }

    #[test]
    fn pagerduty_gets_one_event_per_alert_and_chats_one_message_per_notice() {
        let notice =
            Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn), breach(Metric::MeanMs, Severity::Critical)]);
        let ids = [AlertId::new_random(), AlertId::new_random()];
        let paged = bodies(Receiver::PagerDuty, "", &notice, &ids, |n| message(n, "Checkout API"));
        assert_eq!(paged.iter().map(|(id, _)| *id).collect::<Vec<_>>(), ids);
        let second: serde_json::Value = serde_json::from_str(&paged[1].1).unwrap();
        assert_eq!(second["dedup_key"], ids[1].to_string());
        assert!(second["payload"]["summary"].as_str().unwrap().contains("mean_ms"), "{second}");
        for chat in [Receiver::Webhook, Receiver::Slack, Receiver::Discord, Receiver::Teams] {
            let one = bodies(chat, "https://hooks.example/x", &notice, &ids, |n| message(n, "Checkout API"));
            assert_eq!(one.len(), 1, "{chat:?}");
            assert_eq!(one[0].0, ids[0]);
        }
    }
}
