//! latency-guard: measures language-model endpoints and guards them against regressions.
//!
//! Map of the crate (data flows downwards, from the pure shared modules to the UI):
//! - [`model`], [`error`], [`stats`], [`report`], [`charts`]: shared, pure types, statistics, report snapshots and
//!   SVG charts, used by the server and the browser build; [`wire`]: how their JSON is read in each.
//! - `cli` (the command line's commands), `config`, `clock`, `secrets`, `store`, `auth`, `engine`, `sim`, `server` (ssr only): settings, time,
//!   sealing and token hashing, SQL, sessions, outbound calls and the one address policy they obey (`outbound`), call targets, benchmark runs, Guard's scheduled
//!   checks (`guard`) and their notifications (`notify`), the simulated endpoint, and the axum application.
//! - `fragments` (ssr only): the parts of pages that never change once shown, rendered to HTML on the server so
//!   the browser build carries neither their views nor the types they read.
//! - [`api`]: `#[server]` functions, thin shells over the ssr modules.
//! - [`ui`]: Leptos pages and components; they render, never compute.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly"))]

pub mod api;
pub mod charts;
pub mod error;
pub mod export;
pub mod model;
pub mod report;
pub mod stats;
pub mod ui;
pub mod wire;

#[cfg(feature = "ssr")]
pub mod auth;
#[cfg(feature = "ssr")]
pub mod capacity;
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
pub mod guard;
#[cfg(feature = "ssr")]
pub mod notify;
#[cfg(feature = "ssr")]
pub mod outbound;
#[cfg(feature = "ssr")]
pub mod rate_limit;
#[cfg(feature = "ssr")]
pub mod runs;
#[cfg(feature = "ssr")]
pub mod secrets;
#[cfg(feature = "ssr")]
pub mod server;
#[cfg(feature = "ssr")]
pub mod sim;
#[cfg(feature = "ssr")]
pub mod speclab;
#[cfg(feature = "ssr")]
pub mod state;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod targets;

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // `hydrate_lazy`: the pages are lazily loaded routes (src/ui/lazy_pages.rs), which `hydrate_body` cannot hydrate.
    leptos::mount::hydrate_lazy(ui::App);
}
