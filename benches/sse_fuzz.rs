//! Property-based fuzzing of the SSE decoder and the chunk interpreter: a million generated streams (events with
//! data lines, named events, comments, `id`/`retry`/unknown fields, LF/CRLF/CR line endings, multi-byte text,
//! chunks of the wire format, errors, `[DONE]`), a quarter of them with random bytes spliced in, each fed to
//! the decoder in random pieces (split anywhere, inside a line ending or a character).
//!
//! Checked for every stream: nothing panics; the decoded result does not depend on where the bytes were split;
//! for well-formed streams the events are exactly the generated ones; and each event of the wire format is
//! interpreted as what it was made from (content characters, `[DONE]`, an error, a wrong shape).
//!
//! Run: `cargo bench --bench sse_fuzz --no-default-features --features ssr [-- STREAMS [SEED]]`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

use latency_guard::engine::chunk::{interpret, StreamItem};
use latency_guard::engine::sse::{SseDecoder, SseEvent};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

const STREAMS: u64 = 1_000_000;

/// What an event's data is, so its interpretation can be checked.
#[derive(Debug, Clone)]
enum Meaning {
    /// A chunk with this many content characters.
    Content(usize),
    Done,
    Error,
    /// Not a chunk of the wire format (free text, a wrong shape): interpreted as malformed.
    Malformed,
    /// Arbitrary multi-line data: only "no panic" is checked.
    Any,
}

struct Generated {
    bytes: Vec<u8>,
    /// The events a correct decoder dispatches; `None` when garbage was spliced in.
    expected: Option<Vec<(SseEvent, Meaning)>>,
}

const TEXTS: &[&str] = &["Hello", "é", "naïve café", "日本語", "🦀🦀", "a\\\"quoted\\\"", "tab\\t", " lead", ""];

fn content(rng: &mut StdRng) -> (String, Meaning) {
    match rng.gen_range(0..10) {
        0..=4 => {
            let text = TEXTS[rng.gen_range(0..TEXTS.len())];
            let chars = serde_json::from_str::<String>(&format!("\"{text}\"")).unwrap().chars().count();
            (format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#), Meaning::Content(chars))
        }
        5 => ("[DONE]".into(), Meaning::Done),
        6 => (r#"{"error":{"message":"overloaded","code":503}}"#.into(), Meaning::Error),
        7 => (r#"{"choices":{"delta":"x"}}"#.into(), Meaning::Malformed),
        8 => ("<html>oops</html>".into(), Meaning::Malformed),
        _ => ("plain words: with a colon".into(), Meaning::Any),
    }
}

fn ending(rng: &mut StdRng, previous: &str) -> &'static str {
    // After a lone CR, an LF would join it into one CRLF ending, so only CR or CRLF may follow.
    match (previous, rng.gen_range(0..3)) {
        ("\r", 0) | (_, 1) => "\r\n",
        (_, 2) => "\r",
        _ => "\n",
    }
}

fn generate(rng: &mut StdRng) -> Generated {
    let mut bytes = Vec::new();
    let mut expected = Vec::new();
    let mut last_ending = "";
    let mut line = |bytes: &mut Vec<u8>, text: &str, rng: &mut StdRng| {
        bytes.extend_from_slice(text.as_bytes());
        last_ending = ending(rng, last_ending);
        bytes.extend_from_slice(last_ending.as_bytes());
    };
    for _ in 0..rng.gen_range(0..8) {
        if rng.gen_bool(0.2) {
            let noise = [": keep-alive", ":", "id: 17", "retry: 3000", "foo: bar", "event"][rng.gen_range(0..6)];
            line(&mut bytes, noise, rng);
        }
        let name = rng.gen_bool(0.15).then(|| if rng.gen_bool(0.5) { "error" } else { "message" });
        if let Some(name) = name {
            line(&mut bytes, &format!("event: {name}"), rng);
        }
        let (data, meaning) =
            if rng.gen_bool(0.1) { ("first\nsecond".to_string(), Meaning::Any) } else { content(rng) };
        for part in data.split('\n') {
            let separator = if part.starts_with(' ') || rng.gen_bool(0.7) { "data: " } else { "data:" };
            line(&mut bytes, &format!("{separator}{part}"), rng);
        }
        let meaning = if name == Some("error") { Meaning::Error } else { meaning };
        expected.push((SseEvent { event: name.map(str::to_string), data }, meaning));
        line(&mut bytes, "", rng);
    }
    if expected.is_empty() || !rng.gen_bool(0.25) {
        return Generated { bytes, expected: Some(expected) };
    }
    // Garbage: random bytes (invalid UTF-8 included) spliced in somewhere.
    let at = rng.gen_range(0..=bytes.len());
    let junk: Vec<u8> = (0..rng.gen_range(1..16)).map(|_| rng.gen()).collect();
    bytes.splice(at..at, junk);
    Generated { bytes, expected: None }
}

/// Decodes `bytes` fed in pieces cut at `cuts`; the events, or the error that stopped decoding.
fn decode(bytes: &[u8], cuts: &[usize]) -> Result<(Vec<SseEvent>, bool), String> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        decoder.push(&bytes[from..cut], &mut events).map_err(|e| e.to_string())?;
        from = cut;
    }
    let cut_mid_line = decoder.finish(&mut events);
    Ok((events, cut_mid_line))
}

