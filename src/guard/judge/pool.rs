//! A pooled baseline: the requests of a schedule's recent healthy evaluations taken as one sample, the figures
//! a run is compared with when its schedule's baseline is rolling or a time window. Latency figures come from the
//! pooled total times exactly as a run's own do (p95 by linear interpolation, the mean); tokens per second, cost
//! and error rate are each run's figure averaged over the evaluations (the runs are the same requests, so each
//! counts once).

use sha2::Digest;

use crate::guard::model::{
    BaselineSource, GuardSummary, Metric, Pool, PooledEvaluation, Reference, ReferenceFrom, StreamedSamples,
    MIN_POOLED_EVALUATIONS,
};
use crate::model::RunPlanInput;

/// What a schedule's pool holds for the run at hand.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolState {
    /// No evaluation yet measured the same thing.
    Empty,
    /// Fewer than [`MIN_POOLED_EVALUATIONS`]: the run is recorded, not compared, and joins the pool.
    Filling(Pool),
    /// Enough to compare with.
    Ready(Box<Reference>),
}

/// The key of what a run measures: the SHA-256 of its plan without its title or the set's name (renaming changes
/// nothing measured; another connector, prompt, workload, temperature or streaming does). Evaluations pool only
/// with others of the same key, so editing what a schedule sends starts its pool again.
pub fn measured_key(plan: &RunPlanInput) -> String {
    let mut measured = plan.clone();
    measured.title = None;
    measured.agent.name = String::new();
    let json = serde_json::to_string(&measured).unwrap_or_default();
    hex::encode(sha2::Sha256::digest(json.as_bytes()))
}

/// `evaluations` (newest first, as the store reads them) as `source`'s baseline.
pub fn pool_state(source: BaselineSource, evaluations: &[PooledEvaluation]) -> PoolState {
    let (Some(newest), Some(oldest)) = (evaluations.first(), evaluations.last()) else { return PoolState::Empty };
    let pool = Pool {
        source,
        evaluations: evaluations.len() as u32,
        first_at_ms: oldest.finished_at_ms,
        last_at_ms: newest.finished_at_ms,
        latest_run: newest.run_id,
    };
    if evaluations.len() < MIN_POOLED_EVALUATIONS as usize {
        return PoolState::Filling(pool);
    }
    let (total_ms, summary, streamed) = pooled_figures(evaluations);
    PoolState::Ready(Box::new(Reference { total_ms, summary, streamed, from: ReferenceFrom::Pooled(pool) }))
}

/// The pooled runs' TTFT, TPOT and time-to-first-output samples, when every pooled run streamed (the pool's
/// runs measured one plan, so they all did or none did).
fn pooled_streamed(evaluations: &[PooledEvaluation]) -> Option<StreamedSamples> {
    evaluations.iter().try_fold(StreamedSamples::default(), |mut all, e| {
        all.extend(e.streamed.as_ref()?);
        Some(all)
    })
}

