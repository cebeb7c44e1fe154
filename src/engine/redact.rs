//! Removing a request's secrets from text the engine keeps. Endpoints echo what they were sent: a gateway's 401
//! quotes the `Authorization` header, a proxy's error page prints the URL with its query, an SSE error event
//! repeats a header. Every text that leaves the engine (an iteration's error, a connection test's body) passes
//! through [`Redactor::scrub`] first, before it is cut to length, stored, logged or shown.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not searched for: too short to be a credential, too likely to hit plain text.
const MIN_SECRET_CHARS: usize = 4;

/// The spellings of a request's secrets that an echo can take.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so that a spelling containing another is replaced whole.
    forms: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} forms)", self.forms.len())
    }
}

impl Redactor {
    /// A redactor for these secret values: each as sent, percent-encoded (a URL or form echo), JSON-escaped (an
    /// error object quoting it), and base64 (a header echoed encoded, alone or as `Bearer <secret>`).
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut forms = Vec::new();
        for secret in secrets.into_iter().filter(|s| s.chars().count() >= MIN_SECRET_CHARS) {
            forms.push(secret.to_string());
            forms.push(url::form_urlencoded::byte_serialize(secret.as_bytes()).collect());
            forms.push(percent_encoding::utf8_percent_encode(secret, percent_encoding::NON_ALPHANUMERIC).to_string());
            if let Ok(json) = serde_json::to_string(secret) {
                let inner = &json[1..json.len() - 1];
                forms.push(inner.to_string());
                forms.push(inner.replace('/', "\\/"));
            }
            for plain in [secret.to_string(), format!("Bearer {secret}")] {
                for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
                    forms.push(engine.encode(plain.as_bytes()));
                }
            }
        }
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        Self { forms }
    }

    /// `text` with every spelling of every secret replaced by [`REDACTED`]. A text that ends inside a secret (an
    /// echo cut off by the endpoint or by a read limit) loses that partial secret too.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for form in &self.forms {
            if out.contains(form.as_str()) {
                out = out.replace(form.as_str(), REDACTED);
            }
        }
        if let Some(cut) = self.partial_secret_at_end(&out) {
            out.truncate(cut);
            out.push_str(REDACTED);
        }
        out
    }

    /// [`Redactor::scrub`], then the first `max_chars` characters: scrubbing first means a secret straddling the
    /// cut cannot survive as a prefix.
    pub fn scrub_and_clip(&self, text: &str, max_chars: usize) -> String {
        let scrubbed = self.scrub(text);
        match scrubbed.char_indices().nth(max_chars) {
            Some((end, _)) => scrubbed[..end].to_string(),
            None => scrubbed,
        }
    }

    /// Where a trailing prefix (of at least [`MIN_SECRET_CHARS`] characters) of some secret's spelling begins.
    fn partial_secret_at_end(&self, text: &str) -> Option<usize> {
        self.forms
            .iter()
            .filter_map(|form| {
                (MIN_SECRET_CHARS..form.len())
                    .rev()
                    .filter(|&n| form.is_char_boundary(n))
                    .find(|&n| text.ends_with(&form[..n]))
                    .map(|n| text.len() - n)
            })
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-live/9f+Ab3=x";

    #[test]
    fn every_common_spelling_of_a_secret_is_replaced() {
        let r = Redactor::new([KEY]);
        let echoes = [
            format!("bad key {KEY}!"),
            format!("Authorization: Bearer {KEY}"),
            format!("GET /v1?key={}", url::form_urlencoded::byte_serialize(KEY.as_bytes()).collect::<String>()),
            format!("{{\"error\":{}}}", serde_json::to_string(KEY).unwrap()),
            format!("{{\"error\":\"{}\"}}", KEY.replace('/', "\\/")),
            format!("auth={}", STANDARD.encode(KEY)),
            format!("hdr={}", URL_SAFE_NO_PAD.encode(format!("Bearer {KEY}"))),
        ];
        for echo in echoes {
            let clean = r.scrub(&echo);
            assert!(clean.contains(REDACTED), "{echo} -> {clean}");
            assert!(!clean.contains("9f+Ab3") && !clean.contains("9f%2BAb3"), "{echo} -> {clean}");
        }
    }

    #[test]
    fn a_secret_cut_off_at_the_end_of_the_text_is_removed_too() {
        let r = Redactor::new([KEY]);
        assert_eq!(r.scrub("denied: sk-live/9f"), format!("denied: {REDACTED}"));
        assert_eq!(r.scrub("denied: sk-"), "denied: sk-", "three characters say nothing");
    }

    #[test]
    fn scrubbing_comes_before_the_cut() {
        let r = Redactor::new([KEY]);
        let text = format!("{}{KEY} and more", "x".repeat(10));
        // A cut at 14 characters would keep "sk-l" of the key if it came first.
        assert_eq!(r.scrub_and_clip(&text, 14), format!("{}[red", "x".repeat(10)));
    }

    #[test]
    fn short_values_and_plain_text_are_left_alone() {
        let r = Redactor::new(["abc", KEY]);
        assert_eq!(r.scrub("abc is fine"), "abc is fine");
        assert_eq!(Redactor::default().scrub("anything"), "anything");
    }
}
