//! The summary of a run: percentiles, throughput, error rate and cost over its measured iterations.

use serde::{Deserialize, Serialize};

use super::percentile::{percentiles, Percentiles};
use crate::model::{IterationRecord, LogHistogram, RunHeadline};

/// Figures over the measured (non-warm-up) iterations of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    /// Measured iterations (warm-ups excluded).
    pub measured: u64,
    /// Of those, successful.
    pub succeeded: u64,
    /// Failed / measured.
    pub error_rate: f64,
    /// TTFT percentiles over successful streamed iterations.
    pub ttft: Option<Percentiles>,
    /// Total-time percentiles over successful iterations.
    pub total: Option<Percentiles>,
    /// One request's output speed, token-weighted: Σ tokensOut / Σ totalMs over successful iterations (how fast
    /// one answer streams, not how much the system delivers: see `output_tok_per_sec`).
    pub tok_per_sec: Option<f64>,
    /// The measured requests' span, s: from the first one's send to the last one's end, warm-ups left out (failures
    /// included: they took the time too). What the run's throughput is over; `None` without send times (iterations
    /// stored before they were kept).
    #[serde(default)]
    pub span_s: Option<f64>,
    /// Output throughput: Σ output tokens of successful requests / `span_s` — what vLLM's bench, AIPerf and
    /// GuideLLM call output throughput.
    #[serde(default)]
    pub output_tok_per_sec: Option<f64>,
    /// Successful requests / `span_s`.
    #[serde(default)]
    pub requests_per_sec: Option<f64>,
    /// Σ cost over all measured iterations (failed ones cost what they consumed), `None` without prices.
    pub total_cost_usd: Option<f64>,
    /// Percentiles of schedule lag + total time (latency from the intended send; open loop).
    pub total_from_intended: Option<Percentiles>,
    /// The largest lag of a send behind its schedule, ms.
    pub max_schedule_lag_ms: f64,
    /// Time to the first output of any kind (reasoning or answer), over successful streamed iterations.
    #[serde(default)]
    pub first_output: Option<Percentiles>,
    /// Time per output token after the first, over successful streamed iterations with 2+ tokens.
    #[serde(default)]
    pub tpot: Option<Percentiles>,
    /// Per-token inter-token latency pooled over every gap of every successful iteration (within ±1 %: read from
    /// the iterations' log histograms).
    #[serde(default)]
    pub itl: Option<Percentiles>,
}

/// One latency of the successful, measured iterations (warm-ups and failures left out), sorted ascending.
pub fn successful_values(records: &[IterationRecord], pick: fn(&IterationRecord) -> Option<f64>) -> Vec<f64> {
    let mut values: Vec<f64> =
        records.iter().filter(|r| !r.warmup && r.error.is_none()).filter_map(pick).filter(|v| v.is_finite()).collect();
    values.sort_by(f64::total_cmp);
    values
}

/// The `n` slowest successful, measured iterations (warm-ups and failures left out), slowest first (send order
/// among equals): where a report and an alert point a reader first.
pub fn slowest(records: &[IterationRecord], n: usize) -> Vec<&IterationRecord> {
    let mut measured: Vec<&IterationRecord> = records.iter().filter(|r| !r.warmup && r.error.is_none()).collect();
    measured.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms).then(a.seq.cmp(&b.seq)));
    measured.truncate(n);
    measured
}

impl RunSummary {
    /// The figures a list of runs shows of this one (kept with the run when it ends).
    pub fn headline(&self) -> RunHeadline {
        RunHeadline {
            measured: self.measured,
            succeeded: self.succeeded,
            output_tok_per_sec: self.output_tok_per_sec,
            requests_per_sec: self.requests_per_sec,
            ttft_p95_ms: self.ttft.as_ref().map(|p| p.p95),
        }
    }
}

/// Summarises `records`; warm-ups are skipped, failures count only in the error rate and cost.
pub fn summarize(records: &[IterationRecord]) -> RunSummary {
    let measured: Vec<&IterationRecord> = records.iter().filter(|r| !r.warmup).collect();
    let ok: Vec<&IterationRecord> = measured.iter().copied().filter(|r| r.error.is_none()).collect();
    let tokens: u64 = ok.iter().filter_map(|r| r.tokens_out).sum();
    let seconds: f64 = ok.iter().map(|r| r.total_ms / 1e3).sum();
    let costs: Vec<f64> = measured.iter().filter_map(|r| r.cost_usd).collect();
    let span_s = span_ms(&measured).map(|ms| ms / 1e3);
    let per_second = |n: f64| span_s.map(|s| n / s);
    RunSummary {
        measured: measured.len() as u64,
        succeeded: ok.len() as u64,
        error_rate: if measured.is_empty() { 0.0 } else { (measured.len() - ok.len()) as f64 / measured.len() as f64 },
        ttft: percentiles(ok.iter().filter_map(|r| r.ttft_ms)),
        total: percentiles(ok.iter().map(|r| r.total_ms)),
        tok_per_sec: (seconds > 0.0).then(|| tokens as f64 / seconds),
        span_s,
        output_tok_per_sec: per_second(tokens as f64),
        requests_per_sec: per_second(ok.len() as f64),
        total_cost_usd: (!costs.is_empty()).then(|| costs.iter().sum()),
        total_from_intended: percentiles(ok.iter().map(|r| r.schedule_lag_ms + r.total_ms)),
        max_schedule_lag_ms: measured.iter().map(|r| r.schedule_lag_ms).fold(0.0, f64::max),
        first_output: percentiles(ok.iter().filter_map(|r| r.first_output_ms)),
        tpot: percentiles(ok.iter().filter_map(|r| r.tpot_ms)),
        itl: pooled_itl(&ok),
    }
}

