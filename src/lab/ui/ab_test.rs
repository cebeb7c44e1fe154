//! `/spec-lab/ab/:id`: one A/B test. While it runs, its progress (read again every second) and a Stop button;
//! once it ended, each cell's verdict, bottleneck panel, differences and caveats — the same section the HTML
//! export holds — the exports, made in the browser from the report on the page, and how it was measured.

use leptos::prelude::*;

use crate::lab::api::{cancel_ab_test, get_ab_test_page};
use crate::lab::model::AbTestSummary;
use crate::ui::components::{
    Document, DocumentExportButtons, JobFrame, JobProgress, JobWords, ProgressIds, ServerPart,
};
use crate::wire::JobPage;

/// The A/B test page.
#[component]
pub fn AbTestPage() -> impl IntoView {
    let words = JobWords { title: "A/B test", back: ("/spec-lab", "← Spec Lab"), noun: "A/B test" };
    view! { <JobFrame words fetch=get_ab_test_page status=|s: &AbTestSummary| s.status body=ab_test_body/> }
}

/// The header, the report and the notes come rendered by the server (`speclab/ab/page`); the page holds the
/// progress, Stop and the exports.
fn ab_test_body(page: JobPage<AbTestSummary>) -> impl IntoView {
    let JobPage { summary, header, report, notes } = page;
    let id = summary.id;
    let percent = if summary.total_requests == 0 {
        0.0
    } else {
        summary.done_requests as f64 * 100.0 / summary.total_requests as f64
    };
    view! {
        <ServerPart html=header/>
        <JobProgress
            ids=ProgressIds { panel: "ab-progress", status: "ab-status", stop: "stop-ab" }
            status=summary.status
            done=format!("{} of {} requests ({percent:.0} %)", summary.done_requests, summary.total_requests)
            percent
            failure=summary.failure
            stop_label="Stop (keep what was measured)"
            cancel=move || cancel_ab_test(id)
        />
        {report.map(|report| view! {
            <DocumentExportButtons document=Document::AbTest(id)/>
            <ServerPart html=report/>
        })}
        {notes.map(|notes| view! { <ServerPart html=notes/> })}
    }
}
