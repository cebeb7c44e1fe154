//! The JSON wire of server functions and hydrated resources: the same JSON bytes for every client (the API is
//! public JSON), read differently by the browser.
//!
//! serde_json's parser is generic over the type it reads, so every type the browser received was a copy of the
//! parser in the WASM bundle: the largest single share of it. In the browser, JSON is parsed by the browser's own
//! `JSON.parse` and the values are read into Rust types by serde-wasm-bindgen, whose per-type code is a few calls
//! into JavaScript. The server (and the tests) read and write with serde_json as before. Writing stays serde_json
//! everywhere: the browser writes few and small values.

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The encoding of [`Json`]: `application/json`, parsed in the browser by the browser.
pub struct JsonWire;

/// `POST` with JSON arguments and a JSON reply: every server function's encoding (`input = Json, output = Json`).
pub type Json = Post<JsonWire>;

/// Why a value could not be read from, or written as, JSON.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WireError(String);

impl ContentType for JsonWire {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonWire {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for JsonWire {
    type Error = WireError;

    fn encode(value: &T) -> Result<Bytes, WireError> {
        to_json(value).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for JsonWire {
    type Error = WireError;

    fn decode(bytes: Bytes) -> Result<T, WireError> {
        let text = std::str::from_utf8(&bytes).map_err(|error| WireError(format!("the JSON is not UTF-8: {error}")))?;
        from_json(text)
    }
}

/// Hydrated resources travel in the page the same way: written as JSON on the server, read in the browser by the
/// browser's parser. Use with `Resource::new_with_options` (see `ui::hooks::resource`).
impl<T: Serialize + 'static> codee::Encoder<T> for JsonWire {
    type Error = WireError;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, WireError> {
        in_page_data(|| to_json(value))
    }
}

impl<T: DeserializeOwned + 'static> codee::Decoder<T> for JsonWire {
    type Error = WireError;
    type Encoded = str;

