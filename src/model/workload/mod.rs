//! Workloads: what a run sends, beyond a list of prompts (`spec`), with token lengths drawn from distributions
//! (`lengths`), read from files (`files`) or from datasets uploaded to a workspace (`uploaded`), and the pauses of
//! a multi-turn session's user (`think`).

pub(in crate::model) mod asked;
pub(in crate::model) mod files;
pub(in crate::model) mod lengths;
pub(in crate::model) mod saved;
pub(in crate::model) mod spec;
pub(in crate::model) mod think;
pub(in crate::model) mod tokenizer;
pub(in crate::model) mod uploaded;

pub(crate) use asked::asks_for_workload;
pub use asked::AsksForWorkload;
pub use files::{DatasetFormat, TraceFormat, WorkloadFile};
pub use lengths::{workload_limits, LengthDist};
pub use saved::{SavedWorkload, WorkloadChoice, WorkloadInput, MAX_WORKLOAD_NAME_CHARS};
pub use spec::{Workload, MAX_SPEEDUP, MIN_SPEEDUP};
pub use think::{ThinkTime, MAX_THINK_MS};
pub use tokenizer::PromptTokenizer;
pub use uploaded::{length_counts, DatasetChoice, DatasetListing, LengthCounts, UploadedDataset, MAX_DATASET_BYTES};
