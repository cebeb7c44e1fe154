//! A run's server section: what the server's own metrics said during the run, attached to the snapshot, and the
//! honesty notes that say where each figure came from and what could spoil it.

use crate::model::{EngineTimingTotals, IterationRecord, ServerMetrics, SpecOutcome};
use crate::runs::report::ReportSnapshot;
use crate::stats::{percentile, percentiles, Percentiles};

/// The first words of the speculative-decoding note, which a recorded server replaces.
const SPEC_NOTE: &str = "Speculative decoding:";

/// `snapshot` with what its run recorded of the server, and notes that say so.
pub fn with_server(mut snapshot: ReportSnapshot, server: Option<ServerMetrics>) -> ReportSnapshot {
    let Some(server) = server else { return snapshot };
    let mut notes = server_notes(&server);
    if let (SpecOutcome::Window(window), Some(note)) = (&server.spec, spec_cross_check(&snapshot.results)) {
        notes[0].push_str(&note(window.draft_tokens, window.accepted_tokens));
    }
    match snapshot.honesty.iter().position(|n| n.starts_with(SPEC_NOTE)) {
        Some(at) => {
            snapshot.honesty.splice(at..=at, notes);
        }
        None => snapshot.honesty.extend(notes),
    }
    snapshot.server = Some(server);
    snapshot
}

/// A sentence that holds the counters' window against the replies' own sums (warm-ups included: the counters
/// saw them too); `None` when no reply carried timings.
fn spec_cross_check(results: &[IterationRecord]) -> Option<impl Fn(f64, f64) -> String> {
    let totals = EngineTimingTotals::of(results.iter().filter_map(|r| r.engine_timings.as_ref()));
    (totals.responses > 0).then_some(move |drafted: f64, accepted: f64| {
        let (replied_drafted, replied_accepted) = (totals.draft_tokens as f64, totals.draft_accepted as f64);
        if (drafted, accepted) == (replied_drafted, replied_accepted) {
            format!(
                " The counters moved by exactly what the run's {} replies reported (Σ draft_n, Σ draft_n_accepted): \
                 no other traffic drafted on this server meanwhile.",
                totals.responses
            )
        } else {
            format!(
                " The run's {} replies reported {replied_drafted} drafted and {replied_accepted} accepted (Σ draft_n, \
                 Σ draft_n_accepted), not what the counters say: other traffic, or requests that ended without \
                 timings, moved them too.",
                totals.responses
            )
        }
    })
}

/// What the client and the network added to the time to first output, over the successful measured requests whose
/// endpoint reported its own (`serverFirstOutputMs`; latency-guard's simulator does): each request's firstOutputMs −
/// serverFirstOutputMs, with how many requests said. `None` when none did.
pub fn client_added_ms(results: &[IterationRecord]) -> Option<(usize, Percentiles)> {
    let added: Vec<f64> = results
        .iter()
        .filter(|r| !r.warmup && r.error.is_none())
        .filter_map(|r| Some(r.first_output_ms? - r.server_first_output_ms?))
        .collect();
    Some((added.len(), percentiles(added)?))
}

/// The note on [`client_added_ms`]: what was subtracted, and over how many requests.
pub fn client_added_note(results: &[IterationRecord]) -> Option<String> {
    let (said, added) = client_added_ms(results)?;
    let successes = results.iter().filter(|r| !r.warmup && r.error.is_none()).count();
    Some(format!(
        "Client overhead: {said} of {successes} successful measured replies said when the endpoint had the request \
         and when it sent its first output (latency-guard's simulator says; real endpoints do not). The client and \
         the network added p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms to the endpoint's own time to first output \
         (each request's measured first output − the endpoint's; each is a difference on one machine's clock, so no \
         offset between the two clocks enters).",
        added.p50, added.p95, added.p99
    ))
}

