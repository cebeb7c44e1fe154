//! The options of `bench` as a run plan.

use super::BenchArgs;
use crate::cli::{usage, CliError};
use crate::model::{
    Agent, ConnectionPolicy, ConnectorId, LoadMode, LoadShape, PromptHeads, RampCurve, RateStep, RunPlanInput,
};

/// The plan the options describe (its connector is set by a run on a server).
pub(super) fn plan_input(args: &BenchArgs) -> Result<RunPlanInput, CliError> {
    if args.workload.given() && args.prompts.given() {
        return Err(usage("give prompts or a workload, not both"));
    }
    if args.workload.workload.is_some() && args.iterations.is_some() {
        return Err(usage("a --workload file says its own requests: leave out -n"));
    }
    if args.workload.trace.is_some() && args.rate.is_some() {
        return Err(usage("a trace sends at its recorded instants: leave out --rate (--speedup changes its pace)"));
    }
    let given = args.workload.read(args.iterations, args.warmup)?;
    let trace_rate = given.as_ref().and_then(trace_rate);
    let workload = given.map(|g| g.workload);
    let prompts = if workload.is_some() { Vec::new() } else { args.prompts.read()? };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(usage("--timeout must be a positive number of seconds"));
    }
    if !(0.0..=1.0).contains(&args.max_error_rate) {
        return Err(usage("--max-error-rate must be between 0 and 1"));
    }
    let shape = load_shape(args)?;
    let first_step = match &shape {
        Some(LoadShape::Steps { steps }) => steps.first().map(|s| s.rate),
        _ => None,
    };
    let mode = match args.rate.or(trace_rate).or(first_step) {
        Some(rate) => LoadMode::Open {
            rate_per_second: rate,
            poisson: args.poisson,
            max_concurrency: args.max_concurrency,
            burstiness: args.burstiness,
        },
        None => LoadMode::Closed { concurrency: args.concurrency },
    };
    Ok(RunPlanInput {
        connector_id: ConnectorId(uuid::Uuid::nil()),
        title: None,
        agent: Agent {
            name: "cli".into(),
            system_prompt: args.prompts.system.clone(),
            tools: vec![],
            token_budget: args.max_tokens,
        },
        iterations: match (args.iterations, args.duration) {
            // A workload's requests are its own.
            _ if workload.is_some() => 1,
            (Some(n), _) => n,
            // The time decides: as many iterations as one run may send.
            (None, Some(_)) => {
                u32::try_from(crate::model::limits::MAX_REQUESTS / prompts.len().max(1) as u64).unwrap_or(u32::MAX)
            }
            (None, None) => 10,
        },
        prompts,
        warmup: args.warmup,
        mode,
        timeout_ms: Some((args.timeout * 1e3).round() as u64),
        stream: !args.no_stream,
        temperature: 0.0,
        retries: args.retries,
        connections: if args.fresh_connections { ConnectionPolicy::Fresh } else { ConnectionPolicy::Reuse },
        prompt_heads: if args.no_prompt_heads { PromptHeads::Off } else { PromptHeads::Unique },
        slos: args.slos.clone(),
        duration_s: args.duration,
        workload,
        shape,
        workload_id: None,
    })
}

/// The ramp or the steps the options ask for.
fn load_shape(args: &BenchArgs) -> Result<Option<LoadShape>, CliError> {
    if let (Some(from), Some(seconds)) = (args.ramp_from, args.ramp_seconds) {
        let curve = if args.ramp_exponential { RampCurve::Exponential } else { RampCurve::Linear };
        return Ok(Some(LoadShape::Ramp { curve, from, seconds, counted: args.count_ramp }));
    }
    let Some(written) = &args.steps else { return Ok(None) };
    let step = |text: &str| {
        let (rate, seconds) = text.trim().split_once(':')?;
        Some(RateStep { rate: rate.trim().parse().ok()?, seconds: seconds.trim().parse().ok()? })
    };
    let steps = written
        .split(',')
        .map(|text| step(text).ok_or_else(|| usage(format!("--steps: {text:?} is not RATE:SECONDS"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(LoadShape::Steps { steps }))
}

/// A trace's mean rate over the requests it sends, requests a second (the plan's rate says it; the trace's instants
/// are what the run follows).
fn trace_rate(given: &super::super::endpoint::GivenWorkload) -> Option<f64> {
    let crate::model::Workload::Trace { requests, speedup, .. } = &given.workload else { return None };
    let span_s = given.trace_span_us? as f64 / 1e6 / speedup;
    let rate = if span_s > 0.0 { f64::from(requests.saturating_sub(1)) / span_s } else { 1.0 };
    Some(rate.clamp(crate::model::limits::MIN_RATE, crate::model::limits::MAX_RATE))
}
