//! The verdict on a finished run's figures, as a pure function of the run (its plan, and what its load generator's
//! process did) and its records: `valid` when every check that applies passed, `invalid` with the failed checks
//! first, each saying what was measured against which bound and what to change. MLPerf's LoadGen says
//! `VALID`/`INVALID` the same way; here every run, sweep level and A/B arm gets one, its report shows it first and
//! `bench` exits with status 3 on it.

use crate::model::{
    CheckKind, CheckOutcome, ClientLoad, IterationRecord, LoadMode, PromptHeads, RunPlan, RunValidity, RunView,
    SloScope, ValidityCheck, Workload,
};
use crate::runs::report::cache::cache_found;
use crate::stats::{pacing, RunSummary, MIN_ACHIEVED_SHARE};

/// What a run is judged against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The highest percentile the run's figures are read at (its objectives'; the median without any).
    pub percentile: u8,
    /// The largest share of measured requests that may fail.
    pub max_error_rate: f64,
    /// An open loop's sends may lag their schedule by this much at the 95th percentile, ms, or by a quarter of the
    /// mean gap between sends when that is longer.
    pub max_lag_p95_ms: f64,
    /// The load generator's workers may be busy in this share of their windows (and in one window, however short
    /// the run).
    pub max_saturated_share: f64,
    /// Its event loop may wake this late at the 99th percentile, ms.
    pub max_wake_lag_p99_ms: f64,
    /// A closed loop must hold 95 % of its concurrency for at least this share of the measured window.
    pub min_steady_share: f64,
}

impl Bounds {
    /// The bounds of a run of `plan`.
    pub fn of(plan: &RunPlan) -> Self {
        let asked = plan.slos.iter().filter_map(|s| match s.scope {
            SloScope::Percentile(p) => Some(p),
            SloScope::PerRequest => None,
        });
        Self { percentile: asked.max().unwrap_or(50), ..Self::DEFAULT }
    }

    /// The bounds without objectives.
    pub const DEFAULT: Self = Self {
        percentile: 50,
        max_error_rate: 0.05,
        max_lag_p95_ms: 20.0,
        max_saturated_share: 0.1,
        max_wake_lag_p99_ms: 20.0,
        min_steady_share: 0.5,
    };
}

/// The successful requests a percentile needs: at least one beyond it, so that it is read inside the sample and
/// not at its largest value (p50: 2, p90: 10, p95: 20, p99: 100).
pub fn samples_needed(percentile: u8) -> u64 {
    let beyond = 100 - u64::from(percentile.min(99));
    100_u64.div_ceil(beyond)
}

/// The verdict on a finished `run` whose records are `results` (warm-ups included, flagged) and figures `summary`.
pub fn judge_run(run: &RunView, results: &[IterationRecord], summary: &RunSummary) -> RunValidity {
    judge(&run.plan, run.client_load.as_ref(), results, summary, &Bounds::of(&run.plan))
}

/// The verdict on `results` sent by `plan` from a client that did `client`, against `bounds`: what an A/B test's
/// arm or a sweep's level is judged by too.
pub fn judge(
    plan: &RunPlan,
    client: Option<&ClientLoad>,
    results: &[IterationRecord],
    summary: &RunSummary,
    bounds: &Bounds,
) -> RunValidity {
    let measured: Vec<&IterationRecord> = results.iter().filter(|r| !r.warmup).collect();
    RunValidity::of(vec![
        samples(summary, bounds),
        errors(&measured, summary, bounds),
        schedule(plan, &measured, bounds),
        client_cpu(client, bounds),
        client_timing(client, bounds),
        cache(plan.prompt_heads, plan.workload.as_ref(), results),
        steady_state(plan, results, bounds),
    ])
}

