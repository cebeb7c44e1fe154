//! The workload feature's tables: saved workloads (`saved`, with the one step every job's start shares: resolving
//! the workload it asks for) and uploaded datasets (`datasets`). `impl Store` blocks, so `Store` stays one type.

mod datasets;
mod saved;

pub use datasets::NewDataset;
