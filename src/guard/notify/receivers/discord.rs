//! Discord webhooks: `content` (the notification line) and one embed with the figures, linked to the report,
//! coloured by what happened; `allowed_mentions` empty, so a schedule named `@everyone` pings nobody. Limits from
//! Discord's reference: `content` 2,000 characters, an embed's title 256, description 4,096, footer 2,048, and
//! 6,000 over the embed's texts together.

use serde_json::json;

use super::clip;
use crate::guard::model::{Notice, Severity};
use crate::guard::notify::message::AlertMessage;
use crate::model::iso8601_utc;

const RED: u32 = 0xD9_30_25;
const AMBER: u32 = 0xF9_AB_00;
const GREEN: u32 = 0x1E_8E_3E;

/// The message's body.
pub(super) fn body(message: &AlertMessage<'_>) -> String {
    let color = match (message.notice, message.severity()) {
        (Notice::Recovered(_) | Notice::MeasurableAgain, _) => GREEN,
        (Notice::Opened(_), Severity::Critical) => RED,
        _ => AMBER,
    };
    json!({
        "content": clip(&message.headline(), 2_000),
        "embeds": [{
            "title": clip(&message.schedule_name, 256),
            "description": clip(&message.details().join("\n"), 3_500),
            "url": message.link(),
            "color": color,
            "timestamp": iso8601_utc(message.at_ms),
            "footer": {"text": "latency-guard"},
        }],
        "allowed_mentions": {"parse": []},
    })
    .to_string()
}

/// A message of two lines without figures (the test message).
pub(super) fn plain(headline: &str, line: &str) -> String {
    json!({"content": clip(&format!("{headline}\n{line}"), 2_000), "allowed_mentions": {"parse": []}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{breach, message};
    use super::*;
    use crate::guard::model::Metric;

    #[test]
    fn content_one_embed_and_no_mentions() {
        let notice = Notice::Opened(vec![breach(Metric::P95Ms, Severity::Critical)]);
        let body: serde_json::Value = serde_json::from_str(&body(&message(&notice, "@everyone checkout"))).unwrap();
        assert_eq!(body["content"], "🚨 latency-guard alert [critical] @everyone checkout");
        assert_eq!(body["allowed_mentions"]["parse"].as_array().map(Vec::len), Some(0));
        let embed = &body["embeds"][0];
        assert_eq!(
            (embed["color"].as_u64(), embed["url"].as_str()),
            (Some(0xD93025), Some("http://lg.example/runs/1"))
        );
        assert_eq!(embed["timestamp"], "2026-11-18T11:06:40.000Z");
        let recovered = Notice::Recovered(vec![breach(Metric::P95Ms, Severity::Critical)]);
        let green: serde_json::Value = serde_json::from_str(&super::body(&message(&recovered, "x"))).unwrap();
        assert_eq!(green["embeds"][0]["color"].as_u64(), Some(u64::from(GREEN)));
    }
}