    fn decode(text: &str) -> Result<T, WireError> {
        from_json(text)
    }
}

std::thread_local! {
    /// Whether the JSON being written goes into the page as a resource's hydration data.
    static WRITING_PAGE_DATA: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn in_page_data<R>(write: impl FnOnce() -> R) -> R {
    /// Lowers the flag however `write` ends, so a later reply on this thread carries its HTML.
    struct Lowered;
    impl Drop for Lowered {
        fn drop(&mut self) {
            WRITING_PAGE_DATA.with(|flag| flag.set(false));
        }
    }
    WRITING_PAGE_DATA.with(|flag| flag.set(true));
    let _lowered = Lowered;
    write()
}

/// HTML the server rendered: the parts of a page that do not change once shown (a report's figures, notes and
/// charts), whose view code and data types the browser then never compiles (the `fragments` module).
///
/// In a reply (a server function's JSON, read when the browser moves to a page or reads it again) it is the HTML.
/// In a page's hydration data it is written empty: the same HTML is already in the page, and the browser's
/// `inner_html` leaves a server-rendered element's children as they are when it hydrates, so sending it twice
/// would only double the page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerHtml(String);

impl ServerHtml {
    /// HTML from the server's renderer (the `fragments` module): trusted markup, shown as it is.
    pub fn trusted(html: String) -> Self {
        Self(html)
    }

    /// The HTML; empty in a page being hydrated.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The HTML; empty in a page being hydrated.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The page of a job with a live report (an A/B test, a sweep), as its server function returns it: `summary` is
/// the state the page's progress line and Stop button read; the rest is HTML the server rendered, filled in as
/// the job goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobPage<S> {
    /// Status and progress.
    pub summary: S,
    /// What was asked for: title, connectors, plan.
    pub header: ServerHtml,
    /// The report so far; absent until there is one.
    pub report: Option<ServerHtml>,
    /// How the figures were made, shown last.
    pub notes: Option<ServerHtml>,
}

impl Serialize for ServerHtml {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if WRITING_PAGE_DATA.with(std::cell::Cell::get) {
            serializer.serialize_str("")
        } else {
            serializer.serialize_str(&self.0)
        }
    }
}

impl<'de> Deserialize<'de> for ServerHtml {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

/// `value` as JSON text (serde_json, in the server and in the browser alike).
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, WireError> {
    serde_json::to_string(value).map_err(|error| WireError(error.to_string()))
}

/// Reads a `T` from JSON text: with serde_json on the server, with `JSON.parse` and serde-wasm-bindgen in the
/// browser. Both accept the same documents for the types this app sends (objects with string keys, numbers within
/// 2^53 as integers). JSON a user typed into a form is read with it too: serde_json's parser would otherwise add
/// itself to the page's WASM.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, WireError> {
    #[cfg(feature = "hydrate")]
    {
        let value = js_sys::JSON::parse(text).map_err(|error| {
            // `JSON.parse` throws a SyntaxError whose message says where the text stops being JSON.
            let said = js_sys::Error::from(error).message().as_string().unwrap_or_default();
            WireError(format!("not JSON: {said}"))
        })?;
        serde_wasm_bindgen::from_value(value).map_err(|error| WireError(error.to_string()))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        serde_json::from_str(text).map_err(|error| WireError(error.to_string()))
    }
}

/// `#[serde(deserialize_with = "crate::wire::number_keys")]` on a map with number keys: JSON writes its keys as
/// strings, which serde_json reads back as numbers but serde-wasm-bindgen does not; this reads the strings and
/// parses them, the same in both.
pub fn number_keys<'de, D, K, V>(deserializer: D) -> Result<std::collections::BTreeMap<K, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    K: std::str::FromStr + Ord,
    V: serde::Deserialize<'de>,
{
    use serde::de::Error;
    let written = std::collections::BTreeMap::<String, V>::deserialize(deserializer)?;
    written
        .into_iter()
        .map(|(key, value)| match key.parse::<K>() {
            Ok(number) => Ok((number, value)),
            Err(_) => Err(D::Error::custom(format!("the key {key:?} is not a number"))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunId;
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Reply {
        id: RunId,
        p50_ms: Option<f64>,
        names: Vec<String>,
    }

    #[test]
    fn a_reply_reads_back_as_written_through_both_traits() {
        let reply = Reply { id: RunId::new_random(), p50_ms: Some(12.5), names: vec!["a \"quoted\" name".into()] };
        let bytes = <JsonWire as Encodes<Reply>>::encode(&reply).unwrap();
        assert_eq!(bytes, serde_json::to_vec(&reply).unwrap(), "the same JSON as before");
        assert_eq!(<JsonWire as Decodes<Reply>>::decode(bytes).unwrap(), reply);
        let text = <JsonWire as codee::Encoder<Reply>>::encode(&reply).unwrap();
        assert_eq!(<JsonWire as codee::Decoder<Reply>>::decode(&text).unwrap(), reply);
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct PerPosition(#[serde(deserialize_with = "number_keys")] BTreeMap<u32, f64>);

    #[test]
    fn number_keys_read_back_from_their_string_form_and_a_word_is_refused() {
        let written = PerPosition(BTreeMap::from([(0, 0.9), (12, 0.25)]));
        let json = to_json(&written).unwrap();
        assert_eq!(json, r#"{"0":0.9,"12":0.25}"#);
        assert_eq!(from_json::<PerPosition>(&json).unwrap(), written);
        let error = from_json::<PerPosition>(r#"{"first":1.0}"#).unwrap_err();
        assert!(error.to_string().contains(r#"the key "first" is not a number"#), "{error}");
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Page {
        count: u32,
        body: ServerHtml,
    }

    #[test]
    fn server_html_travels_in_replies_but_not_twice_in_a_page() {
        let page = Page { count: 3, body: ServerHtml::trusted("<p id=\"x\">figures</p>".into()) };
        let reply = <JsonWire as Encodes<Page>>::encode(&page).unwrap();
        assert_eq!(<JsonWire as Decodes<Page>>::decode(reply).unwrap(), page, "a reply carries the HTML");
        let in_page = <JsonWire as codee::Encoder<Page>>::encode(&page).unwrap();
        assert_eq!(in_page, r#"{"count":3,"body":""}"#, "hydration data leaves it to the page's own HTML");
        // The flag is only up while page data is written: the next reply carries the HTML again.
        assert!(to_json(&page).unwrap().contains("figures"));
    }

    #[test]
    fn a_reply_that_is_not_json_or_not_utf8_is_refused_in_words() {
        let error = <JsonWire as Decodes<Reply>>::decode(Bytes::from_static(b"<html>")).unwrap_err();
        assert!(error.to_string().contains("expected value"), "{error}");
        let error = <JsonWire as Decodes<Reply>>::decode(Bytes::from_static(b"\xff")).unwrap_err();
        assert!(error.to_string().starts_with("the JSON is not UTF-8"), "{error}");
    }
}
