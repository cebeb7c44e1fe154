//! A multi-turn workload's figures by turn: how the first message of every conversation fared beside the second,
//! the third…, each carrying the conversation before it. Latency by turn shows what a growing context costs and
//! what a prefix cache saves; cached tokens by turn show whether the cache kept the conversation. Over measured,
//! successful requests; request `session × turns + turn` is that turn.

use serde::{Deserialize, Serialize};

use crate::model::IterationRecord;

/// One turn's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    /// The turn, from 1.
    pub turn: u32,
    /// Successful measured requests of this turn.
    pub requests: u64,
    /// Failed measured requests of this turn (each ended its conversation).
    pub failed: u64,
    /// TTFT median, ms (the report's percentile method), over streamed requests.
    pub ttft_p50_ms: Option<f64>,
    /// TTFT 95th percentile, ms: the percentile every other table of the report reads.
    pub ttft_p95_ms: Option<f64>,
    /// Time per output token, median, ms.
    pub tpot_p50_ms: Option<f64>,
    /// Prompt tokens the server counted (the whole conversation so far), mean.
    pub prompt_tokens_mean: Option<f64>,
    /// Prompt tokens the server said it served from its cache, mean over requests that said.
    pub cached_tokens_mean: Option<f64>,
}

/// What became of a multi-turn workload's conversations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversations {
    /// Conversations that sent at least one measured turn.
    pub started: u64,
    /// Of those, conversations that sent every turn and had every answer.
    pub completed: u64,
}

