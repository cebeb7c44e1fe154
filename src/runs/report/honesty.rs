//! The report's notes: sample size, how every figure was computed, and what was not measurable.

use crate::model::{
    ConnectionPolicy, IterationRecord, LoadMode, OpenedAhead, RunStatus, RunView, TokenSource, ROW_PROMPT_CHARS,
};
use crate::stats::{RunSummary, PERCENTILE_METHOD};

fn ms(v: f64) -> String {
    format!("{v:.1} ms")
}

/// How TPOT, ITL and the first output were computed, and where they could not be.
fn token_latency_note(results: &[IterationRecord], summary: &RunSummary) -> String {
    let reasoned =
        results.iter().filter(|r| !r.warmup && r.first_output_ms.is_some() && r.first_output_ms != r.ttft_ms).count();
    // A first token but no first output: recorded by a version that did not keep these figures.
    let older = results.iter().filter(|r| !r.warmup && r.ttft_ms.is_some() && r.first_output_ms.is_none()).count();
    let mut note = format!(
        "TPOT (time per output token) = (last output chunk − first output chunk) / (tokensOut − 1) per request, with the token counts above (estimated ones included); percentiles over requests with 2+ tokens. \
         ITL (inter-token latency) = every gap between consecutive output chunks divided by the tokens the later chunk carried (one token per chunk when the endpoint does not say, which overstates ITL for servers that batch tokens), pooled over all tokens of all successful requests (vLLM's definition); its percentiles are read from log histograms within ±{:.0} %. \
         Each row's itlMs is that request's mean, maxItlMs its longest gap (a stall).",
        crate::model::ITL_RELATIVE_ACCURACY * 100.0
    );
    if reasoned > 0 {
        note.push_str(&format!(" {reasoned} request(s) reasoned before answering: their first output (reasoning) came before TTFT's first answer token; the \"first output\" figures measure to whichever came first."));
    }
    if older > 0 {
        note.push_str(&format!(
            " {older} successful iteration(s) were recorded before these figures existed and are not in them."
        ));
    }
    if summary.itl.is_none() && summary.succeeded > 0 {
        note.push_str(" No ITL: no successful request streamed two or more output chunks.");
    }
    note
}

/// Every note a reader needs to defend (or doubt) the figures.
pub fn honesty_notes(run: &RunView, results: &[IterationRecord], summary: &RunSummary) -> Vec<String> {
    let mut notes = sample_notes(run, results, summary);
    notes.extend(method_notes(run, results, summary));
    notes.extend(connection_notes(run, results));
    notes.extend(load_notes(run, summary));
    notes.extend(server_notes(results));
    notes.extend(run.fingerprint.as_ref().map(crate::model::Fingerprint::describe));
    notes.extend(status_note(run, results));
    notes
}

/// What was measured: the sample, the time limit that cut it, and whether it is too small for the tails.
fn sample_notes(run: &RunView, results: &[IterationRecord], summary: &RunSummary) -> Vec<String> {
    let warmups = results.iter().filter(|r| r.warmup).count();
    let failed = summary.measured - summary.succeeded;
    let running = run.status == crate::model::RunStatus::Running;
    let mut notes = vec![format!(
        "{}: {} measured iterations ({} succeeded, {} failed: error rate {:.1}%); {} warm-up request(s) run, stored and excluded from all statistics.",
        if running { "Sample so far" } else { "Sample" },
        summary.measured,
        summary.succeeded,
        failed,
        summary.error_rate * 100.0,
        warmups
    )];
    if let Some(limit_ms) = run.plan.duration_ms {
        let planned = run.plan.measured_requests();
        notes.push(format!(
            "Time limit: no request was sent that was due once {} s had passed since the first measured one was due \
             (each send's delay behind the instant it was due is its schedule lag); requests in flight then finished, \
             each within its timeout. {} of at most {planned} measured requests were sent{}.",
            crate::model::trim_number(limit_ms as f64 / 1e3),
            summary.measured,
            if summary.measured >= planned { " (every one planned, before the limit)" } else { "" }
        ));
    }
    // While the run goes the sample is still arriving: its size is judged when it ends.
    if summary.succeeded < 20 && !running {
        notes.push(format!(
            "Small sample: with {} successful iterations, p95 and p99 are interpolated between the largest few values and move a lot between runs.",
            summary.succeeded
        ));
    }
    notes
}

