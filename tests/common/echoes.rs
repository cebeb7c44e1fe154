//! An independent judge of whether a text still holds an echo of a secret, written apart from the product's
//! redactor (`src/engine/redact`) and by other means: it decodes with the percent-encoding crate and serde_json,
//! and finds base64 by decoding every base64-looking token at every offset rather than by encoding the secret.
//! What counts as an echo: 8 characters of the secret in a row, in any case, after decoding.

use base64::Engine as _;

/// How many characters of a secret in a row make an echo.
const RUN: usize = 8;

/// The first echo of `secret` left in `text`, described; `None` when there is none.
pub fn surviving_echo(text: &str, secret: &str) -> Option<String> {
    let secret = secret.to_ascii_lowercase();
    let runs: Vec<&str> =
        (0..=secret.len().saturating_sub(RUN)).map(|i| &secret[i..i + RUN.min(secret.len())]).collect();
    let holds = |view: &str| {
        let view = view.to_ascii_lowercase();
        runs.iter().find(|run| view.contains(**run)).map(|run| run.to_string())
    };
    let unbroken = text.replace(['\r', '\n'], "").replace("\\r", "").replace("\\n", "");
    let views = [
        ("as written", unbroken.clone()),
        ("percent-decoded", percent_encoding::percent_decode_str(&unbroken).decode_utf8_lossy().into_owned()),
        ("JSON-unescaped", json_unescaped(&unbroken)),
        ("\\x-unescaped", byte_escapes_read(&unbroken)),
        ("HTML-unescaped", html_unescaped(&unbroken)),
        ("hex-decoded", hex_decoded(&unbroken)),
        ("base64-decoded", base64_decoded(&unbroken)),
    ];
    views.iter().find_map(|(how, view)| holds(view).map(|run| format!("{run:?} {how}")))
}

/// Each `\uXXXX` and JSON escape read by serde_json, token by token (a text need not be a JSON string).
fn json_unescaped(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at]);
        let escape = rest.get(at..at + 6).unwrap_or(&rest[at..]);
        match serde_json::from_str::<String>(&format!("\"{escape}\"")) {
            Ok(decoded) => out.push_str(&decoded),
            Err(_) => out.push_str(escape),
        }
        rest = &rest[at + escape.len()..];
    }
    out.push_str(rest);
    out
}

/// Each `\xHH` replaced by its character.
fn byte_escapes_read(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split("\\x").enumerate() {
        let value = piece.get(..2).and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match value {
            Some(byte) if i > 0 => {
                out.push(char::from(byte));
                out.push_str(&piece[2..]);
            }
            _ if i > 0 => {
                out.push_str("\\x");
                out.push_str(piece);
            }
            _ => out.push_str(piece),
        }
    }
    out
}

/// Numeric character references (`&#115;`, `&#x73;`) replaced by their characters.
fn html_unescaped(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split("&#").enumerate() {
        if i == 0 {
            out.push_str(piece);
            continue;
        }
        let (number, after) = piece.split_once(';').unwrap_or((piece, ""));
        let value = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => number.parse().ok(),
        };
        match value.and_then(char::from_u32) {
            Some(c) => {
                out.push(c);
                out.push_str(after);
            }
            None => {
                out.push_str("&#");
                out.push_str(piece);
            }
        }
    }
    out
}

/// Every run of hex digits decoded to bytes, at both offsets, as lossy text.
fn hex_decoded(text: &str) -> String {
    tokens(text, |c| c.is_ascii_hexdigit())
        .flat_map(|token| (0..2).map(move |offset| token.get(offset..).unwrap_or_default().to_string()))
        .map(|token| {
            let bytes: Vec<u8> = token
                .as_bytes()
                .chunks(2)
                .filter_map(|pair| std::str::from_utf8(pair).ok().and_then(|p| u8::from_str_radix(p, 16).ok()))
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every base64-looking token decoded at each of its four offsets, in both alphabets, as lossy text.
fn base64_decoded(text: &str) -> String {
    let lenient = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let mut out = Vec::new();
    for token in tokens(text, |c| c.is_ascii_alphanumeric() || "+/-_".contains(c)) {
        let standard = token.replace('-', "+").replace('_', "/");
        for offset in 0..4 {
            let Some(part) = standard.get(offset..) else { continue };
            let whole = &part[..part.len() - part.len() % 4];
            if let Ok(bytes) = lenient.decode(whole) {
                out.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    out.join(" ")
}

fn tokens(text: &str, belongs: impl Fn(char) -> bool + Copy) -> impl Iterator<Item = &str> {
    text.split(move |c: char| !belongs(c)).filter(|t| t.len() >= 2 * RUN)
}