/// The server's own per-reply timings (llama.cpp's `timings`) over the successful measured iterations that carried
/// them: its prefill time beside the client's TTFT, its generation speed, and drafted / accepted tokens. `None`
/// when no reply carried timings.
pub fn engine_timing_note(results: &[IterationRecord]) -> Option<String> {
    let timed: Vec<&IterationRecord> =
        results.iter().filter(|r| !r.warmup && r.error.is_none() && r.engine_timings.is_some()).collect();
    let successes = results.iter().filter(|r| !r.warmup && r.error.is_none()).count();
    if timed.is_empty() {
        return None;
    }
    let p50 = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        percentile(&values, 50.0)
    };
    let timings = || timed.iter().filter_map(|r| r.engine_timings);
    let prefill = p50(timings().filter_map(|t| t.prompt_ms).collect());
    let ttft = p50(timed.iter().filter_map(|r| r.ttft_ms).collect());
    let speed = p50(timings()
        .filter_map(|t| Some(t.predicted_tokens? as f64 * 1e3 / t.predicted_ms.filter(|ms| *ms > 0.0)?))
        .collect());
    let mut note = format!(
        "Server's own timings: {} of {successes} successful measured replies carried llama.cpp's `timings`.",
        timed.len()
    );
    match (prefill, ttft) {
        (Some(prefill), Some(ttft)) => note.push_str(&format!(
            " Prefill (the server's prompt_ms) p50 {prefill:.1} ms beside the client's TTFT p50 {ttft:.1} ms over the \
             same replies: the difference is queueing, the network and the stream's first chunk."
        )),
        (Some(prefill), None) => note.push_str(&format!(" Prefill (the server's prompt_ms) p50 {prefill:.1} ms.")),
        _ => {}
    }
    if let Some(speed) = speed {
        note.push_str(&format!(" Generation p50 {speed:.1} tokens/s (predicted_n / predicted_ms, decode alone)."));
    }
    let totals = EngineTimingTotals::of(timings().collect::<Vec<_>>().iter());
    note.push_str(&match totals.acceptance_rate() {
        Some(rate) => format!(
            " Drafted {} tokens, accepted {} ({:.1} %), summed over these replies (draft_n, draft_n_accepted).",
            totals.draft_tokens,
            totals.draft_accepted,
            rate * 100.0
        ),
        None => " No reply drafted a token (no draft_n).".to_string(),
    });
    Some(note)
}

/// What the recorded metrics say, and how they were read.
pub fn server_notes(server: &ServerMetrics) -> Vec<String> {
    let source = format!("{}'s /metrics at {}", server.kind.label(), server.root);
    let spec = match &server.spec {
        SpecOutcome::Window(w) => match (w.acceptance_rate, w.mean_acceptance_length) {
            (Some(rate), length) => format!(
                "{SPEC_NOTE} from the server's own counters ({source}, read when the run started and when it ended): \
                 {} tokens drafted, {} accepted ({:.1} %){}{}. The counters are the whole server's: other traffic \
                 during the run is counted too.",
                w.draft_tokens,
                w.accepted_tokens,
                rate * 100.0,
                length.map_or(String::new(), |l| format!(
                    ", mean acceptance length {l:.2} (1 + accepted / verify steps, the bonus token included)"
                )),
                per_position(&w.per_position)
            ),
            (None, _) => format!(
                "{SPEC_NOTE} the server ({source}) drafted no tokens during the run: it is off, or had nothing to \
                 draft."
            ),
        },
        SpecOutcome::Restarted { .. } => format!(
            "{SPEC_NOTE} the server restarted during the run ({} in {source}), so its counters give no figures for it.",
            server.spec.restart_evidence().unwrap_or_default()
        ),
        SpecOutcome::Unfinished { reason } => format!(
            "{SPEC_NOTE} the server's counters could not be read after the run ({reason}), so no window covers the \
             whole run and none is reported (one ending earlier would undercount)."
        ),
        SpecOutcome::NotCounted => format!(
            "{SPEC_NOTE} {} keeps no counters of it ({source}), so it is not measured here.",
            server.kind.label()
        ),
    };
    let most =
        |pick: fn(&crate::model::ServerSample) -> Option<f64>| server.samples.iter().filter_map(pick).reduce(f64::max);
    let mut load = format!(
        "Server load, from {source} once a second ({} reading(s){}): ",
        server.scrapes,
        if server.failed_scrapes > 0 { format!(", {} unanswered", server.failed_scrapes) } else { String::new() }
    );
    let parts: Vec<String> = [
        most(|s| s.running).map(|v| format!("up to {v} request(s) running")),
        most(|s| s.waiting).map(|v| format!("up to {v} waiting")),
        most(|s| s.kv_cache).map(|v| format!("KV cache up to {:.0} % full", v * 100.0)),
    ]
    .into_iter()
    .flatten()
    .collect();
    load.push_str(if parts.is_empty() { "no load gauges exposed" } else { "" });
    load.push_str(&parts.join(", "));
    load.push('.');
    let mut notes = vec![spec, load];
    notes.extend(latency_note(server, &source));
    notes
}

