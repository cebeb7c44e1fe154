//! An A/B test sent: for each cell of the plan, the same requests to a baseline and a candidate endpoint in rounds
//! of the cell's concurrency — one round to one arm, the same prompts to the other, the arm that goes first
//! alternating (A B, B A, …) — so drift over time hits both arms alike and the arms never compete for a machine
//! they may share. Each arm's server metrics are recorded around the cell when its engine is known.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::join_all;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::record_during;
use crate::engine::{
    measure_dropping_rejected_stream_options, ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions,
};
use crate::model::{AbCellPlan, AbPlan, IterationRecord, Job, ServerKind, ServerMetrics};

/// One endpoint to send to.
#[derive(Debug, Clone)]
pub struct AbArm {
    /// Where and as whom (the key stays here).
    pub target: RequestTarget,
    /// The model sent.
    pub model: String,
    /// Its server's engine, when known: then its metrics are recorded around each cell.
    pub server_kind: Option<ServerKind>,
}

/// How far the test is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbProgress {
    /// The cell running, from 0.
    pub cell: usize,
    /// Cells planned.
    pub cells: usize,
    /// Requests finished so far, both arms, warm-ups included.
    pub done: u64,
    /// Requests planned.
    pub total: u64,
}

/// A request of one arm, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedRecord {
    /// The iteration as reports show it.
    pub record: IterationRecord,
    /// Time per output token after the first, ms (`Measurement::tpot_ms`).
    pub tpot_ms: Option<f64>,
}

/// One arm's requests in one cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeasuredArm {
    /// Every request in send order, warm-ups first.
    pub requests: Vec<TimedRecord>,
    /// Its server's metrics over the cell, when its engine is known and `/metrics` answered.
    pub server: Option<ServerMetrics>,
}

/// One cell, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredCell {
    /// Its load and temperature.
    pub plan: AbCellPlan,
    /// Baseline, then candidate.
    pub arms: [MeasuredArm; 2],
    /// The cell was cut short by a stop.
    pub cut_short: bool,
}

/// Sends every cell of `plan` to `arms` (baseline, candidate), calling `progress` after each round. Stops between
/// rounds on `cancel`; the cells measured so far are returned, the last marked when it was cut short.
pub async fn run_ab(
    client: &HttpClient,
    plan: &AbPlan,
    arms: &[AbArm; 2],
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(AbProgress) + Send),
) -> Vec<MeasuredCell> {
    let rejected = [AtomicBool::new(false), AtomicBool::new(false)];
    let mut done = 0;
    let mut cells = Vec::with_capacity(plan.cells.len());
    for (index, &cell) in plan.cells.iter().enumerate() {
        if cancel.is_cancelled() {
            break;
        }
        let sender = Sender { client, plan, arms, cell, rejected: &rejected };
        let mut report = |done_in_cell| {
            progress(AbProgress {
                cell: index,
                cells: plan.cells.len(),
                done: done + done_in_cell,
                total: plan.total_requests(),
            })
        };
        let work = sender.rounds(cancel, &mut report);
        let (((requests, cut_short), candidate_server), baseline_server) =
            recorded(client, &arms[0], recorded(client, &arms[1], work)).await;
        let [baseline, candidate] = requests;
        done += (baseline.len() + candidate.len()) as u64;
        cells.push(MeasuredCell {
            plan: cell,
            arms: [
                MeasuredArm { requests: baseline, server: baseline_server },
                MeasuredArm { requests: candidate, server: candidate_server },
            ],
            cut_short,
        });
        if cut_short {
            break;
        }
    }
    cells
}

/// `work`, with the metrics of `arm`'s server recorded around it when its engine is known.
async fn recorded<T>(
    client: &HttpClient,
    arm: &AbArm,
    work: impl std::future::Future<Output = T>,
) -> (T, Option<ServerMetrics>) {
    match arm.server_kind {
        Some(kind) => record_during(client, &arm.target, kind, work).await,
        None => (work.await, None),
    }
}

/// The requests of one cell.
struct Sender<'a> {
    client: &'a HttpClient,
    plan: &'a AbPlan,
    arms: &'a [AbArm; 2],
    cell: AbCellPlan,
    /// Per arm: the endpoint rejected `stream_options`, so later requests go without it.
    rejected: &'a [AtomicBool; 2],
}

impl Sender<'_> {
    /// Warm-ups, then the rounds; each arm's requests in send order, and whether a stop cut the cell short.
    async fn rounds(
        &self,
        cancel: &CancellationToken,
        progress: &mut (dyn FnMut(u64) + Send),
    ) -> ([Vec<TimedRecord>; 2], bool) {
        let mut sent: [Vec<TimedRecord>; 2] = [Vec::new(), Vec::new()];
        let prompts = self.plan.prompts.len() as u32;
        let warmups: Vec<Job> = (0..self.plan.warmup)
            .map(|k| Job { seq: u64::from(k), prompt_index: k % prompts, iteration: k / prompts, warmup: true })
            .collect();
        for (arm, requests) in sent.iter_mut().enumerate() {
            for job in &warmups {
                requests.push(self.send(arm, *job).await);
            }
        }
        progress(2 * warmups.len() as u64);
        let jobs: Vec<Job> = (0..self.plan.iterations)
            .flat_map(|iteration| (0..prompts).map(move |prompt_index| (iteration, prompt_index)))
            .enumerate()
            .map(|(k, (iteration, prompt_index))| Job {
                seq: u64::from(self.plan.warmup) + k as u64,
                prompt_index,
                iteration,
                warmup: false,
            })
            .collect();
        for (round, batch) in jobs.chunks(self.cell.concurrency as usize).enumerate() {
            if cancel.is_cancelled() {
                return (sent, true);
            }
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for arm in order {
                let results = join_all(batch.iter().map(|job| self.send(arm, *job))).await;
                sent[arm].extend(results);
            }
            progress((sent[0].len() + sent[1].len()) as u64);
        }
        for arm in &mut sent {
            arm.sort_by_key(|t| t.record.seq);
        }
        (sent, false)
    }

    /// Sends one request of `job` to arm `arm` and measures it.
    async fn send(&self, arm: usize, job: Job) -> TimedRecord {
        let target = &self.arms[arm];
        let prompt = &self.plan.prompts[job.prompt_index as usize];
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.plan.system_prompt {
            messages.push(ChatMessage { role: "system", content: system.clone() });
        }
        messages.push(ChatMessage { role: "user", content: prompt.clone() });
        let ask_for_usage = !self.rejected[arm].load(Ordering::Relaxed);
        let mut request = ChatRequest {
            model: target.model.clone(),
            messages,
            tools: vec![],
            max_tokens: self.plan.max_tokens,
            temperature: self.cell.temperature,
            stream: true,
            stream_options: ask_for_usage.then_some(StreamOptions { include_usage: true }),
            ignore_eos: false,
            keep_answer: false,
        };
        let timeout = Duration::from_millis(self.plan.timeout_ms);
        let measurement = measure_dropping_rejected_stream_options(
            self.client,
            &target.target,
            &mut request,
            timeout,
            Instant::now(),
        )
        .await;
        if ask_for_usage && request.stream_options.is_none() {
            self.rejected[arm].store(true, Ordering::Relaxed);
        }
        TimedRecord {
            record: IterationRecord::from_measurement(prompt, job, &measurement, None, None),
            tpot_ms: measurement.tpot_ms(),
        }
    }
}
