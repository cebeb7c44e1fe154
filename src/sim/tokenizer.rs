//! The simulator's own tokenizer and chat template: deterministic, reversible and cheap, so that tests and
//! workloads know exactly how many tokens a text is, and a conversation's tokens are stable from one turn to the
//! next (its prefix cache depends on that).
//!
//! A token is a piece of at most 4 bytes of UTF-8 that never splits a character; whitespace always starts a new
//! piece (`" lorem"` is `" lor"`, `"em"`). A token's id is its bytes read little-endian, zero-padded: the text has
//! no NUL bytes (prompts refuse them), so an id's low byte is never 0 and every id decodes back to its piece.
//!
//! The chat template adds one token per message (its role, before its content) and one to start the answer (the
//! assistant's role), as a real template adds a few fixed tokens per message.

/// Bytes of one token at most.
const PIECE_BYTES: usize = 4;

/// The ids of `text`.
pub fn tokenize(text: &str) -> Vec<u32> {
    pieces(text).map(piece_id).collect()
}

/// How many tokens `text` is.
pub fn count(text: &str) -> usize {
    pieces(text).count()
}

/// `text` cut into its pieces (their concatenation is `text`).
pub fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let mut end = first.len_utf8();
        for (at, c) in chars {
            if c.is_whitespace() || at + c.len_utf8() > PIECE_BYTES {
                break;
            }
            end = at + c.len_utf8();
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

fn piece_id(piece: &str) -> u32 {
    let mut bytes = [0u8; 4];
    bytes[..piece.len()].copy_from_slice(piece.as_bytes());
    u32::from_le_bytes(bytes)
}

/// An id that is not one of this tokenizer's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("token {0} is not a token of the simulator's vocabulary")]
pub struct UnknownToken(pub u32);

/// The text of `ids`.
pub fn detokenize(ids: &[u32]) -> Result<String, UnknownToken> {
    let mut text = String::with_capacity(ids.len() * 3);
    for &id in ids {
        let bytes = id.to_le_bytes();
        let len = bytes.iter().rposition(|&b| b != 0).map_or(0, |last| last + 1);
        let piece = std::str::from_utf8(&bytes[..len]).map_err(|_| UnknownToken(id))?;
        // A piece that would not come out of `pieces` again (empty, or two pieces in one id) is no token.
        if len == 0 || bytes[..len].contains(&0) || pieces(piece).count() != 1 {
            return Err(UnknownToken(id));
        }
        text.push_str(piece);
    }
    Ok(text)
}

/// The template's token before a message of `role`: its low byte is 0, so no text token has its id.
fn role_token(role: &str) -> u32 {
    let code = role.bytes().fold(0u32, |hash, b| hash.wrapping_mul(31).wrapping_add(u32::from(b)));
    (code | 1) << 8
}

/// The tokens of the prompt of a conversation as the simulator's model sees them: each message's role token and
/// content, in order, then the assistant's role token that starts the answer (as ChatML's generation prompt does).
/// Its length is the prompt's `usage.prompt_tokens`.
pub fn prompt<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<u32> {
    let mut tokens = Vec::new();
    for (role, content) in messages {
        tokens.push(role_token(role));
        tokens.extend(pieces(content).map(piece_id));
    }
    tokens.push(role_token("assistant"));
    tokens
}

/// A prompt followed by its answer: what a server keeps in its cache after answering, and the start of the next
/// turn's prompt, which sends the answer back as an assistant message.
pub fn with_answer(mut prompt: Vec<u32>, answer: &str) -> Vec<u32> {
    prompt.extend(pieces(answer).map(piece_id));
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_at_most_four_bytes_start_at_whitespace_and_join_back() {
        let cases: &[(&str, &[&str])] = &[
            (" lorem ipsum", &[" lor", "em", " ips", "um"]),
            ("a  b", &["a", " ", " b"]),
            ("héllo", &["hél", "lo"]),
            ("日本語", &["日", "本", "語"]),
            ("\n\nx", &["\n", "\nx"]),
            ("", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(pieces(text).collect::<Vec<_>>(), *expected, "{text:?}");
            assert_eq!(count(text), expected.len());
            assert_eq!(detokenize(&tokenize(text)).unwrap(), *text);
        }
    }

    #[test]
    fn ids_that_are_no_piece_are_refused() {
        assert_eq!(detokenize(&[0]), Err(UnknownToken(0)));
        assert_eq!(detokenize(&[0xFF]), Err(UnknownToken(0xFF)), "not UTF-8");
        let two_pieces = u32::from_le_bytes(*b"a b\0");
        assert_eq!(detokenize(&[two_pieces]), Err(UnknownToken(two_pieces)));
        assert_eq!(detokenize(&[role_token("user")]), Err(UnknownToken(role_token("user"))));
    }

    #[test]
    fn a_prompt_counts_one_token_per_message_and_one_to_start_the_answer() {
        let tokens = prompt([("system", "be brief"), ("user", " lorem ipsum")]);
        assert_eq!(tokens.len(), 1 + 3 + 1 + 4 + 1, "be brief = be, ' bri', ef");
        assert_ne!(role_token("system"), role_token("user"));
    }

    #[test]
    fn the_next_turn_begins_with_the_previous_turn_and_its_answer() {
        let kept = with_answer(prompt([("user", "hello there")]), "lorem ipsum");
        let next = prompt([("user", "hello there"), ("assistant", "lorem ipsum"), ("user", "and more")]);
        assert_eq!(next[..kept.len()], kept[..]);
    }
}
