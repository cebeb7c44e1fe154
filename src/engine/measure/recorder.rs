//! What one request's response said, gathered as it arrives: instants, counts, usage, the first error. Knows
//! nothing of how the bytes came (either client feeds it the same events).

use std::time::Duration;
use tokio::time::Instant;

use super::CHARS_PER_TOKEN;
use crate::engine::chunk::{interpret, Identity, StreamItem, Usage};
use crate::engine::sse::{Flow, SseEventRef};
use crate::model::{
    AnsweredBy, ChunkMark, EngineTimings, ErrorClass, IterationError, Measurement, ServerTiming, Timeline, TokenSource,
};

/// Chunk arrivals kept per request. Beyond it, neighbouring marks are merged in pairs (each keeps the later
/// instant and the sum of what it covers), so a flood of tiny chunks costs bounded memory and storage while the
/// totals stay exact.
pub const MAX_CHUNK_MARKS: usize = 4096;

/// Accumulates instants and counts while a response arrives.
pub(super) struct Recorder {
    pub(super) sent: Instant,
    pub(super) timeline: Timeline,
    pub(super) streamed: bool,
    pub(super) status: Option<u16>,
    pub(super) usage: Option<Usage>,
    pub(super) output_chars: usize,
    pub(super) finish_reason: Option<String>,
    pub(super) saw_done: bool,
    pub(super) error: Option<IterationError>,
    pub(super) server_timing: Option<ServerTiming>,
    pub(super) engine_timings: Option<EngineTimings>,
    pub(super) retry_after_ms: Option<u64>,
    /// The send was lost to the keep-alive race (see `connection_test::lost_to_keep_alive_race`).
    pub(super) lost_to_keep_alive_race: bool,
    /// The answer's text so far, when the request asked to keep it.
    pub(super) answer: Option<String>,
    /// What the reply said of what answered it (read from its headers and its first chunk).
    pub(super) answered_by: AnsweredBy,
    /// The first chunk's `model` and `system_fingerprint` were read (or there was none to read).
    pub(super) identity_read: bool,
}

impl Recorder {
    pub(super) fn new(sent: Instant, intended: Instant, streamed: bool, keep_answer: bool) -> Self {
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
    pub(super) fn read_identity(&mut self, identity: &Identity<'_>) {
        self.answered_by.model = identity.model.as_deref().map(AnsweredBy::raw);
        self.answered_by.system_fingerprint = identity.system_fingerprint.as_deref().map(AnsweredBy::raw);
    }

    /// Applies one event of the stream, arrived at `at`; `Break` stops reading (an error was recorded).
    pub(super) fn on_event(&mut self, at: u64, event: SseEventRef<'_>) -> Flow {
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

    pub(super) fn offset(&self, at: Instant) -> u64 {
        micros(at.saturating_duration_since(self.sent))
    }

    pub(super) fn fail(&mut self, class: ErrorClass, detail: impl Into<String>) {
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

    pub(super) fn finish(mut self, prompt_chars: usize) -> Measurement {
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

pub(super) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn estimate(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
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
