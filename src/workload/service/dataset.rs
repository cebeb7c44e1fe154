//! Reading a dataset of prompts, row by row, however large: JSONL a line at a time, a JSON array an element at a
//! time (serde's sequence visitor over a buffered reader), CSV a record at a time. Nothing holds the whole file;
//! one row is at most [`MAX_ROW_BYTES`]. Every bad row is refused with its number, so a file is checked whole
//! before a run sends anything (the CLI reads it once to count and check, and again as the run sends).

use std::io::{BufRead, BufReader, Read};
use std::ops::ControlFlow;
use std::path::Path;

use serde::Deserialize;

use crate::model::{workload_limits, DatasetFormat};

/// The longest row read: a prompt of the longest context is well under it.
pub const MAX_ROW_BYTES: u64 = 4 * 1024 * 1024;

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The system prompt.
    System,
    /// The user.
    User,
    /// The model, in a conversation's earlier turns.
    Assistant,
}

impl Role {
    /// The role as the chat-completions API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// One row: the messages to send, the last the user's, and the answer length it asks, if it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetRow {
    /// The messages, in order.
    pub messages: Vec<(Role, String)>,
    /// `output_tokens`, when the row gives it.
    pub output_tokens: Option<u32>,
    /// A ShareGPT conversation's model answer recorded right after the human turn sent, whose length a workload may
    /// ask of the answer (as `vllm bench` and AIPerf do).
    pub recorded_answer: Option<String>,
}

/// Why a dataset could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DatasetError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Read(String),
    /// A row is not a prompt.
    #[error("row {row}: {reason}")]
    Row {
        /// Its number, from 1: a JSONL or CSV file's line, a JSON array's element.
        row: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// The file is not what its format says, beyond one row (a JSON file that is not an array, a CSV without a
    /// `prompt` column).
    #[error("{0}")]
    Shape(String),
}

/// A row as written: one of the three shapes, unknown keys ignored (datasets carry ids and metadata).
/// Why a row that parsed is not a prompt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// None of the three shapes.
    #[error("no \"prompt\", \"messages\" or \"conversations\"")]
    NoPrompt,
    /// More than one shape.
    #[error("give one of \"prompt\", \"messages\" and \"conversations\", not several")]
    SeveralShapes,
    /// The prompt has no visible text.
    #[error("the prompt is empty")]
    EmptyPrompt,
    /// `output_tokens` out of range or not a whole number (as written).
    #[error("output_tokens {0} is not a whole number of tokens in 1..={max}", max = workload_limits::MAX_OUTPUT_TOKENS)]
    OutputTokens(String),
    /// A chat message with a role this reader does not know.
    #[error("a message's role is {0:?}: system, user or assistant")]
    Role(String),
    /// The chat ends with something other than the user's message.
    #[error("the last message must be the user's")]
    LastNotUser,
    /// A ShareGPT turn from someone this reader does not know.
    #[error("a turn is from {0:?}: human, gpt or system")]
    TurnFrom(String),
    /// A ShareGPT conversation with no human turn to send.
    #[error("the conversation has no human turn")]
    NoHumanTurn,
}

#[derive(Deserialize)]
struct RawRow {
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    messages: Option<Vec<RawMessage>>,
    #[serde(default)]
    conversations: Option<Vec<ShareGptTurn>>,
    #[serde(default)]
    output_tokens: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawMessage {
    role: String,
    content: String,
}

#[derive(Deserialize)]
struct ShareGptTurn {
    from: String,
    value: String,
}

impl RawRow {
    fn into_row(self) -> Result<DatasetRow, RowError> {
        let output_tokens = self.output_tokens.as_ref().map(output_tokens).transpose()?;
        let (messages, recorded_answer) = match (self.prompt, self.messages, self.conversations) {
            (Some(prompt), None, None) => (vec![(Role::User, prompt)], None),
            (None, Some(messages), None) => (chat_messages(messages)?, None),
            (None, None, Some(turns)) => share_gpt(turns)?,
            (None, None, None) => return Err(RowError::NoPrompt),
            _ => return Err(RowError::SeveralShapes),
        };
        if messages.last().is_none_or(|(_, text)| text.trim().is_empty()) {
            return Err(RowError::EmptyPrompt);
        }
        Ok(DatasetRow { messages, output_tokens, recorded_answer })
    }
}

fn output_tokens(value: &serde_json::Value) -> Result<u32, RowError> {
    let max = workload_limits::MAX_OUTPUT_TOKENS;
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| RowError::OutputTokens(value.to_string()))
}

