//! Connectors: what a user types (`ConnectorInput`), what survives validation (`ValidConnector`), and what the
//! browser may see (`Connector`, which has no field that could hold a key).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::connector::headers::HeaderSet;
use crate::model::{ConnectorId, ValidationError};

/// The base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1`.
///
/// Parsed once: http(s) only, a host required, trailing slashes stripped, the query kept (Azure-style
/// `?api-version=…`), no credentials (in the user-info or in a query parameter named like one) and no fragment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// Parses and normalises a base URL typed by a user.
    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        let fail = |reason: &str| ValidationError::new("baseUrl", reason);
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(fail("base URL is empty"));
        }
        let url = url::Url::parse(trimmed).map_err(|e| {
            ValidationError::new("baseUrl", format!("not a valid URL ({e}); expected e.g. https://api.example.com/v1"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(fail("base URL must start with http:// or https://"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(fail("base URL has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(fail("base URL must not contain credentials; put the key in the API key field"));
        }
        if let Some((name, _)) = url.query_pairs().find(|(name, _)| crate::model::is_credential_query_name(name)) {
            return Err(ValidationError::new(
                "baseUrl",
                format!(
                    "the query parameter {name:?} looks like a credential, and a base URL is shown in reports, exports \
                     and share links; send it as a header instead (the API key field, or a credential header such as \
                     `api-key`)"
                ),
            ));
        }
        if url.fragment().is_some() {
            return Err(fail("base URL must not contain a #fragment"));
        }
        let mut normalised = url.clone();
        let path = url.path().trim_end_matches('/').to_string();
        normalised.set_path(&path);
        let mut text = normalised.to_string();
        // `Url` renders an empty path as "/"; a base of "https://host" must stay slash-free so that
        // appending "/chat/completions" gives one slash.
        if path.is_empty() {
            text = text.replacen(&format!("{}/", authority(&normalised)), &authority(&normalised), 1);
        }
        Ok(Self(text))
    }

    /// The normalised URL as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Scheme, host and port (`https://api.example.com:443`): where the credentials stored with this URL may go.
    pub fn origin(&self) -> String {
        url::Url::parse(&self.0).map(|url| url.origin().ascii_serialization()).unwrap_or_default()
    }

    /// The server root: without the query and one trailing `/v1` segment, where self-hosted engines serve
    /// `/metrics`, `/tokenize` and their info (vLLM answers 404 for `/v1/metrics`).
    pub fn server_root(&self) -> String {
        let Ok(mut url) = url::Url::parse(&self.0) else {
            return self.0.trim_end_matches("/v1").to_string();
        };
        url.set_query(None);
        let path = url.path().trim_end_matches('/');
        let path = path.strip_suffix("/v1").unwrap_or(path).to_string();
        url.set_path(&path);
        url.as_str().trim_end_matches('/').to_string()
    }

    /// `{base}/chat/completions`, with the base's query string (if any) kept after the new path.
    pub fn chat_completions_url(&self) -> String {
        self.endpoint("chat/completions")
    }

    /// `{base}/{path}` with the base's query string kept.
    pub fn endpoint(&self, path: &str) -> String {
        match self.0.split_once('?') {
            Some((base, query)) => format!("{base}/{path}?{query}"),
            None => format!("{}/{path}", self.0),
        }
    }
}

fn authority(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// A model name as the endpoint expects it; non-empty, no surrounding whitespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ModelName(String);

impl ModelName {
    /// Parses a model name.
    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        let model = raw.trim();
        if model.is_empty() {
            return Err(ValidationError::new("model", "model is empty; enter the model id the endpoint serves"));
        }
        if model.len() > 200 {
            return Err(ValidationError::new("model", "model is longer than 200 characters"));
        }
        Ok(Self(model.to_string()))
    }

    /// The model name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A price in USD per one million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Price(f64);

impl Price {
    /// Parses an optional price; `field` names it in the error.
    pub fn parse(raw: Option<f64>, field: &str) -> Result<Option<Self>, ValidationError> {
        match raw {
            None => Ok(None),
            Some(p) if !p.is_finite() => Err(ValidationError::new(field, "price is not a number")),
            Some(p) if p < 0.0 => Err(ValidationError::new(field, "price cannot be negative")),
            Some(p) if p > 10_000.0 => {
                Err(ValidationError::new(field, "price above 10,000 USD per 1M tokens; check the unit"))
            }
            Some(p) => Ok(Some(Self(p))),
        }
    }

    /// USD per one million tokens.
    pub fn usd_per_mtok(self) -> f64 {
        self.0
    }
}

/// A connector as a user submits it, for create and update.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorInput {
    /// A display name.
    pub name: String,
    /// The API's base URL (without `/chat/completions`).
    pub base_url: String,
    /// A new API key; `None` keeps the stored one on update (and means "no key" on create).
    #[serde(default)]
    pub api_key: Option<String>,
    /// Remove the stored API key.
    #[serde(default)]
    pub clear_api_key: bool,
    /// The model id sent in each request.
    pub model: String,
    /// Extra headers sent after the defaults; a `null` value keeps a stored credential header.
    #[serde(default)]
    pub headers: BTreeMap<String, Option<String>>,
    /// USD per 1M input tokens.
    #[serde(default)]
    pub input_price_per_mtok: Option<f64>,
    /// USD per 1M output tokens.
    #[serde(default)]
    pub output_price_per_mtok: Option<f64>,
}

/// What to do with a connector's API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyChange {
    /// Leave the stored key (none on create).
    Keep,
    /// Remove it.
    Clear,
    /// Store this one.
    Set(String),
}

/// Why a stored key or credential header may not go to `new`: it was entered for `stored`'s origin, and a key
/// follows a connector only within its origin (else whoever may edit a connector, or holds an API token, could send
/// every stored provider key to an address of their choice). `None` when `new` has the same origin.
pub fn credentials_kept_for(stored: &BaseUrl, new: &BaseUrl, field: &str) -> Option<ValidationError> {
    let (from, to) = (stored.origin(), new.origin());
    (from != to).then(|| {
        ValidationError::new(
            field,
            format!(
                "the stored value was entered for {from} and goes nowhere else; enter it again to use it with {to}"
            ),
        )
    })
}

/// A connector input that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidConnector {
    /// Trimmed display name.
    pub name: String,
    /// Normalised base URL.
    pub base_url: BaseUrl,
    /// The key change this input asks for.
    pub api_key: KeyChange,
    /// The model.
    pub model: ModelName,
    /// Extra headers.
    pub headers: HeaderSet,
    /// USD per 1M input tokens.
    pub input_price: Option<Price>,
    /// USD per 1M output tokens.
    pub output_price: Option<Price>,
}

impl ConnectorInput {
    /// Validates every field, failing on the first bad one with its name.
    pub fn validate(&self) -> Result<ValidConnector, ValidationError> {
        let name = crate::model::common::text::display_name(&self.name, "name", 100)?;
        let api_key = match (&self.api_key, self.clear_api_key) {
            (Some(key), _) if !key.trim().is_empty() => {
                let key = key.trim();
                let chars = key.chars().count();
                if chars > crate::model::connector::headers::MAX_CREDENTIAL_CHARS {
                    return Err(ValidationError::new(
                        "apiKey",
                        format!(
                            "API key has {chars} characters; at most {}",
                            crate::model::connector::headers::MAX_CREDENTIAL_CHARS
                        ),
                    ));
                }
                if key.chars().any(|c| c.is_control() || c == ' ') {
                    return Err(ValidationError::new("apiKey", "API key contains spaces or control characters"));
                }
                KeyChange::Set(key.to_string())
            }
            (_, true) => KeyChange::Clear,
            _ => KeyChange::Keep,
        };
        Ok(ValidConnector {
            name,
            base_url: BaseUrl::parse(&self.base_url)?,
            api_key,
            model: ModelName::parse(&self.model)?,
            headers: HeaderSet::parse(&self.headers)?,
            input_price: Price::parse(self.input_price_per_mtok, "inputPricePerMtok")?,
            output_price: Price::parse(self.output_price_per_mtok, "outputPricePerMtok")?,
        })
    }
}

/// One extra header as the browser may see it: credential values are never included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderView {
    /// Lower-case header name.
    pub name: String,
    /// The value, or `None` for credential headers (whose value stays on the server).
    pub value: Option<String>,
    /// Whether the value is a credential, stored sealed and write-only.
    pub secret: bool,
}

/// A stored connector as pages and server-function replies show it. It has no field for the key on purpose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connector {
    /// Its id.
    pub id: ConnectorId,
    /// Display name.
    pub name: String,
    /// Normalised base URL.
    pub base_url: String,
    /// Model id.
    pub model: String,
    /// Whether an API key is stored (its value never leaves the server).
    pub has_api_key: bool,
    /// Extra headers, credential values withheld.
    pub headers: Vec<HeaderView>,
    /// USD per 1M input tokens.
    pub input_price_per_mtok: Option<f64>,
    /// USD per 1M output tokens.
    pub output_price_per_mtok: Option<f64>,
    /// Whether this is the built-in demo connector pointing at the bundled simulator.
    pub is_demo: bool,
    /// The engine the last Spec Lab probe found at its server (`None`: not probed, or it told none).
    #[serde(default)]
    pub server_kind: Option<crate::model::ServerKind>,
    /// When it was last probed, unix ms.
    #[serde(default)]
    pub probed_at_ms: Option<i64>,
    /// Creation time, unix milliseconds.
    pub created_at_ms: i64,
    /// Last update time, unix milliseconds.
    pub updated_at_ms: i64,
}

impl Connector {
    /// Its prices, USD per million input and output tokens (`None`: not set).
    pub fn prices(&self) -> (Option<f64>, Option<f64>) {
        (self.input_price_per_mtok, self.output_price_per_mtok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_drops_one_trailing_v1_and_the_query() {
        for (base, root) in [
            ("http://h:8000/v1", "http://h:8000"),
            ("http://h:8000/v1/", "http://h:8000"),
            ("https://h/proxy/v1?api-version=1", "https://h/proxy"),
            ("http://h:8080", "http://h:8080"),
            ("http://h/v1/v1", "http://h/v1"),
        ] {
            assert_eq!(BaseUrl::parse(base).unwrap().server_root(), root, "{base}");
        }
    }

    #[test]
    fn strips_trailing_slashes_once_on_parse() {
        let url = BaseUrl::parse(" https://api.example.com/v1/// ").unwrap();
        assert_eq!(url.as_str(), "https://api.example.com/v1");
        assert_eq!(url.chat_completions_url(), "https://api.example.com/v1/chat/completions");
    }

    #[test]
    fn keeps_the_query_when_appending_chat_completions() {
        let url = BaseUrl::parse("https://r.openai.azure.com/openai/deployments/gpt/?api-version=2024-10-21").unwrap();
        assert_eq!(
            url.chat_completions_url(),
            "https://r.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024-10-21"
        );
    }

    #[test]
    fn a_bare_host_gets_exactly_one_slash() {
        let url = BaseUrl::parse("http://127.0.0.1:8000/").unwrap();
        assert_eq!(url.chat_completions_url(), "http://127.0.0.1:8000/chat/completions");
    }

    #[test]
    fn rejects_non_http_schemes_missing_hosts_and_embedded_credentials() {
        for (raw, needle) in [
            ("ftp://x.example/v1", "http"),
            ("not a url", "valid URL"),
            ("https://user:pw@x.example/v1", "credentials"),
            ("", "empty"),
        ] {
            let err = BaseUrl::parse(raw).unwrap_err();
            assert_eq!(err.field, "baseUrl");
            assert!(err.reason.contains(needle), "{raw}: {}", err.reason);
        }
    }

    #[test]
    fn refuses_a_key_in_the_query_and_keeps_other_parameters() {
        for raw in [
            "https://gw.example/v1?api_key=sk-123",
            "https://gw.example/v1?api-version=1&key=abc",
            "https://gw.example/v1?Token=t",
            "https://fn.example/api?code=xyz",
            "https://blob.example/v1?sig=abc",
        ] {
            let err = BaseUrl::parse(raw).unwrap_err();
            assert!(err.reason.contains("looks like a credential") && err.reason.contains("header"), "{raw}: {err:?}");
        }
        assert!(BaseUrl::parse("https://x.example/openai?api-version=2024-10-21").is_ok());
    }

    #[test]
    fn validation_names_the_failing_field() {
        let good = ConnectorInput {
            name: "n".into(),
            base_url: "http://localhost:1/v1".into(),
            model: "m".into(),
            ..Default::default()
        };
        assert!(good.validate().is_ok());
        let no_model = ConnectorInput { model: " ".into(), ..good.clone() };
        assert_eq!(no_model.validate().unwrap_err().field, "model");
        let bad_price = ConnectorInput { output_price_per_mtok: Some(-1.0), ..good.clone() };
        assert_eq!(bad_price.validate().unwrap_err().field, "outputPricePerMtok");
        let no_name = ConnectorInput { name: "".into(), ..good };
        assert_eq!(no_name.validate().unwrap_err().field, "name");
    }

    #[test]
    fn a_blank_key_keeps_and_clear_flag_clears() {
        let base = ConnectorInput {
            name: "n".into(),
            base_url: "http://h/v1".into(),
            model: "m".into(),
            api_key: Some("  ".into()),
            ..Default::default()
        };
        assert_eq!(base.validate().unwrap().api_key, KeyChange::Keep);
        let clear = ConnectorInput { clear_api_key: true, ..base };
        assert_eq!(clear.validate().unwrap().api_key, KeyChange::Clear);
    }
}
