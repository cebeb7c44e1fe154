//! Pinning a finished run as a schedule's baseline: the run must have completed on the schedule's connector
//! with at least two successful requests; what makes it a weaker baseline (other prompts or another workload,
//! streaming, another `max_tokens`) is said, not silently accepted. The baseline belongs to the schedule's set,
//! connector and workload.

use super::observed::observe_run;
use crate::guard::judge::GUARD_TEMPERATURE;
use crate::guard::model::Baseline;
use crate::guard::store::NewBaseline;
use crate::model::{RunId, RunStatus, ScheduleId, ValidationError, WorkspaceId};
use crate::store::{Store, StoreError};

/// Pins run `run` of `workspace` as the baseline of schedule `schedule` (for its set and connector); returns the
/// baseline and what differs between the run and the schedule's runs.
pub async fn pin_run(
    store: &Store,
    workspace: WorkspaceId,
    schedule: ScheduleId,
    run: RunId,
    now_ms: i64,
) -> Result<(Baseline, Vec<String>), StoreError> {
    let schedule = store.get_schedule(workspace, schedule).await?;
    let set = store.get_set(workspace, schedule.input.set_id).await?;
    let run = store.get_run(workspace, run).await?;
    let refuse = |reason: String| Err(StoreError::Invalid(ValidationError::new("runId", reason)));
    if run.status != RunStatus::Completed {
        return refuse(format!("the run is {}: pin a completed run", run.status.as_str()));
    }
    if run.plan.connector_id != schedule.input.connector_id {
        return refuse("the run measured another connector than the schedule's".into());
    }
    let records = store.run_iterations(workspace, run.id).await?;
    let (total_ms, summary, streamed) = observe_run(store, workspace, run.id, &records).await;
    if total_ms.len() < 2 {
        return refuse(format!(
            "the run has {} successful request(s); Welch's test needs at least 2 (30 or more make a steady baseline)",
            total_ms.len()
        ));
    }
    let mut warnings = Vec::new();
    let workload = store.schedule_workload(workspace, schedule.id).await?;
    let set_prompts: Vec<&str> = set.prompts.iter().map(|p| p.text.as_str()).collect();
    let run_prompts: Vec<&str> = run.plan.prompts.iter().map(String::as_str).collect();
    if let Some(workload) = &workload {
        // A run keeps its workload with the uploaded dataset it read filled in; the schedule's copy names it.
        let sent = store.with_uploaded_dataset(workspace, workload.spec.clone()).await.ok();
        if run.plan.workload.is_none() || run.plan.workload != sent {
            warnings.push(format!(
                "The run did not send the schedule's workload \"{}\": other lengths move latency by themselves.",
                workload.name
            ));
        }
    } else if set_prompts != run_prompts {
        warnings.push(format!(
            "The run sent other prompts than the set \"{}\" ({} vs {}): longer or shorter answers move latency by themselves.",
            set.name,
            run_prompts.len(),
            set_prompts.len()
        ));
    }
    match (run.plan.stream, schedule.input.stream) {
        (true, false) => warnings
            .push("The run was streamed; this schedule's runs are not. Total times are compared (TTFT is not).".into()),
        (false, true) => warnings.push(
            "The run was not streamed; this schedule's runs are. Its TTFT, TPOT and time-to-first-output thresholds \
             have nothing to compare with (not measurable) until a streamed run is pinned."
                .into(),
        ),
        _ => {}
    }
    if workload.is_none() && run.plan.agent.token_budget != set.max_tokens {
        warnings.push(format!(
            "The run's max_tokens was {}, the set's is {}.",
            run.plan.agent.token_budget, set.max_tokens
        ));
    }
    if (run.plan.temperature - GUARD_TEMPERATURE).abs() > 1e-9 {
        warnings.push(format!(
            "The run's temperature was {}; scheduled runs use {GUARD_TEMPERATURE}.",
            run.plan.temperature
        ));
    }
    if total_ms.len() < 30 {
        warnings.push(format!(
            "{} successful requests: a baseline of 30 or more gives Welch's test a steadier footing.",
            total_ms.len()
        ));
    }
    let new = NewBaseline {
        set_id: set.id,
        connector_id: schedule.input.connector_id,
        workload: workload.map(|w| w.spec),
        run_id: run.id,
        total_ms,
        summary,
        streamed,
    };
    Ok((store.pin_baseline(workspace, &new, now_ms).await?, warnings))
}
