//! The HTML export: one self-contained, printable page (inline CSS and SVG, no script, no external URL) with
//! the header, stat cards, honesty notes, the latency scatter, latency over the run, a workload's section, a slot for
//! the Spec Lab panel and every iteration.

use std::fmt::Write;

use crate::charts::{escape_text as escape, latency_scatter, ScatterPoint};
use crate::report::{ms, stat_cards, ReportSnapshot};
use crate::stats::summarize;

/// The `id` of the section the Spec Lab fills with its bottleneck panel (inline SVG).
pub const SPEC_LAB_SLOT_ID: &str = "spec-lab";

pub(crate) const STYLE: &str = "\
:root{--ink:#1b1f24;--muted:#5b6470;--line:#dfe3e8;--ttft:#2563eb;--total:#0f766e;--bad:#b91c1c}\
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--ink);\
max-width:1000px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}\
.muted{color:var(--muted)}.mono{font-family:ui-monospace,Menlo,Consolas,monospace}\
.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:8px}.card{border:1px solid var(--line);\
border-radius:6px;padding:8px 10px}.card .label{color:var(--muted);font-size:12px}.card .value{font-size:16px;\
font-weight:600}.card .how{color:var(--muted);font-size:11px}.honesty{border-left:4px solid #d97706;\
background:#fffbeb;padding:8px 12px 8px 28px}.honesty li{margin:2px 0}figure{margin:0}svg.chart{width:100%;\
height:auto}svg .tick,svg .note,svg .legend text{font-size:11px;\
fill:var(--muted)}svg .empty{fill:var(--muted)}svg circle.ttft{fill:var(--ttft)}svg circle.total{fill:var(--total)}\
svg path.error{stroke:var(--bad);stroke-width:1.5;fill:none}\
svg .slice-line{fill:none;stroke-width:2}svg .slice-line.total{stroke:var(--total)}svg .slice-line.ttft{stroke:var(--ttft)}\
svg .slice-line.p50{stroke-dasharray:4 3}svg .bar.asked{fill:#8a94a3;opacity:.6}svg .bar.served{fill:#2f8f5b;opacity:.7}table{border-collapse:collapse;width:100%;\
font-size:12px}th,td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}\
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}tr.failed td{color:var(--bad)}\
tr.warmup td{color:var(--muted)}.slot{border:1px dashed var(--line);border-radius:6px;padding:8px 12px}\
footer{margin-top:24px;color:var(--muted);font-size:11px}\
@media print{body{padding:0;max-width:none}@page{margin:12mm}thead{display:table-header-group}\
tr,figure,.card,.honesty{break-inside:avoid}h2{break-after:avoid}}";

/// The page.
pub fn to_html(snapshot: &ReportSnapshot) -> String {
    let mut page = String::with_capacity(16_384 + snapshot.results.len() * 300);
    let title = escape(&snapshot.report.title);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} — latency report</title>\
         <style>{STYLE}</style></head><body>"
    );
    header(&mut page, snapshot);
    cards(&mut page, snapshot);
    page.push_str("<h2>How these numbers were made</h2><ul class=\"honesty\">");
    for note in &snapshot.honesty {
        let _ = write!(page, "<li>{}</li>", escape(note));
    }
    page.push_str("</ul><h2>Latency per iteration</h2><figure>");
    let points: Vec<ScatterPoint> = snapshot
        .results
        .iter()
        .map(|r| ScatterPoint { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some() })
        .collect();
    page.push_str(&latency_scatter(&points));
    page.push_str("</figure>");
    let slices = crate::stats::time_slices(&snapshot.results);
    if !slices.is_empty() {
        page.push_str("<h2>Over the run</h2><figure id=\"time-slices\">");
        page.push_str(&crate::charts::time_slices_chart(&slices));
        page.push_str("</figure>");
    }
    super::workload_html::workload_section(&mut page, snapshot);
    let _ = write!(
        page,
        "<section id=\"{SPEC_LAB_SLOT_ID}\" class=\"slot\" data-slot=\"spec-lab-bottleneck\">\
         <h2>Speculative decoding</h2>"
    );
    match &snapshot.server {
        Some(server) => {
            page.push_str("<ul>");
            for note in crate::report::server_notes(server) {
                let _ = write!(page, "<li>{}</li>", escape(&note));
            }
            page.push_str("</ul></section>");
        }
        None => page.push_str(
            "<p class=\"muted\">This run did not record its server's metrics (the connector's server was not probed, \
             or is not self-hosted).</p></section>",
        ),
    }
    table(&mut page, snapshot);
    let _ = writeln!(
        page,
        "<footer>Exported from latency-guard. Report {} · all times in milliseconds, measured by the client.</footer>\
         </body></html>",
        escape(&snapshot.report.id)
    );
    page
}

fn header(page: &mut String, s: &ReportSnapshot) {
    let system = s.agent.system_prompt.as_deref().map_or_else(String::new, |p| {
        format!("<br>System prompt: <span class=\"mono\">{}</span>", escape(&p.chars().take(300).collect::<String>()))
    });
    let _ = write!(
        page,
        "<header><h1>{}</h1><p class=\"muted\">Created {} · endpoint <span class=\"mono\">{}</span> · model \
         <span class=\"mono\">{}</span><br>Agent {} · max_tokens {} · {} tool(s){system}</p></header>",
        escape(&s.report.title),
        escape(&s.report.created_at),
        escape(&s.connector.base_url),
        escape(&s.connector.model),
        escape(&s.agent.name),
        s.agent.token_budget,
        s.agent.tools.len(),
    );
}

fn cards(page: &mut String, s: &ReportSnapshot) {
    page.push_str("<h2>Summary</h2><div class=\"cards\">");
    for card in stat_cards(&s.stats, &summarize(&s.results)) {
        let _ = write!(
            page,
            "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div>\
             <div class=\"how\">{}</div></div>",
            card.label,
            escape(&card.value),
            card.how
        );
    }
    page.push_str("</div>");
}

fn table(page: &mut String, s: &ReportSnapshot) {
    page.push_str(
        "<h2>Iterations</h2><table><thead><tr><th class=\"num\">#</th><th>Prompt</th><th class=\"num\">Iter.</th>\
         <th class=\"num\">TTFT</th><th class=\"num\">Total</th><th class=\"num\">Tokens in / out</th>\
         <th class=\"num\">Cost (USD)</th><th>Error</th></tr></thead><tbody>",
    );
    let count = |t: Option<u64>| t.map_or_else(|| "—".to_string(), |t| t.to_string());
    for r in &s.results {
        let class = match (r.warmup, r.error.is_some()) {
            (true, _) => " class=\"warmup\"",
            (false, true) => " class=\"failed\"",
            (false, false) => "",
        };
        let _ = write!(
            page,
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
    page.push_str("</tbody></table>");
}
