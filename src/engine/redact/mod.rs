//! Removing a request's secrets from text the engine keeps. Endpoints echo what they were sent: a gateway's 401
//! quotes the `Authorization` header, a proxy's error page prints the URL with its query, an SSE error event
//! repeats a header, a debugging endpoint base64-encodes the whole request. Every text that leaves the engine (an
//! iteration's error, a connection test's body) passes through [`Redactor::scrub`] first, before it is cut to
//! length, stored, logged or shown.
//!
//! An echo is any run of [`RUN_CHARS`] characters of a secret (the whole secret when it is shorter), anywhere in
//! the text and in any letter case, once the text's escapes are decoded and its line breaks left out
//! (`decoded`); a secret's tail of at least [`MIN_SECRET_CHARS`] characters cut off at the end of a text; and the
//! secret's bytes in hex, or in base64 at any alignment (`encoded`), for runs that carry as many of its
//! characters (16 hex digits, 10 base64 characters).

mod decoded;
mod encoded;

use std::collections::{BTreeMap, HashSet};

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not searched for: too short to be a credential, too likely to hit plain text.
const MIN_SECRET_CHARS: usize = 4;

/// A run of this many characters of a secret is an echo of it.
pub const RUN_CHARS: usize = 8;

/// The most bytes one decoded character can take in a text (`&#1114111;`).
const MAX_ESCAPE_BYTES: usize = 10;

/// Hex digits that carry [`RUN_CHARS`] bytes.
const HEX_RUN: usize = 2 * RUN_CHARS;

/// Base64 characters that [`RUN_CHARS`] bytes alone decide at every alignment (10 for 8 bytes: the 64 bits hold
/// 10 whole 6-bit characters whichever of the three offsets they start at).
const BASE64_RUN: usize = whole_base64_chars(RUN_CHARS);

/// The fewest whole base64 characters `bytes` consecutive bytes decide, over the three alignments.
const fn whole_base64_chars(bytes: usize) -> usize {
    let mut fewest = usize::MAX;
    let mut alignment = 0;
    while alignment < 3 {
        let whole = 8 * (alignment + bytes) / 6 - (8 * alignment).div_ceil(6);
        if whole < fewest {
            fewest = whole;
        }
        alignment += 1;
    }
    fewest
}

/// The pieces of a request's secrets that an echo can hold.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Every run of a given length of some spelling of a secret, by the length and whether case is ignored.
    runs: BTreeMap<(usize, bool), Windows>,
    /// Each secret in lower case, for a tail cut off at the end of a text.
    folded_secrets: Vec<Vec<char>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} secrets)", self.folded_secrets.len())
    }
}

