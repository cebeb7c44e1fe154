//! Alert e-mail over SMTP (lettre): one message per recipient per tick, listing every alert the tick opened for
//! them. Configured by the `smtp-url` setting (`smtp://host:25`, `smtp://user:pass@host:587?tls=required`,
//! `smtps://user:pass@host:465`) and `smtp-from`; without them e-mail is off and nothing fails.

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// One alert in a message.
#[derive(Debug, Clone, PartialEq)]
pub struct MailedAlert {
    /// The schedule's name.
    pub schedule_name: String,
    /// The alert's two-line text (as in the webhook).
    pub text: String,
    /// The run's report.
    pub run_url: String,
}

/// Sends alert e-mail.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer").field("from", &self.from.to_string()).finish_non_exhaustive()
    }
}

impl Mailer {
    /// A mailer for `smtp_url` sending as `from`; the URL's password never appears in an error.
    pub fn new(smtp_url: &str, from: &str) -> Result<Self, String> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|e| format!("smtp-url is not usable ({e}); expected smtp://host:port or smtps://user:pass@host"))?
            .build();
        let from = from.parse::<Mailbox>().map_err(|e| format!("smtp-from {from:?} is not an address: {e}"))?;
        Ok(Self { transport, from })
    }

    /// Sends one message to `to` listing `alerts`.
    pub async fn send(&self, to: &str, alerts: &[MailedAlert]) -> Result<(), String> {
        let to = to.parse::<Mailbox>().map_err(|e| format!("{to:?} is not an address: {e}"))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject(alerts))
            .body(body(alerts))
            .map_err(|e| e.to_string())?;
        self.transport.send(message).await.map(|_| ()).map_err(|e| format!("SMTP: {e}"))
    }
}

/// `latency-guard: 2 new alerts (Checkout p95, Search)`.
pub fn subject(alerts: &[MailedAlert]) -> String {
    let mut names: Vec<&str> = alerts.iter().map(|a| a.schedule_name.as_str()).collect();
    names.dedup();
    match alerts.len() {
        1 => format!("latency-guard: new alert ({})", names.join(", ")),
        n => format!("latency-guard: {n} new alerts ({})", names.join(", ")),
    }
}

/// Each alert's text and report link, then how to stop them.
pub fn body(alerts: &[MailedAlert]) -> String {
    let mut text = String::new();
    for alert in alerts {
        text.push_str(&format!("{}\nReport: {}\n\n", alert.text, alert.run_url));
    }
    text.push_str("Acknowledge alerts in latency-guard's Guard feed. They open once per threshold and stay open until acknowledged;\n");
    text.push_str("another breach of the same threshold meanwhile sends nothing new.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(name: &str) -> MailedAlert {
        MailedAlert {
            schedule_name: name.into(),
            text: format!("🚨 latency-guard alert [warn] {name}\np95_ms +50.0%"),
            run_url: "http://lg/runs/1".into(),
        }
    }

    #[test]
    fn one_message_lists_every_alert() {
        let alerts = [alert("Checkout"), alert("Search")];
        assert_eq!(subject(&alerts), "latency-guard: 2 new alerts (Checkout, Search)");
        assert_eq!(subject(&alerts[..1]), "latency-guard: new alert (Checkout)");
        let text = body(&alerts);
        assert!(
            text.contains("[warn] Checkout\np95_ms +50.0%\nReport: http://lg/runs/1") && text.contains("[warn] Search")
        );
    }

    #[test]
    fn bad_settings_are_named() {
        assert!(Mailer::new("ftp://x", "a@b.c").unwrap_err().contains("smtp-url"));
        assert!(Mailer::new("smtp://127.0.0.1:2525", "not an address").unwrap_err().contains("smtp-from"));
        assert!(Mailer::new("smtp://127.0.0.1:2525", "Guard <guard@example.com>").is_ok());
    }
}
