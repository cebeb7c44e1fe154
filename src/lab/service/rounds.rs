//! An A/B test sent: for each cell of the plan, the same requests to a baseline and a candidate endpoint in rounds
//! of the cell's concurrency — one round to one arm, the same prompts to the other, the arm that goes first
//! alternating (A B, B A, …) — so drift over time hits both arms alike and the arms never compete for a machine
//! they may share. Each arm's server metrics are recorded around the cell when its engine is known. Each prompt
//! starts with a mark of its cell, arm and request (unless the plan turns marks off): the arms get the same requests
//! but for their marks, so neither measures what the other left in a prefix cache they may share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::engine::{
    measure_dropping_rejected_stream_options, unsent, ChatMessage, ChatRequest, HttpClient, RequestTarget,
    StreamOptions,
};
use crate::lab::model::{AbCellPlan, AbPlan, MeasuredArm, MeasuredCell, TimedRecord};
use crate::model::{IterationRecord, Job, PromptTokenizer, ServerKind, ServerMetrics};
use crate::probe::record_during;
use crate::workload::service::{MakeError, Prepared, PreparedRequests, RequestMaker, Tokenizer};

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

/// How a test with a workload makes its requests: with the baseline server's tokenizer (its `/tokenize`, else an
/// estimate), and an uploaded dataset's text.
#[derive(Clone)]
pub struct AbWorkload {
    tokenizer: Option<Tokenizer>,
    uploaded: Option<Arc<str>>,
}

impl AbWorkload {
    /// What `plan`'s workload needs, found before anything is sent (`None` for a test of prompts): the tokenizer of
    /// the baseline's server (without a `/tokenize`, `tokenizer_file`, else an estimate), which makes each request
    /// once for both arms, and `uploaded`, an uploaded dataset's text.
    pub async fn of(
        client: &HttpClient,
        plan: &AbPlan,
        arms: &[AbArm; 2],
        tokenizer_file: Option<&std::path::Path>,
        uploaded: Option<Arc<str>>,
    ) -> Result<Option<Self>, MakeError> {
        let Some(workload) = &plan.workload else { return Ok(None) };
        let tokenizer = match workload.needs_tokenizer() {
            true => Some(Tokenizer::choose(client, &arms[0].target, &arms[0].model, tokenizer_file).await?),
            false => None,
        };
        Ok(Some(Self { tokenizer, uploaded }))
    }

    /// The tokenizer the prompts are made with, for the report.
    pub fn tokenizer(&self) -> Option<PromptTokenizer> {
        self.tokenizer.as_ref().map(Tokenizer::used)
    }
}

