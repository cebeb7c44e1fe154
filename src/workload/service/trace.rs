//! Reading a trace of timed requests, row by row: Mooncake's JSONL (`timestamp` in ms, `input_length`,
//! `output_length`, `hash_ids`) or BurstGPT's CSV (`Timestamp` in s, `Request tokens`, `Response tokens`). Each
//! row's instant is kept relative to the first row's; a row before the one above it is refused with its number
//! (a replay cannot send into the past), as is a length no request could have.

use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

use serde::Deserialize;

use super::dataset::{jsonl, DatasetError};
use crate::model::{workload_limits, TraceFormat};

/// One request of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    /// When it came, µs after the trace's first request.
    pub at_us: u64,
    /// Its prompt's length, tokens.
    pub input: u32,
    /// Its answer's length, tokens (a BurstGPT row of 0, a request that failed in the original service, asks
    /// for 1).
    pub output: u32,
    /// Its prompt's blocks: equal ids, equal blocks (Mooncake's; none in BurstGPT's).
    pub hash_ids: Vec<u64>,
}

#[derive(Deserialize)]
struct MooncakeRow {
    timestamp: f64,
    input_length: u64,
    output_length: u64,
    #[serde(default)]
    hash_ids: Vec<u64>,
}

/// Reads every row of the trace at `path` into `each(row number, row)` until it says to stop; the rows read.
pub fn read_trace(
    path: &Path,
    format: TraceFormat,
    each: impl FnMut(u64, TraceRow) -> ControlFlow<()>,
) -> Result<u64, DatasetError> {
    let file = std::fs::File::open(path).map_err(|e| DatasetError::Read(format!("{}: {e}", path.display())))?;
    read_trace_from(BufReader::new(file), format, each)
}

/// The row's lengths and instant checked: `at_ms` after the trace's first (`first`), not before `previous`.
struct Checker {
    first_ms: Option<f64>,
    previous_ms: f64,
}

impl Checker {
    fn row(
        &mut self,
        number: u64,
        at_ms: f64,
        input: u64,
        output: u64,
        hash_ids: Vec<u64>,
    ) -> Result<TraceRow, DatasetError> {
        let fail = |reason: String| DatasetError::Row { row: number, reason };
        if !(at_ms.is_finite() && at_ms >= 0.0) {
            return Err(fail(format!("timestamp {at_ms} is not an instant")));
        }
        let first = *self.first_ms.get_or_insert(at_ms);
        if at_ms < self.previous_ms {
            return Err(fail(format!(
                "timestamp {at_ms} ms is before the row above's {} ms: a trace's rows must be in the order they came",
                self.previous_ms
            )));
        }
        self.previous_ms = at_ms;
        let max_input = workload_limits::MAX_INPUT_TOKENS;
        let Some(input_tokens) = u32::try_from(input).ok().filter(|i| (1..=max_input).contains(i)) else {
            return Err(fail(format!("an input length of {input} tokens is outside 1..={max_input}")));
        };
        let max_output = workload_limits::MAX_OUTPUT_TOKENS;
        if output > u64::from(max_output) {
            return Err(fail(format!("an output length of {output} tokens is above {max_output}")));
        }
        let at_us = ((at_ms - first) * 1e3).round() as u64;
        Ok(TraceRow { at_us, input: input_tokens, output: (output as u32).max(1), hash_ids })
    }
}

