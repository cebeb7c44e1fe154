//! A multi-turn session's think time: how long its user waits after an answer before sending the next turn —
//! fixed, or drawn per turn (uniform, or exponential: a user who may answer at once or after a long read).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::ValidationError;

/// The longest think time a workload may ask (ten minutes): beyond it a session is not a conversation.
pub const MAX_THINK_MS: u64 = 600_000;

/// How a think time is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum ThinkTime {
    /// Always `ms`.
    #[serde(rename_all = "camelCase")]
    Fixed {
        /// Milliseconds.
        ms: u64,
    },
    /// Every time from `min_ms` to `max_ms` equally likely.
    #[serde(rename_all = "camelCase")]
    Uniform {
        /// Shortest, ms.
        min_ms: u64,
        /// Longest, ms.
        max_ms: u64,
    },
    /// Exponential with mean `mean_ms`, cut at [`MAX_THINK_MS`].
    #[serde(rename_all = "camelCase")]
    Exponential {
        /// Mean, ms.
        mean_ms: u64,
    },
}

impl Default for ThinkTime {
    /// No pause: the next turn is sent as soon as the answer ends.
    fn default() -> Self {
        Self::Fixed { ms: 0 }
    }
}

impl ThinkTime {
    /// Refuses a time no session could wait, naming the parameter under `field`.
    pub fn validate(&self, field: &str) -> Result<(), ValidationError> {
        let check = |part: &str, ms: u64| {
            if ms <= MAX_THINK_MS {
                Ok(())
            } else {
                Err(ValidationError::new(format!("{field}.{part}"), format!("{ms} ms is above {MAX_THINK_MS} ms")))
            }
        };
        match *self {
            Self::Fixed { ms } => check("ms", ms),
            Self::Uniform { min_ms, max_ms } => {
                check("minMs", min_ms)?;
                check("maxMs", max_ms)?;
                if min_ms > max_ms {
                    return Err(ValidationError::new(
                        format!("{field}.maxMs"),
                        format!("{max_ms} ms is below minMs {min_ms} ms"),
                    ));
                }
                Ok(())
            }
            Self::Exponential { mean_ms } => check("meanMs", mean_ms),
        }
    }

    /// The think time at `p` in `[0, 1)`: the distribution's quantile, so a seeded uniform draws it.
    pub fn at(&self, p: f64) -> Duration {
        let ms = match *self {
            Self::Fixed { ms } => ms as f64,
            Self::Uniform { min_ms, max_ms } => min_ms as f64 + p * (max_ms - min_ms) as f64,
            Self::Exponential { mean_ms } => -(mean_ms as f64) * (1.0 - p).ln(),
        };
        Duration::from_secs_f64(ms.clamp(0.0, MAX_THINK_MS as f64) / 1e3)
    }

    /// The longest think time a draw can give, ms (an exponential one at its cut).
    pub fn longest_ms(&self) -> u64 {
        match *self {
            Self::Fixed { ms } => ms,
            Self::Uniform { max_ms, .. } => max_ms,
            Self::Exponential { .. } => MAX_THINK_MS,
        }
    }

    /// The think time in a few words: `2000 ms`, `uniform 1000–5000 ms`, `exponential, mean 3000 ms`.
    pub fn describe(&self) -> String {
        match self {
            Self::Fixed { ms } => format!("{ms} ms"),
            Self::Uniform { min_ms, max_ms } => format!("uniform {min_ms}–{max_ms} ms"),
            Self::Exponential { mean_ms } => format!("exponential, mean {mean_ms} ms"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shape_draws_by_its_quantile_and_refuses_impossible_times() {
        assert_eq!(ThinkTime::Fixed { ms: 250 }.at(0.9), Duration::from_millis(250));
        assert_eq!(ThinkTime::Uniform { min_ms: 1_000, max_ms: 3_000 }.at(0.25), Duration::from_millis(1_500));
        // scipy.stats.expon(scale=2000).ppf(0.5) = 1386.2943611198905
        let median = ThinkTime::Exponential { mean_ms: 2_000 }.at(0.5).as_secs_f64() * 1e3;
        assert!((median - 1_386.294_361_119_890_5).abs() < 1e-6, "{median}");
        assert_eq!(ThinkTime::Exponential { mean_ms: 2_000 }.at(1.0 - 1e-300), Duration::from_millis(MAX_THINK_MS));
        let field = |t: ThinkTime| t.validate("workload.think").unwrap_err().field;
        assert_eq!(field(ThinkTime::Fixed { ms: MAX_THINK_MS + 1 }), "workload.think.ms");
        assert_eq!(field(ThinkTime::Uniform { min_ms: 5, max_ms: 4 }), "workload.think.maxMs");
        let read: ThinkTime =
            serde_json::from_value(serde_json::json!({"kind": "uniform", "minMs": 1, "maxMs": 2})).unwrap();
        assert_eq!(read.describe(), "uniform 1–2 ms");
    }
}
