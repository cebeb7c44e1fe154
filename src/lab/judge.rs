//! An A/B test's measured cells turned into its report: each arm's figures, the candidate-minus-baseline
//! differences with Welch confidence intervals and both tests, the verdict of each cell, and the notes that say
//! how every figure was made.

use crate::lab::model::{AbPlan, MeasuredArm, MeasuredCell};
use crate::lab::report::{verdict, AbCell, AbEndpoint, AbMetric, AbReport, ArmFigures, MetricDelta};
use crate::model::{iso8601_utc, EngineTimingTotals, IterationRecord, PromptHeads, PromptTokenizer, TokenSource};
use crate::runs::report::{cache_warning, judge_rounds};
use crate::stats::compare::{mann_whitney_u, welch_t_test};
use crate::stats::ALPHA;
use crate::stats::{percentiles, PERCENTILE_METHOD};

/// The report of `cells`, measured from `plan` against `baseline` and `candidate`, started at `created_at_ms`; a
/// workload's prompts were made with `tokenizer`.
pub fn ab_report(
    plan: &AbPlan,
    [baseline, candidate]: [AbEndpoint; 2],
    created_at_ms: i64,
    cells: &[MeasuredCell],
    tokenizer: Option<&PromptTokenizer>,
) -> AbReport {
    let measured: Vec<AbCell> = cells.iter().map(|cell| cell_report(plan, cell)).collect();
    let mut notes = notes(plan, [&baseline, &candidate], cells);
    if let Some(workload) = &plan.workload {
        notes[0] = workload_note(workload, plan, tokenizer);
    }
    AbReport {
        title: plan.title.clone(),
        created_at: iso8601_utc(created_at_ms),
        baseline,
        candidate,
        plan: plan.clone(),
        cells: measured,
        notes,
    }
}

fn cell_report(plan: &AbPlan, cell: &MeasuredCell) -> AbCell {
    let [a, b] = &cell.arms;
    let figures = |arm: &MeasuredArm| {
        let records: Vec<IterationRecord> = arm.requests.iter().map(|t| t.record.clone()).collect();
        let validity = judge_rounds(plan.prompt_heads, plan.workload.as_ref(), cell.client.as_ref(), &records);
        ArmFigures { validity: Some(validity), ..arm_figures(arm) }
    };
    let (baseline, candidate) = (figures(a), figures(b));
    let deltas: Vec<MetricDelta> = AbMetric::ALL.iter().filter_map(|&metric| delta(metric, a, b)).collect();
    let mut verdict = verdict(cell.plan, &baseline, &candidate, &deltas);
    for (name, arm) in [("baseline", &baseline), ("candidate", &candidate)] {
        if let Some(validity) = arm.validity.as_ref().filter(|v| v.verdict == crate::model::Verdict::Invalid) {
            verdict.caveats.push(format!("The {name} arm's figures are {}.", validity.headline()));
        }
    }
    AbCell { plan: cell.plan, baseline, candidate, deltas, verdict }
}

