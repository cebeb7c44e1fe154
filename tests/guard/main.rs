//! Integration tests of Guard: ticks, evaluations, its API and hook, replicas, webhooks and e-mail: one module per file, in one test binary (each binary links the whole
//! application, so they are few).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod acceptance;
mod change_points;
mod email;
mod every_threshold;
mod fairness;
mod guard;
mod guard_api;
mod guard_hook;
mod guard_replicas;
mod guard_workloads;
mod owner_email;
mod page_reads;
mod pooled_baselines;
mod prompt_marks;
mod receivers;
mod service_metrics;
mod streamed_schedules;
mod webhooks;
mod what_changed;
