//! Workloads made real (server side): lengths drawn from their distributions with a seed (`lengths`). The
//! workload's description is `model::workload`, shared with the browser; what needs a random source or a
//! tokenizer is here.

mod lengths;

pub use lengths::{quantile, LengthDraws};
