//! Extra request headers of a connector: validated names, and which of them carry credentials.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::ValidationError;

/// Header names whose values are credentials whatever their spelling suggests.
const CREDENTIAL_NAMES: &[&str] =
    &["authorization", "proxy-authorization", "api-key", "x-api-key", "cookie", "set-cookie"];
/// Fragments that mark a header name as credential-bearing (`x-goog-api-key`, `x-auth-token`, ...).
const CREDENTIAL_FRAGMENTS: &[&str] = &["key", "token", "secret", "auth", "password", "cookie"];

/// Whether a header's value must be handled like an API key: write-only, sealed at rest, never shown.
pub fn is_credential_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    CREDENTIAL_NAMES.contains(&lower.as_str()) || CREDENTIAL_FRAGMENTS.iter().any(|f| lower.contains(f))
}

/// Query parameters that carry credentials under names the header fragments miss (Azure Functions `code`,
/// shared-access `sig`).
const CREDENTIAL_QUERY_NAMES: &[&str] = &["code", "sig", "signature", "access_token", "auth"];

/// Whether a URL query parameter's value is a credential (`?api_key=…`, `?key=…`, `?token=…`, `?sig=…`).
pub fn is_credential_query_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    CREDENTIAL_QUERY_NAMES.contains(&lower.as_str()) || is_credential_header(&lower)
}

/// A header name that is a valid HTTP token (RFC 9110 `tchar`), stored lower-case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HeaderName(String);

impl HeaderName {
    /// Parses a header name, naming `field` in the error.
    pub fn parse(raw: &str, field: &str) -> Result<Self, ValidationError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(ValidationError::new(field, "header name is empty"));
        }
        let is_tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if let Some(bad) = name.chars().find(|c| !is_tchar(*c)) {
            return Err(ValidationError::new(
                field,
                format!("header name {name:?} contains {bad:?}, which is not allowed in an HTTP header name"),
            ));
        }
        let lower = name.to_ascii_lowercase();
        if matches!(lower.as_str(), "content-type" | "content-length" | "host" | "transfer-encoding" | "connection") {
            return Err(ValidationError::new(
                field,
                format!("header {lower:?} is set by latency-guard itself and cannot be overridden"),
            ));
        }
        Ok(Self(lower))
    }

    /// The lower-case name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What an edit says about one header value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeaderValueChange {
    /// Use this value.
    Set(String),
    /// Keep the value already stored (only meaningful for credential headers, whose values the browser never sees).
    KeepStored,
}

/// The most extra headers a connector sends (gateways ask for a handful).
pub const MAX_HEADERS: usize = 32;
/// The longest header name.
pub const MAX_HEADER_NAME_CHARS: usize = 128;
/// The longest header value, and the longest API key: a signed token of a few kilobytes fits; a megabyte is no
/// credential, and would be sealed, stored and sent with every request.
pub const MAX_CREDENTIAL_CHARS: usize = 8 * 1024;

/// A validated set of extra headers: unique names, values free of line breaks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderSet(pub BTreeMap<HeaderName, HeaderValueChange>);

impl HeaderSet {
    /// Validates the raw `name -> value` map of an input (`None` = keep the stored credential value).
    pub fn parse(raw: &BTreeMap<String, Option<String>>) -> Result<Self, ValidationError> {
        if raw.len() > MAX_HEADERS {
            return Err(ValidationError::new("headers", format!("{} headers; at most {MAX_HEADERS}", raw.len())));
        }
        let mut set = BTreeMap::new();
        for (raw_name, value) in raw {
            let shown: String = raw_name.chars().take(MAX_HEADER_NAME_CHARS).collect();
            let field = format!("headers.{shown}");
            if raw_name.chars().count() > MAX_HEADER_NAME_CHARS {
                return Err(ValidationError::new(field, format!("header name longer than {MAX_HEADER_NAME_CHARS}")));
            }
            let name = HeaderName::parse(raw_name, &field)?;
            let change = match value {
                Some(v) if v.chars().count() > MAX_CREDENTIAL_CHARS => {
                    return Err(ValidationError::new(
                        field,
                        format!("header value has {} characters; at most {MAX_CREDENTIAL_CHARS}", v.chars().count()),
                    ))
                }
                Some(v) => {
                    if v.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
                        return Err(ValidationError::new(field, "header value contains a line break or NUL"));
                    }
                    if !v.chars().all(|c| c == '\t' || (' '..='~').contains(&c) || !c.is_ascii()) {
                        return Err(ValidationError::new(field, "header value contains a control character"));
                    }
                    HeaderValueChange::Set(v.trim().to_string())
                }
                None if is_credential_header(name.as_str()) => HeaderValueChange::KeepStored,
                None => return Err(ValidationError::new(field, "header value is missing")),
            };
            if set.insert(name, change).is_some() {
                return Err(ValidationError::new(field, "header is given twice (names are case-insensitive)"));
            }
        }
        Ok(Self(set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_recognised_by_name_and_fragment() {
        for name in ["Authorization", "api-key", "X-API-Key", "x-goog-api-key", "x-auth-token", "Cookie"] {
            assert!(is_credential_header(name), "{name}");
        }
        for name in ["api-version", "x-request-source", "openai-organization"] {
            assert!(!is_credential_header(name), "{name}");
        }
    }

    #[test]
    fn rejects_header_names_that_are_not_http_tokens() {
        let err = HeaderName::parse("bad name", "headers.bad name").unwrap_err();
        assert_eq!(err.field, "headers.bad name");
        assert!(err.reason.contains("not allowed"), "{}", err.reason);
    }

    #[test]
    fn rejects_duplicate_names_differing_only_in_case() {
        let raw = BTreeMap::from([
            ("X-Foo".to_string(), Some("1".to_string())),
            ("x-foo".to_string(), Some("2".to_string())),
        ]);
        assert!(HeaderSet::parse(&raw).unwrap_err().reason.contains("twice"));
    }

    #[test]
    fn rejects_header_values_with_line_breaks() {
        let raw = BTreeMap::from([("x-foo".to_string(), Some("a\r\nInjected: 1".to_string()))]);
        assert!(HeaderSet::parse(&raw).is_err());
    }

    #[test]
    fn keeps_stored_value_only_for_credential_headers() {
        let keep = BTreeMap::from([("x-api-key".to_string(), None)]);
        assert!(HeaderSet::parse(&keep).is_ok());
        let missing = BTreeMap::from([("api-version".to_string(), None)]);
        assert!(HeaderSet::parse(&missing).is_err());
    }
}
