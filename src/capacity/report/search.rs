//! A capacity search as it is reported: "the highest load at which these objectives hold", the levels tried to
//! find it (each with the figures it was judged on) and how sure the answer is.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::capacity::model::{LoadAxis, SweepPlan, SweepSummary};
use crate::model::{RunId, Slo};
use crate::stats::Percentiles;

/// One load level a search tried: a run of its own, judged against the objectives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityLevel {
    /// The load: requests in flight, or requests per second.
    #[serde(serialize_with = "whole_when_integral")]
    pub level: f64,
    /// Every objective held, the error rate stayed within its limit and (open loop) the rate was achieved.
    pub passed: bool,
    /// Why it did not pass, one sentence per reason; empty when it passed.
    pub reasons: Vec<String>,
    /// The share of bootstrap resamples of this level's requests that pass: how sure its verdict is.
    pub pass_probability: f64,
    /// The figure each objective was judged on, named after it: `ttft_p95_ms` (a percentile, ms) or
    /// `ttft_ms_met` (a per-request objective: the share of measured requests that met it); `null` when not
    /// measurable.
    #[serde(flatten)]
    pub judged: BTreeMap<String, Option<f64>>,
    /// Measured requests (warm-ups excluded).
    pub requests: u64,
    /// Of those, failed.
    pub failed: u64,
    /// failed / requests.
    pub error_rate: f64,
    /// Good requests (succeeded and met every per-request objective) / requests.
    pub good_fraction: f64,
    /// Measured completions per second, from the first measured send to the last measured end.
    pub throughput_rps: Option<f64>,
    /// Good completions per second over the same window.
    pub good_rps: Option<f64>,
    /// Output tokens of successful requests per second over the same window.
    pub output_tok_per_sec: Option<f64>,
    /// Open loop: measured sends per second over the send window (what the load generator achieved).
    pub achieved_rate: Option<f64>,
    /// Open loop: the 95th percentile of how late requests were sent against their schedule, ms.
    pub schedule_lag_p95_ms: Option<f64>,
    /// TTFT percentiles of the successful requests, ms.
    pub ttft_ms: Option<Percentiles>,
    /// Total-time percentiles of the successful requests, ms.
    pub total_ms: Option<Percentiles>,
    /// Wall time of the level (warm-up included), s.
    pub wall_s: f64,
    /// How much slower the last quarter of the level's requests (by send time) were than the first: the ratio of
    /// their median total times; `None` with fewer than 8 successful requests.
    pub latency_growth: Option<f64>,
    /// The endpoint was over-saturated at this level, and how it showed; a listed sweep stops after such a level.
    pub saturation: Option<Saturation>,
    /// The stored run of this level, when the search ran on a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<RunId>,
    /// Whether the level's figures answer the question it asked (the run's verdict): a level the load generator
    /// could not apply says so instead of passing for the endpoint's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::model::RunValidity>,
}

impl CapacityLevel {
    /// The figures it was judged on, in words: `ttft_p95_ms 412 ms, total_ms_met 98.0 %`.
    pub fn judged_text(&self) -> String {
        let parts: Vec<String> = self
            .judged
            .iter()
            .map(|(name, v)| match v {
                Some(v) if name.ends_with("_met") => format!("{name} {:.1} %", v * 100.0),
                Some(v) => format!("{name} {}", crate::report::ms(*v)),
                None => format!("{name} —"),
            })
            .collect();
        parts.join(", ")
    }

    /// The verdict in words: `passed`, or `failed — ` its reasons and, when it was, how it was over-saturated.
    pub fn verdict_text(&self) -> String {
        if self.passed {
            return "passed".to_string();
        }
        let mut why = self.reasons.clone();
        if let Some(s) = self.saturation.filter(|s| *s != Saturation::RateMissed) {
            why.push(format!("over-saturated: {}", s.describe()));
        }
        format!("failed — {}", why.join("; "))
    }

    /// A level at `level` with nothing measured yet (0 requests, passed): the base that fixtures fill in.
    pub fn at(level: f64) -> Self {
        Self {
            level,
            passed: true,
            reasons: vec![],
            pass_probability: 1.0,
            judged: BTreeMap::new(),
            requests: 0,
            failed: 0,
            error_rate: 0.0,
            good_fraction: 0.0,
            throughput_rps: None,
            good_rps: None,
            output_tok_per_sec: None,
            achieved_rate: None,
            schedule_lag_p95_ms: None,
            ttft_ms: None,
            total_ms: None,
            wall_s: 0.0,
            latency_growth: None,
            saturation: None,
            run_id: None,
            validity: None,
        }
    }
}

