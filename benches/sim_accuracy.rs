//! How exactly does the simulator keep its promised delays? Fires streamed requests one at a time at a simulator
//! on loopback and compares, per request, the client-observed time to the first content chunk and the gaps
//! between content chunks with the configured TTFT and inter-token delay.
//!
//! The client's own overhead (HTTP, loopback, chunk decoding) is included, so the figures are an upper bound on
//! the simulator's error. Run: `cargo bench --bench sim_accuracy --no-default-features --features ssr`.

#![allow(clippy::unwrap_used, reason = "a broken benchmark should stop loudly")]

use futures::StreamExt;
use latency_guard::sim::{self, SimConfig};
use std::time::{Duration, Instant};

const REQUESTS: usize = 200;
const TOKENS: u32 = 32;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    // Linear interpolation between closest ranks (numpy's default).
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

fn summary(name: &str, mut errors_ms: Vec<f64>) {
    errors_ms.sort_by(f64::total_cmp);
    println!(
        "{name:<28} n={:<6} median {:+.3} ms   p99 {:+.3} ms   max {:+.3} ms",
        errors_ms.len(),
        percentile(&errors_ms, 50.0),
        percentile(&errors_ms, 99.0),
        errors_ms[errors_ms.len() - 1]
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let ttft = Duration::from_millis(50);
    let itl = Duration::from_millis(2);
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(ttft),
        itl: latency_guard::sim::Delay::Fixed(itl),
        tokens: TOKENS,
        api_key: None,
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", sim.base_url());
    let body = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    let (mut ttft_errors, mut gap_errors) = (Vec::new(), Vec::new());
    for _ in 0..REQUESTS {
        let sent = Instant::now();
        let response = client.post(&url).json(&body).send().await.unwrap();
        let mut stream = response.bytes_stream();
        let mut arrivals = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.unwrap();
            let at = Instant::now();
            // One content chunk per token; the role chunk (`{"role":"assistant","content":""}`) does not match.
            let text = String::from_utf8_lossy(&chunk);
            let marker = r#""delta":{"content":""#;
            let tokens = text.match_indices(marker).filter(|(i, m)| !text[i + m.len()..].starts_with('"')).count();
            arrivals.extend(std::iter::repeat_n(at, tokens));
        }
        assert_eq!(arrivals.len(), TOKENS as usize, "every token arrived");
        ttft_errors.push((arrivals[0] - sent).as_secs_f64() * 1e3 - ttft.as_secs_f64() * 1e3);
        for pair in arrivals.windows(2) {
            gap_errors.push((pair[1] - pair[0]).as_secs_f64() * 1e3 - itl.as_secs_f64() * 1e3);
        }
    }
    println!(
        "simulator delay accuracy: TTFT {} ms, inter-token {} ms, {TOKENS} tokens, sequential requests",
        ttft.as_millis(),
        itl.as_millis()
    );
    summary("TTFT (observed - configured)", ttft_errors);
    summary("gap (observed - configured)", gap_errors);
}
