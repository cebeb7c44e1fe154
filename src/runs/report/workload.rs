//! The workload section of a run's report: the workload as planned, and for each request what was asked beside
//! what the server did — prompt lengths asked, made and counted by the server (their difference, which a chat
//! template makes a fixed number), answer lengths asked and achieved (and how many ended early), and the prompt
//! tokens the server said came from its cache. Over measured, successful requests.

use serde::{Deserialize, Serialize};

use crate::model::{IterationRecord, RunView, Workload};

/// A sample of token counts, summarised: how many, the least, median, mean and most (median by the report's
/// percentile method).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountSummary {
    /// Requests counted.
    pub n: u64,
    /// The least.
    pub min: f64,
    /// Median.
    pub p50: f64,
    /// Mean.
    pub mean: f64,
    /// The most.
    pub max: f64,
}

impl CountSummary {
    /// The summary of `values`; `None` when there are none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Self> {
        let mut sorted: Vec<f64> = values.into_iter().collect();
        sorted.sort_by(f64::total_cmp);
        Some(Self {
            n: sorted.len() as u64,
            min: *sorted.first()?,
            p50: crate::stats::percentile(&sorted, 50.0)?,
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
            max: *sorted.last()?,
        })
    }

    /// Whether every value is the same.
    pub fn constant(&self) -> bool {
        self.min == self.max
    }
}

/// `workload`: what the workload asked, and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadReport {
    /// The workload as planned, every parameter.
    pub spec: Workload,
    /// Prompt lengths as drawn, tokens.
    pub asked_input: Option<CountSummary>,
    /// Requests whose prompt was made to its drawn length exactly (by the tokenizer's count), of `askedInput.n`.
    pub made_as_asked: u64,
    /// The server's prompt count (`usage.prompt_tokens`) minus the asked length, over requests whose count the
    /// server reported: a chat template adds a fixed number.
    pub input_deviation: Option<CountSummary>,
    /// Prompt lengths the server counted (`usage.prompt_tokens`, or an estimate where it said none).
    #[serde(default)]
    pub served_input: Option<CountSummary>,
    /// Answer lengths asked (`max_tokens`).
    pub asked_output: Option<CountSummary>,
    /// Answer lengths the server reported.
    pub achieved_output: Option<CountSummary>,
    /// Answers shorter than asked.
    pub ended_early: u64,
    /// Prompt tokens the server said came from its cache, per request that said.
    pub cached_tokens: Option<CountSummary>,
    /// The tokenizer the prompts were made with (absent for a dataset's, sent as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<crate::model::PromptTokenizer>,
    /// A multi-turn workload's figures by turn (absent for other workloads).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_turn: Vec<super::turns::TurnSummary>,
    /// A multi-turn workload's conversations: started, and sent to their last turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversations: Option<super::turns::Conversations>,
}

/// The workload section of a run with a workload (`None` without one).
pub fn workload_report(run: &RunView, results: &[IterationRecord]) -> Option<WorkloadReport> {
    let spec = run.plan.workload.clone()?;
    let measured: Vec<&IterationRecord> = results.iter().filter(|r| !r.warmup && r.error.is_none()).collect();
    let reported = |r: &&&IterationRecord| r.token_source == crate::model::TokenSource::Reported;
    let summary = |pick: fn(&IterationRecord) -> Option<f64>| CountSummary::of(measured.iter().filter_map(|r| pick(r)));
    // A later turn's prompt carries its conversation: the server's count is not its message's asked length.
    let one_message = |r: &&&IterationRecord| spec.turn_of(r.prompt_index) == 0;
    Some(WorkloadReport {
        asked_input: summary(|r| r.asked_input_tokens.map(f64::from)),
        made_as_asked: measured
            .iter()
            .filter(|r| r.asked_input_tokens.is_some() && r.made_input_tokens == r.asked_input_tokens)
            .count() as u64,
        input_deviation: CountSummary::of(
            measured
                .iter()
                .filter(reported)
                .filter(one_message)
                .filter_map(|r| Some(r.tokens_in? as f64 - f64::from(r.asked_input_tokens?))),
        ),
        served_input: summary(|r| r.tokens_in.map(|t| t as f64)),
        asked_output: summary(|r| r.asked_output_tokens.map(f64::from)),
        achieved_output: CountSummary::of(
            measured.iter().filter(|r| r.asked_output_tokens.is_some()).filter_map(|r| Some(r.tokens_out? as f64)),
        ),
        ended_early: measured
            .iter()
            .filter(
                |r| matches!((r.tokens_out, r.asked_output_tokens), (Some(out), Some(asked)) if out < u64::from(asked)),
            )
            .count() as u64,
        cached_tokens: summary(|r| r.cached_tokens.map(|t| t as f64)),
        tokenizer: run.prompt_tokenizer.clone(),
        by_turn: super::turns::by_turn(results, spec.turns()),
        conversations: super::turns::conversations(results, spec.turns()),
        spec,
    })
}

