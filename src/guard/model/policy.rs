//! How a schedule decides what a run may be trusted with and how its alerts behave: the limits of a valid run
//! (an invalid one is `inconclusive`, never healthy and never a breach, and says why), sustained breaches (K of the
//! last N conclusive evaluations), the recovered notice after M healthy ones, and when a schedule that keeps
//! failing to measure raises an alert of its own. Pure data and its validation, shared with the browser.

use serde::{Deserialize, Serialize};

use super::baseline_source::BaselineSource;
use crate::model::ValidationError;

/// The most evaluations any count of the policy looks back over.
pub const MAX_POLICY_WINDOW: u32 = 20;

/// How a schedule's alerts behave and what a valid run is, flat on the wire (`policy: {sustainBreaches, sustainOf,
/// recoverAfter, cannotMeasureAfter, maxErrorRate, minSamples, maxLagP95Ms, changeMinSegment, baseline}`; a missing field
/// takes its default).
/// The defaults are the behaviour before the policy existed, plus the two notices: one breach opens an alert,
/// three healthy evaluations send a recovered notice, three in a row that could not measure open a "cannot
/// measure" alert.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AlertPolicy {
    /// An alert opens when its threshold breached in `sustain_breaches` (K) of the last `sustain_of` (N) conclusive
    /// evaluations, this one included.
    pub sustain_breaches: u32,
    /// N.
    pub sustain_of: u32,
    /// An open alert whose threshold was healthy in this many conclusive evaluations in a row sends a recovered
    /// notice (it stays open until acknowledged).
    pub recover_after: u32,
    /// This many evaluations in a row that were inconclusive or failed open one "cannot measure" alert.
    pub cannot_measure_after: u32,
    /// A valid run: at most this fraction (0 to 1) of its requests failed; more, and the latencies describe the
    /// few that got through.
    pub max_error_rate: f64,
    /// A valid run: at least this many successful requests, when a threshold watches a latency figure (Welch's
    /// test needs 2).
    pub min_samples: u32,
    /// A valid open-loop run: its sends were at most this late at their 95th percentile, ms (else it applied
    /// another load than planned).
    pub max_lag_p95_ms: f64,
    /// Change points over the history (E-Divisive) leave at least this many evaluations on either side: a change
    /// is seen once this many evaluations ran after it, and a shorter blip is not one.
    pub change_min_segment: u32,
    /// What each run is compared with: the pinned run, or earlier healthy evaluations pooled.
    pub baseline: BaselineSource,
}

/// The limits of a valid run, as [`AlertPolicy`] sets them. A run outside them is `inconclusive`: its figures say
/// little about the endpoint's speed, so they neither breach nor count as healthy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Validity {
    /// Failed / measured at most.
    pub max_error_rate: f64,
    /// Successful requests at least.
    pub min_samples: u32,
    /// Open loop: p95 schedule lag at most, ms.
    pub max_lag_p95_ms: f64,
}

impl Default for AlertPolicy {
    fn default() -> Self {
        Self {
            sustain_breaches: 1,
            sustain_of: 1,
            recover_after: 3,
            cannot_measure_after: 3,
            max_error_rate: 0.5,
            min_samples: 2,
            max_lag_p95_ms: 1_000.0,
            change_min_segment: 5,
            baseline: BaselineSource::Pinned,
        }
    }
}

impl AlertPolicy {
    /// The policy the schedule form starts a new schedule with: the default, but an alert opens after 2 breaches in
    /// 3 conclusive evaluations. In Guard's detection benchmark (`benches/guard_detection`, docs/PERFORMANCE.md),
    /// p95 +10 % against a pinned baseline with Welch's gate false-alarmed in 38 % of 60-evaluation histories at the
    /// first breach and in 8 % at 2 of 3, for 2 more evaluations before a real step alerted (median 3 instead of 1).
    /// The API's default stays the first breach, so a script's schedule alerts as it always has.
    pub fn for_new_schedule() -> Self {
        Self { sustain_breaches: 2, sustain_of: 3, ..Self::default() }
    }

    /// Its valid-run limits.
    pub fn validity(&self) -> Validity {
        Validity {
            max_error_rate: self.max_error_rate,
            min_samples: self.min_samples,
            max_lag_p95_ms: self.max_lag_p95_ms,
        }
    }

