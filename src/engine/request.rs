//! The `POST {base}/chat/completions` request: headers in the order the wire format expects, and the body.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use serde::Serialize;
use std::collections::BTreeMap;

use super::redact::Redactor;
use crate::model::BaseUrl;
use crate::outbound::Reach;

/// Where and as whom to call: URL, key and extra headers. `Debug` redacts the secrets.
#[derive(Clone)]
pub struct RequestTarget {
    /// The API base.
    pub base_url: BaseUrl,
    /// Sent as `Authorization: Bearer <key>` when present.
    pub api_key: Option<String>,
    /// Sent after the defaults, replacing a default of the same name.
    pub headers: BTreeMap<String, String>,
    /// How far the request may go: decided by who asked for it (the address policy, `crate::outbound`).
    pub reach: Reach,
}

impl std::fmt::Debug for RequestTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestTarget")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("reach", &self.reach)
            .finish()
    }
}

/// Why a target's headers cannot go on a request. The texts never quote a value: values may be credentials.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The API key has characters a header cannot carry.
    #[error("the API key contains characters not allowed in a header")]
    Key,
    /// A header name that is not a valid HTTP header name.
    #[error("invalid header name {0:?}")]
    Name(String),
    /// A header value with characters a header cannot carry.
    #[error("invalid value for header {0:?}")]
    Value(String),
}

impl RequestTarget {
    /// `Content-Type`, then `Authorization` when a key is set, then the extra headers.
    pub fn header_map(&self) -> Result<HeaderMap, HeaderError> {
        let mut map = HeaderMap::new();
        map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| HeaderError::Key)?;
            value.set_sensitive(true);
            map.insert(AUTHORIZATION, value);
        }
        for (name, value) in &self.headers {
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| HeaderError::Name(name.clone()))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| HeaderError::Value(name.clone()))?;
            value.set_sensitive(crate::model::is_credential_header(name));
            map.insert(header, value);
        }
        Ok(map)
    }

    /// Scrubs every secret this target holds (the key, credential headers, credential-like query values of the
    /// base URL) from texts an endpoint echoes back. Built only when there is something to scrub: failures.
    pub fn redactor(&self) -> Redactor {
        let query_secrets: Vec<String> = url::Url::parse(self.base_url.as_str())
            .map(|url| {
                url.query_pairs()
                    .filter(|(name, _)| crate::model::is_credential_query_name(name))
                    .map(|(_, value)| value.into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let headers = self
            .headers
            .iter()
            .filter(|(name, _)| crate::model::is_credential_header(name))
            .map(|(_, value)| value.as_str());
        Redactor::new(
            self.api_key.iter().map(String::as_str).chain(headers).chain(query_secrets.iter().map(String::as_str)),
        )
    }
}

/// One chat message.
#[derive(Debug, Clone, Serialize)]
pub struct ChatMessage {
    /// `system` or `user`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

/// The JSON body of a chat-completions request.
#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest {
    /// The model id.
    pub model: String,
    /// System prompt (if any), then the user prompt.
    pub messages: Vec<ChatMessage>,
    /// OpenAI `tools`, sent only when there are any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<serde_json::Value>,
    /// The output token budget.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// Whether to stream SSE.
    pub stream: bool,
    /// `{"include_usage": true}` when streaming to an endpoint that accepts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// Ask the server not to stop before `max_tokens` (`ignore_eos`, as vLLM, SGLang and llama.cpp name it), so an
    /// answer is as long as a workload asked; sent only when set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignore_eos: bool,
    /// Keep the answer's text in the measurement (`Measurement::answer`), for a conversation's next turn; not sent.
    #[serde(skip)]
    pub keep_answer: bool,
}

/// The `stream_options` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StreamOptions {
    /// Ask for a final chunk with `usage`.
    pub include_usage: bool,
}

impl ChatRequest {
    /// The connection test's request: one short user message, one token, not streamed.
    pub fn ping(model: &str) -> Self {
        Self {
            model: model.to_string(),
            messages: vec![ChatMessage { role: "user", content: "ping".into() }],
            tools: vec![],
            max_tokens: 1,
            temperature: 0.0,
            stream: false,
            stream_options: None,
            ignore_eos: false,
            keep_answer: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_headers_follow_and_replace_the_defaults() {
        let target = RequestTarget {
            base_url: BaseUrl::parse("http://h/v1").unwrap(),
            api_key: Some("sk-1".into()),
            headers: BTreeMap::from([
                ("api-version".into(), "2024-10-21".into()),
                ("authorization".into(), "Token x".into()),
            ]),
            reach: Reach::Anywhere,
        };
        let map = target.header_map().unwrap();
        assert_eq!(map["content-type"], "application/json");
        assert_eq!(map["authorization"], "Token x");
        assert_eq!(map["api-version"], "2024-10-21");
    }

    #[test]
    fn no_authorization_without_a_key_and_debug_redacts() {
        let target = RequestTarget {
            base_url: BaseUrl::parse("http://h/v1").unwrap(),
            api_key: None,
            headers: BTreeMap::new(),
            reach: Reach::Anywhere,
        };
        assert!(!target.header_map().unwrap().contains_key("authorization"));
        let with_key = RequestTarget { api_key: Some("sk-canary-123".into()), ..target };
        assert!(!format!("{with_key:?}").contains("sk-canary-123"));
    }

    #[test]
    fn headers_a_request_cannot_carry_are_named_and_never_quoted() {
        let target = |api_key: Option<&str>, name: &str, value: &str| RequestTarget {
            base_url: BaseUrl::parse("http://h/v1").unwrap(),
            api_key: api_key.map(String::from),
            headers: BTreeMap::from([(name.to_string(), value.to_string())]),
            reach: Reach::Anywhere,
        };
        assert_eq!(target(Some("sk-a\nb"), "x-a", "1").header_map().unwrap_err(), HeaderError::Key);
        assert_eq!(target(None, "bad name", "1").header_map().unwrap_err(), HeaderError::Name("bad name".into()));
        let error = target(None, "x-token", "secret\r\nvalue").header_map().unwrap_err();
        assert_eq!(error, HeaderError::Value("x-token".into()));
        assert!(!error.to_string().contains("secret"), "{error}");
    }

    #[test]
    fn ping_body_is_one_token_unstreamed_at_temperature_zero() {
        let body = serde_json::to_value(ChatRequest::ping("m")).unwrap();
        assert_eq!(body["max_tokens"], 1);
        assert_eq!(body["stream"], false);
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["messages"][0]["role"], "user");
        assert!(body.get("stream_options").is_none(), "not sent unless streaming");
        assert!(body.get("ignore_eos").is_none(), "not sent unless a workload asks for exact lengths");
    }
}
