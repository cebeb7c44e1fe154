//! One measured request: the raw instants (microseconds after the request was sent) and what was reported.
//! Figures such as TTFT and tok/s are derived from these by documented functions, never stored instead of them.

use serde::{Deserialize, Serialize};

/// A content-bearing chunk's arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkMark {
    /// Microseconds after sending.
    pub at_us: u64,
    /// Output tokens this chunk added, when the server reports running usage; otherwise unknown.
    pub tokens: Option<u64>,
    /// Chunks this mark stands for: 1, or more once a flood of chunks made the engine merge neighbouring marks
    /// (the mark keeps the last one's instant and the sum of their tokens).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

impl ChunkMark {
    /// This mark and the `later` one as one mark: the later instant, the chunks and tokens of both.
    fn merged_with(self, later: Self) -> Self {
        Self {
            at_us: later.at_us,
            tokens: self.tokens.zip(later.tokens).map(|(a, b)| a + b),
            count: self.count + later.count,
        }
    }
}

fn one() -> u32 {
    1
}

#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The instants of one request, in microseconds after it was handed to the HTTP client.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// Actual send minus intended send (open-loop schedules); 0 when sent as soon as planned.
    pub schedule_lag_us: u64,
    /// When it was sent, µs after the run started (set by the load driver; absent outside a run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_offset_us: Option<u64>,
    /// Response headers received.
    pub headers_us: Option<u64>,
    /// First body byte received.
    pub first_byte_us: Option<u64>,
    /// First chunk with non-empty `choices[0].delta.content` (streamed only).
    pub first_token_us: Option<u64>,
    /// First chunk with non-empty reasoning (`delta.reasoning` / `delta.reasoning_content`), if any.
    pub first_reasoning_us: Option<u64>,
    /// Last chunk with content or reasoning.
    pub last_token_us: Option<u64>,
    /// The response ended (or failed).
    pub end_us: u64,
    /// Every content- or reasoning-bearing chunk, in order (merged in pairs past a cap; see [`ChunkMark::count`]).
    pub chunks: Vec<ChunkMark>,
}

impl Timeline {
    /// Records a chunk's arrival, keeping at most `cap` marks (`cap` ≥ 2): when full, neighbouring marks are
    /// merged in pairs, and from then on each new arrival joins the last mark until it covers as many chunks as
    /// the others. Memory stays bounded whatever the endpoint sends; the number of chunks and their tokens stay
    /// exact, only the spacing inside a merged mark is lost.
    pub fn push_chunk(&mut self, mark: ChunkMark, cap: usize) {
        let stride = self.chunks.first().map_or(1, |m| m.count);
        if let Some(last) = self.chunks.last_mut().filter(|last| last.count < stride) {
            *last = last.merged_with(mark);
            return;
        }
        if self.chunks.len() >= cap {
            self.chunks =
                self.chunks.chunks(2).filter_map(|pair| pair.iter().copied().reduce(ChunkMark::merged_with)).collect();
            return self.push_chunk(mark, cap);
        }
        self.chunks.push(mark);
    }

    /// How many content- or reasoning-bearing chunks arrived (exact, merged marks included).
    pub fn chunk_count(&self) -> u64 {
        self.chunks.iter().map(|m| u64::from(m.count)).sum()
    }
}

/// Timestamps the endpoint itself reported (latency-guard's simulator does; real endpoints do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTiming {
    /// When the server had received the request (header `x-sim-received-us`), unix µs on the server's clock.
    pub received_us: u64,
    /// When the server sent the first output chunk (`delta.sim_us`), unix µs on the server's clock.
    pub first_output_sent_us: Option<u64>,
}

impl ServerTiming {
    /// The server's own time to first output, ms.
    pub fn time_to_first_output_ms(&self) -> Option<f64> {
        self.first_output_sent_us.map(|sent| ms(sent.saturating_sub(self.received_us)))
    }
}

/// Where token counts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TokenSource {
    /// The server's `usage`.
    Reported,
    /// Not reported: characters / 4, rounded up (a rough rule for English text with GPT-style tokenizers).
    Estimated,
}

spelled!(TokenSource { Reported => "reported", Estimated => "estimated" });