    /// Every count within 1..=[`MAX_POLICY_WINDOW`], K at most N, and each limit in its range.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let window = |field: &str, n: u32| {
            if (1..=MAX_POLICY_WINDOW).contains(&n) {
                Ok(())
            } else {
                Err(ValidationError::new(format!("policy.{field}"), format!("must be 1 to {MAX_POLICY_WINDOW}")))
            }
        };
        window("sustainOf", self.sustain_of)?;
        window("sustainBreaches", self.sustain_breaches)?;
        if self.sustain_breaches > self.sustain_of {
            return Err(ValidationError::new(
                "policy.sustainBreaches",
                format!("{} breaches cannot happen in {} evaluations", self.sustain_breaches, self.sustain_of),
            ));
        }
        window("recoverAfter", self.recover_after)?;
        window("cannotMeasureAfter", self.cannot_measure_after)?;
        if !(self.max_error_rate > 0.0 && self.max_error_rate <= 1.0) {
            return Err(ValidationError::new(
                "policy.maxErrorRate",
                "a fraction above 0 and at most 1 (0.5: half the requests failed)",
            ));
        }
        if !(2..=10_000).contains(&self.min_samples) {
            return Err(ValidationError::new("policy.minSamples", "must be 2 to 10000"));
        }
        if !(self.max_lag_p95_ms.is_finite() && self.max_lag_p95_ms > 0.0 && self.max_lag_p95_ms <= 600_000.0) {
            return Err(ValidationError::new("policy.maxLagP95Ms", "must be above 0 and at most 600000 ms"));
        }
        if !(3..=MAX_POLICY_WINDOW).contains(&self.change_min_segment) {
            return Err(ValidationError::new(
                "policy.changeMinSegment",
                format!("must be 3 to {MAX_POLICY_WINDOW} evaluations (fewer cannot tell a change from noise)"),
            ));
        }
        self.baseline.validate()
    }

    /// In words, for the schedule's page: `an alert opens after 2 breaches in 3 conclusive evaluations; …`.
    pub fn describe(&self) -> String {
        let sustain = match (self.sustain_breaches, self.sustain_of) {
            (1, 1) => "an alert opens at the first breach".to_string(),
            (k, n) => format!("an alert opens after {k} breaches in {n} conclusive evaluations"),
        };
        format!(
            "Runs are compared with {}; {sustain}; recovered after {} healthy in a row; \"cannot measure\" after {} inconclusive or failed in a \
             row. A run is valid with at most {}% errors, at least {} successful requests (for a latency threshold) \
             and (open loop) sends at most {} ms late at p95. Change points leave at least {} evaluations on \
             either side.",
            self.baseline.describe(),
            self.recover_after,
            self.cannot_measure_after,
            crate::model::trim_number(self.max_error_rate * 100.0),
            self.min_samples,
            crate::model::trim_number(self.max_lag_p95_ms),
            self.change_min_segment,
        )
    }
}

/// Why a run's figures could not be judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum InvalidRun {
    /// No request succeeded: the endpoint could not be reached or refused every request.
    Unreachable {
        /// The first failure, `code: detail`.
        first_error: String,
    },
    /// The run stopped before its last request.
    RunEnded {
        /// Why, in words.
        why: String,
    },
    /// More requests failed than the limit.
    TooManyErrors {
        /// Failed / measured.
        error_rate: f64,
        /// The schedule's limit.
        limit: f64,
    },
    /// Fewer successful requests than the tests need.
    TooFewSamples {
        /// Successful measured requests.
        successful: u64,
        /// The schedule's minimum.
        needed: u32,
    },
    /// Open loop: the load generator sent under 90 % of the rate asked.
    RateMissed {
        /// Sends per second achieved.
        achieved: f64,
        /// Asked.
        asked: f64,
    },
    /// Open loop: sends went out later than the limit at their 95th percentile.
    LateSends {
        /// The 95th percentile of schedule lag, ms.
        lag_p95_ms: f64,
        /// The schedule's limit, ms.
        limit_ms: f64,
    },
    /// The run's own verdict failed a check that makes any comparison meaningless: its load generator had no CPU
    /// to spare, or requests meant to share nothing found their prompts in the server's cache.
    Untrustworthy {
        /// The check.
        check: crate::model::CheckKind,
        /// What it found.
        says: String,
    },
}