/// Each turn's figures, over the measured requests of `results`; empty unless `turns` > 1.
pub fn by_turn(results: &[IterationRecord], turns: u32) -> Vec<TurnSummary> {
    if turns < 2 {
        return vec![];
    }
    let measured: Vec<&IterationRecord> = results.iter().filter(|r| !r.warmup).collect();
    (0..turns)
        .map(|turn| {
            let of_turn: Vec<&&IterationRecord> = measured.iter().filter(|r| r.prompt_index % turns == turn).collect();
            let ok: Vec<&IterationRecord> = of_turn.iter().filter(|r| r.error.is_none()).map(|r| **r).collect();
            let sorted = |pick: fn(&IterationRecord) -> Option<f64>| {
                let mut values: Vec<f64> = ok.iter().filter_map(|r| pick(r)).filter(|v| !v.is_nan()).collect();
                values.sort_by(f64::total_cmp);
                values
            };
            let ttft = sorted(|r| r.ttft_ms);
            let mean =
                |values: Vec<f64>| (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
            TurnSummary {
                turn: turn + 1,
                requests: ok.len() as u64,
                failed: (of_turn.len() - ok.len()) as u64,
                ttft_p50_ms: crate::stats::percentile(&ttft, 50.0),
                ttft_p95_ms: crate::stats::percentile(&ttft, 95.0),
                tpot_p50_ms: crate::stats::percentile(&sorted(|r| r.tpot_ms), 50.0),
                prompt_tokens_mean: mean(sorted(|r| r.tokens_in.map(|t| t as f64))),
                cached_tokens_mean: mean(sorted(|r| r.cached_tokens.map(|t| t as f64))),
            }
        })
        .collect()
}

/// How many conversations started and how many sent every turn successfully; `None` unless `turns` > 1.
pub fn conversations(results: &[IterationRecord], turns: u32) -> Option<Conversations> {
    if turns < 2 {
        return None;
    }
    let mut answered = std::collections::BTreeMap::<u32, u32>::new();
    for record in results.iter().filter(|r| !r.warmup) {
        let answers = answered.entry(record.prompt_index / turns).or_default();
        if record.error.is_none() {
            *answers += 1;
        }
    }
    Some(Conversations {
        started: answered.len() as u64,
        completed: answered.values().filter(|answers| **answers == turns).count() as u64,
    })
}

/// The notes that say how the by-turn figures were made and what they show.
pub fn turn_notes(by_turn: &[TurnSummary], conversations: Option<Conversations>) -> Vec<String> {
    let n =
        |v: Option<f64>| v.map_or_else(|| "–".to_string(), |v| crate::model::trim_number((v * 10.0).round() / 10.0));
    let mut notes = vec![];
    if let (Some(first), Some(last)) = (by_turn.first(), by_turn.last()) {
        notes.push(format!(
            "By turn: every turn sends the conversation before it (its earlier messages, and its answers as the \
             server returned them) and a new message, so a later turn's prompt is longer; a server with a prefix \
             cache serves the conversation from it. Turn 1: median TTFT {} ms over a prompt of {} tokens, {} of them \
             cached; turn {}: median TTFT {} ms over {} tokens, {} cached (means of the server's counts).",
            n(first.ttft_p50_ms),
            n(first.prompt_tokens_mean),
            n(first.cached_tokens_mean),
            last.turn,
            n(last.ttft_p50_ms),
            n(last.prompt_tokens_mean),
            n(last.cached_tokens_mean),
        ));
    }
    if let Some(c) = conversations.filter(|c| c.completed < c.started) {
        notes.push(format!(
            "{} of {} conversations did not send every turn: a failed turn ends its conversation (it cannot go on \
             as planned without the answer), and a time limit or a stop ends those under way.",
            c.started - c.completed,
            c.started
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::iteration_record;

    fn turn(index: u32, ttft: f64, prompt: u64, cached: u64) -> IterationRecord {
        IterationRecord {
            prompt_index: index,
            tokens_in: Some(prompt),
            cached_tokens: Some(cached),
            ..iteration_record(u64::from(index), Some(ttft), 100.0, false)
        }
    }

    #[test]
    fn figures_go_to_the_turn_of_each_request_and_a_failure_ends_a_conversation() {
        // Three conversations of three turns; the third fails at its second turn and sends no third.
        let mut results = vec![
            turn(0, 100.0, 50, 0),
            turn(1, 40.0, 120, 48),
            turn(2, 45.0, 190, 112),
            turn(3, 120.0, 50, 0),
            turn(4, 50.0, 120, 48),
            turn(5, 55.0, 190, 112),
            turn(6, 110.0, 50, 0),
            IterationRecord { error: Some("http_500".into()), ..turn(7, 0.0, 0, 0) },
        ];
        let mut warmup = turn(9, 1_000.0, 50, 0);
        warmup.warmup = true;
        results.push(warmup);
        let table = by_turn(&results, 3);
        assert_eq!(table.len(), 3);
        assert_eq!((table[0].turn, table[0].requests, table[0].failed), (1, 3, 0));
        assert_eq!(table[0].ttft_p50_ms, Some(110.0));
        // numpy.percentile([100, 110, 120], 95) = 119.0
        assert_eq!(table[0].ttft_p95_ms, Some(119.0));
        assert_eq!((table[1].requests, table[1].failed, table[1].ttft_p50_ms), (2, 1, Some(45.0)));
        assert_eq!((table[1].prompt_tokens_mean, table[1].cached_tokens_mean), (Some(120.0), Some(48.0)));
        assert_eq!((table[2].requests, table[2].cached_tokens_mean), (2, Some(112.0)));
        let done = conversations(&results, 3).unwrap();
        assert_eq!(done, Conversations { started: 3, completed: 2 });
        let notes = turn_notes(&table, Some(done)).join("\n");
        assert!(notes.contains("Turn 1: median TTFT 110 ms over a prompt of 50 tokens, 0 of them cached"), "{notes}");
        assert!(notes.contains("turn 3: median TTFT 50 ms over 190 tokens, 112 cached"), "{notes}");
        assert!(notes.contains("1 of 3 conversations did not send every turn"), "{notes}");
        assert!(by_turn(&results, 1).is_empty() && conversations(&results, 1).is_none());
    }
}