/// The notes that say how the workload's figures were made.
pub fn workload_notes(report: &WorkloadReport) -> Vec<String> {
    let sharing = match &report.spec {
        Workload::Synthetic { .. } => "so no two requests share a prefix by accident",
        Workload::SharedPrefix { .. } => {
            "after its group's prefix, the same text for every request of the group (request i is in group i mod \
             groups), so only the prefix is shared"
        }
        Workload::MultiTurn { .. } => {
            "a turn's new message is a text of its own, after the conversation before it (request s × turns + t is \
             turn t of conversation s)"
        }
        Workload::Trace { .. } => {
            "a trace's block ids the same text wherever the same id comes, so the trace's prefix sharing is sent as \
             recorded, and each request's last block its own cut"
        }
        Workload::Dataset { .. } => {
            return dataset_notes(report);
        }
    };
    let tokenizer = report.tokenizer.as_ref().map_or_else(
        || "the server's own tokenizer (its /tokenize)".to_string(),
        crate::model::PromptTokenizer::describe,
    );
    let mut notes = vec![format!(
        "Workload: {}. Each prompt is cut from the built-in corpus (seeded sentences of common English words, a text \
         of its own per request, {sharing}) to its drawn length by {tokenizer}, and each answer is asked for with \
         max_tokens at its drawn length and ignore_eos, so that it is not shorter.",
        report.spec.describe()
    )];
    if report.tokenizer.as_ref().is_some_and(crate::model::PromptTokenizer::is_estimate) {
        notes.push(
            "Prompt lengths are estimates: made and counted with a well-known BPE, not the model's own tokenizer, so \
             the server's count (usage.prompt_tokens) is the one to trust; give bench the model's tokenizer.json \
             (--tokenizer) for exact lengths."
                .to_string(),
        );
    }
    if let Workload::Trace { .. } = report.spec {
        notes.push(
            "Trace replay: each request is due at its recorded instant divided by the speed-up, after the first \
             row's; how late each went out is its schedule lag (scheduleLagMs), and the achieved send times are \
             sentAtMs."
                .to_string(),
        );
    }
    notes.extend(length_notes(report));
    notes
}

/// A dataset's notes: its rows are sent as written.
fn dataset_notes(report: &WorkloadReport) -> Vec<String> {
    let (recorded, skipped) = match &report.spec {
        Workload::Dataset { recorded_outputs, file, .. } => (*recorded_outputs, file.skipped),
        _ => (false, 0),
    };
    let recorded = if recorded {
        "else its recorded answer's length (the model's turn after that human turn, counted by the server's \
         tokenizer without special tokens), "
    } else {
        ""
    };
    let skipped = match skipped {
        0 => String::new(),
        n => format!(" {n} row(s) of the file had no human turn, nothing to send, and were skipped (not sent)."),
    };
    let mut notes = vec![format!(
        "Workload: {}. Each request sends one row as written, in the file's order (the warm-ups its first rows); a \
         ShareGPT row sends its conversation up to its first human turn; the turns after it are not sent.{skipped} \
         A row's answer length is its output_tokens, {recorded}else one drawn from the workload's output \
         distribution, sent as max_tokens with ignore_eos; with none, the agent's token budget, and the model may \
         stop sooner. Prompt lengths are the server's count (usage.prompt_tokens).",
        report.spec.describe()
    )];
    notes.extend(length_notes(report));
    notes
}

