//! A run's server section: what the server's own metrics said during the run, attached to the snapshot, and the
//! honesty notes that say where each figure came from and what could spoil it.

use super::ReportSnapshot;
use crate::model::{ServerMetrics, SpecOutcome};

/// The first words of the speculative-decoding note, which a recorded server replaces.
const SPEC_NOTE: &str = "Speculative decoding:";

/// `snapshot` with what its run recorded of the server, and notes that say so.
pub fn with_server(mut snapshot: ReportSnapshot, server: Option<ServerMetrics>) -> ReportSnapshot {
    let Some(server) = server else { return snapshot };
    let notes = server_notes(&server);
    match snapshot.honesty.iter().position(|n| n.starts_with(SPEC_NOTE)) {
        Some(at) => {
            snapshot.honesty.splice(at..=at, notes);
        }
        None => snapshot.honesty.extend(notes),
    }
    snapshot.server = Some(server);
    snapshot
}

/// What the recorded metrics say, and how they were read.
pub fn server_notes(server: &ServerMetrics) -> Vec<String> {
    let source = format!("{}'s /metrics at {}", server.kind.label(), server.root);
    let spec = match &server.spec {
        SpecOutcome::Window(w) => match (w.acceptance_rate, w.mean_acceptance_length) {
            (Some(rate), length) => format!(
                "{SPEC_NOTE} from the server's own counters ({source}, read when the run started and when it ended): \
                 {} tokens drafted, {} accepted ({:.1} %){}. The counters are the whole server's: other traffic \
                 during the run is counted too.",
                w.draft_tokens,
                w.accepted_tokens,
                rate * 100.0,
                length.map_or(String::new(), |l| format!(
                    ", mean acceptance length {l:.2} (1 + accepted / verify steps, the bonus token included)"
                ))
            ),
            (None, _) => format!(
                "{SPEC_NOTE} the server ({source}) drafted no tokens during the run: it is off, or had nothing to \
                 draft."
            ),
        },
        SpecOutcome::Restarted { counter } => format!(
            "{SPEC_NOTE} the server restarted during the run ({counter} went down in {source}), so its counters give \
             no figures for it."
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
    vec![spec, load]
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

    #[test]
    fn a_restart_or_no_counters_is_said_not_hidden() {
        let restarted = server_notes(&metrics(SpecOutcome::Restarted { counter: "draft tokens".into() }));
        assert!(restarted[0].contains("restarted during the run (draft tokens went down"));
        assert!(server_notes(&metrics(SpecOutcome::NotCounted))[0].contains("keeps no counters"));
    }
}
