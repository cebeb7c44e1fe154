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
    SimConfig { ttft: Duration::from_millis(2), itl: Duration::ZERO, tokens, api_key: None }
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
