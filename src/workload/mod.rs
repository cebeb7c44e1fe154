//! Workloads, one feature in one folder: what a run sends made real — lengths drawn from distributions, text cut
//! to an exact number of tokens by the server's own tokenizer, datasets and traces read a row at a time, a run's
//! requests made ahead of their sends — and the workspace's saved workloads and uploaded datasets, with the
//! workloads page and the picker every job's form shows. Runs, Guard, capacity and Spec Lab send workloads and
//! declare that they import this feature.
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (a saved
//! workload and an uploaded dataset, pure, in the browser build too) < `store` (the saved workloads and datasets
//! tables, and resolving the workload a job asks for) < `service` (making requests: lengths, corpus, prompts,
//! datasets, traces, a checked upload) < `fragments` (an uploaded dataset's listing) < `api` (its server functions)
//! < `ui` (the workloads page, the workload form, the picker, the datasets panel). What a workload is — the
//! description a run's plan holds — is the kernel's common vocabulary (`model::workload`), and the server's
//! tokenizer is the kernel's `engine::tokenizer`, which the probe uses too.

pub mod api;
pub mod model;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
