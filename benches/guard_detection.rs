//! How often each of Guard's tests alerts on noise, and how soon it sees a real slowdown: 1,000 simulated
//! schedule histories per scenario, each evaluation judged by Guard's own `decide` (the same thresholds, Welch's
//! test, E-Divisive over the history), an alert opening under the schedule's K-of-N rule.
//!
//! A history: a pinned baseline of 30 requests, then 60 evaluations of 20 requests each. A request's total time is
//! log-normal (σ = 0.25 on the log scale, a p95 about 1.5 × the median) around the evaluation's median, which is
//! 1,000 ms times the scenario's factor times a run-to-run jitter (log-normal, σ = 0.03: the endpoint is a little
//! faster or slower from one hour to the next, as shared endpoints are). Scenarios: no change; a step of +20 % at
//! evaluation 30; a drift of +0.5 % an evaluation from evaluation 20 (+10 % by 40, +20 % by 60), which no single
//! run shows against the last.
//!
//! Run: `cargo bench --bench guard_detection --no-default-features --features ssr [-- SERIES [SEED]]`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

use latency_guard::guard::judge::{decide, pool_state, PoolState};
use latency_guard::guard::model::{
    AlertPolicy, BaselineSource, Cadence, GuardSummary, Metric, Op, PooledEvaluation, Reference, ReferenceFrom,
    ScheduleInput, Severity, Threshold, WindowTest, WindowTestKind,
};
use latency_guard::model::{BaselineId, BenchmarkSetId, ConnectorId, RunId};
use latency_guard::stats::percentile;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use uuid::Uuid;

const EVALUATIONS: usize = 60;
const REQUESTS: usize = 20;
const BASELINE_REQUESTS: usize = 30;
const MEDIAN_MS: f64 = 1_000.0;
const REQUEST_SIGMA: f64 = 0.25;
const JITTER_SIGMA: f64 = 0.03;
/// Output tokens of every answer, for tok/s.
const TOKENS: f64 = 200.0;

/// What happens to the endpoint's median over a history.
#[derive(Clone, Copy)]
enum Scenario {
    NoChange,
    /// ×1.2 from evaluation 30.
    Step,
    /// +0.5 % an evaluation from evaluation 20.
    Drift,
}

impl Scenario {
    const ALL: [Scenario; 3] = [Scenario::NoChange, Scenario::Step, Scenario::Drift];

    fn name(self) -> &'static str {
        match self {
            Scenario::NoChange => "no change",
            Scenario::Step => "step +20 % at evaluation 30",
            Scenario::Drift => "drift +0.5 %/evaluation from 20",
        }
    }

    /// The median's factor at evaluation `i` (0-based).
    fn factor(self, i: usize) -> f64 {
        match self {
            Scenario::NoChange => 1.0,
            Scenario::Step => {
                if i >= 30 {
                    1.2
                } else {
                    1.0
                }
            }
            Scenario::Drift => 1.0 + 0.005 * i.saturating_sub(20) as f64,
        }
    }

    /// The first evaluation at which the endpoint is slower, if it ever is.
    fn onset(self) -> Option<usize> {
        match self {
            Scenario::NoChange => None,
            Scenario::Step => Some(30),
            Scenario::Drift => Some(21),
        }
    }
}

/// A test as a schedule would set it: its thresholds and its policy's K of N.
struct Detector {
    name: &'static str,
    schedule: ScheduleInput,
}

fn schedule(thresholds: Vec<Threshold>, policy: AlertPolicy) -> ScheduleInput {
    ScheduleInput {
        name: "bench".into(),
        set_id: BenchmarkSetId(Uuid::nil()),
        connector_id: ConnectorId(Uuid::nil()),
        enabled: true,
        cadence: Cadence::Hourly,
        notify: Default::default(),
        thresholds,
        alpha: 0.05,
        require_significance: true,
        workload_id: None,
        stream: false,
        policy,
    }
}

/// The schedule at α = 0.001.
fn strict(schedule: ScheduleInput) -> ScheduleInput {
    ScheduleInput { alpha: 0.001, ..schedule }
}

