//! What one SSE event of a chat-completions stream means for measurement: content or reasoning arrived, the
//! stream finished, usage was reported, or the server signalled an error after its 200.

use serde::Deserialize;

use std::borrow::Cow;

use super::sse::SseEventRef;
use crate::model::EngineTimings;

/// Token counts as the server reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Output tokens (reasoning included, as providers count them).
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// Input tokens the server served from its prefix cache (`prompt_tokens_details.cached_tokens`, as OpenAI,
    /// vLLM and recent llama.cpp report it); a details object of another shape is ignored, never an error.
    #[serde(default, rename = "prompt_tokens_details", deserialize_with = "cached_tokens_of")]
    pub cached_tokens: Option<u64>,
}

fn cached_tokens_of<'de, D: serde::Deserializer<'de>>(details: D) -> Result<Option<u64>, D::Error> {
    let details = serde_json::Value::deserialize(details)?;
    Ok(details.get("cached_tokens").and_then(serde_json::Value::as_u64))
}

/// The measurement-relevant content of one event, borrowed from the event where the JSON allows (a string
/// with no escapes in it), so a chunk costs no allocation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkInfo<'a> {
    /// Characters of non-empty `choices[0].delta.content` (0: this chunk carries no answer text).
    pub content_chars: usize,
    /// That text.
    pub content: Option<Cow<'a, str>>,
    /// Characters of non-empty `delta.reasoning` / `delta.reasoning_content`.
    pub reasoning_chars: usize,
    /// `choices[0].finish_reason`, when set.
    pub finish_reason: Option<Cow<'a, str>>,
    /// `usage`, when present and not null (final chunk, or running usage on some servers).
    pub usage: Option<Usage>,
    /// The server's own send time of this chunk (`delta.sim_us`, unix µs), which latency-guard's simulator adds
    /// so that measurement overhead can be computed; real endpoints do not send it.
    pub server_sent_us: Option<u64>,
    /// The server's own timings of the request (llama.cpp's `timings`, on the last chunk).
    pub engine_timings: Option<EngineTimings>,
    /// The chunk's `model` and `system_fingerprint`: what answered, as the first chunk says it.
    pub identity: Identity<'a>,
}

/// What a reply says answered it, in its own words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity<'a> {
    /// `model`.
    pub model: Option<Cow<'a, str>>,
    /// `system_fingerprint`.
    pub system_fingerprint: Option<Cow<'a, str>>,
}

/// One interpreted event.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "made and consumed on the stack once per event, never stored: boxing the chunk would allocate per chunk"
)]
pub enum StreamItem<'a> {
    /// `data: [DONE]`.
    Done,
    /// A chunk.
    Chunk(ChunkInfo<'a>),
    /// The server reported an error inside the stream (`event: error`, or an `error` object in the data).
    Error(String),
    /// The data is not the JSON of a chunk.
    Malformed(String),
}

/// A body in the chat-completions shape: a streamed chunk (choices with a `delta`) or a whole unstreamed
/// completion (choices with a `message`); both may carry usage, an error object and llama.cpp's `timings`.
/// Of the choices only the one with index 0 is kept (the benchmark asks for one completion), without
/// collecting the others.
#[derive(Deserialize)]
#[serde(bound(deserialize = "Choice: Deserialize<'de> + Indexed"))]
pub(super) struct RawBody<'a, Choice> {
    #[serde(default, rename = "choices")]
    pub(super) choice: ChoiceZero<Choice>,
    #[serde(default)]
    pub(super) usage: Option<Usage>,
    #[serde(default)]
    pub(super) error: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) timings: Option<serde_json::Value>,
    #[serde(default, borrow, deserialize_with = "loose_text")]
    pub(super) model: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "loose_text")]
    pub(super) system_fingerprint: Option<Cow<'a, str>>,
}

/// A choice's position among `choices`.
pub(super) trait Indexed {
    fn index(&self) -> u32;
}

