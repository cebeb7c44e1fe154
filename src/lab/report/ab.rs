//! An A/B test's result as the page, the exports and the command line show it: per cell of the sweep, each arm's
//! figures, the candidate-minus-baseline difference of each latency with its 95 % confidence interval and two
//! tests, and a verdict in words with its caveats. The tests run on the server (`crate::stats::compare`); the
//! verdict is a pure rule over their results, here, so it reads the same everywhere.

use serde::{Deserialize, Serialize};

use crate::lab::model::{AbCellPlan, AbPlan, AbTestSummary};
use crate::model::{EngineTimingTotals, ServerKind, ServerMetrics, SpecOutcome};
use crate::report::{ms, p_value};
use crate::stats::{Percentiles, ALPHA};

/// Fewer successful requests per arm than this make the verdict carry a small-sample caveat.
const SMALL_SAMPLE: u64 = 20;

/// A latency compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbMetric {
    /// Time to first token: queueing and prefill, as the client sees it.
    Ttft,
    /// Time per output token after the first: decode, where speculative decoding acts.
    Tpot,
    /// Total time of a request.
    Total,
}

impl AbMetric {
    /// Every metric, in the order they are shown.
    pub const ALL: [AbMetric; 3] = [AbMetric::Ttft, AbMetric::Tpot, AbMetric::Total];

    /// Its name on the page.
    pub fn label(self) -> &'static str {
        match self {
            AbMetric::Ttft => "TTFT",
            AbMetric::Tpot => "time per output token",
            AbMetric::Total => "total time",
        }
    }
}

/// One endpoint of the test (never with its key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbEndpoint {
    /// What the user calls it (a connector's name, or "baseline" / "candidate").
    pub name: String,
    /// Base URL.
    pub base_url: String,
    /// Model sent.
    pub model: String,
    /// Its server's engine, when a probe identified it (then its metrics were recorded).
    pub server_kind: Option<ServerKind>,
}

/// One arm's figures in one cell, over its successful measured requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArmFigures {
    /// Measured requests (warm-ups excluded).
    pub measured: u64,
    /// Of those, failed.
    pub failed: u64,
    /// TTFT percentiles, ms.
    pub ttft: Option<Percentiles>,
    /// Time-per-output-token percentiles, ms.
    pub tpot: Option<Percentiles>,
    /// Total-time percentiles, ms.
    pub total: Option<Percentiles>,
    /// Mean TTFT, ms: the queueing-and-prefill part of a request.
    pub mean_ttft_ms: Option<f64>,
    /// Mean decode time, ms: each request's TPOT × (output tokens − 1), averaged.
    pub mean_decode_ms: Option<f64>,
    /// Mean output tokens per request.
    pub mean_tokens_out: Option<f64>,
    /// The replies' own timings added up (llama.cpp's `draft_n`, `draft_n_accepted`), warm-ups excluded.
    pub replies: EngineTimingTotals,
    /// What the arm's server's metrics said over the cell, when recorded.
    pub server: Option<ServerMetrics>,
    /// Whether this arm's figures answer the question the cell asked (absent in tests stored before verdicts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::model::RunValidity>,
}

/// Where an acceptance figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcceptanceSource {
    /// The server's speculative-decoding counters, before and after the cell.
    ServerCounters,
    /// The replies' own timings (`draft_n`, `draft_n_accepted`).
    ReplyTimings,
}

/// How often drafts were accepted in one arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acceptance {
    /// Accepted / drafted tokens.
    pub rate: f64,
    /// 1 + accepted / verify steps (the bonus token included), where the server counts verify steps.
    pub mean_length: Option<f64>,
    /// The source.
    pub source: AcceptanceSource,
    /// Per draft position (from 0), the share of verify steps that accepted up to it, where the server counts it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_position: Vec<(u32, f64)>,
}

impl ArmFigures {
    /// The acceptance this arm shows: the server's counters when they moved, else the replies' timings; `None`
    /// when nothing was drafted or nothing says.
    pub fn acceptance(&self) -> Option<Acceptance> {
        let counters = self.server.as_ref().and_then(|s| match &s.spec {
            SpecOutcome::Window(w) => w.acceptance_rate.map(|rate| Acceptance {
                rate,
                mean_length: w.mean_acceptance_length,
                source: AcceptanceSource::ServerCounters,
                per_position: w.per_position.clone(),
            }),
            SpecOutcome::Restarted { .. } | SpecOutcome::NotCounted | SpecOutcome::Unfinished { .. } => None,
        });
        counters.or_else(|| {
            self.replies.acceptance_rate().map(|rate| Acceptance {
                rate,
                mean_length: None,
                source: AcceptanceSource::ReplyTimings,
                per_position: vec![],
            })
        })
    }

