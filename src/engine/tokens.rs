//! The tokens of a text, kept compact, and a server's `/tokenize` answer read straight into them. A JSON tree of
//! an answer took about 75 times the answer's size (a 30 MiB answer, 2.3 GB); here each token is its id and, when
//! the server spelled it, where its piece ends in one buffer of all the pieces' bytes: 8 bytes a token and the text
//! once. The reader refuses an answer with more tokens than the text it was asked about had bytes, since no
//! tokenizer makes more (even byte fallback makes one token a byte).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The tokens of a text: their ids and, when every token came with its piece, the pieces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    ids: Vec<u32>,
    /// The pieces' bytes back to back; `None` once a token came without its piece.
    spelled: Option<Vec<u8>>,
    /// Where each token's piece ends in `spelled`.
    ends: Vec<u32>,
}

impl Tokens {
    /// Tokens known by their ids only (the text is made by decoding them).
    pub fn from_ids(ids: Vec<u32>) -> Self {
        Self { ids, spelled: None, ends: Vec::new() }
    }

    /// An empty list that will be given pieces.
    pub fn with_pieces() -> Self {
        Self { ids: Vec::new(), spelled: Some(Vec::new()), ends: Vec::new() }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// None at all.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Their ids, in order.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Every token came with its piece.
    pub fn has_pieces(&self) -> bool {
        self.spelled.is_some()
    }

    /// The pieces' bytes back to back and where each ends, when every token came with its piece.
    pub fn pieces(&self) -> Option<(&[u8], &[u32])> {
        self.spelled.as_deref().map(|spelled| (spelled, self.ends.as_slice()))
    }

    /// Adds a token; `piece` is its bytes, `None` when the server gave none (then no token keeps its piece).
    pub fn push(&mut self, id: u32, piece: Option<&[u8]>) {
        self.ids.push(id);
        match (self.spelled.as_mut(), piece) {
            (Some(spelled), Some(piece)) => {
                spelled.extend_from_slice(piece);
                self.ends.push(u32::try_from(spelled.len()).unwrap_or(u32::MAX));
            }
            (Some(_), None) => {
                self.spelled = None;
                self.ends = Vec::new();
            }
            (None, _) => {}
        }
    }

    /// Adds `bytes` to the last token's piece (a tokenizer whose offsets leave text after the last token).
    pub fn extend_last_piece(&mut self, bytes: &[u8]) {
        if let (Some(spelled), Some(end)) = (self.spelled.as_mut(), self.ends.last_mut()) {
            spelled.extend_from_slice(bytes);
            *end = u32::try_from(spelled.len()).unwrap_or(u32::MAX);
        }
    }
}

/// Why an answer is not a list of tokens, in words.
pub type NotTokens = String;

/// Reads `{"tokens": [...]}` — ids (vLLM's, SGLang's) or `{"id", "piece"}` objects (llama.cpp's, a piece as text or
/// as its bytes) — into [`Tokens`], refusing more than `most` tokens, an id over `u32::MAX`, and any other shape.
pub fn read_tokens(answer: &[u8], most: usize) -> Result<Tokens, NotTokens> {
    let mut reader = serde_json::Deserializer::from_slice(answer);
    let tokens = AnswerSeed { most }.deserialize(&mut reader).map_err(|e| e.to_string())?;
    reader.end().map_err(|e| e.to_string())?;
    Ok(tokens)
}

/// The whole answer: an object whose `tokens` is read; other fields (vLLM's `count`, `max_model_len`) skipped.
struct AnswerSeed {
    most: usize,
}

impl<'de> DeserializeSeed<'de> for AnswerSeed {
    type Value = Tokens;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tokens, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AnswerSeed {
    type Value = Tokens;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with a list of tokens")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tokens, A::Error> {
        let mut tokens = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "tokens" && tokens.is_none() {
                tokens = Some(map.next_value_seed(ListSeed { most: self.most })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        tokens.ok_or_else(|| de::Error::missing_field("tokens"))
    }
}

/// The list of tokens.
struct ListSeed {
    most: usize,
}

impl<'de> DeserializeSeed<'de> for ListSeed {
    type Value = Tokens;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tokens, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ListSeed {
    type Value = Tokens;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of tokens")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tokens, A::Error> {
        let mut tokens = Tokens::with_pieces();
        let mut piece = Vec::new();
        while let Some(id) = seq.next_element_seed(TokenSeed { piece: &mut piece })? {
            if tokens.len() == self.most {
                return Err(de::Error::custom(format!(
                    "more tokens than the {} bytes of text sent, which no tokenizer makes",
                    self.most
                )));
            }
            tokens.push(id.id, id.spelled.then_some(piece.as_slice()));
            piece.clear();
        }
        Ok(tokens)
    }
}

/// One token read: its id, and whether its piece was given (its bytes are in the seed's buffer).
struct ReadToken {
    id: u32,
    spelled: bool,
}

/// One token: an id, or `{"id", "piece"}` whose piece goes into `piece`.
struct TokenSeed<'p> {
    piece: &'p mut Vec<u8>,
}

fn id_of<E: de::Error>(id: u64) -> Result<u32, E> {
    u32::try_from(id).map_err(|_| E::custom(format!("token id {id} is beyond any vocabulary")))
}

impl<'de> DeserializeSeed<'de> for TokenSeed<'_> {
    type Value = ReadToken;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ReadToken, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TokenSeed<'_> {
    type Value = ReadToken;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a token id or an object with its id and piece")
    }

