//! A workload's requests, made ahead of their sends: a producer task draws each request's lengths (or reads its
//! file's next row) and cuts its prompt with the server's tokenizer, in send order, several at once, at most
//! [`WINDOW`] requests ahead of the ones taken,
//! so memory stays bounded however many requests a run sends and the first send does not wait for the last
//! prompt. A send whose prompt is not ready yet waits for it, and that wait is its schedule lag (the client was
//! late, and the report shows it).
//!
//! Each request's lengths and text come from a seed of its own, mixed from the workload's seed and the request's
//! index, so a request is the same whatever order or how many of the others are made. A shared-prefix workload's
//! group prefixes are made once each (from the group's own seed) and kept while the run sends. A multi-turn
//! workload's requests are each turn's own user message; the conversation before it is the run's to keep.
//!
//! A run given a mark starts each prompt with it (`model::workload::heads`): a request's own, its conversation's or
//! the run's, counted in the prompt's exact length, so no run finds an earlier run's prompts in the server's cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::{Notify, Semaphore};

use super::choice::Tokenizer;
use super::dataset::{DatasetError, Role};
use super::file_rows::{read_ahead, Row};
use super::lengths::LengthDraws;
use super::prompt::{exact_prompt, exact_prompt_after, MadePrompt};
use super::trace::TraceRow;
use crate::engine::TokenizeError;
use crate::model::{head_scope, head_text, HeadScope, LengthDist, Workload};

/// Requests made ahead of the ones taken, at most.
pub const WINDOW: usize = 256;
/// Text of the requests made and not yet taken, at most (about: the makers in flight may each add one more): past
/// it the making waits for sends to take some, so a run of the longest prompts (128 Ki tokens is about 600 KB of
/// text) keeps a few dozen ahead, not [`WINDOW`].
const BYTES_AHEAD: usize = 16 * 1024 * 1024;
/// Requests made at once: each waits on the server's tokenizer, so a few in flight keep the making ahead of a
/// replay of a thousand requests a second.
const MAKERS: usize = 8;
/// Requests made before a run's schedule starts, so that its first sends do not wait on the making: the first
/// send of a replay cut with a tokenizer.json went out 187 ms late, after the first [`MAKERS`] prompts were made at
/// once (`benches/workload_replay.rs`, `tokenizer`).
pub const MADE_BEFORE_START: usize = MAKERS;
/// A trace's block texts kept for the blocks that come again; beyond it the oldest half is let go (a block made
/// again is the same text: it comes from its id).
const BLOCKS_KEPT: usize = 4_096;

/// One request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// Messages before the prompt: a dataset row's system prompt and earlier turns.
    pub context: Vec<(Role, String)>,
    /// The prompt: the user's message.
    pub text: String,
    /// The prompt's length as asked, tokens (a dataset's prompts are sent as written: none).
    pub asked_input: Option<u32>,
    /// The prompt's length as the tokenizer counted the text made (the asked one unless no cut gave it).
    pub made_input: Option<u32>,
    /// The answer's length asked (`max_tokens`, with `ignore_eos`); none: the agent's token budget.
    pub asked_output: Option<u32>,
}

impl Prepared {
    /// The bytes of its text and context.
    fn text_bytes(&self) -> usize {
        self.text.len() + self.context.iter().map(|(_, text)| text.len()).sum::<usize>()
    }

    /// `max_tokens` and `ignore_eos` of this request. A workload's answer runs to its asked length: every
    /// self-hosted engine (llama.cpp, vLLM, SGLang) takes `ignore_eos`, and a provider that does not ignores it. An
    /// answer left to `budget` (a dataset row that asks none) may stop where the model stops.
    pub fn answer_limit(&self, budget: u32) -> (u32, bool) {
        match self.asked_output {
            Some(asked) => (asked, true),
            None => (budget, false),
        }
    }
}

