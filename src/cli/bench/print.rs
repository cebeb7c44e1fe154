//! What `bench` prints on stdout: the summary, goodput and objectives, and the figures over repetitions.

use crate::model::{CheckOutcome, RunValidity, RunView};
use crate::stats::RunSummary;

/// The verdict on the run's figures, first: every check, and for a failed one what to change.
pub(super) fn print_validity(validity: &RunValidity) {
    println!("{:<14} {}", "validity", validity.headline().to_uppercase());
    for check in &validity.checks {
        let mark = match check.outcome {
            CheckOutcome::Failed => "FAILED",
            CheckOutcome::Passed => "ok",
            CheckOutcome::NotChecked => "not checked",
        };
        println!("  {:<13} {mark}: {}", check.check.as_str(), check.says);
        if let Some(change) = &check.change {
            println!("  {:<13} change: {change}", "");
        }
    }
}

pub(super) fn print_repetition(i: u32, s: &RunSummary, validity: Option<&RunValidity>) {
    let p50 = |p: Option<crate::stats::Percentiles>| p.map_or_else(|| "—".to_string(), |p| format!("{:.1}", p.p50));
    println!(
        "repetition {i:<3} {} measured, TTFT p50 {} ms, total p50 {} ms, {} output tok/s (throughput), {:.2}% failed, {}",
        s.measured,
        p50(s.ttft),
        p50(s.total),
        s.output_tok_per_sec.map_or_else(|| "—".to_string(), |t| format!("{t:.1}")),
        s.error_rate * 100.0,
        validity.map_or_else(|| "no verdict".to_string(), RunValidity::headline)
    );
}

/// The figures over the repetitions: mean, 95 % interval, CV and each repetition's value; then the notes.
pub(super) fn print_repeated(report: &crate::capacity::report::RepeatedReport) {
    println!("{:<16} {:>10} {:>23} {:>7}   values", "over repetitions", "mean", "95% interval", "CV");
    for (name, f) in &report.figures {
        let interval = match (f.ci_low, f.ci_high) {
            (Some(low), Some(high)) => format!("{low:.2} to {high:.2}"),
            _ => "—".to_string(),
        };
        let cv = f.cv.map_or_else(|| "—".to_string(), |cv| format!("{:.1}%", cv * 100.0));
        let values: Vec<String> = f.values.iter().map(|v| format!("{v:.2}")).collect();
        println!("{name:<16} {:>10.2} {interval:>23} {cv:>7}   {}", f.mean, values.join(", "));
    }
    for note in &report.notes {
        println!("note: {note}");
    }
}

/// Prints goodput and each objective's outcome; the objectives missed.
pub(super) fn print_goodput(g: &crate::stats::Goodput) -> Vec<String> {
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"));
    println!(
        "{:<14} {}/s good of {}/s ({:.1}% good), good output tok/s {}",
        "goodput",
        rate(g.good_requests_per_sec),
        rate(g.requests_per_sec),
        g.good_fraction * 100.0,
        rate(g.good_output_tokens_per_sec)
    );
    for o in &g.objectives {
        let detail = match (o.measured_ms, o.met_fraction) {
            (Some(v), _) => format!("{v:.1} ms"),
            (_, Some(f)) => format!("met by {:.1}% of requests", f * 100.0),
            _ => "not measurable".into(),
        };
        println!("{:<14} {} {} ({detail})", "objective", o.slo.spelled(), if o.met { "met" } else { "MISSED" });
    }
    missed_objectives(g)
}

/// The objectives a run missed, as written.
pub(super) fn missed_objectives(g: &crate::stats::Goodput) -> Vec<String> {
    g.objectives.iter().filter(|o| !o.met).map(|o| o.slo.spelled()).collect()
}

