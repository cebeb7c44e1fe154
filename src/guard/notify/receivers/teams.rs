//! Microsoft Teams workflow webhooks ("Post to a channel when a webhook request is received"): a `message` with
//! one attachment holding an Adaptive Card 1.4 — the headline, the figures, and a button to the report. (The
//! older Office 365 connectors' MessageCard is retired; workflows read Adaptive Cards.)

use serde_json::json;

use super::clip;
use crate::guard::model::{Notice, Severity};
use crate::guard::notify::message::AlertMessage;
use crate::model::iso8601_utc;

/// A message of two lines without figures (the test message).
pub(super) fn plain(headline: &str, line: &str) -> String {
    card(
        vec![
            json!({"type": "TextBlock", "text": clip(headline, 1_000), "weight": "Bolder", "wrap": true}),
            json!({"type": "TextBlock", "text": line, "wrap": true}),
        ],
        None,
    )
}

/// The envelope: a `message` with one Adaptive Card 1.4 of `body`, with a button to `link` when there is one.
fn card(body: Vec<serde_json::Value>, link: Option<String>) -> String {
    let actions: Vec<serde_json::Value> = link
        .map(|url| json!({"type": "Action.OpenUrl", "title": "Open in latency-guard", "url": url}))
        .into_iter()
        .collect();
    json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": {
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "body": body,
                "actions": actions,
            },
        }],
    })
    .to_string()
}

/// The message's body.
pub(super) fn body(message: &AlertMessage<'_>) -> String {
    let color = match (message.notice, message.severity()) {
        (Notice::Recovered(_) | Notice::MeasurableAgain, _) => "Good",
        (Notice::Opened(_), Severity::Critical) => "Attention",
        _ => "Warning",
    };
    let mut card_body = vec![json!({
        "type": "TextBlock", "text": clip(&message.headline(), 1_000), "weight": "Bolder", "size": "Medium",
        "color": color, "wrap": true,
    })];
    card_body.extend(
        message.details().iter().map(|line| json!({"type": "TextBlock", "text": clip(line, 2_000), "wrap": true})),
    );
    card_body.push(json!({
        "type": "TextBlock", "text": iso8601_utc(message.at_ms), "isSubtle": true, "size": "Small", "wrap": true,
    }));
    card(card_body, Some(message.link()))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{breach, message};
    use super::*;
    use crate::guard::model::Metric;

    #[test]
    fn one_adaptive_card_with_a_line_per_breach_and_a_link() {
        let notice =
            Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn), breach(Metric::MeanMs, Severity::Critical)]);
        let body: serde_json::Value = serde_json::from_str(&body(&message(&notice, "Checkout"))).unwrap();
        assert_eq!(body["type"], "message");
        let card = &body["attachments"][0];
        assert_eq!(card["contentType"], "application/vnd.microsoft.card.adaptive");
        assert_eq!(
            (card["content"]["type"].as_str(), card["content"]["version"].as_str()),
            (Some("AdaptiveCard"), Some("1.4"))
        );
        let texts: Vec<&str> =
            card["content"]["body"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap()).collect();
        assert_eq!(texts.len(), 4, "headline, two breaches, the time: {texts:?}");
        assert_eq!(texts[0], "🚨 latency-guard alert [critical] Checkout");
        assert!(texts[2].starts_with("mean_ms +119.2%"), "{texts:?}");
        assert_eq!(card["content"]["body"][0]["color"], "Attention");
        assert_eq!(card["content"]["actions"][0]["url"], "http://lg.example/runs/1");
    }
}
