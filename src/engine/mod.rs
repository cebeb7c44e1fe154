//! Outbound calls to OpenAI-compatible endpoints: building the request, making it, timing it.
//! Knows nothing of storage or UI; callers hand in everything a call needs.

pub mod chunk;
mod connection_test;
mod http1;
mod measure;
mod preopen;
mod redact;
mod request;
pub mod sse;
mod tokenizer;
mod tokens;

pub use connection_test::{describe_error, test_connection, HttpClient};
pub use measure::{
    measure, measure_dropping_rejected_stream_options, rejects_stream_options, unsent, Call, ERROR_DETAIL_CHARS,
    MAX_CHUNK_MARKS, MAX_COMPLETION_BODY_BYTES, MAX_ERROR_BODY_BYTES,
};
pub use preopen::open_connections;
pub use redact::{Redactor, REDACTED};
pub use request::{ChatMessage, ChatRequest, HeaderError, RequestTarget, StreamOptions};
pub use tokenizer::{ServerTokenizer, TokenizeError, TokenizeForm, ANSWER_BUDGET_BYTES};
pub use tokens::Tokens;