/// How each figure was computed: percentiles, instants, TTFT and ITL, and where token counts came from.
fn method_notes(run: &RunView, results: &[IterationRecord], summary: &RunSummary) -> Vec<String> {
    let mut notes = Vec::new();
    notes.push(format!("Percentiles: {PERCENTILE_METHOD}. Failed iterations are excluded from latency percentiles and counted in the error rate."));
    notes.push(
        "Timing: instants are taken by latency-guard's server on a monotonic clock when bytes arrive, before parsing: for an http:// endpoint, when the read's last segment reached the socket (the kernel's receive timestamp, so other streams' work on a busy client does not delay them); otherwise when the read returned. Chunks that arrived together in one read share its instant (a gap of 0 between them). Instants include the network path to the endpoint and the endpoint's queueing."
            .into(),
    );
    if run.plan.stream {
        notes.push("TTFT = time from sending the request to the first streamed chunk with non-empty choices[0].delta.content; role-only chunks, empty deltas, keep-alive comments and reasoning deltas do not count. Total = send to end of stream.".into());
        notes.push(token_latency_note(results, summary));
    } else {
        notes.push(
            "Responses were not streamed: TTFT is not measurable and is null; total time covers the whole response."
                .into(),
        );
    }
    let reported = results.iter().filter(|r| r.token_source == TokenSource::Reported).count();
    let estimated = results.len() - reported;
    notes.push(if estimated == 0 {
        "Token counts: reported by the endpoint (usage) for every iteration.".to_string()
    } else {
        format!("Token counts: reported by the endpoint for {reported} iteration(s); estimated as characters / 4 (rounded up) for {estimated}, where the endpoint sent no usage. Estimated counts can be off by 30% or more for code and non-English text.")
    });
    if run.stream_options_rejected {
        notes.push("The endpoint rejected stream_options.include_usage, so the field was dropped for the rest of the run; streamed token counts are estimates unless the endpoint reported usage anyway.".into());
    }
    notes
}

/// What the connections did: retries after 429, re-sent requests, connections opened ahead or fresh, and
/// prompts too long for a row.
fn connection_notes(run: &RunView, results: &[IterationRecord]) -> Vec<String> {
    let mut notes = Vec::new();
    let retried: Vec<&IterationRecord> = results.iter().filter(|r| r.retries > 0).collect();
    if run.plan.retries > 0 {
        let attempts: u32 = retried.iter().map(|r| r.retries).sum();
        notes.push(format!(
            "Rate limits: up to {} retries after HTTP 429, honouring Retry-After; {} iteration(s) were retried ({attempts} extra attempt(s)). An iteration's latency is that of its final attempt; waits are not counted; every attempt is kept in the raw measurement.",
            run.plan.retries,
            retried.len()
        ));
    }
    let reconnected: Vec<&IterationRecord> = results.iter().filter(|r| r.reconnects > 0).collect();
    if !reconnected.is_empty() {
        notes.push(format!(
            "Connections: the endpoint closed a reused keep-alive connection before answering {} request(s) (it advertises keep-alive but closes after responding, as some servers do); each was re-sent once, at once, on a fresh connection and timed from that send, so its latency includes connection set-up. The lost attempts are kept in the raw measurement.",
            reconnected.iter().map(|r| r.reconnects).sum::<u32>()
        ));
    }
    notes.extend(run.opened_ahead.map(opened_ahead_note));
    if run.plan.connections == ConnectionPolicy::Fresh {
        notes.push("Connections: a fresh connection per request, as the run asked: every latency includes connection set-up (TCP, and TLS for https), which reused connections would not pay.".into());
    }
    let long_prompts = run.plan.prompts.iter().filter(|p| p.chars().count() > ROW_PROMPT_CHARS).count();
    if long_prompts > 0 {
        notes.push(format!(
            "Prompts: {long_prompts} prompt(s) are longer than {ROW_PROMPT_CHARS} characters; each iteration's row shows their first {ROW_PROMPT_CHARS} and how many characters were left out (the run's settings hold them whole, and every request sent them whole)."
        ));
    }
    notes
}

