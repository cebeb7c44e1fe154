//! The test client's typed calls: a server function called as a signed-in workspace, its reply read as the API's
//! own type (`app.sweep(&cookie, id) -> SweepView`), a refusal failing the test with the server's words, and the
//! waits for a job to end, which ask again until it has ([`until`]) rather than sleep a fixed time.
#![allow(dead_code, reason = "each test binary uses the part it needs")]

use std::future::Future;
use std::time::{Duration, Instant};

use latency_guard::capacity::report::SweepView;
use latency_guard::lab::report::AbTestView;
use latency_guard::model::{AbTestId, RunId, RunStatus, SweepId};
use latency_guard::runs::api::RunReport;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::TestApp;

/// How long a job the tests start may take to end: far beyond any of them, so only a hang reaches it.
pub const JOB_LIMIT: Duration = Duration::from_secs(60);

/// Asks `probe` again, every 20 ms, until it answers `Some`, at most `limit`; its answer. Past the limit the test
/// fails and says what it waited for.
pub async fn until<T, F, Fut>(what: &str, limit: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(answer) = probe().await {
            return answer;
        }
        assert!(started.elapsed() < limit, "waited {limit:?} for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

impl TestApp {
    /// `POST /api/<path>` as the workspace of `cookie`, the reply read as `T`; any status but 200 fails the test.
    pub async fn ok<T: DeserializeOwned>(&self, cookie: &str, path: &str, body: Value) -> T {
        let (status, text) = self.call(path, body, Some(cookie)).await;
        assert_eq!(status, 200, "{path}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
    }

    /// [`TestApp::ok`] read as JSON, for a test about the reply's shape on the wire.
    pub async fn json(&self, cookie: &str, path: &str, body: Value) -> Value {
        self.ok(cookie, path, body).await
    }

    /// A connector to `base_url` serving `model`, created as the browser's form creates one; its id.
    pub async fn connector(&self, cookie: &str, name: &str, base_url: &str, model: &str) -> String {
        let input = json!({"name": name, "baseUrl": base_url, "model": model});
        let created = self.json(cookie, "connectors/create", json!({ "input": input })).await;
        created["id"].as_str().unwrap_or_else(|| panic!("no id: {created}")).to_string()
    }

    /// A run's report (`runs/report`).
    pub async fn run_report(&self, cookie: &str, id: RunId) -> RunReport {
        self.ok(cookie, "runs/report", json!({ "id": id })).await
    }

    /// The run's report once the run has ended.
    pub async fn until_run_ended(&self, cookie: &str, id: RunId) -> RunReport {
        until("the run to end", JOB_LIMIT, || async {
            Some(self.run_report(cookie, id).await).filter(|report| report.run.status != RunStatus::Running)
        })
        .await
    }

    /// The home page's HTML as the server renders it (`home/page`).
    pub async fn home_page(&self, cookie: &str) -> String {
        self.ok(cookie, "home/page", json!({})).await
    }

    /// A sweep as its page reads it (`sweeps/get`).
    pub async fn sweep(&self, cookie: &str, id: SweepId) -> SweepView {
        self.ok(cookie, "sweeps/get", json!({ "id": id })).await
    }

    /// The sweep once it has ended.
    pub async fn until_sweep_ended(&self, cookie: &str, id: SweepId) -> SweepView {
        until("the sweep to end", JOB_LIMIT, || async {
            Some(self.sweep(cookie, id).await).filter(|view| view.summary.status != RunStatus::Running)
        })
        .await
    }

    /// An A/B test as its page reads it (`speclab/ab/get`).
    pub async fn ab_test(&self, cookie: &str, id: AbTestId) -> AbTestView {
        self.ok(cookie, "speclab/ab/get", json!({ "id": id })).await
    }

    /// The A/B test once it has ended.
    pub async fn until_ab_test_ended(&self, cookie: &str, id: AbTestId) -> AbTestView {
        until("the A/B test to end", JOB_LIMIT, || async {
            Some(self.ab_test(cookie, id).await).filter(|view| view.summary.status != RunStatus::Running)
        })
        .await
    }
}