/// The notes on lengths asked beside lengths served, and the cache.
fn length_notes(report: &WorkloadReport) -> Vec<String> {
    let mut notes = vec![];
    if let Some(asked) = report.asked_input {
        let made = if report.made_as_asked == asked.n {
            "every prompt was made to its drawn length exactly".to_string()
        } else {
            format!(
                "{} of {} prompts were made to their drawn length exactly (the others as close as a cut of the text \
                 allowed: madeInputTokens)",
                report.made_as_asked, asked.n
            )
        };
        notes.push(format!("Prompt lengths: {made}."));
    }
    if let Some(deviation) = report.input_deviation {
        let counted = crate::model::trim_number(deviation.p50);
        if report.spec.turns() > 1 {
            notes.push(
                "The server's prompt count is compared with the asked length on first turns only: a later turn's \
                 prompt carries its conversation."
                    .to_string(),
            );
        }
        notes.push(if deviation.constant() {
            format!(
                "The server counted {counted} prompt tokens more than asked in every request: its chat template's \
                 fixed tokens around the message (usage.prompt_tokens against askedInputTokens)."
            )
        } else {
            format!(
                "The server's prompt count differed from the asked length by {} to {} tokens (median {counted}): \
                 its chat template's tokens around the message, which vary by a few where the message meets them \
                 (the server tokenizes the whole templated prompt, so a message's first and last characters may \
                 join the template's); a wide spread means the server read a prompt differently from its /tokenize.",
                crate::model::trim_number(deviation.min),
                crate::model::trim_number(deviation.max)
            )
        });
    }
    if let (Some(asked), Some(achieved)) = (report.asked_output, report.achieved_output) {
        notes.push(format!(
            "Answer lengths: asked median {}, achieved median {}; {} answer(s) ended before their asked length.",
            crate::model::trim_number(asked.p50),
            crate::model::trim_number(achieved.p50),
            report.ended_early
        ));
    }
    if let Some(cached) = report.cached_tokens {
        notes.push(format!(
            "Cache: {} request(s) said how many prompt tokens came from the server's cache \
             (usage.prompt_tokens_details.cached_tokens, else llama.cpp's timings.cache_n): median {}, most {}.",
            cached.n,
            crate::model::trim_number(cached.p50),
            crate::model::trim_number(cached.max)
        ));
    }
    notes.extend(super::turns::turn_notes(&report.by_turn, report.conversations));
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::model::{LengthDist, TokenSource};

    fn record(seq: u64, asked: (u32, u32), counted: (u64, u64), cached: Option<u64>) -> IterationRecord {
        IterationRecord {
            asked_input_tokens: Some(asked.0),
            made_input_tokens: Some(asked.0),
            asked_output_tokens: Some(asked.1),
            tokens_in: Some(counted.0),
            tokens_out: Some(counted.1),
            cached_tokens: cached,
            token_source: TokenSource::Reported,
            ..iteration_record(seq, Some(10.0), 100.0, false)
        }
    }

    #[test]
    fn asked_and_reported_lengths_side_by_side() {
        let workload = Workload::Synthetic {
            input: LengthDist::Uniform { min: 100, max: 300 },
            output: LengthDist::fixed(50),
            requests: 4,
            seed: 1,
        };
        let mut input = plan_input(&[], 64, 1);
        input.iterations = 1;
        input.workload = Some(workload.clone());
        let mut run = completed_run(input, "m");
        let mut warmup = record(0, (999, 999), (1_050, 3), None);
        warmup.warmup = true;
        let results = vec![
            warmup,
            record(1, (100, 50), (151, 50), Some(0)),
            record(2, (300, 50), (351, 50), Some(32)),
            record(3, (200, 50), (251, 20), Some(0)),
            IterationRecord { error: Some("timeout: no answer".into()), ..record(4, (250, 50), (0, 0), None) },
        ];
        let report = workload_report(&run, &results).unwrap();
        assert_eq!(report.spec, workload);
        assert_eq!(report.asked_input, Some(CountSummary { n: 3, min: 100.0, p50: 200.0, mean: 200.0, max: 300.0 }));
        assert_eq!(report.made_as_asked, 3);
        let deviation = report.input_deviation.unwrap();
        assert!(deviation.constant() && deviation.p50 == 51.0, "{deviation:?}");
        assert_eq!((report.achieved_output.unwrap().min, report.ended_early), (20.0, 1));
        assert_eq!(report.cached_tokens.unwrap().max, 32.0);
        let notes = workload_notes(&report).join("\n");
        assert!(notes.contains("51 prompt tokens more than asked in every request"), "{notes}");
        assert!(notes.contains("1 answer(s) ended before"), "{notes}");
        assert!(notes.contains("every prompt was made to its drawn length exactly"), "{notes}");
        assert!(notes.contains("by the server's own tokenizer (its /tokenize)"), "{notes}");
        assert_eq!(workload_report(&completed_run(plan_input(&["p"], 64, 1), "m"), &results), None);
        run.prompt_tokenizer = Some(crate::model::PromptTokenizer::Estimate { vocabulary: "o200k_base".into() });
        let estimated = workload_notes(&workload_report(&run, &results).unwrap()).join("\n");
        assert!(estimated.contains("Prompt lengths are estimates"), "{estimated}");
        assert!(estimated.contains("OpenAI's o200k_base BPE"), "{estimated}");
    }
}