fn check_meaning(event: &SseEvent, meaning: &Meaning) -> Result<(), String> {
    let item = interpret(event.borrowed());
    let ok = match (meaning, &item) {
        (Meaning::Content(n), StreamItem::Chunk(chunk)) => chunk.content_chars == *n,
        (Meaning::Done, StreamItem::Done)
        | (Meaning::Error, StreamItem::Error(_))
        | (Meaning::Malformed, StreamItem::Malformed(_))
        | (Meaning::Any, _) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{event:?} meant {meaning:?} but was interpreted as {item:?}"))
    }
}

fn main() {
    let mut numbers = std::env::args().skip(1).filter_map(|a| a.parse::<u64>().ok());
    let streams = numbers.next().unwrap_or(STREAMS);
    let seed = numbers.next().unwrap_or(0x5EED);
    let mut rng = StdRng::seed_from_u64(seed);
    let started = Instant::now();
    let (mut bytes_total, mut events_total, mut garbage, mut refused) = (0u64, 0u64, 0u64, 0u64);
    for n in 0..streams {
        let generated = generate(&mut rng);
        let bytes = &generated.bytes;
        let mut cuts: Vec<usize> = (0..rng.gen_range(0..6)).map(|_| rng.gen_range(0..=bytes.len())).collect();
        cuts.sort_unstable();
        let whole = decode(bytes, &[]);
        let split = decode(bytes, &cuts);
        let fail = |why: String| panic!("stream {n} (seed {seed}) failed: {why}\nbytes: {bytes:?}\ncuts: {cuts:?}");
        if whole != split {
            fail(format!("splitting changed the result: {whole:?} vs {split:?}"));
        }
        bytes_total += bytes.len() as u64;
        match (&generated.expected, whole) {
            (Some(expected), Ok((events, cut_mid_line))) => {
                if cut_mid_line {
                    fail("a well-formed stream was reported cut mid-line".into());
                }
                let wanted: Vec<&SseEvent> = expected.iter().map(|(e, _)| e).collect();
                if events.iter().collect::<Vec<_>>() != wanted {
                    fail(format!("decoded {events:?}, generated {wanted:?}"));
                }
                for (event, meaning) in expected {
                    check_meaning(event, meaning).unwrap_or_else(&fail);
                }
                events_total += events.len() as u64;
            }
            (Some(_), Err(e)) => fail(format!("a well-formed stream was refused: {e}")),
            (None, Ok((events, _))) => {
                garbage += 1;
                events.iter().for_each(|e| drop(interpret(e.borrowed())));
            }
            (None, Err(_)) => {
                garbage += 1;
                refused += 1;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("| streams | with garbage | garbage refused (invalid UTF-8) | events checked | bytes | time | failures |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {streams} | {garbage} | {refused} | {events_total} | {:.1} MB | {seconds:.1} s | 0 |",
        bytes_total as f64 / 1e6
    );
    println!("seed {seed}; every stream decoded whole and in random pieces alike; see docs/RELIABILITY.md");
}
