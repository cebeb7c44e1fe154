//! A response's body as it arrives on the connection, framed as its head said: the bytes of each read are handed on
//! as slices of the connection's buffer (a chunked body's data between its framing), and the connection goes back to
//! the pool only when the body was read to its end and the server keeps it open.

use std::ops::ControlFlow;
use std::sync::Arc;
use tokio::time::Instant;

use super::chunked::ChunkedDecoder;
use super::connection::Connection;
use super::error::BodyError;
use super::pool::{Pool, PoolKey};
use super::response_head::Framing;

/// Where a body's reading stands.
#[derive(Debug)]
enum Remaining {
    /// A chunked body, decoded in place.
    Chunked(ChunkedDecoder),
    /// This many bytes of a body with a length.
    Bytes(u64),
    /// Everything until the server closes.
    UntilClose,
    /// The body ended.
    Ended,
}

/// Where a kept connection goes back.
#[derive(Debug)]
pub struct Return {
    /// The pool.
    pub pool: Arc<Pool>,
    /// Its place in it.
    pub key: PoolKey,
}

/// A response body being read.
#[derive(Debug)]
pub struct Body {
    connection: Option<Connection>,
    remaining: Remaining,
    /// The instant the bytes waiting in the buffer arrived (the head's read, for the body's start).
    waiting_since: Option<Instant>,
    /// Where the connection goes when the body ended (`None`: it closes).
    keep: Option<Return>,
}

impl Body {
    /// The body after a head with `framing`, whose first bytes (if any) came with the head at `head_at`.
    pub fn new(connection: Connection, framing: Framing, head_at: Instant, keep: Option<Return>) -> Self {
        let remaining = match framing {
            Framing::Empty | Framing::Length(0) => Remaining::Ended,
            Framing::Length(length) => Remaining::Bytes(length),
            Framing::Chunked => Remaining::Chunked(ChunkedDecoder::new()),
            Framing::UntilClose => Remaining::UntilClose,
        };
        let waiting_since = (!connection.unread().is_empty()).then_some(head_at);
        let mut body = Self { connection: Some(connection), remaining, waiting_since, keep };
        body.release_if_ended();
        body
    }

    /// Waits for more of the body: the instant its bytes arrived, or `None` at the body's end.
    pub async fn arrive(&mut self) -> Result<Option<Instant>, BodyError> {
        if let Some(at) = self.waiting_since.take() {
            return Ok(Some(at));
        }
        if matches!(self.remaining, Remaining::Ended) {
            return Ok(None);
        }
        let Some(connection) = self.connection.as_mut() else { return Ok(None) };
        match connection.receive().await {
            Ok(None) if matches!(self.remaining, Remaining::UntilClose) => {
                self.remaining = Remaining::Ended;
                Ok(None)
            }
            Ok(None) => Err(BodyError::ClosedEarly),
            Ok(Some(at)) => Ok(Some(at)),
            Err(e) => Err(BodyError::Broken(e)),
        }
    }

    /// Hands the body's bytes that arrived to `on_data`, in order, until it breaks.
    pub fn hand_on(&mut self, mut on_data: impl FnMut(&[u8]) -> ControlFlow<()>) -> Result<ControlFlow<()>, BodyError> {
        let Some(connection) = self.connection.as_mut() else { return Ok(ControlFlow::Continue(())) };
        let unread = connection.unread();
        let (taken, flow) = match &mut self.remaining {
            Remaining::Chunked(decoder) => {
                let fed = decoder.feed(unread, on_data).map_err(BodyError::Chunked)?;
                if decoder.is_done() {
                    self.remaining = Remaining::Ended;
                }
                (fed.consumed, fed.flow)
            }
            Remaining::Bytes(left) => {
                let take = usize::try_from(*left).map_or(unread.len(), |left| left.min(unread.len()));
                *left -= take as u64;
                if *left == 0 {
                    self.remaining = Remaining::Ended;
                }
                (take, on_data(&unread[..take]))
            }
            Remaining::UntilClose => (unread.len(), on_data(unread)),
            Remaining::Ended => (0, ControlFlow::Continue(())),
        };
        connection.take(taken);
        if flow.is_continue() {
            self.release_if_ended();
        }
        Ok(flow)
    }

    /// A body read to its end gives its connection back to the pool at once, so the next request can take it.
    fn release_if_ended(&mut self) {
        if !matches!(self.remaining, Remaining::Ended) {
            return;
        }
        if let (Some(keep), Some(connection)) = (self.keep.take(), self.connection.take()) {
            if let Some(connection) = connection.ready_for_reuse() {
                keep.pool.put(keep.key, connection);
            }
        }
    }
}
