//! An A/B test's page, the parts that change only when the page is read again: its header, and once it ended,
//! each cell's verdict, bottleneck panel, differences and caveats with how the numbers were made. The HTML export
//! is the same parts in a file.

use leptos::prelude::*;

use crate::fragments::{how_made, render};
use crate::lab::model::{AbPlan, AbTestSummary};
use crate::lab::report::{AbReport, AbTestView};
use crate::wire::{JobPage, ServerHtml};

/// The test's page: the header (which connectors, how many cells, prompts and iterations) and, once it ended,
/// each cell's verdict, bottleneck panel, differences and caveats with how they were made.
pub fn ab_page(view: AbTestView) -> JobPage<AbTestSummary> {
    let AbTestView { summary, plan, report } = view;
    JobPage {
        header: header(&summary.title, [&summary.baseline_name, &summary.candidate_name], &plan),
        report: report.as_ref().map(ended),
        notes: report.map(|r| notes(r.notes)),
        summary,
    }
}

/// An ended test's page in a file, from its report alone (the command line's `--out test.html`): the same parts
/// the browser's export puts in a file from the page.
pub fn ab_file(report: &AbReport) -> String {
    let parts = [
        header(&report.title, [&report.baseline.name, &report.candidate.name], &report.plan),
        ended(report),
        notes(report.notes.clone()),
    ];
    crate::export::standalone_page(
        &file_title(&report.title),
        &parts.iter().map(ServerHtml::as_str).collect::<Vec<_>>(),
        crate::export::MEASURED_BY_THE_CLIENT,
    )
}

/// The `<title>` of a test's file.
pub fn file_title(title: &str) -> String {
    format!("{title} — A/B test")
}

fn header(title: &str, [baseline, candidate]: [&str; 2], plan: &AbPlan) -> ServerHtml {
    render(view! {
        <header class="ab-header">
            <h2 id="ab-title">{title.to_string()}</h2>
            <p class="muted">
                {format!("{baseline} (baseline) vs {candidate} (candidate) · {} cell(s) · {} prompt(s) × {} iteration(s) per arm and cell · max_tokens {}",
                    plan.cells.len(), plan.prompts.len(), plan.iterations, plan.max_tokens)}
            </p>
        </header>
    })
}

fn ended(report: &AbReport) -> ServerHtml {
    render(view! { <div class="ab-report" inner_html=crate::lab::report::ab_section(report)></div> })
}

fn notes(notes: Vec<String>) -> ServerHtml {
    render(how_made("ab-notes", notes))
}
