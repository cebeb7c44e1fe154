//! The simulator speaks the OpenAI wire format: JSON, and SSE with a role chunk, content, usage and `[DONE]`.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};
use std::time::Duration;

async fn post(base: &str, body: Value) -> (u16, String) {
    let response = reqwest::Client::new().post(format!("{base}/chat/completions")).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

fn config(tokens: u32) -> SimConfig {
    SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(2)),
        itl: latency_guard::sim::Delay::Fixed(Duration::ZERO),
        tokens,
        api_key: None,
        ..Default::default()
    }
}

#[tokio::test]
async fn streams_role_chunk_content_usage_and_done() {
    let sim = sim::spawn(config(5), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "12345678"}], "stream": true,
                      "stream_options": {"include_usage": true}});
    let (status, text) = post(&sim.base_url(), body).await;
    assert_eq!(status, 200);
    let events: Vec<&str> =
        text.split("\n\n").filter(|e| !e.is_empty()).map(|e| e.strip_prefix("data: ").unwrap()).collect();
    assert_eq!(events.last(), Some(&"[DONE]"));
    let chunks: Vec<Value> = events[..events.len() - 1].iter().map(|e| serde_json::from_str(e).unwrap()).collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(chunks[0]["choices"][0]["delta"]["content"], "");
    let content: Vec<&str> =
        chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).filter(|s| !s.is_empty()).collect();
    assert_eq!(content.len(), 5);
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(chunks.last().unwrap()["choices"], json!([]));
    assert_eq!(usage["completion_tokens"], 5);
    assert_eq!(usage["prompt_tokens"], 2, "8 characters / 4");
    assert_eq!(chunks[chunks.len() - 2]["choices"][0]["finish_reason"], "stop");
}

#[tokio::test]
async fn caps_output_at_max_tokens_and_says_length() {
    let sim = sim::spawn(config(50), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3});
    let (status, text) = post(&sim.base_url(), body).await;
    assert_eq!(status, 200);
    let reply: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reply["usage"]["completion_tokens"], 3);
    assert_eq!(reply["choices"][0]["finish_reason"], "length");
    assert_eq!(reply["choices"][0]["message"]["content"], "lorem ipsum dolor");
}