/// The class of a failed iteration: short, stable, good for grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Non-2xx status; the status is in `Measurement::status`.
    Http,
    /// No complete response within the per-request timeout.
    Timeout,
    /// Could not connect (refused, DNS, TLS).
    Connect,
    /// The connection broke while reading the body.
    Reset,
    /// The server reported an error inside the stream after its 200.
    StreamError,
    /// A chunk or body was not valid JSON of the expected shape, or not UTF-8.
    Malformed,
    /// The stream ended without `[DONE]` or a `finish_reason`.
    Truncated,
    /// The response completed with zero output tokens.
    NoTokens,
    /// The response was larger than latency-guard reads (a non-streamed body over 1 MiB); the rest was not read.
    TooLarge,
    /// The request could not be built or sent for another reason.
    Request,
}

/// A failure, with the class and the detail a user needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IterationError {
    /// Short class.
    pub class: ErrorClass,
    /// `http_429`, `timeout`, … as shown in tables and exports.
    pub code: String,
    /// What happened, in the server's or the network's words (truncated).
    pub detail: String,
}

impl IterationError {
    /// An error of `class`; `status` names HTTP errors (`http_429`).
    pub fn new(class: ErrorClass, status: Option<u16>, detail: impl Into<String>) -> Self {
        let code = match (class, status) {
            (ErrorClass::Http, Some(status)) => format!("http_{status}"),
            _ => serde_json::to_value(class).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        };
        Self { class, code, detail: detail.into() }
    }
}

/// Everything measured about one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Measurement {
    /// Whether the response was streamed (TTFT is measurable only then).
    pub streamed: bool,
    /// HTTP status, when a response came.
    pub status: Option<u16>,
    /// The instants.
    pub timeline: Timeline,
    /// Input tokens.
    pub tokens_in: Option<u64>,
    /// Output tokens.
    pub tokens_out: Option<u64>,
    /// Whether the counts were reported by the server or estimated.
    pub token_source: TokenSource,
    /// Input tokens the server said it served from its prefix cache: `usage.prompt_tokens_details.cached_tokens`,
    /// else llama.cpp's `timings.cache_n`; `None` when it said neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// `finish_reason` of choice 0.
    pub finish_reason: Option<String>,
    /// Why the request failed, if it did.
    pub error: Option<IterationError>,
    /// The endpoint's own timestamps, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_timing: Option<ServerTiming>,
    /// The server's own timings of this request (llama.cpp's `timings`), when its reply carried them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_timings: Option<crate::model::EngineTimings>,
    /// How long a 429 reply asked to wait (`retry-after-ms`, else `retry-after` seconds), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Earlier attempts of this iteration that were sent again: rate-limited, or lost to a closed connection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retried: Vec<RetriedAttempt>,
    /// What the reply said of what answered it, as read (bounded, not yet scrubbed of a secret's echo: the run
    /// scrubs what it keeps, `Fingerprint::cleaned`); never stored.
    #[serde(skip)]
    pub answered_by: crate::model::AnsweredBy,
    /// The answer's text, kept only when the request asked for it (a multi-turn conversation sends it back in its
    /// next turn); never stored.
    #[serde(skip)]
    pub answer: Option<String>,
}

/// Why an attempt was sent again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryCause {
    /// HTTP 429, retried as the run asked (after the wait the reply asked for).
    #[default]
    RateLimited,
    /// The server closed a reused keep-alive connection before answering a byte (it never saw the request, or
    /// dropped it unanswered); re-sent once, at once, on a fresh connection.
    ClosedConnection,
}

/// An attempt of an iteration that was sent again (kept, not hidden).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetriedAttempt {
    /// Why it was sent again (records written before this field existed were rate limits).
    #[serde(default)]
    pub cause: RetryCause,
    /// Its HTTP status.
    pub status: Option<u16>,
    /// Its duration, ms.
    pub total_ms: f64,
    /// The wait before the next attempt, ms (not counted as latency).
    pub waited_ms: f64,
}

fn ms(us: u64) -> f64 {
    us as f64 / 1_000.0
}