impl InvalidRun {
    /// In words, for the evaluation's row, the alert and its notice.
    pub fn describe(&self) -> String {
        let pct = |f: f64| format!("{}%", crate::model::trim_number((f * 1000.0).round() / 10.0));
        match self {
            Self::Unreachable { first_error } => format!("no request succeeded; the first failure: {first_error}"),
            Self::RunEnded { why } => format!("the run stopped early: {why}"),
            Self::TooManyErrors { error_rate, limit } => {
                format!("{} of the requests failed, above the valid-run limit of {}", pct(*error_rate), pct(*limit))
            }
            Self::TooFewSamples { successful, needed } => {
                format!("{successful} successful request(s), fewer than the {needed} the tests need")
            }
            Self::RateMissed { achieved, asked } => format!(
                "the load generator sent {achieved:.2} req/s, under 90% of the {} req/s planned",
                crate::model::trim_number(*asked)
            ),
            Self::LateSends { lag_p95_ms, limit_ms } => format!(
                "requests went out {lag_p95_ms:.0} ms late at p95, beyond the {} ms limit: not the load planned",
                crate::model::trim_number(*limit_ms)
            ),
            Self::Untrustworthy { check, says } => {
                format!("the run's figures are invalid ({}): {says}", check.as_str())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_alert_at_the_first_breach() {
        let policy = AlertPolicy::default();
        assert_eq!(policy.validate(), Ok(()));
        let words = policy.describe();
        assert!(
            words.starts_with("Runs are compared with the pinned run; an alert opens at the first breach"),
            "{words}"
        );
    }

    #[test]
    fn out_of_range_counts_and_limits_name_their_field() {
        let with = |f: fn(&mut AlertPolicy)| {
            let mut p = AlertPolicy::default();
            f(&mut p);
            p.validate().unwrap_err().field
        };
        assert_eq!(with(|p| (p.sustain_breaches, p.sustain_of) = (3, 2)), "policy.sustainBreaches");
        assert_eq!(with(|p| p.sustain_of = 21), "policy.sustainOf");
        assert_eq!(with(|p| p.sustain_breaches = 0), "policy.sustainBreaches");
        assert_eq!(with(|p| p.recover_after = 0), "policy.recoverAfter");
        assert_eq!(with(|p| p.cannot_measure_after = 99), "policy.cannotMeasureAfter");
        assert_eq!(with(|p| p.max_error_rate = 0.0), "policy.maxErrorRate");
        assert_eq!(with(|p| p.max_error_rate = f64::NAN), "policy.maxErrorRate");
        assert_eq!(with(|p| p.min_samples = 1), "policy.minSamples");
        assert_eq!(with(|p| p.max_lag_p95_ms = f64::INFINITY), "policy.maxLagP95Ms");
        assert_eq!(with(|p| p.change_min_segment = 2), "policy.changeMinSegment");
        assert_eq!(with(|p| p.change_min_segment = 21), "policy.changeMinSegment");
    }

    #[test]
    fn a_policy_missing_from_stored_json_reads_as_the_defaults() {
        let read: AlertPolicy = serde_json::from_str(r#"{"sustainBreaches":2,"sustainOf":3}"#).unwrap();
        assert_eq!(read, AlertPolicy { sustain_breaches: 2, sustain_of: 3, ..AlertPolicy::default() });
    }

    #[test]
    fn each_reason_says_what_was_wrong_with_the_run() {
        let too_many = InvalidRun::TooManyErrors { error_rate: 0.625, limit: 0.5 };
        assert_eq!(too_many.describe(), "62.5% of the requests failed, above the valid-run limit of 50%");
        let json = serde_json::to_value(&too_many).unwrap();
        assert_eq!(json["kind"], "too_many_errors");
        assert_eq!(
            InvalidRun::TooFewSamples { successful: 1, needed: 5 }.describe(),
            "1 successful request(s), fewer than the 5 the tests need"
        );
    }
}
