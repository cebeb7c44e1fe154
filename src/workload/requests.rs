//! A synthetic workload's requests, made ahead of their sends: a producer task draws each request's lengths and
//! cuts its prompt with the server's tokenizer, in send order, at most [`WINDOW`] requests ahead of the ones taken,
//! so memory stays bounded however many requests a run sends and the first send does not wait for the last
//! prompt. A send whose prompt is not ready yet waits for it, and that wait is its schedule lag (the client was
//! late, and the report shows it).
//!
//! Each request's lengths and text come from a seed of its own, mixed from the workload's seed and the request's
//! index, so a request is the same whatever order or how many of the others are made. A shared-prefix workload's
//! group prefixes are made once each (from the group's own seed) and kept while the run sends. A multi-turn
//! workload's requests are each turn's own user message; the conversation before it is the run's to keep.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::{Notify, Semaphore};

use super::lengths::LengthDraws;
use super::prompt::{exact_prompt, exact_prompt_after};
use super::tokenizer::{ServerTokenizer, TokenizeError};
use crate::model::{LengthDist, Workload};

/// Requests made ahead of the ones taken, at most.
pub const WINDOW: usize = 256;

/// One request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The prompt.
    pub text: String,
    /// The prompt's length as asked, tokens.
    pub asked_input: u32,
    /// The prompt's length as the tokenizer counted the text made (the asked one unless no cut gave it).
    pub made_input: u32,
    /// The answer's length asked (`max_tokens`).
    pub asked_output: u32,
}

/// What the producer has made and not yet handed out.
#[derive(Default)]
struct Made {
    ready: HashMap<u32, Prepared>,
    failed: Option<TokenizeError>,
}

/// The requests of one run, made ahead by a task of their own (stopped when this is dropped).
pub struct PreparedRequests {
    maker: Arc<RequestMaker>,
    made: Arc<Mutex<Made>>,
    changed: Arc<Notify>,
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

/// The lengths of request `index`: its prompt's and its answer's.
pub fn request_lengths(input: &LengthDist, output: &LengthDist, seed: u64, index: u32) -> (u32, u32) {
    let draw =
        |dist: &LengthDist, purpose| LengthDraws::new(dist.clone(), request_seed(seed, index, purpose)).next_length();
    (draw(input, INPUT_LENGTH), draw(output, OUTPUT_LENGTH))
}

/// How a workload's requests are made: its shape, its seed and the server's tokenizer.
pub struct RequestMaker {
    workload: Workload,
    tokenizer: ServerTokenizer,
}

impl RequestMaker {
    /// The maker of `workload`'s requests with `tokenizer`.
    pub fn new(workload: Workload, tokenizer: ServerTokenizer) -> Self {
        Self { workload, tokenizer }
    }

    /// The lengths of request `index` as drawn: its prompt's (a shared prefix's included) and its answer's.
    pub fn lengths(&self, index: u32) -> (u32, u32) {
        match &self.workload {
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
        }
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

    /// The workload.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// Request `index`; `prefixes` keeps each group's prefix once made.
    async fn make(&self, index: u32, prefixes: &mut HashMap<u32, String>) -> Result<Prepared, TokenizeError> {
        let (asked_input, asked_output) = self.lengths(index);
        let seed = self.workload.seed();
        let text_seed = request_seed(seed, index, TEXT);
        let prompt = match &self.workload {
            Workload::Synthetic { .. } | Workload::MultiTurn { .. } => {
                exact_prompt(&self.tokenizer, asked_input, text_seed).await?
            }
            Workload::SharedPrefix { groups, prefix_tokens, .. } => {
                let group = index % groups;
                let prefix = match prefixes.get(&group) {
                    Some(prefix) => prefix,
                    None => {
                        let made =
                            exact_prompt(&self.tokenizer, *prefix_tokens, request_seed(seed, group, PREFIX)).await?;
                        prefixes.entry(group).or_insert(made.text)
                    }
                };
                exact_prompt_after(&self.tokenizer, prefix, asked_input, text_seed).await?
            }
        };
        let made_input = u32::try_from(prompt.tokens).unwrap_or(u32::MAX);
        Ok(Prepared { text: prompt.text, asked_input, made_input, asked_output })
    }
}

impl PreparedRequests {
    /// Starts making the requests `order` names (request indices, in send order) with `maker`.
    pub fn start(maker: RequestMaker, order: impl Iterator<Item = u32> + Send + 'static) -> Self {
        let maker = Arc::new(maker);
        let made = Arc::new(Mutex::new(Made::default()));
        let changed = Arc::new(Notify::new());
        let window = Arc::new(Semaphore::new(WINDOW));
        let producer = tokio::spawn({
            let (maker, made, changed, window) =
                (Arc::clone(&maker), Arc::clone(&made), Arc::clone(&changed), Arc::clone(&window));
            async move {
                let mut prefixes = HashMap::new();
                for index in order {
                    let Ok(permit) = window.acquire().await else { return };
                    // Given back when the request is taken.
                    permit.forget();
                    let result = maker.make(index, &mut prefixes).await;
                    let mut made = made.lock().unwrap_or_else(PoisonError::into_inner);
                    let failed = result.as_ref().is_err();
                    match result {
                        Ok(prepared) => drop(made.ready.insert(index, prepared)),
                        Err(e) => made.failed = Some(e),
                    }
                    drop(made);
                    changed.notify_waiters();
                    if failed {
                        return;
                    }
                }
            }
        });
        Self { maker, made, changed, window, producer }
    }

    /// The lengths of request `index` as drawn: its prompt's and its answer's.
    pub fn lengths(&self, index: u32) -> (u32, u32) {
        self.maker.lengths(index)
    }

    /// The maker: the workload, its lengths and think times.
    pub fn maker(&self) -> &RequestMaker {
        &self.maker
    }

    /// Request `index`, once it is made; the tokenizer's error when the producer could not make it.
    pub async fn take(&self, index: u32) -> Result<Prepared, TokenizeError> {
        loop {
            let changed = self.changed.notified();
            {
                let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(prepared) = made.ready.remove(&index) {
                    self.window.add_permits(1);
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