impl Measurement {
    /// An empty measurement (streamed, no status, nothing received): a base for building one field by field
    /// (tests, fixtures).
    pub fn blank() -> Self {
        Self {
            streamed: true,
            status: None,
            timeline: Timeline::default(),
            tokens_in: None,
            tokens_out: None,
            token_source: TokenSource::Estimated,
            cached_tokens: None,
            finish_reason: None,
            error: None,
            server_timing: None,
            engine_timings: None,
            retry_after_ms: None,
            retried: vec![],
            answered_by: crate::model::AnsweredBy::default(),
            answer: None,
        }
    }

    /// Time to first token, ms: send → first chunk with non-empty `choices[0].delta.content`. `None` when not
    /// streamed (a single JSON body has no first token) or when no content arrived.
    pub fn ttft_ms(&self) -> Option<f64> {
        self.streamed.then_some(self.timeline.first_token_us).flatten().map(ms)
    }

    /// Time to the first output of any kind (reasoning or answer), ms; differs from TTFT for reasoning models.
    pub fn time_to_first_output_ms(&self) -> Option<f64> {
        if !self.streamed {
            return None;
        }
        [self.timeline.first_reasoning_us, self.timeline.first_token_us].into_iter().flatten().min().map(ms)
    }

    /// Total time, ms: send → end of the response.
    pub fn total_ms(&self) -> f64 {
        ms(self.timeline.end_us)
    }

    /// Time per output token after the first, ms: (last token − first output) / (tokens out − 1).
    /// `None` without streaming or with fewer than 2 output tokens.
    pub fn tpot_ms(&self) -> Option<f64> {
        let first = self.timeline.first_reasoning_us.into_iter().chain(self.timeline.first_token_us).min()?;
        let last = self.timeline.last_token_us?;
        let tokens = self.tokens_out.filter(|&t| t >= 2)?;
        self.streamed.then(|| ms(last.saturating_sub(first)) / (tokens - 1) as f64)
    }

    /// Gaps between consecutive output chunks, ms (the first gap follows the first output chunk). Across a merged
    /// mark (a flood of chunks) its span is spread evenly over the chunks it stands for.
    pub fn inter_chunk_gaps_ms(&self) -> Vec<f64> {
        self.timeline
            .chunks
            .windows(2)
            .flat_map(|w| {
                let each = ms(w[1].at_us.saturating_sub(w[0].at_us)) / f64::from(w[1].count);
                std::iter::repeat_n(each, w[1].count as usize)
            })
            .collect()
    }

    /// Per-token inter-token latency, ms: each gap divided by the tokens its closing chunk carried, one value per
    /// token. Chunks whose token count the server did not report count as one token, which overstates ITL
    /// for servers that batch tokens (a merged mark counts its chunks); [`Measurement::tpot_ms`] uses the reported total instead.
    pub fn per_token_itl_ms(&self) -> Vec<f64> {
        self.timeline
            .chunks
            .windows(2)
            .flat_map(|w| {
                let tokens = w[1].tokens.filter(|&t| t > 0).unwrap_or(u64::from(w[1].count));
                let each = ms(w[1].at_us.saturating_sub(w[0].at_us)) / tokens as f64;
                std::iter::repeat_n(each, tokens as usize)
            })
            .collect()
    }

