//! Telling people: the alert message every channel shares (webhook body and text), webhook delivery from the
//! outbox, and batched e-mail.

mod message;

pub use message::{is_discord, AlertMessage, EVENT_TYPE};
