//! A workload file (TOML) as `--workload` reads it: the workload's own keys (`model::Workload`), and, for a
//! `histogram` length, a `file` of lengths instead of inline `bins`: a CSV of `tokens,count` rows (a header line is
//! allowed), relative to the workload file — the empirical lengths of a dataset measured elsewhere. A dataset's or
//! a trace's `file` is a path too, relative to the workload file, read and checked here (`data_files`); without
//! `requests`, every row is sent (a dataset's after its warm-ups).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::model::{workload_limits, Workload};

/// The length tables of a workload that may name a histogram file.
const LENGTH_KEYS: [&str; 5] = ["input", "output", "suffix", "first", "followUp"];
/// The largest histogram file read.
const MAX_HISTOGRAM_FILE_BYTES: u64 = 1024 * 1024;

/// Why a workload file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadFileError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// Which file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The workload file is not a workload.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// Which file.
        path: PathBuf,
        /// What is wrong, in the TOML reader's words.
        reason: String,
    },
    /// A histogram file has a row that is not `tokens,count`.
    #[error("{}, line {line}: {reason}", path.display())]
    Histogram {
        /// Which file.
        path: PathBuf,
        /// Its line, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// A workload as the command line gave it.
#[derive(Debug)]
pub struct GivenWorkload {
    /// The workload.
    pub workload: Workload,
    /// A trace's span over the requests it sends, µs (from its first row to its last sent).
    pub trace_span_us: Option<u64>,
}

/// The workload `path` describes, its histogram files read, its dataset or trace read and checked; `warmup`
/// warm-ups come first.
pub fn read_workload(path: &Path, warmup: u32) -> Result<GivenWorkload, WorkloadFileError> {
    let invalid = |reason: String| WorkloadFileError::Invalid { path: path.to_path_buf(), reason };
    let text = std::fs::read_to_string(path).map_err(|source| WorkloadFileError::Read { path: path.into(), source })?;
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| invalid(e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let trace_span_us = read_data_file(&mut table, dir, warmup).map_err(|e| invalid(e.to_string()))?;
    for key in LENGTH_KEYS {
        let Some(toml::Value::Table(length)) = table.get_mut(key) else { continue };
        let Some(file) = length.remove("file") else { continue };
        let toml::Value::String(file) = file else {
            return Err(invalid(format!("{key}.file must be the path of a CSV of tokens,count rows")));
        };
        if length.contains_key("bins") {
            return Err(invalid(format!("{key}: give bins or a file, not both")));
        }
        let bins = histogram_file(&dir.join(file))?;
        let bins = bins.into_iter().map(|(tokens, count)| toml::Value::Array(vec![tokens.into(), count.into()]));
        length.insert("bins".into(), toml::Value::Array(bins.collect()));
    }
    let workload = toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| invalid(e.to_string()))?;
    Ok(GivenWorkload { workload, trace_span_us })
}

/// Why a workload file's dataset or trace could not be taken in.
#[derive(Debug, thiserror::Error)]
enum DataFileRefusal {
    /// A dataset or trace without its `file`.
    #[error("a {0} names its file: file = \"rows.jsonl\"")]
    NoFile(String),
    /// The file named is refused.
    #[error(transparent)]
    File(#[from] super::data_files::DataFileError),
    /// What was read could not be written back into the workload (a bug, said as it is).
    #[error("{0}")]
    Described(#[from] toml::ser::Error),
}

/// A dataset's or a trace's `file`: read, checked and described as the workload keeps it; `requests` set to every
/// row when not given. A trace's span over the requests it sends.
fn read_data_file(table: &mut toml::Table, dir: &Path, warmup: u32) -> Result<Option<u64>, DataFileRefusal> {
    let kind = table.get("kind").and_then(toml::Value::as_str).unwrap_or_default().to_string();
    if kind != "dataset" && kind != "trace" {
        return Ok(None);
    }
    let Some(toml::Value::String(file)) = table.get("file") else {
        return Err(DataFileRefusal::NoFile(kind));
    };
    let file = dir.join(file);
    let requests = table.get("requests").and_then(toml::Value::as_integer).and_then(|r| u32::try_from(r).ok());
    let (described, rows, span) = if kind == "dataset" {
        let found = super::data_files::dataset_file(&file)?;
        let rows = found.rows;
        (toml::Value::try_from(found)?, rows.saturating_sub(warmup), None)
    } else {
        let found = super::data_files::trace_file(&file, requests)?;
        let rows = found.file.rows;
        (toml::Value::try_from(found.file)?, rows, Some(found.span_us))
    };
    table.insert("file".into(), described);
    table.entry("requests").or_insert(toml::Value::Integer(i64::from(rows)));
    Ok(span)
}

/// The `(tokens, count)` rows of a histogram file, read line by line.
fn histogram_file(path: &Path) -> Result<Vec<(i64, f64)>, WorkloadFileError> {
    let read = |source| WorkloadFileError::Read { path: path.to_path_buf(), source };
    let row_error =
        |line: usize, reason: String| WorkloadFileError::Histogram { path: path.to_path_buf(), line, reason };
    let file = std::fs::File::open(path).map_err(read)?;
    if file.metadata().map_err(read)?.len() > MAX_HISTOGRAM_FILE_BYTES {
        return Err(row_error(0, format!("the file is over {} KiB", MAX_HISTOGRAM_FILE_BYTES / 1024)));
    }
    let mut bins = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(read)?;
        let number = index + 1;
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        let [tokens, count] = fields[..] else {
            return Err(row_error(number, format!("expected tokens,count; found {} fields", fields.len())));
        };
        // A first line of words is a header.
        if number == 1 && tokens.parse::<f64>().is_err() {
            continue;
        }
        let tokens: u32 =
            tokens.parse().ok().filter(|t| (1..=workload_limits::MAX_INPUT_TOKENS).contains(t)).ok_or_else(|| {
                row_error(
                    number,
                    format!("tokens {tokens:?} is not a whole number from 1 to {}", workload_limits::MAX_INPUT_TOKENS),
                )
            })?;
        let count: f64 = count
            .parse()
            .ok()
            .filter(|c: &f64| c.is_finite() && *c >= 0.0)
            .ok_or_else(|| row_error(number, format!("count {count:?} is not a number of 0 or more")))?;
        if bins.len() == workload_limits::MAX_HISTOGRAM_BINS {
            return Err(row_error(number, format!("more than {} rows", workload_limits::MAX_HISTOGRAM_BINS)));
        }
        bins.push((i64::from(tokens), count));
    }
    Ok(bins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LengthDist;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    const WORKLOAD: &str =
        "kind = \"synthetic\"\nrequests = 5\n[input]\nkind = \"histogram\"\nfile = \"lengths.csv\"\n\
                            [output]\nkind = \"fixed\"\ntokens = 8\n";

    #[test]
    fn a_histogram_file_beside_the_workload_becomes_its_bins() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "lengths.csv", "tokens,count\n120, 3\n\n480,1.5\n");
        let workload = read_workload(&write(dir.path(), "w.toml", WORKLOAD), 0).unwrap().workload;
        let Workload::Synthetic { input, .. } = workload else { panic!("{workload:?}") };
        assert_eq!(input, LengthDist::Histogram { bins: vec![(120, 3.0), (480, 1.5)] });
    }

    #[test]
    fn a_bad_row_is_named_by_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let workload = write(dir.path(), "w.toml", WORKLOAD);
        for (csv, line, words) in [
            ("tokens,count\n120,3\n0,1\n", 3, "tokens \"0\""),
            ("120,3\n200,-1\n", 2, "count \"-1\""),
            ("120,3,9\n", 1, "found 3 fields"),
            ("120;3\n", 1, "found 1 fields"),
        ] {
            write(dir.path(), "lengths.csv", csv);
            let error = read_workload(&workload, 0).unwrap_err().to_string();
            assert!(
                error.contains(&format!("lengths.csv, line {line}: ")) && error.contains(words),
                "{csv:?}: {error}"
            );
        }
        std::fs::remove_file(dir.path().join("lengths.csv")).unwrap();
        let missing = read_workload(&workload, 0).unwrap_err().to_string();
        assert!(missing.contains("lengths.csv") && missing.contains("No such file"), "{missing}");
        let both =
            write(dir.path(), "both.toml", &WORKLOAD.replace("file = \"lengths.csv\"", "file = \"x\"\nbins = []"));
        assert!(read_workload(&both, 0).unwrap_err().to_string().contains("bins or a file, not both"));
    }
}
