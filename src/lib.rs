//! latency-guard: measures language-model endpoints and guards them against regressions.
//!
//! The map of the crate, its layers and where new code goes are in `docs/ARCHITECTURE.md` (its module list is
//! checked against `src/` by `tests/app/architecture.rs`). In short: shared pure modules at the bottom (also compiled
//! for the browser), the domain above them, `api` and `ui` above that, and `server` (axum) at the edge; `cli`
//! holds the command line's commands.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly"))]

pub mod account;
pub mod api;
pub mod capacity;
pub mod charts;
pub mod error;
pub mod export;
pub mod guard;
pub mod home;
pub mod lab;
pub mod model;
pub mod report;
pub mod runs;
pub mod stats;
pub mod ui;
pub mod wire;
pub mod workload;

#[cfg(feature = "ssr")]
pub mod auth;
#[cfg(feature = "ssr")]
pub mod cli;
#[cfg(feature = "ssr")]
pub mod clock;
#[cfg(feature = "ssr")]
pub mod config;
#[cfg(feature = "ssr")]
pub mod engine;
#[cfg(feature = "ssr")]
pub mod fragments;
#[cfg(feature = "ssr")]
pub mod jobs;
#[cfg(feature = "ssr")]
pub mod outbound;
#[cfg(feature = "ssr")]
pub mod probe;
#[cfg(feature = "ssr")]
pub mod rate_limit;
#[cfg(feature = "ssr")]
pub mod secrets;
#[cfg(feature = "ssr")]
pub mod server;
#[cfg(feature = "ssr")]
pub mod sim;
#[cfg(feature = "ssr")]
pub mod state;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod targets;
#[cfg(feature = "ssr")]
pub mod telemetry;

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // `hydrate_lazy`: the pages are lazily loaded routes (src/ui/lazy_pages.rs), which `hydrate_body` cannot hydrate.
    leptos::mount::hydrate_lazy(ui::App);
}
