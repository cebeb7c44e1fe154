//! Why an exchange over the engine's own HTTP/1.1 client failed, in words a user can act on. The texts never
//! quote a request: it carries credentials.

use std::net::SocketAddr;

use super::chunked::ChunkedError;
use super::response_head::HeadError;
use crate::outbound::{AddressError, Refusal};

/// Why no response head arrived.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The outbound-address policy refused the destination (said alone, in its own words).
    #[error(transparent)]
    Refused(Refusal),
    /// The host could not be resolved.
    #[error("could not connect: {0}")]
    Resolve(AddressError),
    /// No address of the host took a connection (the last one's reason).
    #[error("could not connect to {address}: {source}")]
    Connect {
        /// The last address tried.
        address: SocketAddr,
        /// What the connection attempt met.
        source: std::io::Error,
    },
    /// The request could not be written.
    #[error("the connection broke while the request was sent: {source}")]
    Write {
        /// The connection had carried a response before.
        reused: bool,
        /// What the write met.
        source: std::io::Error,
    },
    /// The server closed or reset the connection before the first byte of a response.
    #[error("the server closed the connection before answering{}", reason(.source))]
    Closed {
        /// The connection had carried a response before.
        reused: bool,
        /// The reset, when it was one (`None`: an orderly close).
        source: Option<std::io::Error>,
    },
    /// The connection closed or broke in the middle of the response head.
    #[error("the connection ended in the middle of the response head{}", reason(.0))]
    CutHead(Option<std::io::Error>),
    /// The head is not an HTTP/1.x response head, or exceeds its bounds.
    #[error(transparent)]
    Head(HeadError),
}

impl SendError {
    /// The request went out on a connection that had carried a response before and was lost before any byte of an
    /// answer: the server's close crossed it on the wire (the keep-alive race), so its handler never saw it. The
    /// caller still judges how soon after the send it failed.
    pub fn lost_on_reused_connection(&self) -> bool {
        matches!(self, Self::Write { reused: true, .. } | Self::Closed { reused: true, .. })
    }

    /// No connection was made (nothing reached the server).
    pub fn is_connect(&self) -> bool {
        matches!(self, Self::Refused(_) | Self::Resolve(_) | Self::Connect { .. })
    }
}

/// Why a response's body could not be read to its end.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The connection broke.
    #[error("the connection broke while the response was read: {0}")]
    Broken(std::io::Error),
    /// The server closed the connection before the body's end (its length, or its last chunk).
    #[error("the server closed the connection before the response's body ended")]
    ClosedEarly,
    /// The chunked framing is broken.
    #[error("the response's chunked framing is broken: {0}")]
    Chunked(ChunkedError),
}

fn reason(source: &Option<std::io::Error>) -> String {
    source.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
}
