//! Guard, one feature in one folder: scheduled regression checks. A tick claims the due schedules, runs each one's
//! benchmark set as a regular run, judges whether the run is valid, compares it with its baseline (a pinned run or a
//! pool of recent healthy evaluations; Welch's t-test and thresholds), and opens, updates or recovers alerts under
//! the schedule's policy; the in-process loop ticks every few minutes and `POST /api/public/hooks/guard-tick` lets
//! an external scheduler tick instead.
//!
//! Inside, each layer imports only those before it: `model` (types, pure, in the browser build too) < `judge`
//! (rules, pure) < `service` (the tick and what the pages ask of Guard) < `api` (its server functions and page
//! replies) < `fragments` (the parts of its pages rendered once on the server) and `charts` < `ui` (its pages and
//! the schedule form).

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
