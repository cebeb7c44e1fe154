//! The run a schedule makes: each prompt of its set (or each request of its workload) once, unstreamed unless the
//! schedule streams, at Guard's temperature, one at a time. Tick, pool and page read it; it is what a pooled
//! baseline's key hashes.

use crate::guard::model::{BenchmarkSet, Schedule};
use crate::model::{Agent, LoadMode, RunPlanInput, Workload};

/// The temperature of scheduled runs (`docs/GUARD.md` documents it).
pub const GUARD_TEMPERATURE: f64 = 0.2;

/// The run a schedule makes: each prompt of its set once, or each request of its `workload` (with the set's system
/// prompt), non-streaming unless the schedule streams (for TTFT and TPOT), temperature 0.2, one at a time (so the
/// requests do not slow each other down; a multi-turn workload's conversations go one after another).
pub fn guard_plan(schedule: &Schedule, set: &BenchmarkSet, workload: Option<&Workload>) -> RunPlanInput {
    let agent = Agent {
        name: set.name.clone(),
        system_prompt: set.system_prompt.clone(),
        tools: vec![],
        token_budget: set.max_tokens,
    };
    let prompts = match workload {
        Some(_) => Vec::new(),
        None => set.prompts.iter().map(|p| p.text.clone()).collect(),
    };
    let one = LoadMode::Closed { concurrency: 1 };
    RunPlanInput {
        title: Some(format!("Guard · {}", schedule.input.name)),
        stream: schedule.input.stream,
        temperature: GUARD_TEMPERATURE,
        workload: workload.cloned(),
        ..RunPlanInput::new(schedule.input.connector_id, agent, prompts, 1, one)
    }
}
