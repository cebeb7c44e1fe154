//! The report's HTML export: one self-contained, printable page — the report's sections as the server renders
//! them for a file (header, scatter, stat cards, honesty notes, distribution, the run over time, a workload's
//! section, the server's own metrics) and every iteration in one table, which only a file has (the page's table
//! pages and sorts).

use std::fmt::Write;

use crate::charts::escape_text as escape;
use crate::export::{standalone_page, MEASURED_BY_THE_CLIENT};
use crate::report::ms;
use crate::runs::report::{ReportFiles, ReportSnapshot};

/// The page.
pub fn to_html(files: &ReportFiles) -> String {
    let snapshot = &files.snapshot;
    let footer = format!("{MEASURED_BY_THE_CLIENT} Report {}.", snapshot.report.id);
    let title = format!("{} — latency report", snapshot.report.title);
    standalone_page(&title, &[files.sections.as_str(), &iteration_table(snapshot)], &footer)
}

/// Every iteration, warm-ups flagged and failures marked.
fn iteration_table(s: &ReportSnapshot) -> String {
    let mut table = String::with_capacity(512 + s.results.len() * 300);
    table.push_str(
        "<section id=\"iterations\"><h3>Iterations</h3><table class=\"table\"><thead><tr><th class=\"num\">#</th>\
         <th>Prompt</th><th class=\"num\">Iter.</th><th class=\"num\">TTFT</th><th class=\"num\">Total</th>\
         <th class=\"num\">Tokens in / out</th><th class=\"num\">Cost (USD)</th><th>Error</th></tr></thead><tbody>",
    );
    let count = |t: Option<u64>| t.map_or_else(|| "—".to_string(), |t| t.to_string());
    for r in &s.results {
        let class = match (r.warmup, r.error.is_some()) {
            (true, _) => " class=\"warmup\"",
            (false, true) => " class=\"failed\"",
            (false, false) => "",
        };
        let _ = write!(
            table,
            "<tr{class}><td class=\"num\">{}{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{} / {}{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            r.seq,
            if r.warmup { " warm-up" } else { "" },
            escape(&r.prompt),
            r.iteration,
            r.ttft_ms.map_or_else(|| "—".to_string(), ms),
            ms(r.total_ms),
            count(r.tokens_in),
            count(r.tokens_out),
            if r.token_source == crate::model::TokenSource::Estimated { " (est.)" } else { "" },
            r.cost_usd.map_or_else(|| "—".to_string(), |c| format!("{c:.6}")),
            escape(r.error.as_deref().unwrap_or("")),
        );
    }
    table.push_str("</tbody></table></section>");
    table
}
