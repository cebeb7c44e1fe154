//! Guard against a real llama.cpp server's prompt cache (the xllamacpp wheel, a tiny local model). A schedule sends
//! the same prompts at every evaluation, and llama.cpp keeps earlier prompts in its slots and its prompt cache:
//! unmarked, every evaluation after the first would measure cached prefills (as a second identical `bench` run
//! does, tests/lab/llama_server.rs). Each prompt's mark (unique per run and request) makes the second evaluation,
//! like the first, find at most the chat template's first tokens cached, so a prefill regression stays visible.
//! Each run keeps the build the server says it runs (`/props`' `build_info`), which an alert names when it changes.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::Rig;
use crate::common::llama::llama_server;
use crate::common::TestDb;
use latency_guard::guard::model::{BenchmarkSetInput, Cadence, SetPrompt};
use latency_guard::model::ServerKind;

#[tokio::test]
async fn two_evaluations_of_one_schedule_measure_uncached_prefills() {
    let Some(server) = llama_server(false).await else { return };
    let db = TestDb::sqlite().await;
    let rig = Rig::new(&db.store, 25).await;
    let connector = rig.connector(&server.base_url).await;
    // A Spec Lab probe identified the server: each evaluation's run records its metrics and the build it says.
    let now = latency_guard::clock::Clock::now_ms(&*rig.clock);
    rig.store.record_probe(rig.ws, connector, Some(ServerKind::LlamaCpp), now).await.unwrap();
    let props: serde_json::Value =
        reqwest::get(format!("{}/props", server.base_url.trim_end_matches("/v1"))).await.unwrap().json().await.unwrap();
    let build = props["build_info"].as_str().unwrap().to_string();
    let long = |i: usize| format!("Request {i}. {}", "Describe the checkout flow and its latency budget. ".repeat(6));
    let input = BenchmarkSetInput {
        name: "Long prompts".into(),
        prompts: (0..2).map(|i| SetPrompt { text: long(i) }).collect(),
        system_prompt: None,
        max_tokens: 2,
    };
    let set = rig.store.create_set(rig.ws, &input.validate().unwrap(), 0).await.unwrap();
    rig.schedule("long prompts", &set, connector, Cadence::FifteenMinutes, true).await;
    for evaluation in ["first", "second"] {
        let outcome = rig.tick_against(connector, &server.base_url).await;
        let run = outcome.run_id.unwrap_or_else(|| panic!("the {evaluation} evaluation ran: {outcome:?}"));
        let records = rig.store.run_iterations(rig.ws, run).await.unwrap();
        assert_eq!(records.len(), 2, "each prompt once: {records:?}");
        assert!(records.iter().all(|r| r.error.is_none()), "{records:?}");
        let prompts: Vec<u64> = records.iter().map(|r| r.tokens_in.expect("llama.cpp reports usage")).collect();
        let cached: Vec<u64> =
            records.iter().map(|r| r.cached_tokens.expect("llama.cpp reports cached tokens")).collect();
        assert!(prompts.iter().all(|&p| p >= 200), "{evaluation} evaluation: long prompts: {prompts:?}");
        assert!(cached.iter().all(|&c| c < 40), "{evaluation} evaluation: only the template's head: {cached:?}");
        let metrics = rig.store.run_server_metrics(rig.ws, run).await.unwrap().expect("the server's metrics");
        assert_eq!(metrics.version.as_deref(), Some(build.as_str()), "the build /props says");
        let answered = latency_guard::guard::judge::answered_of(
            &rig.store.get_run(rig.ws, run).await.unwrap(),
            &records,
            Some(&metrics),
        );
        assert_eq!(answered.engine, Some(format!("llama.cpp {build}")));
    }
    db.cleanup().await;
}
