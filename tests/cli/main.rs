//! Integration tests of the command line: `bench` (and the verdict on its figures), `capacity`, `export`, `login-link` and a server called
//! with a token: one module per file, in one test binary (each binary links the whole
//! application, so they are few).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod cli_bench;
mod cli_capacity;
mod cli_datasets;
mod cli_export;
mod cli_login_link;
mod cli_remote;
mod cli_validity;
mod cli_workload;
