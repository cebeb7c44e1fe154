//! A sweep as one self-contained, printable HTML page, like the run report's: the answer and the knee, the
//! throughput–latency curve and the load chart (the same SVG the page draws), every level with the figures it was
//! judged on, and how it was all computed. A repeated run shows its figures over the repetitions instead of the
//! answer and the curves, and its repetitions in order.

use std::fmt::Write;

use crate::capacity::charts::{sweep_curve_chart, sweep_load_chart};
use crate::capacity::report::{CapacityLevel, CapacityReport, RepeatedReport, SweepView};
use crate::charts::escape_text as escape;
use crate::export::STYLE;
use crate::model::{iso8601_utc, trim_number};
use crate::report::ms;

/// Styles the sweep needs beyond the report page's.
const SWEEP_STYLE: &str = "svg .sweep-knee{fill:none;stroke:var(--bad);stroke-width:2}.failed{color:var(--bad)}";

/// The answer in words: `4 in flight (95 % interval 4 to 4)`, `at least 64 in flight`, or none.
pub fn answer_text(report: &CapacityReport) -> String {
    let end = |v: Option<f64>| v.map_or_else(|| "none".to_string(), trim_number);
    match report.answer {
        None => "none: the lowest level already missed the objectives".to_string(),
        Some(answer) => {
            let interval = if report.interval.resamples > 0 {
                format!(" (95 % interval {} to {})", end(report.interval.low), end(report.interval.high))
            } else {
                String::new()
            };
            format!("{}{}{interval}", if report.bounded { "" } else { "at least " }, report.axis.describe(answer))
        }
    }
}

/// The export.
pub fn sweep_to_html(view: &SweepView) -> String {
    let SweepView { summary, plan, report } = view;
    let mut page = String::with_capacity(32_768);
    let title = escape(&summary.title);
    let objectives: Vec<String> = plan.slos.iter().map(|s| s.spelled()).collect();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} — sweep</title>\
         <style>{STYLE}{SWEEP_STYLE}</style></head><body><header><h1>{title}</h1><p class=\"muted\">Started {} · {} · \
         {} · objectives: {}</p></header>",
        escape(&iso8601_utc(summary.created_at_ms)),
        escape(&summary.connector_name),
        summary.status.as_str(),
        escape(&if objectives.is_empty() { "none".to_string() } else { objectives.join(", ") })
    );
    let Some(report) = report else {
        page.push_str("<p>No level has finished yet.</p></body></html>\n");
        return page;
    };
    let mut levels: Vec<(String, &CapacityLevel)> = match &report.repeated {
        Some(repeated) => {
            write_repeated(&mut page, report, repeated);
            report.levels.iter().enumerate().map(|(i, l)| (format!("#{}", i + 1), l)).collect()
        }
        None => {
            let _ = write!(
                page,
                "<p><strong>Highest passing level:</strong> <span id=\"answer\">{}</span> · <strong>Knee:</strong> \
                 {}</p><figure>{}</figure><figure>{}</figure>",
                escape(&answer_text(report)),
                report.knee.map_or_else(|| "not within these levels".to_string(), |k| report.axis.describe(k)),
                sweep_curve_chart(&report.chart()),
                sweep_load_chart(&report.chart())
            );
            let mut levels: Vec<_> = report.levels.iter().map(|l| (report.axis.describe(l.level), l)).collect();
            levels.sort_by(|a, b| a.1.level.total_cmp(&b.1.level));
            levels
        }
    };
    let _ = write!(
        page,
        "<table><thead><tr><th>{}</th><th>Verdict</th><th>Judged on</th><th class=\"num\">Throughput req/s</th>\
         <th class=\"num\">Goodput req/s</th><th class=\"num\">TTFT p50 / p95</th><th class=\"num\">Total p95</th>\
         <th class=\"num\">Failed</th></tr></thead><tbody>",
        if report.repeated.is_some() { "Repetition" } else { "Load" }
    );
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"));
    for (label, l) in levels.drain(..) {
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} of {}</td></tr>",
            escape(&label),
            if l.passed { "passed" } else { "failed" },
            escape(&l.verdict_text()),
            escape(&l.judged_text()),
            rate(l.throughput_rps),
            rate(l.good_rps),
            l.ttft_ms.map_or_else(|| "—".to_string(), |p| format!("{} / {}", ms(p.p50), ms(p.p95))),
            l.total_ms.map_or_else(|| "—".to_string(), |p| ms(p.p95)),
            l.failed,
            l.requests
        );
    }
    page.push_str("</tbody></table><h2>How these numbers were made</h2><ul class=\"honesty\">");
    for note in &report.notes {
        let _ = write!(page, "<li>{}</li>", escape(note));
    }
    page.push_str("</ul><footer>Exported from latency-guard · all times in milliseconds, measured by the client.</footer></body></html>\n");
    page
}

/// A repeated run's head: whether every repetition passed, whether they agree, and each figure over them.
fn write_repeated(page: &mut String, report: &CapacityReport, repeated: &RepeatedReport) {
    let level = report.levels.first().map(|l| report.axis.describe(l.level)).unwrap_or_default();
    let _ = write!(
        page,
        "<p><strong>Passed in every repetition ({}):</strong> <span id=\"repeated-verdict\">{}</span></p>\
         <h2>Over {} repetitions</h2><p>{}</p><table id=\"repeated-figures\"><thead><tr><th>Figure</th>\
         <th class=\"num\">Mean</th><th class=\"num\">95 % interval of the mean</th><th class=\"num\">Run-to-run CV\
         </th><th>Each repetition</th></tr></thead><tbody>",
        escape(&level),
        if report.answer.is_some() { "yes" } else { "no" },
        repeated.repetitions,
        escape(&repeated.agreement_text())
    );
    for [figure, mean, interval, cv, each] in repeated.rows() {
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&figure),
            escape(&mean),
            escape(&interval),
            escape(&cv),
            escape(&each)
        );
    }
    page.push_str("</tbody></table>");
}
