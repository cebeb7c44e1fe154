//! Memory of the server (`latency-guard serve`, its own process, on SQLite) above idle while it does what a
//! workspace may ask within its limits: 40 dataset uploads at once (refused 14-byte ones, then 1 MiB datasets),
//! runs whose prompts are cut by a server's `/tokenize` (the simulator's: the longest legal prompt; a shared-prefix
//! workload), and a run against a `/tokenize` that answers 30 MiB whatever it is asked. Its peak resident memory
//! (`VmHWM`, counted afresh for each step through `/proc/PID/clear_refs`) is read from `/proc` after each step,
//! beside what was resident before it; the table says how far each step took the server above the idle server's.
//!
//! Run: `cargo bench --bench workload_memory --no-default-features --features ssr` (`LG_BENCH_STEPS=shared,flood`
//! takes only those steps; `LG_BENCH_WRAPPER=heaptrack` runs the server under a heap profiler).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The server under measurement, its address and a session cookie of its owner.
struct Server {
    child: std::process::Child,
    base: String,
    cookie: String,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // LG_BENCH_WRAPPER runs the server under a profiler (`heaptrack`): its figures are then the wrapper's.
        let wrapper = std::env::var("LG_BENCH_WRAPPER").ok().filter(|w| !w.is_empty());
        let mut command = match &wrapper {
            Some(wrapper) => {
                let mut command = Command::new(wrapper);
                command.arg(env!("CARGO_BIN_EXE_latency-guard"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_latency-guard")),
        };
        let mut child = command
            .arg("serve")
            .env("LATENCY_GUARD_DATA_DIR", dir.path())
            .env("DATABASE_URL", format!("sqlite://{}/bench.db?mode=rwc", dir.path().display()))
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
            .env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S", "0")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let link = loop {
            let line = lines.next().expect("the server prints its login link").unwrap();
            if let Some(link) = line.trim().strip_prefix("http") {
                break format!("http{link}");
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let login = client.get(&link).send().await.unwrap();
        let cookie = login.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
        Self { child, base: format!("http://127.0.0.1:{port}"), cookie, client, _dir: dir }
    }

    /// Resident memory now and its peak since the last [`Server::reset_peak`], MiB.
    fn memory_mib(&self) -> (f64, f64) {
        support::memory_mib(self.child.id()).unwrap()
    }

    /// Starts counting the peak afresh (`/proc/PID/clear_refs` 5 resets `VmHWM` to the memory resident now).
    fn reset_peak(&self) {
        std::fs::write(format!("/proc/{}/clear_refs", self.child.id()), "5").unwrap();
    }

    async fn call(&self, path: &str, body: Value) -> Value {
        let reply = self
            .client
            .post(format!("{}/api/{path}", self.base))
            .header("cookie", &self.cookie)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = reply.status();
        let text = reply.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap()
    }

    async fn upload(&self, name: String, bytes: Vec<u8>) -> u16 {
        let reply = self
            .client
            .post(format!("{}/api/datasets/upload?name={name}", self.base))
            .header("cookie", &self.cookie)
            .body(bytes)
            .send()
            .await
            .unwrap();
        reply.status().as_u16()
    }

    /// Runs `workload` on a new connector to `base_url` to its end; the run's status and error, if any.
    async fn run(&self, base_url: &str, workload: Value) -> String {
        let connector = json!({"input": {"name": "measured", "baseUrl": base_url, "model": "m"}});
        let connector = self.call("connectors/create", connector).await["id"].clone();
        let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bench", "tokenBudget": 4},
                                    "prompts": [], "iterations": 1, "warmup": 0, "workload": workload,
                                    "mode": {"kind": "closed", "concurrency": 8}}});
        let id = self.call("runs/start", plan).await["id"].clone();
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let view = self.call("runs/view", json!({"id": id})).await;
            let run = &view["run"];
            let status = run["status"].as_str().unwrap_or_default().to_string();
            if status != "running" {
                return format!("{status} {}", run["failure"].as_str().unwrap_or_default()).trim().to_string();
            }
            assert!(Instant::now() < deadline, "the run did not end");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// A server answering every `/tokenize` with 30 MiB of token ids, and chat completions at once.
async fn flooding_tokenizer() -> String {
    let answer: &'static str = {
        let mut body = String::with_capacity(31 << 20);
        body.push_str("{\"tokens\": [");
        while body.len() < 30 << 20 {
            body.push_str("1,");
        }
        body.push_str("1]}");
        Box::leak(body.into_boxed_str())
    };
    let app = axum::Router::new()
        .route("/tokenize", axum::routing::post(move || std::future::ready(answer)))
        .route(
            "/v1/chat/completions",
            axum::routing::post(|| async {
                axum::Json(json!({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/v1", listener.local_addr().unwrap().port());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// A dataset of about `bytes` bytes: chat prompts of a few hundred characters.
fn dataset(bytes: usize) -> Vec<u8> {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "{{\"prompt\": \"Question {i}: explain how a prefix cache changes the time to the first token of a \
             long prompt, with an example of a chat that grows turn by turn and a note on eviction.\"}}\n"
        ));
        i += 1;
    }
    text.into_bytes()
}

#[tokio::main]
async fn main() {
    let sim = support::simulator(None, &["--ttft-ms", "1", "--itl-ms", "0", "--tokens", "4"]);
    let server = Server::start().await;
    // The idle server: started, its first page read.
    let _ = server.client.get(format!("{}/", server.base)).header("cookie", &server.cookie).send().await;
    let idle = server.memory_mib().0;
    println!("| step | outcome | time | resident before | peak during | peak above idle ({idle:.1} MiB) |");
    println!("|---|---|---|---|---|---|");
    let mut before = server.memory_mib().0;
    server.reset_peak();
    let mut step = |name: &str, outcome: String, started: Instant| {
        let (now, peak) = server.memory_mib();
        let secs = started.elapsed().as_secs_f64();
        println!("| {name} | {outcome} | {secs:.1} s | {before:.1} MiB | {peak:.1} MiB | {:.1} MiB |", peak - idle);
        before = now;
        server.reset_peak();
    };

    // LG_BENCH_STEPS names the steps to take (uploads, refused, longest, shared, flood; all by default).
    let steps = std::env::var("LG_BENCH_STEPS").unwrap_or_default();
    let take = |name: &str| steps.is_empty() || steps.split(',').any(|s| s.trim() == name);

    if take("uploads") {
        let started = Instant::now();
        let body = dataset(1 << 20);
        let kept: Vec<u16> =
            futures::future::join_all((0..40).map(|i| server.upload(format!("d{i}.jsonl"), body.clone()))).await;
        let outcome = format!("{} kept, {} refused", count(&kept, 200), kept.len() - count(&kept, 200));
        step("40 uploads of 1 MiB at once", outcome, started);
    }

    if take("refused") {
        // After them: 20 refusals spend the workspace's budget, and the next uploads wait (429) whatever they hold.
        let started = Instant::now();
        let refused: Vec<u16> = futures::future::join_all(
            (0..40).map(|i| server.upload(format!("r{i}.jsonl"), b"{\"prompts\": 1}".to_vec())),
        )
        .await;
        let outcome = format!("{} refused, {} over the budget", count(&refused, 400), count(&refused, 429));
        step("40 refused 14-byte uploads at once", outcome, started);
    }

    if take("longest") {
        let longest = json!({"kind": "synthetic", "requests": 8, "seed": 1,
                         "input": {"kind": "fixed", "tokens": 131072}, "output": {"kind": "fixed", "tokens": 4}});
        let started = Instant::now();
        let outcome = server.run(&sim.base_url, longest).await;
        step("8 prompts of 131,072 tokens, cut by the simulator's /tokenize", outcome, started);
    }

    if take("shared") {
        // The most prefix text a run may keep: 16 groups × 125,000 tokens = 2,000,000 (MAX_PREFIX_TOKENS_KEPT).
        let shared = json!({"kind": "sharedPrefix", "groups": 16, "prefixTokens": 125000, "requests": 32, "seed": 1,
                        "suffix": {"kind": "fixed", "tokens": 64}, "output": {"kind": "fixed", "tokens": 4}});
        let started = Instant::now();
        let outcome = server.run(&sim.base_url, shared).await;
        step("shared prefix: 16 groups of 125,000 tokens (the most kept), 32 requests", outcome, started);
    }

    if take("flood") {
        let flood = flooding_tokenizer().await;
        let hostile = json!({"kind": "synthetic", "requests": 8, "seed": 1,
                         "input": {"kind": "fixed", "tokens": 1000}, "output": {"kind": "fixed", "tokens": 4}});
        let started = Instant::now();
        let outcome = server.run(&flood, hostile).await;
        step("a /tokenize answering 30 MiB", outcome, started);
    }
}

fn count(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|s| **s == status).count()
}