/// Sends every cell of `plan` to `arms` (baseline, candidate), calling `progress` after each round. Stops between
/// rounds on `cancel`; the cells measured so far are returned, the last marked when it was cut short. A plan with a
/// workload makes its requests as `workload` says, each cell with a seed of its own (so that no cell finds the one
/// before it in a prefix cache), each request once for both arms.
pub async fn run_ab(
    client: &HttpClient,
    plan: &AbPlan,
    arms: &[AbArm; 2],
    workload: Option<&AbWorkload>,
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
        // Each arm's marks its own, drawn for each cell: neither arm finds the other's prompts (nor an earlier
        // cell's or test's) in a server's prefix cache, even when both arms are one server.
        let marks = [(); 2].map(|()| plan.prompt_heads.unique().then(|| crate::model::run_mark(rand::random())));
        let made = match (&plan.workload, workload) {
            (Some(spec), Some(how)) => {
                let spec = spec.at_level(spec.requests(), index as u32);
                // In send order: the warm-ups (the indices after the measured ones), then the measured requests.
                let requests = plan.requests_per_cell() as u32;
                let order = (requests..requests + plan.warmup).chain(0..requests);
                // Both arms' requests from one seed, each cut to its exact lengths with its own arm's marks.
                Some(marks.clone().map(|mark| {
                    let maker = RequestMaker::new(spec.clone(), how.tokenizer.clone())
                        .reading(how.uploaded.clone())
                        .marked(mark);
                    PreparedRequests::start(maker, order.clone())
                }))
            }
            _ => None,
        };
        let sender = Sender { client, plan, arms, cell, rejected: &rejected, marks, made: made.as_ref() };
        let mut report = |done_in_cell| {
            progress(AbProgress {
                cell: index,
                cells: plan.cells.len(),
                done: done + done_in_cell,
                total: plan.total_requests(),
            })
        };
        let work = sender.rounds(cancel, &mut report);
        let watch = crate::runs::service::ClientWatch::start();
        let (((requests, cut_short), candidate_server), baseline_server) =
            recorded(client, &arms[0], recorded(client, &arms[1], work)).await;
        let client_load = watch.finish().await;
        let [baseline, candidate] = requests;
        done += (baseline.len() + candidate.len()) as u64;
        cells.push(MeasuredCell {
            plan: cell,
            arms: [
                MeasuredArm { requests: baseline, server: baseline_server },
                MeasuredArm { requests: candidate, server: candidate_server },
            ],
            cut_short,
            client: client_load,
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
    /// Each arm's mark of this cell, when prompts get marks.
    marks: [Option<String>; 2],
    /// A workload's requests of this cell, made ahead for each arm.
    made: Option<&'a [PreparedRequests; 2]>,
}

/// What one job sends to one arm: the plan's prompt, or a workload's request, after the arm's mark.
struct Outgoing {
    /// Messages before the user's (a dataset row's system prompt and earlier turns).
    context: Vec<ChatMessage>,
    /// The user's message.
    text: String,
    /// `max_tokens`.
    max_tokens: u32,
    /// A workload's asked answer length, which the answer must reach (`ignore_eos`).
    ignore_eos: bool,
    /// The prompt's length asked and made, and the answer's asked, for the row.
    lengths: (Option<u32>, Option<u32>, Option<u32>),
    /// Why a workload's request could not be made: both arms record it as a failure, nothing is sent.
    unmade: Option<String>,
}

impl Sender<'_> {
    /// Warm-ups, then the rounds; each arm's requests in send order, and whether a stop cut the cell short.
    async fn rounds(
        &self,
        cancel: &CancellationToken,
        progress: &mut (dyn FnMut(u64) + Send),
    ) -> ([Vec<TimedRecord>; 2], bool) {
        let mut sent: [Vec<TimedRecord>; 2] = [Vec::new(), Vec::new()];
        let (warmups, jobs) = self.jobs();
        let outgoing = self.outgoing_of(&warmups).await;
        for (arm, requests) in sent.iter_mut().enumerate() {
            for (job, out) in warmups.iter().zip(&outgoing[arm]) {
                requests.push(self.send(arm, *job, out).await);
            }
        }
        progress(2 * warmups.len() as u64);
        for (round, batch) in jobs.chunks(self.cell.concurrency as usize).enumerate() {
            if cancel.is_cancelled() {
                return (sent, true);
            }
            // Both arms' requests are made before either is sent, so the making times neither.
            let outgoing = self.outgoing_of(batch).await;
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for arm in order {
                let sends = batch.iter().zip(&outgoing[arm]).map(|(job, out)| self.send(arm, *job, out));
                sent[arm].extend(join_all(sends).await);
            }
            progress((sent[0].len() + sent[1].len()) as u64);
        }
        for arm in &mut sent {
            arm.sort_by_key(|t| t.record.seq);
        }
        (sent, false)
    }

    /// The warm-ups and the measured jobs of a cell. The plan's prompts: each `iterations` times, the warm-ups
    /// going round them; a workload's requests: once each, the warm-ups the indices after them.
    fn jobs(&self) -> (Vec<Job>, Vec<Job>) {
        let warmup = self.plan.warmup;
        let job =
            |seq: u64, prompt_index: u32, iteration: u32, warmup: bool| Job { seq, prompt_index, iteration, warmup };
        if self.made.is_some() {
            let requests = self.plan.requests_per_cell() as u32;
            let warmups = (0..warmup).map(|k| job(u64::from(k), requests + k, 0, true)).collect();
            let jobs = (0..requests).map(|i| job(u64::from(warmup + i), i, 0, false)).collect();
            return (warmups, jobs);
        }
        let prompts = self.plan.prompts.len() as u32;
        let warmups = (0..warmup).map(|k| job(u64::from(k), k % prompts, k / prompts, true)).collect();
        let jobs = (0..self.plan.iterations)
            .flat_map(|iteration| (0..prompts).map(move |prompt_index| (iteration, prompt_index)))
            .enumerate()
            .map(|(k, (iteration, prompt_index))| job(u64::from(warmup) + k as u64, prompt_index, iteration, false))
            .collect();
        (warmups, jobs)
    }

    /// What each arm sends for each of `jobs`, in their order.
    async fn outgoing_of(&self, jobs: &[Job]) -> [Vec<Outgoing>; 2] {
        let mut outgoing = [Vec::with_capacity(jobs.len()), Vec::with_capacity(jobs.len())];
        for (arm, out) in outgoing.iter_mut().enumerate() {
            for job in jobs {
                out.push(self.outgoing(arm, *job).await);
            }
        }
        outgoing
    }

    /// What `job` sends to `arm`: its prompt after the arm's mark, or its workload request once made.
    async fn outgoing(&self, arm: usize, job: Job) -> Outgoing {
        let Some(made) = self.made.map(|made| &made[arm]) else {
            let prompt = &self.plan.prompts[job.prompt_index as usize];
            let text = crate::model::marked_prompt(self.marks[arm].as_deref(), job.seq, prompt);
            let max_tokens = self.plan.max_tokens;
            return Outgoing {
                context: vec![],
                text,
                max_tokens,
                ignore_eos: false,
                lengths: (None, None, None),
                unmade: None,
            };
        };
        match made.take(job.prompt_index).await {
            Ok(made) => {
                // The same limit a run's request gets.
                let (max_tokens, ignore_eos) = made.answer_limit(self.plan.max_tokens);
                let Prepared { context, text, asked_input, made_input, asked_output } = made;
                Outgoing {
                    context: context
                        .into_iter()
                        .map(|(role, content)| ChatMessage { role: role.as_str(), content })
                        .collect(),
                    text,
                    max_tokens,
                    ignore_eos,
                    lengths: (asked_input, made_input, asked_output),
                    unmade: None,
                }
            }
            Err(e) => {
                let (asked_input, asked_output) = made.lengths(job.prompt_index);
                let unmade = Some(format!("its prompt could not be made: {e}"));
                let text = "(its prompt could not be made)".to_string();
                Outgoing {
                    context: vec![],
                    text,
                    max_tokens: 0,
                    ignore_eos: false,
                    lengths: (asked_input, None, asked_output),
                    unmade,
                }
            }
        }
    }

    /// Sends `out`, the request of `job`, to arm `arm` and measures it.
    async fn send(&self, arm: usize, job: Job, out: &Outgoing) -> TimedRecord {
        let target = &self.arms[arm];
        let mut messages = Vec::with_capacity(2 + out.context.len());
        if let Some(system) = &self.plan.system_prompt {
            messages.push(ChatMessage { role: "system", content: system.clone() });
        }
        messages.extend(out.context.iter().cloned());
        messages.push(ChatMessage { role: "user", content: out.text.clone() });
        let ask_for_usage = !self.rejected[arm].load(Ordering::Relaxed);
        let mut request = ChatRequest {
            model: target.model.clone(),
            messages,
            tools: vec![],
            max_tokens: out.max_tokens,
            temperature: self.cell.temperature,
            stream: true,
            stream_options: ask_for_usage.then_some(StreamOptions { include_usage: true }),
            ignore_eos: out.ignore_eos,
            keep_answer: false,
        };
        let measurement = match &out.unmade {
            Some(why) => unsent(Instant::now(), true, why.clone()),
            None => {
                let timeout = Duration::from_millis(self.plan.timeout_ms);
                let client = self.client;
                let m = measure_dropping_rejected_stream_options(
                    client,
                    &target.target,
                    &mut request,
                    timeout,
                    Instant::now(),
                )
                .await;
                if ask_for_usage && request.stream_options.is_none() {
                    self.rejected[arm].store(true, Ordering::Relaxed);
                }
                m
            }
        };
        let (asked_input_tokens, made_input_tokens, asked_output_tokens) = out.lengths;
        let prompt = crate::model::row_prompt(&out.text);
        TimedRecord {
            record: IterationRecord {
                asked_input_tokens,
                made_input_tokens,
                asked_output_tokens,
                ..IterationRecord::from_measurement(&prompt, job, &measurement, None, None)
            },
            tpot_ms: measurement.tpot_ms(),
        }
    }
}
