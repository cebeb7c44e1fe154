//! A text as an echo means it: escapes decoded (percent-encoding, `\uXXXX` and `\xXX`, JSON's backslash escapes,
//! HTML character references) and line breaks left out, each character remembering which bytes of the original
//! text it came from, so that what is found in the decoded text can be cut from the original.

/// The decoded characters and, for each, the byte range of the original text it came from.
pub(super) struct Decoded {
    /// As decoded.
    pub chars: Vec<char>,
    /// The same, ASCII letters in lower case (one character for one: the ranges still hold).
    pub folded: Vec<char>,
    /// `spans[i]` is where `chars[i]` was in the original text.
    pub spans: Vec<(usize, usize)>,
}

/// Decodes `text` once (an escape inside an escape is left as the inner one reads).
pub(super) fn decode(text: &str) -> Decoded {
    let bytes = text.as_bytes();
    let mut decoded = Decoded { chars: Vec::new(), folded: Vec::new(), spans: Vec::new() };
    let mut at = 0;
    while at < bytes.len() {
        let (decoded_char, len) = match bytes[at] {
            // A line break inside a secret (a wrapped header, a folded base64 body) hides nothing.
            b'\n' | b'\r' => (None, 1),
            b'%' => match hex_value(&bytes[at + 1..], 2) {
                Some(byte) => (char::from_u32(byte), 3),
                None => (Some('%'), 1),
            },
            b'\\' => backslash_escape(&bytes[at + 1..]),
            b'&' => character_reference(&text[at + 1..]),
            _ => {
                let c = text[at..].chars().next().unwrap_or('\u{fffd}');
                (Some(c), c.len_utf8())
            }
        };
        if let Some(c) = decoded_char {
            decoded.chars.push(c);
            decoded.folded.push(c.to_ascii_lowercase());
            decoded.spans.push((at, at + len));
        }
        at += len;
    }
    decoded
}

/// The value of the first `digits` bytes of `bytes` read as hexadecimal, when they all are hex digits.
fn hex_value(bytes: &[u8], digits: usize) -> Option<u32> {
    let text = std::str::from_utf8(bytes.get(..digits)?).ok()?;
    text.bytes().all(|b| b.is_ascii_hexdigit()).then(|| u32::from_str_radix(text, 16).ok()).flatten()
}

/// After a backslash: `\uXXXX`, `\xXX`, `\n` and `\r` (a line break, left out), or an escaped character.
fn backslash_escape(after: &[u8]) -> (Option<char>, usize) {
    match after.first() {
        Some(b'u') => match hex_value(&after[1..], 4).and_then(char::from_u32) {
            Some(c) => (Some(c), 6),
            None => (Some('\\'), 1),
        },
        Some(b'x') => match hex_value(&after[1..], 2).and_then(char::from_u32) {
            Some(c) => (Some(c), 4),
            None => (Some('\\'), 1),
        },
        Some(b'n' | b'r') => (None, 2),
        Some(&b) if matches!(b, b'/' | b'"' | b'\\' | b'\'') => (Some(char::from(b)), 2),
        _ => (Some('\\'), 1),
    }
}

/// After an ampersand: `&#65;`, `&#x41;` or one of the named references an error page uses.
fn character_reference(after: &str) -> (Option<char>, usize) {
    let Some(end) = after.bytes().take(12).position(|b| b == b';') else {
        return (Some('&'), 1);
    };
    let name = &after[..end];
    let decoded = match name.strip_prefix('#') {
        Some(number) => match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => number.parse::<u32>().ok(),
        }
        .and_then(char::from_u32),
        None => match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "sol" => Some('/'),
            "plus" => Some('+'),
            "equals" => Some('='),
            _ => None,
        },
    };
    match decoded {
        Some(c) => (Some(c), end + 2),
        None => (Some('&'), 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(raw: &str) -> String {
        decode(raw).chars.into_iter().collect()
    }

    #[test]
    fn every_escape_an_echo_uses_is_decoded_and_line_breaks_are_left_out() {
        let table = [
            ("sk-%41%62c", "sk-Abc"),
            ("sk-%4", "sk-%4"),
            ("\\u0073\\u006b-x", "sk-x"),
            ("\\x73k", "sk"),
            ("a\\/b\\\"c", "a/b\"c"),
            ("&#115;&#x6B;&amp;&lt;&quot;", "sk&<\""),
            ("&nope; & x", "&nope; & x"),
            ("sk-AB\nCD\r\nEF", "sk-ABCDEF"),
            ("line\\nbreak", "linebreak"),
            ("héllo", "héllo"),
        ];
        for (raw, expected) in table {
            assert_eq!(text_of(raw), expected, "{raw:?}");
        }
    }

    #[test]
    fn each_character_knows_where_it_came_from() {
        let decoded = decode("a%41\\u0042&#67;");
        assert_eq!(decoded.spans, [(0, 1), (1, 4), (4, 10), (10, 15)]);
        assert_eq!(decoded.folded, ['a', 'a', 'b', 'c']);
    }
}
