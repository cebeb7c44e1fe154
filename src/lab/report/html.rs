//! An A/B test's Spec Lab section as HTML (the endpoints, then per cell the verdict, the bottleneck panel, the
//! differences and each arm's acceptance), which the A/B page shows and its HTML export puts in a file.

use std::fmt::Write;

use crate::charts::{bottleneck, escape_text as escape, BottleneckBar};
use crate::lab::report::{acceptance_text, AbCell, AbReport, ArmFigures};
use crate::report::{ms, percentile_triple};

/// The bottleneck panel of one cell: where each arm's mean request time goes.
pub fn cell_panel(cell: &AbCell, names: [&str; 2]) -> String {
    let bar = |name, arm: &ArmFigures| BottleneckBar {
        name,
        ttft_ms: arm.mean_ttft_ms.unwrap_or(f64::NAN),
        decode_ms: arm.mean_decode_ms.unwrap_or(f64::NAN),
        drafts: arm.drafts_label(),
    };
    bottleneck(&[bar(names[0], &cell.baseline), bar(names[1], &cell.candidate)])
}

/// The Spec Lab section of `report`: an `<section id="spec-lab">` with both endpoints and every cell.
pub fn ab_section(report: &AbReport) -> String {
    let mut html = String::new();
    let names = [report.baseline.name.as_str(), report.candidate.name.as_str()];
    let _ = write!(html, "<section id=\"spec-lab\"><h2>A/B: {} vs {}</h2>", escape(names[0]), escape(names[1]));
    html.push_str("<p class=\"muted\" id=\"ab-endpoints\">");
    for (role, endpoint) in [("Baseline: ", &report.baseline), ("<br>Candidate: ", &report.candidate)] {
        let _ = write!(
            html,
            "{role}{} · <span class=\"mono\">{}</span> · model <span class=\"mono\">{}</span>{}",
            escape(&endpoint.name),
            escape(&endpoint.base_url),
            escape(&endpoint.model),
            endpoint.server_kind.map_or_else(String::new, |k| format!(" · {}", k.label()))
        );
    }
    html.push_str("</p>");
    for cell in &report.cells {
        cell_html(&mut html, cell, names);
    }
    if report.cells.is_empty() {
        html.push_str("<p class=\"muted\">No cell finished before the test stopped.</p>");
    }
    html.push_str("</section>");
    html
}

fn cell_html(html: &mut String, cell: &AbCell, names: [&str; 2]) {
    let _ = write!(
        html,
        "<article class=\"ab-cell\"><h3>{}</h3><p class=\"verdict {}\">{}</p><p>{}</p><figure>{}</figure>",
        escape(&cell.label()),
        serde_json::to_value(cell.verdict.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        escape(cell.verdict.kind.label()),
        escape(&cell.verdict.summary),
        cell_panel(cell, names)
    );
    html.push_str(
        "<table><thead><tr><th>Metric</th><th class=\"num\">Baseline mean</th><th class=\"num\">Candidate mean</th>\
         <th class=\"num\">Δ</th><th class=\"num\">95 % CI of Δ</th><th class=\"num\">Welch p</th>\
         <th class=\"num\">Mann-Whitney p</th><th class=\"num\">n</th></tr></thead><tbody>",
    );
    for d in &cell.deltas {
        let percent = |v: f64| format!("{:+.1} %", v / d.baseline_mean * 100.0);
        let p = |p: Option<f64>| p.map_or_else(|| "—".to_string(), crate::report::p_value);
        let _ = write!(
            html,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} / {}</td></tr>",
            d.metric.label(),
            ms(d.baseline_mean),
            ms(d.candidate_mean),
            percent(d.difference()),
            d.ci95.map_or_else(|| "—".to_string(), |(lo, hi)| format!("{} to {}", percent(lo), percent(hi))),
            p(d.welch_p),
            p(d.mann_whitney_p),
            d.n.0,
            d.n.1
        );
    }
    html.push_str("</tbody></table><ul>");
    for (name, arm) in names.into_iter().zip([&cell.baseline, &cell.candidate]) {
        let drafts = arm.acceptance().map_or_else(|| arm.drafts_label(), |a| acceptance_text(&a));
        let validity = arm.validity.as_ref().map_or_else(String::new, |v| format!(" · figures {}", v.headline()));
        let _ = write!(
            html,
            "<li>{}: {} of {} succeeded · TTFT p50/p95/p99 {} · TPOT {} · {}{}</li>",
            escape(name),
            arm.succeeded(),
            arm.measured,
            percentile_triple(arm.ttft),
            percentile_triple(arm.tpot),
            escape(&drafts),
            escape(&validity)
        );
    }
    html.push_str("</ul>");
    if !cell.verdict.caveats.is_empty() {
        html.push_str("<ul class=\"caveats\">");
        for caveat in &cell.verdict.caveats {
            let _ = write!(html, "<li>{}</li>", escape(caveat));
        }
        html.push_str("</ul>");
    }
    html.push_str("</article>");
}
