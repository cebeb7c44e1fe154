//! Guard, one feature in one folder: scheduled regression checks. A tick claims the due schedules, runs each one's
//! benchmark set as a regular run, judges whether the run is valid, compares it with its baseline (a pinned run or a
//! pool of recent healthy evaluations; Welch's t-test and thresholds), and opens, updates or recovers alerts under
//! the schedule's policy; the in-process loop ticks every few minutes and `POST /api/public/hooks/guard-tick` lets
//! an external scheduler tick instead.
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (types, pure,
//! in the browser build too) < `charts` (a schedule's history, pure) < `judge` (rules, pure) < `store` (its tables;
//! applies what the judge decided) < `notify` (delivery) < `service` (the tick and what the pages ask of Guard) <
//! `fragments` (the parts of its pages rendered once on the server) < `api` (its server functions and page replies)
//! < `ui` (its pages and the schedule form).

pub mod api;
pub mod charts;
pub mod model;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod judge;
#[cfg(feature = "ssr")]
pub mod notify;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
