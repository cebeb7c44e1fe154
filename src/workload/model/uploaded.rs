//! A dataset uploaded to a workspace: the file a browser sends, kept by the server (within [`MAX_DATASET_BYTES`])
//! so a workload can name it, with what was found in it when it was read — its rows, and their lengths for the
//! histograms the workloads page shows.

use serde::{Deserialize, Serialize};

use crate::model::DatasetFormat;
use crate::model::DatasetId;

/// The largest file an upload may be: enough for tens of thousands of chat prompts; a larger dataset is sent with
/// `latency-guard bench --dataset`, which streams it from disk.
pub const MAX_DATASET_BYTES: usize = 16 * 1024 * 1024;

/// How many rows had each length: `(tokens, rows)`, by tokens.
pub type LengthCounts = Vec<(u32, u32)>;

/// An uploaded dataset, as listed (its text stays in the database).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadedDataset {
    /// Its id.
    pub id: DatasetId,
    /// The file's name as uploaded.
    pub name: String,
    /// How its rows are written (from the name's extension).
    pub format: DatasetFormat,
    /// Rows read, every one a prompt.
    pub rows: u32,
    /// Rows skipped, with nothing to send (a ShareGPT conversation with no human turn).
    #[serde(default)]
    pub skipped: u32,
    /// The file's size.
    pub bytes: u64,
    /// Each row's prompt length, estimated with OpenAI's o200k_base BPE (the model a run sends it to is not known
    /// when a file is uploaded; a run's report has the server's own count).
    pub prompt_tokens: LengthCounts,
    /// The answer lengths the rows ask (`output_tokens`), of the rows that give one.
    pub output_tokens: LengthCounts,
    /// When it was uploaded, unix ms.
    pub created_at_ms: i64,
}

/// An uploaded dataset as the workload form offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetChoice {
    /// Its id.
    pub id: DatasetId,
    /// Its name.
    pub name: String,
    /// How its rows are written.
    pub format: DatasetFormat,
    /// Its rows.
    pub rows: u32,
}

impl From<&UploadedDataset> for DatasetChoice {
    fn from(dataset: &UploadedDataset) -> Self {
        Self { id: dataset.id, name: dataset.name.clone(), format: dataset.format, rows: dataset.rows }
    }
}

/// An uploaded dataset as the workloads page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetListing {
    /// What a workload form offers of it.
    pub choice: DatasetChoice,
    /// Its size, rows and lengths, in words.
    pub summary: String,
    /// Its prompt lengths (estimated) and asked answer lengths, drawn on the server.
    pub lengths: crate::wire::ServerHtml,
}

/// `(length, rows)` counts of `lengths`, by length.
pub fn length_counts(lengths: impl IntoIterator<Item = u32>) -> LengthCounts {
    let mut counts = std::collections::BTreeMap::<u32, u32>::new();
    for length in lengths {
        *counts.entry(length).or_default() += 1;
    }
    counts.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_counted_by_length() {
        assert_eq!(length_counts([5, 3, 5, 9, 5]), vec![(3, 1), (5, 3), (9, 1)]);
        assert!(length_counts([]).is_empty());
    }
}
