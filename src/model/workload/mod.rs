//! Workloads: what a run sends, beyond a list of prompts (`spec`), with token lengths drawn from distributions
//! (`lengths`), read from files (`files`) or from datasets uploaded to a workspace, the pauses of a multi-turn
//! session's user (`think`), the marks that keep one run's prompts out of another's prefix cache (`heads`), and a request that asks for one (`asked`). The kernel's vocabulary, since a run's plan
//! holds a workload; saving one and uploading a dataset are the `workload` feature's.

pub(in crate::model) mod asked;
pub(in crate::model) mod files;
pub(in crate::model) mod heads;
pub(in crate::model) mod lengths;
pub(in crate::model) mod spec;
pub(in crate::model) mod think;
pub(in crate::model) mod tokenizer;

pub(crate) use asked::asks_for_workload;
pub use asked::AsksForWorkload;
pub use files::{DatasetFormat, TraceFormat, WorkloadFile};
pub use heads::{head_scope, head_text, marked_prompt, run_mark, HeadScope, PromptHeads};
pub use lengths::{workload_limits, LengthDist};
pub use spec::{Workload, MAX_SPEEDUP, MIN_SPEEDUP};
pub use think::{ThinkTime, MAX_THINK_MS};
pub use tokenizer::PromptTokenizer;
