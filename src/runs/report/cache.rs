//! The report's notes on the server's prefix cache: whether the prompts started with marks of their run (so no run
//! measured an earlier one's cache), and a warning when requests that share nothing on purpose found most of their
//! prompt cached anyway — their time to first token is then a cache-warm prefill's.

use crate::model::{head_scope, HeadScope, IterationRecord, PromptHeads, RunView, Workload};

/// A request found "most of its prompt" cached past this share of the tokens the server counted: a chat template's
/// fixed head and a system prompt the same in every request are cached legitimately, and are a small part of a
/// prompt long enough to measure a prefill by.
const MOSTLY_CACHED: f64 = 0.5;

/// The notes on prompt marks and on what the cache held.
pub fn cache_notes(run: &RunView, results: &[IterationRecord]) -> Vec<String> {
    let workload = run.plan.workload.as_ref();
    let mut notes = vec![marks_note(run.plan.prompt_heads, workload)];
    notes.extend(cache_warning(run.plan.prompt_heads, workload, results, "request(s)"));
    notes
}

/// A warning when some of `results` (requests of `workload`, sent with `heads`) meant to share nothing found more
/// than half their prompt in the server's cache, counting them as `what` ("request(s)", "baseline request(s)").
pub fn cache_warning<'a>(
    heads: PromptHeads,
    workload: Option<&Workload>,
    results: impl IntoIterator<Item = &'a IterationRecord>,
    what: &str,
) -> Option<String> {
    let found = cache_found(workload, results);
    if found.mostly_cached == 0 {
        return None;
    }
    let why = match heads {
        PromptHeads::Off => {
            "the prompts were sent without marks (prompt heads off), so an earlier request or run with the same \
             prompts left them there. Leave prompt heads on (no --no-prompt-heads) to measure uncached prefills"
        }
        PromptHeads::Unique => {
            "though each began with a mark of its own: the server caches more than prompt prefixes, or a system \
             prompt makes up most of each prompt"
        }
    };
    Some(format!(
        "Warning: {} of {} {what} meant to share nothing found more than half their prompt in the \
         server's cache (cached tokens against usage.prompt_tokens), so their time to first token is a cache-warm \
         prefill's: {why}.",
        found.mostly_cached, found.unshared
    ))
}

/// What the server's cache held for the requests meant to share nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheFound {
    /// Measured, successful requests with a mark of their own (a conversation's first turn has its conversation's).
    pub unshared: usize,
    /// Of them, those whose server said both counts.
    pub counted: usize,
    /// Of those, the ones that found more than half their prompt cached.
    pub mostly_cached: usize,
}

/// What the cache held for the requests of `results` (of `workload`) meant to share nothing.
pub fn cache_found<'a>(
    workload: Option<&Workload>,
    results: impl IntoIterator<Item = &'a IterationRecord>,
) -> CacheFound {
    let unshared = |r: &&IterationRecord| {
        matches!(head_scope(workload, r.prompt_index), Some(HeadScope::Request(_) | HeadScope::Conversation(_)))
    };
    let measured: Vec<&IterationRecord> =
        results.into_iter().filter(|r| !r.warmup && r.error.is_none()).filter(unshared).collect();
    let counted: Vec<(u64, u64)> = measured.iter().filter_map(|r| r.cached_tokens.zip(r.tokens_in)).collect();
    let mostly_cached = counted
        .iter()
        .filter(|(cached, prompt)| *prompt > 0 && *cached as f64 > MOSTLY_CACHED * *prompt as f64)
        .count();
    CacheFound { unshared: measured.len(), counted: counted.len(), mostly_cached }
}

/// What the prompts started with, and so what the server's prefix cache could have held for them.
fn marks_note(heads: PromptHeads, workload: Option<&Workload>) -> String {
    if heads == PromptHeads::Off {
        return "Prompt marks: off. Prompts were sent as made, so requests and runs with the same prompts (the same \
                seed makes the same ones) may find them in the server's prefix cache."
            .to_string();
    }
    let which = match workload {
        None | Some(Workload::Synthetic { .. } | Workload::Dataset { .. }) => {
            "one of its own per request ([k3x9q2-0000017]: the run's six letters and digits, then the request's number)"
        }
        Some(Workload::SharedPrefix { .. } | Workload::Trace { .. }) => {
            "the run's ([k3x9q2]), before the text the requests share on purpose, so they share it with one another \
             and with no other run"
        }
        Some(Workload::MultiTurn { .. }) => {
            "one per conversation in its first message ([k3x9q2-0000017]), which its later turns send back"
        }
    };
    format!(
        "Prompt marks: each prompt began with a mark, {which}, counted in its length, so no request found an earlier \
         run's prompts in the server's prefix cache. A chat template's fixed head and a system prompt, the same in \
         every request, come before the mark and may be cached."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};

    /// A finished run of `prompt_heads` whose requests counted `prompt` tokens and found `cached` of them cached.
    fn run_with(prompt_heads: PromptHeads, cached: &[u64]) -> (RunView, Vec<IterationRecord>) {
        let plan = crate::model::RunPlanInput { prompt_heads, ..plan_input(&["hello"], 64, 1) };
        let run = completed_run(plan, "tiny");
        let results = (0..)
            .zip(cached)
            .map(|(i, &cached)| IterationRecord {
                tokens_in: Some(300),
                cached_tokens: Some(cached),
                ..iteration_record(i, Some(50.0), 100.0, false)
            })
            .collect();
        (run, results)
    }

    #[test]
    fn a_run_with_marks_says_so_and_warns_only_when_prompts_were_found_cached() {
        let (run, results) = run_with(PromptHeads::Unique, &[0, 12, 12]);
        let notes = cache_notes(&run, &results);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("one of its own per request"), "{notes:?}");
        let (run, results) = run_with(PromptHeads::Unique, &[0, 290, 12]);
        let notes = cache_notes(&run, &results);
        assert!(notes[1].starts_with("Warning: 1 of 3 request(s)"), "{notes:?}");
        assert!(notes[1].contains("caches more than prompt prefixes"), "{notes:?}");
    }

    #[test]
    fn a_run_without_marks_that_found_its_prompts_cached_is_told_to_turn_them_on() {
        let (run, results) = run_with(PromptHeads::Off, &[0, 298, 299]);
        let notes = cache_notes(&run, &results);
        assert!(notes[0].starts_with("Prompt marks: off"), "{notes:?}");
        assert!(notes[1].starts_with("Warning: 2 of 3 request(s)"), "{notes:?}");
        assert!(notes[1].contains("no --no-prompt-heads"), "{notes:?}");
    }
}
