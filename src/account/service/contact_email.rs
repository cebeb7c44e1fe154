//! The owner's contact address for alert e-mail, proven by a one-time link: the link's text (its token kept only
//! as a keyed hash), and following it. Sending the message is the caller's (it has the mailer).

use crate::model::{is_one_email_address, ValidationError, WorkspaceId};
use crate::secrets::{RandomToken, TokenHasher};
use crate::store::{Store, StoreError};

/// How long a verification link works.
pub const CONTACT_LINK_TTL_MS: i64 = 24 * 3600 * 1000;

/// Verification e-mails one workspace may ask for: 3 at once, then one every 10 minutes.
pub const CONTACT_LINK_BUDGET: crate::rate_limit::Budget =
    crate::rate_limit::Budget { burst: 3.0, refill: std::time::Duration::from_secs(600) };

/// The path a verification link opens.
pub const CONTACT_LINK_PATH: &str = "/auth/contact/verify";

/// A verification message to send.
pub struct ContactMessage {
    /// The address to prove.
    pub to: String,
    /// Its subject.
    pub subject: String,
    /// Its text, the link inside (a secret: never log it).
    pub body: String,
}

/// Why a verification could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ContactError {
    /// Not one e-mail address, or a wallet's own identity.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The database failed.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// `email` trimmed, if it can be a contact address: one plausible address, not a wallet's sign-in identity.
pub fn contact_address(email: &str) -> Result<String, ValidationError> {
    let email = email.trim();
    if !is_one_email_address(email) {
        return Err(ValidationError::new("email", format!("not one e-mail address: {email}")));
    }
    if email.to_ascii_lowercase().ends_with("@wallet.local") {
        return Err(ValidationError::new("email", "a wallet's sign-in identity receives no mail; give a real address"));
    }
    Ok(email.to_string())
}

/// Records a verification link for `email` and writes the message that carries it.
pub async fn start_contact_verification(
    store: &Store,
    hasher: &TokenHasher,
    workspace: WorkspaceId,
    email: &str,
    public_base: &str,
    now_ms: i64,
) -> Result<ContactMessage, ContactError> {
    let email = contact_address(email)?;
    let token = RandomToken::generate();
    store
        .insert_contact_verification(
            workspace,
            &email,
            &hasher.hash(token.as_str()),
            now_ms,
            now_ms + CONTACT_LINK_TTL_MS,
        )
        .await?;
    let link = format!("{}{CONTACT_LINK_PATH}?token={}", public_base.trim_end_matches('/'), token.as_str());
    Ok(ContactMessage {
        to: email,
        subject: "latency-guard: confirm this address for alert e-mail".into(),
        body: format!(
            "Someone signed in to latency-guard asked for Guard's alert e-mail to go to this address.\n\n\
             To confirm, open this link within 24 hours (it works once):\n{link}\n\n\
             If this was not you, ignore this message: nothing will be sent here.\n"
        ),
    })
}

/// Follows a verification link: the workspace and the address now confirmed, or `None` for an unknown, used or
/// expired link.
pub async fn confirm_contact_link(
    store: &Store,
    hasher: &TokenHasher,
    token: &str,
    now_ms: i64,
) -> Result<Option<(WorkspaceId, String)>, StoreError> {
    store.confirm_contact(&hasher.hash(token), now_ms).await
}
