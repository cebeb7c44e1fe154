//! The workload a Guard schedule may send instead of its set's prompts: a copy of a saved workload, taken when the
//! schedule is saved, so that editing the saved one later does not silently change what the schedule's runs are
//! compared on. A schedule's run sends one request at a time and must end within the time Guard gives an
//! evaluation, which bounds the workloads it can send.

use serde::{Deserialize, Serialize};

use super::benchmark_set::MAX_SET_PROMPTS;
use super::cost::RunVolume;
use crate::model::{ValidationError, Workload, WorkloadId};

/// Requests a schedule's workload may send at most: as many as a set may hold prompts. One at a time, each within
/// the 120 s request limit, they end within the four hours an evaluation is given.
pub const MAX_SCHEDULE_REQUESTS: u32 = MAX_SET_PROMPTS as u32;

/// The think times of a schedule's multi-turn workload may add up to this at most, each at its longest (an
/// exponential one at the ten-minute cut): with 100 requests at their limit, still within the four hours.
pub const MAX_SCHEDULE_THINK_MS: u64 = 30 * 60_000;

/// The copy a schedule keeps of the saved workload it names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleWorkload {
    /// The saved workload it was copied from (which may since have changed or gone).
    pub id: WorkloadId,
    /// Its name when it was copied.
    pub name: String,
    /// The workload, every parameter, as copied.
    pub spec: Workload,
}

/// Refuses a workload a schedule's run could not send within an evaluation's time (the field is `workloadId`, what
/// the schedule's form sends).
pub fn schedulable(spec: &Workload) -> Result<(), ValidationError> {
    let refuse = |reason: String| Err(ValidationError::new("workloadId", reason));
    if let Workload::Trace { .. } = spec {
        return refuse("a trace sends at its recorded instants, and a schedule one request at a time".into());
    }
    let requests = spec.requests();
    if requests > MAX_SCHEDULE_REQUESTS {
        return refuse(format!(
            "the workload sends {requests} requests; a schedule's run sends at most {MAX_SCHEDULE_REQUESTS}, one at a \
             time (save a smaller one for Guard)"
        ));
    }
    if let Workload::MultiTurn { users, turns, think, .. } = spec {
        let pauses = u64::from(*users) * u64::from(turns.saturating_sub(1));
        let longest = pauses.saturating_mul(think.longest_ms());
        if longest > MAX_SCHEDULE_THINK_MS {
            return refuse(format!(
                "its {pauses} think times add up to {} min at their longest; a schedule's run allows {} min",
                longest / 60_000,
                MAX_SCHEDULE_THINK_MS / 60_000
            ));
        }
    }
    Ok(())
}

impl RunVolume {
    /// What one run of `workload` sends, with `system_prompt` before each request: input tokens at the mean of
    /// each length drawn (a multi-turn request also resends the conversation so far, earlier answers at their mean
    /// asked length), output tokens at the mean asked answer length. `None` for a dataset or a trace, whose lengths
    /// are in their rows.
    pub fn of_workload(workload: &Workload, system_prompt: Option<&str>) -> Option<Self> {
        let system = system_prompt.map_or(0.0, RunVolume::estimated_tokens);
        let requests = workload.requests();
        let n = f64::from(requests);
        let (input, output) = match workload {
            Workload::Synthetic { input, output, .. } => (n * input.nominal_mean(), n * output.nominal_mean()),
            Workload::SharedPrefix { prefix_tokens, suffix, output, .. } => {
                (n * (f64::from(*prefix_tokens) + suffix.nominal_mean()), n * output.nominal_mean())
            }
            Workload::MultiTurn { users, turns, first, follow_up, output, .. } => {
                // Turn t (from 0) sends the first message, t later messages and t answers.
                let t = f64::from(*turns);
                let per_user =
                    t * first.nominal_mean() + t * (t - 1.0) / 2.0 * (follow_up.nominal_mean() + output.nominal_mean());
                (f64::from(*users) * per_user, n * output.nominal_mean())
            }
            Workload::Dataset { .. } | Workload::Trace { .. } => return None,
        };
        Some(Self { requests, input_tokens: input, output_tokens: output }.with_system_tokens(system))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LengthDist, ThinkTime};

    fn synthetic(requests: u32) -> Workload {
        Workload::Synthetic { input: LengthDist::fixed(1_000), output: LengthDist::fixed(200), requests, seed: 1 }
    }

    fn chat(users: u32, turns: u32, think: ThinkTime) -> Workload {
        let (first, follow_up, output) = (LengthDist::fixed(100), LengthDist::fixed(20), LengthDist::fixed(50));
        Workload::MultiTurn { users, turns, first, follow_up, output, think, seed: 0 }
    }

    #[test]
    fn a_schedule_sends_what_ends_within_an_evaluation() {
        assert_eq!(schedulable(&synthetic(100)), Ok(()));
        let too_many = schedulable(&synthetic(101)).unwrap_err();
        assert_eq!(too_many.field, "workloadId");
        assert!(too_many.reason.contains("101 requests"), "{}", too_many.reason);
        // 3 conversations of 4 turns: 9 pauses. At 3 min each, 27 min; at 4 min, 36 min.
        assert_eq!(schedulable(&chat(3, 4, ThinkTime::Fixed { ms: 180_000 })), Ok(()));
        let long = schedulable(&chat(3, 4, ThinkTime::Uniform { min_ms: 0, max_ms: 240_000 })).unwrap_err();
        assert!(long.reason.contains("9 think times add up to 36 min"), "{}", long.reason);
        // An exponential think time is counted at its ten-minute cut.
        assert_eq!(schedulable(&chat(1, 4, ThinkTime::Exponential { mean_ms: 1_000 })), Ok(()));
        assert!(schedulable(&chat(1, 5, ThinkTime::Exponential { mean_ms: 1_000 })).is_err());
    }

    #[test]
    fn a_workloads_volume_is_its_mean_lengths_with_the_conversation_resent() {
        let v = RunVolume::of_workload(&synthetic(10), Some("abcdefgh")).unwrap();
        assert_eq!((v.requests, v.input_tokens, v.output_tokens), (10, 10.0 * 1_002.0, 2_000.0));
        // Turns send 100, 100+20+50 and 100+2×(20+50) tokens: 510 per conversation.
        let v = RunVolume::of_workload(&chat(2, 3, ThinkTime::default()), None).unwrap();
        assert_eq!((v.requests, v.input_tokens, v.output_tokens), (6, 1_020.0, 300.0));
    }
}
