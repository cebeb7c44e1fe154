//! A workload's file read ahead of the making, on a thread of its own (file reading blocks): a dataset's rows
//! (from its path, or an uploaded dataset's text) or a trace's, in the file's order, at most [`ROWS_AHEAD`] ahead.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::dataset::{read_rows, read_rows_from, DatasetError, DatasetRow};
use super::trace::{read_trace, TraceRow};
use crate::model::Workload;

/// Rows read from a file ahead of the making.
const ROWS_AHEAD: usize = 64;

/// A row of a workload's file, for one request.
pub(super) enum Row {
    Dataset(DatasetRow),
    Trace(TraceRow),
}

/// Reads the rows of `workload`'s file (or of `uploaded`, an uploaded dataset's text) on a thread of its own (file
/// reading blocks), in the file's order, until the receiver is dropped; `None` for a workload without a file.
pub(super) fn read_ahead(
    workload: &Workload,
    uploaded: Option<Arc<str>>,
) -> Option<mpsc::Receiver<Result<Row, DatasetError>>> {
    type Reading = Box<dyn FnOnce(&mut dyn FnMut(Row) -> ControlFlow<()>) -> Result<(), DatasetError> + Send>;
    let reading: Reading = match (workload, uploaded) {
        (Workload::Dataset { file, .. }, Some(text)) => {
            let format = file.format;
            Box::new(move |send| {
                read_rows_from(std::io::Cursor::new(text.as_bytes()), format, |_, row| send(Row::Dataset(row)))
                    .map(drop)
            })
        }
        (Workload::Dataset { file, .. }, None) => {
            let (path, format) = (PathBuf::from(&file.path), file.format);
            Box::new(move |send| read_rows(&path, format, |_, row| send(Row::Dataset(row))).map(drop))
        }
        (Workload::Trace { file, .. }, _) => {
            let (path, format) = (PathBuf::from(&file.path), file.format);
            Box::new(move |send| read_trace(&path, format, |_, row| send(Row::Trace(row))).map(drop))
        }
        _ => return None,
    };
    let (tx, rx) = mpsc::channel(ROWS_AHEAD);
    tokio::task::spawn_blocking(move || {
        // The receiver dropped (the run ended): stop reading.
        let send =
            |row| if tx.blocking_send(row).is_err() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
        if let Err(e) = reading(&mut |row| send(Ok(row))) {
            let _ = send(Err(e));
        }
    });
    Some(rx)
}
