//! Two runs side by side — figures with deltas, overlaid CDFs of total time and TTFT, Welch's and Mann-Whitney's
//! p-values with the sample sizes, and warnings when the runs were not measured the same way — and the runs a
//! comparison can be made of.

use leptos::prelude::*;

use crate::charts::{cdf_overlay, CdfSeries};
use crate::fragments::render;
use crate::model::{RunId, RunStatus, RunView};
use crate::report::ms;
use crate::runs::report::{delta, Comparison, LatencyTests};
use crate::wire::ServerHtml;

/// The `<option>`s of a run picker: a prompt, then every finished run, `picked` selected.
pub fn run_choices(runs: &[RunView], picked: Option<RunId>) -> ServerHtml {
    let selected = picked.map(|id| id.to_string()).unwrap_or_default();
    let finished: Vec<&RunView> = runs.iter().filter(|r| r.status != RunStatus::Running).collect();
    render(view! {
        <option value="" selected=selected.is_empty()>"Choose a run…"</option>
        {finished.into_iter().map(|r| {
            let id = r.id.to_string();
            view! { <option value=id.clone() selected=id == selected>{format!("{} · {} · {}", r.title, r.model, crate::model::iso8601_utc(r.created_at_ms))}</option> }
        }).collect_view()}
    })
}

fn signed(v: f64, unit: &str) -> String {
    format!("{}{v:.1}{unit}", if v > 0.0 { "+" } else { "" })
}

/// One row: the figure on each side, the difference and its percentage of the baseline.
fn row(label: &str, a: Option<f64>, b: Option<f64>, unit: &str) -> impl IntoView {
    let show = |v: Option<f64>| {
        v.map_or_else(|| "—".to_string(), |v| if unit == " ms" { ms(v) } else { format!("{v:.2}{unit}") })
    };
    let (change, pct) = match (a, b) {
        (Some(a), Some(b)) => {
            let (d, p) = delta(a, b);
            (signed(d, unit), p.map_or_else(|| "—".to_string(), |p| signed(p, "%")))
        }
        _ => ("—".to_string(), "—".to_string()),
    };
    view! { <tr><th>{label.to_string()}</th><td>{show(a)}</td><td>{show(b)}</td><td class="delta">{change}</td><td class="delta">{pct}</td></tr> }
}

/// A row of counts: whole numbers on each side and as the difference.
fn count_row(label: &str, a: u64, b: u64) -> impl IntoView {
    let change = i128::from(b) - i128::from(a);
    let pct = delta(a as f64, b as f64).1.map_or_else(|| "—".to_string(), |p| signed(p, "%"));
    let change = if change > 0 { format!("+{change}") } else { change.to_string() };
    view! { <tr><th>{label.to_string()}</th><td>{a}</td><td>{b}</td><td class="delta">{change}</td><td class="delta">{pct}</td></tr> }
}

fn p_value(p: Option<f64>) -> String {
    match p {
        None => "not computable".into(),
        Some(p) if p < 1e-4 => format!("{p:.2e}"),
        Some(p) => crate::report::p_value(p),
    }
}

fn tests_row(label: &str, t: LatencyTests) -> impl IntoView {
    view! {
        <tr>
            <th>{label.to_string()}</th>
            <td>{format!("{} / {}", t.n_baseline, t.n_candidate)}</td>
            <td class="p-welch">{p_value(t.welch_p)}</td>
            <td class="p-mw">{p_value(t.mann_whitney_p)}</td>
        </tr>
    }
}

/// The comparison of two runs.
pub fn comparison(c: &Comparison) -> ServerHtml {
    render(view! { <ComparisonView c=c.clone()/> })
}

