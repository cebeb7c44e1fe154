//! The files a workload reads its requests from: a dataset of prompts (JSONL, a JSON array, CSV) or a trace of
//! timed requests (Mooncake's JSONL, BurstGPT's CSV). A workload names its file and what was found in it when the
//! run was planned (every row was read and checked then), so the report says what was sent without the file.

use serde::{Deserialize, Serialize};

/// How a dataset's rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DatasetFormat {
    /// One JSON object a line (`.jsonl`, `.ndjson`).
    Jsonl,
    /// A JSON array of objects (`.json`).
    Json,
    /// Comma-separated, with a header naming a `prompt` column (`.csv`).
    Csv,
}

crate::model::spelled!(DatasetFormat { Jsonl => "jsonl", Json => "json", Csv => "csv" });

impl DatasetFormat {
    /// The format a file's name says: by its extension.
    pub fn of_path(path: &str) -> Option<Self> {
        let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }
}

/// How a trace's rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TraceFormat {
    /// Mooncake's JSONL: `timestamp` (ms), `input_length`, `output_length`, `hash_ids` (one id a block of the
    /// prompt; equal ids are equal blocks).
    Mooncake,
    /// BurstGPT's CSV: `Timestamp` (s), `Request tokens`, `Response tokens` (and columns not used).
    BurstGpt,
}

impl TraceFormat {
    /// The format a file's name says: `.csv` is BurstGPT's, `.jsonl` Mooncake's.
    pub fn of_path(path: &str) -> Option<Self> {
        match DatasetFormat::of_path(path)? {
            DatasetFormat::Jsonl => Some(Self::Mooncake),
            DatasetFormat::Csv => Some(Self::BurstGpt),
            DatasetFormat::Json => None,
        }
    }
}

/// A workload's file, as found when the run was planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadFile<F> {
    /// Where it is, on the machine that runs `bench` (a server reads no path a request names); an uploaded
    /// dataset's name as uploaded.
    pub path: String,
    /// How its rows are written.
    pub format: F,
    /// Rows it holds, every one a request.
    pub rows: u32,
    /// Rows skipped, with nothing to send (a ShareGPT conversation with no human turn).
    #[serde(default, skip_serializing_if = "none_skipped")]
    pub skipped: u32,
    /// A dataset uploaded to the workspace and kept by the server, which a server may read (its name, format and
    /// rows are then the server's record of it, whatever a request says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uploaded: Option<crate::model::DatasetId>,
}

impl<F: Serialize> WorkloadFile<F> {
    /// The file in a few words: `chats.jsonl (jsonl, 1200 rows)`, `sharegpt.json (json, 1200 rows; 3 skipped, no
    /// human turn)`.
    pub fn describe(&self) -> String {
        let format = serde_json::to_value(&self.format).ok().and_then(|v| v.as_str().map(str::to_string));
        let uploaded = if self.uploaded.is_some() { "uploaded, " } else { "" };
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!("; {n} skipped, no human turn"),
        };
        format!("{} ({uploaded}{}, {} rows{skipped})", self.path, format.unwrap_or_default(), self.rows)
    }
}

/// Whether no row was skipped (a file's JSON then says nothing of skipping, as before rows could be).
fn none_skipped(skipped: &u32) -> bool {
    *skipped == 0
}
