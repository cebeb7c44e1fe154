//! Sending a plan's requests and collecting the results, for every front end alike: the server's run manager
//! (which stores and broadcasts each batch) and the `bench` command (which prints progress and keeps them).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::driver::{drive, Finished, Pacing};
use super::requests::{Requests, Sent};
use crate::engine::{measure_dropping_rejected_stream_options, open_connections, unsent, HttpClient, RequestTarget};
use crate::model::{
    ConnectionPolicy, IterationRecord, Job, LoadMode, Measurement, OpenedAhead, RetriedAttempt, RetryCause, RunPlan,
};

/// Finished iterations waiting for the sink at most; a slow sink slows the run instead of growing memory. The
/// sink takes all of them at once, so a batch never leaves older results behind: what a crash loses is what
/// finished since the last stored batch was taken, however slow the writes (docs/RELIABILITY.md).
const PENDING: usize = 4_096;
/// The longest wait for connections opened ahead; a slower endpoint's first requests open their own.
const OPEN_AHEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything a run needs to send its requests.
pub struct Execution {
    /// The plan.
    pub plan: Arc<RunPlan>,
    /// Where and as whom.
    pub target: RequestTarget,
    /// The model sent in each body.
    pub model: String,
    /// The shared client.
    pub client: HttpClient,
    /// Fixes the Poisson schedule.
    pub seed: u64,
    /// Stops the run.
    pub cancel: CancellationToken,
    /// USD per 1M input and output tokens.
    pub prices: (Option<f64>, Option<f64>),
    /// A model's tokenizer.json to cut a workload's prompts with when the server has no `/tokenize` (given to
    /// `bench`; a server reads no path a request names).
    pub tokenizer_file: Option<std::path::PathBuf>,
    /// The text of the dataset uploaded to the workspace that the workload sends (a server's runs; `bench` reads
    /// its files from disk).
    pub uploaded: Option<Arc<str>>,
}

/// How the sending went.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The endpoint rejected `stream_options`, so it was dropped for the rest of the run.
    pub stream_options_rejected: bool,
    /// The connections opened before the first request (closed loop on reused connections only).
    pub opened_ahead: Option<OpenedAhead>,
    /// Why the run stopped early, if it failed (a sink error or a crashed driver).
    pub failure: Option<String>,
    /// The tokenizer a workload's prompts were made with.
    pub prompt_tokenizer: Option<crate::model::PromptTokenizer>,
    /// What the load generator's own process did while the requests were sent (`None` when nothing was sent).
    pub client_load: Option<crate::model::ClientLoad>,
    /// What answered, over every reply (`None` when no reply came).
    pub fingerprint: Option<crate::model::Fingerprint>,
}

impl Outcome {
    /// A run that sent nothing: stopped before its first send, or failed to (`failure`).
    fn nothing_sent(failure: Option<String>) -> Self {
        Self {
            stream_options_rejected: false,
            opened_ahead: None,
            failure,
            prompt_tokenizer: None,
            client_load: None,
            fingerprint: None,
        }
    }
}

/// Receives finished iterations in batches, in the order they finished.
pub trait BatchSink {
    /// Takes one batch; an error stops the run and its text becomes the run's failure.
    fn accept(
        &mut self,
        batch: Vec<(IterationRecord, Measurement)>,
    ) -> impl std::future::Future<Output = Result<(), SinkError>> + Send;
}

