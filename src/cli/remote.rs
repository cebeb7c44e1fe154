//! The command line talking to a running latency-guard server with an API token (`--server URL --token lgt_…`):
//! server functions called as `POST /api/<endpoint>` with `Authorization: Bearer`, a run's live events followed,
//! and every refusal turned into a sentence that says what to fix. The token is never printed or logged.

use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

use crate::engine::sse::SseDecoder;
use crate::model::{RunId, RunUpdate, API_TOKEN_PREFIX};

/// A server and the token to call it with.
pub struct RemoteServer {
    base: url::Url,
    token: String,
    http: reqwest::Client,
}

/// Why a call to the server failed, in words.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// `--server` or `--token` is unusable.
    #[error("{0}")]
    Options(String),
    /// The server could not be reached or the connection broke.
    #[error("cannot reach {server}: {detail}")]
    Unreachable {
        /// The server's base URL.
        server: String,
        /// What failed.
        detail: String,
    },
    /// The server answered with a refusal.
    #[error("{0}")]
    Refused(String),
}

impl std::fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteServer").field("base", &self.base.as_str()).field("token", &"[redacted]").finish()
    }
}

impl RemoteServer {
    /// A server at `base` (`http(s)://host[:port]`, a path prefix allowed) called with `token`.
    pub fn new(base: &str, token: &str) -> Result<Self, RemoteError> {
        let mut url = url::Url::parse(base.trim())
            .map_err(|e| RemoteError::Options(format!("--server {base:?} is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(RemoteError::Options(format!("--server {base:?} must be an http:// or https:// URL")));
        }
        if !url.path().ends_with('/') {
            url.set_path(&format!("{}/", url.path()));
        }
        let token = token.trim();
        if !token.starts_with(API_TOKEN_PREFIX) {
            return Err(RemoteError::Options(format!(
                "--token is not an API token (they start with {API_TOKEN_PREFIX}; create one under Settings)"
            )));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| RemoteError::Options(e.to_string()))?;
        Ok(Self { base: url, token: token.to_string(), http })
    }

    fn url(&self, path: &str) -> Result<url::Url, RemoteError> {
        self.base.join(path).map_err(|e| RemoteError::Options(format!("{path}: {e}")))
    }

    fn unreachable(&self, e: impl std::fmt::Display) -> RemoteError {
        RemoteError::Unreachable { server: self.base.to_string(), detail: e.to_string() }
    }

    /// Calls the server function `endpoint` (`runs/start`) with a JSON body.
    pub async fn call<T: DeserializeOwned>(&self, endpoint: &str, body: &Value) -> Result<T, RemoteError> {
        let reply = self
            .http
            .post(self.url(&format!("api/{endpoint}"))?)
            .bearer_auth(&self.token)
            .json(body)
            .timeout(Duration::from_secs(120))
            .send()
            .await
            .map_err(|e| self.unreachable(e))?;
        let status = reply.status();
        let text = reply.text().await.map_err(|e| self.unreachable(e))?;
        if !status.is_success() {
            return Err(RemoteError::Refused(refusal(endpoint, status.as_u16(), &text)));
        }
        serde_json::from_str(&text).map_err(|e| {
            RemoteError::Refused(format!(
                "{endpoint}: the reply is not what this CLI expects ({e}); is the server the same version?"
            ))
        })
    }

    /// Follows a run's live events until it ends, calling `on_update` with each message.
    pub async fn follow_run(&self, run: RunId, mut on_update: impl FnMut(&RunUpdate)) -> Result<(), RemoteError> {
        let reply = self
            .http
            .get(self.url(&format!("api/runs/{run}/events"))?)
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| self.unreachable(e))?;
        let status = reply.status();
        if !status.is_success() {
            let text = reply.text().await.unwrap_or_default();
            return Err(RemoteError::Refused(refusal("runs/events", status.as_u16(), &text)));
        }
        let (mut decoder, mut events) = (SseDecoder::new(), Vec::new());
        let mut body = reply.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| self.unreachable(e))?;
            decoder.push(&chunk, &mut events).map_err(|e| self.unreachable(format!("the live events broke: {e}")))?;
            for event in events.drain(..) {
                if let Ok(update) = serde_json::from_str::<RunUpdate>(&event.data) {
                    on_update(&update);
                }
                if event.event.as_deref() == Some("end") {
                    return Ok(());
                }
            }
        }
        Err(self.unreachable("the live events ended before the run did"))
    }
}

/// A refusal in words: what the status means here, and the server's own reason when it gave one.
fn refusal(endpoint: &str, status: u16, body: &str) -> String {
    let reply: Option<crate::error::AppError> = serde_json::from_str(body).ok();
    let said = match &reply {
        Some(crate::error::AppError::Invalid(v)) => format!("{}: {}", v.field, v.reason),
        Some(other) => other.to_string(),
        None => body.chars().take(200).collect(),
    };
    match status {
        401 => "the server did not accept the token (revoked, expired, mistyped, or made by another server)".into(),
        403 => format!("{endpoint}: {said}"),
        404 => format!(
            "{endpoint}: not found in the token's workspace (check the id, and that the token is this workspace's)"
        ),
        400 => format!("{endpoint}: {said}"),
        _ => format!("{endpoint}: the server answered {status}: {said}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_before_anything_is_sent() {
        assert!(RemoteServer::new("ftp://h", "lgt_x").unwrap_err().to_string().contains("http://"));
        assert!(RemoteServer::new("not a url", "lgt_x").unwrap_err().to_string().contains("not a URL"));
        assert!(RemoteServer::new("http://h:3000", "sk-abc").unwrap_err().to_string().contains("start with lgt_"));
        let server = RemoteServer::new("http://h:3000/lg", "lgt_secret").unwrap();
        assert_eq!(server.url("api/runs/start").unwrap().as_str(), "http://h:3000/lg/api/runs/start");
        assert!(!format!("{server:?}").contains("lgt_secret"), "the token is never printed");
    }

    #[test]
    fn refusals_say_what_to_fix() {
        assert!(refusal("runs/start", 401, "").contains("did not accept the token"));
        let invalid = r#"{"kind":"invalid","detail":{"field":"iterations","reason":"1 to 10000"}}"#;
        assert_eq!(refusal("runs/start", 400, invalid), "runs/start: iterations: 1 to 10000");
        assert!(refusal("runs/report", 404, r#"{"kind":"notFound"}"#).contains("not found in the token's workspace"));
    }
}
