//! A dataset or a trace named on the command line (`--dataset`, `--trace`, or `file` in a `--workload` file),
//! read once before the run: every row is checked (the first bad one is refused with its number, before anything
//! is sent) and counted, a row at a time, with progress on stderr for a large file. The run reads it again as it
//! sends.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::model::{DatasetFormat, TraceFormat, WorkloadFile};
use crate::workload::service::{read_rows, read_trace, DatasetError};

/// How often progress is printed while a file is read.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// What reading a trace found: the file, and the instant of each of its first rows' last (µs after its first).
pub struct TraceFound {
    /// The file.
    pub file: WorkloadFile<TraceFormat>,
    /// The instant of row `requests` (or the last), µs after the first row.
    pub span_us: u64,
}

/// Prints how far the reading of `path` got, now and then.
struct Progress<'a> {
    path: &'a Path,
    started: Instant,
    printed: Instant,
}

impl Progress<'_> {
    fn row(&mut self, rows: u64) {
        if self.printed.elapsed() >= PROGRESS_EVERY {
            eprintln!("reading {}: {rows} rows so far", self.path.display());
            self.printed = Instant::now();
        }
    }

    fn done(&self, rows: u64) {
        if self.started.elapsed() >= PROGRESS_EVERY {
            eprintln!("read {}: {rows} rows in {:.1} s", self.path.display(), self.started.elapsed().as_secs_f64());
        }
    }
}

fn progress(path: &Path) -> Progress<'_> {
    Progress { path, started: Instant::now(), printed: Instant::now() }
}

/// Why a dataset or trace file named on the command line is refused; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum DataFileError {
    /// Not a dataset's extension.
    #[error("{0}: a dataset is .jsonl (or .ndjson), .json (an array) or .csv")]
    DatasetFormat(String),
    /// Not a trace's extension.
    #[error("{0}: a trace is Mooncake's .jsonl or BurstGPT's .csv")]
    TraceFormat(String),
    /// A row (or the file) could not be read.
    #[error("{path}: {source}")]
    Refused {
        /// The file.
        path: String,
        /// Why, with the row's number.
        source: DatasetError,
    },
    /// More rows than a workload counts.
    #[error("{path}: {rows} rows; a workload reads at most {max}", max = u32::MAX)]
    TooManyRows {
        /// The file.
        path: String,
        /// Its rows.
        rows: u64,
    },
}

fn refused(path: &Path, source: DatasetError) -> DataFileError {
    DataFileError::Refused { path: path.display().to_string(), source }
}

fn rows_u32(path: &Path, rows: u64) -> Result<u32, DataFileError> {
    u32::try_from(rows).map_err(|_| DataFileError::TooManyRows { path: path.display().to_string(), rows })
}

/// The dataset at `path`, its format from its extension, every row read and checked.
pub fn dataset_file(path: &Path) -> Result<WorkloadFile<DatasetFormat>, DataFileError> {
    let name = path.to_string_lossy().to_string();
    let format = DatasetFormat::of_path(&name).ok_or_else(|| DataFileError::DatasetFormat(name.clone()))?;
    let mut shown = progress(path);
    let read = read_rows(path, format, |row, _| {
        shown.row(row);
        ControlFlow::Continue(())
    })
    .map_err(|e| refused(path, e))?;
    shown.done(read.rows);
    if read.skipped > 0 {
        eprintln!("{}: {} row(s) skipped: a conversation with no human turn has nothing to send", name, read.skipped);
    }
    let skipped = u32::try_from(read.skipped).unwrap_or(u32::MAX);
    Ok(WorkloadFile { path: name, format, rows: rows_u32(path, read.rows)?, skipped, uploaded: None })
}

/// The trace at `path`, its format from its extension (`.jsonl` Mooncake's, `.csv` BurstGPT's), every row read and
/// checked; the span of its first `requests` rows (all when `None`).
pub fn trace_file(path: &Path, requests: Option<u32>) -> Result<TraceFound, DataFileError> {
    let name = path.to_string_lossy().to_string();
    let format = TraceFormat::of_path(&name).ok_or_else(|| DataFileError::TraceFormat(name.clone()))?;
    let mut shown = progress(path);
    let (mut seen, mut span_us) = (0u64, 0);
    let rows = read_trace(path, format, |row, found| {
        seen += 1;
        if requests.is_none_or(|r| seen <= u64::from(r)) {
            span_us = found.at_us;
        }
        shown.row(row);
        ControlFlow::Continue(())
    })
    .map_err(|e| refused(path, e))?;
    shown.done(rows);
    let file = WorkloadFile { path: name, format, rows: rows_u32(path, rows)?, skipped: 0, uploaded: None };
    Ok(TraceFound { file, span_us })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_file_and_the_row_it_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("chats.jsonl");
        std::fs::write(&good, "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n").unwrap();
        let file = dataset_file(&good).unwrap();
        assert_eq!((file.format, file.rows), (DatasetFormat::Jsonl, 2));
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"prompt\": \"a\"}\n{\"prompt\": \n").unwrap();
        let error = dataset_file(&bad).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: row 2:", bad.display())), "{error}");
        let odd = dir.path().join("chats.txt");
        std::fs::write(&odd, "x").unwrap();
        assert!(dataset_file(&odd)
            .unwrap_err()
            .to_string()
            .ends_with("a dataset is .jsonl (or .ndjson), .json (an array) or .csv"));
        let trace = dir.path().join("trace.jsonl");
        std::fs::write(
            &trace,
            "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n\
             {\"timestamp\": 40, \"input_length\": 5, \"output_length\": 1}\n\
             {\"timestamp\": 90, \"input_length\": 5, \"output_length\": 1}\n",
        )
        .unwrap();
        let found = trace_file(&trace, Some(2)).unwrap();
        assert_eq!((found.file.format, found.file.rows, found.span_us), (TraceFormat::Mooncake, 3, 40_000));
    }
}