/// The verdict on one arm of an A/B test: `results` sent in rounds from a client that did `client`, with `heads`
/// marks and `workload`'s prompts. A round waits for its last request before the next, so the arm has neither a
/// schedule nor a steady state to keep; its figures are compared as means, so the median's samples suffice.
pub fn judge_rounds(
    heads: PromptHeads,
    workload: Option<&Workload>,
    client: Option<&ClientLoad>,
    results: &[IterationRecord],
) -> RunValidity {
    let summary = crate::stats::summarize(results);
    let bounds = Bounds::DEFAULT;
    let measured: Vec<&IterationRecord> = results.iter().filter(|r| !r.warmup).collect();
    let in_rounds = "an A/B test sends in rounds, each waiting for its last request";
    RunValidity::of(vec![
        samples(&summary, &bounds),
        errors(&measured, &summary, &bounds),
        not_checked(CheckKind::Schedule, in_rounds),
        client_cpu(client, &bounds),
        client_timing(client, &bounds),
        cache(heads, workload, results),
        not_checked(CheckKind::SteadyState, in_rounds),
    ])
}

fn passed(check: CheckKind, says: String) -> ValidityCheck {
    ValidityCheck { check, outcome: CheckOutcome::Passed, says, change: None }
}

fn failed(check: CheckKind, says: String, change: &str) -> ValidityCheck {
    ValidityCheck { check, outcome: CheckOutcome::Failed, says, change: Some(change.to_string()) }
}

fn not_checked(check: CheckKind, why: &str) -> ValidityCheck {
    ValidityCheck { check, outcome: CheckOutcome::NotChecked, says: why.to_string(), change: None }
}

fn samples(summary: &RunSummary, bounds: &Bounds) -> ValidityCheck {
    let (n, p) = (summary.succeeded, bounds.percentile);
    let needed = samples_needed(p);
    let says = format!(
        "{n} successful request(s); p{p}, the highest percentile this run is read at, needs at least {needed} \
         (one request beyond it)"
    );
    if n >= needed {
        passed(CheckKind::Samples, says)
    } else {
        let lower = if p > 50 { ", or judge the run at a lower percentile" } else { "" };
        let change = format!("Send at least {needed} requests (more iterations, or a longer time limit){lower}.");
        failed(CheckKind::Samples, says, &change)
    }
}

fn errors(measured: &[&IterationRecord], summary: &RunSummary, bounds: &Bounds) -> ValidityCheck {
    if measured.is_empty() {
        return failed(
            CheckKind::Errors,
            "no request was measured".into(),
            "Check that the endpoint answers (the connection test) and that the run has requests to send.",
        );
    }
    let says = format!(
        "{:.1} % of {} measured request(s) failed (bound {:.0} %)",
        summary.error_rate * 100.0,
        summary.measured,
        bounds.max_error_rate * 100.0
    );
    if summary.error_rate <= bounds.max_error_rate {
        return passed(CheckKind::Errors, says);
    }
    let first = measured.iter().find_map(|r| r.error.as_deref()).unwrap_or_default();
    let first: String = first.chars().take(160).collect();
    failed(
        CheckKind::Errors,
        format!("{says}; the first error: {first}"),
        "Failed requests are left out of every latency, so the figures describe only those that got through: fix \
         what failed, or lower the load to what the endpoint serves.",
    )
}

fn schedule(plan: &RunPlan, measured: &[&IterationRecord], bounds: &Bounds) -> ValidityCheck {
    let LoadMode::Open { rate_per_second, .. } = plan.mode else {
        return not_checked(CheckKind::Schedule, "a closed loop sends when a request ends; it has no schedule");
    };
    let pacing = pacing(measured);
    let fixed_rate = plan.shape.is_none() && !matches!(plan.workload, Some(Workload::Trace { .. }));
    if let Some(achieved) = pacing.achieved_rate.filter(|a| fixed_rate && *a < rate_per_second * MIN_ACHIEVED_SHARE) {
        return failed(
            CheckKind::Schedule,
            format!(
                "sent {achieved:.2} request(s)/s of the {rate_per_second} asked (bound {:.0} % of it)",
                MIN_ACHIEVED_SHARE * 100.0
            ),
            "The load generator could not keep the rate: raise the cap on requests in flight (a send waits for a free \
             slot), or ask for a rate the endpoint answers within its timeout.",
        );
    }
    let Some(lag) = pacing.lag_p95_ms else {
        return not_checked(CheckKind::Schedule, "no request was sent");
    };
    let rate = if fixed_rate { Some(rate_per_second) } else { pacing.achieved_rate };
    let quarter_gap_ms = rate.filter(|r| *r > 0.0).map_or(0.0, |r| 250.0 / r);
    let bound = bounds.max_lag_p95_ms.max(quarter_gap_ms);
    let says = format!("sends lagged their schedule by {lag:.1} ms at the 95th percentile (bound {bound:.1} ms)");
    if lag <= bound {
        passed(CheckKind::Schedule, says)
    } else {
        failed(
            CheckKind::Schedule,
            says,
            "The requests did not leave when the schedule said, so the endpoint saw another load than the one asked: \
             raise the cap on requests in flight, lower the rate, or give the load generator more CPU.",
        )
    }
}