/// "; accepted per verify step at draft position 1, 2, …: 0.98, 0.91, 0.80" (the share of verify steps whose
/// draft was accepted up to that position), or nothing when the server does not count positions.
fn per_position(rates: &[(u32, f64)]) -> String {
    if rates.is_empty() {
        return String::new();
    }
    let positions: Vec<String> = rates.iter().map(|(p, _)| (p + 1).to_string()).collect();
    let values: Vec<String> = rates.iter().map(|(_, r)| format!("{r:.2}")).collect();
    format!("; accepted per verify step at draft position {}: {}", positions.join(", "), values.join(", "))
}

/// The server's own latency histograms, preemptions and prefix-cache hit rate over the run, when it exposes them.
fn latency_note(server: &ServerMetrics, source: &str) -> Option<String> {
    if server.latencies.is_empty() && server.preemptions.is_none() && server.prefix_cache.is_none() {
        return None;
    }
    let parts: Vec<String> = server
        .latencies
        .iter()
        .map(|l| match l.mean_ms {
            Some(mean) => format!("{} mean {} over {} request(s)", l.label, crate::report::ms(mean), l.requests),
            None => format!("{}: no request counted", l.label),
        })
        .chain(server.preemptions.map(|p| format!("{p} request(s) preempted")))
        .chain(server.prefix_cache.as_ref().map(|c| {
            let looked_up = c.queried_tokens.map_or_else(String::new, |t| format!(" of {t} prompt tokens looked up"));
            format!("prefix-cache hit rate {:.1}%{looked_up} ({})", c.hit_rate * 100.0, c.source)
        }))
        .collect();
    Some(format!(
        "Server-side latency over the run, from {source}'s histograms (mean = Δsum / Δcount between the first and \
         the last reading; every request the server served counts, not only this run's): {}.",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ServerKind, ServerSample, SpecWindow};

    fn metrics(spec: SpecOutcome) -> ServerMetrics {
        ServerMetrics {
            kind: ServerKind::LlamaCpp,
            root: "http://h:8080".into(),
            scrapes: 5,
            failed_scrapes: 1,
            samples: vec![
                ServerSample { at_ms: 0, running: Some(0.0), waiting: Some(0.0), kv_cache: None },
                ServerSample { at_ms: 1_000, running: Some(2.0), waiting: Some(1.0), kv_cache: None },
            ],
            spec,
            latencies: vec![],
            preemptions: None,
            prefix_cache: None,
            version: None,
        }
    }

    #[test]
    fn a_window_replaces_the_unmeasurable_note_and_says_its_source_and_caveat() {
        let window = SpecWindow {
            drafts: Some(10.0),
            draft_tokens: 40.0,
            accepted_tokens: 30.0,
            acceptance_rate: Some(0.75),
            mean_acceptance_length: Some(4.0),
            per_position: vec![],
        };
        let notes = server_notes(&metrics(SpecOutcome::Window(window)));
        assert!(notes[0].starts_with(SPEC_NOTE) && notes[0].contains("40 tokens drafted, 30 accepted (75.0 %)"));
        assert!(notes[0].contains("mean acceptance length 4.00") && notes[0].contains("other traffic"));
        assert!(
            notes[1].contains("5 reading(s), 1 unanswered")
                && notes[1].contains("up to 2 request(s) running, up to 1 waiting")
        );
    }

    fn timed(seq: u64, ttft: f64, prompt_ms: f64, drafted: u64, accepted: u64) -> IterationRecord {
        let mut record = crate::model::fixtures::iteration_record(seq, Some(ttft), 100.0, false);
        record.engine_timings = Some(crate::model::EngineTimings {
            prompt_tokens: Some(9),
            prompt_ms: Some(prompt_ms),
            cached_tokens: None,
            predicted_tokens: Some(50),
            predicted_ms: Some(250.0),
            draft_tokens: drafted,
            draft_accepted: accepted,
        });
        record
    }

    #[test]
    fn replies_timings_set_prefill_beside_ttft_and_sum_their_drafts() {
        let results = [timed(1, 30.0, 10.0, 40, 30), timed(2, 50.0, 20.0, 20, 5), timed(3, 70.0, 30.0, 0, 0)];
        let note = engine_timing_note(&results).unwrap();
        assert!(note.contains("3 of 3 successful measured replies"), "{note}");
        assert!(note.contains("prompt_ms) p50 20.0 ms beside the client's TTFT p50 50.0 ms"), "{note}");
        assert!(note.contains("Generation p50 200.0 tokens/s"), "{note}");
        assert!(note.contains("Drafted 60 tokens, accepted 35 (58.3 %)"), "{note}");
        let plain = [crate::model::fixtures::iteration_record(1, Some(3.0), 9.0, false)];
        assert_eq!(engine_timing_note(&plain), None, "no reply carried timings: nothing is claimed");
    }

    #[test]
    fn the_client_overhead_is_each_replys_first_output_less_the_endpoints_own() {
        let said = |seq, first_output: f64, server: Option<f64>, failed| {
            let mut record = crate::model::fixtures::iteration_record(seq, Some(first_output), 100.0, failed);
            (record.first_output_ms, record.server_first_output_ms) = (Some(first_output), server);
            record
        };
        let mut warmup = said(0, 90.0, Some(10.0), false);
        warmup.warmup = true;
        let results = [
            warmup,
            said(1, 12.0, Some(10.0), false),
            said(2, 13.0, Some(10.0), false),
            said(3, 20.0, Some(10.0), false),
            said(4, 99.0, Some(10.0), true),
            said(5, 14.0, None, false),
        ];
        let (n, added) = client_added_ms(&results).unwrap();
        // Warm-ups, failures and replies that did not say are left out: 2, 3 and 10 ms, whose p50 / p95 / p99 by
        // linear interpolation (numpy's default) are 3.0, 9.3 and 9.86.
        assert_eq!(n, 3);
        assert!((added.p50 - 3.0).abs() < 1e-9 && (added.p95 - 9.3).abs() < 1e-9, "{added:?}");
        let note = client_added_note(&results).unwrap();
        assert!(note.starts_with("Client overhead: 3 of 4 successful measured replies said"), "{note}");
        assert!(note.contains("added p50 3.000 ms, p95 9.300 ms, p99 9.860 ms"), "{note}");
        let silent = [said(1, 12.0, None, false)];
        assert_eq!(client_added_note(&silent), None, "an endpoint that said nothing: nothing is claimed");
    }

    #[test]
    fn the_counters_window_is_held_against_the_replies_sums() {
        let results = vec![timed(1, 30.0, 10.0, 40, 30), timed(2, 50.0, 20.0, 20, 5)];
        let window = |drafted, accepted| SpecWindow {
            drafts: Some(10.0),
            draft_tokens: drafted,
            accepted_tokens: accepted,
            acceptance_rate: Some(accepted / drafted),
            mean_acceptance_length: None,
            per_position: vec![],
        };
        let run = crate::model::fixtures::completed_run(crate::model::fixtures::plan_input(&["p"], 2, 1), "m");
        let (snap, _) = crate::runs::report::snapshot(&run, results);
        let agreed = with_server(snap.clone(), Some(metrics(SpecOutcome::Window(window(60.0, 35.0)))));
        let spec = agreed.honesty.iter().find(|n| n.starts_with(SPEC_NOTE)).unwrap();
        assert!(spec.contains("moved by exactly what the run's 2 replies reported"), "{spec}");
        let polluted = with_server(snap, Some(metrics(SpecOutcome::Window(window(90.0, 50.0)))));
        let spec = polluted.honesty.iter().find(|n| n.starts_with(SPEC_NOTE)).unwrap();
        assert!(
            spec.contains("replies reported 60 drafted and 35 accepted") && spec.contains("other traffic"),
            "{spec}"
        );
    }

    #[test]
    fn server_latency_histograms_preemptions_and_positions_are_said_with_their_source() {
        let mut server = metrics(SpecOutcome::Window(SpecWindow {
            drafts: Some(10.0),
            draft_tokens: 40.0,
            accepted_tokens: 25.0,
            acceptance_rate: Some(0.625),
            mean_acceptance_length: Some(3.5),
            per_position: vec![(0, 0.9), (1, 0.8), (2, 0.55)],
        }));
        server.latencies = vec![
            crate::model::ServerLatency {
                label: "time to first token".into(),
                series: "vllm:time_to_first_token_seconds".into(),
                requests: 60.0,
                mean_ms: Some(50.0),
            },
            crate::model::ServerLatency {
                label: "queue time".into(),
                series: "q".into(),
                requests: 0.0,
                mean_ms: None,
            },
        ];
        server.preemptions = Some(2.0);
        server.prefix_cache = Some(crate::model::PrefixCacheHits {
            hit_rate: 0.8,
            queried_tokens: Some(3_000.0),
            source: "Δ vllm:prefix_cache_hits_total / Δ vllm:prefix_cache_queries_total".into(),
        });
        let notes = server_notes(&server);
        assert!(notes[0].contains("at draft position 1, 2, 3: 0.90, 0.80, 0.55"), "{}", notes[0]);
        assert_eq!(notes.len(), 3);
        assert!(notes[2].starts_with("Server-side latency over the run, from llama.cpp's /metrics at http://h:8080"));
        assert!(
            notes[2].contains("time to first token mean 50.0 ms over 60 request(s); queue time: no request counted; 2 request(s) preempted"),
            "{}",
            notes[2]
        );
        assert!(
            notes[2].contains(
                "prefix-cache hit rate 80.0% of 3000 prompt tokens looked up (Δ vllm:prefix_cache_hits_total"
            ),
            "{}",
            notes[2]
        );
        assert_eq!(server_notes(&metrics(SpecOutcome::NotCounted)).len(), 2, "no histograms, no third note");
    }

    #[test]
    fn a_restart_or_no_counters_is_said_not_hidden() {
        let restarted = server_notes(&metrics(SpecOutcome::Restarted { counter: "draft tokens".into() }));
        assert!(restarted[0].contains("restarted during the run (draft tokens went down"));
        assert!(server_notes(&metrics(SpecOutcome::NotCounted))[0].contains("keeps no counters"));
        let unfinished = server_notes(&metrics(SpecOutcome::Unfinished { reason: "/metrics answered 503".into() }));
        assert!(unfinished[0].contains("could not be read after the run (/metrics answered 503)"), "{}", unfinished[0]);
    }
}
