//! The server's own latency figures over a window: its latency histograms (time to first token, queue time,
//! prefill, decode, end-to-end…) as Δsum / Δcount between the first and the last reading, how many requests it
//! preempted, and its prefix-cache hit rate (vLLM's hits and queries counters, in tokens, as Δhits / Δqueries;
//! SGLang's `cache_hit_rate` gauge at the last reading). Per engine, the series it exposes
//! (`../shared/PROTOCOLS.md` §1.5, §2.2, §3.6); llama.cpp has no latency histograms nor cache counters (its
//! replies' `timings` say the same per request).

use super::exposition::Exposition;
use crate::model::{PrefixCacheHits, ServerKind, ServerLatency};

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

/// vLLM's prefix-cache counters (hits, queries), the V1 engine's names first, then the older `gpu_` ones.
const VLLM_CACHE_COUNTERS: [(&str, &str); 2] = [
    ("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"),
    ("vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"),
];
/// SGLang's gauge of its radix cache's hit rate.
const SGLANG_CACHE_HIT_RATE: &str = "sglang:cache_hit_rate";

/// What the server's metrics say of its prefix cache at one reading.
#[derive(Debug, Clone, Copy, PartialEq)]
enum CacheReading {
    /// Running counters: (hits series, queries series, hits, queries).
    Counters(&'static str, &'static str, f64, f64),
    /// A hit-rate gauge.
    Gauge(f64),
}

impl CacheReading {
    fn read(kind: ServerKind, metrics: &Exposition) -> Option<Self> {
        match kind {
            ServerKind::Vllm => VLLM_CACHE_COUNTERS.iter().find_map(|&(hits, queries)| {
                Some(Self::Counters(hits, queries, metrics.sum(hits)?, metrics.sum(queries)?))
            }),
            ServerKind::Sglang => metrics.sum(SGLANG_CACHE_HIT_RATE).map(Self::Gauge),
            ServerKind::Tgi | ServerKind::LlamaCpp => None,
        }
    }

    /// From `earlier` to `self`: the hit rate over the window; `None` when nothing was looked up, a counter went
    /// down (a restart) or the readings differ in kind.
    fn since(self, earlier: Self) -> Option<PrefixCacheHits> {
        match (earlier, self) {
            (
                Self::Counters(_, _, hits_before, queries_before),
                Self::Counters(hits, queries, hits_now, queries_now),
            ) => {
                let (hit, queried) = (hits_now - hits_before, queries_now - queries_before);
                (queried > 0.0 && (0.0..=queried).contains(&hit)).then(|| PrefixCacheHits {
                    hit_rate: hit / queried,
                    queried_tokens: Some(queried),
                    source: format!("Δ {hits} / Δ {queries} between the first and the last reading"),
                })
            }
            (_, Self::Gauge(rate)) if (0.0..=1.0).contains(&rate) => Some(PrefixCacheHits {
                hit_rate: rate,
                queried_tokens: None,
                source: format!("{SGLANG_CACHE_HIT_RATE} at the last reading"),
            }),
            _ => None,
        }
    }
}

/// The histograms' running sums and counts, the preemption counter and the prefix-cache reading, at one reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencyTotals {
    /// (what it measures, series, Σ seconds, count) of each histogram the server exposes.
    histograms: Vec<(&'static str, &'static str, f64, f64)>,
    preemptions: Option<f64>,
    cache: Option<CacheReading>,
}

/// The server's own figures over a window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerWindow {
    /// Each histogram's requests and mean.
    pub latencies: Vec<ServerLatency>,
    /// Requests preempted.
    pub preemptions: Option<f64>,
    /// The prefix cache's hit rate.
    pub prefix_cache: Option<PrefixCacheHits>,
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
        Self {
            histograms,
            preemptions: preemptions(kind).and_then(|name| metrics.sum(name)),
            cache: CacheReading::read(kind, metrics),
        }
    }

    /// From `self` (the earlier reading) to `later`: each histogram's requests and mean, the preemptions and the
    /// prefix cache's hit rate. A series that went down (a restart, said elsewhere) or is missing from either
    /// reading is left out.
    pub fn window(&self, later: &Self) -> ServerWindow {
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
        let preemptions = self.preemptions.zip(later.preemptions).map(|(a, b)| b - a).filter(|d| *d >= 0.0);
        let prefix_cache = self.cache.zip(later.cache).and_then(|(earlier, now)| now.since(earlier));
        ServerWindow { latencies, preemptions, prefix_cache }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vLLM counts looked-up and found prompt tokens: 3,000 looked up and 2,400 found over the window is 0.8,
    /// whichever of its two spellings the server uses; SGLang's gauge is taken as read last; a counter that went
    /// down (a restart) or a window with no lookup gives nothing.
    #[test]
    fn the_prefix_cache_hit_rate_is_the_window_of_vllms_counters_or_sglangs_gauge() {
        let vllm = |prefix: &str, hits: f64, queries: f64| {
            let text = format!(
                "vllm:{prefix}prefix_cache_hits_total{{engine=\"0\"}} {hits}\nvllm:{prefix}prefix_cache_queries_total{{engine=\"0\"}} {queries}\n"
            );
            LatencyTotals::read(ServerKind::Vllm, &Exposition::parse(&text).unwrap())
        };
        for prefix in ["", "gpu_"] {
            let hits = vllm(prefix, 100.0, 1_000.0).window(&vllm(prefix, 2_500.0, 4_000.0)).prefix_cache.unwrap();
            assert_eq!((hits.hit_rate, hits.queried_tokens), (0.8, Some(3_000.0)), "{prefix}");
            assert!(hits.source.contains(&format!("vllm:{prefix}prefix_cache_hits_total")), "{}", hits.source);
        }
        assert_eq!(vllm("", 500.0, 1_000.0).window(&vllm("", 10.0, 20.0)).prefix_cache, None, "a restart");
        assert_eq!(vllm("", 5.0, 10.0).window(&vllm("", 5.0, 10.0)).prefix_cache, None, "nothing looked up");
        let sglang = |rate: f64| {
            let text = format!("sglang:cache_hit_rate{{model_name=\"m\"}} {rate}\n");
            LatencyTotals::read(ServerKind::Sglang, &Exposition::parse(&text).unwrap())
        };
        let hits = sglang(0.1).window(&sglang(0.65)).prefix_cache.unwrap();
        assert_eq!((hits.hit_rate, hits.queried_tokens), (0.65, None));
    }

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
        let ServerWindow { latencies, preemptions, prefix_cache } = before.window(&after);
        assert_eq!((preemptions, prefix_cache), (Some(3.0), None), "no cache counters in these readings");
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
        let ServerWindow { latencies, preemptions, .. } = before.window(&after);
        assert_eq!(latencies.len(), 1, "only the queue histogram, which did not go down: {latencies:?}");
        assert_eq!(preemptions, None);
        let llama = Exposition::parse(include_str!("../../tests/fixtures/speclab/llamacpp_metrics_draft.txt")).unwrap();
        assert_eq!(LatencyTotals::read(ServerKind::LlamaCpp, &llama), LatencyTotals::default());
    }
}
