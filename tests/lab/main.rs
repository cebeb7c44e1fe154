//! Integration tests of the engine and what it talks to: the simulator, hostile endpoints, the connection test, the address policy, secrets, Spec Lab and a real llama.cpp server: one module per file, in one test binary (each binary links the whole
//! application, so they are few).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod ab_workloads;
mod connection_test;
mod engine;
mod hostile;
mod http1;
mod llama_server;
mod outbound;
mod secret_canary;
mod served_memory;
mod simulated_engine;
mod simulator;
mod speclab;
mod speclab_ab;
mod workload_prompts;
