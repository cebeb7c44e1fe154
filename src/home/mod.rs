//! The home page, one feature in one folder: what this install is doing — runs running and recent with their
//! headline figures, Guard's schedules and open incidents — and, while an install is new, its first steps with
//! "Run the demo" first, so a newcomer is never left on a page that does not say what to do.
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (the first
//! steps, a pure rule) < `service` (what the page reads, and the demo run it starts) < `fragments` (the page as the
//! server renders it) < `api` (its server function) < `ui` (the page).

pub mod api;
pub mod model;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod service;
