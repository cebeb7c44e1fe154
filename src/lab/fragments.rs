//! An A/B test's page, the parts that change only when the page is read again: its header, and once it ended,
//! each cell's verdict, bottleneck panel, differences and caveats (the same section the HTML export holds) with
//! how the numbers were made.

use leptos::prelude::*;

use crate::fragments::{how_made, render};
use crate::lab::model::AbTestSummary;
use crate::lab::report::AbTestView;
use crate::wire::JobPage;

/// The test's page: the header (which connectors, how many cells, prompts and iterations) and, once it ended,
/// each cell's verdict, bottleneck panel, differences and caveats with how they were made.
pub fn ab_page(view: AbTestView) -> JobPage<AbTestSummary> {
    let AbTestView { summary, plan, report } = view;
    let header = render(view! {
        <header class="ab-header">
            <h2 id="ab-title">{summary.title.clone()}</h2>
            <p class="muted">
                {format!("{} (baseline) vs {} (candidate) · {} cell(s) · {} prompt(s) × {} iteration(s) per arm and cell · max_tokens {}",
                    summary.baseline_name, summary.candidate_name, plan.cells.len(), plan.prompts.len(), plan.iterations, plan.max_tokens)}
            </p>
        </header>
    });
    JobPage {
        header,
        report: report
            .as_ref()
            .map(|r| render(view! { <div class="ab-report" inner_html=crate::lab::report::ab_section(r)></div> })),
        notes: report.map(|r| render(how_made("ab-notes", r.notes))),
        summary,
    }
}
