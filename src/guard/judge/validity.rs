//! Whether a finished run may be judged at all, as a pure function of its plan and results: a run whose every
//! request failed, with more errors than the schedule allows, with fewer successful requests than its tests need,
//! or (open loop) whose load generator missed the rate or sent late, is inconclusive — its figures would describe
//! the failure or another load, not the endpoint's speed. The first reason found is the one given, in that order.
//! Then the run's own verdict, as far as Guard heeds it (`heeded`): a busy load generator or an unasked cache.

use crate::guard::model::{InvalidRun, Validity};
use crate::model::{CheckKind, IterationRecord, LoadMode, RunValidity};
use crate::stats::{pacing, MIN_ACHIEVED_SHARE};

/// `Ok` when `records` (every iteration of a completed run sent with `load`) may be judged under `validity`.
pub fn judge_validity(load: &LoadMode, records: &[IterationRecord], validity: &Validity) -> Result<(), InvalidRun> {
    let measured: Vec<&IterationRecord> = records.iter().filter(|r| !r.warmup).collect();
    let successful = measured.iter().filter(|r| r.error.is_none()).count() as u64;
    if successful == 0 {
        let first_error =
            measured.iter().find_map(|r| r.error.clone()).unwrap_or_else(|| "no request was recorded".into());
        return Err(InvalidRun::Unreachable { first_error });
    }
    let error_rate = (measured.len() as u64 - successful) as f64 / measured.len() as f64;
    if error_rate > validity.max_error_rate {
        return Err(InvalidRun::TooManyErrors { error_rate, limit: validity.max_error_rate });
    }
    if successful < u64::from(validity.min_samples) {
        return Err(InvalidRun::TooFewSamples { successful, needed: validity.min_samples });
    }
    if let LoadMode::Open { rate_per_second, .. } = *load {
        let pacing = pacing(&measured);
        if let Some(achieved) = pacing.achieved_rate.filter(|a| *a < rate_per_second * MIN_ACHIEVED_SHARE) {
            return Err(InvalidRun::RateMissed { achieved, asked: rate_per_second });
        }
        if let Some(lag) = pacing.lag_p95_ms.filter(|lag| *lag > validity.max_lag_p95_ms) {
            return Err(InvalidRun::LateSends { lag_p95_ms: lag, limit_ms: validity.max_lag_p95_ms });
        }
    }
    Ok(())
}

