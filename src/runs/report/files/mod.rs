//! A report's files — JSON, CSV and a self-contained HTML page — as pure functions of a report snapshot and the
//! sections the server rendered for it, so the browser (WASM, no further round-trip), the `export` command and the
//! tests produce byte-identical files.

mod csv;
mod html;

pub use self::csv::{csv_field, to_csv, CSV_COLUMNS, CSV_TIMING_COLUMNS, CSV_WORKLOAD_COLUMNS};
pub use self::html::to_html;

use super::{ReportFiles, ReportSnapshot};
use crate::export::named_file;

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
