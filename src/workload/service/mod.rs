//! Workloads made real (server side): lengths drawn from their distributions with a seed (`lengths`), text from
//! the built-in corpus (`corpus`) cut to an exact number of tokens (`prompt`) by the server's own tokenizer
//! (`engine::tokenizer`), else a tokenizer.json or an estimate (`offline`), whichever `choice` finds; datasets
//! (`dataset`) and traces (`trace`) read a row at a time, and an uploaded dataset checked whole before it is kept
//! (`upload`); a run's requests made ahead of their sends (`requests`), its file's rows read ahead (`file_rows`).
//! The workload's description is `model::workload`, shared with the browser; what needs a random source or a
//! tokenizer is here.

mod choice;
mod corpus;
mod dataset;
mod file_rows;
mod lengths;
mod offline;
mod prompt;
mod requests;
mod trace;
mod upload;

pub use choice::Tokenizer;
pub use corpus::CorpusText;
pub use dataset::{read_rows, read_rows_from, DatasetError, DatasetRow, Role, RowsRead, MAX_ROW_BYTES};
pub use lengths::{quantile, LengthDraws};
pub use offline::{EstimateTokenizer, FileTokenizer};
pub use prompt::{exact_prompt, exact_prompt_after, MadePrompt};
pub use requests::{
    request_lengths, request_seed, MakeError, Prepared, PreparedRequests, RequestMaker, MADE_BEFORE_START, WINDOW,
};
pub use trace::{read_trace, read_trace_from, TraceRow};
pub use upload::{read_upload, ReadUpload, UploadError, MAX_DATASET_NAME_CHARS, REFUSED_UPLOAD_BUDGET};
