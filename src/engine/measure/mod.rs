//! One measured request. Instants are taken when bytes arrive, before any parsing, on a monotonic clock; every
//! failure becomes the measurement's `error` with its timings kept, never a panic or a lost iteration. The
//! request goes through the engine's own HTTP/1.1 client or reqwest (`HttpClient::route`); both feed the same
//! reading (`reading.rs`) into the same record (`recorder.rs`).

mod reading;
mod recorder;
mod via_http1;
mod via_reqwest;

use std::time::Duration;
use tokio::time::Instant;

use super::connection_test::{HttpClient, Route};
use super::http1::Connections;
use super::request::{ChatRequest, RequestTarget};
use crate::model::{ConnectionPolicy, ErrorClass, Measurement, RetriedAttempt, RetryCause};
use recorder::Recorder;
pub use recorder::MAX_CHUNK_MARKS;

/// Characters per token for estimates when the server reports no usage.
const CHARS_PER_TOKEN: usize = 4;

/// The most of an error's text kept (after secrets were scrubbed from the whole of it).
pub const ERROR_DETAIL_CHARS: usize = 300;

/// The most of an error reply's body read: its first [`ERROR_DETAIL_CHARS`] characters are all that is kept, and
/// an endless error body must not exhaust memory.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// The largest non-streamed completion accepted: a chat completion of 8,192 tokens (the largest `max_tokens` a
/// run may ask for) is about 100 KiB, so this leaves ten times that, and 2,048 requests in flight hold at most
/// 2 GiB however large the bodies an endpoint sends.
pub const MAX_COMPLETION_BODY_BYTES: usize = 1024 * 1024;

/// A request to measure.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// Where to send it.
    pub target: &'a RequestTarget,
    /// The body (its `stream` decides streaming).
    pub request: &'a ChatRequest,
    /// Limit for the whole request, headers to last byte.
    pub timeout: Duration,
    /// When the schedule wanted it sent (equal to now for closed loops).
    pub intended: Instant,
}

/// Whether an error reply says the endpoint rejects `stream_options` (then the caller retries without it).
pub fn rejects_stream_options(measurement: &Measurement) -> bool {
    matches!(measurement.status, Some(400 | 422))
        && measurement.error.as_ref().is_some_and(|e| e.detail.contains("stream_options"))
}

/// Sends `call` and measures it. A request lost because the server closed a reused connection before answering
/// is sent once more at once on a fresh connection, timed from that send; the lost attempt is kept in `retried`.
pub async fn measure(client: &HttpClient, call: Call<'_>) -> Measurement {
    let route = match client.route(call.target, "chat/completions") {
        Ok(route) => route,
        Err(refusal) => {
            let mut refused = Recorder::new(Instant::now(), call.intended, call.request.stream, false);
            refused.fail(ErrorClass::Connect, refusal.to_string());
            return refused.finish(prompt_chars(call.request));
        }
    };
    let reuse = client.policy() == ConnectionPolicy::Reuse;
    let first = attempt(&route, if reuse { Connections::Kept } else { Connections::Fresh }, &call).await;
    let measurement = if first.lost_to_keep_alive_race && reuse {
        let lost = RetriedAttempt {
            cause: RetryCause::ClosedConnection,
            status: None,
            total_ms: first.offset(Instant::now()) as f64 / 1e3,
            waited_ms: 0.0,
        };
        let mut again = attempt(&route, Connections::Fresh, &call).await.finish(prompt_chars(call.request));
        again.retried.insert(0, lost);
        again
    } else {
        first.finish(prompt_chars(call.request))
    };
    scrubbed(measurement, call.target)
}

/// The measurement of a request that could not be made (its prompt could not be cut, …): a failure of class
/// `Request` with `detail`, due at `intended`, with nothing sent.
pub fn unsent(intended: Instant, streamed: bool, detail: impl Into<String>) -> Measurement {
    let mut recorder = Recorder::new(Instant::now(), intended, streamed, false);
    recorder.fail(ErrorClass::Request, detail);
    recorder.finish(0)
}

/// One attempt: sent by `route`'s client on a kept or a fresh connection, read until the end, the failure or the
/// timeout.
async fn attempt(route: &Route<'_>, connections: Connections, call: &Call<'_>) -> Recorder {
    let sent = Instant::now();
    let mut recorder = Recorder::new(sent, call.intended, call.request.stream, call.request.keep_answer);
    let exchange = async {
        match route {
            Route::Own { client, destination } => {
                via_http1::exchange(client, destination, connections, call, &mut recorder).await;
            }
            Route::Reqwest { pooled, fresh, url } => {
                let client = if connections == Connections::Kept { pooled } else { fresh };
                via_reqwest::exchange(client, url, call, &mut recorder).await;
            }
        }
    };
    if tokio::time::timeout(call.timeout, exchange).await.is_err() {
        recorder.fail(ErrorClass::Timeout, format!("no complete response within {} ms", call.timeout.as_millis()));
    }
    recorder
}

/// The one place error texts leave the engine: secrets go before the cut, so none survives as a prefix.
fn scrubbed(mut measurement: Measurement, target: &RequestTarget) -> Measurement {
    if let Some(error) = &mut measurement.error {
        error.detail = target.redactor().scrub_and_clip(&error.detail, ERROR_DETAIL_CHARS);
    }
    measurement
}

/// Measures `request`; when the endpoint rejects `stream_options`, drops the field from `request` (so the caller
/// sees it went, and can leave it off later requests) and measures again.
pub async fn measure_dropping_rejected_stream_options(
    client: &HttpClient,
    target: &RequestTarget,
    request: &mut ChatRequest,
    timeout: Duration,
    intended: Instant,
) -> Measurement {
    let first = measure(client, Call { target, request, timeout, intended }).await;
    if request.stream_options.is_none() || !rejects_stream_options(&first) {
        return first;
    }
    request.stream_options = None;
    measure(client, Call { target, request, timeout, intended }).await
}

fn prompt_chars(request: &ChatRequest) -> usize {
    request.messages.iter().map(|m| m.content.chars().count()).sum()
}
