//! What differs between what answered a run and what answered its baseline, as a pure function: the differences
//! an alert names beside its figures, so that a slowdown comes with its likely cause ("system_fingerprint b100 →
//! b200", "prefix-cache hit rate 61 % → 4 %", "the server's queue time +180 ms", "prompt marks off → on"). A difference is
//! named only when it is larger than run-to-run noise would make it.

use crate::guard::model::{AlertContext, Answered, Change, SlowRequest};
use crate::model::{IterationRecord, RunValidity, RunView, Seen, SeenValues, ServerMetrics, SpecOutcome};
use crate::runs::report::cached_share;

/// A share (cache, hit rate, acceptance) moved by at least this much, absolute (0–1), to be named.
pub const SHARE_MOVE: f64 = 0.1;
/// The server's mean queueing moved by at least this many ms, and by [`QUEUE_MOVE_RATIO`] of the baseline's.
pub const QUEUE_MOVE_MS: f64 = 20.0;
/// …and by at least this share of the baseline's queueing.
pub const QUEUE_MOVE_RATIO: f64 = 0.25;
/// The server's mean running or waiting requests moved by at least this many requests, and by
/// [`LOAD_MOVE_RATIO`] of the baseline's: a request more or less at times is how a run's own arrivals fall.
pub const LOAD_MOVE: f64 = 1.0;
/// …and by at least this share of the baseline's.
pub const LOAD_MOVE_RATIO: f64 = 0.5;

/// The differences between `run` and `baseline`, in the order an alert names them: what answered (the replies'
/// own word, then the engine's version as its server says it, then its draft length), then the marks, the cache,
/// the queue, the server's load and speculative decoding.
pub fn changes(baseline: &Answered, run: &Answered) -> Vec<Change> {
    let mut found = Vec::new();
    if let (Some(a), Some(b)) = (&baseline.fingerprint, &run.fingerprint) {
        for (field, from, to) in [
            ("model", &a.models, &b.models),
            ("system_fingerprint", &a.system_fingerprints, &b.system_fingerprints),
            ("Server header", &a.servers, &b.servers),
        ] {
            if let (Some(from), Some(to)) = (most_said(from), most_said(to)) {
                if from != to {
                    found.push(Change::Answered { field: field.into(), from: from.into(), to: to.into() });
                }
            }
        }
    }
    if let (Some(from), Some(to)) = (&baseline.engine, &run.engine) {
        if from != to {
            found.push(Change::Answered { field: "engine".into(), from: from.clone(), to: to.clone() });
        }
    }
    if let (Some(from), Some(to)) = (baseline.draft_length, run.draft_length) {
        if from != to {
            let field = "speculative tokens per step".into();
            found.push(Change::Answered { field, from: from.to_string(), to: to.to_string() });
        }
    }
    if baseline.prompt_heads != run.prompt_heads {
        found.push(Change::PromptMarks { from: baseline.prompt_heads, to: run.prompt_heads });
    }
    for (name, from, to) in [
        ("cached prompt share", baseline.cached_share, run.cached_share),
        ("prefix-cache hit rate", baseline.prefix_hit_rate, run.prefix_hit_rate),
        ("KV-cache use at its peak", baseline.kv_cache_peak, run.kv_cache_peak),
    ] {
        found.extend(share_move(name, from, to));
    }
    if let (Some(from_ms), Some(to_ms)) = (baseline.queue_mean_ms, run.queue_mean_ms) {
        let moved = (to_ms - from_ms).abs();
        if moved >= QUEUE_MOVE_MS && moved >= QUEUE_MOVE_RATIO * from_ms {
            found.push(Change::QueueTime { from_ms, to_ms });
        }
    }
    for (name, from, to) in [
        ("requests running", baseline.running_mean, run.running_mean),
        ("requests waiting", baseline.waiting_mean, run.waiting_mean),
    ] {
        found.extend(load_move(name, from, to));
    }
    found.extend(share_move("acceptance rate", baseline.acceptance_rate, run.acceptance_rate));
    found
}

/// The slowest requests an alert lists.
pub const SLOWEST_LISTED: usize = 3;

/// What an alert about a breaching run says of why: what differs from its baseline's `baseline`, the run's verdict,
/// and its slowest successful requests (`records`, warm-ups aside).
pub fn alert_context(
    baseline: &Answered,
    run: &Answered,
    validity: &RunValidity,
    records: &[IterationRecord],
) -> AlertContext {
    let slowest = crate::stats::slowest(records, SLOWEST_LISTED)
        .into_iter()
        .map(|r| SlowRequest { seq: r.seq, total_ms: r.total_ms, ttft_ms: r.ttft_ms })
        .collect();
    AlertContext { changes: changes(baseline, run), verdict: validity.verdict, validity: validity.headline(), slowest }
}

