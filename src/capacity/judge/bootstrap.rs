//! How sure the answer is. Each level's verdict rests on a sample of requests; drawing each level's requests again
//! with replacement and re-judging every level gives, per resample, the answer the search's rule would have found
//! over the same levels (the highest level with every lower one passing). The 2.5th and 97.5th percentiles of
//! those answers are the answer's 95 % interval, and the share of resamples in which a level passes says how
//! close to its bound that level was. The interval speaks only of the levels tried: between two tried levels it
//! cannot be finer than the search's step.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::objectives::{passes, Criteria, RequestFigures};
use crate::capacity::report::AnswerInterval;

/// Resamples drawn; 1,000 puts the 2.5th percentile on the 25th answer.
pub const RESAMPLES: u32 = 1_000;

/// A fixed seed: the same levels give the same interval, so a report can be reproduced from its export.
const SEED: u64 = 0x00ca_9ac1_7e5e_ed00;

/// What the bootstrap found.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    /// The answer's interval.
    pub interval: AnswerInterval,
    /// Per level (in the order given), the share of resamples in which it passed.
    pub pass_probability: Vec<f64>,
}

/// A level as the bootstrap sees it.
#[derive(Debug, Clone)]
pub struct BootLevel<'a> {
    /// The load.
    pub level: f64,
    /// Its measured requests, the population resampled.
    pub requests: Vec<RequestFigures<'a>>,
    /// What is not resampled held: an open-loop level achieved its rate (a level that missed it fails in every
    /// resample).
    pub rate_achieved: bool,
}

/// The bootstrap over `levels`.
pub fn bootstrap(criteria: &Criteria, levels: &[BootLevel<'_>]) -> Bootstrap {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut order: Vec<usize> = (0..levels.len()).collect();
    order.sort_by(|a, b| levels[*a].level.total_cmp(&levels[*b].level));
    let mut passed_count = vec![0u32; levels.len()];
    let mut answers: Vec<Option<f64>> = Vec::with_capacity(RESAMPLES as usize);
    let mut sample: Vec<&RequestFigures<'_>> = Vec::new();
    for _ in 0..RESAMPLES {
        let mut answer = None;
        let mut all_below_passed = true;
        for &i in &order {
            let requests = &levels[i].requests;
            sample.clear();
            if !requests.is_empty() {
                sample.extend((0..requests.len()).map(|_| &requests[rng.gen_range(0..requests.len())]));
            }
            let passed = levels[i].rate_achieved && passes(criteria, &sample);
            if passed {
                passed_count[i] += 1;
            }
            all_below_passed &= passed;
            if all_below_passed {
                answer = Some(levels[i].level);
            }
        }
        answers.push(answer);
    }
    // `None` (nothing passed) sorts below every level.
    answers.sort_by(|a, b| a.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.unwrap_or(f64::NEG_INFINITY)));
    let at = |q: f64| answers.get(((answers.len() as f64 - 1.0) * q).round() as usize).copied().flatten();
    Bootstrap {
        interval: AnswerInterval { low: at(0.025), high: at(0.975), resamples: RESAMPLES },
        pass_probability: passed_count.iter().map(|n| f64::from(*n) / f64::from(RESAMPLES)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{IterationRecord, Slo};

    fn level(ttfts: impl IntoIterator<Item = f64>) -> Vec<IterationRecord> {
        ttfts
            .into_iter()
            .map(|t| IterationRecord { ttft_ms: Some(t), total_ms: t, ..IterationRecord::blank() })
            .collect()
    }

    /// Levels 1, 2 and 4 with these requests.
    fn boot_levels(records: &[Vec<IterationRecord>; 3]) -> Vec<BootLevel<'_>> {
        [1.0, 2.0, 4.0]
            .iter()
            .zip(records)
            .map(|(level, r)| BootLevel { level: *level, requests: RequestFigures::measured(r), rate_achieved: true })
            .collect()
    }

    #[test]
    fn clear_verdicts_give_a_tight_interval_and_borderline_ones_a_wide_one() {
        let criteria = Criteria { slos: vec![Slo::parse("ttft_p50_ms<=100").unwrap()], max_error_rate: 0.0 };
        // Level 1 and 2 far under the bound, level 4 far over it: the answer is 2 in every resample.
        let clear = [level((0..50).map(f64::from)), level((0..50).map(|i| 40.0 + f64::from(i))), level([500.0; 50])];
        let figures = boot_levels(&clear);
        let found = bootstrap(&criteria, &figures);
        assert_eq!((found.interval.low, found.interval.high), (Some(2.0), Some(2.0)));
        assert_eq!(found.pass_probability, [1.0, 1.0, 0.0]);

        // Level 2's median sits on the bound: about half the resamples pass it, so the answer is 1 or 2.
        let borderline =
            [level((0..50).map(f64::from)), level((0..51).map(|i| 75.0 + f64::from(i))), level([500.0; 50])];
        let figures = boot_levels(&borderline);
        let found = bootstrap(&criteria, &figures);
        assert_eq!((found.interval.low, found.interval.high), (Some(1.0), Some(2.0)));
        assert!((0.35..0.65).contains(&found.pass_probability[1]), "{:?}", found.pass_probability);
    }

    #[test]
    fn nothing_passing_has_no_low_end() {
        let criteria = Criteria { slos: vec![Slo::parse("ttft_p95_ms<=1").unwrap()], max_error_rate: 0.0 };
        let slow = level([10.0; 20]);
        let level = BootLevel { level: 1.0, requests: RequestFigures::measured(&slow), rate_achieved: true };
        let found = bootstrap(&criteria, &[level]);
        assert_eq!((found.interval.low, found.interval.high), (None, None));
    }
}