fn chat_messages(messages: Vec<RawMessage>) -> Result<Vec<(Role, String)>, RowError> {
    let read = messages
        .into_iter()
        .map(|m| match m.role.as_str() {
            "system" | "developer" => Ok((Role::System, m.content)),
            "user" => Ok((Role::User, m.content)),
            "assistant" => Ok((Role::Assistant, m.content)),
            other => Err(RowError::Role(other.to_string())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if read.last().is_none_or(|(role, _)| *role != Role::User) {
        return Err(RowError::LastNotUser);
    }
    Ok(read)
}

/// A row's messages, and a ShareGPT conversation's recorded answer.
type Conversation = (Vec<(Role, String)>, Option<String>);

/// A ShareGPT conversation up to its first human turn (what the benchmarks send of it; the turns after it are not
/// sent), and the model's answer recorded right after that turn, if any.
fn share_gpt(turns: Vec<ShareGptTurn>) -> Result<Conversation, RowError> {
    let from_the_model = |from: &str| matches!(from, "gpt" | "assistant" | "chatgpt" | "bard" | "bing");
    let mut messages = Vec::new();
    let mut turns = turns.into_iter();
    while let Some(turn) = turns.next() {
        match turn.from.as_str() {
            "system" => messages.push((Role::System, turn.value)),
            "human" | "user" => {
                messages.push((Role::User, turn.value));
                let answer = turns.next().filter(|next| from_the_model(&next.from)).map(|next| next.value);
                return Ok((messages, answer));
            }
            from if from_the_model(from) => messages.push((Role::Assistant, turn.value)),
            other => return Err(RowError::TurnFrom(other.to_string())),
        }
    }
    Err(RowError::NoHumanTurn)
}

/// What a reading found: the rows given to `each`, and the rows skipped — ShareGPT conversations with no human turn
/// (an empty `conversations`, or only the model's turns), which public ShareGPT files hold by the hundred and which
/// have nothing to send: skipped and counted, as AIPerf does, rather than the whole file refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowsRead {
    /// Rows read, every one a prompt.
    pub rows: u64,
    /// Rows skipped, with nothing to send.
    pub skipped: u64,
}

/// Reads every row of `path` (written as `format`) into `each(row number, row)` until it says to stop; the rows
/// read and skipped. The first bad row ends the reading with its number.
pub fn read_rows(
    path: &Path,
    format: DatasetFormat,
    each: impl FnMut(u64, DatasetRow) -> ControlFlow<()>,
) -> Result<RowsRead, DatasetError> {
    let file = std::fs::File::open(path).map_err(|e| DatasetError::Read(format!("{}: {e}", path.display())))?;
    read_rows_from(BufReader::new(file), format, each)
}

/// [`read_rows`] from any reader (an upload's bytes, a test's text).
pub fn read_rows_from(
    reader: impl BufRead,
    format: DatasetFormat,
    mut each: impl FnMut(u64, DatasetRow) -> ControlFlow<()>,
) -> Result<RowsRead, DatasetError> {
    let mut read = RowsRead::default();
    let mut take = |number: u64, raw: RawRow| {
        let row = match raw.into_row() {
            Ok(row) => row,
            Err(RowError::NoHumanTurn) => {
                read.skipped += 1;
                return Ok(ControlFlow::Continue(()));
            }
            Err(e) => return Err(DatasetError::Row { row: number, reason: e.to_string() }),
        };
        read.rows += 1;
        Ok(each(number, row))
    };
    match format {
        DatasetFormat::Jsonl => jsonl(reader, |number, line| {
            let raw =
                serde_json::from_slice(line).map_err(|e| DatasetError::Row { row: number, reason: e.to_string() })?;
            take(number, raw)
        })?,
        DatasetFormat::Json => json_array(reader, &mut take)?,
        DatasetFormat::Csv => csv_rows(reader, &mut take)?,
    }
    Ok(read)
}

/// Each non-blank line of `reader` with its number, until `each` says to stop.
pub(super) fn jsonl(
    mut reader: impl BufRead,
    mut each: impl FnMut(u64, &[u8]) -> Result<ControlFlow<()>, DatasetError>,
) -> Result<(), DatasetError> {
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = reader
            .by_ref()
            .take(MAX_ROW_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| DatasetError::Read(e.to_string()))?;
        if read == 0 {
            return Ok(());
        }
        if line.len() as u64 > MAX_ROW_BYTES {
            return Err(DatasetError::Row { row: number, reason: format!("longer than {MAX_ROW_BYTES} bytes") });
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if each(number, &line)?.is_break() {
            return Ok(());
        }
    }
    Ok(())
}

/// The elements of a JSON array, one at a time.
fn json_array(
    reader: impl Read,
    each: &mut dyn FnMut(u64, RawRow) -> Result<ControlFlow<()>, DatasetError>,
) -> Result<(), DatasetError> {
    struct Rows<'a> {
        each: &'a mut dyn FnMut(u64, RawRow) -> Result<ControlFlow<()>, DatasetError>,
        failed: &'a mut Option<DatasetError>,
    }
    impl<'de> serde::de::Visitor<'de> for Rows<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array of rows")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            for number in 1.. {
                let row = match seq.next_element::<RawRow>() {
                    Ok(Some(row)) => row,
                    Ok(None) => return Ok(()),
                    Err(e) => {
                        *self.failed = Some(DatasetError::Row { row: number, reason: e.to_string() });
                        return Err(serde::de::Error::custom("stopped"));
                    }
                };
                match (self.each)(number, row) {
                    Ok(ControlFlow::Continue(())) => {}
                    Ok(ControlFlow::Break(())) => return Err(serde::de::Error::custom(STOPPED)),
                    Err(e) => {
                        *self.failed = Some(e);
                        return Err(serde::de::Error::custom("stopped"));
                    }
                }
            }
            Ok(())
        }
    }
    const STOPPED: &str = "enough rows";
    let mut failed = None;
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let read = serde::Deserializer::deserialize_seq(&mut deserializer, Rows { each, failed: &mut failed });
    if let Some(failed) = failed {
        return Err(failed);
    }
    match read {
        Ok(()) => Ok(()),
        Err(e) if e.to_string().starts_with(STOPPED) => Ok(()),
        Err(e) => Err(DatasetError::Shape(format!("not a JSON array of rows: {e}"))),
    }
}

