//! The simulator as a self-hosted engine: a vLLM-style `/metrics` (requests running and waiting, KV-cache use,
//! prefix-cache queries and hits, queue time, tokens, and with speculative decoding on its drafts) and `/version`,
//! so a probe identifies it as vLLM, runs record its metrics, and Spec Lab and Guard's server figures can be tried
//! without a GPU. Its figures are its own bookkeeping of what it served — exact, not a model of a GPU: the
//! speculative-decoding counters follow the configured acceptance and do not change the response's timing.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use super::config::Speculative;

/// The model name every series carries, as vLLM labels its own.
const MODEL: &str = "sim-model";

/// What the engine counted since it started.
#[derive(Debug, Default)]
struct Counters {
    running: u64,
    waiting: u64,
    /// Tokens of the running requests (prompt and answer): what their KV cache holds at most.
    kv_tokens: u64,
    prompt_tokens: u64,
    generation_tokens: u64,
    prefix_queries: u64,
    prefix_hits: u64,
    queue_sum_s: f64,
    queue_count: u64,
    succeeded: u64,
    /// Speculative decoding, in expected values (reported whole: a counter counts whole drafts and tokens).
    drafts: f64,
    draft_tokens: f64,
    accepted_tokens: f64,
    accepted_per_position: Vec<f64>,
}

/// The engine's counters and gauges, shared by every worker of one simulator.
#[derive(Debug)]
pub struct EngineMetrics {
    counters: Mutex<Counters>,
    speculative: Option<Speculative>,
    kv_cache_tokens: u64,
    /// When the engine started, unix seconds (`process_start_time_seconds`: a restart shows as a new value).
    started_s: f64,
}

impl EngineMetrics {
    /// Counters at zero for an engine drafting as `speculative` says, with room for `kv_cache_tokens` tokens.
    pub fn new(speculative: Option<Speculative>, kv_cache_tokens: u64) -> Self {
        let started_s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| (d.as_millis() as f64 / 1e3).floor());
        Self { counters: Mutex::default(), speculative, kv_cache_tokens: kv_cache_tokens.max(1), started_s }
    }

    fn with<T>(&self, change: impl FnOnce(&mut Counters) -> T) -> T {
        change(&mut self.counters.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// A request waits for a slot until the guard goes.
    pub fn waiting(self: &Arc<Self>) -> Waiting {
        self.with(|c| c.waiting += 1);
        Waiting(Arc::clone(self))
    }

    /// A request is served after `queued_s` in the queue, its prompt `prompt_tokens` long with `cached` of them
    /// found in the prefix cache, its answer `answer_tokens` long: running until the guard goes.
    pub fn serving(self: &Arc<Self>, queued_s: f64, prompt_tokens: u64, cached: u64, answer_tokens: u64) -> Running {
        let kv = prompt_tokens + answer_tokens;
        self.with(|c| {
            c.running += 1;
            c.kv_tokens += kv;
            c.prompt_tokens += prompt_tokens;
            c.prefix_queries += prompt_tokens;
            c.prefix_hits += cached;
            c.queue_sum_s += queued_s;
            c.queue_count += 1;
        });
        Running { engine: Arc::clone(self), kv_tokens: kv }
    }

    /// A response of `tokens` generated tokens was sent to its end: counted, with the drafts that made it.
    pub fn completed(&self, tokens: u64) {
        self.with(|c| {
            c.generation_tokens += tokens;
            c.succeeded += 1;
            if let Some(spec) = &self.speculative {
                // Each verify step drafts `tokens` and emits 1 + the accepted ones: steps = answer / (1 + E[accepted]).
                let per_position = spec.per_position();
                let accepted_per_step: f64 = per_position.iter().sum();
                let steps = tokens as f64 / (1.0 + accepted_per_step);
                c.drafts += steps;
                c.draft_tokens += steps * f64::from(spec.tokens);
                c.accepted_tokens += steps * accepted_per_step;
                c.accepted_per_position.resize(per_position.len(), 0.0);
                for (total, share) in c.accepted_per_position.iter_mut().zip(&per_position) {
                    *total += steps * share;
                }
            }
        });
    }

    /// The Prometheus text exposition, as vLLM writes it.
    pub fn exposition(&self) -> String {
        let c = self.with(|c| Counters { accepted_per_position: c.accepted_per_position.clone(), ..*c });
        let mut out = String::new();
        let label = format!("{{model_name=\"{MODEL}\"}}");
        let mut series = |name: &str, kind: &str, value: String| {
            let _ = writeln!(out, "# TYPE {name} {kind}\n{name}{label} {value}");
        };
        series("vllm:num_requests_running", "gauge", c.running.to_string());
        series("vllm:num_requests_waiting", "gauge", c.waiting.to_string());
        let kv = (c.kv_tokens as f64 / self.kv_cache_tokens as f64).min(1.0);
        series("vllm:kv_cache_usage_perc", "gauge", format!("{kv:.6}"));
        series("vllm:prompt_tokens_total", "counter", c.prompt_tokens.to_string());
        series("vllm:generation_tokens_total", "counter", c.generation_tokens.to_string());
        series("vllm:request_success_total", "counter", c.succeeded.to_string());
        series("vllm:prefix_cache_queries_total", "counter", c.prefix_queries.to_string());
        series("vllm:prefix_cache_hits_total", "counter", c.prefix_hits.to_string());
        if self.speculative.is_some() {
            series("vllm:spec_decode_num_drafts_total", "counter", whole(c.drafts));
            series("vllm:spec_decode_num_draft_tokens_total", "counter", whole(c.draft_tokens));
            series("vllm:spec_decode_num_accepted_tokens_total", "counter", whole(c.accepted_tokens));
        }
        let queue = "vllm:request_queue_time_seconds";
        let _ = writeln!(out, "# TYPE {queue} histogram");
        let _ = writeln!(out, "{queue}_bucket{{model_name=\"{MODEL}\",le=\"+Inf\"}} {}", c.queue_count);
        let _ = writeln!(out, "{queue}_sum{label} {}", c.queue_sum_s);
        let _ = writeln!(out, "{queue}_count{label} {}", c.queue_count);
        if !c.accepted_per_position.is_empty() {
            let per_position = "vllm:spec_decode_num_accepted_tokens_per_pos_total";
            let _ = writeln!(out, "# TYPE {per_position} counter");
            for (position, total) in c.accepted_per_position.iter().enumerate() {
                let _ =
                    writeln!(out, "{per_position}{{model_name=\"{MODEL}\",position=\"{position}\"}} {}", whole(*total));
            }
        }
        let _ = writeln!(out, "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds {}", self.started_s);
        out
    }
}

/// A counter's value: whole drafts and tokens (the expected values accumulate below one).
fn whole(value: f64) -> String {
    format!("{}", value.floor())
}

/// A request waiting for a serving slot.
#[derive(Debug)]
pub struct Waiting(Arc<EngineMetrics>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.with(|c| c.waiting = c.waiting.saturating_sub(1));
    }
}

