//! A workload's lengths and cache as a report shows them — the page (drawn on the server) and the HTML export
//! (made in the browser) alike: each request's asked and served lengths, the rows of the lengths table, and the
//! cache in words. Over measured, successful requests.

use crate::model::{IterationRecord, TokenSource, Workload};
use crate::runs::report::workload::{CountSummary, WorkloadReport};

/// The prompt lengths' histogram, as a screen reader names it.
pub const INPUT_LENGTHS: &str = "Prompt lengths asked and counted by the server, in tokens";
/// The answer lengths' histogram, as a screen reader names it.
pub const OUTPUT_LENGTHS: &str = "Answer lengths asked and reported by the server, in tokens";

/// Each measured, successful request's lengths, tokens, for the histograms: prompts as asked beside the server's
/// count (first turns only, as the server counts a later turn's whole conversation), answers as asked beside the
/// server's count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LengthSeries {
    /// Prompt lengths drawn.
    pub asked_input: Vec<f64>,
    /// The server's prompt counts (`usage.prompt_tokens`; reported counts only).
    pub served_input: Vec<f64>,
    /// Answer lengths asked (`max_tokens`).
    pub asked_output: Vec<f64>,
    /// The server's answer counts, of requests that asked a length.
    pub served_output: Vec<f64>,
}

/// The lengths of `results` sent by `spec`.
pub fn length_series(spec: &Workload, results: &[IterationRecord]) -> LengthSeries {
    let measured: Vec<&IterationRecord> = results.iter().filter(|r| !r.warmup && r.error.is_none()).collect();
    let values = |pick: &dyn Fn(&IterationRecord) -> Option<f64>| measured.iter().filter_map(|r| pick(r)).collect();
    let counted_alone =
        |r: &IterationRecord| spec.turn_of(r.prompt_index) == 0 && r.token_source == TokenSource::Reported;
    LengthSeries {
        asked_input: values(&|r| r.asked_input_tokens.map(f64::from)),
        served_input: values(&|r| r.tokens_in.filter(|_| counted_alone(r)).map(|t| t as f64)),
        asked_output: values(&|r| r.asked_output_tokens.map(f64::from)),
        served_output: values(&|r| r.tokens_out.filter(|_| r.asked_output_tokens.is_some()).map(|t| t as f64)),
    }
}

/// The rows of the lengths table: each summary the report has, with its label.
pub fn length_rows(report: &WorkloadReport) -> Vec<(&'static str, CountSummary)> {
    [
        ("Prompt, asked", report.asked_input),
        ("Prompt, counted by the server", report.served_input),
        ("Server's count − asked (first turns)", report.input_deviation),
        ("Answer, asked (max_tokens)", report.asked_output),
        ("Answer, reported by the server", report.achieved_output),
    ]
    .into_iter()
    .filter_map(|(label, summary)| Some((label, summary?)))
    .collect()
}

/// Prompt tokens served from the cache over prompt tokens, over the measured, successful requests whose server
/// said both; `None` when none said.
pub fn cached_share(results: &[IterationRecord]) -> Option<f64> {
    let (cached, prompt) = results
        .iter()
        .filter(|r| !r.warmup && r.error.is_none())
        .filter_map(|r| Some((r.cached_tokens?, r.tokens_in?)))
        .fold((0u64, 0u64), |(c, p), (cached, prompt)| (c + cached, p + prompt));
    (prompt > 0).then(|| cached as f64 / prompt as f64)
}

/// The cache per request, in words.
pub fn cache_words(cached: Option<CountSummary>, share: Option<f64>) -> String {
    match cached {
        Some(c) => format!(
            "Cached prompt tokens per request, as the server reported them (usage.prompt_tokens_details.cached_tokens \
             or timings.cache_n): median {}, mean {:.1}, max {} over {} request(s){}.",
            crate::model::trim_number(c.p50),
            c.mean,
            crate::model::trim_number(c.max),
            c.n,
            share.map_or_else(String::new, |s| format!("; {:.1}% of their prompt tokens", s * 100.0)),
        ),
        None => "The server reported no cached prompt tokens (neither usage.prompt_tokens_details.cached_tokens nor \
                 timings.cache_n)."
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::iteration_record;
    use crate::model::LengthDist;

    fn request(index: u32, asked: u32, served: u64, cached: Option<u64>) -> IterationRecord {
        IterationRecord {
            prompt_index: index,
            asked_input_tokens: Some(asked),
            tokens_in: Some(served),
            asked_output_tokens: Some(8),
            tokens_out: Some(8),
            cached_tokens: cached,
            token_source: TokenSource::Reported,
            ..iteration_record(u64::from(index), Some(10.0), 50.0, false)
        }
    }

    #[test]
    fn later_turns_are_left_out_of_the_served_prompts_and_the_cache_share_counts_tokens() {
        let spec = Workload::MultiTurn {
            users: 1,
            turns: 2,
            first: LengthDist::fixed(10),
            follow_up: LengthDist::fixed(5),
            output: LengthDist::fixed(8),
            think: Default::default(),
            seed: 0,
        };
        let mut warmup = request(4, 10, 13, Some(13));
        warmup.warmup = true;
        let results = [request(0, 10, 13, Some(0)), request(1, 5, 31, Some(21)), warmup];
        let series = length_series(&spec, &results);
        assert_eq!((series.asked_input, series.served_input), (vec![10.0, 5.0], vec![13.0]));
        assert_eq!((series.asked_output.len(), series.served_output.len()), (2, 2));
        // (0 + 21) / (13 + 31), the warm-up left out.
        assert_eq!(cached_share(&results), Some(21.0 / 44.0));
        assert_eq!(cached_share(&results[..0]), None);
        let words = cache_words(crate::runs::report::CountSummary::of([0.0, 21.0]), cached_share(&results));
        assert!(
            words.contains("median 10.5, mean 10.5, max 21 over 2 request(s); 47.7% of their prompt tokens"),
            "{words}"
        );
    }
}
