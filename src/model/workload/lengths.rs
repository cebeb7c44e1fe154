//! A token length drawn per request: an input (prompt) length or an output (answer) length. The shapes the
//! serving benchmarks state results in — fixed ("input 1,000 / output 200"), uniform, normal and log-normal
//! (clipped to a range), or an empirical histogram (the lengths of a dataset) — each validated here so that an
//! impossible one is refused with the field named before anything runs. Drawing is `workload::service::lengths` (server
//! side): the inverse of each distribution's CDF at a seeded uniform, so a seed repeats a run's lengths exactly.

use serde::{Deserialize, Serialize};

use crate::model::ValidationError;

/// Limits of workload lengths.
pub mod workload_limits {
    /// Tokens of one prompt at most (128 Ki: the longest context windows served today).
    pub const MAX_INPUT_TOKENS: u32 = 131_072;
    /// Tokens of one answer at most (as a run's `max_tokens`).
    pub const MAX_OUTPUT_TOKENS: u32 = crate::model::limits::MAX_TOKEN_BUDGET;
    /// Bins of an empirical histogram.
    pub const MAX_HISTOGRAM_BINS: usize = 10_000;
    /// Groups of a shared-prefix workload.
    pub const MAX_GROUPS: u32 = 10_000;
    /// Tokens of a shared-prefix workload's prefixes together (groups × prefix tokens), kept while a run sends:
    /// about 8 MB of text (16 prefixes of a whole 128 Ki context, or 1,000 of 2,000 tokens), so one run of any
    /// workload within these limits stays within its memory budget (`docs/RELIABILITY.md`).
    pub const MAX_PREFIX_TOKENS_KEPT: u64 = 2_000_000;
    /// Requests of one workload (a run's measured requests at most).
    pub const MAX_REQUESTS: u32 = 1_000_000;
    /// Turns of one multi-turn session at most.
    pub const MAX_TURNS: u32 = 100;
    /// σ of a log-normal at most: beyond it, nearly every draw is clipped to the range's ends.
    pub const MAX_LOG_SIGMA: f64 = 4.0;
}

/// How one length is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum LengthDist {
    /// Always `tokens`.
    #[serde(rename_all = "camelCase")]
    Fixed {
        /// The length.
        tokens: u32,
    },
    /// Every whole length from `min` to `max` equally likely.
    #[serde(rename_all = "camelCase")]
    Uniform {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// Normal with `mean` and `sd`, rounded to whole tokens and clipped to `[min, max]`.
    #[serde(rename_all = "camelCase")]
    Normal {
        /// Mean, tokens.
        mean: f64,
        /// Standard deviation, tokens.
        sd: f64,
        /// Draws below are raised to it.
        min: u32,
        /// Draws above are lowered to it.
        max: u32,
    },
    /// Log-normal: `median · e^(σ·Z)`, the long right tail of real prompt and answer lengths; rounded and clipped
    /// to `[min, max]`.
    #[serde(rename_all = "camelCase")]
    LogNormal {
        /// Median, tokens.
        median: f64,
        /// σ of the underlying normal.
        sigma: f64,
        /// Draws below are raised to it.
        min: u32,
        /// Draws above are lowered to it.
        max: u32,
    },
    /// An empirical distribution: each `(tokens, weight)` bin drawn in proportion to its weight (a dataset's
    /// lengths and how often each came).
    #[serde(rename_all = "camelCase")]
    Histogram {
        /// Lengths and their weights.
        bins: Vec<(u32, f64)>,
    },
}

impl LengthDist {
    /// A fixed length.
    pub fn fixed(tokens: u32) -> Self {
        Self::Fixed { tokens }
    }

