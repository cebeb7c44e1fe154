//! What a crash loses: `latency-guard serve` (SQLite) drives an open-loop run against the simulator (its own
//! process, which counts every response it sent to the end: `GET /sim/stats`), and is killed with SIGKILL after
//! two seconds. The finished iterations lost are the responses the simulator completed minus the iterations the
//! database holds afterwards (an upper bound: a response completed in the last instant before the kill was still
//! in flight at the client). After a restart the run must read `interrupted` with every stored iteration intact.
//!
//! It runs against a simulator that answers at once and against one that waits 1 ms before the first token and
//! between tokens, and reads the length of every batch write from the server's log: a crash loses what finished
//! since the last committed write began (that write took what finished during the one before it), plus what was
//! still on its way to the writer, so the loss is compared with the rate times that time.
//!
//! Run: `cargo bench --bench crash_loss --no-default-features --features ssr [-- TRIALS]`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::model::{RunId, RunStatus};
use latency_guard::store::Store;
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    base: String,
    cookie: String,
}

fn start_server(dir: &std::path::Path, first_start: bool) -> (Child, String, String) {
    let log = std::fs::File::create(dir.join("server.log")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .arg("serve")
        .env("DATABASE_URL", latency_guard::config::sqlite_url(&dir.join("app.db")))
        .env("LATENCY_GUARD_DATA_DIR", dir)
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
        .env("LATENCY_GUARD_DEMO_SIMULATOR", "false")
        .env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S", "0")
        // The manager's debug line per batch write gives the writes' lengths.
        .env("RUST_LOG", "warn,latency_guard=info,latency_guard::runs::manager=debug")
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let mut out = String::new();
        let _ = std::fs::File::open(dir.join("server.log")).unwrap().read_to_string(&mut out);
        let base = out
            .lines()
            .find_map(|l| l.split("listening on ").nth(1))
            .map(|r| r.split_whitespace().next().unwrap_or_default().to_string());
        let link = out.lines().map(str::trim).find(|l| l.contains("/auth/link?token=")).map(str::to_string);
        match (base, link) {
            (Some(base), Some(link)) => return (child, base, link),
            (Some(base), None) if !first_start => return (child, base, String::new()),
            _ => {}
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not start:\n{out}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn completed(client: &reqwest::Client, sim: &str) -> u64 {
    let stats = sim.trim_end_matches("/v1").to_string() + "/sim/stats";
    client.get(stats).send().await.unwrap().json::<Value>().await.unwrap()["completed"].as_u64().unwrap()
}

/// Seconds since midnight UTC of a log line's RFC 3339 timestamp (`2026-11-26T11:03:01.123456Z …`).
fn second_of_day(line: &str) -> Option<f64> {
    let clock = line.split_whitespace().next()?.split('T').nth(1)?.trim_end_matches('Z');
    let mut parts = clock.split(':');
    let (h, m, s): (f64, f64, f64) =
        (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    Some(h * 3600.0 + m * 60.0 + s)
}

/// The batch writes a server logged (`<time> DEBUG iterations stored … write_ms=…`), in order: when each began
/// (seconds since midnight UTC) and how long it took (ms).
fn batch_writes(log: &str) -> Vec<(f64, f64)> {
    log.lines()
        .filter(|l| l.contains("iterations stored"))
        .filter_map(|l| {
            let ms: f64 = l.split("write_ms=").nth(1)?.split_whitespace().next()?.parse().ok()?;
            Some((second_of_day(l)? - ms / 1e3, ms))
        })
        .collect()
}

/// What one trial saw.
struct Trial {
    /// Responses the simulator sent to their end during the run.
    completed: u64,
    /// Iterations the database holds after the restart.
    stored: u64,
    /// The run's status after the restart.
    status: RunStatus,
    /// The batch writes, in order: when each began (s since midnight UTC) and how long it took (ms).
    writes: Vec<(f64, f64)>,
    /// When the server was killed (s since midnight UTC).
    killed_at: f64,
}

impl Trial {
    /// The time from the start of the last committed write to the kill (ms): what finished since then is lost,
    /// since a write takes the batch that finished during the write before it.
    fn uncommitted_ms(&self) -> f64 {
        self.writes.last().map_or(f64::NAN, |(began, _)| (self.killed_at - began).rem_euclid(86_400.0) * 1e3)
    }

    /// The longest batch write (ms).
    fn longest_write_ms(&self) -> f64 {
        self.writes.iter().map(|(_, ms)| *ms).fold(0.0, f64::max)
    }
}

/// Now, in seconds since midnight UTC.
fn now_second_of_day() -> f64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    since_epoch.as_secs_f64().rem_euclid(86_400.0)
}

/// One trial at `rate` requests per second.
async fn trial(client: &reqwest::Client, sim: &str, rate: f64) -> Trial {
    let dir = tempfile::tempdir().unwrap();
    let (child, base, link) = start_server(dir.path(), true);
    let login = client.get(&link).send().await.unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let mut server = Server { child, base, cookie };
    let call = |path: &str, body: Value| {
        client.post(format!("{}/api/{path}", server.base)).header("cookie", &server.cookie).json(&body).send()
    };
    let connector: Value =
        call("connectors/create", json!({"input": {"name": "sim", "baseUrl": sim, "model": "sim-model"}}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let plan = json!({"input": {"connectorId": connector["id"], "agent": {"name": "crash", "tokenBudget": 4},
        "prompts": ["hi"], "iterations": 100_000,
        "mode": {"kind": "open", "ratePerSecond": rate, "maxConcurrency": 256}}});
    let before = completed(client, sim).await;
    let run: Value = call("runs/start", plan).await.unwrap().json().await.unwrap();
    let run: RunId = run["id"].as_str().unwrap().parse().unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let killed_at = now_second_of_day();
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let done = completed(client, sim).await - before;
    let writes = batch_writes(&std::fs::read_to_string(dir.path().join("server.log")).unwrap());

    // The restarted server marks the run interrupted; every stored iteration is intact.
    let (mut restarted, _, _) = start_server(dir.path(), false);
    let store = Store::connect(&latency_guard::config::sqlite_url(&dir.path().join("app.db"))).await.unwrap();
    let workspace = store.run_workspace(run).await.unwrap();
    let status = store.get_run(workspace, run).await.unwrap().status;
    let stored = store.run_iterations(workspace, run).await.unwrap().len() as u64;
    store.close().await;
    let _ = restarted.kill();
    let _ = restarted.wait();
    Trial { completed: done, stored, status, writes, killed_at }
}

#[tokio::main]
async fn main() {
    let trials: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(8);
    // Redirects are not followed: the login link's reply carries the session cookie.
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    println!(
        "| endpoint | rate | trial | completed by the endpoint | stored | lost (upper bound) | batch writes | \
         longest write | last committed write began before the kill | rate × that | run after restart |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let endpoints: [(&str, &[&str]); 2] = [
        ("answers at once", &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "4"]),
        ("1 ms delays", &["--ttft-ms", "1", "--itl-ms", "1", "--tokens", "4"]),
    ];
    for (endpoint, args) in endpoints {
        let sim = support::simulator(None, args);
        for rate in [2_300.0, 150.0] {
            let mut lost = Vec::new();
            for n in 1..=trials {
                let t = trial(&client, &sim.base_url, rate).await;
                let gone = t.completed.saturating_sub(t.stored);
                lost.push(gone);
                let window = t.uncommitted_ms();
                println!(
                    "| {endpoint} | {rate}/s | {n} | {} | {} | {gone} | {} | {:.1} ms | {window:.1} ms | {:.0} | {} |",
                    t.completed,
                    t.stored,
                    t.writes.len(),
                    t.longest_write_ms(),
                    rate * window / 1e3,
                    t.status.as_str()
                );
            }
            lost.sort_unstable();
            println!(
                "| {endpoint} | {rate}/s | all | | | median {} / max {} | | | | | |",
                lost[lost.len() / 2],
                lost[lost.len() - 1]
            );
        }
    }
}
