//! A sweep's page, the parts that change only when the page is read again: its header (objectives, prompts), the
//! answer and the knee, the throughput–latency curve and the load chart, every level with the figures it was judged
//! on and a link to its run, a repeated run's figures over its repetitions, and how it was all computed. The HTML
//! export is these parts in a file, without the links into the app.

use leptos::prelude::*;

use crate::capacity::model::SweepSummary;
use crate::capacity::report::{CapacityLevel, CapacityReport, RepeatedReport, SweepView};
use crate::fragments::{how_made, render, ShownIn};
use crate::model::trim_number;
use crate::report::ms;
use crate::wire::JobPage;

/// The sweep's page: the header (title, connector, objectives, prompts, token budget and start), the report so far (a
/// repeated run's page then offers its comparison) and how the figures were made; in a file, a level links to no run.
pub fn sweep_page(view: SweepView, shown_in: ShownIn) -> JobPage<SweepSummary> {
    let SweepView { summary, plan, report } = view;
    let objectives: Vec<String> = plan.slos.iter().map(|s| s.spelled()).collect();
    let header = render(view! {
        <header>
            <h2 id="sweep-title">{summary.title.clone()}</h2>
            <p class="muted">{format!("{} · objectives: {} · {} prompt(s) · max_tokens {} · started {}", summary.connector_name,
                if objectives.is_empty() { "none".to_string() } else { objectives.join(", ") },
                plan.template.prompts.len(), plan.template.agent.token_budget,
                crate::model::iso8601_utc(summary.created_at_ms))}</p>
        </header>
    });
    JobPage {
        header,
        notes: report.as_ref().map(|r| render(how_made("sweep-notes", r.notes.clone()))),
        report: report.map(|report| match report.repeated.clone() {
            Some(repeated) => render(view! { <RepeatedRunReport report repeated shown_in/> }),
            None => render(view! { <SweepReport report shown_in/> }),
        }),
        summary,
    }
}

#[component]
fn SweepReport(report: CapacityReport, shown_in: ShownIn) -> impl IntoView {
    let curve = crate::capacity::charts::sweep_curve_chart(&report.chart());
    let load = crate::capacity::charts::sweep_load_chart(&report.chart());
    let mut levels = report.levels.clone();
    levels.sort_by(|a, b| a.level.total_cmp(&b.level));
    let axis = report.axis;
    view! {
        <section class="stat-cards">
            <div class="stat-card">
                <div class="stat-label">"Highest passing level"</div>
                <div class="stat-value" id="sweep-answer">{crate::capacity::report::answer_text(&report)}</div>
                <div class="stat-how">"every objective held, every lower level passing"</div>
            </div>
            <div class="stat-card">
                <div class="stat-label">"Knee"</div>
                <div class="stat-value" id="sweep-knee">{report.knee.map_or_else(|| "not within these levels".to_string(), |k| axis.describe(k))}</div>
                <div class="stat-how">"the last level before latency (total p95) grew faster than throughput"</div>
            </div>
        </section>
        {(!report.probes.is_empty()).then(|| view! {
            <p id="sweep-probes">{report.probes.iter().map(|p| format!("{} in flight: {}", trim_number(p.level),
                p.throughput_rps.map_or_else(|| "no throughput".to_string(), |t| format!("{t:.2} req/s")))).collect::<Vec<_>>().join(" · ")}
                " (the probes that chose the rates)"</p>
        })}
        <div class="chart-box" inner_html=curve></div>
        <div class="chart-box" inner_html=load></div>
        {levels_table("Load", axis, shown_in, levels.into_iter().map(|l| (axis.describe(l.level), l)))}
    }
}

/// A repeated run: whether every repetition passed, the figures over the repetitions, each repetition (judged
/// like a level); the comparison with another repeated run and the notes follow on the page.
#[component]
fn RepeatedRunReport(report: CapacityReport, repeated: RepeatedReport, shown_in: ShownIn) -> impl IntoView {
    let axis = report.axis;
    let level = report.levels.first().map(|l| axis.describe(l.level)).unwrap_or_default();
    let verdict = match report.answer {
        Some(_) => "yes".to_string(),
        None if report.slos.is_empty() => "no (errors over the limit)".to_string(),
        None => "no".to_string(),
    };
    view! {
        <section class="stat-cards">
            <div class="stat-card">
                <div class="stat-label">"Passed in every repetition"</div>
                <div class="stat-value" id="repeated-verdict">{verdict}</div>
                <div class="stat-how">{format!("{level}: every objective held and errors stayed within the limit")}</div>
            </div>
        </section>
        <RepeatedFigures report=repeated/>
        {levels_table("Repetition", axis, shown_in, report.levels.into_iter().enumerate().map(|(i, l)| (format!("#{}", i + 1), l)))}
    }
}

