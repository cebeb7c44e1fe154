//! Report exports — JSON, CSV and a self-contained HTML page — as pure functions of a report snapshot and the
//! sections the server rendered for it, so the browser (WASM, no further round-trip), the `export` command and the
//! tests produce byte-identical files. Every HTML export (a sweep's and an A/B test's too) is
//! [`standalone_page`] around the sections the page itself shows.

mod csv;
mod document;
mod html;

pub use self::csv::{csv_field, to_csv, CSV_COLUMNS, CSV_WORKLOAD_COLUMNS};
pub use self::document::{job_page_file, standalone_page, MEASURED_BY_THE_CLIENT};
pub use self::html::to_html;

use crate::report::{ReportFiles, ReportSnapshot};

/// A file format a report exports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// The whole snapshot, pretty-printed.
    Json,
    /// One row per measured iteration.
    Csv,
    /// One printable page.
    Html,
}

crate::model::spelled!(ExportFormat { Json => "json", Csv => "csv", Html => "html" });

impl ExportFormat {
    /// The media type of the file.
    pub fn media_type(self) -> &'static str {
        match self {
            ExportFormat::Json => "application/json",
            ExportFormat::Csv => "text/csv",
            ExportFormat::Html => "text/html",
        }
    }
}

/// The file's text.
pub fn export(files: &ReportFiles, format: ExportFormat) -> String {
    match format {
        ExportFormat::Json => to_json(&files.snapshot),
        ExportFormat::Csv => to_csv(&files.snapshot),
        ExportFormat::Html => to_html(files),
    }
}

/// The snapshot exactly as stored, pretty-printed: `report, agent, connector, stats, results, honesty`.
pub fn to_json(snapshot: &ReportSnapshot) -> String {
    // Serialising plain data with string keys cannot fail.
    serde_json::to_string_pretty(snapshot).unwrap_or_default()
}

/// `latency-report-<title>-<date>.<ext>`, with the title reduced to letters, digits and dashes.
pub fn file_name(snapshot: &ReportSnapshot, format: ExportFormat) -> String {
    named_file("latency-report", &snapshot.report.title, &snapshot.report.created_at, format.as_str())
}

/// `<kind>-<title>-<date>.<extension>`: the title reduced to lowercase letters, digits and single dashes (at most
/// 60 characters; "report" when nothing is left), the date the first ten characters of an ISO 8601 time.
pub fn named_file(kind: &str, title: &str, created_at: &str, extension: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(60).collect();
    let date = created_at.get(..10).unwrap_or("undated");
    let name = if slug.is_empty() { "report".to_string() } else { slug };
    format!("{kind}-{name}-{date}.{extension}")
}
