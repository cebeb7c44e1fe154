//! Reading a response into a [`Recorder`], whichever client brought it: its head's fields, then its body as an
//! event stream, a completion or an error's text. Each read is timed when it returned, before any parsing.

use tokio::time::Instant;

use super::recorder::Recorder;
use crate::engine::chunk::{Identity, Indexed, RawBody, RawDelta};
use crate::engine::sse::{Flow, SseDecoder};
use crate::model::{EngineTimings, ErrorClass, ServerTiming};

/// Why a body could not be read on: the class and the words its measurement keeps.
#[derive(Debug)]
pub(super) struct ReadFailure {
    pub(super) class: ErrorClass,
    pub(super) detail: String,
}

/// A response's body as it arrives.
pub(super) trait BodySource {
    /// Waits for more of the body: the instant its bytes arrived, or `None` at its end.
    async fn arrive(&mut self) -> Result<Option<Instant>, ReadFailure>;
    /// Hands the bytes that arrived to `on_data`, in order, until it breaks.
    fn hand_on(&mut self, on_data: impl FnMut(&[u8]) -> Flow) -> Result<Flow, ReadFailure>;
}

/// Keeps what a response's head says: its status, when it arrived, the simulator's receive time, the server's
/// name and the wait a refusal asks for.
pub(super) fn read_head(recorder: &mut Recorder, status: u16, headers: &http::HeaderMap, at: Instant) {
    recorder.timeline.headers_us = Some(recorder.offset(at));
    recorder.server_timing = headers
        .get("x-sim-received-us")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .map(|received_us| ServerTiming { received_us, first_output_sent_us: None });
    recorder.answered_by.server =
        headers.get(http::header::SERVER).and_then(|v| v.to_str().ok()).map(crate::model::AnsweredBy::raw);
    recorder.status = Some(status);
    recorder.retry_after_ms = retry_after_ms(headers);
}

/// The wait a reply asks for: `retry-after-ms` (float ms) first, then `retry-after` in seconds.
fn retry_after_ms(headers: &http::HeaderMap) -> Option<u64> {
    let number = |name: &str| {
        headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
    };
    number("retry-after-ms").or_else(|| number("retry-after").map(|s| s * 1e3)).map(|ms| ms.round() as u64)
}

/// Reads the rest of a response whose head was read: an error's text, an event stream or a completion.
pub(super) async fn read_rest(body: &mut impl BodySource, recorder: &mut Recorder, streamed: bool) {
    let status = recorder.status.unwrap_or_default();
    if !(200..300).contains(&status) {
        let body = read_body(body, recorder, super::MAX_ERROR_BODY_BYTES).await;
        return recorder.fail(ErrorClass::Http, String::from_utf8_lossy(&body.bytes));
    }
    if streamed {
        return read_stream(body, recorder).await;
    }
    let body = read_body(body, recorder, super::MAX_COMPLETION_BODY_BYTES).await;
    if body.cut {
        recorder.fail(
            ErrorClass::TooLarge,
            format!("the response body exceeded {} MiB; reading stopped there", super::MAX_COMPLETION_BODY_BYTES >> 20),
        );
    } else if recorder.error.is_none() {
        read_completion(&body.bytes, recorder);
    }
}

/// A body read up to a limit.
struct Body {
    bytes: Vec<u8>,
    /// More was coming when the limit was reached; the rest was not read.
    cut: bool,
}

/// Reads the body up to `limit` bytes, recording the first byte; a broken connection is recorded.
async fn read_body(source: &mut impl BodySource, recorder: &mut Recorder, limit: usize) -> Body {
    let mut body = Body { bytes: Vec::new(), cut: false };
    loop {
        let at = match source.arrive().await {
            Ok(Some(at)) => at,
            Ok(None) => return body,
            Err(failure) => {
                recorder.fail(failure.class, failure.detail);
                return body;
            }
        };
        recorder.timeline.first_byte_us.get_or_insert(recorder.offset(at));
        let handed = source.hand_on(|data| {
            let room = limit - body.bytes.len();
            if data.len() > room {
                body.bytes.extend_from_slice(&data[..room]);
                body.cut = true;
                return Flow::Break(());
            }
            body.bytes.extend_from_slice(data);
            Flow::Continue(())
        });
        match handed {
            Ok(Flow::Continue(())) => {}
            Ok(Flow::Break(())) => return body,
            Err(failure) => {
                recorder.fail(failure.class, failure.detail);
                return body;
            }
        }
    }
}

/// A non-streamed body: `choices[0].message.content` (and reasoning) and `usage`.
fn read_completion(body: &[u8], recorder: &mut Recorder) {
    #[derive(serde::Deserialize)]
    struct Choice<'a> {
        #[serde(default)]
        index: u32,
        #[serde(default, borrow)]
        message: Option<RawDelta<'a>>,
        #[serde(default)]
        finish_reason: Option<String>,
    }
    impl Indexed for Choice<'_> {
        fn index(&self) -> u32 {
            self.index
        }
    }
    let completion: RawBody<'_, Choice<'_>> = match serde_json::from_slice(body) {
        Ok(c) => c,
        Err(e) => return recorder.fail(ErrorClass::Malformed, format!("response is not a chat completion: {e}")),
    };
    if let Some(error) = completion.error.filter(|e| !e.is_null()) {
        return recorder.fail(ErrorClass::StreamError, error.to_string());
    }
    recorder.read_identity(&Identity { model: completion.model, system_fingerprint: completion.system_fingerprint });
    recorder.usage = completion.usage;
    recorder.engine_timings = completion.timings.as_ref().and_then(EngineTimings::from_llama_cpp);
    if let Some(choice) = completion.choice.0 {
        recorder.finish_reason = choice.finish_reason;
        if let Some(mut message) = choice.message {
            recorder.output_chars = message.content_chars() + message.reasoning_chars();
            if let (Some(answer), Some(content)) = (recorder.answer.as_mut(), message.take_content()) {
                *answer = content.into_owned();
            }
        }
    }
}

/// A streamed body: SSE events, timed at arrival and read where they arrived.
async fn read_stream(source: &mut impl BodySource, recorder: &mut Recorder) {
    let mut decoder = SseDecoder::new();
    loop {
        let at = match source.arrive().await {
            Ok(Some(at)) => recorder.offset(at),
            Ok(None) => break,
            Err(failure) => return recorder.fail(failure.class, failure.detail),
        };
        recorder.timeline.first_byte_us.get_or_insert(at);
        let mut broken = None;
        let handed = source.hand_on(|data| match decoder.feed(data, |event| recorder.on_event(at, event)) {
            Ok(flow) => flow,
            Err(e) => {
                broken = Some(e);
                Flow::Break(())
            }
        });
        if let Some(e) = broken {
            return recorder.fail(ErrorClass::Malformed, e.to_string());
        }
        match handed {
            Ok(Flow::Continue(())) => {}
            Ok(Flow::Break(())) => return,
            Err(failure) => return recorder.fail(failure.class, failure.detail),
        }
    }
    let at = recorder.offset(Instant::now());
    let mut stopped = false;
    let cut_mid_line = decoder.finish_with(|event| stopped = recorder.on_event(at, event).is_break());
    if cut_mid_line && !stopped && !recorder.saw_done {
        recorder.fail(ErrorClass::Truncated, "the stream ended in the middle of a line");
    }
}