/// [`read_trace`] from any reader.
pub fn read_trace_from(
    reader: impl BufRead,
    format: TraceFormat,
    mut each: impl FnMut(u64, TraceRow) -> ControlFlow<()>,
) -> Result<u64, DatasetError> {
    let mut checker = Checker { first_ms: None, previous_ms: f64::NEG_INFINITY };
    let mut rows = 0;
    match format {
        TraceFormat::Mooncake => jsonl(reader, |number, line| {
            let raw: MooncakeRow =
                serde_json::from_slice(line).map_err(|e| DatasetError::Row { row: number, reason: e.to_string() })?;
            let row = checker.row(number, raw.timestamp, raw.input_length, raw.output_length, raw.hash_ids)?;
            rows += 1;
            Ok(each(number, row))
        })?,
        TraceFormat::BurstGpt => {
            let mut csv = csv::ReaderBuilder::new().from_reader(reader);
            let headers =
                csv.headers().map_err(|e| DatasetError::Shape(format!("the CSV header cannot be read: {e}")))?.clone();
            let column = |name: &str| {
                headers.iter().position(|h| h.trim() == name).ok_or_else(|| {
                    DatasetError::Shape(format!("the CSV header has no {name:?} column (BurstGPT's columns)"))
                })
            };
            let (at, input, output) = (column("Timestamp")?, column("Request tokens")?, column("Response tokens")?);
            let mut record = csv::StringRecord::new();
            loop {
                let line = csv.position().line() + 1;
                match csv.read_record(&mut record) {
                    Ok(false) => break,
                    Ok(true) => {}
                    Err(e) => return Err(super::dataset::csv_row_error(&e, line)),
                }
                let number = record.position().map_or(line, csv::Position::line);
                let field = |i: usize, name: &str| {
                    let value = record.get(i).unwrap_or("").trim();
                    value.parse::<f64>().map_err(|_| DatasetError::Row {
                        row: number,
                        reason: format!("{name} {value:?} is not a number"),
                    })
                };
                let (seconds, asked, answered) =
                    (field(at, "Timestamp")?, field(input, "Request tokens")?, field(output, "Response tokens")?);
                let whole = |v: f64, name: &str| {
                    (v.fract() == 0.0 && v >= 0.0).then_some(v as u64).ok_or_else(|| DatasetError::Row {
                        row: number,
                        reason: format!("{name} {v} is not a whole number of tokens"),
                    })
                };
                let row = checker.row(
                    number,
                    seconds * 1e3,
                    whole(asked, "Request tokens")?,
                    whole(answered, "Response tokens")?,
                    vec![],
                )?;
                rows += 1;
                if each(number, row).is_break() {
                    break;
                }
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, format: TraceFormat) -> Result<Vec<TraceRow>, DatasetError> {
        let mut read = Vec::new();
        read_trace_from(text.as_bytes(), format, |_, row| {
            read.push(row);
            ControlFlow::Continue(())
        })?;
        Ok(read)
    }

    #[test]
    fn reads_mooncake_and_burstgpt_rows_relative_to_the_first() {
        let mooncake = "{\"timestamp\": 1000, \"input_length\": 1024, \"output_length\": 8, \"hash_ids\": [1, 2]}\n\
                        {\"timestamp\": 1002.5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [1, 3]}\n";
        let read = rows(mooncake, TraceFormat::Mooncake).unwrap();
        assert_eq!(read[0], TraceRow { at_us: 0, input: 1024, output: 8, hash_ids: vec![1, 2] });
        assert_eq!(read[1], TraceRow { at_us: 2_500, input: 600, output: 3, hash_ids: vec![1, 3] });
        let burst = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n\
                     5,ChatGPT,472,18,490,Conversation log\n5.25,GPT-4,1087,0,1087,Conversation log\n";
        let read = rows(burst, TraceFormat::BurstGpt).unwrap();
        assert_eq!(read[0], TraceRow { at_us: 0, input: 472, output: 18, hash_ids: vec![] });
        assert_eq!(read[1], TraceRow { at_us: 250_000, input: 1087, output: 1, hash_ids: vec![] }, "0 asks for 1");
    }

    #[test]
    fn refuses_rows_out_of_order_and_lengths_no_request_has() {
        let bad = |text: &str, format| rows(text, format).unwrap_err().to_string();
        let late = "{\"timestamp\": 10, \"input_length\": 5, \"output_length\": 1}\n\
                    {\"timestamp\": 9, \"input_length\": 5, \"output_length\": 1}\n";
        assert_eq!(
            bad(late, TraceFormat::Mooncake),
            "row 2: timestamp 9 ms is before the row above's 10 ms: a trace's rows must be in the order they came"
        );
        let empty = "{\"timestamp\": 10, \"input_length\": 0, \"output_length\": 1}\n";
        assert_eq!(bad(empty, TraceFormat::Mooncake), "row 1: an input length of 0 tokens is outside 1..=131072");
        let burst = "Timestamp,Request tokens,Response tokens\n1,10,2\n2,ten,2\n";
        assert_eq!(bad(burst, TraceFormat::BurstGpt), "row 3: Request tokens \"ten\" is not a number");
        assert_eq!(
            bad("Time,Request tokens,Response tokens\n", TraceFormat::BurstGpt),
            "the CSV header has no \"Timestamp\" column (BurstGPT's columns)"
        );
        let missing = "{\"timestamp\": 10, \"input_length\": 5}\n";
        assert!(bad(missing, TraceFormat::Mooncake).starts_with("row 1: missing field `output_length`"));
    }
}