/// A threshold of +10 % judged against the last 20 evaluations by `kind` (at least 5 of them).
fn windowed(metric: Metric, kind: WindowTestKind) -> Threshold {
    let test = WindowTest { kind, window: 20, min_history: 5 };
    Threshold { metric, op: Op::PctIncrease, value: 10.0, severity: Severity::Warn, test: Some(test) }
}

fn detectors() -> Vec<Detector> {
    let rule = |metric, op, value| Threshold { metric, op, value, severity: Severity::Warn, test: None };
    let sustained = AlertPolicy { sustain_breaches: 2, sustain_of: 3, ..AlertPolicy::default() };
    let rolling = AlertPolicy { baseline: BaselineSource::Rolling { last: 10 }, ..AlertPolicy::default() };
    vec![
        Detector {
            name: "p95 +10 % vs baseline, Welch p < 0.05",
            schedule: schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 10.0)], AlertPolicy::default()),
        },
        Detector {
            name: "the same, 2 of 3 evaluations",
            schedule: schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 10.0)], sustained),
        },
        Detector {
            name: "p95 +10 % vs the last 10 healthy evaluations pooled, Welch p < 0.05",
            schedule: schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 10.0)], rolling),
        },
        Detector {
            name: "mean +10 % vs the last 10 healthy evaluations pooled, Welch p < 0.05",
            schedule: schedule(vec![rule(Metric::MeanMs, Op::PctIncrease, 10.0)], rolling),
        },
        Detector {
            name: "mean +10 % vs baseline, Welch p < 0.05",
            schedule: schedule(vec![rule(Metric::MeanMs, Op::PctIncrease, 10.0)], AlertPolicy::default()),
        },
        Detector {
            name: "p95 +10 % vs baseline, no significance gate",
            schedule: ScheduleInput {
                require_significance: false,
                ..schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 10.0)], AlertPolicy::default())
            },
        },
        Detector {
            name: "p95 change point ≥ 10 % (E-Divisive, segments of 5)",
            schedule: schedule(vec![rule(Metric::P95Ms, Op::ChangePoint, 10.0)], AlertPolicy::default()),
        },
        Detector {
            name: "mean change point ≥ 10 % (E-Divisive, segments of 5)",
            schedule: schedule(vec![rule(Metric::MeanMs, Op::ChangePoint, 10.0)], AlertPolicy::default()),
        },
        Detector {
            name: "p95 z-score, last 20, ≥ 10 % over their mean",
            schedule: schedule(vec![windowed(Metric::P95Ms, WindowTestKind::ZScore)], AlertPolicy::default()),
        },
        Detector {
            name: "p95 log-normal, last 20, ≥ 10 %",
            schedule: schedule(vec![windowed(Metric::P95Ms, WindowTestKind::LogNormal)], AlertPolicy::default()),
        },
        Detector {
            name: "mean log-normal, last 20, ≥ 10 %",
            schedule: schedule(vec![windowed(Metric::MeanMs, WindowTestKind::LogNormal)], AlertPolicy::default()),
        },
        Detector {
            name: "p95 z-score, last 20, ≥ 10 %, α = 0.001",
            schedule: strict(schedule(vec![windowed(Metric::P95Ms, WindowTestKind::ZScore)], AlertPolicy::default())),
        },
        Detector {
            name: "mean log-normal, last 20, ≥ 10 %, α = 0.001",
            schedule: strict(schedule(
                vec![windowed(Metric::MeanMs, WindowTestKind::LogNormal)],
                AlertPolicy::default(),
            )),
        },
        Detector {
            name: "mean log-normal, last 20, ≥ 10 %, α = 0.001, 2 of 3",
            schedule: strict(schedule(vec![windowed(Metric::MeanMs, WindowTestKind::LogNormal)], sustained)),
        },
        Detector {
            name: "p95 IQR fence, last 20, ≥ 10 % over their median",
            schedule: schedule(vec![windowed(Metric::P95Ms, WindowTestKind::Iqr)], AlertPolicy::default()),
        },
        Detector {
            name: "p95 delta-IQR, last 20, ≥ 10 % over the last",
            schedule: schedule(vec![windowed(Metric::P95Ms, WindowTestKind::DeltaIqr)], AlertPolicy::default()),
        },
    ]
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut StdRng) -> f64 {
    let (u, v): (f64, f64) = (rng.gen_range(f64::EPSILON..1.0), rng.gen());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// `n` total times around `median`, ascending, and their summary as Guard makes it.
fn run(rng: &mut StdRng, median: f64, n: usize) -> (Vec<f64>, GuardSummary) {
    let mut totals: Vec<f64> = (0..n).map(|_| median * (REQUEST_SIGMA * normal(rng)).exp()).collect();
    totals.sort_by(f64::total_cmp);
    let sum: f64 = totals.iter().sum();
    let summary = GuardSummary {
        p95_ms: percentile(&totals, 95.0),
        mean_ms: Some(sum / n as f64),
        tok_s: Some(TOKENS * n as f64 / (sum / 1_000.0)),
        ..GuardSummary::default()
    };
    (totals, summary)
}

/// What one detector did in one history.
struct Outcome {
    /// Its K-of-N rule was met before the change (at any time without one): a false alarm.
    false_alarm: bool,
    /// Breaching evaluations before the change.
    early_breaches: usize,
    /// The first evaluation at or after the change at which the rule was met (an earlier false alarm taken as
    /// acknowledged).
    detected_at: Option<usize>,
}

/// Each detector's outcome in one history.
fn one_history(rng: &mut StdRng, scenario: Scenario, detectors: &[Detector]) -> Vec<Outcome> {
    let (total_ms, summary) = run(rng, MEDIAN_MS, BASELINE_REQUESTS);
    let from = ReferenceFrom::Pinned { baseline_id: BaselineId(Uuid::nil()), run_id: RunId(Uuid::nil()) };
    let baseline = Reference { total_ms, summary, streamed: None, from };
    let onset = scenario.onset().unwrap_or(EVALUATIONS);
    let mut history: Vec<GuardSummary> = Vec::with_capacity(EVALUATIONS);
    let mut breaches: Vec<Vec<bool>> = vec![Vec::with_capacity(EVALUATIONS); detectors.len()];
    let mut outcomes: Vec<Outcome> =
        detectors.iter().map(|_| Outcome { false_alarm: false, early_breaches: 0, detected_at: None }).collect();
    // A pooled detector's healthy (or not yet compared) evaluations, newest first, as the store reads a pool.
    let mut pools: Vec<Vec<PooledEvaluation>> = vec![Vec::new(); detectors.len()];
    for i in 0..EVALUATIONS {
        let median = MEDIAN_MS * scenario.factor(i) * (JITTER_SIGMA * normal(rng)).exp();
        let (totals, summary) = run(rng, median, REQUESTS);
        for (d, detector) in detectors.iter().enumerate() {
            if outcomes[d].detected_at.is_some() {
                continue;
            }
            let source = detector.schedule.policy.baseline;
            let reference = match source {
                BaselineSource::Pinned => Some(baseline.clone()),
                _ => match pool_state(source, &pools[d][..pools[d].len().min(source.max_evaluations() as usize)]) {
                    PoolState::Ready(pooled) => Some(*pooled),
                    PoolState::Empty | PoolState::Filling(_) => None,
                },
            };
            // Without enough pooled evaluations the run is recorded, not compared: it joins the pool.
            let breached = reference.is_some_and(|reference| {
                !decide(&detector.schedule, &reference, (&totals, &summary), &history).breaches.is_empty()
            });
            if source.is_pooled() && !breached {
                let run_id = RunId(Uuid::from_u128(i as u128));
                let pooled = PooledEvaluation {
                    finished_at_ms: i as i64,
                    run_id,
                    total_ms: totals.clone(),
                    summary,
                    streamed: None,
                };
                pools[d].insert(0, pooled);
            }
            breaches[d].push(breached);
            let policy = detector.schedule.policy;
            let recent = breaches[d].iter().rev().take(policy.sustain_of as usize).filter(|b| **b).count();
            let rule_met = recent >= policy.sustain_breaches as usize;
            let outcome = &mut outcomes[d];
            if i < onset {
                outcome.early_breaches += usize::from(breached);
                outcome.false_alarm |= rule_met;
            } else if rule_met {
                outcome.detected_at = Some(i);
            }
        }
        history.push(summary);
    }
    outcomes
}

/// What one detector did over every history of a scenario.
#[derive(Default, Clone)]
struct Tally {
    /// Histories with a false alarm.
    false_alarms: usize,
    /// Breaching evaluations before the change, and evaluations before it.
    early_breaches: usize,
    early_evaluations: usize,
    /// Evaluations at the new level when the change was detected (1 = the first slower evaluation).
    delays: Vec<usize>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let series: usize = args.first().map_or(1_000, |s| s.parse().expect("SERIES: a count"));
    let seed: u64 = args.get(1).map_or(2026, |s| s.parse().expect("SEED: a number"));
    let detectors = detectors();
    println!(
        "{series} histories per scenario: {EVALUATIONS} evaluations of {REQUESTS} requests (log-normal σ {REQUEST_SIGMA}, \
         run-to-run jitter σ {JITTER_SIGMA}), a baseline of {BASELINE_REQUESTS}; seed {seed}\n"
    );
    println!(
        "| scenario | test | breaches per 100 evaluations before the change | histories with a false alarm | \
         detected after the change | delay p50 / p90 (evaluations at the new level) |"
    );
    println!("|---|---|---|---|---|---|");
    for scenario in Scenario::ALL {
        let started = Instant::now();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let tallies: Vec<Vec<Tally>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let detectors = &detectors;
                    scope.spawn(move || {
                        let mut tally = vec![Tally::default(); detectors.len()];
                        for s in (t..series).step_by(threads) {
                            let mut rng = StdRng::seed_from_u64(seed ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                            let onset = scenario.onset().unwrap_or(EVALUATIONS);
                            for (d, outcome) in one_history(&mut rng, scenario, detectors).into_iter().enumerate() {
                                let tally = &mut tally[d];
                                tally.false_alarms += usize::from(outcome.false_alarm);
                                tally.early_breaches += outcome.early_breaches;
                                tally.early_evaluations += onset;
                                if let Some(at) = outcome.detected_at {
                                    tally.delays.push(at - onset + 1);
                                }
                            }
                        }
                        tally
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (d, detector) in detectors.iter().enumerate() {
            let sum = |f: fn(&Tally) -> usize| tallies.iter().map(|t| f(&t[d])).sum::<usize>();
            let false_alarms = sum(|t| t.false_alarms);
            let per_100 = 100.0 * sum(|t| t.early_breaches) as f64 / sum(|t| t.early_evaluations).max(1) as f64;
            let mut delays: Vec<f64> = tallies.iter().flat_map(|t| t[d].delays.iter().map(|&x| x as f64)).collect();
            delays.sort_by(f64::total_cmp);
            let pct = |n: usize| format!("{:.1} %", n as f64 * 100.0 / series as f64);
            let (detected, delay) = match scenario.onset() {
                None => ("—".to_string(), "—".to_string()),
                Some(_) if delays.is_empty() => (pct(0), "—".to_string()),
                Some(_) => (
                    pct(delays.len()),
                    format!("{:.0} / {:.0}", percentile(&delays, 50.0).unwrap(), percentile(&delays, 90.0).unwrap()),
                ),
            };
            println!(
                "| {} | {} | {per_100:.2} | {} | {detected} | {delay} |",
                scenario.name(),
                detector.name,
                pct(false_alarms)
            );
        }
        eprintln!("{}: {:.1} s", scenario.name(), started.elapsed().as_secs_f64());
    }
}
