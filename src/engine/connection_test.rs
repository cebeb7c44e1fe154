//! The connection test: one 1-token, non-streamed request, reported as `{ok, status, ms, body}`.

use futures::StreamExt;
use std::time::{Duration, Instant};

use super::request::{ChatRequest, RequestTarget};
use crate::model::{ConnectionPolicy, ConnectionTestResult, BODY_PREVIEW_CHARS};

/// The most of a response body a test reads before cutting it off; the preview is far shorter.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// The shared outbound HTTP client: one connection pool for the process, and a second client that never keeps a
/// connection (for runs that ask for a fresh connection per request, and for re-sending a request that a server
/// lost by closing a pooled connection). Cheap to clone.
#[derive(Debug, Clone)]
pub struct HttpClient {
    pooled: reqwest::Client,
    fresh: reqwest::Client,
    policy: ConnectionPolicy,
}

impl HttpClient {
    /// Clients that never follow redirects (a redirect is reported, not silently re-sent as GET); connections are
    /// reused.
    pub fn new() -> Result<Self, reqwest::Error> {
        let builder = || {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("latency-guard/", env!("CARGO_PKG_VERSION")))
        };
        Ok(Self {
            pooled: builder().build()?,
            fresh: builder().pool_max_idle_per_host(0).build()?,
            policy: ConnectionPolicy::Reuse,
        })
    }

    /// The same clients, sending each request as `policy` says.
    pub fn with_policy(&self, policy: ConnectionPolicy) -> Self {
        Self { policy, ..self.clone() }
    }

    /// How requests are sent.
    pub fn policy(&self) -> ConnectionPolicy {
        self.policy
    }

    /// The client for a request under this policy.
    pub fn inner(&self) -> &reqwest::Client {
        match self.policy {
            ConnectionPolicy::Reuse => &self.pooled,
            ConnectionPolicy::Fresh => &self.fresh,
        }
    }

    /// The client that opens a new connection for every request.
    pub(super) fn fresh(&self) -> &reqwest::Client {
        &self.fresh
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
    let send = |client: &reqwest::Client| {
        client
            .post(target.base_url.chat_completions_url())
            .headers(headers.clone())
            .json(&ChatRequest::ping(model))
            .send()
    };
    let attempt = async {
        let response = match send(client.inner()).await {
            // A pooled connection the server had closed: the ping never reached it, so it goes once more, fresh.
            Err(e) if lost_to_keep_alive_race(&e, started.elapsed()) => send(client.fresh()).await?,
            other => other?,
        };
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

/// A request lost on a closed connection within this long of its send was lost to the keep-alive race (the
/// server's close crossing the request on the wire), which shows within milliseconds. A server that held the
/// request longer and then dropped it failed it, and that is what is recorded.
const KEEP_ALIVE_RACE_WINDOW: Duration = Duration::from_secs(1);

/// Whether a send that failed `since_send` after it began was lost to the keep-alive race: the server closed the
/// connection before any byte of a response, at once (it accepted the request on a pooled connection it was about
/// to close). Such a request never reached the server's handler and may be sent again.
pub(super) fn lost_to_keep_alive_race(error: &reqwest::Error, since_send: Duration) -> bool {
    if error.is_connect() || since_send >= KEEP_ALIVE_RACE_WINDOW {
        return false;
    }
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = source {
        if let Some(hyper) = e.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message() || hyper.is_canceled();
        }
        source = e.source();
    }
    false
}

/// reqwest's top-level message ("error sending request") hides the cause; the source chain names it. Whole
/// (it may name the URL): callers scrub secrets before cutting it.
pub fn describe_error(error: &reqwest::Error) -> String {
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