/// A request being served: its tokens held in the KV cache until it ends or its client goes.
#[derive(Debug)]
pub struct Running {
    engine: Arc<EngineMetrics>,
    kv_tokens: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let kv = self.kv_tokens;
        self.engine.with(|c| {
            c.running = c.running.saturating_sub(1);
            c.kv_tokens = c.kv_tokens.saturating_sub(kv);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{identify, spec_evidence, Exposition, SpecEvidence};

    #[test]
    fn the_probe_reads_the_engine_as_vllm_with_the_configured_acceptance() {
        let engine = Arc::new(EngineMetrics::new(Some(Speculative { tokens: 3, acceptance: 0.8 }), 1_000));
        let waiting = engine.waiting();
        let running = engine.serving(0.25, 100, 60, 300);
        let text = engine.exposition();
        let metrics = Exposition::parse(&text).unwrap();
        assert_eq!(identify(&metrics), Some(crate::model::ServerKind::Vllm), "{text}");
        assert_eq!(metrics.sum("vllm:num_requests_running"), Some(1.0));
        assert_eq!(metrics.sum("vllm:num_requests_waiting"), Some(1.0));
        assert_eq!(metrics.sum("vllm:kv_cache_usage_perc"), Some(0.4), "400 tokens of 1,000");
        assert_eq!(metrics.sum("vllm:prefix_cache_hits_total"), Some(60.0));
        drop((waiting, running));
        // 2,000 tokens: E[accepted] per step = 0.8 + 0.64 + 0.512 = 1.952, so 2,000 / 2.952 = 677.5 steps.
        engine.completed(2_000);
        let metrics = Exposition::parse(&engine.exposition()).unwrap();
        assert_eq!(metrics.sum("vllm:num_requests_running"), Some(0.0));
        assert_eq!(metrics.sum("vllm:kv_cache_usage_perc"), Some(0.0), "the finished request's tokens are freed");
        let SpecEvidence::Counters(counters) = spec_evidence(crate::model::ServerKind::Vllm, &metrics) else {
            panic!("counters expected")
        };
        assert_eq!((counters.drafts, counters.draft_tokens), (Some(677.0), 2_032.0));
        let rate = counters.accepted_tokens / counters.draft_tokens;
        assert!((rate - 1.952 / 3.0).abs() < 0.001, "vLLM's acceptance rate, accepted / drafted: {rate}");
        let positions: Vec<f64> = counters.per_position.values().copied().collect();
        assert_eq!(positions, [542.0, 433.0, 346.0], "position i survives 0.8^(i+1) of the steps");
    }

    #[test]
    fn without_drafting_no_speculative_series_are_exposed() {
        let engine = EngineMetrics::new(None, 1_000);
        engine.completed(10);
        let metrics = Exposition::parse(&engine.exposition()).unwrap();
        assert_eq!(spec_evidence(crate::model::ServerKind::Vllm, &metrics), SpecEvidence::Absent);
        assert_eq!(metrics.sum("vllm:generation_tokens_total"), Some(10.0));
    }
}