/// The figures over the repetitions.
#[component]
fn RepeatedFigures(report: RepeatedReport) -> impl IntoView {
    let agreement = report.agreement_text();
    let class = if report.disagrees() { "warning" } else { "muted" };
    view! {
        <h2>{format!("Over {} repetitions", report.repetitions)}</h2>
        <p id="repeated-agreement" class=class>{agreement}</p>
        <table class="table" id="repeated-figures">
            <thead><tr><th>"Figure"</th><th>"Mean"</th><th>"95 % interval of the mean"</th><th>"Run-to-run CV"</th>
                <th>"Each repetition"</th></tr></thead>
            <tbody>{report.rows().into_iter().map(|row| view! {
                <tr>{row.into_iter().map(|cell| view! { <td>{cell}</td> }).collect_view()}</tr>
            }).collect_view()}</tbody>
        </table>
    }
}

/// The levels (or repetitions), one row each, labelled in the column `first_column`; on a page each links to its
/// run.
fn levels_table(
    first_column: &'static str,
    axis: crate::capacity::model::LoadAxis,
    shown_in: ShownIn,
    rows: impl Iterator<Item = (String, CapacityLevel)>,
) -> impl IntoView {
    let links = shown_in == ShownIn::Page;
    view! {
        <table class="table" id="sweep-levels">
            <thead><tr><th>{first_column}</th><th>"Verdict"</th><th>"Judged on"</th><th>"Throughput"</th><th>"Goodput"</th>
                {(axis == crate::capacity::model::LoadAxis::Rate).then(|| view! { <th>"Sent (late p95)"</th> })}
                <th>"TTFT p50 / p95"</th><th>"Total p95"</th><th>"Failed"</th><th>"Figures"</th>{links.then(|| view! { <th>"Run"</th> })}</tr></thead>
            <tbody>{rows.map(|(label, l)| level_row(label, axis, links, l)).collect_view()}</tbody>
        </table>
    }
}

/// Each failed check of a level's verdict with what to change, for the cell's title.
fn validity_detail(validity: Option<&crate::model::RunValidity>) -> String {
    let reasons = validity.into_iter().flat_map(|v| v.reasons());
    reasons
        .map(|c| format!("{}: {}. {}", c.check.as_str(), c.says, c.change.as_deref().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn level_row(label: String, axis: crate::capacity::model::LoadAxis, link: bool, l: CapacityLevel) -> impl IntoView {
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2} req/s"));
    view! {
        <tr data-level=trim_number(l.level) data-passed=l.passed.to_string()>
            <td>{label}</td>
            <td>{l.verdict_text()}</td>
            <td>{l.judged_text()}</td>
            <td>{rate(l.throughput_rps)}</td>
            <td>{rate(l.good_rps)}</td>
            {(axis == crate::capacity::model::LoadAxis::Rate).then(|| view! {
                <td>{format!("{} ({})", rate(l.achieved_rate), l.schedule_lag_p95_ms.map_or_else(|| "—".to_string(), ms))}</td>
            })}
            <td>{l.ttft_ms.map_or_else(|| "—".to_string(), |p| format!("{} / {}", ms(p.p50), ms(p.p95)))}</td>
            <td>{l.total_ms.map_or_else(|| "—".to_string(), |p| ms(p.p95))}</td>
            <td>{format!("{} of {}", l.failed, l.requests)}</td>
            <td class="level-validity" title=validity_detail(l.validity.as_ref())>
                {l.validity.as_ref().map_or_else(|| "—".to_string(), crate::model::RunValidity::headline)}
            </td>
            {link.then(|| view! { <td>{l.run_id.map(|id| view! { <a href=format!("/runs/{id}")>"report"</a> })}</td> })}
        </tr>
    }
}