/// What answered `run` (whose iterations are `records`, and whose server's own metrics are `server` when they
/// were recorded).
pub fn answered_of(run: &RunView, records: &[IterationRecord], server: Option<&ServerMetrics>) -> Answered {
    let queue = server.and_then(|s| s.latencies.iter().find(|l| l.label == "queue time"));
    let samples = server.map_or(&[][..], |s| &s.samples[..]);
    let window = server.and_then(|s| match &s.spec {
        SpecOutcome::Window(window) => Some(window),
        SpecOutcome::Restarted { .. } | SpecOutcome::NotCounted | SpecOutcome::Unfinished { .. } => None,
    });
    Answered {
        fingerprint: run.fingerprint.clone(),
        engine: server.and_then(|s| s.version.as_ref().map(|v| format!("{} {v}", s.kind.label()))),
        cached_share: cached_share(records),
        prefix_hit_rate: server.and_then(|s| s.prefix_cache.as_ref()).map(|c| c.hit_rate),
        queue_mean_ms: queue.and_then(|l| l.mean_ms),
        acceptance_rate: window.and_then(|w| w.acceptance_rate),
        draft_length: window.and_then(|w| w.per_position.iter().map(|&(position, _)| position + 1).max()),
        kv_cache_peak: samples.iter().filter_map(|s| s.kv_cache).reduce(f64::max),
        running_mean: mean_of(samples.iter().map(|s| s.running)),
        waiting_mean: mean_of(samples.iter().map(|s| s.waiting)),
        prompt_heads: run.plan.prompt_heads,
    }
}

/// The value most replies said (the first seen among equals).
fn most_said(seen: &SeenValues) -> Option<&str> {
    let mut best: Option<&Seen> = None;
    for s in &seen.values {
        if best.is_none_or(|b| s.replies > b.replies) {
            best = Some(s);
        }
    }
    best.map(|s| s.value.as_str())
}

fn load_move(name: &str, from: Option<f64>, to: Option<f64>) -> Option<Change> {
    let (from, to) = (from?, to?);
    let moved = (to - from).abs();
    (moved >= LOAD_MOVE && moved >= LOAD_MOVE_RATIO * from).then(|| Change::Load { name: name.into(), from, to })
}

/// The mean of the readings that said a value.
fn mean_of(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let said: Vec<f64> = values.flatten().collect();
    (!said.is_empty()).then(|| said.iter().sum::<f64>() / said.len() as f64)
}

