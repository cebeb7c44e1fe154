//! Telling people: the alert message every channel shares (webhook body and text), and delivery from the
//! outboxes (signed webhooks, batched e-mail), each retried on one schedule. A webhook pass sends many messages at
//! once in turns across workspaces (`turns`); Send test is limited per workspace ([`TEST_MESSAGE_BUDGET`]).

mod email;
mod error;
mod message;
mod receivers;
mod retry;
mod turns;
mod webhook;

pub use email::{MailSender, MailedAlert, Mailer};
pub use error::{DeliveryError, MailError, SignError, TestError};
pub use message::{
    is_discord, new_message_id, opened_line, test_message_body, AlertMessage, CANNOT_MEASURE_TYPE, EVENT_TYPE,
    MEASURABLE_TYPE, RECOVERED_TYPE,
};
pub use receivers::{bodies, resolve_event, with_routing_key};
pub use retry::{next_step, RETRY_DELAYS_S};
pub use webhook::{new_webhook_secret, sign, WebhookSender, TEST_MESSAGE_BUDGET};
