//! Tokenizers that need no server: a model's own `tokenizer.json` the user gives (the `tokenizers` crate reads
//! it offline), and, when there is nothing better, an estimate with a well-known BPE vocabulary (OpenAI's
//! o200k_base, whose ranks ship inside the `tiktoken-rs` crate): a prompt cut with it is about as long for most
//! modern models, not exactly, and the report says so.

use std::path::Path;
use std::sync::Arc;

use super::tokenizer::{Token, TokenizeError};

/// The largest tokenizer.json read (today's largest vocabularies are under 20 MB).
const MAX_TOKENIZER_BYTES: u64 = 64 * 1024 * 1024;

/// A model's own tokenizer, from its `tokenizer.json`.
#[derive(Clone)]
pub struct FileTokenizer {
    tokenizer: Arc<tokenizers::Tokenizer>,
    path: String,
}

impl FileTokenizer {
    /// Reads the tokenizer at `path`; why not, naming the file, when it is not one.
    pub fn open(path: &Path) -> Result<Self, TokenizeError> {
        let shown = path.display().to_string();
        let refuse = |detail: String| TokenizeError::File { path: shown.clone(), detail };
        let size = std::fs::metadata(path).map_err(|e| refuse(e.to_string()))?.len();
        if size > MAX_TOKENIZER_BYTES {
            return Err(refuse(format!("{size} bytes; a tokenizer.json is at most {MAX_TOKENIZER_BYTES}")));
        }
        let tokenizer = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| refuse(format!("not a tokenizer.json the tokenizers library reads: {e}")))?;
        Ok(Self { tokenizer: Arc::new(tokenizer), path: shown })
    }

    /// Where it was read from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The tokens of `text` (no special tokens), each with the text from the end of the one before to its own end,
    /// so that the pieces spell `text` (the last takes what follows it).
    pub fn tokenize(&self, text: &str) -> Result<Vec<Token>, TokenizeError> {
        let encoding = self.tokenizer.encode(text, false).map_err(|e| self.failed(&e.to_string()))?;
        let (ids, offsets) = (encoding.get_ids(), encoding.get_offsets());
        let mut start = 0;
        let mut tokens: Vec<Token> = ids
            .iter()
            .zip(offsets)
            .map(|(&id, &(_, end))| {
                // An offset that is not a boundary of `text` (a byte-level piece inside a character) leaves the
                // piece out: the prompt is then cut by decoding ids instead.
                let piece = text.get(start..end.max(start)).map(|p| p.as_bytes().to_vec());
                start = end.max(start);
                Token { id: u64::from(id), piece }
            })
            .collect();
        if let (Some(last), Some(rest)) = (tokens.last_mut(), text.get(start..)) {
            if let Some(piece) = last.piece.as_mut() {
                piece.extend_from_slice(rest.as_bytes());
            }
        }
        Ok(tokens)
    }

    /// The text of `ids`.
    pub fn detokenize(&self, ids: &[u64]) -> Result<String, TokenizeError> {
        let ids: Vec<u32> = ids.iter().map(|&id| u32::try_from(id).unwrap_or(u32::MAX)).collect();
        self.tokenizer.decode(&ids, false).map_err(|e| self.failed(&e.to_string()))
    }

    fn failed(&self, detail: &str) -> TokenizeError {
        TokenizeError::File { path: self.path.clone(), detail: detail.to_string() }
    }
}

/// The estimate: OpenAI's o200k_base BPE.
#[derive(Clone)]
pub struct EstimateTokenizer {
    bpe: Arc<tiktoken_rs::CoreBPE>,
}

impl EstimateTokenizer {
    /// The vocabulary's name, for reports.
    pub const VOCABULARY: &'static str = "o200k_base";

    /// The estimating tokenizer (its vocabulary is read from the crate, once per run).
    pub fn new() -> Result<Self, TokenizeError> {
        let bpe = tiktoken_rs::o200k_base()
            .map_err(|e| TokenizeError::File { path: Self::VOCABULARY.into(), detail: e.to_string() })?;
        Ok(Self { bpe: Arc::new(bpe) })
    }

    /// How many tokens `text` is.
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    /// The tokens of `text` (ids only: the prompt is cut by decoding them).
    pub fn tokenize(&self, text: &str) -> Vec<Token> {
        self.bpe.encode_ordinary(text).into_iter().map(|id| Token { id: u64::from(id), piece: None }).collect()
    }

    /// The text of `ids`.
    pub fn detokenize(&self, ids: &[u64]) -> Result<String, TokenizeError> {
        let ids: Vec<u32> = ids.iter().map(|&id| u32::try_from(id).unwrap_or(u32::MAX)).collect();
        self.bpe.decode(&ids).map_err(|e| TokenizeError::File { path: Self::VOCABULARY.into(), detail: e.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word-level tokenizer.json: each of four words is a token, whitespace splits them.
    const WORDS: &str = r#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
        "decoder": null, "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "the": 1, "fast": 2, "server": 3,
        "answers": 4}, "unk_token": "[UNK]"}}"#;

    #[test]
    fn a_tokenizer_json_counts_and_spells_its_pieces_and_a_broken_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokenizer.json");
        std::fs::write(&path, WORDS).unwrap();
        let tokenizer = FileTokenizer::open(&path).unwrap();
        let tokens = tokenizer.tokenize("the fast server answers ").unwrap();
        let ids: Vec<u64> = tokens.iter().map(|t| t.id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let spelled: Vec<u8> = tokens.iter().flat_map(|t| t.piece.clone().unwrap()).collect();
        assert_eq!(spelled, b"the fast server answers ", "the pieces spell the text, the trailing space included");
        let broken = dir.path().join("broken.json");
        std::fs::write(&broken, "{\"model\": 5}").unwrap();
        let error = FileTokenizer::open(&broken).err().unwrap().to_string();
        assert!(error.contains("broken.json") && error.contains("not a tokenizer.json"), "{error}");
        assert!(FileTokenizer::open(&dir.path().join("missing.json"))
            .err()
            .unwrap()
            .to_string()
            .contains("missing.json"));
    }

    /// o200k_base: "hello world" is 2 tokens ("hello", " world"), and ids decode back to their text.
    #[test]
    fn the_estimate_is_o200k_base() {
        let estimate = EstimateTokenizer::new().unwrap();
        assert_eq!(estimate.tokenize("hello world").len(), 2);
        let ids: Vec<u64> = estimate.tokenize("Tokenization is fun!").iter().map(|t| t.id).collect();
        assert_eq!(estimate.detokenize(&ids).unwrap(), "Tokenization is fun!");
    }
}