    /// What the drafts did, in a few words: "71.2 % accepted", "no drafts" (the server's counters or the
    /// replies say nothing was drafted) or "acceptance not measured".
    pub fn drafts_label(&self) -> String {
        if let Some(acceptance) = self.acceptance() {
            return format!("{:.1} % accepted", acceptance.rate * 100.0);
        }
        let counted_none =
            matches!(self.server.as_ref().map(|s| &s.spec), Some(SpecOutcome::Window(w)) if w.draft_tokens == 0.0);
        if counted_none || self.replies.responses > 0 {
            "no drafts".into()
        } else {
            "acceptance not measured".into()
        }
    }

    /// Successful measured requests.
    pub fn succeeded(&self) -> u64 {
        self.measured - self.failed
    }
}

/// The candidate-minus-baseline difference of one latency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricDelta {
    /// Which latency.
    pub metric: AbMetric,
    /// Values from the baseline, and from the candidate.
    pub n: (usize, usize),
    /// Baseline mean, ms.
    pub baseline_mean: f64,
    /// Candidate mean, ms.
    pub candidate_mean: f64,
    /// The Welch 95 % confidence interval of candidate mean − baseline mean, ms; `None` with fewer than 2 values
    /// an arm or no spread.
    pub ci95: Option<(f64, f64)>,
    /// Welch's two-sided p-value.
    pub welch_p: Option<f64>,
    /// Mann-Whitney's two-sided p-value.
    pub mann_whitney_p: Option<f64>,
}

impl MetricDelta {
    /// Candidate mean − baseline mean, ms.
    pub fn difference(&self) -> f64 {
        self.candidate_mean - self.baseline_mean
    }

    /// The difference as a share of the baseline mean (−0.2: 20 % less).
    pub fn relative(&self) -> f64 {
        self.difference() / self.baseline_mean
    }

    /// Both tests below [`ALPHA`]: the means and the distributions differ.
    pub fn significant(&self) -> bool {
        matches!((self.welch_p, self.mann_whitney_p), (Some(w), Some(m)) if w < ALPHA && m < ALPHA)
    }

    /// "−23.1 % (95 % CI −26.0 % to −20.2 %; Welch p 0.0001, Mann-Whitney p 0.0003)".
    pub fn describe(&self) -> String {
        let percent = |v: f64| format!("{:+.1} %", v / self.baseline_mean * 100.0);
        let interval =
            self.ci95.map_or_else(String::new, |(lo, hi)| format!("95 % CI {} to {}; ", percent(lo), percent(hi)));
        let p = |p: Option<f64>| p.map_or_else(|| "n/a".to_string(), p_value);
        format!(
            "{} → {}, {} ({interval}Welch p {}, Mann-Whitney p {})",
            ms(self.baseline_mean),
            ms(self.candidate_mean),
            percent(self.difference()),
            p(self.welch_p),
            p(self.mann_whitney_p)
        )
    }
}

/// What the figures of one cell say, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// Total time is lower with the candidate, in both tests.
    Faster,
    /// Total time is higher with the candidate, in both tests.
    Slower,
    /// Total time did not change detectably, but time per token or TTFT did.
    Mixed,
    /// No latency changed detectably at this sample size.
    NoDifference,
    /// Too few successful requests to compare.
    Inconclusive,
}

impl VerdictKind {
    /// The word on the page.
    pub fn label(self) -> &'static str {
        match self {
            VerdictKind::Faster => "candidate faster",
            VerdictKind::Slower => "candidate slower",
            VerdictKind::Mixed => "mixed",
            VerdictKind::NoDifference => "no detectable difference",
            VerdictKind::Inconclusive => "inconclusive",
        }
    }
}

/// A cell's verdict: the word, a sentence, and what could make it wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The word.
    pub kind: VerdictKind,
    /// The finding in one or two sentences.
    pub summary: String,
    /// Caveats, each a sentence.
    pub caveats: Vec<String>,
}

/// One cell of the sweep, measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbCell {
    /// Its load and temperature.
    pub plan: AbCellPlan,
    /// The baseline's figures.
    pub baseline: ArmFigures,
    /// The candidate's figures.
    pub candidate: ArmFigures,
    /// TTFT, TPOT and total time compared (those measurable).
    pub deltas: Vec<MetricDelta>,
    /// The verdict.
    pub verdict: Verdict,
}

