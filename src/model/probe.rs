//! What a self-hosted server says of itself, as the probe and the recorder read it: which engine it is, and the
//! speculative-decoding figures its metrics give — counters (vLLM, llama.cpp) whose deltas over a window make an
//! acceptance rate and a mean acceptance length, last-batch gauges (SGLang), or TGI's skipped tokens per step. How each
//! figure is computed is written beside it (`../docs`, `docs/SPEC_LAB.md`); the formulas are vLLM's own.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The engine behind an OpenAI-compatible endpoint, told by its metric prefixes and probe paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerKind {
    /// vLLM (`vllm:` metrics).
    Vllm,
    /// SGLang (`sglang:` metrics).
    Sglang,
    /// llama.cpp's server (`llamacpp:` metrics, `/props`).
    LlamaCpp,
    /// Hugging Face TGI (`tgi_` metrics, `/info`).
    Tgi,
}

spelled!(ServerKind { Vllm => "vllm", Sglang => "sglang", LlamaCpp => "llama_cpp", Tgi => "tgi" });

impl ServerKind {
    /// Its name as people write it.
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::Vllm => "vLLM",
            ServerKind::Sglang => "SGLang",
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::Tgi => "TGI",
        }
    }
}

/// Speculative-decoding counters of one scrape: totals since the server started, summed over engines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecCounters {
    /// Verify steps (drafts); `None` where the server does not count them (vLLM V0).
    pub drafts: Option<f64>,
    /// Tokens drafted.
    pub draft_tokens: f64,
    /// Drafted tokens the target model accepted.
    pub accepted_tokens: f64,
    /// Accepted tokens per draft position (`0` is the first drafted token).
    #[serde(deserialize_with = "crate::wire::number_keys")]
    pub per_position: BTreeMap<u32, f64>,
}

/// The speculative-decoding figures of a window between two scrapes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecWindow {
    /// Verify steps in the window, where counted.
    pub drafts: Option<f64>,
    /// Tokens drafted in the window.
    pub draft_tokens: f64,
    /// Of those, accepted.
    pub accepted_tokens: f64,
    /// Δaccepted / Δdrafted; `None` when nothing was drafted (not 0 %).
    pub acceptance_rate: Option<f64>,
    /// 1 + Δaccepted / Δdrafts (tokens per target pass, the bonus token included); `None` without drafts.
    pub mean_acceptance_length: Option<f64>,
    /// Δaccepted at each position / Δdrafts: how often the n-th drafted token survives.
    pub per_position: Vec<(u32, f64)>,
}

/// Why a window has no figures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum WindowError {
    /// A counter went down between the scrapes: the server restarted, and the deltas mean nothing.
    #[error("the server restarted during the window ({counter} went down); its figures are left out")]
    Restarted {
        /// The counter that went down.
        counter: String,
    },
}

impl SpecCounters {
    /// The window from `self` (the earlier scrape) to `later`.
    pub fn window(&self, later: &SpecCounters) -> Result<SpecWindow, WindowError> {
        let delta = |counter: &str, before: f64, after: f64| {
            if after < before {
                Err(WindowError::Restarted { counter: counter.to_string() })
            } else {
                Ok(after - before)
            }
        };
        let draft_tokens = delta("draft tokens", self.draft_tokens, later.draft_tokens)?;
        let accepted_tokens = delta("accepted tokens", self.accepted_tokens, later.accepted_tokens)?;
        let drafts = match (self.drafts, later.drafts) {
            (Some(before), Some(after)) => Some(delta("drafts", before, after)?),
            _ => None,
        };
        let mut per_position = Vec::new();
        for (&position, &after) in &later.per_position {
            let before = self.per_position.get(&position).copied().unwrap_or(0.0);
            let accepted = delta("accepted tokens per position", before, after)?;
            if let Some(steps) = drafts.filter(|d| *d > 0.0) {
                per_position.push((position, accepted / steps));
            }
        }
        Ok(SpecWindow {
            acceptance_rate: (draft_tokens > 0.0).then(|| accepted_tokens / draft_tokens),
            mean_acceptance_length: drafts.filter(|d| *d > 0.0).map(|d| 1.0 + accepted_tokens / d),
            drafts,
            draft_tokens,
            accepted_tokens,
            per_position,
        })
    }
}