/// The objectives, throughput, cost and load the figures are read against.
fn load_notes(run: &RunView, summary: &RunSummary) -> Vec<String> {
    let mut notes = Vec::new();
    if !run.plan.slos.is_empty() {
        let objectives: Vec<String> = run.plan.slos.iter().map(crate::model::Slo::spelled).collect();
        notes.push(format!(
            "Objectives: {}. A request is good when it succeeded and met every per-request objective (a request without the value, e.g. no TTFT when not streamed, does not count as meeting it; per request, ITL is the request's longest gap). Goodput = good requests per second and good output tokens per second over the measured span, as the throughput; percentile objectives are judged on the run's percentiles as reported above.",
            objectives.join(", ")
        ));
    }
    notes.push(match summary.span_s {
        Some(span) => format!("Output throughput (outputTokPerSec) = output tokens of successful requests / the measured span, {span:.2} s from the first measured send to the last measured end (warm-ups before it left out, failures inside it counted as time spent); requestsPerSec = successful requests / the same span. This is what vLLM's bench, AIPerf and GuideLLM call output and request throughput."),
        None => "Output throughput: not measurable, the iterations have no send times (stored before they were kept).".to_string(),
    });
    notes.push("One request's output speed (tokPerSec) = Σ output tokens / Σ total time over successful iterations: how fast one answer arrives (weighted by tokens; it includes time to first token), not what the system delivers.".into());
    notes.push(match (run.input_price_per_mtok, run.output_price_per_mtok) {
        (None, None) => "Cost: the connector has no prices, so cost is null.".to_string(),
        (i, o) => format!(
            "Cost = tokensIn × {} + tokensOut × {} USD per 1M tokens (the connector's prices at the start of the run; a missing price counts as 0); it uses the token counts above, estimated ones included.",
            i.map_or("0".into(), |p| p.to_string()),
            o.map_or("0".into(), |p| p.to_string())
        ),
    });
    notes.push(match run.plan.mode {
        LoadMode::Closed { concurrency } => format!("Load: closed loop, {concurrency} request(s) in flight; each sends as soon as a previous one finished."),
        LoadMode::Open { rate_per_second, max_concurrency, .. } => {
            let corrected = summary.total_from_intended.map_or_else(String::new, |p| {
                format!(" Latency from the intended send time (corrects coordinated omission): p50 {}, p95 {}, p99 {}.", ms(p.p50), ms(p.p95), ms(p.p99))
            });
            format!(
                "Load: open loop at {rate_per_second} request(s)/s ({}), at most {max_concurrency} in flight; sends lagged their schedule by up to {}.{corrected}",
                run.plan.mode.spacing(),
                ms(summary.max_schedule_lag_ms)
            )
        }
    });
    if let Some(shape) = &run.plan.shape {
        let counted = match shape.warm_up_seconds() {
            Some(_) => " What was due during the ramp is a warm-up, not in the statistics.",
            None => "",
        };
        notes.push(format!(
            "Load shape: {}; the load above is the target, and each send followed the load of its moment (an open \
             loop's gap is drawn at the rate of the instant it starts, a closed loop gains slots as its ramp climbs).\
             {counted}",
            shape.describe()
        ));
    }
    notes
}

/// What the replies said of the server's own work (speculative decoding, its own time to first output).
fn server_notes(results: &[IterationRecord]) -> Vec<String> {
    let mut notes = Vec::new();
    let timed = crate::runs::report::server::engine_timing_note(results);
    notes.push(if timed.is_some() {
        "Speculative decoding: read from the replies' own timings (next note); this run did not record the server's metrics, so there is no per-position or verify-step figure.".into()
    } else {
        "Speculative decoding: not measurable from the OpenAI wire format alone (chunks do not say how many tokens were drafted or accepted); this run did not record the server's own metrics. `latency-guard spec-lab probe` reads speculative decoding from a self-hosted server's metrics (vLLM, SGLang, TGI, llama.cpp).".into()
    });
    notes.extend(timed);
    notes.extend(super::server::client_added_note(results));
    notes
}

/// How the run ended, when it did not complete.
fn status_note(run: &RunView, results: &[IterationRecord]) -> Option<String> {
    let (done, total) = (results.len(), run.total_requests);
    Some(match run.status {
        RunStatus::Cancelled => format!("The run was cancelled after {done} of {total} requests."),
        RunStatus::Interrupted => {
            format!("The server stopped during the run; {done} of {total} requests finished and are reported.")
        }
        RunStatus::Failed => format!("The run failed: {}.", run.failure.as_deref().unwrap_or("unknown reason")),
        RunStatus::Running => format!("The run is still in progress: {done} of {total} requests so far."),
        RunStatus::Completed => return None,
    })
}

/// What opening the connections ahead did to the first round.
fn opened_ahead_note(opened: OpenedAhead) -> String {
    let OpenedAhead { asked, kept, http2 } = opened;
    let how = "with one unmeasured HEAD {base}/models each, all at once";
    if http2 && kept > 0 {
        return format!("Connections: opened before the first request ({how}); the endpoint answered over HTTP/2, which carries many requests on one connection, so the first round's times do not include connection set-up, like later rounds' times.");
    }
    if kept >= asked {
        return format!("Connections: the run's {asked} connection(s), one per request in flight, were opened before its first request ({how}), so the first round's times, like every later round's, do not include connection set-up.");
    }
    format!("Connections: {kept} of the run's {asked} connection(s) were opened before its first request ({how}); the rest got no answer in time or were announced as closing, so up to {} first request(s) opened their own connection and their times include its set-up (TCP, and TLS for https).", asked - kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_whether_the_first_round_paid_for_connection_set_up() {
        let all = opened_ahead_note(OpenedAhead { asked: 8, kept: 8, http2: false });
        assert!(all.contains("the run's 8 connection(s), one per request in flight, were opened before"), "{all}");
        assert!(all.contains("do not include connection set-up"), "{all}");
        let some = opened_ahead_note(OpenedAhead { asked: 8, kept: 5, http2: false });
        assert!(some.contains("5 of the run's 8 connection(s)"), "{some}");
        assert!(some.contains("up to 3 first request(s) opened their own connection"), "{some}");
        let none = opened_ahead_note(OpenedAhead { asked: 4, kept: 0, http2: false });
        assert!(none.contains("0 of the run's 4") && none.contains("include its set-up"), "{none}");
        let shared = opened_ahead_note(OpenedAhead { asked: 64, kept: 64, http2: true });
        assert!(shared.contains("HTTP/2, which carries many requests on one connection"), "{shared}");
    }
}