/// The run's own verdict (`runs::report::judge_run`), as far as Guard heeds it: a load generator with no CPU to
/// spare puts its own delays in every figure, and a cache the run did not ask for hides the prefill a regression
/// would slow, so either makes the comparison meaningless. Its samples, errors and schedule Guard judges above by
/// the schedule's own bounds; its steady state is a short schedule's nature; a wake-up late by the verdict's bound
/// (20 ms at p99) is small beside the shifts Guard's tests look for, and the run's report shows it.
pub fn heeded(verdict: &RunValidity) -> Result<(), InvalidRun> {
    match verdict.reasons().find(|c| matches!(c.check, CheckKind::ClientCpu | CheckKind::Cache)) {
        Some(check) => Err(InvalidRun::Untrustworthy { check: check.check, says: check.says.clone() }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::AlertPolicy;
    use crate::model::fixtures::iteration_record;

    const CLOSED: LoadMode = LoadMode::Closed { concurrency: 1 };

    fn open(rate: f64) -> LoadMode {
        LoadMode::Open { rate_per_second: rate, poisson: false, max_concurrency: 10, burstiness: None }
    }

    /// `ok` successes and `failed` failures, sent every `gap_ms`, each `lag_ms` late.
    fn run(ok: u64, failed: u64, gap_ms: f64, lag_ms: f64) -> Vec<IterationRecord> {
        (0..ok + failed)
            .map(|i| IterationRecord {
                sent_at_ms: Some(i as f64 * gap_ms),
                schedule_lag_ms: lag_ms,
                ..iteration_record(i, None, 100.0, i >= ok)
            })
            .collect()
    }

    #[test]
    fn the_table_of_reasons() {
        let v = AlertPolicy::default().validity();
        type Case = (&'static str, LoadMode, Vec<IterationRecord>, Result<(), InvalidRun>);
        let cases: Vec<Case> = vec![
            ("all fine", CLOSED, run(5, 0, 100.0, 0.0), Ok(())),
            ("errors at the limit are allowed", CLOSED, run(2, 2, 100.0, 0.0), Ok(())),
            (
                "every request failed",
                CLOSED,
                run(0, 3, 100.0, 0.0),
                Err(InvalidRun::Unreachable { first_error: "timeout: no answer".into() }),
            ),
            (
                "nothing recorded",
                CLOSED,
                vec![],
                Err(InvalidRun::Unreachable { first_error: "no request was recorded".into() }),
            ),
            (
                "more errors than the limit",
                CLOSED,
                run(2, 3, 100.0, 0.0),
                Err(InvalidRun::TooManyErrors { error_rate: 0.6, limit: 0.5 }),
            ),
            (
                "one success is not a sample",
                CLOSED,
                run(1, 0, 100.0, 0.0),
                Err(InvalidRun::TooFewSamples { successful: 1, needed: 2 }),
            ),
            ("an open loop on its rate", open(10.0), run(11, 0, 100.0, 5.0), Ok(())),
            (
                "an open loop that sent at half its rate",
                open(10.0),
                run(11, 0, 200.0, 0.0),
                Err(InvalidRun::RateMissed { achieved: 5.0, asked: 10.0 }),
            ),
            (
                "an open loop that sent late",
                open(10.0),
                run(11, 0, 100.0, 1_500.0),
                Err(InvalidRun::LateSends { lag_p95_ms: 1_500.0, limit_ms: 1_000.0 }),
            ),
            ("a closed loop's lag is its own business", CLOSED, run(5, 0, 100.0, 5_000.0), Ok(())),
        ];
        for (name, load, records, expected) in cases {
            assert_eq!(judge_validity(&load, &records, &v), expected, "{name}");
        }
    }

    #[test]
    fn warm_ups_are_not_judged() {
        let mut records = run(3, 0, 100.0, 0.0);
        records.push(IterationRecord { warmup: true, ..iteration_record(9, None, 1.0, true) });
        assert_eq!(judge_validity(&CLOSED, &records, &AlertPolicy::default().validity()), Ok(()));
        let strict = Validity { min_samples: 4, ..AlertPolicy::default().validity() };
        assert_eq!(
            judge_validity(&CLOSED, &records, &strict),
            Err(InvalidRun::TooFewSamples { successful: 3, needed: 4 })
        );
    }

    #[test]
    fn of_the_runs_own_verdict_a_busy_client_and_an_unasked_cache_make_it_inconclusive() {
        use crate::model::{CheckOutcome, ValidityCheck};
        let check = |check, outcome| ValidityCheck { check, outcome, says: format!("{check:?}"), change: None };
        let verdict = |failed: &[CheckKind]| {
            let mut checks: Vec<ValidityCheck> = failed.iter().map(|&c| check(c, CheckOutcome::Failed)).collect();
            checks.push(check(CheckKind::Errors, CheckOutcome::Passed));
            RunValidity::of(checks)
        };
        let untrustworthy = |check| Err(InvalidRun::Untrustworthy { check, says: format!("{check:?}") });
        type Case = (&'static str, Vec<CheckKind>, Result<(), InvalidRun>);
        let cases: Vec<Case> = vec![
            ("a valid run", vec![], Ok(())),
            ("a busy client", vec![CheckKind::ClientCpu], untrustworthy(CheckKind::ClientCpu)),
            ("an unasked cache", vec![CheckKind::Cache], untrustworthy(CheckKind::Cache)),
            ("the schedule's own bounds judge samples", vec![CheckKind::Samples, CheckKind::SteadyState], Ok(())),
            ("a late wake-up is shown, not heeded", vec![CheckKind::ClientTiming], Ok(())),
            ("the first heeded reason", vec![CheckKind::Cache, CheckKind::ClientCpu], untrustworthy(CheckKind::Cache)),
        ];
        for (name, failed, expected) in cases {
            assert_eq!(heeded(&verdict(&failed)), expected, "{name}");
        }
    }
}