/// The workload's lengths asked beside what the server did, and its cache.
pub(super) fn print_workload(w: &crate::runs::report::WorkloadReport) {
    let n = crate::model::trim_number;
    let counts = |c: Option<crate::runs::report::CountSummary>| {
        c.map_or_else(|| "—".to_string(), |c| format!("median {}, {}–{}", n(c.p50), n(c.min), n(c.max)))
    };
    println!("{:<14} {}", "workload", w.spec.describe());
    if let Some(tokenizer) = &w.tokenizer {
        println!("{:<14} {}", "tokenizer", tokenizer.describe());
    }
    match w.asked_input {
        Some(asked) => println!(
            "{:<14} asked {}; made exactly {} of {}; server counted {} more",
            "prompt tokens",
            counts(Some(asked)),
            w.made_as_asked,
            asked.n,
            counts(w.input_deviation)
        ),
        // A dataset's prompts are sent as written: the server's count is all there is.
        None => println!("{:<14} server counted {}", "prompt tokens", counts(w.served_input)),
    }
    println!(
        "{:<14} asked {}; achieved {}; {} ended early",
        "answer tokens",
        counts(w.asked_output),
        counts(w.achieved_output),
        w.ended_early
    );
    println!("{:<14} {}", "cached tokens", counts(w.cached_tokens));
    if let Some(c) = w.conversations {
        println!("{:<14} {} started, {} sent every turn", "conversations", c.started, c.completed);
    }
    if !w.by_turn.is_empty() {
        let ms = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.1}"));
        println!(
            "{:>5} {:>8} {:>7} {:>11} {:>11} {:>11} {:>14} {:>14}",
            "turn", "requests", "failed", "TTFT p50", "TTFT p95", "TPOT p50", "prompt tokens", "cached tokens"
        );
        for t in &w.by_turn {
            println!(
                "{:>5} {:>8} {:>7} {:>11} {:>11} {:>11} {:>14} {:>14}",
                t.turn,
                t.requests,
                t.failed,
                ms(t.ttft_p50_ms),
                ms(t.ttft_p95_ms),
                ms(t.tpot_p50_ms),
                ms(t.prompt_tokens_mean),
                ms(t.cached_tokens_mean)
            );
        }
        println!("(by turn: ms, and the server's mean prompt and cached tokens)");
    }
}

pub(super) fn print_summary(run: &RunView, s: &RunSummary, results: &[crate::model::IterationRecord]) {
    let row = |name: &str, p: Option<crate::stats::Percentiles>| match p {
        Some(p) => println!("{name:<14} p50 {:>9.1}   p95 {:>9.1}   p99 {:>9.1}", p.p50, p.p95, p.p99),
        None => println!("{name:<14} not measurable"),
    };
    println!("{} ({} at {})", run.title, run.model, run.base_url);
    println!("{:<14} {} measured ({} ok, {} failed)", "requests", s.measured, s.succeeded, s.measured - s.succeeded);
    // The system's throughput first: what every benchmark calls output throughput.
    match (s.output_tok_per_sec, s.requests_per_sec, s.span_s) {
        (Some(t), Some(r), Some(span)) => {
            println!("{:<14} {t:.1} output tok/s, {r:.2} requests/s over {span:.1} s", "throughput");
        }
        _ => println!("{:<14} not measurable (no send times)", "throughput"),
    }
    row("TTFT ms", s.ttft);
    // Only an endpoint that says when it had the request and sent its first output (the simulator) gives this.
    if let Some((said, added)) = crate::runs::report::client_added_ms(results) {
        println!(
            "{:<14} p50 {:>9.3}   p95 {:>9.3}   p99 {:>9.3}   ms to the endpoint's own first output, over the {said} \
             replies that said it",
            "client added", added.p50, added.p95, added.p99
        );
    }
    row("total ms", s.total);
    row("TPOT ms", s.tpot);
    row("ITL ms", s.itl);
    match s.tok_per_sec {
        Some(t) => println!("{:<14} {t:.1} tok/s (one request's: Σ tokens / Σ request time)", "per request"),
        None => println!("{:<14} not measurable", "per request"),
    }
    println!("{:<14} {:.2}%", "error rate", s.error_rate * 100.0);
    println!("percentiles: {}", crate::stats::PERCENTILE_METHOD);
}