/// Why a request could not be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MakeError {
    /// The server's tokenizer failed.
    #[error(transparent)]
    Tokenize(#[from] TokenizeError),
    /// The workload's file could not be read again as it was when the run was planned.
    #[error("the workload's file: {0}")]
    File(#[from] DatasetError),
}

/// What the producer has made and not yet handed out.
#[derive(Default)]
struct Made {
    ready: HashMap<u32, Prepared>,
    /// The text bytes of `ready`.
    ready_bytes: usize,
    failed: Option<MakeError>,
    /// Requests made so far, taken or not (made in send order, so these are the first ones).
    count: usize,
    /// Every request was made (one that failed ends the making too: `failed`).
    all_made: bool,
}

/// The requests of one run, made ahead by a task of their own (stopped when this is dropped).
pub struct PreparedRequests {
    maker: Arc<RequestMaker>,
    made: Arc<Mutex<Made>>,
    changed: Arc<Notify>,
    /// Notified when a request is taken: the making may go on past [`BYTES_AHEAD`].
    taken: Arc<Notify>,
    window: Arc<Semaphore>,
    producer: tokio::task::JoinHandle<()>,
}

impl Drop for PreparedRequests {
    fn drop(&mut self) {
        self.producer.abort();
    }
}

/// The seed of one part (`purpose`) of request `index` of a workload seeded with `seed` (splitmix64's finaliser
/// over the three: neighbouring indices get unrelated seeds).
pub fn request_seed(seed: u64, index: u32, purpose: u64) -> u64 {
    let mut z = seed ^ (u64::from(index) << 20) ^ purpose.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The parts a request's seed is mixed for.
const INPUT_LENGTH: u64 = 1;
const OUTPUT_LENGTH: u64 = 2;
const TEXT: u64 = 3;
/// A group's prefix (mixed with the group's number instead of a request's).
const PREFIX: u64 = 4;
/// The think time before a conversation's turn.
const THINK: u64 = 5;
/// A trace's block (mixed with the block's id).
const BLOCK: u64 = 6;

/// The lengths of request `index`: its prompt's and its answer's.
pub fn request_lengths(input: &LengthDist, output: &LengthDist, seed: u64, index: u32) -> (u32, u32) {
    let draw =
        |dist: &LengthDist, purpose| LengthDraws::new(dist.clone(), request_seed(seed, index, purpose)).next_length();
    (draw(input, INPUT_LENGTH), draw(output, OUTPUT_LENGTH))
}

/// How a workload's requests are made: its shape, its seed and the server's tokenizer (none for a dataset, whose
/// prompts are sent as written).
pub struct RequestMaker {
    workload: Workload,
    tokenizer: Option<Tokenizer>,
    /// An uploaded dataset's text, read instead of a file.
    uploaded: Option<Arc<str>>,
    /// A shared-prefix workload's group prefixes, once made.
    prefixes: Mutex<HashMap<u32, Arc<MadePrompt>>>,
    /// A trace's blocks, once made.
    blocks: Mutex<HashMap<u64, String>>,
    /// The run's mark, when its prompts start with marks.
    run_mark: Option<String>,
    /// The tokens of the run's first mark by the tokenizer: where each prompt's cut is first placed.
    head_tokens: tokio::sync::OnceCell<usize>,
}

impl RequestMaker {
    /// The maker of `workload`'s requests with `tokenizer` (which every workload but a dataset needs).
    pub fn new(workload: Workload, tokenizer: Option<Tokenizer>) -> Self {
        Self {
            workload,
            tokenizer,
            uploaded: None,
            prefixes: Mutex::default(),
            blocks: Mutex::default(),
            run_mark: None,
            head_tokens: tokio::sync::OnceCell::new(),
        }
    }

    /// The maker starting each prompt with a mark of the run marked `run_mark`, when given.
    pub fn marked(self, run_mark: Option<String>) -> Self {
        Self { run_mark, ..self }
    }

    /// The mark of `scope` (none: the request gets none of its own), with its tokens as first guessed (the run's
    /// first mark's count, one call to the tokenizer a run; 0 when the workload needs no tokenizer).
    async fn head(&self, scope: Option<HeadScope>) -> Result<Option<(String, usize)>, MakeError> {
        let (Some(run_mark), Some(scope)) = (&self.run_mark, scope) else { return Ok(None) };
        let text = head_text(run_mark, scope);
        let tokens = match &self.tokenizer {
            Some(tokenizer) => *self.head_tokens.get_or_try_init(|| tokenizer.count(&text)).await?,
            None => 0,
        };
        Ok(Some((text, tokens)))
    }

    /// The maker reading its dataset's rows from `uploaded`, the text of a dataset uploaded to the workspace (a
    /// server reads no file a request names), when given.
    pub fn reading(self, uploaded: Option<Arc<str>>) -> Self {
        Self { uploaded, ..self }
    }

    /// The lengths of request `index` as drawn, when the workload draws them: its prompt's (a shared prefix's
    /// included) and its answer's.
    pub fn lengths(&self, index: u32) -> (Option<u32>, Option<u32>) {
        let drawn = match &self.workload {
            Workload::Synthetic { input, output, seed, .. } => request_lengths(input, output, *seed, index),
            Workload::SharedPrefix { prefix_tokens, suffix, output, seed, .. } => {
                let (suffix, output) = request_lengths(suffix, output, *seed, index);
                (prefix_tokens + suffix, output)
            }
            // A turn's own message: the conversation before it is what earlier turns sent and got back.
            Workload::MultiTurn { first, follow_up, output, seed, .. } => {
                let message = if self.workload.turn_of(index) == 0 { first } else { follow_up };
                request_lengths(message, output, *seed, index)
            }
            // Read from the file's row as the request is made.
            Workload::Dataset { .. } | Workload::Trace { .. } => return (None, None),
        };
        (Some(drawn.0), Some(drawn.1))
    }

    /// How long the user of request `index`'s conversation thinks before sending it (nothing but for a
    /// multi-turn workload's later turns).
    pub fn think_before(&self, index: u32) -> std::time::Duration {
        match &self.workload {
            Workload::MultiTurn { think, seed, .. } if self.workload.turn_of(index) > 0 => {
                think.at(StdRng::seed_from_u64(request_seed(*seed, index, THINK)).gen::<f64>())
            }
            _ => std::time::Duration::ZERO,
        }
    }

    /// The tokenizer the prompts are made with, as the report names it.
    pub fn tokenizer_used(&self) -> Option<crate::model::PromptTokenizer> {
        self.tokenizer.as_ref().map(Tokenizer::used)
    }

    /// The workload.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    fn tokenizer(&self) -> Result<&Tokenizer, MakeError> {
        let missing = || TokenizeError::NotFound("none was looked for, as a dataset sends its rows as written".into());
        self.tokenizer.as_ref().ok_or_else(|| MakeError::Tokenize(missing()))
    }

    /// Request `index`, from its file's `row` when the workload reads one.
    async fn make(&self, index: u32, row: Option<Row>) -> Result<Prepared, MakeError> {
        let seed = self.workload.seed();
        let text_seed = request_seed(seed, index, TEXT);
        let (asked_input, asked_output) = self.lengths(index);
        let head = self.head(head_scope(Some(&self.workload), index)).await?;
        let (head, head_tokens) = head.as_ref().map_or(("", 0), |(text, tokens)| (text.as_str(), *tokens));
        let drawn = |prompt: MadePrompt, asked_input| Prepared {
            context: vec![],
            made_input: Some(u32::try_from(prompt.tokens).unwrap_or(u32::MAX)),
            text: prompt.text,
            asked_input: Some(asked_input),
            asked_output,
        };
        match (&self.workload, row) {
            (Workload::Synthetic { .. } | Workload::MultiTurn { .. }, _) => {
                let asked = asked_input.unwrap_or(1);
                Ok(drawn(exact_prompt_after(self.tokenizer()?, head, head_tokens, asked, text_seed).await?, asked))
            }
            (Workload::SharedPrefix { groups, prefix_tokens, .. }, _) => {
                let group = index % groups;
                let known = self.prefixes.lock().unwrap_or_else(PoisonError::into_inner).get(&group).cloned();
                let prefix = match known {
                    Some(prefix) => prefix,
                    None => {
                        let group_seed = request_seed(seed, group, PREFIX);
                        let tokenizer = self.tokenizer()?;
                        let made = exact_prompt_after(tokenizer, head, head_tokens, *prefix_tokens, group_seed).await?;
                        let made = Arc::new(made);
                        self.prefixes.lock().unwrap_or_else(PoisonError::into_inner).insert(group, Arc::clone(&made));
                        made
                    }
                };
                let asked = asked_input.unwrap_or(1);
                let made = exact_prompt_after(self.tokenizer()?, &prefix.text, prefix.tokens, asked, text_seed).await?;
                Ok(drawn(made, asked))
            }
            (Workload::Dataset { output, recorded_outputs, .. }, Some(Row::Dataset(mut row))) => {
                let recorded = match (row.output_tokens, *recorded_outputs, row.recorded_answer.as_deref()) {
                    (None, true, Some(answer)) => recorded_length(self.tokenizer()?, answer).await?,
                    _ => None,
                };
                let asked_output = row.output_tokens.or(recorded).or_else(|| {
                    output.as_ref().map(|dist| {
                        LengthDraws::new(dist.clone(), request_seed(seed, index, OUTPUT_LENGTH)).next_length()
                    })
                });
                let (_, mut text) = row.messages.pop().unwrap_or((Role::User, String::new()));
                // The mark goes first in the row's first message, as a made prompt's does.
                if !head.is_empty() {
                    let first = row.messages.first_mut().map_or(&mut text, |(_, first)| first);
                    first.insert_str(0, &format!("{head} "));
                }
                Ok(Prepared { context: row.messages, text, asked_input: None, made_input: None, asked_output })
            }
            (Workload::Trace { block_tokens, .. }, Some(Row::Trace(row))) => {
                let made = self.trace_prompt(&row, *block_tokens, text_seed, (head, head_tokens)).await?;
                Ok(Prepared { asked_output: Some(row.output), ..drawn(made, row.input) })
            }
            (Workload::Dataset { .. } | Workload::Trace { .. }, _) => {
                Err(MakeError::File(DatasetError::Read("the file ended before the run's last request".into())))
            }
        }
    }

    /// A trace row's prompt: the text of each of its blocks but the last (the same text wherever the same id
    /// comes), then the last block's text cut so that the whole is the row's length.
    /// The run's mark, `head` (of about `head_tokens` tokens), goes before the blocks.
    async fn trace_prompt(
        &self,
        row: &TraceRow,
        block_tokens: u32,
        text_seed: u64,
        (head, head_tokens): (&str, usize),
    ) -> Result<MadePrompt, MakeError> {
        let tokenizer = self.tokenizer()?;
        let block_seed = |id: u64| request_seed(self.workload.seed() ^ id, 0, BLOCK);
        let Some((last, whole)) = row.hash_ids.split_last() else {
            return Ok(exact_prompt_after(tokenizer, head, head_tokens, row.input, text_seed).await?);
        };
        // Whole blocks stop short of the prompt's end, so the last one always has a token of its own.
        let whole = &whole[..whole.len().min(((row.input - 1) / block_tokens) as usize)];
        let mut prefix = head.to_string();
        for id in whole {
            let known = self.blocks.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned();
            let text = match known {
                Some(text) => text,
                None => {
                    let text = exact_prompt(tokenizer, block_tokens, block_seed(*id)).await?.text;
                    let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
                    if blocks.len() >= BLOCKS_KEPT {
                        blocks.clear();
                    }
                    blocks.insert(*id, text.clone());
                    text
                }
            };
            if !prefix.is_empty() {
                prefix.push(' ');
            }
            prefix.push_str(&text);
        }
        // Each whole block is its own length; the blocks' joins may count a token more or less, which the cut's
        // whole count corrects.
        let prefix_tokens = head_tokens + whole.len() * block_tokens as usize;
        Ok(exact_prompt_after(tokenizer, &prefix, prefix_tokens, row.input, block_seed(*last)).await?)
    }
}

/// The length of a recorded answer as `tokenizer` counts it (no special tokens), within what a request may ask;
/// none for an empty answer.
async fn recorded_length(tokenizer: &Tokenizer, answer: &str) -> Result<Option<u32>, MakeError> {
    let tokens = tokenizer.count(answer).await?;
    let most = crate::model::workload_limits::MAX_OUTPUT_TOKENS;
    Ok((tokens > 0).then(|| u32::try_from(tokens).unwrap_or(u32::MAX).min(most)))
}

impl PreparedRequests {
    /// Starts making the requests `order` names (request indices, in send order; a workload with a file reads its
    /// rows in this order) with `maker`.
    pub fn start(maker: RequestMaker, order: impl Iterator<Item = u32> + Send + 'static) -> Self {
        let maker = Arc::new(maker);
        let made = Arc::new(Mutex::new(Made::default()));
        let changed = Arc::new(Notify::new());
        let taken = Arc::new(Notify::new());
        let window = Arc::new(Semaphore::new(WINDOW));
        let rows = read_ahead(&maker.workload, maker.uploaded.clone());
        let producer = tokio::spawn({
            let (maker, made, changed, window) =
                (Arc::clone(&maker), Arc::clone(&made), Arc::clone(&changed), Arc::clone(&window));
            let (ahead, taken) = (Arc::clone(&made), Arc::clone(&taken));
            async move {
                // In order: room ahead, a place in the window, then the file's next row; the making itself, several
                // at once.
                let ordered = futures::stream::unfold((order, rows), move |(mut order, mut rows)| {
                    let (window, ahead, taken) = (Arc::clone(&window), Arc::clone(&ahead), Arc::clone(&taken));
                    async move {
                        let index = order.next()?;
                        loop {
                            let some_taken = taken.notified();
                            if ahead.lock().unwrap_or_else(PoisonError::into_inner).ready_bytes < BYTES_AHEAD {
                                break;
                            }
                            some_taken.await;
                        }
                        // Given back when the request is taken.
                        window.acquire().await.ok()?.forget();
                        let row = match rows.as_mut() {
                            None => None,
                            Some(rows) => Some(rows.recv().await.unwrap_or_else(|| {
                                Err(DatasetError::Read("the file ended before the run's last request".into()))
                            })),
                        };
                        Some(((index, row), (order, rows)))
                    }
                });
                let making = ordered
                    .map(|(index, row)| {
                        let maker = Arc::clone(&maker);
                        async move {
                            let result = match row.transpose() {
                                Ok(row) => maker.make(index, row).await,
                                Err(e) => Err(MakeError::File(e)),
                            };
                            (index, result)
                        }
                    })
                    .buffered(MAKERS);
                futures::pin_mut!(making);
                while let Some((index, result)) = making.next().await {
                    let failed = result.is_err();
                    let mut made = made.lock().unwrap_or_else(PoisonError::into_inner);
                    made.count += 1;
                    match result {
                        Ok(prepared) => {
                            made.ready_bytes += prepared.text_bytes();
                            made.ready.insert(index, prepared);
                        }
                        Err(e) => made.failed = Some(e),
                    }
                    drop(made);
                    changed.notify_waiters();
                    if failed {
                        return;
                    }
                }
                made.lock().unwrap_or_else(PoisonError::into_inner).all_made = true;
                changed.notify_waiters();
            }
        });
        Self { maker, made, changed, taken, window, producer }
    }

    /// The lengths of request `index` as drawn: its prompt's and its answer's.
    pub fn lengths(&self, index: u32) -> (Option<u32>, Option<u32>) {
        self.maker.lengths(index)
    }

    /// The maker: the workload, its lengths and think times.
    pub fn maker(&self) -> &RequestMaker {
        &self.maker
    }

    /// Waits until the first `count` requests in send order are made, or the making ended (fewer requests, or one
    /// could not be made).
    pub async fn made_ahead(&self, count: usize) {
        loop {
            let changed = self.changed.notified();
            {
                let made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
                if made.count >= count || made.all_made || made.failed.is_some() {
                    return;
                }
            }
            changed.await;
        }
    }

    /// Request `index`, once it is made; why the producer could not make it otherwise.
    pub async fn take(&self, index: u32) -> Result<Prepared, MakeError> {
        loop {
            let changed = self.changed.notified();
            {
                let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(prepared) = made.ready.remove(&index) {
                    made.ready_bytes = made.ready_bytes.saturating_sub(prepared.text_bytes());
                    self.window.add_permits(1);
                    self.taken.notify_waiters();
                    return Ok(prepared);
                }
                if let Some(failed) = &made.failed {
                    return Err(failed.clone());
                }
            }
            changed.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_prompts_are_made_ahead_within_the_bytes_ahead_not_the_whole_window() {
        use super::super::offline::EstimateTokenizer;
        // 200 prompts of 120,000 tokens (about 500 KB each): the window of 256 would hold about 100 MB of them.
        let workload = Workload::Synthetic {
            input: LengthDist::fixed(120_000),
            output: LengthDist::fixed(1),
            requests: 200,
            seed: 3,
        };
        let tokenizer = Tokenizer::Estimate(EstimateTokenizer::shared().unwrap());
        let prepared = PreparedRequests::start(RequestMaker::new(workload, Some(tokenizer)), 0..200);
        let first = prepared.take(0).await.unwrap();
        assert_eq!(first.made_input, Some(120_000));
        let settled = |prepared: &PreparedRequests| {
            let made = prepared.made.lock().unwrap();
            (made.ready.len(), made.ready_bytes)
        };
        // The making goes on until the bound and then stops short of the window: never more than the makers in
        // flight past it, while nothing is taken.
        let one = first.text.len();
        let most = BYTES_AHEAD + (MAKERS + 1) * one;
        let mut checks_past_the_bound = 0;
        while checks_past_the_bound < 10 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let (ready, bytes) = settled(&prepared);
            assert!(bytes <= most && ready < 60, "{bytes} bytes ahead in {ready} requests");
            if bytes >= BYTES_AHEAD {
                checks_past_the_bound += 1;
            }
        }
        // Taking some lets the making go on.
        for index in 1..=10 {
            assert_eq!(prepared.take(index).await.unwrap().made_input, Some(120_000));
        }
    }

    #[tokio::test]
    async fn the_first_requests_are_waited_for_in_send_order_or_until_the_making_ends() {
        use super::super::offline::EstimateTokenizer;
        let workload = |requests| Workload::Synthetic {
            input: LengthDist::fixed(50),
            output: LengthDist::fixed(1),
            requests,
            seed: 1,
        };
        let tokenizer = || Some(Tokenizer::Estimate(EstimateTokenizer::shared().unwrap()));
        let prepared = PreparedRequests::start(RequestMaker::new(workload(40), tokenizer()), (0..40).rev());
        prepared.made_ahead(MADE_BEFORE_START).await;
        let made = prepared.made.lock().unwrap().ready.keys().copied().collect::<Vec<_>>();
        let first: Vec<u32> = (40 - MADE_BEFORE_START as u32..40).collect();
        assert!(first.iter().all(|i| made.contains(i)), "the first in send order are made: {made:?}");
        // Fewer requests than asked for: the wait ends with the making.
        let few = PreparedRequests::start(RequestMaker::new(workload(3), tokenizer()), 0..3);
        few.made_ahead(MADE_BEFORE_START).await;
        assert_eq!(few.made.lock().unwrap().ready.len(), 3);
    }

    #[test]
    fn a_request_has_the_same_lengths_whatever_the_order_and_neighbours_differ() {
        let input = LengthDist::Uniform { min: 1, max: 1_000_000 };
        let output = LengthDist::Uniform { min: 1, max: 8_000 };
        let first = request_lengths(&input, &output, 5, 10);
        assert_eq!(first, request_lengths(&input, &output, 5, 10));
        let neighbours: Vec<_> = (0..50).map(|i| request_lengths(&input, &output, 5, i)).collect();
        let distinct: std::collections::BTreeSet<_> = neighbours.iter().map(|(i, _)| *i).collect();
        assert_eq!(distinct.len(), 50, "neighbouring requests draw unrelated lengths");
        assert_ne!(request_seed(5, 1, TEXT), request_seed(6, 1, TEXT));
        assert_ne!(request_seed(5, 1, TEXT), request_seed(5, 1, INPUT_LENGTH));
    }
}
