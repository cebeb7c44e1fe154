//! The CSV export: a header line, then one row per measured iteration, lines joined with `\n`. Fields are quoted
//! per RFC 4180 when they hold a comma, quote or line break; the prompt is always quoted. Empty cell = no value.
//! Every run has four columns of timing after the first eleven, and a run with a workload three more after those. A text cell a spreadsheet would read as a
//! formula is written with a leading `'` ([`csv_field`]).

use std::fmt::Write;

use crate::runs::report::ReportSnapshot;

/// The columns, in order.
pub const CSV_COLUMNS: [&str; 11] = [
    "report_id",
    "agent",
    "connector_model",
    "prompt",
    "iteration",
    "ttft_ms",
    "total_ms",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "error",
];

/// The columns every run has after [`CSV_COLUMNS`] (which keep their places for readers of the first form): when
/// the request was sent (ms from the first send), its time per output token after the first, its mean gap between
/// tokens, and the prompt tokens the server said came from its cache.
pub const CSV_TIMING_COLUMNS: [&str; 4] = ["sent_at_ms", "tpot_ms", "itl_ms", "cached_tokens"];

/// The columns after those of a run with a workload: each request's asked lengths beside the server's counts
/// (`tokens_in`, `tokens_out`).
pub const CSV_WORKLOAD_COLUMNS: [&str; 3] = ["asked_input_tokens", "made_input_tokens", "asked_output_tokens"];

/// One text field: quoted (inner quotes doubled) when `always_quote` or when it holds `,`, `"`, CR or LF. A text
/// that a spreadsheet would take for a formula (it begins with `=`, `+`, `-`, `@`, a tab or a CR; CWE-1236) gets
/// a leading `'` and is quoted, as OWASP's CSV-injection advice says: a prompt, a model name or an endpoint's error
/// text then opens as the text it is. Numbers are written by the export itself and are left as they are.
pub fn csv_field(value: &str, always_quote: bool) -> String {
    let formula = value.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula {
        format!("\"'{}\"", value.replace('"', "\"\""))
    } else if always_quote || value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

fn number<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// The CSV text. Warm-up requests are left out: they are not part of the measurement (the JSON export keeps
/// them, flagged), and their iteration numbers would repeat the measured ones.
pub fn to_csv(snapshot: &ReportSnapshot) -> String {
    let fixed = [
        csv_field(&snapshot.report.id, false),
        csv_field(&snapshot.agent.name, false),
        csv_field(&snapshot.connector.model, false),
    ];
    let mut out = String::with_capacity(128 + snapshot.results.len() * 160);
    out.push_str(&CSV_COLUMNS.join(","));
    out.push(',');
    out.push_str(&CSV_TIMING_COLUMNS.join(","));
    let workload = snapshot.workload.is_some();
    if workload {
        out.push(',');
        out.push_str(&CSV_WORKLOAD_COLUMNS.join(","));
    }
    for r in snapshot.results.iter().filter(|r| !r.warmup) {
        // Numbers print in their shortest exact form (Rust's `Display` for f64), so they read back unchanged.
        let _ = write!(
            out,
            "\n{},{},{},{},{},{},{},{},{},{},{}",
            fixed[0],
            fixed[1],
            fixed[2],
            csv_field(&r.prompt, true),
            r.iteration,
            number(r.ttft_ms),
            r.total_ms,
            number(r.tokens_in),
            number(r.tokens_out),
            number(r.cost_usd),
            csv_field(r.error.as_deref().unwrap_or(""), false),
        );
        let _ = write!(
            out,
            ",{},{},{},{}",
            number(r.sent_at_ms),
            number(r.tpot_ms),
            number(r.itl_ms),
            number(r.cached_tokens)
        );
        if workload {
            let _ = write!(
                out,
                ",{},{},{}",
                number(r.asked_input_tokens),
                number(r.made_input_tokens),
                number(r.asked_output_tokens)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn a_text_a_spreadsheet_would_run_is_written_as_text() {
        let cases = [
            ("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""),
            ("+1+1", "\"'+1+1\""),
            ("-2+3", "\"'-2+3\""),
            ("@SUM(A1)", "\"'@SUM(A1)\""),
            ("\t=1", "\"'\t=1\""),
            ("\r=1", "\"'\r=1\""),
            ("a=1", "a=1"),
            ("plain", "plain"),
            ("", ""),
        ];
        for (value, written) in cases {
            assert_eq!(csv_field(value, false), written, "{value:?}");
        }
        assert_eq!(csv_field("x, y", false), "\"x, y\"");
    }
}
