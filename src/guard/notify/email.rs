//! Alert e-mail over SMTP (lettre): one message per recipient per tick, listing every notice the tick made for
//! them (one per evaluation: the thresholds it breached together are one item), written to the mail outbox and sent from there — at once, and again on the webhooks' schedule while
//! the SMTP server fails. Configured by the `smtp-url` setting (`smtp://host:25`,
//! `smtp://user:pass@host:587?tls=required`, `smtps://user:pass@host:465`) and `smtp-from`; without them e-mail is
//! off and nothing fails.

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::sync::Arc;
use std::time::Duration;

use super::error::MailError;
use super::retry::{every, next_step, BATCH, LEASE_MS};
use crate::clock::Clock;
use crate::guard::store::QueuedMail;
use crate::store::{Store, StoreError};

/// One alert in a message.
#[derive(Debug, Clone, PartialEq)]
pub struct MailedAlert {
    /// The schedule's name.
    pub schedule_name: String,
    /// The notice's text: its headline, every figure and, for an alert, why.
    pub text: String,
    /// The run's report (the schedule's page when there is no run to show).
    pub report_url: String,
    /// It opens an alert (else: a recovery, "cannot measure", or measuring again).
    pub opens: bool,
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
    pub fn new(smtp_url: &str, from: &str) -> Result<Self, MailError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url).map_err(MailError::SmtpUrl)?.build();
        let from = from.parse::<Mailbox>().map_err(|source| MailError::From { address: from.into(), source })?;
        Ok(Self { transport, from })
    }

    /// Sends one message.
    async fn send(&self, mail: &QueuedMail) -> Result<(), MailError> {
        let to = mail
            .recipient
            .parse::<Mailbox>()
            .map_err(|source| MailError::Address { address: mail.recipient.clone(), source })?;
        let message =
            Message::builder().from(self.from.clone()).to(to).subject(mail.subject.clone()).body(mail.body.clone())?;
        self.transport.send(message).await.map(|_| ()).map_err(MailError::Smtp)
    }
}

/// Writes alert e-mail to the outbox and sends what is due. Cheap to clone.
#[derive(Clone)]
pub struct MailSender {
    store: Store,
    mailer: Mailer,
    clock: Arc<dyn Clock>,
}

impl MailSender {
    /// A sender through `mailer` over the shared store and clock.
    pub fn new(store: Store, mailer: Mailer, clock: Arc<dyn Clock>) -> Self {
        Self { store, mailer, clock }
    }

    /// Writes one message to `to` listing `alerts`, due at once; its id.
    pub async fn queue(&self, to: &str, alerts: &[MailedAlert]) -> Result<String, StoreError> {
        let mail = QueuedMail {
            id: format!("mail_{}", uuid::Uuid::new_v4().simple()),
            recipient: to.to_string(),
            subject: subject(alerts),
            body: body(alerts),
            attempts: 0,
        };
        self.store.queue_mail(&mail, self.clock.now_ms()).await?;
        Ok(mail.id)
    }

    /// Sends one message now, outside the outbox: for a verification link, whose sender waits for the answer and
    /// whose link must not sit in the database.
    pub async fn send_now(&self, to: &str, subject: &str, body: &str) -> Result<(), MailError> {
        let mail = QueuedMail {
            id: format!("direct_{}", uuid::Uuid::new_v4().simple()),
            recipient: to.to_string(),
            subject: subject.to_string(),
            body: body.to_string(),
            attempts: 0,
        };
        self.mailer.send(&mail).await
    }

    /// One pass: leases the due messages and attempts each once. Returns how many were sent.
    pub async fn deliver_due(&self) -> Result<usize, StoreError> {
        let mut sent = 0;
        for mail in self.store.lease_due_mail(self.clock.now_ms(), LEASE_MS, BATCH).await? {
            let result = self.mailer.send(&mail).await;
            let at_ms = self.clock.now_ms();
            let outcome = next_step(result.is_ok(), mail.attempts, at_ms);
            crate::telemetry::counters().mail_attempt(outcome.label());
            match &result {
                Ok(()) => tracing::info!(mail = %mail.id, "alert e-mail sent"),
                Err(e) => tracing::warn!(mail = %mail.id, error = %e, ?outcome, "alert e-mail failed"),
            }
            let error = result.as_ref().err().map(ToString::to_string);
            self.store.record_mail_attempt(&mail, at_ms, error.as_deref(), outcome).await?;
            sent += usize::from(result.is_ok());
        }
        Ok(sent)
    }

    /// Sends what is due every `interval` until the process ends.
    pub async fn deliver_forever(self, interval: Duration) {
        every(interval, "mail delivery pass", || self.deliver_due()).await;
    }
}

/// `latency-guard: 2 new alerts (Checkout p95, Search)`; `notices` when some are not new alerts (recoveries).
pub fn subject(alerts: &[MailedAlert]) -> String {
    let mut names: Vec<&str> = alerts.iter().map(|a| a.schedule_name.as_str()).collect();
    names.dedup();
    let what = if alerts.iter().all(|a| a.opens) { "new alert" } else { "notice" };
    match alerts.len() {
        1 => format!("latency-guard: {what} ({})", names.join(", ")),
        n => format!("latency-guard: {n} {what}s ({})", names.join(", ")),
    }
}

/// Each alert's text and report link, then how to stop them.
pub fn body(alerts: &[MailedAlert]) -> String {
    let mut text = String::new();
    for alert in alerts {
        text.push_str(&format!("{}\nReport: {}\n\n", alert.text, alert.report_url));
    }
    text.push_str("Acknowledge alerts in latency-guard's Guard feed. Every threshold one evaluation breached is one alert here;\n");
    text.push_str("it stays open until acknowledged, even after a recovered notice, and another breach meanwhile sends nothing new.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(name: &str) -> MailedAlert {
        MailedAlert {
            schedule_name: name.into(),
            text: format!("🚨 latency-guard alert [warn] {name}\np95_ms +50.0%"),
            report_url: "http://lg/runs/1".into(),
            opens: true,
        }
    }

    #[test]
    fn one_message_lists_every_alert() {
        let alerts = [alert("Checkout"), alert("Search")];
        assert_eq!(subject(&alerts), "latency-guard: 2 new alerts (Checkout, Search)");
        assert_eq!(subject(&alerts[..1]), "latency-guard: new alert (Checkout)");
        let recovered = MailedAlert { opens: false, ..alert("Checkout") };
        assert_eq!(subject(&[alerts[1].clone(), recovered]), "latency-guard: 2 notices (Search, Checkout)");
        let text = body(&alerts);
        assert!(
            text.contains("[warn] Checkout\np95_ms +50.0%\nReport: http://lg/runs/1") && text.contains("[warn] Search")
        );
    }

    #[test]
    fn bad_settings_are_named() {
        assert!(Mailer::new("ftp://x", "a@b.c").unwrap_err().to_string().contains("smtp-url"));
        assert!(Mailer::new("smtp://127.0.0.1:2525", "not an address").unwrap_err().to_string().contains("smtp-from"));
        assert!(Mailer::new("smtp://127.0.0.1:2525", "Guard <guard@example.com>").is_ok());
    }
}