/// From the first send of `records` to the last end, ms; `None` when one has no send time or the span is empty.
fn span_ms(records: &[&IterationRecord]) -> Option<f64> {
    let sends: Option<Vec<f64>> = records.iter().map(|r| r.sent_at_ms).collect();
    let first = sends?.into_iter().reduce(f64::min)?;
    let last = records.iter().filter_map(|r| Some(r.sent_at_ms? + r.total_ms)).reduce(f64::max)?;
    (last > first).then_some(last - first)
}

/// p50/p95/p99 of every per-token gap of `records`, from their merged histograms.
fn pooled_itl(records: &[&IterationRecord]) -> Option<Percentiles> {
    let mut all = LogHistogram::default();
    records.iter().filter_map(|r| r.itl_gaps.as_ref()).for_each(|h| all.merge(h));
    Some(Percentiles { p50: all.percentile(50.0)?, p95: all.percentile(95.0)?, p99: all.percentile(99.0)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenSource;

    fn record(
        total_ms: f64,
        ttft_ms: Option<f64>,
        tokens_out: u64,
        error: Option<&str>,
        warmup: bool,
    ) -> IterationRecord {
        IterationRecord {
            prompt: "p".into(),
            ttft_ms,
            total_ms,
            tokens_in: Some(10),
            tokens_out: Some(tokens_out),
            cost_usd: Some(0.001),
            error: error.map(str::to_string),
            warmup,
            token_source: TokenSource::Reported,
            ..IterationRecord::blank()
        }
    }

    #[test]
    fn excludes_warmups_and_failures_from_latency_but_counts_failures_in_the_error_rate() {
        let records = vec![
            record(5_000.0, Some(4_000.0), 10, None, true),
            record(100.0, Some(20.0), 50, None, false),
            record(300.0, Some(40.0), 150, None, false),
            record(9_999.0, None, 0, Some("timeout: …"), false),
        ];
        let s = summarize(&records);
        assert_eq!((s.measured, s.succeeded), (3, 2));
        assert!((s.error_rate - 1.0 / 3.0).abs() < 1e-12);
        let total = s.total.unwrap();
        assert_eq!((total.p50, total.p95), (200.0, 290.0));
        assert_eq!(s.ttft.unwrap().p50, 30.0);
        assert_eq!(s.tok_per_sec, Some(200.0 / 0.4), "200 tokens over 0.4 s of request time");
        assert_eq!(s.span_s, None, "no send times: no span, and no throughput over it");
        assert!((s.total_cost_usd.unwrap() - 0.003).abs() < 1e-12, "warm-up excluded, failure included");
    }

    #[test]
    fn throughput_is_over_the_measured_span_and_per_request_speed_over_request_time() {
        // Four requests at once, 1 s each, 100 tokens each, after a warm-up; then a failure that ends last.
        let sent = |at: f64, r: IterationRecord| IterationRecord { sent_at_ms: Some(at), ..r };
        let mut records = vec![sent(0.0, record(900.0, None, 100, None, true))];
        records.extend((0..4).map(|_| sent(1_000.0, record(1_000.0, None, 100, None, false))));
        records.push(sent(1_500.0, record(1_000.0, None, 0, Some("http_500: x"), false)));
        let s = summarize(&records);
        assert_eq!(s.span_s, Some(1.5), "first measured send at 1.0 s, the failure ends at 2.5 s");
        assert_eq!(s.output_tok_per_sec, Some(400.0 / 1.5), "what the system delivered");
        assert_eq!(s.requests_per_sec, Some(4.0 / 1.5), "successful requests");
        assert_eq!(s.tok_per_sec, Some(100.0), "one request's speed: 400 tokens over 4 s of request time");
    }

    #[test]
    fn an_empty_or_all_failed_run_has_no_percentiles() {
        let s = summarize(&[record(1.0, None, 0, Some("http_500: x"), false)]);
        assert_eq!((s.ttft, s.total, s.tok_per_sec), (None, None, None));
        assert_eq!(s.error_rate, 1.0);
        assert_eq!(summarize(&[]).error_rate, 0.0);
    }
}
