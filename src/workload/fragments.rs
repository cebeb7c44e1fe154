//! An uploaded dataset as the workloads page lists it: its size and rows in words, and the histogram of its rows'
//! prompt lengths (estimated) beside the answer lengths rows ask.

use crate::charts::{token_histogram, Series};
use crate::wire::ServerHtml;
use crate::workload::model::{DatasetChoice, DatasetListing, LengthCounts, UploadedDataset};

/// Each length as often as rows had it.
fn values(counts: &LengthCounts) -> Vec<f64> {
    counts.iter().flat_map(|&(tokens, rows)| std::iter::repeat_n(f64::from(tokens), rows as usize)).collect()
}

/// The listing of `dataset`.
pub fn dataset_listing(dataset: &UploadedDataset) -> DatasetListing {
    let (prompts, outputs) = (values(&dataset.prompt_tokens), values(&dataset.output_tokens));
    let median =
        |sorted: &[f64]| crate::stats::percentile(sorted, 50.0).map_or_else(|| "–".into(), crate::report::tenths);
    let asked = match outputs.len() {
        0 => "no row asks an answer length (output_tokens)".to_string(),
        n => format!("{n} row(s) ask an answer length, median {} tokens", median(&outputs)),
    };
    let skipped = match dataset.skipped {
        0 => String::new(),
        n => format!(" ({n} skipped: a conversation with no human turn has nothing to send)"),
    };
    let summary = format!(
        "{} rows{skipped}, {} · prompts median {} tokens (estimated with o200k_base: the model's own count is in a \
         run's report) · {asked}",
        dataset.rows,
        kib(dataset.bytes),
        median(&prompts),
    );
    let svg = token_histogram(
        &[
            Series { class: "asked", name: "prompt, estimated", values: &prompts },
            Series { class: "served", name: "answer asked", values: &outputs },
        ],
        "Prompt lengths (estimated) and asked answer lengths of the dataset's rows, in tokens",
    );
    DatasetListing { choice: DatasetChoice::from(dataset), summary, lengths: ServerHtml::trusted(svg) }
}

/// A size in KiB (or MiB), for people.
fn kib(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}
