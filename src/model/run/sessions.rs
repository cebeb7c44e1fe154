//! A plan's send order: its sessions, each a job sent on the schedule then its later turns one after another (a
//! multi-turn workload's conversations), and the jobs they hold.

use super::plan::{Job, RunPlan};

impl RunPlan {
    /// The send order: warm-ups (cycling through the prompts), then for each iteration every prompt once, so
    /// that a slow drift over time affects every prompt alike. With a workload: warm-ups with requests of their own
    /// (numbered after the measured ones), then the workload's requests in order.
    pub fn jobs(&self) -> impl Iterator<Item = Job> + Send + 'static {
        self.sessions().flat_map(|session| (0..session.turns).map(move |turn| session.turn(turn)))
    }

    /// The send order in sessions: each a job sent on the schedule, then its later turns one after another (a
    /// multi-turn workload's conversations). Every other plan's jobs are sessions of one turn. A multi-turn
    /// workload's warm-ups are first turns of conversations of their own, numbered after the measured ones.
    pub fn sessions(&self) -> impl Iterator<Item = Session> + Send + 'static {
        let warmup = self.warmup;
        // (first request, turns, iteration, warm-up)
        let order: Box<dyn Iterator<Item = (u32, u32, u32, bool)> + Send> = match &self.workload {
            Some(workload) => {
                let (sessions, turns) = (workload.sessions(), workload.turns());
                let warmups = (0..warmup).map(move |w| ((sessions + w) * turns, 1, 0, true));
                Box::new(warmups.chain((0..sessions).map(move |s| (s * turns, turns, 0, false))))
            }
            None => {
                let (prompts, iterations) = (self.prompts.len() as u32, self.iterations);
                let warmups = (0..warmup).map(move |w| (w % prompts, 1, w / prompts, true));
                let measured = (0..iterations).flat_map(move |i| (0..prompts).map(move |p| (p, 1, i, false)));
                Box::new(warmups.chain(measured))
            }
        };
        let mut seq = 0;
        order.map(move |(prompt_index, turns, iteration, warmup)| {
            let first = Job { seq, prompt_index, iteration, warmup };
            seq += u64::from(turns);
            Session { first, turns }
        })
    }
}

/// Jobs sent one after another: a conversation's turns (consecutive in `seq` and in request index), or a single
/// job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    /// The first turn, sent on the schedule.
    pub first: Job,
    /// Turns, the first included.
    pub turns: u32,
}

impl Session {
    /// Turn `turn` (from 0).
    pub fn turn(&self, turn: u32) -> Job {
        Job { seq: self.first.seq + u64::from(turn), prompt_index: self.first.prompt_index + turn, ..self.first }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::fixtures::plan_input;

    #[test]
    fn a_multi_turn_workload_sends_each_conversation_as_a_session_after_one_turn_warm_ups() {
        let workload = crate::model::Workload::MultiTurn {
            users: 2,
            turns: 3,
            first: crate::model::LengthDist::fixed(10),
            follow_up: crate::model::LengthDist::fixed(5),
            output: crate::model::LengthDist::fixed(4),
            think: crate::model::ThinkTime::default(),
            seed: 0,
        };
        let plan =
            crate::model::RunPlanInput { iterations: 1, workload: Some(workload), warmup: 2, ..plan_input(&[], 64, 2) }
                .validate("m")
                .unwrap();
        let sessions: Vec<(u64, u32, u32, bool)> =
            plan.sessions().map(|s| (s.first.seq, s.first.prompt_index, s.turns, s.first.warmup)).collect();
        // Warm-ups are first turns of conversations 2 and 3 (requests 6 and 9), then conversations 0 and 1.
        assert_eq!(sessions, vec![(0, 6, 1, true), (1, 9, 1, true), (2, 0, 3, false), (5, 3, 3, false)]);
        let jobs: Vec<(u64, u32)> = plan.jobs().map(|j| (j.seq, j.prompt_index)).collect();
        assert_eq!(jobs, vec![(0, 6), (1, 9), (2, 0), (3, 1), (4, 2), (5, 3), (6, 4), (7, 5)]);
        assert_eq!(plan.total_requests(), 8);
    }
}