#[tokio::test]
async fn omits_usage_unless_asked_and_rejects_malformed_bodies() {
    let sim = sim::spawn(config(2), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    let (_, text) = post(&sim.base_url(), body).await;
    assert!(!text.contains("\"usage\""), "{text}");
    let (status, text) = post(&sim.base_url(), json!({"messages": []})).await;
    assert_eq!(status, 400);
    assert!(text.contains("invalid body"), "{text}");
}

#[tokio::test]
async fn streams_reasoning_first_then_several_tokens_per_chunk_with_running_usage() {
    use latency_guard::sim::UsageMode;
    let config = SimConfig { tokens_per_chunk: 3, reasoning_tokens: 2, usage: UsageMode::Continuous, ..config(7) };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    let (_, text) = post(&sim.base_url(), body).await;
    let chunks: Vec<Value> = text
        .split("\n\n")
        .filter(|e| !e.is_empty() && !e.contains("[DONE]"))
        .map(|e| serde_json::from_str(e.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    let deltas: Vec<&Value> = chunks.iter().map(|c| &c["choices"][0]["delta"]).collect();
    assert_eq!(deltas[1]["reasoning_content"], "lorem ipsum", "the 2 reasoning tokens, in their own chunk");
    assert_eq!(deltas[2]["content"], "lorem ipsum dolor");
    assert_eq!(deltas[3]["content"], " sit amet consectetur");
    assert_eq!(deltas[4]["content"], " adipiscing");
    let running: Vec<u64> = chunks[1..5].iter().map(|c| c["usage"]["completion_tokens"].as_u64().unwrap()).collect();
    assert_eq!(running, [2, 5, 8, 9], "usage runs along, reasoning included");
    assert!(
        deltas[2]["sim_us"].as_u64().unwrap() > 1_700_000_000_000_000,
        "each chunk carries the simulator's send time"
    );
}

#[tokio::test]
async fn injects_http_faults_with_their_status() {
    use latency_guard::sim::Fault;
    for (fault, status) in [(Fault::RateLimit, 429), (Fault::ServerError, 500)] {
        let config = SimConfig { fault_rate: 1.0, faults: vec![fault], ..config(4) };
        let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
        let response = reqwest::Client::new()
            .post(format!("{}/chat/completions", sim.base_url()))
            .json(&json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status);
        if status == 429 {
            assert_eq!(response.headers()["retry-after"], "1");
        }
    }
}

/// The capacity model: with 2 slots, 4 requests at once are served 2 by 2; the second pair waits for the first
/// to end, and that wait is part of its time to first token. A client disconnecting frees its slot.
#[tokio::test]
async fn slots_queue_requests_and_the_wait_is_part_of_the_first_token() {
    // ttft 40 ms, 5 chunks 10 ms apart: each response holds its slot ~80 ms.
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(40)),
        itl: latency_guard::sim::Delay::Fixed(Duration::from_millis(10)),
        tokens: 5,
        slots: Some(2),
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let client = reqwest::Client::new();
    let first_token_ms = |base: String, client: reqwest::Client| async move {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
        let sent = std::time::Instant::now();
        let mut response = client.post(format!("{base}/chat/completions")).json(&body).send().await.unwrap();
        let mut seen = String::new();
        let mut first = None;
        while let Some(chunk) = response.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if first.is_none() && seen.contains("lorem") {
                first = Some(sent.elapsed().as_secs_f64() * 1e3);
            }
        }
        first.unwrap()
    };
    let waits: Vec<f64> =
        futures::future::join_all((0..4).map(|_| first_token_ms(sim.base_url(), client.clone()))).await;
    let mut sorted = waits.clone();
    sorted.sort_by(f64::total_cmp);
    assert!(sorted[1] < 75.0, "two are served at once: {waits:?}");
    assert!(sorted[2] >= 120.0 && sorted[3] >= 120.0, "two wait ~80 ms for a slot, then 40 ms: {waits:?}");

    // A client that goes away mid-stream gives its slot back: the next request is served at once.
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    for _ in 0..2 {
        let response = client.post(format!("{}/chat/completions", sim.base_url())).json(&body).send().await.unwrap();
        drop(response);
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let alone = first_token_ms(sim.base_url(), client.clone()).await;
    assert!(alone < 75.0, "slots freed by clients that left: {alone} ms");
}

/// Several workers share one port: every request is answered whole whichever worker's listener the kernel gave its
/// connection to, the counters are the simulator's, not a worker's, and stopping stops them all.
#[tokio::test]
async fn workers_share_the_port_and_the_counters_and_stop_together() {
    let sim = sim::spawn_workers(config(4), "127.0.0.1:0".parse().unwrap(), 3).await.unwrap();
    let fresh = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    let sends = (0..60).map(|_| {
        let request = fresh.post(format!("{}/chat/completions", sim.base_url())).json(&body).send();
        async move { request.await.unwrap().text().await.unwrap() }
    });
    let answers = futures::future::join_all(sends).await;
    assert!(answers.iter().all(|a| a.matches("lorem").count() == 1 && a.ends_with("data: [DONE]\n\n")), "{answers:?}");

    let stats: Value =
        fresh.get(format!("http://{}/sim/stats", sim.addr())).send().await.unwrap().json().await.unwrap();
    assert_eq!(stats["completed"], 60);
    assert_eq!(stats["connections"], 61, "one per request and this one: {stats}");
    let per_worker: Vec<u64> =
        stats["connectionsPerWorker"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
    assert_eq!(per_worker.len(), 3);
    assert!(per_worker.iter().filter(|n| **n > 0).count() >= 2, "the kernel spread the connections: {per_worker:?}");

    let addr = sim.addr();
    sim.stop();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = fresh.get(format!("http://{addr}/sim/stats")).timeout(Duration::from_secs(2)).send().await;
    assert!(refused.is_err(), "a stopped simulator answers nothing: {refused:?}");
}
