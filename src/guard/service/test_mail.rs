//! A test e-mail, sent now, to everyone a schedule's alert e-mail goes to: a user checks the addresses and the
//! server's SMTP settings before an alert depends on them, and reads each recipient's answer on the page.

use super::tick::Guard;
use crate::guard::model::Schedule;
use crate::model::WorkspaceId;

/// Why no test e-mail was sent.
#[derive(Debug, thiserror::Error)]
pub enum TestMailError {
    /// The server has no SMTP server configured.
    #[error("e-mail is off on this server: its operator must set smtp-url")]
    Off,
    /// The schedule mails no one.
    #[error(
        "this schedule e-mails no one: give it an address, or have it mail the workspace owner (who needs a confirmed \
         contact address, under Settings)"
    )]
    NoRecipient,
}

impl Guard {
    /// Sends `schedule`'s test e-mail to each of its recipients now; each recipient with the SMTP server's refusal,
    /// if it refused.
    pub async fn send_test_mail(
        &self,
        workspace: WorkspaceId,
        schedule: &Schedule,
    ) -> Result<Vec<(String, Option<String>)>, TestMailError> {
        let mail = self.mail().ok_or(TestMailError::Off)?;
        let recipients = self.recipients(workspace, schedule).await;
        if recipients.is_empty() {
            return Err(TestMailError::NoRecipient);
        }
        let name = &schedule.input.name;
        let subject = format!("latency-guard: a test message for \"{name}\"");
        let body = format!(
            "This is a test message from latency-guard, sent because someone asked for one on the page of the Guard \
             schedule \"{name}\".\n\nWhen one of its thresholds is breached, its alerts arrive at this address like \
             this message did. Nothing needs doing.\n"
        );
        let mut sent = Vec::with_capacity(recipients.len());
        for to in recipients {
            let refused = mail.send_now(&to, &subject, &body).await.err().map(|e| e.to_string());
            match &refused {
                None => tracing::info!(%workspace, schedule = %schedule.id, "test e-mail sent"),
                Some(error) => tracing::warn!(%workspace, schedule = %schedule.id, %error, "test e-mail refused"),
            }
            sent.push((to, refused));
        }
        Ok(sent)
    }
}