/// The values of `metric` over an arm's successful measured requests.
fn values(arm: &MeasuredArm, metric: AbMetric) -> Vec<f64> {
    arm.requests
        .iter()
        .filter(|t| !t.record.warmup && t.record.error.is_none())
        .filter_map(|t| match metric {
            AbMetric::Ttft => t.record.ttft_ms,
            AbMetric::Tpot => t.tpot_ms,
            AbMetric::Total => Some(t.record.total_ms),
        })
        .collect()
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn arm_figures(arm: &MeasuredArm) -> ArmFigures {
    let measured: Vec<_> = arm.requests.iter().filter(|t| !t.record.warmup).collect();
    let succeeded: Vec<_> = measured.iter().filter(|t| t.record.error.is_none()).collect();
    let decode: Vec<f64> =
        succeeded.iter().filter_map(|t| Some(t.tpot_ms? * (t.record.tokens_out?.saturating_sub(1)) as f64)).collect();
    let tokens: Vec<f64> = succeeded.iter().filter_map(|t| t.record.tokens_out.map(|n| n as f64)).collect();
    ArmFigures {
        measured: measured.len() as u64,
        failed: (measured.len() - succeeded.len()) as u64,
        ttft: percentiles(values(arm, AbMetric::Ttft)),
        tpot: percentiles(values(arm, AbMetric::Tpot)),
        total: percentiles(values(arm, AbMetric::Total)),
        mean_ttft_ms: mean(&values(arm, AbMetric::Ttft)),
        mean_decode_ms: mean(&decode),
        mean_tokens_out: mean(&tokens),
        replies: EngineTimingTotals::of(measured.iter().filter_map(|t| t.record.engine_timings.as_ref())),
        server: arm.server.clone(),
        validity: None,
    }
}

/// Candidate − baseline for `metric`; `None` when either arm has no value of it.
fn delta(metric: AbMetric, baseline: &MeasuredArm, candidate: &MeasuredArm) -> Option<MetricDelta> {
    let (a, b) = (values(baseline, metric), values(candidate, metric));
    let (baseline_mean, candidate_mean) = (mean(&a)?, mean(&b)?);
    let welch = welch_t_test(&b, &a);
    Some(MetricDelta {
        metric,
        n: (a.len(), b.len()),
        baseline_mean,
        candidate_mean,
        ci95: welch.map(|w| (w.ci95_low, w.ci95_high)),
        welch_p: welch.map(|w| w.p_value),
        mann_whitney_p: mann_whitney_u(&b, &a).map(|m| m.p_value),
    })
}

/// What a test with a workload sent, in place of the prompts' note.
fn workload_note(workload: &crate::model::Workload, plan: &AbPlan, tokenizer: Option<&PromptTokenizer>) -> String {
    let made = match tokenizer {
        Some(tokenizer) => format!("cut to their drawn lengths by {}", tokenizer.describe()),
        None => "sent as the dataset's rows are written".to_string(),
    };
    format!(
        "Requests: the workload {} — each request made once and the same text sent to both arms, its prompt {made}, \
         its answer asked with max_tokens at its drawn length and ignore_eos; each cell with a seed of its own, so no \
         cell finds the one before it in a prefix cache; streamed, stream_options.include_usage asked for; {} \
         warm-up request(s) per arm before each cell, sent and excluded from every figure.",
        workload.describe(),
        plan.warmup
    )
}

/// What the prompts started with, and so what a server's prefix cache could have held for them.
fn marks_note(plan: &AbPlan) -> String {
    match plan.prompt_heads {
        PromptHeads::Off => "Prompt marks: off. Both arms got the same prompts, so an arm may find the other's (or an \
                             earlier cell's or test's) in a server's prefix cache when the two are one server."
            .to_string(),
        PromptHeads::Unique => "Prompt marks: each prompt began with a mark of its cell, its arm and its request \
                                ([k3x9q2-0000017]; a shared-prefix workload's requests one per cell and arm, before \
                                the prefix they share), counted in its length: apart from their marks both arms got \
                                the same requests, and neither found the other's, an earlier cell's or an earlier \
                                test's prompts in a server's prefix cache. A chat template's fixed head and a system \
                                prompt come before the mark and may be cached."
            .to_string(),
    }
}

/// How the test was made, as sentences.
fn notes(plan: &AbPlan, endpoints: [&AbEndpoint; 2], cells: &[MeasuredCell]) -> Vec<String> {
    let mut notes = vec![
        format!(
            "Requests: the same {} prompt(s) × {} iteration(s) to each arm in each cell, streamed, max_tokens {}, \
             stream_options.include_usage asked for; {} warm-up request(s) per arm before each cell, sent and \
             excluded from every figure.",
            plan.prompts.len(),
            plan.iterations,
            plan.max_tokens,
            plan.warmup
        ),
        "Order: in rounds of the cell's concurrency — that many requests to one arm at once, then the same prompts \
         to the other — the arm that goes first alternating (A B, B A, …), so drift over time and a server warmed \
         by the other arm hit both alike, and the arms never run at the same moment."
            .into(),
        "TTFT = send → first streamed chunk with non-empty content (queueing and prefill as the client sees them); \
         time per output token (TPOT) = (last token − first output) / (output tokens − 1); decode = TPOT × (output \
         tokens − 1); total = send → end of stream. Speculative decoding acts on decode, so TPOT is where it shows."
            .into(),
        format!(
            "Differences are candidate − baseline means with Welch's 95 % confidence interval (percentages are of the \
             baseline mean); one counts as real only when Welch's t-test and the Mann-Whitney U test (two-sided, \
             normal approximation with continuity and tie corrections, as scipy computes them) are both below \
             {ALPHA}. Percentiles: {PERCENTILE_METHOD}."
        ),
    ];
    notes.push(marks_note(plan));
    for (i, name) in ["baseline", "candidate"].into_iter().enumerate() {
        let records = cells.iter().flat_map(|c| c.arms[i].requests.iter()).map(|t| &t.record);
        let what = format!("{name} request(s)");
        notes.extend(cache_warning(plan.prompt_heads, plan.workload.as_ref(), records, &what));
    }
    let requests = || cells.iter().flat_map(|c| c.arms.iter()).flat_map(|a| a.requests.iter());
    let estimated = requests().filter(|t| t.record.token_source == TokenSource::Estimated).count();
    if estimated > 0 {
        notes.push(format!(
            "Token counts: {estimated} request(s) had no usage from the endpoint; their output tokens are estimated as \
             characters / 4, which moves their TPOT."
        ));
    }
    for (i, (name, endpoint)) in ["baseline", "candidate"].into_iter().zip(endpoints).enumerate() {
        let recorded = cells.iter().filter(|c| c.arms[i].server.is_some()).count();
        notes.push(match endpoint.server_kind {
            None => format!(
                "The {name} ({}) was not identified as a self-hosted engine: its server metrics were not read, so its \
                 acceptance comes only from its replies' own timings, if any.",
                endpoint.base_url
            ),
            Some(kind) => format!(
                "The {name}'s server ({}, {}) had its /metrics read before, once a second during, and after each \
                 cell ({recorded} of {} cell(s) recorded); its counters are the whole server's, so other traffic \
                 during a cell counts too.",
                kind.label(),
                endpoint.base_url,
                cells.len()
            ),
        });
    }
    let timed = requests().filter(|t| t.record.engine_timings.is_some()).count();
    if timed > 0 {
        notes.push(format!(
            "{timed} reply(ies) carried the server's own timings (llama.cpp's `timings`): drafted and accepted tokens \
             are their draft_n and draft_n_accepted, summed."
        ));
    }
    if cells.len() < plan.cells.len() || cells.last().is_some_and(|c| c.cut_short) {
        notes.push(format!(
            "The test was stopped early: {} of {} cell(s) ran{}.",
            cells.len(),
            plan.cells.len(),
            if cells.last().is_some_and(|c| c.cut_short) { ", the last of them cut short" } else { "" }
        ));
    }
    notes
}