fn share_move(name: &str, from: Option<f64>, to: Option<f64>) -> Option<Change> {
    let (from, to) = (from?, to?);
    ((to - from).abs() >= SHARE_MOVE).then(|| Change::Share { name: name.into(), from, to })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AnsweredBy, Fingerprint, PromptHeads};

    fn answered(fingerprint: &str, server: &str, cached: f64) -> Answered {
        let mut f = Fingerprint::default();
        for _ in 0..10 {
            f.add(&AnsweredBy {
                model: Some("tiny".into()),
                system_fingerprint: Some(fingerprint.into()),
                server: Some(server.into()),
            });
        }
        Answered {
            fingerprint: Some(f.sorted()),
            engine: None,
            cached_share: Some(cached),
            prefix_hit_rate: None,
            queue_mean_ms: None,
            prompt_heads: PromptHeads::Unique,
            ..Answered::default()
        }
    }

    #[test]
    fn the_table_of_changes() {
        let base = answered("b100", "llama.cpp", 0.61);
        let with = |f: fn(&mut Answered)| {
            let mut a = base.clone();
            f(&mut a);
            a
        };
        type Case = (&'static str, Answered, Vec<&'static str>);
        let cases: Vec<Case> = vec![
            ("the same", base.clone(), vec![]),
            (
                "a new build and a cold cache",
                answered("b200", "llama.cpp", 0.04),
                vec!["system_fingerprint b100 → b200", "cached prompt share 61 % → 4 %"],
            ),
            ("a cache a little colder is noise", answered("b100", "llama.cpp", 0.55), vec![]),
            ("another engine", answered("b100", "vllm/0.10.0", 0.61), vec!["Server header llama.cpp → vllm/0.10.0"]),
            ("marks turned on", with(|a| a.prompt_heads = PromptHeads::Off), vec!["prompt marks on → off"]),
            (
                "an engine version said on one side only says nothing of it",
                with(|a| a.engine = Some("vLLM 0.10.0".into())),
                vec![],
            ),
            ("no fingerprint on one side says nothing of it", with(|a| a.fingerprint = None), vec![]),
        ];
        for (name, run, expected) in cases {
            let named: Vec<String> = changes(&base, &run).iter().map(Change::describe).collect();
            assert_eq!(named, expected, "{name}");
        }
        let on = |version: &str| Answered { engine: Some(format!("vLLM {version}")), ..base.clone() };
        let upgraded: Vec<String> = changes(&on("0.9.2"), &on("0.10.0")).iter().map(Change::describe).collect();
        assert_eq!(upgraded, ["engine vLLM 0.9.2 → vLLM 0.10.0"], "the engine's version, as its server says it");
    }

    #[test]
    fn the_servers_own_queue_and_acceptance_are_named_when_they_move_beyond_noise() {
        let metrics = |queue: f64, acceptance: f64| Answered {
            queue_mean_ms: Some(queue),
            acceptance_rate: Some(acceptance),
            prefix_hit_rate: Some(0.5),
            ..Answered::default()
        };
        let named = |a: Answered, b: Answered| changes(&a, &b).iter().map(Change::describe).collect::<Vec<_>>();
        assert_eq!(
            named(metrics(40.0, 0.71), metrics(220.0, 0.42)),
            ["the server's queue time +180 ms (40 → 220 ms, mean)", "acceptance rate 71 % → 42 %"]
        );
        // 15 ms more, or 10 % more of a long queue, is noise.
        assert!(named(metrics(40.0, 0.71), metrics(55.0, 0.70)).is_empty());
        assert!(named(metrics(400.0, 0.71), metrics(440.0, 0.71)).is_empty());
    }

    #[test]
    fn the_servers_load_kv_cache_and_draft_length_are_named_when_they_move_beyond_noise() {
        let load = |running: f64, waiting: f64, kv: f64, draft: u32| Answered {
            running_mean: Some(running),
            waiting_mean: Some(waiting),
            kv_cache_peak: Some(kv),
            draft_length: Some(draft),
            ..Answered::default()
        };
        let named = |a: Answered, b: Answered| changes(&a, &b).iter().map(Change::describe).collect::<Vec<_>>();
        // (baseline, run, named)
        let table: [(Answered, Answered, Vec<&str>); 5] = [
            (load(4.0, 0.0, 0.30, 3), load(4.2, 0.4, 0.33, 3), vec![]),
            (
                load(4.0, 0.0, 0.30, 3),
                load(9.5, 6.0, 0.30, 3),
                vec![
                    "requests running in the server 4.0 → 9.5 (mean)",
                    "requests waiting in the server 0.0 → 6.0 (mean)",
                ],
            ),
            // A request more on a busy server is how arrivals fall: half the baseline's is the least named.
            (load(20.0, 8.0, 0.30, 3), load(22.0, 11.0, 0.30, 3), vec![]),
            (load(4.0, 0.0, 0.30, 3), load(4.0, 0.0, 0.92, 3), vec!["KV-cache use at its peak 30 % → 92 %"]),
            (load(4.0, 0.0, 0.30, 3), load(4.0, 0.0, 0.30, 5), vec!["speculative tokens per step 3 → 5"]),
        ];
        for (baseline, run, expected) in table {
            assert_eq!(named(baseline.clone(), run.clone()), expected, "{baseline:?} → {run:?}");
        }
    }

    #[test]
    fn an_alerts_context_lists_the_slowest_measured_requests_and_the_verdict() {
        use crate::model::fixtures::iteration_record;
        use crate::model::{CheckKind, CheckOutcome, ValidityCheck};
        let mut records: Vec<IterationRecord> = [40.0, 900.0, 55.0, 700.0, 800.0]
            .iter()
            .enumerate()
            .map(|(i, &t)| iteration_record(i as u64, None, t, false))
            .collect();
        records[1].warmup = true;
        records.push(IterationRecord { error: Some("503".into()), ..iteration_record(5, None, 5_000.0, false) });
        let failed = ValidityCheck {
            check: CheckKind::ClientTiming,
            outcome: CheckOutcome::Failed,
            says: "late".into(),
            change: Some("fewer".into()),
        };
        let context = alert_context(
            &answered("b100", "sim", 0.8),
            &answered("b200", "sim", 0.0),
            &RunValidity::of(vec![failed]),
            &records,
        );
        let seqs: Vec<u64> = context.slowest.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [4, 3, 2], "the warm-up and the failure are not what the figures measured");
        assert_eq!(context.slowest_line().unwrap(), "Slowest requests: #4 800 ms, #3 700 ms, #2 55 ms");
        assert_eq!(
            context.changed_line(),
            "What changed: system_fingerprint b100 → b200; cached prompt share 80 % → 0 %"
        );
        assert!(
            context.validity_line().starts_with("The run: invalid: client timing — "),
            "{}",
            context.validity_line()
        );
        let calm =
            alert_context(&answered("b100", "sim", 0.8), &answered("b100", "sim", 0.8), &RunValidity::of(vec![]), &[]);
        assert!(calm.changed_line().starts_with("What changed: nothing Guard reads"), "{}", calm.changed_line());
        assert_eq!((calm.validity_line().as_str(), calm.slowest_line()), ("The run: valid (0 checks passed)", None));
    }

    #[test]
    fn the_value_most_replies_said_is_compared() {
        let mut mixed = Fingerprint::default();
        for (fp, n) in [("b100", 3), ("b200", 7)] {
            for _ in 0..n {
                mixed.add(&AnsweredBy { system_fingerprint: Some(fp.into()), ..AnsweredBy::default() });
            }
        }
        assert_eq!(most_said(&mixed.system_fingerprints), Some("b200"));
        assert_eq!(most_said(&Fingerprint::default().models), None);
    }

    #[test]
    fn what_answered_a_run_is_read_from_its_replies_records_and_server() {
        use crate::model::fixtures::{completed_run, iteration_record, plan_input};
        use crate::model::{PrefixCacheHits, ServerKind, ServerLatency, ServerSample, SpecWindow};
        let mut run = completed_run(plan_input(&["p"], 64, 1), "tiny");
        run.fingerprint = Some(answered("b100", "llama.cpp", 0.0).fingerprint.unwrap());
        let records: Vec<IterationRecord> = (0..4)
            .map(|i| IterationRecord {
                tokens_in: Some(100),
                cached_tokens: Some(25),
                ..iteration_record(i, Some(10.0), 50.0, false)
            })
            .collect();
        let server = ServerMetrics {
            kind: ServerKind::Vllm,
            root: "http://gpu:8000".into(),
            scrapes: 3,
            failed_scrapes: 0,
            // Readings of its load: a waiting count one of them did not say.
            samples: [(2.0, Some(1.0), 0.2), (4.0, None, 0.6), (6.0, Some(3.0), 0.4)]
                .into_iter()
                .map(|(running, waiting, kv)| ServerSample {
                    at_ms: 0,
                    running: Some(running),
                    waiting,
                    kv_cache: Some(kv),
                })
                .collect(),
            spec: SpecOutcome::Window(SpecWindow {
                drafts: Some(10.0),
                draft_tokens: 30.0,
                accepted_tokens: 21.0,
                acceptance_rate: Some(0.7),
                mean_acceptance_length: Some(3.1),
                per_position: vec![(0, 0.9), (1, 0.7), (2, 0.5)],
            }),
            latencies: vec![ServerLatency {
                label: "queue time".into(),
                series: "vllm:request_queue_time_seconds".into(),
                requests: 4.0,
                mean_ms: Some(42.0),
            }],
            preemptions: None,
            prefix_cache: Some(PrefixCacheHits { hit_rate: 0.61, queried_tokens: Some(400.0), source: "Δ".into() }),
            version: Some("0.10.0".into()),
        };
        let a = answered_of(&run, &records, Some(&server));
        assert_eq!(
            (a.cached_share, a.prefix_hit_rate, a.queue_mean_ms, a.acceptance_rate),
            (Some(0.25), Some(0.61), Some(42.0), Some(0.7))
        );
        assert_eq!((a.running_mean, a.waiting_mean), (Some(4.0), Some(2.0)), "over the readings that said one");
        assert_eq!((a.kv_cache_peak, a.draft_length), (Some(0.6), Some(3)), "three positions counted: three drafted");
        assert_eq!(a.engine.as_deref(), Some("vLLM 0.10.0"));
        assert_eq!(a.fingerprint, run.fingerprint);
        let unread = answered_of(&run, &records, None);
        assert_eq!(
            (unread.prefix_hit_rate, unread.running_mean, unread.kv_cache_peak, unread.draft_length),
            (None, None, None, None)
        );
    }
}
