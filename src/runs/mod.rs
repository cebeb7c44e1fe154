//! Runs, one feature in one folder: a benchmark run from a plan and a stored connector to measured, stored
//! iterations with live progress, its report (page, share link, files) and two runs compared. Guard, capacity and
//! Spec Lab drive runs or measure like them, and declare that they import this feature.
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `report` (the
//! snapshot, its notes, cards, table, compact form and files; pure, in the browser build too) < `store` (the runs
//! and iterations tables) < `service` (the load driver, plan execution, the `RunManager`, the single measured call,
//! kept report views) < `fragments` (the report rendered once on the server) < `api` (its server functions) < `ui`
//! (its pages, the results table, the export and share buttons). A run's plan and measurements are the kernel's
//! common vocabulary (`model::run`), which every feature speaks.

pub mod api;
pub mod report;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