impl CapacityReport {
    /// The levels as the sweep charts draw them.
    pub fn chart(&self) -> crate::capacity::charts::SweepChart {
        let points = self
            .levels
            .iter()
            .map(|l| crate::capacity::charts::SweepPoint {
                level: l.level,
                passed: l.passed,
                throughput_rps: l.throughput_rps,
                good_rps: l.good_rps,
                achieved_rate: l.achieved_rate,
                ttft_ms: l.ttft_ms,
                total_ms: l.total_ms,
            })
            .collect();
        crate::capacity::charts::SweepChart { axis: self.axis, points, knee: self.knee, objectives: self.slos.clone() }
    }
}

/// A sweep as its page shows it: progress while it runs, the levels so far, the answer once it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepView {
    /// Title, connector, status and levels done.
    pub summary: SweepSummary,
    /// What it runs.
    pub plan: SweepPlan,
    /// The report so far (`None` before the first level ends).
    pub report: Option<CapacityReport>,
}

/// How over-saturation showed at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Saturation {
    /// Open loop: the achieved send rate fell under 90 % of the rate asked.
    RateMissed,
    /// More requests failed than allowed.
    Errors,
    /// Latency kept growing through the level (the last quarter over twice the first): a queue that never drains.
    LatencyGrowing,
}

impl Saturation {
    /// In words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::RateMissed => "the achieved rate fell behind the rate asked",
            Self::Errors => "the error rate climbed above its limit",
            Self::LatencyGrowing => "latency kept growing through the level",
        }
    }
}

/// Where the answer lies, given the sampling noise of the levels tried.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerInterval {
    /// The 2.5th percentile of the bootstrap answers; `null` when in more than 2.5 % of resamples no level passed.
    #[serde(serialize_with = "whole_when_integral_or_null")]
    pub low: Option<f64>,
    /// The 97.5th percentile of the bootstrap answers; `null` when in over 97.5 % of them no level passed.
    #[serde(serialize_with = "whole_when_integral_or_null")]
    pub high: Option<f64>,
    /// Resamples drawn.
    pub resamples: u32,
}

/// A finished capacity search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityReport {
    /// The load varied.
    pub axis: LoadAxis,
    /// The objectives every level was judged against.
    pub slos: Vec<Slo>,
    /// A level whose error rate is above this fails.
    pub max_error_rate: f64,
    /// The highest level that passed; `null` when none did.
    #[serde(serialize_with = "whole_when_integral_or_null")]
    pub answer: Option<f64>,
    /// A level above the answer failed, so the answer is bounded; `false` when the search stopped at its
    /// maximum with every level passing (the endpoint takes at least that much).
    pub bounded: bool,
    /// The answer's 95 % bootstrap interval over the levels tried.
    pub interval: AnswerInterval,
    /// Every level, in the order tried.
    pub levels: Vec<CapacityLevel>,
    /// The knee: the highest level before the first step on which latency (total p95) grew faster than
    /// throughput, relatively; `null` when no step did (within the levels run).
    #[serde(serialize_with = "whole_when_integral_or_null")]
    pub knee: Option<f64>,
    /// A listed sweep stopped before its last level because one was over-saturated.
    pub stopped_early: bool,
    /// An automatic sweep's probes (one request in flight, then the most), which chose its rates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<CapacityLevel>,
    /// Requests sent in all, warm-ups included.
    pub requests_sent: u64,
    /// Wall time of the search, s.
    pub wall_s: f64,
    /// How the search went and how each figure was computed, in sentences.
    pub notes: Vec<String>,
    /// A repeated run: every figure over its repetitions (the levels are the repetitions, in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated: Option<crate::capacity::report::RepeatedReport>,
}

fn whole_when_integral<S: serde::Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        s.serialize_i64(*value as i64)
    } else {
        s.serialize_f64(*value)
    }
}

fn whole_when_integral_or_null<S: serde::Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => whole_when_integral(v, s),
        None => s.serialize_none(),
    }
}
