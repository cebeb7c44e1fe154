//! The parts of a report every view shows — the owner's run page, a share link and the HTML export alike: the
//! header, the scatter as stored, stat cards, honesty notes, distribution charts, the run over time and the
//! server's own metrics (the page's table, which pages and sorts, is `runs::ui::ResultsTable` over rows drawn by
//! `table`; a file's, every iteration, is the export's).

use leptos::prelude::*;

use super::workload::WorkloadPanel;
use crate::charts::{latency_scatter, sampled_scatter};
use crate::fragments::render;
use crate::model::{
    CheckOutcome, ConnectionPolicy, IterationRecord, LoadMode, RunValidity, RunView, ValidityCheck, Verdict,
};
use crate::runs::report::{
    report_view, scatter_point, stat_cards, ReportPage, ReportSnapshot, ReportStats, ReportView, ServerSection,
};
use crate::stats::{summarize, RunSummary};
use crate::wire::ServerHtml;

/// The owner's page of a run: its header, and the body as the run's state asks.
pub fn run_page(run: &RunView, view: &ReportView) -> ReportPage {
    let body = if run.status == crate::model::RunStatus::Running { BodyFor::RunningRun } else { BodyFor::FinishedRun };
    page(run_header(run, view), view, body)
}

/// A share link's page.
pub fn shared_page(view: &ReportView) -> ReportPage {
    page(snapshot_header(view), view, BodyFor::SharedReport)
}

/// The report's sections in a file (the HTML export shows them above its table of every iteration): the header
/// with its figures, the scatter and the body as the owner's page shows them, with the server's own metrics or why
/// there are none.
pub fn report_file_sections(snapshot: &ReportSnapshot) -> ServerHtml {
    let view = report_view(snapshot, summarize(&snapshot.results));
    let scatter = scatter(&view).into_string();
    let mut html = with_summary(with_verdict(snapshot_header(&view), &view), &view, false).into_string();
    html.push_str(&render(view! {
        <section id="scatter"><h3>"Latency per iteration"</h3><div class="chart-box" inner_html=scatter></div></section>
    }).into_string());
    html.push_str(report_body(&view, BodyFor::File).as_str());
    ServerHtml::trusted(html)
}

fn page(header: ServerHtml, view: &ReportView, body: BodyFor) -> ReportPage {
    ReportPage {
        header: with_summary(with_verdict(header, view), view, body == BodyFor::RunningRun),
        scatter: scatter(view),
        body: report_body(view, body),
        iterations: view.iterations,
        first_page: super::table_page(&view.first_page),
    }
}

/// `header`, then the headline figures: the summary comes first, the charts and the methods after.
fn with_summary(header: ServerHtml, view: &ReportView, so_far: bool) -> ServerHtml {
    let mut html = header.into_string();
    let (stats, summary) = (view.stats.clone(), view.summary.clone());
    html.push_str(&render(view! { <StatCards stats summary so_far/> }).into_string());
    ServerHtml::trusted(html)
}

/// `header`, then the verdict on the figures of a run that is over: the first thing its report says.
fn with_verdict(header: ServerHtml, view: &ReportView) -> ServerHtml {
    match view.validity.clone() {
        Some(validity) => {
            let mut html = header.into_string();
            html.push_str(&render(view! { <VerdictPanel validity/> }).into_string());
            ServerHtml::trusted(html)
        }
        None => header,
    }
}