impl AbCell {
    /// The difference of `metric`, when it was measurable.
    pub fn delta(&self, metric: AbMetric) -> Option<&MetricDelta> {
        self.deltas.iter().find(|d| d.metric == metric)
    }

    /// "concurrency 4, temperature 0".
    pub fn label(&self) -> String {
        format!("concurrency {}, temperature {}", self.plan.concurrency, self.plan.temperature)
    }
}

/// A whole A/B test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbReport {
    /// Title.
    pub title: String,
    /// Start, ISO 8601 UTC.
    pub created_at: String,
    /// The reference (e.g. speculative decoding off).
    pub baseline: AbEndpoint,
    /// The endpoint tried against it (e.g. speculative decoding on).
    pub candidate: AbEndpoint,
    /// What was sent.
    pub plan: AbPlan,
    /// The cells measured, in the order they ran (fewer than planned when the test stopped early).
    pub cells: Vec<AbCell>,
    /// How it was measured, as sentences.
    pub notes: Vec<String>,
}

/// An A/B test as its page shows it: progress while it runs, the report once it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbTestView {
    /// Title, arms, status and progress.
    pub summary: AbTestSummary,
    /// What it sends.
    pub plan: AbPlan,
    /// The report, once the test ended (a cancelled test's holds what was measured).
    pub report: Option<AbReport>,
}

/// The verdict of one cell from its figures and differences: faster or slower only when total time differs in
/// both tests; caveats for everything that could mislead (sample size, failures, restarts, unequal output, a
/// shared server, load and temperature).
pub fn verdict(cell: AbCellPlan, baseline: &ArmFigures, candidate: &ArmFigures, deltas: &[MetricDelta]) -> Verdict {
    let find = |metric| deltas.iter().find(|d| d.metric == metric);
    let caveats = caveats(cell, baseline, candidate, find(AbMetric::Ttft));
    let (Some(total), true) = (find(AbMetric::Total), baseline.succeeded() >= 2 && candidate.succeeded() >= 2) else {
        return Verdict {
            kind: VerdictKind::Inconclusive,
            summary: format!(
                "Too few successful requests to compare ({} baseline, {} candidate; at least 2 each).",
                baseline.succeeded(),
                candidate.succeeded()
            ),
            caveats,
        };
    };
    let tpot = find(AbMetric::Tpot).filter(|d| d.significant());
    let ttft = find(AbMetric::Ttft).filter(|d| d.significant());
    let kind = match (total.significant(), total.difference() < 0.0) {
        (true, true) => VerdictKind::Faster,
        (true, false) => VerdictKind::Slower,
        (false, _) if tpot.is_some() || ttft.is_some() => VerdictKind::Mixed,
        (false, _) => VerdictKind::NoDifference,
    };
    let mut summary = match kind {
        VerdictKind::Faster => format!("The candidate is faster: total time {}.", total.describe()),
        VerdictKind::Slower => format!("The candidate is slower: total time {}.", total.describe()),
        _ => format!("Total time shows no difference this sample can detect: {}.", total.describe()),
    };
    for metric in [AbMetric::Tpot, AbMetric::Ttft] {
        if let Some(d) = find(metric) {
            let word = if d.significant() { "" } else { ", not a detectable difference" };
            summary.push_str(&format!(" {}: {}{word}.", capitalised(metric.label()), d.describe()));
        }
    }
    if let Some(acceptance) = candidate.acceptance() {
        summary.push_str(&format!(" The candidate's drafts: {}.", acceptance_text(&acceptance)));
    }
    Verdict { kind, summary, caveats }
}

