//! What can go wrong where the browser acts for a person — a download made, a file uploaded, a report fetched with
//! a share token, a wallet asked to sign — as one type. Its words are shown as they are, so each says what happened
//! and, where there is one, what to do.

use crate::error::AppError;

/// Why something the page did in the browser did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrowserError {
    /// A server function refused or failed.
    #[error(transparent)]
    Server(#[from] AppError),
    /// The server answered a request the page made itself with a refusal: its reason, or its status.
    #[error("{0}")]
    Refused(String),
    /// The server could not be reached, or what it sent could not be read.
    #[error("{0}")]
    Unreachable(String),
    /// The browser, or a wallet in it, could not or would not do it, in its words.
    #[error("{0}")]
    Browser(String),
    /// The person must do something first (choose a file, copy the whole link, install a wallet).
    #[error("{0}")]
    NeedsAction(&'static str),
    /// Done only in the browser: the server's render never asks for it.
    #[error("{0} in the browser")]
    OnlyInTheBrowser(&'static str),
}
