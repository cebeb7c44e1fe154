//! Outbound calls to OpenAI-compatible endpoints: building the request, making it, timing it.
//! Knows nothing of storage or UI; callers hand in everything a call needs.

mod connection_test;
mod request;

pub use connection_test::{test_connection, HttpClient};
pub use request::{ChatMessage, ChatRequest, RequestTarget};
