//! A run as a list of runs shows it (the runs page, the home page): its names and its headline figures already in
//! words, so that a list never carries a run's plan to the browser nor formats a figure there.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::model::{utc_minute, RunView};
use crate::model::{RunId, RunStatus};

/// How a list's output throughput is computed (the heading's explanation, on every page that lists runs).
pub const OUTPUT_THROUGHPUT_HOW: &str = "output tokens of successful requests ÷ the first measured send → the last end";
/// How a list's TTFT p95 is computed.
pub const TTFT_P95_HOW: &str =
    "send → first content chunk, 95th percentile of successful requests (linear interpolation)";
/// How a list's errors are counted.
pub const ERRORS_HOW: &str = "failed measured requests, of all measured (warm-ups left out)";

/// One run of a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunListing {
    /// The run.
    pub id: RunId,
    /// Its title.
    pub title: String,
    /// The model it asked for.
    pub model: String,
    /// The connector it measured, by name (the model again when the connector is deleted since).
    pub connector: String,
    /// Running, or how it ended.
    pub status: RunStatus,
    /// Output tokens of successful requests per second of the measured span (`435.2 tok/s`), `running…` while it
    /// runs, `—` when not measured.
    pub output_throughput: String,
    /// TTFT's 95th percentile over successful requests (`121 ms`).
    pub ttft_p95: String,
    /// Failed measured requests, of all measured (`1.5 % of 200`).
    pub errors: String,
    /// When it started, UTC to the minute.
    pub started: String,
}

impl RunListing {
    /// Whether the run matches a search: every word of `search` in its title, model or connector, ignoring case.
    pub fn matches(&self, search: &str) -> bool {
        let haystack = format!("{} {} {}", self.title, self.model, self.connector).to_lowercase();
        search.to_lowercase().split_whitespace().all(|word| haystack.contains(word))
    }
}

#[cfg(feature = "ssr")]
impl RunListing {
    /// `run` in words; `connector` is its connector's name, if the connector still exists.
    pub fn of(run: &RunView, connector: Option<&str>) -> Self {
        let (output_throughput, ttft_p95, errors) = match (&run.headline, run.status) {
            (Some(h), _) => (
                h.output_tok_per_sec.map_or("—".into(), |t| format!("{t:.1} tok/s")),
                h.ttft_p95_ms.map_or("—".into(), crate::report::ms),
                format!("{:.1} % of {}", h.error_rate() * 100.0, h.measured),
            ),
            (None, RunStatus::Running) => ("running…".into(), String::new(), String::new()),
            (None, _) => ("—".into(), "—".into(), "—".into()),
        };
        Self {
            id: run.id,
            title: run.title.clone(),
            model: run.model.clone(),
            connector: connector.map_or_else(|| run.model.clone(), str::to_string),
            status: run.status,
            output_throughput,
            ttft_p95,
            errors,
            started: utc_minute(run.created_at_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, plan_input};
    use crate::model::{RunHeadline, RunPlanInput};

    fn listed(status: RunStatus, headline: Option<RunHeadline>, connector: Option<&str>) -> RunListing {
        let input = RunPlanInput { title: Some("Support bot before deploy".into()), ..plan_input(&["p"], 8, 1) };
        let mut run = completed_run(input, "gpt-4o-mini");
        run.status = status;
        run.headline = headline;
        run.created_at_ms = 1_764_000_000_123;
        RunListing::of(&run, connector)
    }

    #[test]
    fn a_finished_run_lists_its_headline_figures_in_words() {
        let headline = RunHeadline {
            measured: 200,
            succeeded: 197,
            output_tok_per_sec: Some(435.24),
            requests_per_sec: Some(6.8),
            ttft_p95_ms: Some(121.4),
        };
        let row = listed(RunStatus::Completed, Some(headline), Some("staging vLLM"));
        assert_eq!(row.connector, "staging vLLM");
        assert_eq!(row.output_throughput, "435.2 tok/s");
        assert_eq!(row.ttft_p95, "121 ms");
        assert_eq!(row.errors, "1.5 % of 200");
        assert_eq!(row.started, "2025-11-24 16:00", "to the minute, without milliseconds");
    }

    #[test]
    fn a_running_run_says_so_and_an_unmeasured_one_shows_dashes() {
        let running = listed(RunStatus::Running, None, None);
        assert_eq!((running.output_throughput.as_str(), running.ttft_p95.as_str()), ("running…", ""));
        assert_eq!(running.connector, "gpt-4o-mini", "a deleted connector: the model names it");
        let failed = listed(RunStatus::Failed, None, Some("c"));
        assert_eq!((failed.output_throughput.as_str(), failed.errors.as_str()), ("—", "—"));
    }

    #[test]
    fn a_search_matches_every_word_in_title_model_or_connector_ignoring_case() {
        let row = listed(RunStatus::Completed, None, Some("Staging vLLM"));
        assert!(row.matches(""));
        assert!(row.matches("SUPPORT deploy"));
        assert!(row.matches("4o-mini before"), "model and title words together");
        assert!(row.matches("staging"), "the connector's name");
        assert!(!row.matches("support after"));
    }
}
