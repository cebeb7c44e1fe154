//! Plans and runs for unit tests elsewhere in the crate.

use super::plan::{Agent, ConnectionPolicy, LoadMode, RunPlanInput};
use crate::model::ConnectorId;
use crate::model::{IterationRecord, RunStatus, RunView};

/// A valid plan input: agent `bot` with `token_budget`, the given prompts, 5 iterations, closed loop.
pub fn plan_input(prompts: &[&str], token_budget: u32, concurrency: u32) -> RunPlanInput {
    RunPlanInput {
        connector_id: ConnectorId(uuid::Uuid::nil()),
        title: None,
        agent: Agent { name: "bot".into(), system_prompt: None, tools: vec![], token_budget },
        prompts: prompts.iter().map(|p| p.to_string()).collect(),
        iterations: 5,
        warmup: 0,
        mode: LoadMode::Closed { concurrency },
        timeout_ms: None,
        stream: true,
        temperature: 0.0,
        retries: 0,
        connections: ConnectionPolicy::Reuse,
        slos: Vec::new(),
        duration_s: None,
        workload: None,
        shape: None,
        workload_id: None,
        prompt_heads: crate::model::PromptHeads::default(),
    }
}

/// A measured iteration of prompt `p` with the given latencies; a failure has no output tokens.
pub fn iteration_record(seq: u64, ttft_ms: Option<f64>, total_ms: f64, failed: bool) -> IterationRecord {
    IterationRecord {
        prompt: "p".into(),
        ttft_ms,
        total_ms,
        tokens_in: Some(1),
        tokens_out: if failed { None } else { Some(seq) },
        error: failed.then(|| "timeout: no answer".to_string()),
        seq,
        token_source: crate::model::TokenSource::Reported,
        ..IterationRecord::blank()
    }
}

/// A completed run of `input` against `model`.
pub fn completed_run(input: RunPlanInput, model: &str) -> RunView {
    let plan = input.validate(model).unwrap_or_else(|e| panic!("{e}"));
    RunView {
        id: crate::model::RunId(uuid::Uuid::new_v4()),
        title: plan.title.clone(),
        status: RunStatus::Completed,
        total_requests: plan.total_requests(),
        plan,
        base_url: "http://127.0.0.1:8100/v1".into(),
        model: model.into(),
        input_price_per_mtok: None,
        output_price_per_mtok: None,
        stream_options_rejected: false,
        prompt_tokenizer: None,
        opened_ahead: None,
        client_load: None,
        fingerprint: None,
        headline: None,
        failure: None,
        created_at_ms: 0,
        finished_at_ms: Some(1),
    }
}
