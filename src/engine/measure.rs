//! One measured request. Instants are taken when bytes arrive, before any parsing, on a monotonic clock; every
//! failure becomes the measurement's `error` with its timings kept, never a panic or a lost iteration.

use std::time::Duration;
use tokio::time::Instant;

use super::chunk::{interpret, Identity, Indexed, RawBody, RawDelta, StreamItem, Usage};
use super::connection_test::HttpClient;
use super::request::{ChatRequest, RequestTarget};
use super::sse::{Flow, SseDecoder, SseEventRef};
use crate::model::{
    AnsweredBy, ChunkMark, ConnectionPolicy, EngineTimings, ErrorClass, IterationError, Measurement, RetriedAttempt,
    RetryCause, ServerTiming, Timeline, TokenSource,
};

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

/// Chunk arrivals kept per request. Beyond it, neighbouring marks are merged in pairs (each keeps the later
/// instant and the sum of what it covers), so a flood of tiny chunks costs bounded memory and storage while the
/// totals stay exact.
pub const MAX_CHUNK_MARKS: usize = 4096;

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
    let (pooled, fresh) = match client.clients_for(call.target) {
        Ok(clients) => clients,
        Err(refusal) => {
            let mut refused = Recorder::new(Instant::now(), call.intended, call.request.stream, false);
            refused.fail(ErrorClass::Connect, refusal.to_string());
            return refused.finish(prompt_chars(call.request));
        }
    };
    let first = attempt(pooled, &call).await;
    let measurement = if first.lost_to_keep_alive_race && client.policy() == ConnectionPolicy::Reuse {
        let lost = RetriedAttempt {
            cause: RetryCause::ClosedConnection,
            status: None,
            total_ms: first.offset(Instant::now()) as f64 / 1e3,
            waited_ms: 0.0,
        };
        let mut again = attempt(fresh, &call).await.finish(prompt_chars(call.request));
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

/// One attempt: sent on `client`, read until the end, the failure or the timeout.
async fn attempt(client: &reqwest::Client, call: &Call<'_>) -> Recorder {
    let sent = Instant::now();
    let mut recorder = Recorder::new(sent, call.intended, call.request.stream, call.request.keep_answer);
    if tokio::time::timeout(call.timeout, exchange(client, call, &mut recorder)).await.is_err() {
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

/// Accumulates instants and counts while a response arrives.
struct Recorder {
    sent: Instant,
    timeline: Timeline,
    streamed: bool,
    status: Option<u16>,
    usage: Option<Usage>,
    output_chars: usize,
    finish_reason: Option<String>,
    saw_done: bool,
    error: Option<IterationError>,
    server_timing: Option<ServerTiming>,
    engine_timings: Option<EngineTimings>,
    retry_after_ms: Option<u64>,
    /// The send was lost to the keep-alive race (see `connection_test::lost_to_keep_alive_race`).
    lost_to_keep_alive_race: bool,
    /// The answer's text so far, when the request asked to keep it.
    answer: Option<String>,
    /// What the reply said of what answered it (read from its headers and its first chunk).
    answered_by: AnsweredBy,
    /// The first chunk's `model` and `system_fingerprint` were read (or there was none to read).
    identity_read: bool,
}

impl Recorder {
    fn new(sent: Instant, intended: Instant, streamed: bool, keep_answer: bool) -> Self {
        let lag = sent.saturating_duration_since(intended);
        Self {
            sent,
            timeline: Timeline { schedule_lag_us: micros(lag), ..Timeline::default() },
            streamed,
            status: None,
            usage: None,
            output_chars: 0,
            finish_reason: None,
            saw_done: false,
            error: None,
            server_timing: None,
            engine_timings: None,
            retry_after_ms: None,
            lost_to_keep_alive_race: false,
            answer: keep_answer.then(String::new),
            answered_by: AnsweredBy::default(),
            identity_read: false,
        }
    }

    /// Keeps what the first chunk (or the whole body) says answered the request.
    fn read_identity(&mut self, identity: &Identity<'_>) {
        self.answered_by.model = identity.model.as_deref().map(AnsweredBy::raw);
        self.answered_by.system_fingerprint = identity.system_fingerprint.as_deref().map(AnsweredBy::raw);
    }

    /// Applies one event of the stream, arrived at `at`; `Break` stops reading (an error was recorded).
    fn on_event(&mut self, at: u64, event: SseEventRef<'_>) -> Flow {
        let first = !self.identity_read && event.event.is_none();
        let item = interpret(event);
        if first {
            self.identity_read = true;
            if let StreamItem::Chunk(chunk) = &item {
                self.read_identity(&chunk.identity);
            }
        }
        apply(self, at, item)
    }

    fn offset(&self, at: Instant) -> u64 {
        micros(at.saturating_duration_since(self.sent))
    }

    fn fail(&mut self, class: ErrorClass, detail: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(IterationError::new(class, self.status, detail));
        }
    }

    fn on_output(&mut self, at: u64, content_chars: usize, reasoning_chars: usize, usage: Option<Usage>) {
        if content_chars == 0 && reasoning_chars == 0 {
            return;
        }
        if content_chars > 0 && self.timeline.first_token_us.is_none() {
            self.timeline.first_token_us = Some(at);
        }
        if reasoning_chars > 0 && self.timeline.first_reasoning_us.is_none() {
            self.timeline.first_reasoning_us = Some(at);
        }
        self.timeline.last_token_us = Some(at);
        self.output_chars += content_chars + reasoning_chars;
        // Running usage (some servers report it on every chunk) gives this chunk's token count exactly.
        let previous = self.usage.and_then(|u| u.completion_tokens);
        let tokens = usage.and_then(|u| u.completion_tokens).map(|now| now.saturating_sub(previous.unwrap_or(0)));
        self.timeline.push_chunk(ChunkMark { at_us: at, tokens, count: 1 }, MAX_CHUNK_MARKS);
    }

    fn finish(mut self, prompt_chars: usize) -> Measurement {
        self.timeline.end_us = self.offset(Instant::now());
        let reported_out = self.usage.and_then(|u| u.completion_tokens);
        let reported_in = self.usage.and_then(|u| u.prompt_tokens);
        let (tokens_in, tokens_out, token_source) = match (reported_in, reported_out) {
            (Some(i), Some(o)) => (Some(i), Some(o), TokenSource::Reported),
            _ => (
                reported_in.or(Some(estimate(prompt_chars))),
                reported_out.or(Some(estimate(self.output_chars))),
                TokenSource::Estimated,
            ),
        };
        if self.error.is_none() {
            if self.streamed && !self.saw_done && self.finish_reason.is_none() {
                self.fail(ErrorClass::Truncated, "the stream ended without [DONE] or a finish_reason");
            } else if tokens_out == Some(0) {
                self.fail(ErrorClass::NoTokens, "the response completed without any output tokens");
            }
        }
        Measurement {
            streamed: self.streamed,
            status: self.status,
            timeline: self.timeline,
            tokens_in,
            tokens_out,
            token_source,
            cached_tokens: self
                .usage
                .and_then(|u| u.cached_tokens)
                .or(self.engine_timings.and_then(|t| t.cached_tokens)),
            finish_reason: self.finish_reason,
            error: self.error,
            server_timing: self.server_timing,
            engine_timings: self.engine_timings,
            retry_after_ms: self.retry_after_ms,
            retried: vec![],
            answered_by: self.answered_by,
            answer: self.answer,
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn estimate(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

/// Sends the request and reads the response into `recorder`.
async fn exchange(client: &reqwest::Client, call: &Call<'_>, recorder: &mut Recorder) {
    let headers = match call.target.header_map() {
        Ok(h) => h,
        Err(e) => return recorder.fail(ErrorClass::Request, e.to_string()),
    };
    let sending = client.post(call.target.base_url.chat_completions_url()).headers(headers).json(call.request);
    let mut response = match sending.send().await {
        Ok(r) => r,
        Err(e) => {
            let class = if e.is_connect() { ErrorClass::Connect } else { ErrorClass::Request };
            recorder.lost_to_keep_alive_race =
                super::connection_test::lost_to_keep_alive_race(&e, recorder.sent.elapsed());
            return recorder.fail(class, super::connection_test::describe_error(&e));
        }
    };
    recorder.timeline.headers_us = Some(recorder.offset(Instant::now()));
    recorder.server_timing = response
        .headers()
        .get("x-sim-received-us")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .map(|received_us| ServerTiming { received_us, first_output_sent_us: None });
    recorder.answered_by.server =
        response.headers().get(reqwest::header::SERVER).and_then(|v| v.to_str().ok()).map(AnsweredBy::raw);
    let status = response.status().as_u16();
    recorder.status = Some(status);
    recorder.retry_after_ms = retry_after_ms(response.headers());
    if !response.status().is_success() {
        let body = read_body(&mut response, recorder, MAX_ERROR_BODY_BYTES).await;
        return recorder.fail(ErrorClass::Http, String::from_utf8_lossy(&body.bytes));
    }
    if call.request.stream {
        read_stream(&mut response, recorder).await;
    } else {
        let body = read_body(&mut response, recorder, MAX_COMPLETION_BODY_BYTES).await;
        if body.cut {
            recorder.fail(
                ErrorClass::TooLarge,
                format!("the response body exceeded {} MiB; reading stopped there", MAX_COMPLETION_BODY_BYTES >> 20),
            );
        } else if recorder.error.is_none() {
            read_completion(&body.bytes, recorder);
        }
    }
}

/// The wait a reply asks for: `retry-after-ms` (float ms) first, then `retry-after` in seconds.
fn retry_after_ms(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let number = |name: &str| {
        headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
    };
    number("retry-after-ms").or_else(|| number("retry-after").map(|s| s * 1e3)).map(|ms| ms.round() as u64)
}

/// A body read up to a limit.
struct Body {
    bytes: Vec<u8>,
    /// More was coming when the limit was reached; the rest was not read.
    cut: bool,
}

/// Reads the body up to `limit` bytes, recording the first byte; a broken connection is recorded as `reset`.
async fn read_body(response: &mut reqwest::Response, recorder: &mut Recorder, limit: usize) -> Body {
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if recorder.timeline.first_byte_us.is_none() {
                    recorder.timeline.first_byte_us = Some(recorder.offset(Instant::now()));
                }
                if bytes.len() + chunk.len() > limit {
                    let room = limit - bytes.len();
                    bytes.extend_from_slice(&chunk[..room]);
                    return Body { bytes, cut: true };
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => return Body { bytes, cut: false },
            Err(e) => {
                recorder.fail(ErrorClass::Reset, super::connection_test::describe_error(&e));
                return Body { bytes, cut: false };
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
async fn read_stream(response: &mut reqwest::Response, recorder: &mut Recorder) {
    let mut decoder = SseDecoder::new();
    loop {
        let bytes = match response.chunk().await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => break,
            Err(e) => return recorder.fail(ErrorClass::Reset, super::connection_test::describe_error(&e)),
        };
        let at = recorder.offset(Instant::now());
        recorder.timeline.first_byte_us.get_or_insert(at);
        match decoder.feed(&bytes, |event| recorder.on_event(at, event)) {
            Ok(Flow::Continue(())) => {}
            Ok(Flow::Break(())) => return,
            Err(e) => return recorder.fail(ErrorClass::Malformed, e.to_string()),
        }
    }
    let at = recorder.offset(Instant::now());
    let mut stopped = false;
    let cut_mid_line = decoder.finish_with(|event| stopped = recorder.on_event(at, event).is_break());
    if cut_mid_line && !stopped && !recorder.saw_done {
        recorder.fail(ErrorClass::Truncated, "the stream ended in the middle of a line");
    }
}

/// Applies one event; `Break` stops reading (an error was recorded).
fn apply(recorder: &mut Recorder, at: u64, item: StreamItem<'_>) -> Flow {
    match item {
        StreamItem::Done => recorder.saw_done = true,
        StreamItem::Chunk(chunk) => {
            if let (Some(answer), Some(content)) = (recorder.answer.as_mut(), chunk.content.as_deref()) {
                answer.push_str(content);
            }
            let first_output = recorder.timeline.chunks.is_empty() && chunk.content_chars + chunk.reasoning_chars > 0;
            if let (true, Some(timing), Some(sent)) =
                (first_output, recorder.server_timing.as_mut(), chunk.server_sent_us)
            {
                timing.first_output_sent_us = Some(sent);
            }
            recorder.on_output(at, chunk.content_chars, chunk.reasoning_chars, chunk.usage);
            if chunk.usage.is_some() {
                recorder.usage = chunk.usage;
            }
            if let Some(reason) = chunk.finish_reason {
                recorder.finish_reason = Some(reason.into_owned());
            }
            if chunk.engine_timings.is_some() {
                recorder.engine_timings = chunk.engine_timings;
            }
        }
        StreamItem::Error(detail) => {
            recorder.fail(ErrorClass::StreamError, detail);
            return Flow::Break(());
        }
        StreamItem::Malformed(detail) => {
            recorder.fail(ErrorClass::Malformed, detail);
            return Flow::Break(());
        }
    }
    Flow::Continue(())
}
