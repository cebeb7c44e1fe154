//! A server's own tokenizer, through its `/tokenize` at the server root: the most exact count there is, since
//! it is the tokenizer that will read the prompt. Two forms exist among self-hosted engines and both are spoken:
//! llama.cpp's (`{"content", "with_pieces": true}` → each token's `id` and `piece`) and vLLM's, which SGLang
//! shares (`{"model", "prompt", "add_special_tokens": false}` → `tokens` ids, turned back into text by
//! `/detokenize`). Every call goes out through the connector's [`RequestTarget`], so the outbound-address policy
//! judges it as it judges the model calls.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::engine::{describe_error, HttpClient, RequestTarget};

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read: a 128 Ki-token prompt with its pieces is a few MiB.
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;
/// The text discovery tokenizes.
const PROBE_TEXT: &str = "How many tokens is this?";

/// The form of a server's `/tokenize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenizeForm {
    /// llama.cpp's: pieces with the ids.
    LlamaCpp,
    /// vLLM's and SGLang's: ids and a count; text back through `/detokenize`.
    Vllm,
}

impl TokenizeForm {
    /// The form in words: `llama.cpp's /tokenize (with pieces)`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp's /tokenize (with pieces)",
            Self::Vllm => "vLLM's /tokenize and /detokenize",
        }
    }
}

/// Why the server's tokenizer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    /// The outbound-address policy refused the server's address.
    #[error("{0}")]
    Refused(String),
    /// The server could not be reached or did not answer in time.
    #[error("the server's /{path} could not be reached: {detail}")]
    Unreachable {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// What the network said (secrets scrubbed).
        detail: String,
    },
    /// The server answered with an error status.
    #[error("the server's /{path} answered HTTP {status}: {detail}")]
    Status {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// The status.
        status: u16,
        /// The start of its body (secrets scrubbed).
        detail: String,
    },
    /// The answer was not what either form sends.
    #[error("the server's /{path} answered something that is not a list of tokens: {detail}")]
    NotTokens {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// Neither form was answered.
    #[error("the server has no /tokenize that latency-guard speaks (llama.cpp's or vLLM's): {0}")]
    NotFound(String),
    /// A tokenizer read from a file (a tokenizer.json, the estimate's vocabulary) could not be read or used.
    #[error("the tokenizer {path}: {detail}")]
    File {
        /// Which file.
        path: String,
        /// What was wrong.
        detail: String,
    },
}

/// One token: its id and, where the server gives it, its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The id.
    pub id: u64,
    /// Its text as bytes (llama.cpp's `piece`); `None` from a server that gives ids only.
    pub piece: Option<Vec<u8>>,
}

