//! The server's own latency figures over a window: its latency histograms (time to first token, queue time,
//! prefill, decode, end-to-end…) as Δsum / Δcount between the first and the last reading, and how many requests
//! it preempted. Per engine, the series it exposes (`../shared/PROTOCOLS.md` §1.5, §2.2, §3.6); llama.cpp has no
//! latency histograms (its replies' `timings` say the same per request).

use super::exposition::Exposition;
use crate::model::{ServerKind, ServerLatency};

/// What each histogram measures, and its series name (without `_sum` / `_count`).
type Histogram = (&'static str, &'static str);

fn histograms(kind: ServerKind) -> &'static [Histogram] {
    match kind {
        ServerKind::Vllm => &[
            ("time to first token", "vllm:time_to_first_token_seconds"),
            ("queue time", "vllm:request_queue_time_seconds"),
            ("prefill", "vllm:request_prefill_time_seconds"),
            ("decode", "vllm:request_decode_time_seconds"),
            ("inter-token latency", "vllm:inter_token_latency_seconds"),
            ("end to end", "vllm:e2e_request_latency_seconds"),
        ],
        ServerKind::Sglang => &[
            ("time to first token", "sglang:time_to_first_token_seconds"),
            ("queue time", "sglang:queue_time_seconds"),
            ("inter-token latency", "sglang:inter_token_latency_seconds"),
            ("end to end", "sglang:e2e_request_latency_seconds"),
        ],
        ServerKind::Tgi => &[
            ("queue time", "tgi_request_queue_duration"),
            ("inference", "tgi_request_inference_duration"),
            ("time per token", "tgi_request_mean_time_per_token_duration"),
            ("end to end", "tgi_request_duration"),
        ],
        ServerKind::LlamaCpp => &[],
    }
}

/// The preemption counter of each engine, where it has one.
fn preemptions(kind: ServerKind) -> Option<&'static str> {
    (kind == ServerKind::Vllm).then_some("vllm:num_preemptions_total")
}

/// The histograms' running sums and counts, and the preemption counter, at one reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencyTotals {
    /// (what it measures, series, Σ seconds, count) of each histogram the server exposes.
    histograms: Vec<(&'static str, &'static str, f64, f64)>,
    preemptions: Option<f64>,
}

impl LatencyTotals {
    /// The totals in `metrics` of an engine of `kind` (summed over label sets: engines, models).
    pub fn read(kind: ServerKind, metrics: &Exposition) -> Self {
        let histograms = histograms(kind)
            .iter()
            .filter_map(|&(label, series)| {
                let sum = metrics.sum(&format!("{series}_sum"))?;
                let count = metrics.sum(&format!("{series}_count"))?;
                Some((label, series, sum, count))
            })
            .collect();
        Self { histograms, preemptions: preemptions(kind).and_then(|name| metrics.sum(name)) }
    }

    /// From `self` (the earlier reading) to `later`: each histogram's requests and mean, and the preemptions. A
    /// series that went down (a restart, said elsewhere) or is missing from either reading is left out.
    pub fn window(&self, later: &Self) -> (Vec<ServerLatency>, Option<f64>) {
        let latencies = later
            .histograms
            .iter()
            .filter_map(|&(label, series, sum, count)| {
                let &(_, _, sum_before, count_before) = self.histograms.iter().find(|h| h.1 == series)?;
                let (seconds, requests) = (sum - sum_before, count - count_before);
                (seconds >= 0.0 && requests >= 0.0).then(|| ServerLatency {
                    label: label.to_string(),
                    series: series.to_string(),
                    requests,
                    mean_ms: (requests > 0.0).then(|| seconds / requests * 1e3),
                })
            })
            .collect();
        let preempted = self.preemptions.zip(later.preemptions).map(|(a, b)| b - a).filter(|d| *d >= 0.0);
        (latencies, preempted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(ttft_sum: f64, ttft_count: f64, preempted: f64) -> Exposition {
        Exposition::parse(&format!(
            "vllm:time_to_first_token_seconds_bucket{{le=\"0.1\",engine=\"0\"}} 1\n\
             vllm:time_to_first_token_seconds_sum{{engine=\"0\"}} {}\n\
             vllm:time_to_first_token_seconds_count{{engine=\"0\"}} {}\n\
             vllm:time_to_first_token_seconds_sum{{engine=\"1\"}} {}\n\
             vllm:time_to_first_token_seconds_count{{engine=\"1\"}} {}\n\
             vllm:request_queue_time_seconds_sum{{engine=\"0\"}} 0.5\n\
             vllm:request_queue_time_seconds_count{{engine=\"0\"}} 10\n\
             vllm:num_preemptions_total{{engine=\"0\"}} {preempted}\n",
            ttft_sum / 2.0,
            ttft_count / 2.0,
            ttft_sum / 2.0,
            ttft_count / 2.0
        ))
        .unwrap()
    }

    #[test]
    fn a_window_mean_is_the_difference_of_sums_over_the_difference_of_counts() {
        let before = LatencyTotals::read(ServerKind::Vllm, &reading(2.0, 40.0, 1.0));
        let after = LatencyTotals::read(ServerKind::Vllm, &reading(5.0, 100.0, 4.0));
        let (latencies, preempted) = before.window(&after);
        assert_eq!(preempted, Some(3.0));
        let ttft = &latencies[0];
        assert_eq!((ttft.label.as_str(), ttft.requests), ("time to first token", 60.0), "summed over both engines");
        assert!((ttft.mean_ms.unwrap() - 50.0).abs() < 1e-9, "3 s over 60 requests: {ttft:?}");
        let queue = &latencies[1];
        assert_eq!((queue.label.as_str(), queue.requests, queue.mean_ms), ("queue time", 0.0, None), "no request");
    }

    #[test]
    fn a_series_that_went_down_or_is_missing_is_left_out_and_llama_cpp_has_none() {
        let before = LatencyTotals::read(ServerKind::Vllm, &reading(5.0, 100.0, 4.0));
        let after = LatencyTotals::read(ServerKind::Vllm, &reading(1.0, 10.0, 0.0));
        let (latencies, preempted) = before.window(&after);
        assert_eq!(latencies.len(), 1, "only the queue histogram, which did not go down: {latencies:?}");
        assert_eq!(preempted, None);
        let llama = Exposition::parse(include_str!("../../tests/fixtures/speclab/llamacpp_metrics_draft.txt")).unwrap();
        assert_eq!(LatencyTotals::read(ServerKind::LlamaCpp, &llama), LatencyTotals::default());
    }
}