fn client_cpu(client: Option<&ClientLoad>, bounds: &Bounds) -> ValidityCheck {
    let Some(client) = client else {
        return not_checked(CheckKind::ClientCpu, "not measured (a run from before the load generator was watched)");
    };
    if client.windows == 0 {
        let why = format!("the run was shorter than one window of {} ms", client.window_ms);
        return not_checked(CheckKind::ClientCpu, &why);
    }
    let share = f64::from(client.busy_windows) / f64::from(client.windows);
    let cpu = client.cpu_share.map_or_else(String::new, |cpu| {
        format!("; the process used {:.0} % of its {} CPU(s)", cpu * 100.0, crate::model::trim_number(client.cores))
    });
    let says = format!(
        "the load generator's {} event-loop worker(s) were busy at least {:.0} % of the time in {} of {} windows of \
         {} ms (bound: {:.0} % of the windows; {:.0} % busy over the run{cpu})",
        client.workers,
        crate::model::SATURATED_SHARE * 100.0,
        client.busy_windows,
        client.windows,
        client.window_ms,
        bounds.max_saturated_share * 100.0,
        client.busy_share * 100.0,
    );
    // One busy window is a moment (a page rendered beside a short run), not a saturated client.
    if share <= bounds.max_saturated_share || client.busy_windows < 2 {
        passed(CheckKind::ClientCpu, says)
    } else {
        failed(
            CheckKind::ClientCpu,
            says,
            "The client was the bottleneck (its workers had no idle moment, busy or waiting for a core), and its own \
             delays are in every latency: give the load generator more cores or a machine of its own, or send this \
             load from several processes.",
        )
    }
}

fn client_timing(client: Option<&ClientLoad>, bounds: &Bounds) -> ValidityCheck {
    let Some(client) = client.filter(|c| c.wakes > 0) else {
        return not_checked(CheckKind::ClientTiming, "not measured (a run from before the load generator was watched)");
    };
    let says = format!(
        "the load generator's event loop woke {:.1} ms late at the 99th percentile ({:.1} ms at most, over {} \
         wake-ups; bound {:.0} ms): requests left, and answers were timed, up to that much after their instant",
        client.wake_lag_p99_ms, client.wake_lag_max_ms, client.wakes, bounds.max_wake_lag_p99_ms
    );
    if client.wake_lag_p99_ms <= bounds.max_wake_lag_p99_ms {
        passed(CheckKind::ClientTiming, says)
    } else {
        failed(
            CheckKind::ClientTiming,
            says,
            "Requests reached the endpoint later than their recorded send, and that delay counts as latency: run the \
             load generator where nothing else competes for its cores, or with fewer requests in flight.",
        )
    }
}

fn cache(heads: PromptHeads, workload: Option<&Workload>, results: &[IterationRecord]) -> ValidityCheck {
    if heads == PromptHeads::Off {
        return not_checked(CheckKind::Cache, "prompt marks were off: a cache-warm measurement was asked for");
    }
    let found = cache_found(workload, results);
    if found.unshared == 0 {
        return not_checked(CheckKind::Cache, "the workload shares its prompts' starts on purpose");
    }
    if found.counted == 0 {
        return not_checked(CheckKind::Cache, "the server did not say how many prompt tokens it had cached");
    }
    let says = format!(
        "{} of {} request(s) meant to share nothing found more than half their prompt in the server's cache",
        found.mostly_cached, found.counted
    );
    if found.mostly_cached == 0 {
        passed(CheckKind::Cache, says)
    } else {
        failed(
            CheckKind::Cache,
            says,
            "Their time to first token is a cache-warm prefill's though each began with a mark of its own: the server \
             caches more than prompt prefixes, or a system prompt makes up most of each prompt; shorten it or make \
             the prompts longer.",
        )
    }
}