impl Redactor {
    /// A redactor for these secret values.
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut redactor = Self::default();
        for secret in secrets.into_iter().filter(|s| s.chars().count() >= MIN_SECRET_CHARS) {
            let folded: Vec<char> = secret.chars().map(|c| c.to_ascii_lowercase()).collect();
            redactor.add_runs(&folded, RUN_CHARS, true);
            redactor.add_runs(&encoded::hex(secret.as_bytes()).chars().collect::<Vec<_>>(), HEX_RUN, true);
            for core in encoded::base64_cores(secret.as_bytes()) {
                redactor.add_runs(&core.chars().collect::<Vec<_>>(), BASE64_RUN, false);
            }
            redactor.folded_secrets.push(folded);
        }
        redactor
    }

    /// Every window of `run` characters of `spelling` (the whole of it when shorter).
    fn add_runs(&mut self, spelling: &[char], run: usize, fold: bool) {
        let run = run.min(spelling.len());
        if run == 0 {
            return;
        }
        let windows = self.runs.entry((run, fold)).or_default();
        for window in spelling.windows(run) {
            windows.insert(window);
        }
    }

    /// `text` with every echo of every secret replaced by [`REDACTED`].
    pub fn scrub(&self, text: &str) -> String {
        if self.folded_secrets.is_empty() {
            return text.to_string();
        }
        let decoded = decoded::decode(text);
        let mut marked = vec![false; decoded.chars.len()];
        for (&(run, fold), windows) in &self.runs {
            let view = if fold { &decoded.folded } else { &decoded.chars };
            for (start, window) in view.windows(run).enumerate() {
                if windows.holds(window) {
                    marked[start..start + run].fill(true);
                }
            }
        }
        for secret in &self.folded_secrets {
            let longest = secret.len().min(RUN_CHARS + 1);
            if let Some(n) = (MIN_SECRET_CHARS..longest).rev().find(|&n| decoded.folded.ends_with(&secret[..n])) {
                let len = marked.len();
                marked[len - n..].fill(true);
            }
        }
        replace_marked(text, &decoded.spans, &marked)
    }

    /// [`Redactor::scrub`], then the first `max_chars` characters: scrubbing first means a secret straddling the
    /// cut cannot survive as a prefix. Only the start of a long text is scrubbed (a 64 KiB error body is cut to
    /// 300 characters): enough that every run reaching into the kept part is seen whole, since a decoded
    /// character takes at most 10 bytes (`&#1114111;`) and a replaced run never shortens the text before the cut.
    pub fn scrub_and_clip(&self, text: &str, max_chars: usize) -> String {
        let enough = MAX_ESCAPE_BYTES * (max_chars + HEX_RUN + 1);
        let mut end = text.len().min(enough);
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let scrubbed = self.scrub(&text[..end]);
        match scrubbed.char_indices().nth(max_chars) {
            Some((end, _)) => scrubbed[..end].to_string(),
            None => scrubbed,
        }
    }
}

/// The windows of one length: a set, and before it a bitmap of the windows' first two characters (ASCII), which
/// turns away almost every position of a long text without hashing it.
#[derive(Clone, Default)]
struct Windows {
    set: HashSet<Vec<char>>,
    /// Bit `a * 128 + b` is set when some window starts with the ASCII characters `a`, `b`.
    first_pairs: Vec<u64>,
    /// Some window starts with a character outside ASCII: the bitmap cannot turn such positions away.
    non_ascii_start: bool,
}

impl Windows {
    fn insert(&mut self, window: &[char]) {
        match Self::pair_bit(window) {
            Some(bit) => {
                self.first_pairs.resize(128 * 128 / 64, 0);
                self.first_pairs[bit / 64] |= 1 << (bit % 64);
            }
            None => self.non_ascii_start = true,
        }
        self.set.insert(window.to_vec());
    }

    fn holds(&self, window: &[char]) -> bool {
        let maybe = match Self::pair_bit(window) {
            Some(bit) => self.first_pairs.get(bit / 64).is_some_and(|word| word & (1 << (bit % 64)) != 0),
            None => self.non_ascii_start,
        };
        maybe && self.set.contains(window)
    }

    fn pair_bit(window: &[char]) -> Option<usize> {
        match window {
            [a, b, ..] if a.is_ascii() && b.is_ascii() => Some(*a as usize * 128 + *b as usize),
            _ => None,
        }
    }
}