/// The choice with index 0 of a `choices` array, if it has one.
pub(super) struct ChoiceZero<Choice>(pub(super) Option<Choice>);

impl<Choice> Default for ChoiceZero<Choice> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, Choice: Deserialize<'de> + Indexed> Deserialize<'de> for ChoiceZero<Choice> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Choices<Choice>(std::marker::PhantomData<Choice>);
        impl<'de, Choice: Deserialize<'de> + Indexed> serde::de::Visitor<'de> for Choices<Choice> {
            type Value = ChoiceZero<Choice>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of choices")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut choices: A) -> Result<Self::Value, A::Error> {
                let mut zero = None;
                while let Some(choice) = choices.next_element::<Choice>()? {
                    if zero.is_none() && choice.index() == 0 {
                        zero = Some(choice);
                    }
                }
                Ok(ChoiceZero(zero))
            }
        }
        deserializer.deserialize_seq(Choices(std::marker::PhantomData))
    }
}

/// A JSON string or null, borrowed from the input when it holds no escapes; another value is malformed.
fn text<'de: 'a, 'a, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    deserializer.deserialize_any(Text { loose: false })
}

/// The same, but any other value reads as absent: for what a reply says answered it, reported when it is text and
/// never a reason to refuse the chunk that carries it.
fn loose_text<'de: 'a, 'a, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    deserializer.deserialize_any(Text { loose: true })
}

/// Reads text (or null); `loose` reads any other value as absent instead of refusing it.
struct Text {
    loose: bool,
}

impl Text {
    fn other<E: serde::de::Error>(
        &self,
        unexpected: serde::de::Unexpected<'_>,
    ) -> Result<Option<Cow<'static, str>>, E> {
        match self.loose {
            true => Ok(None),
            false => Err(E::invalid_type(unexpected, self)),
        }
    }
}

impl<'de> serde::de::Visitor<'de> for Text {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string or null")
    }
    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(text)))
    }
    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(text.to_string())))
    }
    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(text)))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Self::Value, E> {
        self.other(serde::de::Unexpected::Bool(value))
    }
    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Self::Value, E> {
        self.other(serde::de::Unexpected::Signed(value))
    }
    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Self::Value, E> {
        self.other(serde::de::Unexpected::Unsigned(value))
    }
    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Self::Value, E> {
        self.other(serde::de::Unexpected::Float(value))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        if self.loose {
            while items.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        }
        self.other(serde::de::Unexpected::Seq)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
        if self.loose {
            while entries.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
        }
        self.other(serde::de::Unexpected::Map)
    }
}

type RawChunk<'a> = RawBody<'a, RawChoice<'a>>;

#[derive(Deserialize)]
struct RawChoice<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    delta: Option<RawDelta<'a>>,
    #[serde(default, borrow, deserialize_with = "text")]
    finish_reason: Option<Cow<'a, str>>,
}

impl Indexed for RawChoice<'_> {
    fn index(&self) -> u32 {
        self.index
    }
}

/// The text of a streamed `delta` or a non-streamed `message`: the same fields in both shapes.
#[derive(Deserialize)]
pub(super) struct RawDelta<'a> {
    #[serde(default, borrow, deserialize_with = "text")]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default)]
    sim_us: Option<u64>,
}

impl<'a> RawDelta<'a> {
    /// The answer's text, moved out.
    pub(super) fn take_content(&mut self) -> Option<Cow<'a, str>> {
        self.content.take()
    }

    /// Characters of answer text.
    pub(super) fn content_chars(&self) -> usize {
        self.content.as_deref().map_or(0, |c| c.chars().count())
    }

    /// Characters of reasoning (`reasoning`, or the older `reasoning_content`).
    pub(super) fn reasoning_chars(&self) -> usize {
        self.reasoning.as_deref().or(self.reasoning_content.as_deref()).map_or(0, |r| r.chars().count())
    }
}

