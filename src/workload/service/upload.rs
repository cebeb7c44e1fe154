//! Reading a dataset a browser uploads, before anything is stored: within [`MAX_DATASET_BYTES`], UTF-8 text
//! without NUL (a database column of text holds it), a format the file's name says, and every row a prompt — the
//! first bad row refused with its number. What it finds (rows, each row's prompt length estimated with a well-known
//! BPE, the answer lengths rows ask) is what the workloads page shows of it. Every row is checked before any is
//! estimated, with the process's one shared estimator; a workspace whose uploads keep being refused waits
//! ([`REFUSED_UPLOAD_BUDGET`]).

use std::io::Cursor;
use std::ops::ControlFlow;

use super::dataset::{read_rows_from, DatasetError};
use super::offline::EstimateTokenizer;
use crate::model::{DatasetFormat, ValidationError};
use crate::workload::model::{length_counts, LengthCounts, MAX_DATASET_BYTES};

/// Refused uploads a workspace may make: a burst, then one every 30 seconds. Each refusal costs the server a read
/// of up to 16 MiB; past the budget the next upload waits, whatever it holds.
pub const REFUSED_UPLOAD_BUDGET: crate::rate_limit::Budget =
    crate::rate_limit::Budget { burst: 20.0, refill: std::time::Duration::from_secs(30) };

/// The longest name an uploaded dataset keeps.
pub const MAX_DATASET_NAME_CHARS: usize = 200;

/// Why an upload was refused; nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UploadError {
    /// The file is over the limit.
    #[error(
        "the file is larger than the limit of {MAX_DATASET_BYTES} bytes (16 MiB): send a larger dataset with \
         `latency-guard bench --dataset`, which streams it from disk"
    )]
    TooLarge,
    /// The name is not usable.
    #[error("{0}")]
    Name(ValidationError),
    /// The name's extension is not a dataset format.
    #[error("{name:?} is not a dataset file: its name must end in .jsonl (or .ndjson), .json or .csv")]
    UnknownFormat {
        /// The name given.
        name: String,
    },
    /// The bytes are not UTF-8 text.
    #[error("the file is not UTF-8 text (byte {offset} is not)")]
    NotText {
        /// Where the first bad byte is.
        offset: usize,
    },
    /// The text holds a NUL character.
    #[error("the file holds a NUL character (byte {offset}): a dataset is text")]
    Nul {
        /// Where it is.
        offset: usize,
    },
    /// A row is not a prompt.
    #[error("{0}")]
    Rows(#[from] DatasetError),
    /// No row at all.
    #[error("the file holds no rows")]
    Empty,
    /// The estimating tokenizer could not be loaded.
    #[error("the token estimate could not be made: {0}")]
    Estimate(String),
}

/// What was found in an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadUpload {
    /// The name, trimmed.
    pub name: String,
    /// The format its name says.
    pub format: DatasetFormat,
    /// Rows, every one a prompt.
    pub rows: u32,
    /// Rows skipped, with nothing to send (a ShareGPT conversation with no human turn).
    pub skipped: u32,
    /// Each row's prompt length (its messages' text together), estimated with o200k_base, counted.
    pub prompt_tokens: LengthCounts,
    /// The answer lengths rows ask (`output_tokens`), counted.
    pub output_tokens: LengthCounts,
}

/// Reads and checks the upload `bytes` named `name`; its text, and what was found in it.
pub fn read_upload<'a>(name: &str, bytes: &'a [u8]) -> Result<(&'a str, ReadUpload), UploadError> {
    if bytes.len() > MAX_DATASET_BYTES {
        return Err(UploadError::TooLarge);
    }
    let name = crate::model::display_name(name, "name", MAX_DATASET_NAME_CHARS).map_err(UploadError::Name)?;
    let format = DatasetFormat::of_path(&name).ok_or_else(|| UploadError::UnknownFormat { name: name.clone() })?;
    let text = std::str::from_utf8(bytes).map_err(|e| UploadError::NotText { offset: e.valid_up_to() })?;
    if let Some(offset) = text.find('\0') {
        return Err(UploadError::Nul { offset });
    }
    // Every row is checked before any is estimated: a refused file costs a parse, never the estimate.
    let found = read_rows_from(Cursor::new(bytes), format, |_, _| ControlFlow::Continue(()))?;
    let rows = found.rows;
    if rows == 0 {
        return Err(UploadError::Empty);
    }
    let estimate = EstimateTokenizer::shared().map_err(|e| UploadError::Estimate(e.to_string()))?;
    let (mut prompts, mut outputs) = (Vec::with_capacity(usize::try_from(rows).unwrap_or(0)), vec![]);
    read_rows_from(Cursor::new(bytes), format, |_, row| {
        let tokens: usize = row.messages.iter().map(|(_, text)| estimate.count(text)).sum();
        prompts.push(u32::try_from(tokens).unwrap_or(u32::MAX));
        outputs.extend(row.output_tokens);
        ControlFlow::Continue(())
    })?;
    let read = ReadUpload {
        name,
        format,
        rows: u32::try_from(rows).unwrap_or(u32::MAX),
        skipped: u32::try_from(found.skipped).unwrap_or(u32::MAX),
        prompt_tokens: length_counts(prompts),
        output_tokens: length_counts(outputs),
    };
    Ok((text, read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_is_read_whole_with_its_lengths() {
        let text = "{\"prompt\": \"hello there\"}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \
                    \"output_tokens\": 12}\n";
        let (kept, read) = read_upload(" chats.jsonl ", text.as_bytes()).unwrap();
        assert_eq!(kept, text);
        assert_eq!((read.name.as_str(), read.format, read.rows), ("chats.jsonl", DatasetFormat::Jsonl, 2));
        // o200k_base: "hello there" is 2 tokens, "hi" 1.
        assert_eq!(read.prompt_tokens, vec![(1, 1), (2, 1)]);
        assert_eq!(read.output_tokens, vec![(12, 1)]);
    }

    #[test]
    fn every_kind_of_bad_upload_is_refused_with_what_is_wrong() {
        let refused = |name: &str, bytes: &[u8]| read_upload(name, bytes).unwrap_err().to_string();
        let bad_row = refused("d.jsonl", b"{\"prompt\": \"a\"}\n{\"prompt\": 5}\n");
        assert!(bad_row.starts_with("row 2: "), "{bad_row}");
        assert!(refused("d.csv", b"question\nhi\n").contains("prompt"), "a CSV without a prompt column");
        assert!(refused("d.txt", b"x").contains("must end in .jsonl"));
        assert_eq!(refused("d.jsonl", b"\xff\xfe"), "the file is not UTF-8 text (byte 0 is not)");
        assert!(refused("d.jsonl", b"{\"prompt\": \"a\0\"}").contains("NUL character (byte 13)"));
        assert_eq!(refused("d.jsonl", b"\n\n"), "the file holds no rows");
        assert!(refused("  ", b"{}").starts_with("name"));
        let huge = vec![b' '; MAX_DATASET_BYTES + 1];
        assert!(refused("d.jsonl", &huge).contains("larger than the limit of 16777216 bytes"));
    }
}