    fn visit_u64<E: de::Error>(self, id: u64) -> Result<ReadToken, E> {
        Ok(ReadToken { id: id_of(id)?, spelled: false })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ReadToken, A::Error> {
        let (mut id, mut spelled) = (None, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "id" if id.is_none() => id = Some(id_of(map.next_value::<u64>()?)?),
                "piece" if !spelled => {
                    map.next_value_seed(PieceSeed { piece: &mut *self.piece })?;
                    spelled = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        Ok(ReadToken { id, spelled })
    }
}

/// A piece: its text, or (llama.cpp, for a piece that is not UTF-8 alone) its bytes as numbers.
struct PieceSeed<'p> {
    piece: &'p mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for PieceSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PieceSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a piece's text or bytes")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        self.piece.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(byte) = seq.next_element::<u8>()? {
            self.piece.push(byte);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_read_into_ids_and_pieces() {
        let llama = br#"{"tokens": [{"id": 9906, "piece": "Hel"}, {"piece": [108, 111], "id": 385}, {"id": 1917, "piece": " world"}]}"#;
        let tokens = read_tokens(llama, 11).unwrap();
        assert_eq!(tokens.ids(), [9906, 385, 1917]);
        assert_eq!(tokens.pieces(), Some((&b"Hello world"[..], &[3, 5, 11][..])));
        let vllm = br#"{"count": 3, "max_model_len": 8192, "tokens": [9906, 385, 1917]}"#;
        let tokens = read_tokens(vllm, 11).unwrap();
        assert_eq!((tokens.ids(), tokens.pieces()), (&[9906, 385, 1917][..], None));
        let mixed = br#"{"tokens": [{"id": 1, "piece": "a"}, 2]}"#;
        assert_eq!(read_tokens(mixed, 2).unwrap().pieces(), None, "one token without its piece: ids only");
    }

    #[test]
    fn more_tokens_than_bytes_sent_or_another_shape_is_refused() {
        let many = format!("{{\"tokens\": [{}]}}", ["1"; 12].join(","));
        assert!(read_tokens(many.as_bytes(), 12).is_ok());
        let refused = read_tokens(many.as_bytes(), 11).unwrap_err();
        assert!(refused.contains("more tokens than the 11 bytes of text sent"), "{refused}");
        for (answer, says) in [
            (&br#"{"tokens": [4294967296]}"#[..], "beyond any vocabulary"),
            (br#"{"tokens": [-1]}"#, "a token id"),
            (br#"{"tokens": [{"piece": "a"}]}"#, "missing field `id`"),
            (br#"{"tokens": {"id": 1}}"#, "a list of tokens"),
            (br#"{"count": 1}"#, "missing field `tokens`"),
            (br#"[1, 2]"#, "an object with a list of tokens"),
            (br#"{"tokens": [1]} trailing"#, "trailing characters"),
            (br#"{"tokens": [{"id": 1, "piece": 7}]}"#, "a piece's text or bytes"),
        ] {
            let refused = read_tokens(answer, 100).unwrap_err();
            assert!(refused.contains(says), "{}: {refused}", String::from_utf8_lossy(answer));
        }
    }

    #[test]
    fn a_million_tokens_take_about_eight_bytes_each_and_the_text_once() {
        let answer = format!("{{\"tokens\": [{}]}}", vec![r#"{"id": 7, "piece": "ab"}"#; 1_000_000].join(","));
        let tokens = read_tokens(answer.as_bytes(), 2_000_000).unwrap();
        assert_eq!(tokens.len(), 1_000_000);
        let (spelled, ends) = tokens.pieces().unwrap();
        assert_eq!((spelled.len(), ends.last().copied()), (2_000_000, Some(2_000_000)));
    }
}
