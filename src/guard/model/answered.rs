//! What Guard keeps of what answered an evaluation's run, to set beside its baseline's when it alerts: the replies'
//! own word (model, `system_fingerprint`, `Server` header), what the server's cache served, its own queueing and
//! speculative decoding, and whether prompts carried marks. `Change` is one difference worth naming in an alert.

use serde::{Deserialize, Serialize};

use crate::model::{Fingerprint, PromptHeads};

/// What answered one run, as far as an alert names it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answered {
    /// The replies' own word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
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
    /// Whether the prompts started with marks.
    pub prompt_heads: PromptHeads,
}

/// One difference between a run and its baseline worth naming in an alert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "what")]
pub enum Change {
    /// Another value of the replies' `model`, `system_fingerprint` or `Server` header answered most replies.
    Answered {
        /// `model`, `system_fingerprint` or `Server header`.
        field: String,
        /// The baseline's.
        from: String,
        /// The run's.
        to: String,
    },
    /// A share (the cache's, the prefix-cache hit rate, the acceptance rate) moved.
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
            Self::PromptMarks { from, to } => format!("prompt marks {} → {}", marks(from), marks(to)),
        }
    }
}
