//! Capacity, one feature in one folder: "the highest concurrency (or rate) at which these objectives hold" (a
//! search), a sweep over listed levels, and a level repeated to see how far it varies. Each level is a regular run.
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (plans and
//! summaries, pure, in the browser build too) < `charts` (the sweep's curves) < `report` (a sweep's report, a
//! repeated run's figures, the answer in words) < `judge` (the rules, pure) < `store` (the sweeps
//! table) < `service` (the search driver and the `SweepManager` job) < `fragments` (the report rendered once on the
//! server) < `api` (its server functions) < `ui` (its pages and the sweep form).

pub mod api;
pub mod charts;
pub mod model;
pub mod report;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod judge;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