/// Whether a closed loop held its concurrency: requests in flight (warm-ups too: the endpoint served them) over the
/// window from the first measured send to the last measured end.
fn steady_state(plan: &RunPlan, results: &[IterationRecord], bounds: &Bounds) -> ValidityCheck {
    let LoadMode::Closed { concurrency } = plan.mode else {
        return not_checked(CheckKind::SteadyState, "an open loop's requests in flight follow its arrivals");
    };
    if plan.shape.is_some() {
        return not_checked(CheckKind::SteadyState, "a load shape changes the concurrency on purpose");
    }
    if matches!(plan.workload, Some(Workload::MultiTurn { .. })) {
        return not_checked(CheckKind::SteadyState, "conversations think between turns, with nothing in flight");
    }
    let span = |r: &IterationRecord| r.sent_at_ms.map(|sent| (sent, sent + r.total_ms));
    let spans: Vec<(f64, f64)> = results.iter().filter_map(span).collect();
    let measured = results.iter().filter(|r| !r.warmup).filter_map(span);
    let window = measured.fold(None, |w: Option<(f64, f64)>, (start, end)| {
        Some(w.map_or((start, end), |(first, last)| (first.min(start), last.max(end))))
    });
    let full = (f64::from(concurrency) * 0.95).ceil() as i64;
    let Some((share, window_ms)) = window.and_then(|window| share_at_least(&spans, full, window)) else {
        return not_checked(
            CheckKind::SteadyState,
            "the records hold no send times (a run from before they were kept)",
        );
    };
    let says = format!(
        "{full} or more of the {concurrency} request(s) asked were in flight for {:.0} % of the {:.1} s measured \
         (bound {:.0} %)",
        share * 100.0,
        window_ms / 1e3,
        bounds.min_steady_share * 100.0
    );
    if share >= bounds.min_steady_share {
        passed(CheckKind::SteadyState, says)
    } else {
        failed(
            CheckKind::SteadyState,
            says,
            "Most of the run was its start or its drain, not the load asked: send more requests per slot (ten times \
             the concurrency or more) or set a time limit.",
        )
    }
}

