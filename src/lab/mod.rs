//! Spec Lab, one feature in one folder: A/B tests of two connectors (a baseline and a candidate, such as a server
//! with and without speculative decoding) over cells of load and temperature, measured in interleaved rounds and
//! judged by Welch's and Mann-Whitney's tests, and the probe of a self-hosted server shown to a user (the probe
//! itself is the kernel's `probe`, which runs use too).
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (plans and
//! measured arms, pure, in the browser build too) < `report` (the A/B report and its HTML export) < `judge` (the
//! report made from the measured cells, pure) < `store` (the A/B tests table) < `service` (the rounds and the
//! `AbManager` job) < `fragments` < `api` (its server functions) < `ui` (the Spec Lab page, an A/B test's page,
//! the A/B form, the probe panel).

pub mod api;
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