#[component]
fn ComparisonView(c: Comparison) -> impl IntoView {
    let (a, b) = (&c.baseline, &c.candidate);
    let pick = |s: &crate::runs::report::ReportStats, f: fn(&crate::stats::Percentiles) -> f64, ttft: bool| {
        if ttft {
            s.ttft.as_ref().map(f)
        } else {
            s.total.as_ref().map(f)
        }
    };
    let cdf = |points: &[Vec<(f64, f64)>; 2], unit: &str| {
        cdf_overlay(
            &[
                CdfSeries { label: format!("baseline: {}", a.title), class: "baseline", points: points[0].clone() },
                CdfSeries { label: format!("candidate: {}", b.title), class: "candidate", points: points[1].clone() },
            ],
            unit,
        )
    };
    view! {
        {(!c.warnings.is_empty()).then(|| view! {
            <section class="honesty warnings" id="compare-warnings">
                <h3>"These runs were not measured the same way"</h3>
                <ul>{c.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}</ul>
            </section>
        })}
        <table class="table compare" id="compare-figures">
            <thead><tr><th></th><th>{format!("Baseline: {}", a.title)}</th><th>{format!("Candidate: {}", b.title)}</th><th>"Change"</th><th>"Change %"</th></tr></thead>
            <tbody>
                {row("Output throughput (tok/s)", a.stats.output_tok_per_sec, b.stats.output_tok_per_sec, "")}
                {row("Requests/s", a.stats.requests_per_sec, b.stats.requests_per_sec, "")}
                {row("TTFT p50", pick(&a.stats, |p| p.p50, true), pick(&b.stats, |p| p.p50, true), " ms")}
                {row("TTFT p95", pick(&a.stats, |p| p.p95, true), pick(&b.stats, |p| p.p95, true), " ms")}
                {row("TTFT p99", pick(&a.stats, |p| p.p99, true), pick(&b.stats, |p| p.p99, true), " ms")}
                {row("Total p50", pick(&a.stats, |p| p.p50, false), pick(&b.stats, |p| p.p50, false), " ms")}
                {row("Total p95", pick(&a.stats, |p| p.p95, false), pick(&b.stats, |p| p.p95, false), " ms")}
                {row("Total p99", pick(&a.stats, |p| p.p99, false), pick(&b.stats, |p| p.p99, false), " ms")}
                {row("TPOT p50", a.stats.tpot.map(|p| p.p50), b.stats.tpot.map(|p| p.p50), " ms")}
                {row("TPOT p95", a.stats.tpot.map(|p| p.p95), b.stats.tpot.map(|p| p.p95), " ms")}
                {row("ITL p50", a.stats.itl.map(|p| p.p50), b.stats.itl.map(|p| p.p50), " ms")}
                {row("ITL p99", a.stats.itl.map(|p| p.p99), b.stats.itl.map(|p| p.p99), " ms")}
                {row("One request's output speed (tok/s)", a.stats.tok_per_sec, b.stats.tok_per_sec, "")}
                {row("Error rate", Some(a.summary.error_rate * 100.0), Some(b.summary.error_rate * 100.0), " pp")}
                {(a.stats.goodput.is_some() || b.stats.goodput.is_some()).then(|| {
                    let good = |s: &crate::runs::report::ReportStats| s.goodput.as_ref().map(|g| g.good_fraction * 100.0);
                    let rate = |s: &crate::runs::report::ReportStats| s.goodput.as_ref().and_then(|g| g.good_requests_per_sec);
                    view! {
                        {row("Good requests", good(&a.stats), good(&b.stats), " pp")}
                        {row("Goodput (good req/s)", rate(&a.stats), rate(&b.stats), "")}
                    }
                })}
                {row("Total cost (USD)", a.summary.total_cost_usd, b.summary.total_cost_usd, "")}
                {count_row("Sample size", a.summary.measured, b.summary.measured)}
            </tbody>
        </table>
        <h3>"Is the difference more than noise?"</h3>
        <table class="table" id="compare-tests">
            <thead><tr><th>"Latency"</th><th>"n (baseline / candidate)"</th><th>"Welch's t-test p"</th><th>"Mann-Whitney U p"</th></tr></thead>
            <tbody>{tests_row("Total time", c.total)}{tests_row("TTFT", c.ttft)}</tbody>
        </table>
        <p class="muted">"Two-sided tests over successful, measured iterations (warm-ups and failures left out). Welch's \
            t-test compares means without assuming equal variances (t distribution with Welch–Satterthwaite degrees of \
            freedom); Mann-Whitney U compares whole distributions by rank (normal approximation with continuity and \
            tie corrections). A small p (say below 0.05) says the difference is unlikely to be noise alone; it does not \
            say the difference matters. Both treat a run's requests as independent, which they are not quite: requests of \
            one run share its conditions (the endpoint's load, caches, the network), so two runs of one endpoint can differ \
            by more than these tests expect. To tell a real change from run-to-run variation, repeat each run (Sweeps → \
            one level, repeated; or bench --repeat) and compare the repetitions on the repeated run's page, where each \
            repetition is one observation. Goodput rows compare each run against its own \
            objectives."</p>
        <h3>"Total time, cumulative"</h3>
        <div class="chart-box" id="cdf-total" inner_html=cdf(&c.total_cdf, "total ms")></div>
        <h3>"TTFT, cumulative"</h3>
        <div class="chart-box" id="cdf-ttft" inner_html=cdf(&c.ttft_cdf, "TTFT ms")></div>
    }
}