/// The pooled total times (ascending), their summary (latencies of the pooled requests, rates averaged per run)
/// and, when the runs streamed, their pooled TTFT, TPOT and time-to-first-output samples.
pub fn pooled_figures(evaluations: &[PooledEvaluation]) -> (Vec<f64>, GuardSummary, Option<StreamedSamples>) {
    let mut total_ms: Vec<f64> = evaluations.iter().flat_map(|e| e.total_ms.iter().copied()).collect();
    total_ms.sort_by(f64::total_cmp);
    let mean_of = |values: Vec<f64>| (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
    let each = |figure: fn(&GuardSummary) -> Option<f64>| {
        mean_of(evaluations.iter().filter_map(|e| figure(&e.summary)).collect())
    };
    let p95_of = |values: Option<&[f64]>| {
        let mut sorted = values?.to_vec();
        sorted.sort_by(f64::total_cmp);
        crate::stats::percentile(&sorted, 95.0)
    };
    let streamed = pooled_streamed(evaluations);
    let samples = |metric: Metric| streamed.as_ref().and_then(|s| s.of(metric));
    let summary = GuardSummary {
        p95_ms: crate::stats::percentile(&total_ms, 95.0),
        p50_ms: crate::stats::percentile(&total_ms, 50.0),
        mean_ms: mean_of(total_ms.clone()),
        tok_s: each(|s| s.tok_s),
        cost_usd: each(|s| s.cost_usd),
        error_rate: each(|s| Some(s.error_rate)).unwrap_or(0.0),
        ttft_p95_ms: p95_of(samples(Metric::TtftP95Ms)),
        tpot_p95_ms: p95_of(samples(Metric::TpotP95Ms)),
        first_output_p95_ms: p95_of(samples(Metric::FirstOutputP95Ms)),
        acceptance_rate: each(|s| s.acceptance_rate),
    };
    (total_ms, summary, streamed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunId;

    fn evaluation(at_ms: i64, total_ms: &[f64], tok_s: Option<f64>, error_rate: f64) -> PooledEvaluation {
        let summary = GuardSummary { tok_s, error_rate, ..GuardSummary::default() };
        let run_id = RunId(uuid::Uuid::from_u128(at_ms as u128));
        PooledEvaluation { finished_at_ms: at_ms, run_id, total_ms: total_ms.to_vec(), summary, streamed: None }
    }

    const ROLLING: BaselineSource = BaselineSource::Rolling { last: 5 };

    #[test]
    fn fewer_than_three_evaluations_fill_the_pool_and_are_not_compared_with() {
        assert_eq!(pool_state(ROLLING, &[]), PoolState::Empty);
        let two = [evaluation(2_000, &[100.0], None, 0.0), evaluation(1_000, &[110.0], None, 0.0)];
        let PoolState::Filling(pool) = pool_state(ROLLING, &two) else { panic!("two evaluations are not enough") };
        assert_eq!((pool.evaluations, pool.first_at_ms, pool.last_at_ms), (2, 1_000, 2_000));
        assert_eq!(pool.latest_run, two[0].run_id, "the newest run stands for the pool's per-prompt times");
    }

    // numpy 2.4.6: np.percentile([90, 95, 100, 100, 105, 110, 120, 130, 400], 95) = 291.9999999999999 (linear);
    // np.mean of the same = 138.88888888888889
    #[test]
    fn latencies_come_from_the_pooled_requests_and_rates_are_averaged_per_run() {
        let three = [
            evaluation(3_000, &[100.0, 130.0, 400.0], Some(50.0), 0.0),
            evaluation(2_000, &[95.0, 110.0, 100.0], None, 0.1),
            evaluation(1_000, &[120.0, 90.0, 105.0], Some(40.0), 0.2),
        ];
        let PoolState::Ready(reference) = pool_state(ROLLING, &three) else { panic!("three evaluations are enough") };
        assert_eq!(reference.total_ms, [90.0, 95.0, 100.0, 100.0, 105.0, 110.0, 120.0, 130.0, 400.0]);
        assert!((reference.summary.p95_ms.unwrap() - 291.9999999999999).abs() < 1e-9);
        assert_eq!(reference.summary.p50_ms, Some(105.0), "np.percentile(…, 50) = 105.0");
        assert!((reference.summary.mean_ms.unwrap() - 138.88888888888889).abs() < 1e-9);
        assert_eq!(reference.summary.tok_s, Some(45.0), "the runs that measured it, averaged");
        assert!((reference.summary.error_rate - 0.1).abs() < 1e-12);
        assert_eq!(reference.summary.cost_usd, None, "no run priced: no cost");
        let ReferenceFrom::Pooled(pool) = &reference.from else { panic!("a pool") };
        assert_eq!((pool.evaluations, pool.source), (3, ROLLING));
        assert_eq!(reference.baseline_id(), None);
    }

    #[test]
    fn the_key_ignores_names_and_follows_what_is_measured() {
        use crate::model::{Agent, ConnectorId, LoadMode};
        let agent = Agent { name: "Set".into(), system_prompt: None, tools: vec![], token_budget: 64 };
        let plan = RunPlanInput::new(
            ConnectorId(uuid::Uuid::nil()),
            agent,
            vec!["hi".into()],
            1,
            LoadMode::Closed { concurrency: 1 },
        );
        let renamed = RunPlanInput {
            title: Some("Guard · renamed".into()),
            agent: Agent { name: "Renamed set".into(), ..plan.agent.clone() },
            ..plan.clone()
        };
        assert_eq!(measured_key(&plan), measured_key(&renamed));
        let streamed = RunPlanInput { stream: !plan.stream, ..plan.clone() };
        assert_ne!(measured_key(&plan), measured_key(&streamed));
        let other_prompt = RunPlanInput { prompts: vec!["hello".into()], ..plan.clone() };
        assert_ne!(measured_key(&plan), measured_key(&other_prompt));
        assert_eq!(measured_key(&plan).len(), 64);
    }
}
