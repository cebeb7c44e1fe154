//! What recording a server's own metrics costs a run: the same closed-loop run against a real llama.cpp server
//! (the xllamacpp wheel, the tiny local model the tests use) with the connector unprobed (no scraping) and probed
//! (`/metrics` read at the start, once a second, and at the end), alternated over several rounds so drift hits
//! both. Prints client TTFT and total time (p50 / p95, linear interpolation) for each, and how many scrapes the
//! recorded runs made.
//!
//! Run: `LG_PYTHON=target/test-python/bin/python cargo bench --bench scrape_overhead --no-default-features
//! --features ssr [-- --requests 300 --rounds 3]`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

use latency_guard::clock::{Clock, SystemClock};
use latency_guard::config::Secret;
use latency_guard::engine::HttpClient;
use latency_guard::model::{Agent, ConnectorInput, LoadMode, RunPlanInput, ServerKind};
use latency_guard::runs::service::RunManager;
use latency_guard::secrets::SecretBox;
use latency_guard::stats::percentile;
use latency_guard::store::Store;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map_or(default, |v| v.parse().unwrap())
}

#[tokio::main]
async fn main() {
    let (requests, rounds) = (arg("--requests", 300), arg("--rounds", 3));
    let python = std::env::var("LG_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/llama_server.py");
    let mut server = Command::new(&python)
        .args([script, &port.to_string(), dir.path().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the llama.cpp server starts (LG_PYTHON with xllamacpp, gguf, numpy)");
    let mut ready = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut ready).unwrap();
    let base_url = ready.trim().strip_prefix("READY ").expect("the server prints READY").to_string();

    let store = Store::connect(&latency_guard::config::sqlite_url(&dir.path().join("bench.db"))).await.unwrap();
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let sealer = SecretBox::new(&Secret::generate());
    let runs = RunManager::new(store.clone(), sealer.clone(), HttpClient::new().unwrap(), clock.clone());
    let now = clock.now_ms();
    let (ws, _) = store.ensure_workspace("bench", "bench", now).await.unwrap();
    let input = ConnectorInput { name: "llama".into(), base_url, model: "tiny".into(), ..Default::default() };
    let connector = store.create_connector(ws.id, &input.validate().unwrap(), false, &sealer, now).await.unwrap();
    let agent = Agent { name: "bench".into(), system_prompt: None, tools: vec![], token_budget: 16 };
    let one = LoadMode::Closed { concurrency: 1 };
    let iterations = u32::try_from(requests).unwrap();
    let plan = RunPlanInput {
        warmup: 5,
        ..RunPlanInput::new(connector.id, agent, vec!["Count to five.".into()], iterations, one)
    };
    let mut measured: [(Vec<f64>, Vec<f64>, u32); 2] = Default::default();
    for round in 0..rounds {
        for (index, scraping) in [(0, false), (1, true)] {
            let kind = scraping.then_some(ServerKind::LlamaCpp);
            store.record_probe(ws.id, connector.id, kind, clock.now_ms()).await.unwrap();
            let run = runs.run_to_end(ws.id, plan.clone()).await.unwrap();
            let records = store.run_iterations(ws.id, run.id).await.unwrap();
            let ok = records.iter().filter(|r| !r.warmup && r.error.is_none());
            let (ttft, total, scrapes) = &mut measured[index];
            for r in ok {
                ttft.extend(r.ttft_ms);
                total.push(r.total_ms);
            }
            if let Some(server) = store.run_server_metrics(ws.id, run.id).await.unwrap() {
                *scrapes += server.scrapes;
            }
            eprintln!("round {round}: scraping {scraping}: {} iterations", records.len());
        }
    }
    let p = |values: &mut Vec<f64>, q: f64| {
        values.sort_by(f64::total_cmp);
        percentile(values, q).unwrap_or(f64::NAN)
    };
    println!("| server metrics | requests | TTFT p50 | TTFT p95 | total p50 | total p95 | scrapes |");
    println!("|---|---|---|---|---|---|---|");
    for (label, (ttft, total, scrapes)) in ["not recorded", "recorded (1 s)"].iter().zip(measured.iter_mut()) {
        println!(
            "| {label} | {} | {:.3} ms | {:.3} ms | {:.3} ms | {:.3} ms | {scrapes} |",
            total.len(),
            p(ttft, 50.0),
            p(ttft, 95.0),
            p(total, 50.0),
            p(total, 95.0)
        );
    }
    // Closing its standard input stops the server.
    drop(server.stdin.take().map(|mut stdin| stdin.flush()));
    let _ = server.kill();
    let _ = server.wait();
}