    /// Refuses parameters no draw could follow, naming `field` (`input`, `output`, …) and the bad parameter;
    /// every length drawn is then in `1..=max_tokens`.
    pub fn validate(&self, field: &str, max_tokens: u32) -> Result<(), ValidationError> {
        let fail = |part: &str, reason: String| Err(ValidationError::new(format!("{field}.{part}"), reason));
        let length = |part: &str, tokens: u32| {
            if (1..=max_tokens).contains(&tokens) {
                Ok(())
            } else {
                fail(part, format!("{tokens} tokens is outside 1..={max_tokens}"))
            }
        };
        let range = |min: u32, max: u32| {
            length("min", min)?;
            length("max", max)?;
            if min > max {
                return fail("max", format!("{max} is below min {min}"));
            }
            Ok(())
        };
        let finite_positive = |part: &str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(())
            } else {
                fail(part, format!("{value} must be a number above 0"))
            }
        };
        match self {
            Self::Fixed { tokens } => length("tokens", *tokens),
            Self::Uniform { min, max } => range(*min, *max),
            Self::Normal { mean, sd, min, max } => {
                range(*min, *max)?;
                if !mean.is_finite() {
                    return fail("mean", format!("{mean} is not a number of tokens"));
                }
                if !(sd.is_finite() && *sd >= 0.0) {
                    return fail("sd", format!("{sd} must be a number of tokens, 0 or more"));
                }
                Ok(())
            }
            Self::LogNormal { median, sigma, min, max } => {
                range(*min, *max)?;
                finite_positive("median", *median)?;
                if !(sigma.is_finite() && (0.0..=workload_limits::MAX_LOG_SIGMA).contains(sigma)) {
                    return fail("sigma", format!("{sigma} is outside 0..={}", workload_limits::MAX_LOG_SIGMA));
                }
                Ok(())
            }
            Self::Histogram { bins } => {
                if bins.is_empty() {
                    return fail("bins", "add at least one (tokens, weight) bin".into());
                }
                if bins.len() > workload_limits::MAX_HISTOGRAM_BINS {
                    return fail(
                        "bins",
                        format!("{} bins; at most {}", bins.len(), workload_limits::MAX_HISTOGRAM_BINS),
                    );
                }
                for (i, (tokens, weight)) in bins.iter().enumerate() {
                    length(&format!("bins[{i}]"), *tokens)?;
                    if !(weight.is_finite() && *weight >= 0.0) {
                        return fail(&format!("bins[{i}]"), format!("weight {weight} must be 0 or more"));
                    }
                }
                if bins.iter().all(|(_, weight)| *weight == 0.0) {
                    return fail("bins", "every weight is 0: nothing could be drawn".into());
                }
                Ok(())
            }
        }
    }

    /// The mean length a draw has, before clipping for normal and log-normal ones (for plans and estimates).
    pub fn nominal_mean(&self) -> f64 {
        match self {
            Self::Fixed { tokens } => f64::from(*tokens),
            Self::Uniform { min, max } => (f64::from(*min) + f64::from(*max)) / 2.0,
            Self::Normal { mean, .. } => *mean,
            Self::LogNormal { median, sigma, .. } => median * (sigma * sigma / 2.0).exp(),
            Self::Histogram { bins } => {
                let total: f64 = bins.iter().map(|(_, w)| w).sum();
                bins.iter().map(|(t, w)| f64::from(*t) * w).sum::<f64>() / total
            }
        }
    }

    /// The longest length a draw can have.
    pub fn longest(&self) -> u32 {
        match self {
            Self::Fixed { tokens } => *tokens,
            Self::Uniform { max, .. } | Self::Normal { max, .. } | Self::LogNormal { max, .. } => *max,
            Self::Histogram { bins } => bins.iter().filter(|(_, w)| *w > 0.0).map(|(t, _)| *t).max().unwrap_or(0),
        }
    }

    /// The distribution in a few words: `1000 tokens`, `uniform 100–300`, `normal 1000 ± 100 (500–1500)`.
    pub fn describe(&self) -> String {
        let n = crate::model::trim_number;
        match self {
            Self::Fixed { tokens } => format!("{tokens} tokens"),
            Self::Uniform { min, max } => format!("uniform {min}–{max} tokens"),
            Self::Normal { mean, sd, min, max } => format!("normal {} ± {} tokens ({min}–{max})", n(*mean), n(*sd)),
            Self::LogNormal { median, sigma, min, max } => {
                format!("log-normal, median {} tokens, σ {} ({min}–{max})", n(*median), n(*sigma))
            }
            Self::Histogram { bins } => format!("a histogram of {} lengths", bins.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_shape_as_the_api_and_a_workload_file_spell_it() {
        let read = |json: serde_json::Value| serde_json::from_value::<LengthDist>(json).unwrap();
        assert_eq!(read(serde_json::json!({"kind": "fixed", "tokens": 200})), LengthDist::fixed(200));
        assert_eq!(
            read(serde_json::json!({"kind": "logNormal", "median": 300, "sigma": 0.5, "min": 10, "max": 4000})),
            LengthDist::LogNormal { median: 300.0, sigma: 0.5, min: 10, max: 4000 }
        );
        assert_eq!(
            read(serde_json::json!({"kind": "histogram", "bins": [[10, 2], [20, 1.5]]})),
            LengthDist::Histogram { bins: vec![(10, 2.0), (20, 1.5)] }
        );
        let typo = serde_json::json!({"kind": "fixed", "token": 200});
        assert!(serde_json::from_value::<LengthDist>(typo).is_err(), "an unknown key is refused, not ignored");
    }

    #[test]
    fn names_the_parameter_of_every_impossible_distribution() {
        let cases = [
            (LengthDist::fixed(0), "input.tokens"),
            (LengthDist::fixed(200_000), "input.tokens"),
            (LengthDist::Uniform { min: 10, max: 5 }, "input.max"),
            (LengthDist::Normal { mean: 100.0, sd: -1.0, min: 1, max: 200 }, "input.sd"),
            (LengthDist::Normal { mean: f64::NAN, sd: 1.0, min: 1, max: 200 }, "input.mean"),
            (LengthDist::Normal { mean: 100.0, sd: 1.0, min: 0, max: 200 }, "input.min"),
            (LengthDist::LogNormal { median: 0.0, sigma: 0.5, min: 1, max: 200 }, "input.median"),
            (LengthDist::LogNormal { median: 50.0, sigma: 9.0, min: 1, max: 200 }, "input.sigma"),
            (LengthDist::Histogram { bins: vec![] }, "input.bins"),
            (LengthDist::Histogram { bins: vec![(10, 0.0)] }, "input.bins"),
            (LengthDist::Histogram { bins: vec![(10, 1.0), (20, -1.0)] }, "input.bins[1]"),
            (LengthDist::Histogram { bins: vec![(10, 1.0), (0, 1.0)] }, "input.bins[1]"),
        ];
        for (dist, field) in cases {
            let error = dist.validate("input", workload_limits::MAX_INPUT_TOKENS).unwrap_err();
            assert_eq!(error.field, field, "{dist:?}: {error}");
        }
        assert!(LengthDist::Normal { mean: 5.0, sd: 0.0, min: 1, max: 10 }.validate("output", 10).is_ok());
    }

    #[test]
    fn describes_itself_and_its_mean() {
        assert_eq!(LengthDist::fixed(1000).describe(), "1000 tokens");
        let normal = LengthDist::Normal { mean: 1000.0, sd: 100.0, min: 500, max: 1500 };
        assert_eq!(normal.describe(), "normal 1000 ± 100 tokens (500–1500)");
        assert_eq!(LengthDist::Uniform { min: 100, max: 300 }.nominal_mean(), 200.0);
        let histogram = LengthDist::Histogram { bins: vec![(10, 3.0), (20, 1.0)] };
        assert_eq!(histogram.nominal_mean(), 12.5);
        assert_eq!(histogram.longest(), 20);
        assert_eq!(normal.longest(), 1500);
    }
}
