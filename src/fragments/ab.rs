//! An A/B test's page, the parts that change only when the page is read again: its header, and once it ended,
//! each cell's verdict, bottleneck panel, differences and caveats (the same section the HTML export holds) with
//! how the numbers were made.

use leptos::prelude::*;

use super::{how_made, render};
use crate::report::{AbReport, AbTestView};
use crate::wire::ServerHtml;

/// The header: which connectors, how many cells, prompts and iterations.
pub fn ab_header(view: &AbTestView) -> ServerHtml {
    let (summary, plan) = (&view.summary, &view.plan);
    render(view! {
        <header class="ab-header">
            <h2 id="ab-title">{summary.title.clone()}</h2>
            <p class="muted">
                {format!("{} (baseline) vs {} (candidate) · {} cell(s) · {} prompt(s) × {} iteration(s) per arm and cell · max_tokens {}",
                    summary.baseline_name, summary.candidate_name, plan.cells.len(), plan.prompts.len(), plan.iterations, plan.max_tokens)}
            </p>
        </header>
    })
}

/// The ended test's report.
pub fn ab_report(report: &AbReport) -> ServerHtml {
    let section = crate::export::ab_section(report);
    let notes = report.notes.clone();
    render(view! {
        <div class="ab-report" inner_html=section></div>
        {how_made("ab-notes", notes)}
    })
}
