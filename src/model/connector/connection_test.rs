//! The connection test's input and result, and the human hint for a result. Pure: the call itself lives in
//! `engine::connection_test`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::ConnectorId;

/// How many characters of the response body a test result keeps.
pub const BODY_PREVIEW_CHARS: usize = 240;

/// What to test: the form's current values, optionally backed by a stored connector whose key and credential
/// headers fill in what the browser does not have.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestTarget {
    /// When editing: the stored connector whose secrets stand in for omitted values.
    #[serde(default)]
    pub connector_id: Option<ConnectorId>,
    /// The base URL to test.
    pub base_url: String,
    /// A key to send; `None` uses the stored one when `connector_id` is set, else sends no key.
    #[serde(default)]
    pub api_key: Option<String>,
    /// The model to ask for.
    pub model: String,
    /// Extra headers; `null` values take the stored credential header's value.
    #[serde(default)]
    pub headers: BTreeMap<String, Option<String>>,
}

/// The outcome of one 1-token request. Never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionTestResult {
    /// Whether the status was 2xx.
    pub ok: bool,
    /// The HTTP status, or 0 when no response came.
    pub status: u16,
    /// Wall-clock milliseconds from sending to the end of the body (or to the failure).
    pub ms: u64,
    /// The raw body truncated to [`BODY_PREVIEW_CHARS`] characters, or the error as text.
    pub body: String,
}

/// Whether a 2xx body (its preview) reads as an OpenAI chat completion: JSON naming `choices` or the
/// `chat.completion` object, which every compatible server puts in its first few dozen characters.
fn looks_like_chat_completion(body: &str) -> bool {
    body.trim_start().starts_with('{') && (body.contains("\"choices\"") || body.contains("chat.completion"))
}

impl ConnectionTestResult {
    /// A sentence saying what most likely went wrong and what to change, for the known failure shapes.
    pub fn hint(&self) -> Option<&'static str> {
        let body = self.body.to_ascii_lowercase();
        match self.status {
            200..=299 if looks_like_chat_completion(&self.body) => None,
            200..=299 if body.trim_start().starts_with('<') => Some(
                "The endpoint answered 2xx with a web page, not a chat completion: the base URL points at a site or a login page, not the API (most APIs end in /v1).",
            ),
            200..=299 => Some(
                "The endpoint answered 2xx, but not with a chat completion (no `choices`): the base URL probably points at another API; check the path.",
            ),
            300..=399 => Some("The endpoint answered with a redirect: use the final URL as the base URL (often https:// instead of http://)."),
            0 if body.contains("timed out") => Some(
                "No answer before the timeout: the endpoint may be overloaded, or the URL points at something that never replies.",
            ),
            0 if body.contains("refused") => Some(
                "Connection refused: nothing listens at that host and port. Check the base URL (host, port, http vs https).",
            ),
            0 => Some("No HTTP response: check the host name, port, TLS (http vs https) and that the server is reachable from latency-guard."),
            401 | 403 => Some(
                "The endpoint rejected the credentials: set or correct the API key (sent as `Authorization: Bearer …`), or the header your gateway expects (e.g. `api-key`).",
            ),
            404 if body.contains("deployment") => Some(
                "The deployment was not found: check the deployment name in the base URL.",
            ),
            404 if body.contains("resource not found") => Some(
                "Resource not found: Azure-style gateways need an `api-version` (as `?api-version=…` on the base URL or as a header) and the deployment path.",
            ),
            400 | 422 if body.contains("api version") || body.contains("api-version") => Some(
                "The gateway rejected the API version: set a supported `api-version` (Azure-style gateways need one on the classic path, none on /openai/v1).",
            ),
            400 | 404 | 422 if body.contains("model") => Some(
                "The endpoint does not know this model: check the model id (for self-hosted servers, the name the server was started with).",
            ),
            404 | 405 => Some(
                "Not found at {base}/chat/completions: the base URL is probably wrong. Most servers need the `/v1` suffix (e.g. http://host:8000/v1).",
            ),
            429 => Some("Rate limited or out of quota: the endpoint works, but refuses more requests right now."),
            500..=599 => Some("The endpoint failed on its side (5xx): it is reachable, but the server or its upstream is unhealthy."),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: u16, body: &str) -> ConnectionTestResult {
        ConnectionTestResult { ok: (200..300).contains(&status), status, ms: 1, body: body.into() }
    }

    #[test]
    fn hints_cover_the_known_failure_shapes() {
        assert!(result(200, r#"{"id":"chatcmpl-1","object":"chat.completion","created":1}"#).hint().is_none());
        assert!(result(200, r#"{"choices":[{"index":0}]}"#).hint().is_none());
        assert!(result(200, "<!doctype html><html>").hint().unwrap().contains("web page"));
        assert!(result(200, r#"{"status":"ok"}"#).hint().unwrap().contains("not with a chat completion"));
        assert!(result(401, "").hint().unwrap().contains("API key"));
        assert!(result(404, "Not Found").hint().unwrap().contains("/v1"));
        assert!(result(0, "connection refused").hint().unwrap().contains("refused"));
        assert!(result(0, "request timed out after 5000 ms").hint().unwrap().contains("timeout"));
        assert!(result(400, r#"{"error":"model 'x' not found"}"#).hint().unwrap().contains("model id"));
        assert!(result(400, r#"{"error":{"message":"API version not supported"}}"#)
            .hint()
            .unwrap()
            .contains("api-version"));
        assert!(result(404, r#"{"error":{"code":"404","message":"Resource not found"}}"#)
            .hint()
            .unwrap()
            .contains("api-version"));
    }
}