/// "71.2 % of drafted tokens accepted, mean acceptance length 3.10 (the server's counters)".
pub fn acceptance_text(acceptance: &Acceptance) -> String {
    let length = acceptance.mean_length.map_or_else(String::new, |l| format!(", mean acceptance length {l:.2}"));
    let source = match acceptance.source {
        AcceptanceSource::ServerCounters => "the server's counters",
        AcceptanceSource::ReplyTimings => "the replies' own timings",
    };
    let positions = if acceptance.per_position.is_empty() {
        String::new()
    } else {
        let rates: Vec<String> = acceptance.per_position.iter().map(|(_, r)| format!("{r:.2}")).collect();
        format!(", by draft position {}", rates.join(" / "))
    };
    format!("{:.1} % of drafted tokens accepted{length}{positions} ({source})", acceptance.rate * 100.0)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// What could make a cell's verdict wrong, each as a sentence.
fn caveats(cell: AbCellPlan, baseline: &ArmFigures, candidate: &ArmFigures, ttft: Option<&MetricDelta>) -> Vec<String> {
    let mut caveats = Vec::new();
    let fewest = baseline.succeeded().min(candidate.succeeded());
    if fewest < SMALL_SAMPLE {
        caveats.push(format!(
            "Small sample: {fewest} successful request(s) in the smaller arm; a real difference of a few percent can \
             go undetected, and the confidence intervals are wide."
        ));
    }
    for (name, arm) in [("baseline", baseline), ("candidate", candidate)] {
        if arm.failed > 0 {
            caveats.push(format!(
                "{} of the {name}'s {} requests failed and are left out of its figures.",
                arm.failed, arm.measured
            ));
        }
        if let Some(evidence) = arm.server.as_ref().and_then(|s| s.spec.restart_evidence()) {
            caveats.push(format!("The {name}'s server restarted during this cell ({evidence})."));
        }
    }
    if let (Some(a), Some(b)) = (baseline.mean_tokens_out, candidate.mean_tokens_out) {
        if a > 0.0 && (b - a).abs() / a > 0.1 {
            caveats.push(format!(
                "The arms wrote different amounts: {a:.1} vs {b:.1} output tokens a request on average, so total \
                 time compares different work; time per output token is the fairer figure."
            ));
        }
    }
    if candidate.acceptance().is_none() {
        caveats.push(
            "The candidate's draft acceptance was not measured: its server was not probed, exposes no \
             speculative-decoding counters, drafted nothing, or its replies carried no timings."
                .into(),
        );
    }
    if let (Some(a), Some(b)) = (baseline.server.as_ref(), candidate.server.as_ref()) {
        if a.root == b.root {
            caveats.push(format!(
                "Both arms are the same server ({}): its counters and load readings mix the two arms.",
                a.root
            ));
        }
    }
    if ttft.is_some_and(|d| d.significant() && d.difference() > 0.0) {
        caveats.push(
            "The candidate's first token came later: a draft model adds its own prefill and memory traffic, which \
             speculative decoding does not win back before the first token."
                .into(),
        );
    }
    if cell.concurrency > 1 {
        caveats.push(format!(
            "At {} requests in flight per arm, batching already keeps the server busy; speculative decoding's gain \
             usually shrinks as batches grow.",
            cell.concurrency
        ));
    }
    if cell.temperature > 0.0 {
        caveats.push(format!(
            "At temperature {}, sampling makes a drafted token less likely to match than greedy decoding does; \
             acceptance is usually lower than at 0.",
            cell.temperature
        ));
    }
    caveats
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(measured: u64, failed: u64, tokens: f64) -> ArmFigures {
        ArmFigures {
            measured,
            failed,
            ttft: None,
            tpot: None,
            total: None,
            mean_ttft_ms: Some(50.0),
            mean_decode_ms: Some(400.0),
            mean_tokens_out: Some(tokens),
            replies: EngineTimingTotals::default(),
            server: None,
            validity: None,
        }
    }

    fn delta(metric: AbMetric, baseline: f64, candidate: f64, p: f64) -> MetricDelta {
        MetricDelta {
            metric,
            n: (30, 30),
            baseline_mean: baseline,
            candidate_mean: candidate,
            ci95: Some((candidate - baseline - 5.0, candidate - baseline + 5.0)),
            welch_p: Some(p),
            mann_whitney_p: Some(p),
        }
    }

    const GREEDY: AbCellPlan = AbCellPlan { concurrency: 1, temperature: 0.0 };

    #[test]
    fn a_faster_total_with_faster_decode_and_steady_ttft_reads_as_faster() {
        let mut candidate = arm(30, 0, 64.0);
        candidate.replies = EngineTimingTotals { responses: 30, draft_tokens: 1_000, draft_accepted: 712 };
        let deltas = [
            delta(AbMetric::Ttft, 50.0, 51.0, 0.4),
            delta(AbMetric::Tpot, 10.0, 6.9, 1e-6),
            delta(AbMetric::Total, 700.0, 490.0, 1e-5),
        ];
        let v = verdict(GREEDY, &arm(30, 0, 64.0), &candidate, &deltas);
        assert_eq!(v.kind, VerdictKind::Faster);
        assert!(v.summary.starts_with("The candidate is faster: total time 700 ms → 490 ms, -30.0 %"), "{}", v.summary);
        assert!(v.summary.contains("Time per output token: 10.0 ms → 6.9 ms, -31.0 %"), "{}", v.summary);
        assert!(v.summary.contains("TTFT: 50.0 ms → 51.0 ms, +2.0 %") && v.summary.contains("not a detectable"));
        assert!(v.summary.contains("71.2 % of drafted tokens accepted (the replies' own timings)"), "{}", v.summary);
        assert_eq!(v.caveats, Vec::<String>::new(), "a clean greedy cell of 30 a side has nothing to warn of");
    }

    #[test]
    fn one_test_alone_is_not_enough_and_decode_alone_is_mixed() {
        let mut total = delta(AbMetric::Total, 700.0, 650.0, 0.01);
        total.mann_whitney_p = Some(0.2);
        let deltas = [delta(AbMetric::Tpot, 10.0, 8.0, 0.001), total];
        let v = verdict(GREEDY, &arm(30, 0, 64.0), &arm(30, 0, 64.0), &deltas);
        assert_eq!(v.kind, VerdictKind::Mixed, "Welch alone below 0.05 does not make it faster");
        let none = verdict(GREEDY, &arm(30, 0, 64.0), &arm(30, 0, 64.0), &[delta(AbMetric::Total, 700.0, 690.0, 0.5)]);
        assert_eq!(none.kind, VerdictKind::NoDifference);
        assert!(none.summary.starts_with("Total time shows no difference this sample can detect"));
    }

    #[test]
    fn too_few_successes_is_inconclusive_and_caveats_name_what_could_mislead() {
        let v = verdict(GREEDY, &arm(3, 2, 64.0), &arm(3, 0, 64.0), &[]);
        assert_eq!(v.kind, VerdictKind::Inconclusive);
        assert!(v.summary.contains("(1 baseline, 3 candidate; at least 2 each)"), "{}", v.summary);
        let loaded = AbCellPlan { concurrency: 8, temperature: 0.7 };
        let deltas = [delta(AbMetric::Ttft, 50.0, 80.0, 1e-4), delta(AbMetric::Total, 700.0, 690.0, 0.5)];
        let v = verdict(loaded, &arm(10, 1, 64.0), &arm(10, 0, 90.0), &deltas);
        let all = v.caveats.join(" | ");
        for expected in [
            "Small sample: 9 successful",
            "1 of the baseline's 10 requests failed",
            "64.0 vs 90.0 output tokens",
            "draft acceptance was not measured",
            "first token came later",
            "At 8 requests in flight",
            "At temperature 0.7",
        ] {
            assert!(all.contains(expected), "missing {expected:?} in {all}");
        }
    }

    #[test]
    fn the_servers_counters_win_over_the_replies_and_a_restart_is_no_figure() {
        use crate::model::{ServerMetrics, SpecWindow};
        let window = SpecWindow {
            drafts: Some(100.0),
            draft_tokens: 400.0,
            accepted_tokens: 300.0,
            acceptance_rate: Some(0.75),
            mean_acceptance_length: Some(4.0),
            per_position: vec![(0, 0.9), (1, 0.6)],
        };
        let server = |spec| ServerMetrics {
            kind: ServerKind::LlamaCpp,
            root: "http://h".into(),
            scrapes: 2,
            failed_scrapes: 0,
            samples: vec![],
            spec,
            latencies: vec![],
            preemptions: None,
            prefix_cache: None,
            version: None,
        };
        let mut a = arm(5, 0, 10.0);
        a.replies = EngineTimingTotals { responses: 5, draft_tokens: 10, draft_accepted: 1 };
        a.server = Some(server(SpecOutcome::Window(window)));
        let acceptance = a.acceptance().unwrap();
        assert_eq!((acceptance.rate, acceptance.source), (0.75, AcceptanceSource::ServerCounters));
        a.server = Some(server(SpecOutcome::Restarted { counter: "drafts".into() }));
        assert_eq!(a.acceptance().unwrap().source, AcceptanceSource::ReplyTimings, "the replies still say");
        assert_eq!(a.drafts_label(), "10.0 % accepted");
        a.replies = EngineTimingTotals { responses: 5, draft_tokens: 0, draft_accepted: 0 };
        assert_eq!(a.drafts_label(), "no drafts", "the replies said so");
        assert_eq!(arm(5, 0, 10.0).drafts_label(), "acceptance not measured");
        assert_eq!(
            acceptance_text(&acceptance),
            "75.0 % of drafted tokens accepted, mean acceptance length 4.00, by draft position 0.90 / 0.60 (the server's counters)"
        );
    }
}
