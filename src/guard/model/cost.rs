//! What a schedule will cost: the requests and estimated tokens one run of its set sends, and those a day at its
//! cadence and its connector's prices.

use serde::{Deserialize, Serialize};

use super::schedule::Cadence;

/// What a schedule will cost: its requests and, with the connector's prices, dollars a day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostEstimate {
    /// Requests a day (prompts × runs a day).
    pub requests_per_day: f64,
    /// USD a day at most: input tokens estimated at 4 characters a token, output at `max_tokens` each (a
    /// workload's: at their mean lengths); `None` without prices, or for a dataset, whose tokens are in its rows.
    pub usd_per_day: Option<f64>,
}

impl CostEstimate {
    /// The cost of `requests` a run at `cadence`, of the tokens `volume` says when they are known.
    pub fn of_runs(
        requests: u32,
        volume: Option<RunVolume>,
        cadence: Cadence,
        prices: (Option<f64>, Option<f64>),
    ) -> Self {
        match volume {
            Some(volume) => volume.per_day(cadence, prices),
            None => Self { requests_per_day: f64::from(requests) * cadence.runs_per_day(), usd_per_day: None },
        }
    }
}

/// What one run of a benchmark set sends: its requests and their estimated tokens. With a cadence and a connector's
/// prices it gives the schedule's [`CostEstimate`]; the schedule form computes that in the browser from the same
/// numbers, so the estimate follows each pick without asking the server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunVolume {
    /// Requests a run (one per prompt).
    pub requests: u32,
    /// Input tokens a run, estimated at 4 characters a token (each prompt with the system prompt).
    pub input_tokens: f64,
    /// Output tokens a run at most: every answer at `max_tokens`.
    pub output_tokens: f64,
}

impl RunVolume {
    /// The volume of `prompts` (their texts) with `system_prompt` and `max_tokens`.
    pub fn of(prompts: &[&str], system_prompt: Option<&str>, max_tokens: u32) -> Self {
        let tokens = Self::estimated_tokens;
        let system = system_prompt.map_or(0.0, tokens);
        Self {
            requests: prompts.len() as u32,
            input_tokens: prompts.iter().map(|p| tokens(p) + system).sum(),
            output_tokens: prompts.len() as f64 * f64::from(max_tokens),
        }
    }

    /// A text's tokens as estimated here: 4 characters a token, rounded up.
    pub fn estimated_tokens(text: &str) -> f64 {
        (text.chars().count() as f64 / 4.0).ceil()
    }

    /// The volume with `each` more input tokens in every request (a system prompt's).
    pub fn with_system_tokens(self, each: f64) -> Self {
        Self { input_tokens: self.input_tokens + f64::from(self.requests) * each, ..self }
    }

    /// Requests and USD a day at `cadence`, at the connector's USD prices per 1M input and output tokens.
    pub fn per_day(&self, cadence: Cadence, prices: (Option<f64>, Option<f64>)) -> CostEstimate {
        let runs = cadence.runs_per_day();
        let usd_per_day = match prices {
            (None, None) => None,
            (input, output) => Some(
                (self.input_tokens * input.unwrap_or(0.0) + self.output_tokens * output.unwrap_or(0.0)) / 1_000_000.0
                    * runs,
            ),
        };
        CostEstimate { requests_per_day: f64::from(self.requests) * runs, usd_per_day }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_five_prompt_set_at_15m_is_480_requests_a_day() {
        let estimate = RunVolume::of(&["a"; 5], None, 100).per_day(Cadence::FifteenMinutes, (Some(1.0), Some(2.0)));
        assert_eq!(estimate.requests_per_day, 480.0);
        // Per run: 5 × 1 input token × $1/M + 5 × 100 output tokens × $2/M = $0.001005; 96 runs a day.
        assert!((estimate.usd_per_day.unwrap() - 0.001005 * 96.0).abs() < 1e-12);
        assert_eq!(RunVolume::of(&["a"], None, 1).per_day(Cadence::Weekly, (None, None)).usd_per_day, None);
    }
}
