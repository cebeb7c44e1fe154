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
    assert_eq!(usage["prompt_tokens"], 4, "the role, 1234, 5678 and the answer's start");
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
    assert_eq!(reply["choices"][0]["message"]["content"], "lo rem ip");
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
    assert_eq!(deltas[1]["reasoning_content"], "lo rem", "the 2 reasoning tokens, in their own chunk");
    assert_eq!(deltas[2]["content"], "lo rem ip");
    assert_eq!(deltas[3]["content"], " sum do lor");
    assert_eq!(deltas[4]["content"], " sit");
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
            if first.is_none() && seen.contains(r#""content":"lo""#) {
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
    assert!(
        answers.iter().all(|a| a.matches(r#""content":"lo""#).count() == 1 && a.ends_with("data: [DONE]\n\n")),
        "{answers:?}"
    );

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

fn user(content: &str) -> Value {
    json!({"role": "user", "content": content})
}

async fn reply(base: &str, body: Value) -> Value {
    let (status, text) = post(base, body).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn call(sim: &sim::SimHandle, path: &str, body: Value) -> (u16, Value) {
    let response =
        reqwest::Client::new().post(format!("http://{}{path}", sim.addr())).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// `/tokenize` answers in llama.cpp's words and vLLM's, `/detokenize` gives the text back, and a chat's tokens as
/// `/tokenize` counts them with the template are its `usage.prompt_tokens`.
#[tokio::test]
async fn tokenizes_as_llama_cpp_and_vllm_do_and_counts_usage_the_same_way() {
    let sim = sim::spawn_local(config(3)).await.unwrap();
    let (status, llama) = call(&sim, "/tokenize", json!({"content": "hello world"})).await;
    assert_eq!(status, 200);
    let ids = llama["tokens"].as_array().unwrap().clone();
    assert_eq!(ids.len(), 4, "hell, o, ' wor', ld");
    let (_, vllm) = call(&sim, "/tokenize", json!({"model": "m", "prompt": "hello world"})).await;
    assert_eq!((vllm["count"].as_u64(), &vllm["tokens"]), (Some(4), &Value::Array(ids.clone())));
    let (_, pieces) = call(&sim, "/tokenize", json!({"content": "hello world", "with_pieces": true})).await;
    let texts: Vec<&str> = pieces["tokens"].as_array().unwrap().iter().map(|t| t["piece"].as_str().unwrap()).collect();
    assert_eq!(texts, ["hell", "o", " wor", "ld"]);
    let (_, text) = call(&sim, "/detokenize", json!({"tokens": ids})).await;
    assert_eq!((text["content"].as_str(), text["prompt"].as_str()), (Some("hello world"), Some("hello world")));

    let messages = json!([{"role": "system", "content": "be brief"}, user("hello world")]);
    let (_, chat) = call(&sim, "/tokenize", json!({"model": "m", "messages": messages})).await;
    assert_eq!(chat["count"], 1 + 3 + 1 + 4 + 1, "each message's role, its content, and the answer's start");
    let answer = reply(&sim.base_url(), json!({"model": "m", "messages": messages})).await;
    assert_eq!(answer["usage"]["prompt_tokens"], chat["count"]);
    let content = answer["choices"][0]["message"]["content"].as_str().unwrap();
    let (_, counted) = call(&sim, "/tokenize", json!({"content": content})).await;
    assert_eq!(counted["count"], answer["usage"]["completion_tokens"], "the answer is as long as its usage says");

    let (status, refused) = call(&sim, "/detokenize", json!({"tokens": [0]})).await;
    assert_eq!(status, 400);
    assert!(refused["error"]["message"].as_str().unwrap().contains("token 0"), "{refused}");
    let (status, _) = call(&sim, "/tokenize", json!({"tokens": [1]})).await;
    assert_eq!(status, 400, "nothing to tokenize");
}

/// The model's own answer is `--tokens` long; `ignore_eos` runs it to `max_tokens` and `min_tokens` lengthens it.
#[tokio::test]
async fn answers_run_to_max_tokens_when_told_to_ignore_their_end() {
    let sim = sim::spawn_local(config(5)).await.unwrap();
    let base = sim.base_url();
    let ask = |extra: Value| {
        let mut body = json!({"model": "m", "messages": [user("hi")], "max_tokens": 40});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        reply(&base, body)
    };
    let natural = ask(json!({})).await;
    assert_eq!(
        (natural["usage"]["completion_tokens"].as_u64(), natural["choices"][0]["finish_reason"].as_str()),
        (Some(5), Some("stop"))
    );
    let forced = ask(json!({"ignore_eos": true})).await;
    assert_eq!(
        (forced["usage"]["completion_tokens"].as_u64(), forced["choices"][0]["finish_reason"].as_str()),
        (Some(40), Some("length"))
    );
    let floor = ask(json!({"min_tokens": 12})).await;
    assert_eq!(floor["usage"]["completion_tokens"], 12);
    let past_the_cap = ask(json!({"min_tokens": 90})).await;
    assert_eq!(
        (past_the_cap["usage"]["completion_tokens"].as_u64(), past_the_cap["choices"][0]["finish_reason"].as_str()),
        (Some(40), Some("length"))
    );
}

/// Streamed: the time to the first content chunk, and the final usage.
async fn first_token_and_usage(base: &str, messages: Value) -> (f64, Value) {
    let body = json!({"model": "m", "messages": messages, "stream": true, "stream_options": {"include_usage": true}});
    let sent = std::time::Instant::now();
    let mut response =
        reqwest::Client::new().post(format!("{base}/chat/completions")).json(&body).send().await.unwrap();
    let (mut seen, mut first) = (String::new(), None);
    while let Some(chunk) = response.chunk().await.unwrap() {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if first.is_none() && seen.contains(r#""content":"lo""#) {
            first = Some(sent.elapsed().as_secs_f64() * 1e3);
        }
    }
    let usage = seen
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter_map(|e| serde_json::from_str::<Value>(e).ok())
        .find(|c| c["usage"].is_object())
        .map(|c| c["usage"].clone())
        .unwrap();
    (first.unwrap(), usage)
}

/// The prefix cache's model, checked with prompts whose tokens are counted by hand: "abcd" is one token, so a user
/// message of 100 of them and a 1-token suffix is 103 prompt tokens with its role and the answer's start. A second
/// prompt with the same 100 but another suffix finds 6 blocks of 16 (positions 0..96: the role and 95 "abcd")
/// cached; at 1 ms of prefill a token its first token comes 96 ms sooner. Time can only be added to the model's, so
/// the bound below it is exact and the one above allows for a loaded machine.
#[tokio::test]
async fn a_shared_prefix_is_served_from_the_cache_and_its_first_token_comes_sooner() {
    let config = SimConfig { prefill_per_token: Duration::from_millis(1), ..config(4) };
    let sim = sim::spawn_local(config).await.unwrap();
    let prefix = "abcd".repeat(100);
    let (cold, usage) = first_token_and_usage(&sim.base_url(), json!([user(&format!("{prefix} x1"))])).await;
    assert_eq!(
        (usage["prompt_tokens"].as_u64(), usage["prompt_tokens_details"]["cached_tokens"].as_u64()),
        (Some(103), Some(0))
    );
    let (warm, usage) = first_token_and_usage(&sim.base_url(), json!([user(&format!("{prefix} x2"))])).await;
    assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 96);
    assert!(cold >= 2.0 + 103.0, "cold: 2 ms and 103 tokens of prefill: {cold} ms");
    assert!(warm >= 2.0 + 7.0, "warm: 2 ms and the 7 uncached tokens: {warm} ms");
    assert!(warm < cold - 96.0 + 40.0, "96 ms sooner, within 40 ms: cold {cold} ms, warm {warm} ms");
}

/// A conversation's next turn sends the first turn and its answer back: turn 1 is 42 prompt tokens (role, 40
/// "abcd", answer start) and an 8-token answer, 50 tokens kept, so 3 blocks; turn 2 is 53 tokens (the answer
/// message's role is the answer start already counted, then its 8 tokens, a user role, "more" and the answer
/// start), of which those 48 are cached.
#[tokio::test]
async fn a_conversation_finds_its_earlier_turns_and_answers_cached() {
    let sim = sim::spawn_local(config(8)).await.unwrap();
    let first = user(&"abcd".repeat(40));
    let turn_one = reply(&sim.base_url(), json!({"model": "m", "messages": [first]})).await;
    assert_eq!(turn_one["usage"]["prompt_tokens"], 42);
    let answer = turn_one["choices"][0]["message"]["content"].as_str().unwrap();
    let messages = json!([first, {"role": "assistant", "content": answer}, user("more")]);
    let turn_two = reply(&sim.base_url(), json!({"model": "m", "messages": messages})).await;
    assert_eq!(turn_two["usage"]["prompt_tokens"], 53);
    assert_eq!(turn_two["usage"]["prompt_tokens_details"]["cached_tokens"], 48);
}

/// A request that reaches the simulator while its thread is busy is timed from when it reached the socket: the
/// simulator's clock for it (`x-sim-received-us`, and its first token's deadline) does not start when the busy
/// thread got to it, so a benchmark that subtracts the simulator's own times does not charge that wait to the
/// client. The simulator here runs on the test's one thread, which is held for 60 ms after the request is written.
#[tokio::test(flavor = "current_thread")]
async fn a_request_is_timed_from_when_it_reached_the_socket_even_when_the_simulator_was_busy() {
    use std::io::{Read, Write};
    use std::time::{SystemTime, UNIX_EPOCH};
    let _stamping = until_the_kernel_stamps();
    let sim = sim::spawn(config(1), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let addr = sim.base_url().trim_start_matches("http://").trim_end_matches("/v1").to_string();
    let (written_tx, written) = std::sync::mpsc::channel();
    let client = std::thread::spawn(move || {
        let mut socket = std::net::TcpStream::connect(&addr).unwrap();
        let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}"#;
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(request.as_bytes()).unwrap();
        let unix_us = |at: SystemTime| at.duration_since(UNIX_EPOCH).unwrap().as_micros() as u64;
        written_tx.send(unix_us(SystemTime::now())).unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).unwrap();
        answer
    });
    let written_us = written.recv().unwrap();
    // Busy with other work: the simulator's whole thread, as a simulator's one core is under many streams.
    std::thread::sleep(Duration::from_millis(60));
    let answer = tokio::task::spawn_blocking(move || client.join().unwrap()).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let received_us: u64 = answer
        .lines()
        .find_map(|line| line.strip_prefix("x-sim-received-us: "))
        .unwrap_or_else(|| panic!("no x-sim-received-us in {answer}"))
        .trim()
        .parse()
        .unwrap();
    let late_ms = (received_us as f64 - written_us as f64) / 1e3;
    assert!(late_ms > -1.0, "received {late_ms:.3} ms before it was written");
    assert!(late_ms < 20.0, "received {late_ms:.3} ms after it was written; the simulator's thread was held 60 ms");
}

/// Holds the kernel's receive stamps on and returns once a segment on loopback comes stamped (Linux switches
/// stamping on a little after the first socket asks, when nothing else holds it on).
fn until_the_kernel_stamps() -> latency_guard::clock::arrival::Holder {
    use latency_guard::clock::arrival;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let holder = arrival::Holder::new().expect("Linux gives a socket that stamps");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let reader = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (mut writer, _) = listener.accept().unwrap();
    assert!(arrival::enable(&reader));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let (mut into, mut control) = ([0u8; 8], arrival::control_buffer());
    loop {
        writer.write_all(b"p").unwrap();
        // A blocking socket: the read waits for the byte.
        let (_, stamp) = arrival::receive(reader.as_raw_fd(), &mut into, &mut control).unwrap();
        if stamp.is_some() {
            return holder;
        }
        assert!(std::time::Instant::now() < deadline, "stamping never switched on");
        std::thread::sleep(Duration::from_millis(1));
    }
}