    /// Output tokens per second of this request: tokens out / total time.
    pub fn output_tokens_per_second(&self) -> Option<f64> {
        let tokens = self.tokens_out?;
        let seconds = self.timeline.end_us as f64 / 1e6;
        (seconds > 0.0).then(|| tokens as f64 / seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(first_token: Option<u64>, last: Option<u64>, end: u64, tokens: Option<u64>) -> Measurement {
        Measurement {
            streamed: true,
            status: Some(200),
            timeline: Timeline { first_token_us: first_token, last_token_us: last, end_us: end, ..Timeline::default() },
            tokens_in: Some(10),
            tokens_out: tokens,
            token_source: TokenSource::Reported,
            finish_reason: Some("stop".into()),
            ..Measurement::blank()
        }
    }

    #[test]
    fn derives_ttft_tpot_and_throughput_from_instants() {
        let m = streamed(Some(50_000), Some(176_000), 180_000, Some(64));
        assert_eq!(m.ttft_ms(), Some(50.0));
        assert_eq!(m.total_ms(), 180.0);
        assert_eq!(m.tpot_ms(), Some(2.0), "(176 - 50) ms over 63 tokens after the first");
        assert!((m.output_tokens_per_second().unwrap() - 64.0 / 0.18).abs() < 1e-9);
    }

    #[test]
    fn non_streamed_requests_have_no_ttft_and_no_tpot() {
        let m = Measurement { streamed: false, ..streamed(Some(50_000), Some(60_000), 80_000, Some(10)) };
        assert_eq!(m.ttft_ms(), None);
        assert_eq!(m.tpot_ms(), None);
        assert_eq!(m.total_ms(), 80.0);
    }

    #[test]
    fn reasoning_first_separates_first_output_from_ttft() {
        let mut m = streamed(Some(900_000), Some(1_000_000), 1_000_000, Some(101));
        m.timeline.first_reasoning_us = Some(100_000);
        assert_eq!(m.time_to_first_output_ms(), Some(100.0));
        assert_eq!(m.ttft_ms(), Some(900.0));
        assert_eq!(m.tpot_ms(), Some(9.0));
    }

    #[test]
    fn splits_gaps_by_the_tokens_each_chunk_carried() {
        let mut m = streamed(Some(10_000), Some(16_000), 20_000, Some(5));
        m.timeline.chunks = vec![
            ChunkMark { at_us: 10_000, tokens: Some(1), count: 1 },
            ChunkMark { at_us: 12_000, tokens: Some(2), count: 1 },
            ChunkMark { at_us: 16_000, tokens: None, count: 1 },
        ];
        assert_eq!(m.inter_chunk_gaps_ms(), vec![2.0, 4.0]);
        assert_eq!(m.per_token_itl_ms(), vec![1.0, 1.0, 4.0]);
    }

    #[test]
    fn a_flood_of_chunks_keeps_bounded_marks_and_exact_totals() {
        let mut timeline = Timeline::default();
        for i in 0..10_000u64 {
            timeline.push_chunk(ChunkMark { at_us: 100 + i * 10, tokens: Some(1), count: 1 }, 64);
        }
        assert!(timeline.chunks.len() <= 64, "{} marks", timeline.chunks.len());
        assert_eq!(timeline.chunk_count(), 10_000);
        assert_eq!(timeline.chunks.iter().filter_map(|m| m.tokens).sum::<u64>(), 10_000, "tokens stay exact");
        assert_eq!(timeline.chunks.last().unwrap().at_us, 100 + 9_999 * 10, "the last arrival is kept");
        assert_eq!(timeline.chunks.first().unwrap().count, 256, "marks merged in pairs, three times over 64");
        let m = Measurement { timeline, ..streamed(Some(100), Some(100_090), 100_100, Some(10_000)) };
        let gaps = m.inter_chunk_gaps_ms();
        assert_eq!(
            gaps.len() as u64,
            10_000 - m.timeline.chunks[0].count as u64,
            "one gap per chunk after the first mark"
        );
        assert!(gaps.iter().all(|g| (g - 0.01).abs() < 1e-9), "evenly spaced chunks stay evenly spaced");
    }

    #[test]
    fn marks_below_the_cap_are_kept_exactly_and_old_records_read_back() {
        let mut timeline = Timeline::default();
        timeline.push_chunk(ChunkMark { at_us: 5, tokens: None, count: 1 }, 64);
        timeline.push_chunk(ChunkMark { at_us: 9, tokens: None, count: 1 }, 64);
        assert_eq!(timeline.chunks.iter().map(|m| m.at_us).collect::<Vec<_>>(), vec![5, 9]);
        let stored: ChunkMark = serde_json::from_str(r#"{"atUs":7,"tokens":null}"#).unwrap();
        assert_eq!(stored.count, 1, "marks stored before merging existed stand for one chunk");
        assert_eq!(serde_json::to_string(&stored).unwrap(), r#"{"atUs":7,"tokens":null}"#);
    }

    #[test]
    fn error_codes_name_the_status_for_http_errors() {
        assert_eq!(IterationError::new(ErrorClass::Http, Some(429), "").code, "http_429");
        assert_eq!(IterationError::new(ErrorClass::StreamError, None, "").code, "stream_error");
        assert_eq!(IterationError::new(ErrorClass::NoTokens, Some(200), "").code, "no_tokens");
    }
}
