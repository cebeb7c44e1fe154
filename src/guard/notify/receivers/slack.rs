//! Slack incoming webhooks: `text` (the notification and the fallback) and Block Kit `blocks` — a header, the
//! figures, a context line, a button to the report. Limits from Slack's Block Kit reference: a header's
//! `plain_text` 150 characters, a section's text 3,000, a context element's 3,000, a button's text 75, its URL 3,000.

use serde_json::json;

use super::clip;
use crate::guard::notify::message::AlertMessage;
use crate::model::iso8601_utc;

/// Slack's three control characters in `mrkdwn` and `text` (`&`, `<`, `>`), escaped as Slack asks.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The message's body.
pub(super) fn body(message: &AlertMessage<'_>) -> String {
    let details: Vec<String> = message.details().iter().map(|line| format!("• {}", escape(line))).collect();
    let context = format!(
        "<{}|{}> · {}",
        escape(&message.schedule_url),
        escape(&message.schedule_name),
        iso8601_utc(message.at_ms)
    );
    json!({
        "text": clip(&escape(&message.text()), 3_000),
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": clip(&message.headline(), 150), "emoji": true}},
            {"type": "section", "text": {"type": "mrkdwn", "text": clip(&details.join("\n"), 3_000)}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(&context, 3_000)}]},
            {"type": "actions", "elements": [{
                "type": "button",
                "text": {"type": "plain_text", "text": "Open in latency-guard"},
                "url": clip(&message.link(), 3_000),
            }]},
        ],
    })
    .to_string()
}

/// A message of two lines without figures (the test message).
pub(super) fn plain(headline: &str, line: &str) -> String {
    json!({
        "text": escape(&format!("{headline}\n{line}")),
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": clip(headline, 150), "emoji": true}},
            {"type": "section", "text": {"type": "mrkdwn", "text": escape(line)}},
        ],
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{breach, message};
    use super::*;
    use crate::guard::model::{Metric, Notice, Severity};

    #[test]
    fn a_header_the_figures_of_every_breach_and_a_button() {
        let notice =
            Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn), breach(Metric::MeanMs, Severity::Critical)]);
        let body: serde_json::Value = serde_json::from_str(&body(&message(&notice, "Checkout <API> & co"))).unwrap();
        assert!(body["text"]
            .as_str()
            .unwrap()
            .starts_with("🚨 latency-guard alert [critical] Checkout &lt;API&gt; &amp; co\n"));
        let blocks = body["blocks"].as_array().unwrap();
        let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["header", "section", "context", "actions"]);
        assert_eq!(blocks[0]["text"]["text"], "🚨 latency-guard alert [critical] Checkout <API> & co", "plain text");
        let figures = blocks[1]["text"]["text"].as_str().unwrap();
        assert_eq!(figures.lines().count(), 2, "{figures}");
        assert!(figures.starts_with("• p95_ms +119.2% (baseline 104 ms → observed 228 ms)"), "{figures}");
        assert_eq!(blocks[3]["elements"][0]["url"], "http://lg.example/runs/1");
    }

    #[test]
    fn a_long_name_is_clipped_to_the_header_limit() {
        let notice = Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn)]);
        let name = "n".repeat(400);
        let body: serde_json::Value = serde_json::from_str(&body(&message(&notice, &name))).unwrap();
        assert_eq!(body["blocks"][0]["text"]["text"].as_str().unwrap().chars().count(), 150);
    }
}