/// Why a sink refused a batch.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// The results could not be stored (the cause is in the server log; the run's failure says where to look).
    #[error("results could not be stored; see the server log")]
    Store(#[source] crate::store::StoreError),
    /// The results could not be written to the temporary file of a run without a database (a full disk).
    #[error("finished iterations could not be written to a temporary file: {0}")]
    Spill(#[source] std::io::Error),
}

/// Sends every request of the plan and hands the results to `sink`.
pub async fn execute(run: Execution, sink: &mut impl BatchSink) -> Outcome {
    let Execution { plan, target, model, client, seed, cancel, prices, tokenizer_file, uploaded } = run;
    let client = client.with_policy(plan.connections);
    // A workload's tokenizer is found before the first send; a stop meanwhile ends the run with nothing sent.
    let found = tokio::select! {
        found = Requests::of(&plan, &client, &target, &model, tokenizer_file.as_deref(), uploaded) => found,
        () = cancel.cancelled() => return Outcome::nothing_sent(None),
    };
    let requests = match found {
        Ok(requests) => Arc::new(requests),
        Err(e) => {
            let failure = Some(format!("the workload's prompts could not be made: {e}"));
            return Outcome::nothing_sent(failure);
        }
    };
    tokio::select! {
        () = requests.made_before_start() => {}
        () = cancel.cancelled() => return Outcome::nothing_sent(None),
    }
    let opened_ahead = open_ahead(&plan, &client, &target, &cancel).await;
    let rejected = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::channel::<Finished<Sent>>(PENDING);
    let thinking = Arc::clone(&requests);
    let prompt_tokenizer = requests.tokenizer();
    let replay = requests.replay();
    // Scrubs what the run keeps of its replies' own words (built once, before the target moves into the sends).
    let redactor = target.redactor();
    let executor = {
        let (plan, rejected, target, model) =
            (Arc::clone(&plan), Arc::clone(&rejected), Arc::new(target), Arc::new(model));
        move |job: Job, intended| {
            let (plan, rejected, client, target, model, requests) = (
                Arc::clone(&plan),
                Arc::clone(&rejected),
                client.clone(),
                Arc::clone(&target),
                Arc::clone(&model),
                Arc::clone(&requests),
            );
            async move {
                let outgoing = requests.outgoing(&plan, &model, job, !rejected.load(Ordering::Relaxed)).await;
                let (mut request, sent) = match outgoing {
                    Ok(outgoing) => (outgoing.request, outgoing.sent),
                    Err((error, sent)) => {
                        let detail = format!("its prompt could not be made: {error}");
                        return (unsent(intended, plan.stream, detail), sent);
                    }
                };
                let timeout = Duration::from_millis(plan.timeout_ms);
                let mut earlier: Vec<RetriedAttempt> = Vec::new();
                let mut intended = intended;
                loop {
                    let asked_for_usage = request.stream_options.is_some();
                    let mut m =
                        measure_dropping_rejected_stream_options(&client, &target, &mut request, timeout, intended)
                            .await;
                    if asked_for_usage && request.stream_options.is_none() {
                        // Remembered for the rest of the run: later requests go without the field at once.
                        rejected.store(true, Ordering::Relaxed);
                    }
                    let rate_limited = earlier.iter().filter(|a| a.cause == RetryCause::RateLimited).count();
                    if m.status == Some(429) && rate_limited < plan.retries as usize {
                        let wait = retry_wait(m.retry_after_ms, rate_limited);
                        // An attempt lost to a closed connection before this 429 stays on record too.
                        earlier.append(&mut m.retried);
                        earlier.push(RetriedAttempt {
                            cause: RetryCause::RateLimited,
                            status: m.status,
                            total_ms: m.total_ms(),
                            waited_ms: wait.as_secs_f64() * 1e3,
                        });
                        tokio::time::sleep(wait).await;
                        // The wait is the endpoint's request, not latency: the retry is timed from its own send.
                        intended = tokio::time::Instant::now();
                        continue;
                    }
                    earlier.append(&mut m.retried);
                    m.retried = earlier;
                    if m.error.is_none() {
                        requests.answered(&plan, job, request.messages, m.answer.take());
                    }
                    return (m, sent);
                }
            }
        }
    };
    let limit = plan.duration_ms.map(Duration::from_millis);
    let pacing = Pacing { mode: plan.mode, limit, seed, replay, shape: plan.shape.clone(), precise: true };
    let think = move |job| thinking.think_before(job);
    let watch = super::ClientWatch::start();
    let driver = tokio::spawn(drive(plan.sessions(), pacing, cancel.clone(), tx, think, executor));
    let mut failure = None;
    let mut batch = Vec::new();
    let mut fingerprint = crate::model::Fingerprint::default();
    while rx.recv_many(&mut batch, PENDING).await > 0 {
        for finished in batch.iter().filter(|f| f.measurement.status.is_some()) {
            fingerprint.add(&finished.measurement.answered_by);
        }
        let rows =
            batch.drain(..).map(|f| (f.sent.record(&plan, f.job, &f.measurement, prices), f.measurement)).collect();
        if let Err(reason) = sink.accept(rows).await {
            failure = Some(reason.to_string());
            cancel.cancel();
            break;
        }
    }
    drop(rx);
    if driver.await.is_err() {
        failure.get_or_insert_with(|| "the load driver stopped unexpectedly".to_string());
    }
    let client_load = watch.finish().await;
    Outcome {
        stream_options_rejected: rejected.load(Ordering::Relaxed),
        opened_ahead,
        failure,
        prompt_tokenizer,
        client_load,
        // Once per run, not per reply: an endpoint that echoes the key in `model` or a header leaves it nowhere.
        fingerprint: (fingerprint.replies > 0).then(|| fingerprint.cleaned(|value| redactor.scrub(value)).sorted()),
    }
}

/// A closed loop on reused connections holds `concurrency` connections all run long, so they are opened before the
/// first request and its first round is timed as every later one is. An open loop's need is not known ahead, and
/// a run that asked for a fresh connection per request measures the set-up on purpose.
async fn open_ahead(
    plan: &RunPlan,
    client: &HttpClient,
    target: &RequestTarget,
    cancel: &CancellationToken,
) -> Option<OpenedAhead> {
    let LoadMode::Closed { concurrency } = plan.mode else { return None };
    if plan.connections != ConnectionPolicy::Reuse {
        return None;
    }
    let timeout = Duration::from_millis(plan.timeout_ms).min(OPEN_AHEAD_TIMEOUT);
    tokio::select! {
        opened = open_connections(client, target, concurrency, timeout) => Some(opened),
        () = cancel.cancelled() => None,
    }
}

/// How long to wait before retrying a 429: the reply's `Retry-After` when it is between 0 and 60 s (as
/// openai-python does), otherwise 1 s doubling per attempt, at most 30 s.
fn retry_wait(retry_after_ms: Option<u64>, attempt: usize) -> Duration {
    match retry_after_ms.filter(|ms| (1..=60_000).contains(ms)) {
        Some(ms) => Duration::from_millis(ms),
        None => Duration::from_secs(1u64 << attempt.min(5)).min(Duration::from_secs(30)),
    }
}

/// A seed from the first 8 bytes of an id, so a run's Poisson schedule can be reproduced.
pub fn seed_from(id: &uuid::Uuid) -> u64 {
    let bytes = id.as_bytes();
    u64::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_as_asked_within_a_minute_and_backs_off_otherwise() {
        assert_eq!(retry_wait(Some(20), 0), Duration::from_millis(20));
        assert_eq!(retry_wait(Some(120_000), 0), Duration::from_secs(1), "over 60 s is not trusted");
        assert_eq!(retry_wait(None, 2), Duration::from_secs(4));
        assert_eq!(retry_wait(None, 9), Duration::from_secs(30));
    }

    /// Holds its first batch until the simulator has answered `hold_until` requests; keeps every batch's size.
    struct SlowFirstWrite {
        stats: String,
        hold_until: u64,
        sizes: Vec<usize>,
    }

    impl BatchSink for SlowFirstWrite {
        async fn accept(&mut self, batch: Vec<(IterationRecord, Measurement)>) -> Result<(), SinkError> {
            while self.sizes.is_empty() {
                let stats: serde_json::Value = reqwest::get(&self.stats).await.unwrap().json().await.unwrap();
                if stats["completed"].as_u64().unwrap() >= self.hold_until {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            self.sizes.push(batch.len());
            Ok(())
        }
    }

    /// What a crash loses is bounded by time only if a write takes everything that finished during the write
    /// before it: a backlog left behind would outlive any number of writes.
    #[tokio::test]
    async fn a_slow_write_is_followed_by_one_batch_of_everything_that_finished_meanwhile() {
        let sim = crate::sim::spawn_local(crate::sim::SimConfig::fixed_ms(0, 0, 1)).await.unwrap();
        let concurrency = 8;
        let input = crate::model::RunPlanInput {
            iterations: 1_500,
            ..crate::model::fixtures::plan_input(&["hi"], 1, concurrency)
        };
        let execution = Execution {
            plan: Arc::new(input.validate("sim-model").unwrap()),
            target: RequestTarget {
                base_url: crate::model::BaseUrl::parse(&sim.base_url()).unwrap(),
                api_key: None,
                headers: Default::default(),
                reach: crate::outbound::Reach::Anywhere,
            },
            model: "sim-model".into(),
            client: HttpClient::new().unwrap(),
            seed: 1,
            cancel: CancellationToken::new(),
            prices: (None, None),
            tokenizer_file: None,
            uploaded: None,
        };
        let mut sink =
            SlowFirstWrite { stats: format!("http://{}/sim/stats", sim.addr()), hold_until: 1_200, sizes: vec![] };
        let outcome = tokio::time::timeout(Duration::from_secs(120), execute(execution, &mut sink)).await.unwrap();
        assert_eq!(outcome.failure, None);
        assert_eq!(sink.sizes.iter().sum::<usize>(), 1_500, "every iteration reached the sink once");
        // Finished while the first write was held: all but the first batch and the requests still on their way.
        let meanwhile = 1_200 - sink.sizes[0] - concurrency as usize;
        assert!(sink.sizes[1] >= meanwhile, "the second batch took {} of at least {meanwhile}", sink.sizes[1]);
    }
}