/// The owner's run page header: title, endpoint, model, agent and every setting the run was made with.
fn run_header(run: &RunView, view: &ReportView) -> ServerHtml {
    let mode = match run.plan.mode {
        LoadMode::Closed { concurrency } => format!("closed loop × {concurrency}"),
        LoadMode::Open { rate_per_second, max_concurrency, .. } => {
            format!("open loop {rate_per_second}/s, {} (≤ {max_concurrency} in flight)", run.plan.mode.spacing())
        }
    };
    let plan = &run.plan;
    let settings = format!(
        "temperature {} · timeout {} s per request{} · {} · {} · {} warm-up request(s), excluded from stats · {}",
        plan.temperature,
        plan.timeout_ms as f64 / 1e3,
        plan.duration_ms.map_or_else(String::new, |limit| format!(
            " · time limit {} s from the first measured send",
            crate::model::trim_number(limit as f64 / 1e3)
        )),
        match plan.retries {
            0 => "no retries (a 429 is a failure)".to_string(),
            n => format!("up to {n} retries after HTTP 429"),
        },
        match plan.connections {
            ConnectionPolicy::Reuse => "connections reused",
            ConnectionPolicy::Fresh => "a fresh connection per request",
        },
        plan.warmup,
        match plan.agent.tools.len() {
            0 => "no tools".to_string(),
            n => format!("{n} tool(s) sent"),
        },
    );
    // A workload's answers are as long as it asks, not the agent's budget.
    let sends = match &plan.workload {
        Some(workload) => format!("workload {}", workload.describe()),
        None => {
            format!("{} prompt(s) × {} · max_tokens {}", plan.prompts.len(), plan.iterations, plan.agent.token_budget)
        }
    };
    render(view! {
        <section class="run-header">
            <h2 id="run-title">{run.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{run.base_url.clone()}</span> " · " <span class="mono">{run.model.clone()}</span>
                " · agent " {plan.agent.name.clone()} " · " {sends}
                " · " {mode} " · " {if plan.stream { "streamed" } else { "not streamed" }}
                " · started " {view.report.created_at.clone()}
            </p>
            <p class="muted" id="run-settings">{settings}</p>
        </section>
    })
}

/// The header of a shared report or a file: what the snapshot says of the endpoint and the agent (the owner's
/// page shows the run's settings instead).
fn snapshot_header(view: &ReportView) -> ServerHtml {
    let tools = match view.agent.tools.len() {
        0 => String::new(),
        n => format!(" · {n} tool(s)"),
    };
    let system = view.agent.system_prompt.as_ref().map(|p| p.chars().take(300).collect::<String>());
    render(view! {
        <section class="run-header">
            <h2 id="run-title">{view.report.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{view.connector.base_url.clone()}</span> " · "
                <span class="mono">{view.connector.model.clone()}</span> " · agent " {view.agent.name.clone()}
                " · max_tokens " {view.agent.token_budget} {tools} " · started " {view.report.created_at.clone()}
            </p>
            {system.map(|p| view! { <p class="muted" id="system-prompt">"System prompt: " <span class="mono">{p}</span></p> })}
        </section>
    })
}

/// The scatter of the stored points (an even sample beyond the chart's limit), SVG.
fn scatter(view: &ReportView) -> ServerHtml {
    ServerHtml::trusted(sampled_scatter(&view.scatter))
}

/// The scatter of a running run's iterations stored so far, drawn the way the report draws it: the run page
/// shows it again as the run goes, so that the browser draws no chart.
pub fn live_scatter(records: &[IterationRecord]) -> ServerHtml {
    ServerHtml::trusted(latency_scatter(&records.iter().map(scatter_point).collect::<Vec<_>>()))
}

/// Which page a report's body is for: what it shows depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyFor {
    /// The owner's page of a run still going: figures so far, no distribution or slices yet.
    RunningRun,
    /// The owner's page of a run that is over.
    FinishedRun,
    /// A share link's page: the report without the server's own metrics.
    SharedReport,
    /// A file (the HTML export): the finished report, the server's own metrics or why there are none.
    File,
}

/// Everything between the scatter and the table: once the run is over, the distribution, the run over time, the
/// slowest requests and a workload's section, and on the owner's page the server's own metrics when they were
/// recorded; last, folded, how the numbers were made.
fn report_body(view: &ReportView, page: BodyFor) -> ServerHtml {
    let view = view.clone();
    let over = page != BodyFor::RunningRun;
    let no_server = view.server.is_none() && page == BodyFor::File;
    let server = view.server.filter(|_| page != BodyFor::SharedReport);
    // Drawn only by the server; the browser build's view has no slowest requests.
    #[cfg(feature = "ssr")]
    let slowest = view.slowest;
    #[cfg(not(feature = "ssr"))]
    let slowest: Vec<IterationRecord> = Vec::new();
    render(view! {
        {over.then(|| view! { <DistributionCharts histogram_svg=view.histogram_svg cdf_svg=view.cdf_svg/> })}
        {over.then(|| view! { <TimeSlices slices=view.slices svg=view.slices_svg/> })}
        {(over && !slowest.is_empty()).then(|| view! { <SlowestRequests rows=slowest/> })}
        {view.workload.filter(|_| over).map(|section| view! {
            <WorkloadPanel section server_metrics=page != BodyFor::SharedReport/>
        })}
        {server.map(|section| view! { <ServerPanel section/> })}
        {no_server.then(|| view! {
            <section class="server-section" id="server">
                <h3>"The server, from its own metrics"</h3>
                <p class="muted">"This run did not record its server's metrics (the connector's server was not \
                    probed, or is not self-hosted)."</p>
            </section>
        })}
        <HonestyNotes notes=view.honesty/>
    })
}

/// The slowest requests of a finished report, slowest first: where to look first (an alert links here,
/// `#slowest`).
#[component]
fn SlowestRequests(rows: Vec<IterationRecord>) -> impl IntoView {
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), crate::report::ms);
    let count = |t: Option<u64>| t.map_or_else(|| "—".to_string(), |t| t.to_string());
    view! {
        <section class="slowest" id="slowest">
            <h3>"Slowest requests"</h3>
            <p class="muted">"The successful measured requests that took longest, slowest first (warm-ups and failures \
                left out); the table below has them all."</p>
            <table class="table">
                <thead><tr><th>"#"</th><th>"Prompt"</th><th>"TTFT"</th><th>"Total"</th><th>"Tokens in / out"</th></tr></thead>
                <tbody>{rows.into_iter().map(|r| view! {
                    <tr>
                        <td>{r.seq}</td>
                        <td class="prompt">{r.prompt.chars().take(60).collect::<String>()}</td>
                        <td>{cell(r.ttft_ms)}</td>
                        <td>{crate::report::ms(r.total_ms)}</td>
                        <td>{format!("{} / {}", count(r.tokens_in), count(r.tokens_out))}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </section>
    }
}

/// The distribution of a finished report, drawn on the server: a histogram and the cumulative distribution of
/// total time and TTFT over the successful measured iterations.
#[component]
fn DistributionCharts(histogram_svg: String, cdf_svg: String) -> impl IntoView {
    view! {
        <div class="chart-pair">
            <figure id="histogram"><figcaption>"How latencies spread"</figcaption><div class="chart-box" inner_html=histogram_svg></div></figure>
            <figure id="cdf"><figcaption>"Share of requests at or below each latency"</figcaption><div class="chart-box" inner_html=cdf_svg></div></figure>
        </div>
    }
}

/// The headline figures, each saying how it was computed.
#[component]
fn StatCards(stats: ReportStats, summary: RunSummary, so_far: bool) -> impl IntoView {
    view! {
        {so_far.then(|| view! {
            <p class="muted" id="so-far">"Live: the figures over the requests finished so far; they settle when the run ends."</p>
        })}
        <section class="stat-cards" id="stats">
            {stat_cards(&stats, &summary, so_far).into_iter().map(|card| view! {
                <div class="stat-card" id=format!("stat-{}", card.id)>
                    <div class="stat-label">{card.label}</div>
                    <div class="stat-value">{card.value}</div>
                    <div class="stat-how">{card.how}</div>
                </div>
            }).collect_view()}
        </section>
    }
}

/// What the server's own metrics said during the run: speculative decoding and the load, with their source.
#[component]
fn ServerPanel(section: ServerSection) -> impl IntoView {
    view! {
        <section class="server-section" id="server">
            <h3>"The server, from its own metrics"</h3>
            <ul>{section.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            <div class="chart-box" id="server-load" inner_html=section.load_svg></div>
        </section>
    }
}

/// The run over time: the chart, and per slice its completions, failures and latency.
#[component]
fn TimeSlices(slices: Vec<crate::stats::TimeSlice>, svg: String) -> impl IntoView {
    let ms = |p: Option<crate::stats::Percentiles>, pick: fn(&crate::stats::Percentiles) -> f64| {
        p.as_ref().map_or_else(|| "—".to_string(), |p| format!("{:.1}", pick(p)))
    };
    (!slices.is_empty()).then(|| view! {
        <section class="time-slices" id="time-slices">
            <h3>"Over the run"</h3>
            <p class="muted">"Requests grouped by when they finished, in equal slices: warm-up, throttling or a slow \
                drift inside the run show here. The slices' counts add up to the run's measured requests."</p>
            <div class="chart-box" id="slices-chart" inner_html=svg></div>
            <table class="table" id="slices">
                <thead><tr><th>"Seconds"</th><th>"Done"</th><th>"Failed"</th><th>"Done/s"</th><th>"Output tok/s"</th>
                    <th>"Total p50 / p95 (ms)"</th><th>"TTFT p50 / p95 (ms)"</th></tr></thead>
                <tbody>{slices.into_iter().map(|s| view! {
                    <tr>
                        <td>{format!("{}–{}", s.start_s, s.end_s)}</td>
                        <td>{s.completed}</td>
                        <td>{s.failed}</td>
                        <td>{format!("{:.2}", s.requests_per_sec)}</td>
                        <td>{format!("{:.1}", s.output_tokens_per_sec)}</td>
                        <td>{format!("{} / {}", ms(s.total, |p| p.p50), ms(s.total, |p| p.p95))}</td>
                        <td>{format!("{} / {}", ms(s.ttft, |p| p.p50), ms(s.ttft, |p| p.p95))}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </section>
    })
}

/// The verdict on the figures, before them: whether they answer the question the run asked, each failed check
/// with what to change, and every check behind a valid verdict one click away.
#[component]
fn VerdictPanel(validity: RunValidity) -> impl IntoView {
    let invalid = validity.verdict == Verdict::Invalid;
    let (title, class) = if invalid {
        ("Invalid: these figures do not describe the endpoint under the load asked", "verdict invalid")
    } else {
        ("Valid: the run measured what it asked", "verdict valid")
    };
    let (failed, rest): (Vec<ValidityCheck>, Vec<ValidityCheck>) =
        validity.checks.into_iter().partition(|c| c.outcome == CheckOutcome::Failed);
    let summary = format!(
        "{} check(s) passed, {} not checked",
        rest.iter().filter(|c| c.outcome == CheckOutcome::Passed).count(),
        rest.iter().filter(|c| c.outcome == CheckOutcome::NotChecked).count()
    );
    let line = |c: ValidityCheck| {
        let outcome = match c.outcome {
            CheckOutcome::Failed => "failed",
            CheckOutcome::Passed => "passed",
            CheckOutcome::NotChecked => "not checked",
        };
        view! {
            <li class=format!("check {outcome}") data-check=c.check.as_str()>
                <strong>{c.check.as_str()}</strong> " " {outcome} ": " {c.says}
                {c.change.map(|change| view! { <div class="change"><strong>"Change: "</strong>{change}</div> })}
            </li>
        }
    };
    view! {
        <section class=class id="verdict">
            <h3>{title}</h3>
            {(!failed.is_empty()).then(|| view! { <ul>{failed.into_iter().map(line).collect_view()}</ul> })}
            <details><summary>{summary}</summary><ul>{rest.into_iter().map(line).collect_view()}</ul></details>
        </section>
    }
}

/// How the figures were made, shown prominently.
#[component]
fn HonestyNotes(notes: Vec<String>) -> impl IntoView {
    view! {
        <details class="honesty" id="honesty">
            <summary><h3>"How these numbers were made"</h3>{format!(" {} notes: percentiles, what TTFT means, where token counts came from, what could not be measured", notes.len())}</summary>
            <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
        </details>
    }
}
