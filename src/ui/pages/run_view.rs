//! `/runs/:id`: live progress and scatter while the run goes, then the report: stat cards, honesty notes and
//! the per-iteration table.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::runs::{cancel_run, get_run_report, RunReport};
use crate::charts::{latency_scatter, ScatterPoint};
use crate::model::{IterationRecord, LivePoint, RunId, RunProgress, RunStatus, TokenSource};
use crate::report::{ms, percentile_triple, total_cost};
use crate::ui::components::{ErrorBox, ExportButtons, Layout};
use crate::ui::hooks::use_run_events;

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<RunId>().ok()));
    view! {
        <Layout title="Run">
            {move || match id() {
                Some(id) => view! { <RunDetail id/> }.into_any(),
                None => view! { <ErrorBox message="No such run.".to_string()/> }.into_any(),
            }}
        </Layout>
    }
}

fn duration(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

#[component]
fn RunDetail(id: RunId) -> impl IntoView {
    let (live, points) = use_run_events(id);
    let over = Memo::new(move |_| live.get().is_some_and(|p| p.status != RunStatus::Running));
    let report = Resource::new(move || over.get(), move |_| get_run_report(id));
    let cancel = Action::new(move |_: &()| cancel_run(id));
    view! {
        <Suspense fallback=|| view! { <p>"Loading run…"</p> }>
            {move || Suspend::new(async move {
                match report.await {
                    Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    Ok(report) => {
                        let stored = report.snapshot.results.iter().map(scatter_point).collect::<Vec<_>>();
                        let running = report.run.status == RunStatus::Running;
                        view! {
                            <RunHeader report=report.clone()/>
                            {(!running).then(|| view! { <ExportButtons snapshot=report.snapshot.clone()/> })}
                            <ProgressPanel live fallback=report.clone() cancel running/>
                            <div class="chart-box" inner_html=move || {
                                let live_points = points.get();
                                if live_points.is_empty() { latency_scatter(&stored) } else { latency_scatter(&live_points.iter().map(live_point).collect::<Vec<_>>()) }
                            }></div>
                            <StatCards report=report.clone()/>
                            <HonestyNotes notes=report.snapshot.honesty.clone()/>
                            <ResultsTable results=report.snapshot.results/>
                        }
                        .into_any()
                    }
                }
            })}
        </Suspense>
    }
}

fn scatter_point(r: &IterationRecord) -> ScatterPoint {
    ScatterPoint { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some() }
}

fn live_point(p: &LivePoint) -> ScatterPoint {
    ScatterPoint { seq: p.seq, ttft_ms: p.ttft_ms, total_ms: p.total_ms, error: p.error }
}

#[component]
fn RunHeader(report: RunReport) -> impl IntoView {
    let run = report.run;
    let mode = match run.plan.mode {
        crate::model::LoadMode::Closed { concurrency } => format!("closed loop × {concurrency}"),
        crate::model::LoadMode::Open { rate_per_second, poisson, max_concurrency } => {
            format!(
                "open loop {rate_per_second}/s{} (≤ {max_concurrency} in flight)",
                if poisson { " Poisson" } else { "" }
            )
        }
    };
    let plan = &run.plan;
    let settings = format!(
        "temperature {} · timeout {} s per request · {} · {} warm-up request(s), excluded from stats · {}",
        plan.temperature,
        plan.timeout_ms as f64 / 1e3,
        match plan.retries {
            0 => "no retries (a 429 is a failure)".to_string(),
            n => format!("up to {n} retries after HTTP 429"),
        },
        plan.warmup,
        match plan.agent.tools.len() {
            0 => "no tools".to_string(),
            n => format!("{n} tool(s) sent"),
        },
    );
    view! {
        <section class="run-header">
            <h2 id="run-title">{run.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{run.base_url.clone()}</span> " · " <span class="mono">{run.model.clone()}</span>
                " · agent " {run.plan.agent.name.clone()} " · " {run.plan.prompts.len()} " prompt(s) × " {run.plan.iterations}
                " · " {mode} " · max_tokens " {run.plan.agent.token_budget} " · " {if run.plan.stream { "streamed" } else { "not streamed" }}
                " · started " {report.snapshot.report.created_at.clone()}
            </p>
            <p class="muted" id="run-settings">{settings}</p>
        </section>
    }
}

#[component]
fn ProgressPanel(
    live: ReadSignal<Option<RunProgress>>,
    fallback: RunReport,
    cancel: Action<(), Result<bool, crate::error::AppError>>,
    running: bool,
) -> impl IntoView {
    let stored = RunProgress::new(
        fallback.run.status,
        fallback.run.total_requests,
        fallback.snapshot.results.len() as u64,
        fallback.snapshot.results.iter().filter(|r| r.error.is_some()).count() as u64,
        fallback.run.finished_at_ms.map_or(0, |end| u64::try_from(end - fallback.run.created_at_ms).unwrap_or(0)),
    );
    let progress = Memo::new(move |_| live.get().unwrap_or_else(|| stored.clone()));
    view! {
        <section id="run-progress" class="progress-panel">
            <progress max=move || progress.get().total.max(1) value=move || progress.get().done></progress>
            <div class="progress-text">
                <strong class="progress-count">{move || format!("{} / {} done", progress.get().done, progress.get().total)}</strong>
                " · " <span class="status">{move || progress.get().status.as_str()}</span>
                " · " {move || format!("{} failed", progress.get().errors)}
                " · elapsed " {move || duration(progress.get().elapsed_ms)}
                {move || progress.get().eta_ms.map(|eta| format!(" · about {} left", duration(eta)))}
            </div>
            <Show when=move || running && progress.get().status == RunStatus::Running>
                <button type="button" id="cancel-run" class="danger" on:click=move |_| { cancel.dispatch(()); }>"Cancel run"</button>
            </Show>
        </section>
    }
}

#[component]
fn StatCards(report: RunReport) -> impl IntoView {
    let s = report.summary;
    let cost = total_cost(s.total_cost_usd);
    let cards = [
        (
            "ttft",
            "TTFT p50 / p95 / p99",
            percentile_triple(report.snapshot.stats.ttft),
            "send → first non-empty content chunk",
        ),
        ("total", "Total p50 / p95 / p99", percentile_triple(report.snapshot.stats.total), "send → end of response"),
        (
            "tps",
            "Output tok/s",
            report.snapshot.stats.tok_per_sec.map_or("—".into(), |t| format!("{t:.1}")),
            "Σ tokens out / Σ total time",
        ),
        ("errors", "Error rate", format!("{:.1}%", s.error_rate * 100.0), "failed / measured"),
        ("cost", "Total cost", cost, "tokens × connector prices"),
        ("n", "Sample size", format!("{} ({} ok)", s.measured, s.succeeded), "measured iterations, warm-ups excluded"),
    ];
    view! {
        <section class="stat-cards" id="stats">
            {cards.into_iter().map(|(id, label, value, how)| view! {
                <div class="stat-card" id=format!("stat-{id}")>
                    <div class="stat-label">{label}</div>
                    <div class="stat-value">{value}</div>
                    <div class="stat-how">{how}</div>
                </div>
            }).collect_view()}
        </section>
    }
}

#[component]
fn HonestyNotes(notes: Vec<String>) -> impl IntoView {
    view! {
        <section class="honesty" id="honesty">
            <h3>"How these numbers were made"</h3>
            <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
        </section>
    }
}

/// Rows shown on the page; the export (and the report API) carries every one.
const TABLE_ROWS: usize = 500;

#[component]
fn ResultsTable(results: Vec<IterationRecord>) -> impl IntoView {
    let total = results.len();
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), ms);
    view! {
        <section>
            <h3>"Iterations"</h3>
            {(total > TABLE_ROWS).then(|| view! { <p class="muted">{format!("Showing the first {TABLE_ROWS} of {total}.")}</p> })}
            <table class="table" id="results">
                <thead><tr><th>"#"</th><th>"Prompt"</th><th>"Iter."</th><th>"TTFT"</th><th>"Total"</th><th>"Tokens in / out"</th><th>"Cost (USD)"</th><th>"Error"</th></tr></thead>
                <tbody>
                    {results.into_iter().take(TABLE_ROWS).map(|r| {
                        let estimated = if r.token_source == TokenSource::Estimated { " (est.)" } else { "" };
                        view! {
                            <tr class:warmup=r.warmup class:failed=r.error.is_some()>
                                <td>{r.seq}{r.warmup.then_some(" warm-up")}</td>
                                <td class="prompt">{r.prompt.chars().take(60).collect::<String>()}</td>
                                <td>{r.iteration}</td>
                                <td>{cell(r.ttft_ms)}</td>
                                <td>{ms(r.total_ms)}</td>
                                <td>{format!("{} / {}{estimated}", r.tokens_in.map_or("—".into(), |t| t.to_string()), r.tokens_out.map_or("—".into(), |t| t.to_string()))}</td>
                                <td>{r.cost_usd.map_or("—".into(), |c| format!("{c:.6}"))}</td>
                                <td class="error-cell">{r.error.clone().unwrap_or_default()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
