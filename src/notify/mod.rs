//! Telling people: the alert message every channel shares (webhook body and text), webhook delivery from the
//! outbox, and batched e-mail.

mod email;
mod message;
mod webhook;

pub use email::{MailedAlert, Mailer};
pub use message::{is_discord, test_message_body, AlertMessage, EVENT_TYPE};
pub use webhook::{checked_address, is_internal, new_webhook_secret, sign, AllowList, WebhookSender, RETRY_DELAYS_S};