/// The message of an `error` value: `{"message": …}` or a bare string, else the JSON itself. Whole: the engine
/// scrubs secrets from it before cutting it to length.
fn error_message(error: &serde_json::Value) -> String {
    error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
        .or_else(|| error.as_str().map(str::to_string))
        .unwrap_or_else(|| error.to_string())
}

/// Interprets one event. Only choice 0 counts (the benchmark asks for one completion).
pub fn interpret(event: SseEventRef<'_>) -> StreamItem<'_> {
    let data = event.data.trim();
    if event.event == Some("error") {
        let detail = serde_json::from_str::<serde_json::Value>(data)
            .ok()
            .map(|v| v.get("error").map_or_else(|| error_message(&v), error_message))
            .unwrap_or_else(|| data.to_string());
        return StreamItem::Error(detail);
    }
    if data == "[DONE]" {
        return StreamItem::Done;
    }
    let raw: RawChunk<'_> = match serde_json::from_str(data) {
        Ok(raw) => raw,
        Err(e) => return StreamItem::Malformed(format!("{e}: {data}")),
    };
    if let Some(error) = raw.error.filter(|e| !e.is_null()) {
        return StreamItem::Error(error_message(&error));
    }
    let mut info = ChunkInfo {
        usage: raw.usage,
        engine_timings: raw.timings.as_ref().and_then(EngineTimings::from_llama_cpp),
        identity: Identity { model: raw.model, system_fingerprint: raw.system_fingerprint },
        ..ChunkInfo::default()
    };
    if let Some(choice) = raw.choice.0 {
        info.finish_reason = choice.finish_reason;
        if let Some(delta) = choice.delta {
            info.content_chars = delta.content_chars();
            info.reasoning_chars = delta.reasoning_chars();
            info.server_sent_us = delta.sim_us;
            info.content = delta.content;
        }
    }
    StreamItem::Chunk(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(data: &str) -> StreamItem<'_> {
        interpret(SseEventRef { event: None, data })
    }

    fn chunk(data: &str) -> ChunkInfo<'_> {
        match item(data) {
            StreamItem::Chunk(info) => info,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn role_only_and_empty_deltas_carry_no_content() {
        assert_eq!(chunk(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#).content_chars, 0);
        assert_eq!(chunk(r#"{"choices":[{"index":0,"delta":{}}]}"#).content_chars, 0);
        assert_eq!(chunk(r#"{"choices":[]}"#), ChunkInfo::default(), "Azure's prompt-filter chunk");
        assert_eq!(
            chunk(r#"{"choices":[{"index":0,"content_filter_offsets":{}}]}"#).content_chars,
            0,
            "no delta at all"
        );
    }

    #[test]
    fn content_reasoning_finish_and_usage_are_read() {
        let c = chunk(r#"{"choices":[{"index":0,"delta":{"content":"Hé "}}]}"#);
        assert_eq!(c.content_chars, 3);
        assert_eq!(chunk(r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}"#).reasoning_chars, 5);
        assert_eq!(chunk(r#"{"choices":[{"index":0,"delta":{"reasoning":"hm"}}]}"#).reasoning_chars, 2);
        assert_eq!(
            chunk(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#).finish_reason.as_deref(),
            Some("length")
        );
        let usage = chunk(r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":40,"total_tokens":52}}"#)
            .usage
            .unwrap();
        assert_eq!((usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens), (Some(12), Some(40), None));
        let cached = r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":8}}}"#;
        assert_eq!(chunk(cached).usage.unwrap().cached_tokens, Some(8));
        for odd in [r#""soon""#, "null", r#"{"cached_tokens":-1}"#, r#"{"audio_tokens":0}"#] {
            let body = format!(r#"{{"choices":[],"usage":{{"prompt_tokens":3,"prompt_tokens_details":{odd}}}}}"#);
            let usage = chunk(&body).usage.unwrap_or_else(|| panic!("{odd}: usage lost"));
            assert_eq!((usage.prompt_tokens, usage.cached_tokens), (Some(3), None), "{odd}");
        }
        assert_eq!(chunk(r#"{"choices":[],"usage":null}"#).usage, None);
    }

    #[test]
    fn llama_cpps_timings_on_the_last_chunk_are_kept() {
        let last = chunk(
            r#"{"choices":[],"usage":{"completion_tokens":24,"prompt_tokens":9},"timings":{"prompt_n":9,"prompt_ms":4.5,"predicted_n":24,"predicted_ms":30.25,"draft_n":40,"draft_n_accepted":21}}"#,
        );
        let timings = last.engine_timings.unwrap();
        assert_eq!((timings.prompt_ms, timings.draft_tokens, timings.draft_accepted), (Some(4.5), 40, 21));
        assert_eq!(chunk(r#"{"choices":[],"timings":"soon"}"#).engine_timings, None);
    }

    #[test]
    fn only_choice_zero_counts_wherever_it_stands() {
        assert_eq!(chunk(r#"{"choices":[{"index":1,"delta":{"content":"other"}}]}"#).content_chars, 0);
        let second =
            chunk(r#"{"choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"}}]}"#);
        assert_eq!(second.content.as_deref(), Some("mine"));
    }

    #[test]
    fn text_is_borrowed_from_the_event_unless_it_holds_escapes() {
        let plain = chunk(
            r#"{"model":"m-1","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hé"},"finish_reason":"stop"}]}"#,
        );
        assert!(matches!(plain.content, Some(Cow::Borrowed("Hé"))), "{plain:?}");
        assert!(matches!(plain.finish_reason, Some(Cow::Borrowed("stop"))));
        assert_eq!(plain.identity.model.as_deref(), Some("m-1"));
        assert_eq!(plain.identity.system_fingerprint.as_deref(), Some("fp"));
        let escaped = chunk(r#"{"choices":[{"index":0,"delta":{"content":"a\n\"b\" \u00e9"}}]}"#);
        assert_eq!(escaped.content.as_deref(), Some("a\n\"b\" é"));
        assert_eq!(escaped.content_chars, 7);
        assert_eq!(chunk(r#"{"model":null,"choices":[{"index":0,"delta":{"content":null}}]}"#), ChunkInfo::default());
        for odd in ["7", "true", "[1,{}]", r#"{"name":"m"}"#, "1.5"] {
            let body = format!(
                r#"{{"model":{odd},"system_fingerprint":{odd},"choices":[{{"index":0,"delta":{{"content":"a"}}}}]}}"#
            );
            let read = chunk(&body);
            assert_eq!(
                (read.content_chars, read.identity),
                (1, Identity::default()),
                "a model of {odd} is not text: absent"
            );
        }
        assert!(matches!(item(r#"{"choices":[{"index":0,"delta":{"content":7}}]}"#), StreamItem::Malformed(_)));
        assert!(matches!(item(r#"{"choices":{"index":0}}"#), StreamItem::Malformed(_)), "choices must be an array");
    }

    #[test]
    fn mid_stream_errors_in_every_known_shape() {
        // vLLM / llama.cpp / TGI: an `error` object in the data.
        assert_eq!(
            item(r#"{"error":{"message":"boom","type":"server_error","code":500}}"#),
            StreamItem::Error("boom".into())
        );
        // OpenRouter: a regular chunk with a top-level error.
        let openrouter = r#"{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"code":502,"message":"Network connection lost."}}"#;
        assert_eq!(item(openrouter), StreamItem::Error("Network connection lost.".into()));
        // Anthropic-style named event.
        let named = interpret(SseEventRef {
            event: Some("error"),
            data: r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        });
        assert_eq!(named, StreamItem::Error("Overloaded".into()));
        assert_eq!(item(r#"{"error":null,"choices":[]}"#), StreamItem::Chunk(ChunkInfo::default()));
    }

    #[test]
    fn done_and_garbage() {
        assert_eq!(item("[DONE]"), StreamItem::Done);
        assert!(matches!(item("{\"choices\": [tru"), StreamItem::Malformed(_)));
        assert!(matches!(item("<html>"), StreamItem::Malformed(_)));
    }
}
