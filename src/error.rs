//! The one error type the browser sees. Internal details are logged on the server and never sent.

use leptos::prelude::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::model::ValidationError;

/// What a server function can fail with, as the UI and API clients see it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "camelCase")]
pub enum AppError {
    /// The thing does not exist in this workspace (or at all; the two are not told apart).
    #[error("not found")]
    NotFound,
    /// An input field is invalid.
    #[error("invalid input: {0}")]
    Invalid(ValidationError),
    /// No valid session.
    #[error("not logged in")]
    Unauthorized,
    /// Logged in, but this credential may not do this (e.g. an API token managing API tokens).
    #[error("not allowed: {0}")]
    Forbidden(String),
    /// Something failed on the server; details are in the server log only.
    #[error("internal error (see the server log)")]
    Internal,
    /// The request itself could not be decoded or sent.
    #[error("request failed: {0}")]
    Request(String),
}

impl From<ValidationError> for AppError {
    fn from(e: ValidationError) -> Self {
        Self::Invalid(e)
    }
}

impl FromServerFnError for AppError {
    type Encoder = crate::wire::JsonWire;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        // Decoding failures of the input name what was wrong (wrong type, missing field), which a caller needs;
        // they also quote the offending value, which can be megabytes: the reply keeps an excerpt.
        Self::Request(excerpt(&value.to_string()))
    }
}

/// Characters kept from the start and from the end of a long message.
const EXCERPT_HEAD: usize = 200;
const EXCERPT_TAIL: usize = 100;

/// `text` whole when short; else its start and its end (where serde says what was expected) around an ellipsis.
fn excerpt(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= EXCERPT_HEAD + EXCERPT_TAIL + 20 {
        return text.to_string();
    }
    let head: String = text.chars().take(EXCERPT_HEAD).collect();
    let tail: String = text.chars().skip(chars - EXCERPT_TAIL).collect();
    format!("{head} … [{} characters left out] … {tail}", chars - EXCERPT_HEAD - EXCERPT_TAIL)
}

impl AppError {
    /// The HTTP status a reply carrying this error gets.
    pub fn status_code(&self) -> http::StatusCode {
        use http::StatusCode;
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::Invalid(_) | Self::Request(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoding_error_quoting_a_huge_value_keeps_an_excerpt_with_what_was_expected() {
        let message = format!("id: invalid type: string \"{}\", expected a UUID", "x".repeat(100_000));
        let AppError::Request(reply) = AppError::from_server_fn_error(ServerFnErrorErr::Args(message)) else {
            panic!("a request error")
        };
        assert!(reply.len() < 400, "{} bytes", reply.len());
        assert!(reply.contains("id: invalid type: string") && reply.ends_with("expected a UUID"), "{reply}");
        assert!(reply.contains("characters left out"));
        let short = "id: invalid type: integer `5`, expected a string";
        assert_eq!(excerpt(short), short);
    }
}
