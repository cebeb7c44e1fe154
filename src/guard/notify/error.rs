//! How sending a notification fails, typed: the text of each is what the delivery log and the server log show.

use crate::outbound::AddressError;
use crate::store::StoreError;

/// Why a message could not be signed.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// The `whsec_` secret is not base64.
    #[error("the signing secret is not base64: {0}")]
    NotBase64(#[from] base64::DecodeError),
}

/// Why one webhook attempt failed.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The stored URL does not parse.
    #[error("not a URL: {0}")]
    NotAUrl(#[from] url::ParseError),
    /// The receiver's address was refused or not found.
    #[error(transparent)]
    Address(#[from] AddressError),
    /// The schedule's signing secret could not be read.
    #[error("the schedule's signing secret could not be read: {0}")]
    Secret(StoreError),
    /// The schedule's PagerDuty routing key could not be read (none is stored, or it does not open).
    #[error("the schedule's PagerDuty routing key could not be read: {0}")]
    RoutingKey(StoreError),
    /// A stored body is not the JSON object it was written as.
    #[error("the stored message is not JSON: {0}")]
    Body(serde_json::Error),
    /// The message could not be signed.
    #[error(transparent)]
    Sign(#[from] SignError),
    /// The HTTP client could not be built.
    #[error("{0}")]
    Client(reqwest::Error),
    /// No response came.
    #[error("no response: {0}")]
    NoResponse(reqwest::Error),
    /// The receiver answered with a status other than 2xx.
    #[error("HTTP {status}: {excerpt}")]
    Refused {
        /// The reply's status.
        status: reqwest::StatusCode,
        /// The start of the reply's body.
        excerpt: String,
    },
}

impl DeliveryError {
    /// The HTTP status of the reply, when one came.
    pub fn status(&self) -> Option<u16> {
        match self {
            DeliveryError::Refused { status, .. } => Some(status.as_u16()),
            _ => None,
        }
    }
}

/// Why alert e-mail could not be set up or sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The `smtp-url` setting is not usable (the error never quotes the URL, which may hold a password).
    #[error("smtp-url is not usable ({0}); expected smtp://host:port or smtps://user:pass@host")]
    SmtpUrl(lettre::transport::smtp::Error),
    /// The `smtp-from` setting is not an address.
    #[error("smtp-from {address:?} is not an address: {source}")]
    From {
        /// The text given.
        address: String,
        /// Why.
        source: lettre::address::AddressError,
    },
    /// A recipient is not an address.
    #[error("{address:?} is not an address: {source}")]
    Address {
        /// The text given.
        address: String,
        /// Why.
        source: lettre::address::AddressError,
    },
    /// The message could not be built.
    #[error("{0}")]
    Message(#[from] lettre::error::Error),
    /// The SMTP server did not take it.
    #[error("SMTP: {0}")]
    Smtp(lettre::transport::smtp::Error),
}

/// Why a test message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    /// The schedule has no webhook.
    #[error("the schedule has no webhook URL")]
    NoUrl,
    /// The outbox could not be written or read.
    #[error(transparent)]
    Store(#[from] StoreError),
}