/// `text` with the original bytes of each run of marked characters replaced by one [`REDACTED`].
fn replace_marked(text: &str, spans: &[(usize, usize)], marked: &[bool]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied_to = 0;
    let mut index = 0;
    while index < marked.len() {
        if !marked[index] {
            index += 1;
            continue;
        }
        let first = index;
        while index < marked.len() && marked[index] {
            index += 1;
        }
        out.push_str(&text[copied_to..spans[first].0]);
        out.push_str(REDACTED);
        copied_to = spans[index - 1].1;
    }
    out.push_str(&text[copied_to..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    use base64::Engine as _;

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

    /// Each spelling an echo was seen to take, of the canary a probe of a public service used.
    #[test]
    fn every_encoding_and_every_run_of_eight_characters_is_replaced() {
        let key = "sk-CANARY-7f3a9c";
        let r = Redactor::new([key]);
        let every_byte = |upper: bool| {
            key.bytes().map(|b| if upper { format!("%{b:02X}") } else { format!("%{b:02x}") }).collect::<String>()
        };
        let unicode_escapes: String = key.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        let entities: String = key.chars().map(|c| format!("&#{};", c as u32)).collect();
        let hex_entities: String = key.chars().map(|c| format!("&#x{:x};", c as u32)).collect();
        let swapped: String = key
            .chars()
            .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
            .collect();
        let echoes = [
            format!("x{}", STANDARD.encode(format!("a{key}"))),
            STANDARD.encode(format!("ab{key}")),
            STANDARD.encode(format!("x-api-key: {key}")),
            URL_SAFE_NO_PAD.encode(format!("{{\"auth\":\"Bearer {key}\"}}")),
            format!("hex {}", encoded::hex(key.as_bytes())),
            format!("HEX {}", encoded::hex(format!("k={key}").as_bytes()).to_uppercase()),
            every_byte(true),
            every_byte(false),
            unicode_escapes,
            entities,
            hex_entities,
            swapped,
            "bad key sk-CANA\nRY-7f3a9c given".to_string(),
            "bad key sk-CANARY-\r\n7f3a9c given".to_string(),
            "the key sk-CANARY-7f... is invalid".to_string(),
            "key ...ANARY-7f3a9c".to_string(),
        ];
        for echo in echoes {
            let clean = r.scrub(&echo);
            assert!(clean.contains(REDACTED), "{echo} -> {clean}");
            let decoded: String = decoded::decode(&clean).folded.into_iter().collect();
            for window in key.to_ascii_lowercase().as_bytes().windows(RUN_CHARS) {
                let window = std::str::from_utf8(window).unwrap();
                assert!(!decoded.contains(window), "{echo} -> {clean} still holds {window}");
            }
        }
    }

    #[test]
    fn eight_bytes_decide_ten_base64_characters_at_every_alignment() {
        assert_eq!(BASE64_RUN, 10);
        let run = "ANARY-7f";
        let r = Redactor::new(["sk-CANARY-7f3a9c"]);
        for prefix in ["", "a", "ab"] {
            let echo = STANDARD.encode(format!("{prefix}{run}"));
            assert!(r.scrub(&echo).contains(REDACTED), "{prefix:?}: {echo}");
        }
    }

    #[test]
    fn text_around_an_echo_is_kept() {
        let r = Redactor::new(["sk-CANARY-7f3a9c"]);
        assert_eq!(r.scrub("401: key sk-canary-7F3A9C is wrong"), format!("401: key {REDACTED} is wrong"));
        assert_eq!(r.scrub("a%73%6B-CANARY-7f3a9c!"), format!("a{REDACTED}!"));
        assert_eq!(r.scrub("shares sk-CANA with it"), "shares sk-CANA with it", "seven characters are not a run");
    }

    #[test]
    fn a_long_text_is_clipped_as_if_it_were_scrubbed_whole() {
        let key = "sk-CANARY-7f3a9c";
        let r = Redactor::new([key]);
        let encoded: String = key.chars().map(|c| format!("&#{};", u32::from(c))).collect();
        for filler in [0, 250, 290, 299, 300] {
            let text = format!("{}{encoded} {}", "é".repeat(filler), "z".repeat(100_000));
            assert_eq!(r.scrub_and_clip(&text, 300), r.scrub(&text).chars().take(300).collect::<String>(), "{filler}");
        }
    }

    #[test]
    fn short_values_and_plain_text_are_left_alone() {
        let r = Redactor::new(["abc", KEY]);
        assert_eq!(r.scrub("abc is fine"), "abc is fine");
        assert_eq!(Redactor::default().scrub("anything"), "anything");
    }
}