/// The records of a CSV file with a header naming `prompt` (and, optionally, `output_tokens`).
fn csv_rows(
    reader: impl Read,
    each: &mut dyn FnMut(u64, RawRow) -> Result<ControlFlow<()>, DatasetError>,
) -> Result<(), DatasetError> {
    let mut csv = csv::ReaderBuilder::new().flexible(false).from_reader(reader);
    let headers = csv.headers().map_err(|e| DatasetError::Shape(format!("the CSV header cannot be read: {e}")))?;
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let prompt =
        column("prompt").ok_or_else(|| DatasetError::Shape("the CSV header has no \"prompt\" column".into()))?;
    let output = column("output_tokens");
    let mut record = csv::StringRecord::new();
    loop {
        let line = csv.position().line() + 1;
        match csv.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(csv_row_error(&e, line)),
        }
        let number = record.position().map_or(line, csv::Position::line);
        let output_tokens = match output.and_then(|i| record.get(i)).map(str::trim).filter(|v| !v.is_empty()) {
            None => None,
            Some(v) => Some(v.parse::<u64>().map(serde_json::Value::from).map_err(|_| DatasetError::Row {
                row: number,
                reason: format!("output_tokens {v:?} is not a number"),
            })?),
        };
        let raw = RawRow {
            prompt: record.get(prompt).map(str::to_string),
            messages: None,
            conversations: None,
            output_tokens,
        };
        if each(number, raw)?.is_break() {
            return Ok(());
        }
    }
}