/// What a probe found at one path of the server root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbedPath {
    /// `/metrics`, `/props`, …
    pub path: String,
    /// In words: `200, 27 series`, `404`, `timed out after 3 s`, …
    pub outcome: String,
    /// It answered with something usable.
    pub usable: bool,
}

/// Whether a server decodes speculatively, and how that is known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Speculation {
    /// A draft method is configured; `None` when the server does not say.
    pub configured: Option<bool>,
    /// Drafts were made since the server started; `None` when it does not count them.
    pub active: Option<bool>,
    /// The method, where named (`draft model`, `n-gram`, `EAGLE`, …).
    pub method: Option<String>,
    /// The most tokens drafted per step, where known.
    pub draft_max: Option<u32>,
    /// How the above is known, in words (which path, which series).
    pub how: String,
    /// The counters since the server started, where it has them: acceptance since boot.
    pub since_start: Option<SpecWindow>,
}

/// What probing a connector's server found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    /// The server root probed (the base URL without its trailing `/v1`).
    pub root: String,
    /// The engine, when something told it.
    pub kind: Option<ServerKind>,
    /// Its version or build, where exposed.
    pub version: Option<String>,
    /// The model it serves, where exposed.
    pub model: Option<String>,
    /// Each path tried and what came back.
    pub paths: Vec<ProbedPath>,
    /// Speculative decoding.
    pub speculation: Speculation,
    /// The server exposes Prometheus metrics (so runs can record them).
    pub has_metrics: bool,
    /// What could not be measured and why, in words.
    pub notes: Vec<String>,
}

/// One reading of a server's load during a run, from its gauges.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSample {
    /// Since the run's first scrape, ms.
    pub at_ms: u64,
    /// Requests being processed (vLLM `num_requests_running`, llama.cpp `requests_processing`, …).
    pub running: Option<f64>,
    /// Requests waiting for a slot (vLLM `num_requests_waiting`, llama.cpp `requests_deferred`, …).
    pub waiting: Option<f64>,
    /// KV-cache use, 0–1, where exposed.
    pub kv_cache: Option<f64>,
}

/// The `counter` of a restart seen in the server's process start time rather than in a counter.
pub const PROCESS_START: &str = "process start time";

impl SpecOutcome {
    /// How a restart showed, in words ("draft tokens went down", "its process start time changed"); `None` when
    /// there was none.
    pub fn restart_evidence(&self) -> Option<String> {
        match self {
            SpecOutcome::Restarted { counter } if counter == PROCESS_START => {
                Some(format!("its {PROCESS_START} changed"))
            }
            SpecOutcome::Restarted { counter } => Some(format!("{counter} went down")),
            SpecOutcome::Window(_) | SpecOutcome::NotCounted | SpecOutcome::Unfinished { .. } => None,
        }
    }
}

/// Speculative decoding over a run, from the server's counters at its start and end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum SpecOutcome {
    /// The counters moved by this much.
    Window(SpecWindow),
    /// The server restarted (a counter went down, or its process start time changed): the window says nothing.
    Restarted {
        /// What showed it: the counter that went down, or [`PROCESS_START`].
        counter: String,
    },
    /// The server has no speculative-decoding counters (off, or an engine that only has gauges).
    NotCounted,
    /// The reading after the work failed, so no window covers the whole work (one ending earlier would undercount).
    Unfinished {
        /// Why the last reading failed.
        reason: String,
    },
}

