//! Integration tests of the application: accounts, the API and its tokens, runs, sweeps, reports and sharing, the store on both databases, replicas, the isolation sweep, the layering and the settings page: one module per file, in one test binary (each binary links the whole
//! application, so they are few).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod account;
mod api;
mod api_tokens;
mod architecture;
mod compare;
mod datasets;
mod export;
mod holdings;
mod home;
mod isolation;
mod replicas;
mod runs;
mod settings_doc;
mod shares;
mod store;
mod store_outage;
mod sweeps;
mod wallet_login;
