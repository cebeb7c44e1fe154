//! The HTML export's workload section: the workload in words, the lengths asked beside those served (histograms
//! and their table), the cache, and a multi-turn workload's figures by turn — what the report page shows of it.

use std::fmt::Write;

use crate::charts::{escape_text as escape, length_histogram};
use crate::report::{
    cache_words, cached_share, length_rows, length_series, tenths, ReportSnapshot, INPUT_LENGTHS, OUTPUT_LENGTHS,
};

/// The section, when the run had a workload.
pub(super) fn workload_section(page: &mut String, snapshot: &ReportSnapshot) {
    let Some(report) = &snapshot.workload else { return };
    let lengths = length_series(&report.spec, &snapshot.results);
    let _ = write!(
        page,
        "<section id=\"workload\"><h2>Workload</h2><p class=\"muted\">{}</p><figure>{}</figure><figure>{}</figure>\
         <table id=\"workload-lengths\"><thead><tr><th>Tokens</th><th class=\"num\">Requests</th>\
         <th class=\"num\">Min</th><th class=\"num\">Median</th><th class=\"num\">Mean</th><th class=\"num\">Max</th>\
         </tr></thead><tbody>",
        escape(&report.spec.describe()),
        length_histogram(&lengths.asked_input, &lengths.served_input, INPUT_LENGTHS),
        length_histogram(&lengths.asked_output, &lengths.served_output, OUTPUT_LENGTHS),
    );
    for (label, s) in length_rows(report) {
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(label),
            s.n,
            tenths(s.min),
            tenths(s.p50),
            tenths(s.mean),
            tenths(s.max)
        );
    }
    let _ = write!(
        page,
        "</tbody></table><p>{} answer(s) ended before their asked length.</p><h2>Cache</h2><p id=\"cache\">{}</p>",
        report.ended_early,
        escape(&cache_words(report.cached_tokens, cached_share(&snapshot.results)))
    );
    if !report.by_turn.is_empty() {
        let n = |v: Option<f64>| v.map_or_else(|| "—".to_string(), tenths);
        page.push_str(
            "<h2>By turn</h2><table id=\"by-turn\"><thead><tr><th class=\"num\">Turn</th><th class=\"num\">Done</th>\
             <th class=\"num\">Failed</th><th class=\"num\">TTFT p50 / p90 (ms)</th><th class=\"num\">TPOT p50 (ms)</th>\
             <th class=\"num\">Prompt tokens (mean)</th><th class=\"num\">Cached tokens (mean)</th></tr></thead><tbody>",
        );
        for t in &report.by_turn {
            let _ = write!(
                page,
                "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{} / {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td></tr>",
                t.turn,
                t.requests,
                t.failed,
                n(t.ttft_p50_ms),
                n(t.ttft_p90_ms),
                n(t.tpot_p50_ms),
                n(t.prompt_tokens_mean),
                n(t.cached_tokens_mean)
            );
        }
        page.push_str("</tbody></table>");
    }
    page.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::model::{IterationRecord, LengthDist, TokenSource, Workload};

    /// Turn `index % 2` of conversation `index / 2`: its prompt `prompt` tokens, `cached` of them from the cache.
    fn turn(index: u32, prompt: u64, cached: u64) -> IterationRecord {
        let asked = if index.is_multiple_of(2) { 30 } else { 10 };
        IterationRecord {
            prompt_index: index,
            asked_input_tokens: Some(asked),
            made_input_tokens: Some(asked),
            asked_output_tokens: Some(5),
            tokens_in: Some(prompt),
            tokens_out: Some(5),
            cached_tokens: Some(cached),
            token_source: TokenSource::Reported,
            ..iteration_record(u64::from(index), Some(20.0 + f64::from(index)), 80.0, false)
        }
    }

    #[test]
    fn a_multi_turn_report_exports_its_lengths_cache_and_turns() {
        let mut input = plan_input(&[], 64, 1);
        input.iterations = 1;
        input.workload = Some(Workload::MultiTurn {
            users: 2,
            turns: 2,
            first: LengthDist::fixed(30),
            follow_up: LengthDist::fixed(10),
            output: LengthDist::fixed(5),
            think: Default::default(),
            seed: 4,
        });
        let run = completed_run(input, "m");
        let (snapshot, _) =
            crate::report::snapshot(&run, vec![turn(0, 32, 0), turn(1, 47, 32), turn(2, 32, 0), turn(3, 47, 40)]);
        let html = crate::export::to_html(&snapshot);
        let section = &html[html.find("<section id=\"workload\">").unwrap()..html.find("id=\"spec-lab\"").unwrap()];
        assert!(section.contains("multi-turn: 2 conversation(s) of 2 turns"), "{section}");
        // Asked prompts 30, 10, 30, 10: median 20; the server counted first turns at 32 (2 more than asked).
        assert!(
            section.contains(
                "<td>Prompt, asked</td><td class=\"num\">4</td><td class=\"num\">10</td><td class=\"num\">20</td>"
            ),
            "{section}"
        );
        let deviation =
            "<td>Server&#39;s count − asked (first turns)</td><td class=\"num\">2</td><td class=\"num\">2</td>";
        assert!(section.contains(deviation), "{section}");
        // Turn 2 is requests 1 and 3, TTFT 21 and 23 ms: numpy.percentile([21, 23], [50, 90]) = 22, 22.8.
        // (0 + 32 + 0 + 40) / (32 + 47 + 32 + 47) = 45.6 %.
        assert!(section.contains("; 45.6% of their prompt tokens"), "{section}");
        assert!(section.contains("<td class=\"num\">2</td><td class=\"num\">2</td><td class=\"num\">0</td><td class=\"num\">22 / 22.8</td>"), "{section}");
        assert!(section.contains("class=\"bar asked\"") && section.contains("class=\"bar served\""));
        let (without, _) = crate::report::snapshot(&completed_run(plan_input(&["p"], 64, 1), "m"), vec![]);
        assert!(!crate::export::to_html(&without).contains("id=\"workload\""));
    }
}
