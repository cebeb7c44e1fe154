//! The simulator's prefix cache, as vLLM's automatic prefix caching works: a prompt's tokens are cut into blocks
//! of [`BLOCK_TOKENS`], each block named by a hash of itself and every block before it, and the blocks kept are the
//! most recently used ones (an LRU of `capacity` blocks). A prompt's cached tokens are those of its leading blocks
//! already kept, never its last token (a model must compute at least one to answer). Only uncached tokens cost
//! prefill time, so sharing a prefix, and a conversation sending its earlier turns back, lowers time to first token
//! by a known amount.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Mutex, PoisonError};

/// Tokens of one block (vLLM's default block size).
pub const BLOCK_TOKENS: usize = 16;

/// Kept blocks, shared by every worker of a simulator.
#[derive(Debug)]
pub struct PrefixCache {
    capacity: usize,
    kept: Mutex<Lru>,
}

/// Blocks by hash, with the tick of their last use; `by_use` orders them for eviction.
#[derive(Debug, Default)]
struct Lru {
    last_use: HashMap<u64, u64>,
    by_use: BTreeMap<u64, u64>,
    tick: u64,
}

impl Lru {
    fn touch(&mut self, block: u64) {
        self.tick += 1;
        if let Some(old) = self.last_use.insert(block, self.tick) {
            self.by_use.remove(&old);
        }
        self.by_use.insert(self.tick, block);
    }
}

/// The chained hash of each full block of `tokens`, in order.
fn block_hashes(tokens: &[u32]) -> impl Iterator<Item = u64> + '_ {
    tokens.chunks_exact(BLOCK_TOKENS).scan(0u64, |previous, block| {
        let mut hasher = DefaultHasher::new();
        previous.hash(&mut hasher);
        block.hash(&mut hasher);
        *previous = hasher.finish();
        Some(*previous)
    })
}

impl PrefixCache {
    /// A cache of `capacity` blocks (0: no cache).
    pub fn new(capacity: usize) -> Self {
        Self { capacity, kept: Mutex::default() }
    }

    /// Admits a prompt: how many of its tokens were cached, then keeps all its full blocks (the prompt's own
    /// blocks count as cached for any prompt admitted after it).
    pub fn admit(&self, prompt: &[u32]) -> usize {
        if self.capacity == 0 {
            return 0;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let computable = prompt.len().saturating_sub(1);
        let hits = block_hashes(&prompt[..computable]).take_while(|block| kept.last_use.contains_key(block)).count();
        self.keep_in(&mut kept, prompt);
        hits * BLOCK_TOKENS
    }

    /// Keeps the full blocks of `tokens` (a prompt and its answer, once answered).
    pub fn keep(&self, tokens: &[u32]) {
        if self.capacity == 0 {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        self.keep_in(&mut kept, tokens);
    }

    fn keep_in(&self, kept: &mut Lru, tokens: &[u32]) {
        for block in block_hashes(tokens) {
            kept.touch(block);
        }
        while kept.last_use.len() > self.capacity {
            let Some((_, oldest)) = kept.by_use.pop_first() else { break };
            kept.last_use.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(range: std::ops::Range<u32>) -> Vec<u32> {
        range.collect()
    }

    #[test]
    fn a_shared_prefix_is_cached_in_whole_blocks() {
        let cache = PrefixCache::new(100);
        assert_eq!(cache.admit(&tokens(0..50)), 0, "nothing kept yet");
        // Shares tokens 0..40 with the first: blocks 0..16 and 16..32 match, 32..48 differs from token 40 on.
        let mut second = tokens(0..40);
        second.extend(1_000..1_030);
        assert_eq!(cache.admit(&second), 32);
        assert_eq!(cache.admit(&tokens(0..50)), 48, "the same prompt again: all three of its full blocks");
    }

    #[test]
    fn the_last_prompt_token_is_always_computed() {
        let cache = PrefixCache::new(100);
        cache.admit(&tokens(0..32));
        assert_eq!(cache.admit(&tokens(0..32)), 16, "32 tokens, two full blocks kept, but the 32nd is computed");
        assert_eq!(cache.admit(&tokens(0..33)), 32);
    }

    #[test]
    fn a_block_matches_only_after_the_same_blocks() {
        let cache = PrefixCache::new(100);
        let mut first = tokens(0..16);
        first.extend(100..116);
        cache.admit(&first);
        let mut other = tokens(500..516);
        other.extend(100..117);
        assert_eq!(cache.admit(&other), 0, "the second block is the same, the first is not");
    }

    #[test]
    fn the_least_recently_used_blocks_go_first() {
        let cache = PrefixCache::new(4);
        cache.keep(&tokens(0..32)); // blocks a, b
        cache.keep(&tokens(100..132)); // blocks c, d
        assert_eq!(cache.admit(&tokens(0..33)), 32, "a and b are used again, so c and d are now the oldest");
        cache.keep(&tokens(200..232)); // e, f evict c, d
        assert_eq!(cache.admit(&tokens(100..133)), 0);
        assert_eq!(cache.admit(&tokens(200..233)), 32);
    }

    #[test]
    fn a_cache_of_no_blocks_caches_nothing() {
        let cache = PrefixCache::new(0);
        cache.keep(&tokens(0..64));
        assert_eq!(cache.admit(&tokens(0..64)), 0);
    }
}
