//! Tokenizers that need no server: a model's own `tokenizer.json` the user gives (the `tokenizers` crate reads
//! it offline), and, when there is nothing better, an estimate with a well-known BPE vocabulary (OpenAI's
//! o200k_base, whose ranks ship inside the `tiktoken-rs` crate): a prompt cut with it is about as long for most
//! modern models, not exactly, and the report says so.

use std::path::Path;
use std::sync::Arc;

use crate::engine::TokenizeError;
use crate::engine::Tokens;

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
    pub fn tokenize(&self, text: &str) -> Result<Tokens, TokenizeError> {
        let encoding = self.tokenizer.encode(text, false).map_err(|e| self.failed(&e.to_string()))?;
        let mut tokens = Tokens::with_pieces();
        let mut start = 0;
        for (&id, &(_, end)) in encoding.get_ids().iter().zip(encoding.get_offsets()) {
            // An offset that is not a boundary of `text` (a byte-level piece inside a character) leaves the pieces
            // out: the prompt is then cut by decoding ids instead.
            tokens.push(id, text.get(start..end.max(start)).map(str::as_bytes));
            start = end.max(start);
        }
        if let Some(rest) = text.get(start..) {
            tokens.extend_last_piece(rest.as_bytes());
        }
        Ok(tokens)
    }

    /// The text of `ids`.
    pub fn detokenize(&self, ids: &[u32]) -> Result<String, TokenizeError> {
        self.tokenizer.decode(ids, false).map_err(|e| self.failed(&e.to_string()))
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

    /// The process's one estimating tokenizer: its vocabulary is built from the crate once (about 45 MB and half a
    /// second of CPU) and shared by every run and upload after, instead of once each.
    pub fn shared() -> Result<Self, TokenizeError> {
        static SHARED: std::sync::OnceLock<Result<EstimateTokenizer, TokenizeError>> = std::sync::OnceLock::new();
        SHARED
            .get_or_init(|| {
                let bpe = tiktoken_rs::o200k_base()
                    .map_err(|e| TokenizeError::File { path: Self::VOCABULARY.into(), detail: e.to_string() })?;
                Ok(Self { bpe: Arc::new(bpe) })
            })
            .clone()
    }

    /// How many tokens `text` is.
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    /// The tokens of `text` (ids only: the prompt is cut by decoding them).
    pub fn tokenize(&self, text: &str) -> Tokens {
        Tokens::from_ids(self.bpe.encode_ordinary(text))
    }

    /// The text of `ids`.
    pub fn detokenize(&self, ids: &[u32]) -> Result<String, TokenizeError> {
        self.bpe.decode(ids).map_err(|e| TokenizeError::File { path: Self::VOCABULARY.into(), detail: e.to_string() })
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
        assert_eq!(tokens.ids(), [1, 2, 3, 4]);
        let (spelled, ends) = tokens.pieces().unwrap();
        assert_eq!(spelled, b"the fast server answers ", "the pieces spell the text, the trailing space included");
        assert_eq!(ends, [3, 8, 15, 24]);
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
        let estimate = EstimateTokenizer::shared().unwrap();
        assert_eq!(estimate.tokenize("hello world").len(), 2);
        let tokens = estimate.tokenize("Tokenization is fun!");
        assert_eq!(estimate.detokenize(tokens.ids()).unwrap(), "Tokenization is fun!");
        assert!(Arc::ptr_eq(&estimate.bpe, &EstimateTokenizer::shared().unwrap().bpe), "built once, shared after");
    }
}