/// A server's tokenizer.
#[derive(Clone)]
pub struct ServerTokenizer {
    client: reqwest::Client,
    root: String,
    headers: HeaderMap,
    redactor: crate::engine::Redactor,
    model: String,
    form: TokenizeForm,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawToken {
    Id(u64),
    WithPiece { id: u64, piece: RawPiece },
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawPiece {
    Text(String),
    /// llama.cpp sends a piece that is not valid UTF-8 alone as its bytes.
    Bytes(Vec<u8>),
}

#[derive(Deserialize)]
struct RawTokens {
    tokens: Vec<RawToken>,
}

impl ServerTokenizer {
    /// Finds the `/tokenize` of the server behind `target` (llama.cpp's form first, then vLLM's) for `model`.
    pub async fn discover(client: &HttpClient, target: &RequestTarget, model: &str) -> Result<Self, TokenizeError> {
        let reqwest = client.for_target(target).map_err(|refusal| TokenizeError::Refused(refusal.to_string()))?;
        let mut tokenizer = Self {
            client: reqwest.clone(),
            root: target.base_url.server_root(),
            headers: target.header_map().unwrap_or_default(),
            redactor: target.redactor(),
            model: model.to_string(),
            form: TokenizeForm::LlamaCpp,
        };
        let llama = match tokenizer.tokenize(PROBE_TEXT).await {
            Ok(tokens) if !tokens.is_empty() && tokens.iter().all(|t| t.piece.is_some()) => return Ok(tokenizer),
            Ok(_) => "llama.cpp's form gave no pieces".to_string(),
            Err(e @ (TokenizeError::Refused(_) | TokenizeError::Unreachable { .. })) => return Err(e),
            Err(e) => e.to_string(),
        };
        tokenizer.form = TokenizeForm::Vllm;
        match tokenizer.tokenize(PROBE_TEXT).await {
            Ok(tokens) if !tokens.is_empty() => Ok(tokenizer),
            Ok(_) => Err(TokenizeError::NotFound(format!("{llama}; vLLM's form counted no tokens"))),
            Err(e) => Err(TokenizeError::NotFound(format!("{llama}; {e}"))),
        }
    }

    /// The form this server speaks.
    pub fn form(&self) -> TokenizeForm {
        self.form
    }

    /// The tokens of `text`, without the special tokens a server would add around a whole prompt.
    pub async fn tokenize(&self, text: &str) -> Result<Vec<Token>, TokenizeError> {
        let body = match self.form {
            TokenizeForm::LlamaCpp => json!({"content": text, "add_special": false, "with_pieces": true}),
            TokenizeForm::Vllm => json!({"model": self.model, "prompt": text, "add_special_tokens": false}),
        };
        let answer = self.post("tokenize", &body).await?;
        let raw: RawTokens = serde_json::from_value(answer)
            // serde quotes the value it could not read, and a server may echo what it was sent: scrubbed.
            .map_err(|e| TokenizeError::NotTokens {
                path: "tokenize",
                detail: self.redactor.scrub_and_clip(&e.to_string(), 300),
            })?;
        Ok(raw
            .tokens
            .into_iter()
            .map(|token| match token {
                RawToken::Id(id) => Token { id, piece: None },
                RawToken::WithPiece { id, piece: RawPiece::Text(text) } => Token { id, piece: Some(text.into_bytes()) },
                RawToken::WithPiece { id, piece: RawPiece::Bytes(bytes) } => Token { id, piece: Some(bytes) },
            })
            .collect())
    }

    /// How many tokens `text` is.
    pub async fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        Ok(self.tokenize(text).await?.len())
    }

    /// The text of `ids`.
    pub async fn detokenize(&self, ids: &[u64]) -> Result<String, TokenizeError> {
        let body = match self.form {
            TokenizeForm::LlamaCpp => json!({"tokens": ids}),
            TokenizeForm::Vllm => json!({"model": self.model, "tokens": ids}),
        };
        let answer = self.post("detokenize", &body).await?;
        // llama.cpp names the text `content`, vLLM `prompt`, SGLang `text`.
        ["content", "prompt", "text"]
            .iter()
            .find_map(|key| answer.get(key).and_then(Value::as_str))
            .map(str::to_string)
            .ok_or_else(|| TokenizeError::NotTokens { path: "detokenize", detail: "no text in the answer".into() })
    }

    async fn post(&self, path: &'static str, body: &Value) -> Result<Value, TokenizeError> {
        let scrub = |text: &str| self.redactor.scrub_and_clip(text, 300);
        let unreachable = |e: &reqwest::Error| TokenizeError::Unreachable { path, detail: scrub(&describe_error(e)) };
        let call = async {
            let mut response = self
                .client
                .post(format!("{}/{path}", self.root))
                .headers(self.headers.clone())
                .json(body)
                .send()
                .await
                .map_err(|e| unreachable(&e))?;
            let status = response.status().as_u16();
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| unreachable(&e))? {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_ANSWER_BYTES {
                    let detail = format!("the answer is over {} MiB", MAX_ANSWER_BYTES >> 20);
                    return Err(TokenizeError::NotTokens { path, detail });
                }
            }
            if !(200..300).contains(&status) {
                let detail = scrub(&String::from_utf8_lossy(&bytes));
                return Err(TokenizeError::Status { path, status, detail });
            }
            serde_json::from_slice(&bytes)
                .map_err(|e| TokenizeError::NotTokens { path, detail: scrub(&format!("not JSON: {e}")) })
        };
        tokio::time::timeout(CALL_TIMEOUT, call).await.unwrap_or_else(|_| {
            Err(TokenizeError::Unreachable { path, detail: format!("no answer within {} s", CALL_TIMEOUT.as_secs()) })
        })
    }
}
