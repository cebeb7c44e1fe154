//! The connection test: one 1-token, non-streamed request, reported as `{ok, status, ms, body}`.

use futures::StreamExt;
use std::time::{Duration, Instant};

use super::request::{ChatRequest, RequestTarget};
use crate::model::{ConnectionTestResult, BODY_PREVIEW_CHARS};

/// The most of a response body a test reads before cutting it off; the preview is far shorter.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// The shared outbound HTTP client (one connection pool for the process).
#[derive(Debug, Clone)]
pub struct HttpClient(reqwest::Client);

impl HttpClient {
    /// A client that never follows redirects (a redirect is reported, not silently re-sent as GET).
    pub fn new() -> Result<Self, reqwest::Error> {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("latency-guard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map(Self)
    }

    /// The reqwest client (one connection pool, kept alive across requests).
    pub fn inner(&self) -> &reqwest::Client {
        &self.0
    }
}

/// Sends one ping and reports what came back. Never fails: every failure is a result with status 0.
pub async fn test_connection(
    client: &HttpClient,
    target: &RequestTarget,
    model: &str,
    timeout: Duration,
) -> ConnectionTestResult {
    let started = Instant::now();
    let elapsed_ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let no_response = |body: String| ConnectionTestResult { ok: false, status: 0, ms: elapsed_ms(), body };
    let headers = match target.header_map() {
        Ok(h) => h,
        Err(e) => return no_response(e),
    };
    let attempt = async {
        let response = client
            .0
            .post(target.base_url.chat_completions_url())
            .headers(headers)
            .json(&ChatRequest::ping(model))
            .send()
            .await?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            body.extend_from_slice(&chunk?);
            if body.len() >= MAX_BODY_BYTES {
                break;
            }
        }
        Ok::<_, reqwest::Error>((status, body))
    };
    let outcome = tokio::time::timeout(timeout, attempt).await;
    let result = match outcome {
        Err(_) => no_response(format!("request timed out after {} ms", timeout.as_millis())),
        Ok(Err(e)) => no_response(describe_error(&e)),
        Ok(Ok((status, body))) => ConnectionTestResult {
            ok: (200..300).contains(&status),
            status,
            ms: elapsed_ms(),
            body: String::from_utf8_lossy(&body).into_owned(),
        },
    };
    // Scrubbed whole, then cut: a key straddling the cut cannot survive as a prefix.
    ConnectionTestResult { body: target.redactor().scrub_and_clip(&result.body, BODY_PREVIEW_CHARS), ..result }
}

/// reqwest's top-level message ("error sending request") hides the cause; the source chain names it. Whole
/// (it may name the URL): callers scrub secrets before cutting it.
pub(super) fn describe_error(error: &reqwest::Error) -> String {
    let mut parts = vec![];
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p: &String| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    let joined = parts.join(": ");
    if error.is_connect() && !joined.to_ascii_lowercase().contains("connect") {
        format!("could not connect: {joined}")
    } else {
        joined
    }
}
