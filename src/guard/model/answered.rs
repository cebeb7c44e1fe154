//! What Guard keeps of what answered an evaluation's run, to set beside its baseline's when it alerts: the replies'
//! own word (model, `system_fingerprint`, `Server` header), the engine's version, what the server's cache served,
//! its own queueing, load, KV-cache use and speculative decoding, and whether prompts carried marks. `Change` is one difference worth naming in an alert;
//! `AlertContext` is all an alert says of why, beside its figures.

use serde::{Deserialize, Serialize};

use crate::model::{Fingerprint, PromptHeads, Verdict};

/// What answered one run, as far as an alert names it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answered {
    /// The replies' own word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// The engine and the version its server said it runs (`vLLM 0.10.0`, `llama.cpp b6000`), when the run
    /// recorded the server's metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Prompt tokens the server said it served from its cache, over prompt tokens (successful requests whose
    /// server said both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_share: Option<f64>,
    /// The server's own prefix-cache hit rate over the run, from its metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_hit_rate: Option<f64>,
    /// The server's own mean queueing time over the run, ms, from its metrics (Δsum / Δcount of its histogram).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_mean_ms: Option<f64>,
    /// Speculative decoding's acceptance rate over the run, from the server's metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance_rate: Option<f64>,
    /// Speculative decoding's tokens drafted per step (the positions the server counts acceptance at: vLLM's
    /// per-position counters), a setting of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft_length: Option<u32>,
    /// The highest KV-cache use the server said during the run, 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_cache_peak: Option<f64>,
    /// Requests the server said it was processing, on average over the run's readings (the run's own and any
    /// other traffic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running_mean: Option<f64>,
    /// Requests the server said were waiting for a slot, on average over the run's readings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_mean: Option<f64>,
    /// Whether the prompts started with marks.
    pub prompt_heads: PromptHeads,
}

/// One difference between a run and its baseline worth naming in an alert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "what")]
pub enum Change {
    /// Another value of the replies' `model`, `system_fingerprint` or `Server` header answered most replies, or the
    /// server says another engine version.
    Answered {
        /// `model`, `system_fingerprint`, `Server header` or `engine`.
        field: String,
        /// The baseline's.
        from: String,
        /// The run's.
        to: String,
    },
    /// A share (the cache's, the prefix-cache hit rate, the acceptance rate, the KV-cache use) moved.
    Share {
        /// Its name.
        name: String,
        /// The baseline's, 0–1.
        from: f64,
        /// The run's, 0–1.
        to: f64,
    },
    /// The server's own mean queueing time moved.
    QueueTime {
        /// The baseline's, ms.
        from_ms: f64,
        /// The run's, ms.
        to_ms: f64,
    },
    /// The server's load moved: requests it processed or kept waiting, on average over the run.
    Load {
        /// `requests running` or `requests waiting`.
        name: String,
        /// The baseline's mean.
        from: f64,
        /// The run's mean.
        to: f64,
    },
    /// The prompts' marks were turned on or off.
    PromptMarks {
        /// The baseline's.
        from: PromptHeads,
        /// The run's.
        to: PromptHeads,
    },
}

impl Change {
    /// In words: `system_fingerprint b100 → b200`, `prefix-cache hit rate 61 % → 4 %`, `the server's queue time +180 ms …`.
    pub fn describe(&self) -> String {
        let marks = |h: &PromptHeads| if *h == PromptHeads::Off { "off" } else { "on" };
        match self {
            Self::Answered { field, from, to } => format!("{field} {from} → {to}"),
            Self::Share { name, from, to } => format!("{name} {:.0} % → {:.0} %", from * 100.0, to * 100.0),
            Self::QueueTime { from_ms, to_ms } => {
                format!("the server's queue time {:+.0} ms ({from_ms:.0} → {to_ms:.0} ms, mean)", to_ms - from_ms)
            }
            Self::Load { name, from, to } => format!("{name} in the server {from:.1} → {to:.1} (mean)"),
            Self::PromptMarks { from, to } => format!("prompt marks {} → {}", marks(from), marks(to)),
        }
    }
}

/// One of an evaluation's slowest requests, as an alert lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlowRequest {
    /// Its place in send order (`#` in the report's table).
    pub seq: u64,
    /// Its total time, ms.
    pub total_ms: f64,
    /// Its time to first token, ms, when it streamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
}

/// Why a breaching evaluation may have breached, as its alert says it: what differs from the baseline, whether the
/// run's own figures are to be trusted, and where to look first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertContext {
    /// What differs between what answered the run and what answered its baseline (none: nothing Guard reads moved).
    pub changes: Vec<Change>,
    /// The run's validity verdict.
    pub verdict: Verdict,
    /// It in one line: `valid (6 checks passed)`, `invalid: client timing`.
    pub validity: String,
    /// The run's slowest successful requests, slowest first.
    pub slowest: Vec<SlowRequest>,
}

impl AlertContext {
    /// What changed, in one line: `system_fingerprint b100 → b200; cached prompt share 80 % → 0 %`, or that nothing
    /// Guard reads did.
    pub fn changed_line(&self) -> String {
        if self.changes.is_empty() {
            return "What changed: nothing Guard reads (the replies' model, system_fingerprint and Server header, the \
                    engine's version, the cache, the server's queue and acceptance) differs from the baseline"
                .to_string();
        }
        let named: Vec<String> = self.changes.iter().map(Change::describe).collect();
        format!("What changed: {}", named.join("; "))
    }

    /// The run's verdict, in one line.
    pub fn validity_line(&self) -> String {
        match self.verdict {
            Verdict::Valid => format!("The run: {}", self.validity),
            Verdict::Invalid => {
                format!("The run: {} — its report says what to change before trusting its figures", self.validity)
            }
        }
    }

    /// The slowest requests, in one line: `Slowest requests: #12 812 ms, #3 790 ms`.
    pub fn slowest_line(&self) -> Option<String> {
        let listed: Vec<String> = self
            .slowest
            .iter()
            .map(|r| match r.ttft_ms {
                Some(ttft) => format!("#{} {:.0} ms (TTFT {:.0} ms)", r.seq, r.total_ms, ttft),
                None => format!("#{} {:.0} ms", r.seq, r.total_ms),
            })
            .collect();
        (!listed.is_empty()).then(|| format!("Slowest requests: {}", listed.join(", ")))
    }
}