/// What a run recorded of its server's own metrics: scraped when it started, every second while it ran, and when
/// it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerMetrics {
    /// The engine.
    pub kind: ServerKind,
    /// Where `/metrics` was read.
    pub root: String,
    /// Scrapes that answered.
    pub scrapes: u32,
    /// Scrapes that did not (the run went on).
    pub failed_scrapes: u32,
    /// The load over the run, at most [`MAX_SERVER_SAMPLES`] (thinned evenly beyond).
    pub samples: Vec<ServerSample>,
    /// Speculative decoding between the first and the last scrape.
    pub spec: SpecOutcome,
    /// The server's own latency histograms over the run (every request it served, not only the run's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latencies: Vec<ServerLatency>,
    /// Requests the server preempted during the run (vLLM), when it counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<f64>,
    /// The server's prefix-cache hit rate over the run, when its metrics say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_cache: Option<PrefixCacheHits>,
    /// The version or build the server said it runs as the run started (llama.cpp's `build_info`, vLLM's
    /// `/version`, …), when it says one. Only on the server: what Guard's alerts name, never shown in the browser,
    /// whose build then carries not even the code to skip it (docs/PERFORMANCE.md, 'Browser bundle').
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The share of prompt tokens the server found in its prefix cache, by its own metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefixCacheHits {
    /// Hits / lookups, 0 to 1.
    pub hit_rate: f64,
    /// Prompt tokens looked up over the run (Δ of vLLM's queries counter); `None` from a gauge.
    pub queried_tokens: Option<f64>,
    /// How it was read: `Δ vllm:prefix_cache_hits_total / Δ vllm:prefix_cache_queries_total between the first and
    /// the last reading`, or `sglang:cache_hit_rate at the last reading`.
    pub source: String,
}

/// One of the server's latency histograms over a window: Δsum / Δcount between two readings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerLatency {
    /// What it measures ("time to first token", "queue time", …).
    pub label: String,
    /// The histogram's series name.
    pub series: String,
    /// Requests it counted in the window (Δcount).
    pub requests: f64,
    /// Their mean, ms (Δsum / Δcount); `None` when it counted none.
    pub mean_ms: Option<f64>,
}

/// Load samples a run keeps at most (ten minutes at one a second; a longer run keeps every other one, and so on).
pub const MAX_SERVER_SAMPLES: usize = 600;

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(drafts: f64, drafted: f64, accepted: f64, per_position: &[(u32, f64)]) -> SpecCounters {
        SpecCounters {
            drafts: Some(drafts),
            draft_tokens: drafted,
            accepted_tokens: accepted,
            per_position: per_position.iter().copied().collect(),
        }
    }

    #[test]
    fn a_window_follows_vllms_formulas() {
        // vLLM's own log line for a window of 5-token drafts: 88.8 % accepted, 5.44 tokens per pass.
        let before = counters(100.0, 500.0, 400.0, &[(0, 95.0), (1, 90.0)]);
        let after = counters(200.0, 1000.0, 844.0, &[(0, 193.3), (1, 184.9)]);
        let window = before.window(&after).unwrap();
        assert_eq!((window.drafts, window.draft_tokens, window.accepted_tokens), (Some(100.0), 500.0, 444.0));
        assert!((window.acceptance_rate.unwrap() - 0.888).abs() < 1e-12);
        assert!((window.mean_acceptance_length.unwrap() - 5.44).abs() < 1e-12);
        assert_eq!(window.per_position.len(), 2);
        assert!((window.per_position[0].1 - 0.983).abs() < 1e-9 && (window.per_position[1].1 - 0.949).abs() < 1e-9);
    }

    #[test]
    fn no_drafts_is_no_rate_not_zero_percent() {
        let same = counters(10.0, 40.0, 30.0, &[]);
        let window = same.window(&same).unwrap();
        assert_eq!((window.acceptance_rate, window.mean_acceptance_length), (None, None));
        let v0 = SpecCounters { drafts: None, ..counters(0.0, 40.0, 30.0, &[]) };
        let later = SpecCounters { drafts: None, ..counters(0.0, 80.0, 50.0, &[]) };
        let window = v0.window(&later).unwrap();
        assert_eq!((window.acceptance_rate, window.mean_acceptance_length), (Some(0.5), None), "V0 counts no drafts");
    }

    #[test]
    fn a_counter_that_went_down_means_a_restart() {
        let before = counters(100.0, 500.0, 400.0, &[(0, 95.0)]);
        let restarted = counters(3.0, 15.0, 12.0, &[(0, 3.0)]);
        let err = before.window(&restarted).unwrap_err();
        assert_eq!(err, WindowError::Restarted { counter: "draft tokens".into() });
        assert!(err.to_string().contains("restarted"));
        let only_positions = counters(100.0, 500.0, 400.0, &[(0, 50.0)]);
        assert!(before.window(&only_positions).is_err(), "a per-position counter going down counts too");
    }
}