/// The share of `window` (from, to; ms) during which at least `full` of `spans` were in flight, and the window's
/// length; `None` when it is empty.
fn share_at_least(spans: &[(f64, f64)], full: i64, window: (f64, f64)) -> Option<(f64, f64)> {
    let (from, to) = window;
    if to <= from {
        return None;
    }
    let mut events: Vec<(f64, i64)> = spans.iter().flat_map(|&(start, end)| [(start, 1), (end, -1)]).collect();
    // Ends before starts at one instant: a slot handed on at once is not counted twice.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut in_flight, mut at, mut full_ms) = (0_i64, from, 0.0);
    for (instant, step) in events {
        let instant = instant.clamp(from, to);
        if in_flight >= full {
            full_ms += instant - at;
        }
        in_flight += step;
        at = instant;
    }
    Some((full_ms / (to - from), to - from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::model::{RunPlanInput, Verdict};
    use crate::stats::summarize;

    /// `n` requests of `ms` each, `c` at a time back to back (a closed loop's steady state), the first `failed`
    /// of them failing, each `lag_ms` behind its schedule.
    fn records(n: u64, c: u64, ms: f64, failed: u64, lag_ms: f64) -> Vec<IterationRecord> {
        (0..n)
            .map(|i| IterationRecord {
                sent_at_ms: Some((i / c) as f64 * ms),
                schedule_lag_ms: lag_ms,
                ..iteration_record(i, Some(ms / 2.0), ms, i < failed)
            })
            .collect()
    }

    fn closed(c: u32) -> RunView {
        completed_run(plan_input(&["p"], 64, c), "m")
    }

    fn open(rate: f64) -> RunView {
        let mode = LoadMode::Open { rate_per_second: rate, poisson: false, max_concurrency: 8, burstiness: None };
        completed_run(RunPlanInput { mode, ..plan_input(&["p"], 64, 1) }, "m")
    }

    fn quiet() -> ClientLoad {
        ClientLoad {
            workers: 2,
            cores: 2.0,
            window_ms: 250.0,
            windows: 40,
            busy_windows: 0,
            busy_share: 0.2,
            cpu_share: Some(0.15),
            wakes: 1_000,
            wake_lag_p99_ms: 1.2,
            wake_lag_max_ms: 3.0,
        }
    }

    fn failed_checks(run: &RunView, results: &[IterationRecord]) -> Vec<CheckKind> {
        let v = judge_run(run, results, &summarize(results));
        assert_eq!(v.verdict == Verdict::Invalid, v.reasons().count() > 0, "{v:?}");
        for reason in v.reasons() {
            assert!(reason.change.as_deref().is_some_and(|c| !c.is_empty()), "each reason says what to change: {v:?}");
        }
        v.reasons().map(|c| c.check).collect()
    }

    #[test]
    fn the_table_of_reasons() {
        let with_client = |mut run: RunView, client: ClientLoad| {
            run.client_load = Some(client);
            run
        };
        let saturated = ClientLoad { busy_windows: 12, busy_share: 0.93, ..quiet() };
        let one_busy_moment = ClientLoad { windows: 8, busy_windows: 1, busy_share: 0.3, ..quiet() };
        let late = ClientLoad { wake_lag_p99_ms: 45.0, wake_lag_max_ms: 120.0, ..quiet() };
        let p99 =
            completed_run(RunPlanInput { slos: vec!["ttft_p99_ms<=500".into()], ..plan_input(&["p"], 64, 1) }, "m");
        type Case = (&'static str, RunView, Vec<IterationRecord>, Vec<CheckKind>);
        let cases: Vec<Case> = vec![
            ("a steady closed loop", with_client(closed(4), quiet()), records(40, 4, 100.0, 0, 0.0), vec![]),
            ("one success is no median", closed(1), records(1, 1, 100.0, 0, 0.0), vec![CheckKind::Samples]),
            ("p99 asked of 50 requests", p99.clone(), records(50, 1, 100.0, 0, 0.0), vec![CheckKind::Samples]),
            ("p99 asked of 100 requests", p99, records(100, 1, 100.0, 0, 0.0), vec![]),
            ("errors at the bound", closed(1), records(40, 1, 100.0, 2, 0.0), vec![]),
            ("errors over the bound", closed(1), records(40, 1, 100.0, 3, 0.0), vec![CheckKind::Errors]),
            ("nothing measured", closed(1), vec![], vec![CheckKind::Samples, CheckKind::Errors]),
            ("an open loop on time", open(10.0), open_records(40, 100.0, 5.0), vec![]),
            ("an open loop late", open(10.0), open_records(40, 100.0, 30.0), vec![CheckKind::Schedule]),
            ("an open loop at half its rate", open(10.0), open_records(40, 200.0, 0.0), vec![CheckKind::Schedule]),
            ("slow rates allow a quarter gap", open(1.0), open_records(40, 1_000.0, 240.0), vec![]),
            (
                "a saturated client",
                with_client(closed(4), saturated),
                records(40, 4, 100.0, 0, 0.0),
                vec![CheckKind::ClientCpu],
            ),
            (
                "one busy window of eight is a moment",
                with_client(closed(4), one_busy_moment),
                records(40, 4, 100.0, 0, 0.0),
                vec![],
            ),
            (
                "a late event loop",
                with_client(closed(4), late),
                records(40, 4, 100.0, 0, 0.0),
                vec![CheckKind::ClientTiming],
            ),
            ("a closed loop that is mostly its drain", closed(8), drain(), vec![CheckKind::SteadyState]),
        ];
        for (name, run, results, expected) in cases {
            assert_eq!(failed_checks(&run, &results), expected, "{name}");
        }
    }

    /// `n` sends every `gap_ms`, each `lag_ms` late.
    fn open_records(n: u64, gap_ms: f64, lag_ms: f64) -> Vec<IterationRecord> {
        (0..n)
            .map(|i| IterationRecord {
                sent_at_ms: Some(i as f64 * gap_ms),
                schedule_lag_ms: lag_ms,
                ..iteration_record(i, Some(20.0), 50.0, false)
            })
            .collect()
    }

    /// Eight requests at once, of 100 ms to 800 ms: after the first 100 ms fewer than 8 are in flight.
    fn drain() -> Vec<IterationRecord> {
        (0..8)
            .map(|i| IterationRecord {
                sent_at_ms: Some(0.0),
                ..iteration_record(i, Some(10.0), 100.0 * (i + 1) as f64, false)
            })
            .collect()
    }

    #[test]
    fn a_cache_the_run_did_not_ask_for_invalidates_it_unless_marks_were_off() {
        let cached = |i: u64| IterationRecord {
            tokens_in: Some(300),
            cached_tokens: Some(if i == 3 { 290 } else { 10 }),
            ..iteration_record(i, Some(20.0), 100.0, false)
        };
        let results: Vec<IterationRecord> = (0..10).map(cached).collect();
        assert_eq!(failed_checks(&closed(1), &results), vec![CheckKind::Cache]);
        let off = completed_run(RunPlanInput { prompt_heads: PromptHeads::Off, ..plan_input(&["p"], 64, 1) }, "m");
        assert_eq!(failed_checks(&off, &results), vec![]);
    }

    #[test]
    fn what_could_not_be_checked_says_why_and_does_not_invalidate() {
        let v = judge_run(&open(10.0), &open_records(40, 100.0, 0.0), &summarize(&open_records(40, 100.0, 0.0)));
        assert_eq!(v.verdict, Verdict::Valid);
        let unchecked: Vec<CheckKind> =
            v.checks.iter().filter(|c| c.outcome == CheckOutcome::NotChecked).map(|c| c.check).collect();
        assert_eq!(
            unchecked,
            [CheckKind::ClientCpu, CheckKind::ClientTiming, CheckKind::Cache, CheckKind::SteadyState],
            "{v:?}"
        );
        assert!(v.checks.iter().all(|c| !c.says.is_empty()));
        assert_eq!(v.headline(), "valid (3 checks passed)");
    }

    #[test]
    fn a_percentile_needs_one_request_beyond_it() {
        assert_eq!([50, 90, 95, 99].map(samples_needed), [2, 10, 20, 100]);
        // numpy: with 20 values, p95 = 0.95 × 19 = rank 18.05, between the 19th and 20th: inside the sample.
        assert_eq!(samples_needed(96), 25);
    }

    #[test]
    fn in_flight_time_is_counted_over_the_measured_window() {
        // Two at once for 100 ms, then one alone for 100 ms: two in flight half the window.
        assert_eq!(share_at_least(&[(0.0, 100.0), (0.0, 200.0)], 2, (0.0, 200.0)), Some((0.5, 200.0)));
        // A slot handed on at the instant one ends stays full.
        assert_eq!(share_at_least(&[(0.0, 100.0), (100.0, 200.0)], 1, (0.0, 200.0)), Some((1.0, 200.0)));
        // A warm-up in flight before the window counts only inside it.
        assert_eq!(share_at_least(&[(-50.0, 50.0), (0.0, 100.0)], 2, (0.0, 100.0)), Some((0.5, 100.0)));
        assert_eq!(share_at_least(&[], 1, (0.0, 0.0)), None);
    }

    #[test]
    fn a_warm_up_beside_the_first_measured_requests_holds_its_slot() {
        // As a closed loop of 2 sends it: the warm-up and the first measured request at once, then each slot on.
        let span = |seq: u64, sent: f64, warmup: bool| IterationRecord {
            sent_at_ms: Some(sent),
            warmup,
            ..iteration_record(seq, Some(10.0), 20.0, false)
        };
        let results = vec![span(0, 0.0, true), span(1, 0.0, false), span(2, 20.0, false), span(3, 20.0, false)];
        assert_eq!(failed_checks(&closed(2), &results), vec![]);
    }
}
