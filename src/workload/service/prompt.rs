//! A prompt of an exact number of tokens, by the server's own tokenizer: the corpus text of a request's seed is
//! tokenized once, cut after the asked number of tokens (at the end of that token's piece in the text, or, from a
//! server that gives ids only, by turning those ids back into text), and the cut is counted again, since text cut
//! at a token boundary can tokenize differently at its new end. A count off by a few moves the cut by as many
//! tokens, a few times at most; the closest cut is kept and its own count is what the request records.

use super::choice::Tokenizer;
use super::corpus::CorpusText;
use crate::engine::TokenizeError;
use crate::engine::Tokens;

/// Corrections of a cut before the closest one is kept.
const MAX_CORRECTIONS: usize = 4;
/// Bytes of corpus text a token is first guessed to take (English averages about 4 with today's tokenizers; a
/// tokenizer of single characters, 1): more text than needed is cut, too little is grown.
const BYTES_PER_TOKEN_GUESS: usize = 6;

/// Doublings of the text when the first guess held too few tokens (a tokenizer taking more than 6 × 2⁶ bytes a
/// token is not counting tokens).
const MAX_GROWTHS: usize = 6;

/// A prompt made to a length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MadePrompt {
    /// The text.
    pub text: String,
    /// Its tokens, as the tokenizer counted the text (the asked number, unless no cut could give it).
    pub tokens: usize,
}

/// The text of the corpus of `seed`, `tokens` tokens long by `tokenizer`.
pub async fn exact_prompt(tokenizer: &Tokenizer, tokens: u32, seed: u64) -> Result<MadePrompt, TokenizeError> {
    exact_prompt_after(tokenizer, "", 0, tokens, seed).await
}

/// `prefix` (about `prefix_tokens` tokens), a space and the text of the corpus of `seed`, `tokens` tokens long in
/// all by `tokenizer`. Only the new text is tokenized to place its cut (a prefix made by [`exact_prompt`] of P
/// tokens stays those P tokens: tokenizers split words at spaces), and each cut is counted whole, so a long shared
/// prefix is not tokenized, piece by piece, again for every request that starts with it.
pub async fn exact_prompt_after(
    tokenizer: &Tokenizer,
    prefix: &str,
    prefix_tokens: usize,
    tokens: u32,
    seed: u64,
) -> Result<MadePrompt, TokenizeError> {
    let want = tokens.max(1) as usize;
    let want_after = want.saturating_sub(prefix_tokens).max(1);
    let mut corpus = CorpusText::new(seed);
    let mut text = if prefix.is_empty() { String::new() } else { " ".to_string() };
    text.push_str(&corpus.take_chars(want_after * BYTES_PER_TOKEN_GUESS + 32));
    let mut tokenized = tokenizer.tokenize(&text).await?;
    let mut grown = 0;
    while tokenized.len() <= want_after {
        grown += 1;
        if grown > MAX_GROWTHS {
            let detail = format!("{} tokens counted in {} bytes of text", tokenized.len(), text.len());
            return Err(TokenizeError::NotTokens { path: "tokenize", detail });
        }
        let more = corpus.take_chars(text.len());
        text.push_str(&more);
        tokenized = tokenizer.tokenize(&text).await?;
    }
    let spelled = Spelled::check(&text, &tokenized);
    let mut cut = want_after;
    let mut best: Option<MadePrompt> = None;
    for _ in 0..=MAX_CORRECTIONS {
        let mut candidate = String::with_capacity(prefix.len() + text.len());
        candidate.push_str(prefix);
        match spelled.as_ref().and_then(|spelled| spelled.end_of(cut - 1)) {
            Some(end) => candidate.push_str(&text[..end]),
            None => candidate.push_str(&tokenizer.detokenize(&tokenized.ids()[..cut]).await?),
        }
        let counted = tokenizer.count(&candidate).await?;
        let made = MadePrompt { text: candidate, tokens: counted };
        let exact = counted == want;
        if best.as_ref().is_none_or(|b| closer(&made, b, want)) {
            best = Some(made);
        }
        if exact {
            break;
        }
        let next = (cut + want).saturating_sub(counted).clamp(1, tokenized.len());
        if next == cut {
            break;
        }
        cut = next;
    }
    Ok(best.unwrap_or(MadePrompt { text: String::new(), tokens: 0 }))
}

/// Whether `a` is closer to `want` tokens than `b` (a tie goes to the shorter one).
fn closer(a: &MadePrompt, b: &MadePrompt, want: usize) -> bool {
    let off = |p: &MadePrompt| (p.tokens.abs_diff(want), p.tokens);
    off(a) < off(b)
}

/// Where each token's piece ends in a text the pieces spell (or spell after the one space that SentencePiece
/// tokenizers add before a text, as their own first piece): read from the tokens as a cut needs it, not copied.
struct Spelled<'a> {
    text: &'a str,
    ends: &'a [u32],
    added: usize,
}

impl<'a> Spelled<'a> {
    /// `None` when the pieces do not spell `text` (or there are none): the text is then made from the ids.
    fn check(text: &'a str, tokens: &'a Tokens) -> Option<Self> {
        let (spelled, ends) = tokens.pieces()?;
        let added = if spelled == text.as_bytes() {
            0
        } else if spelled.first() == Some(&b' ') && &spelled[1..] == text.as_bytes() {
            1
        } else {
            return None;
        };
        Some(Self { text, ends, added })
    }

    /// Where token `index`'s piece ends in the text; `None` when that is inside a character (the cut is then made
    /// from the ids).
    fn end_of(&self, index: usize) -> Option<usize> {
        let end = (*self.ends.get(index)? as usize).saturating_sub(self.added);
        self.text.is_char_boundary(end).then_some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens spelled by `pieces`, each its own id.
    fn spelled(pieces: &[&[u8]]) -> Tokens {
        let mut tokens = Tokens::with_pieces();
        for (id, piece) in (0..).zip(pieces) {
            tokens.push(id, Some(piece));
        }
        tokens
    }

    /// Where each token ends in `text`, as a cut finds it (`None`: made from the ids).
    fn piece_ends(text: &str, tokens: &Tokens) -> Option<Vec<Option<usize>>> {
        let spelled = Spelled::check(text, tokens)?;
        Some((0..tokens.len()).map(|i| spelled.end_of(i)).collect())
    }

    #[test]
    fn pieces_place_each_token_in_the_text() {
        let ends = piece_ends("Hello world", &spelled(&[b"Hel", b"lo", b" world"]));
        assert_eq!(ends, Some(vec![Some(3), Some(5), Some(11)]));
        let with_added_space = spelled(&[b" ", b"Hel", b"lo"]);
        let ends = piece_ends("Hello", &with_added_space);
        assert_eq!(ends, Some(vec![Some(0), Some(3), Some(5)]), "SentencePiece's leading space");
        assert_eq!(piece_ends("Hello", &spelled(&[b"Hel", b"p"])), None, "pieces that spell another text");
        assert_eq!(piece_ends("Hello", &Tokens::from_ids(vec![1])), None, "ids only");
        let split_character = piece_ends("é", &spelled(&[&[0xC3], &[0xA9]]));
        assert_eq!(split_character, Some(vec![None, Some(2)]), "a cut inside a character is made from the ids");
    }

    #[test]
    fn the_closest_count_wins_and_a_tie_goes_to_the_shorter() {
        let made = |tokens| MadePrompt { text: String::new(), tokens };
        assert!(closer(&made(99), &made(97), 100));
        assert!(closer(&made(99), &made(101), 100));
        assert!(!closer(&made(101), &made(99), 100));
    }
}