/// A record the CSV reader refused, named by its line (`line` when the reader does not say).
pub(super) fn csv_row_error(error: &csv::Error, line: u64) -> DatasetError {
    match error.kind() {
        csv::ErrorKind::UnequalLengths { pos, expected_len, len } => DatasetError::Row {
            row: pos.as_ref().map_or(line, csv::Position::line),
            reason: format!("{len} fields where the header has {expected_len}"),
        },
        csv::ErrorKind::Utf8 { pos, .. } => {
            DatasetError::Row { row: pos.as_ref().map_or(line, csv::Position::line), reason: "not UTF-8 text".into() }
        }
        _ => DatasetError::Row { row: line, reason: error.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, format: DatasetFormat) -> Result<Vec<(u64, DatasetRow)>, DatasetError> {
        let mut read = Vec::new();
        read_rows_from(text.as_bytes(), format, |n, row| {
            read.push((n, row));
            ControlFlow::Continue(())
        })?;
        Ok(read)
    }

    fn user(text: &str) -> Vec<(Role, String)> {
        vec![(Role::User, text.to_string())]
    }

    #[test]
    fn reads_the_three_row_shapes_in_every_format() {
        let jsonl = "{\"prompt\": \"hi\", \"id\": 7}\n\n{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, \
                     {\"role\": \"user\", \"content\": \"why\"}], \"output_tokens\": 20}\n\
                     {\"conversations\": [{\"from\": \"human\", \"value\": \"q1\"}, {\"from\": \"gpt\", \"value\": \"a1\"}, \
                     {\"from\": \"human\", \"value\": \"q2\"}]}\n";
        let read = rows(jsonl, DatasetFormat::Jsonl).unwrap();
        assert_eq!(read[0], (1, DatasetRow { messages: user("hi"), output_tokens: None, recorded_answer: None }));
        assert_eq!(read[1].0, 3, "a blank line is skipped but counted");
        assert_eq!(read[1].1.messages, vec![(Role::System, "be brief".into()), (Role::User, "why".into())]);
        assert_eq!(read[1].1.output_tokens, Some(20));
        assert_eq!(read[2].1.messages, user("q1"), "ShareGPT: up to the first human turn");
        assert_eq!(read[2].1.recorded_answer.as_deref(), Some("a1"), "and the answer recorded after it");
        let json = "[{\"prompt\": \"a\"}, {\"prompt\": \"b\", \"output_tokens\": 3}]";
        let read = rows(json, DatasetFormat::Json).unwrap();
        assert_eq!(read.iter().map(|(n, r)| (*n, r.output_tokens)).collect::<Vec<_>>(), [(1, None), (2, Some(3))]);
        let csv = "id,prompt,output_tokens\n1,\"a, with a comma\n and a line\",5\n2,plain,\n";
        let read = rows(csv, DatasetFormat::Csv).unwrap();
        let row = |text: &str, output_tokens| DatasetRow { messages: user(text), output_tokens, recorded_answer: None };
        assert_eq!(read[0], (2, row("a, with a comma\n and a line", Some(5))));
        assert_eq!(read[1], (4, row("plain", None)));
    }

    #[test]
    fn names_the_row_that_is_not_a_prompt() {
        let bad = |text: &str, format| rows(text, format).unwrap_err().to_string();
        let jsonl = "{\"prompt\": \"ok\"}\n{\"prompt\": 5}\n";
        assert!(
            bad(jsonl, DatasetFormat::Jsonl).starts_with("row 2: invalid type"),
            "{}",
            bad(jsonl, DatasetFormat::Jsonl)
        );
        assert!(bad("{\"prompt\": \"a\"}\nnot json\n", DatasetFormat::Jsonl).starts_with("row 2:"));
        assert_eq!(
            bad("{\"text\": \"a\"}\n", DatasetFormat::Jsonl),
            "row 1: no \"prompt\", \"messages\" or \"conversations\""
        );
        assert_eq!(bad("{\"prompt\": \" \"}", DatasetFormat::Jsonl), "row 1: the prompt is empty");
        assert_eq!(
            bad("{\"prompt\": \"a\", \"output_tokens\": 0}", DatasetFormat::Jsonl),
            "row 1: output_tokens 0 is not a whole number of tokens in 1..=8192"
        );
        let assistant_last = "[{\"prompt\": \"a\"}, {\"messages\": [{\"role\": \"assistant\", \"content\": \"x\"}]}]";
        assert_eq!(bad(assistant_last, DatasetFormat::Json), "row 2: the last message must be the user's");
        assert!(bad("{\"prompt\": \"a\"}", DatasetFormat::Json).starts_with("not a JSON array of rows"));
        assert_eq!(bad("text\nhello\n", DatasetFormat::Csv), "the CSV header has no \"prompt\" column");
        assert_eq!(
            bad("prompt,output_tokens\na,1\nb,many\n", DatasetFormat::Csv),
            "row 3: output_tokens \"many\" is not a number"
        );
        assert_eq!(bad("prompt,x\na,1\nb\n", DatasetFormat::Csv), "row 3: 1 fields where the header has 2");
    }

    #[test]
    fn a_conversation_with_no_human_turn_is_skipped_and_counted_not_refused() {
        let text = "{\"conversations\": []}\n{\"prompt\": \"a\"}\n\
                    {\"conversations\": [{\"from\": \"gpt\", \"value\": \"x\"}]}\n{\"prompt\": \"b\"}\n";
        let mut numbers = vec![];
        let read = read_rows_from(text.as_bytes(), DatasetFormat::Jsonl, |n, _| {
            numbers.push(n);
            ControlFlow::Continue(())
        });
        assert_eq!(read, Ok(RowsRead { rows: 2, skipped: 2 }));
        assert_eq!(numbers, [2, 4], "the rows sent keep their numbers in the file");
        let turn_from_nobody = "[{\"conversations\": [{\"from\": \"robot\", \"value\": \"x\"}]}]";
        assert_eq!(
            rows(turn_from_nobody, DatasetFormat::Json).unwrap_err().to_string(),
            "row 1: a turn is from \"robot\": human, gpt or system",
            "other bad rows are still refused"
        );
    }

    #[test]
    fn stops_when_told_and_refuses_a_row_too_long_to_hold() {
        let many = "{\"prompt\": \"a\"}\n".repeat(100);
        let mut seen = 0;
        let read = read_rows_from(many.as_bytes(), DatasetFormat::Jsonl, |_, _| {
            seen += 1;
            if seen == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!((read, seen), (Ok(RowsRead { rows: 3, skipped: 0 }), 3));
        let array = format!("[{}]", vec!["{\"prompt\": \"a\"}"; 100].join(","));
        let mut seen = 0;
        let read = read_rows_from(array.as_bytes(), DatasetFormat::Json, |_, _| {
            seen += 1;
            if seen == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(read, Ok(RowsRead { rows: 2, skipped: 0 }));
        let huge = format!("{{\"prompt\": \"{}\"}}\n", "a".repeat(MAX_ROW_BYTES as usize));
        assert_eq!(
            rows(&huge, DatasetFormat::Jsonl).unwrap_err(),
            DatasetError::Row { row: 1, reason: format!("longer than {MAX_ROW_BYTES} bytes") }
        );
    }
}
