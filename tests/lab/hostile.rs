//! The engine against every hostile endpoint of the catalogue (`docs/RELIABILITY.md`, served by
//! `latency-guard sim --hostile KIND`) on loopback: each ends as a clear, bounded record — the right error class,
//! a bounded time, bounded chunk marks — and echoed credentials never survive into a result.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::engine::{measure, test_connection, Call, ChatRequest, HttpClient, RequestTarget, MAX_CHUNK_MARKS};
use latency_guard::model::{ErrorClass, Measurement};
use latency_guard::sim::{spawn_hostile, Hostile, SimHandle, ECHO_SHAPES};
use std::time::Duration;

const KEY: &str = "sk-HOSTILE-canary-1f2e3d4c5b6a";
const HEADER: &str = "hdr-HOSTILE-canary-9a8b7c6d";

fn request(stream: bool) -> ChatRequest {
    common::chat_request("m", "hi", 16, stream)
}

fn target(base: &str) -> RequestTarget {
    common::any_target(base, Some(KEY), &[("x-api-key", HEADER)])
}

async fn endpoint(kind: Hostile) -> SimHandle {
    spawn_hostile(kind, "127.0.0.1:0".parse().unwrap()).await.unwrap()
}

async fn measure_once(client: &HttpClient, base: &str, stream: bool, timeout: Duration) -> Measurement {
    let (target, request) = (target(base), request(stream));
    measure(client, Call { target: &target, request: &request, timeout, intended: tokio::time::Instant::now() }).await
}

/// No echo of the key or the credential header, in any spelling the independent judge decodes.
fn assert_clean(text: &str) {
    for secret in [KEY, HEADER] {
        if let Some(echo) = common::echoes::surviving_echo(text, secret) {
            panic!("{echo} of {secret:?} survived in {text:?}");
        }
    }
}

/// Each kind: streamed or not, the time limit, the error code expected (`None`: success), and a bound on how
/// long the engine may take.
#[tokio::test]
async fn every_hostile_endpoint_ends_as_a_clear_bounded_record() {
    let cases: [(Hostile, bool, u64, Option<&str>, f64); 13] = [
        (Hostile::HangBeforeHeaders, true, 500, Some("timeout"), 2_000.0),
        (Hostile::HangMidStream, true, 500, Some("timeout"), 2_000.0),
        (Hostile::Drip, true, 10_000, None, 8_000.0),
        (Hostile::EndlessStream, true, 700, Some("timeout"), 2_000.0),
        (Hostile::GiantLine, true, 10_000, Some("malformed"), 8_000.0),
        (Hostile::GiantBody, false, 60_000, Some("too_large"), 30_000.0),
        (Hostile::EndlessErrorBody, true, 10_000, Some("http_500"), 5_000.0),
        (Hostile::InvalidUtf8, true, 5_000, Some("malformed"), 2_000.0),
        (Hostile::WrongShape, true, 5_000, Some("malformed"), 2_000.0),
        (Hostile::NonJsonLine, true, 5_000, Some("malformed"), 2_000.0),
        (Hostile::HtmlError, true, 5_000, Some("http_502"), 2_000.0),
        (Hostile::AbsurdRetryAfter, true, 5_000, Some("http_429"), 2_000.0),
        (Hostile::Redirect, true, 5_000, Some("http_307"), 2_000.0),
    ];
    let client = HttpClient::new().unwrap();
    for (kind, stream, timeout_ms, code, within_ms) in cases {
        let server = endpoint(kind).await;
        let m = measure_once(&client, &server.base_url(), stream, Duration::from_millis(timeout_ms)).await;
        let what = format!("{}: {:?}", kind.name(), m.error);
        assert_eq!(m.error.as_ref().map(|e| e.code.as_str()), code, "{what}");
        assert!(m.total_ms() < within_ms, "{what}: took {} ms", m.total_ms());
        assert!(m.timeline.chunks.len() <= MAX_CHUNK_MARKS, "{what}");
        if let Some(error) = &m.error {
            assert!(error.detail.chars().count() <= 300, "{what}");
        }
        match kind {
            Hostile::Drip => {
                assert_eq!(m.timeline.chunk_count(), 2, "both content chunks, byte by byte");
                assert!(m.ttft_ms().unwrap() > 100.0, "TTFT is when the first content chunk was complete");
            }
            Hostile::HangMidStream => assert!(m.ttft_ms().is_some(), "what arrived before the hang is kept"),
            Hostile::EndlessStream => assert!(m.timeline.chunk_count() > 100, "chunks up to the timeout are counted"),
            Hostile::GiantLine => assert!(m.error.unwrap().detail.contains("exceeded 262144 bytes")),
            Hostile::AbsurdRetryAfter => assert!(m.retry_after_ms.unwrap() > 86_400_000, "recorded as asked"),
            Hostile::Redirect => assert_eq!(m.status, Some(307), "reported, not followed"),
            Hostile::HtmlError => assert!(m.error.unwrap().detail.starts_with("<html><head><title>502")),
            _ => {}
        }
    }
}

#[tokio::test]
async fn echoed_credentials_never_reach_an_iteration_error_in_any_shape() {
    let server = endpoint(Hostile::EchoSecrets).await;
    let client = HttpClient::new().unwrap();
    let mut classes = Vec::new();
    for _ in 0..ECHO_SHAPES {
        let m = measure_once(&client, &server.base_url(), true, Duration::from_secs(5)).await;
        let error = m.error.expect("every echo shape is a failure");
        assert_clean(&error.detail);
        assert!(error.detail.contains("[redacted]"), "the echo was there and was scrubbed: {}", error.detail);
        assert!(error.detail.chars().count() <= 300, "cut to 300 characters after scrubbing");
        classes.push(error.class);
    }
    use ErrorClass::{Http, Malformed, StreamError};
    assert_eq!(classes, [Http, StreamError, Malformed, Http, Http, Http, Http, Http]);
}

/// The judge `assert_clean` relies on sees every shape of the echo as sent: a clean result above means the
/// redactor removed it, not that the judge missed it.
#[tokio::test]
async fn the_independent_judge_finds_the_key_in_every_shape_of_the_raw_echo() {
    let server = endpoint(Hostile::EchoSecrets).await;
    let raw = reqwest::Client::new();
    for shape in 0..ECHO_SHAPES {
        let body = raw
            .post(format!("{}/chat/completions", server.base_url()))
            .bearer_auth(KEY)
            .header("x-api-key", HEADER)
            .json(&request(true))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let found = common::echoes::surviving_echo(&body, KEY);
        assert!(found.is_some(), "shape {shape}: the judge misses the key in {body:?}");
        if (4..7).contains(&shape) {
            assert!(!body.contains(&KEY[..RUN_FOR_JUDGE]), "shape {shape} is encoded, not plain: {body:?}");
        }
    }
}

/// How many characters of the key in a row the judge calls an echo.
const RUN_FOR_JUDGE: usize = 8;

#[tokio::test]
async fn the_connection_test_scrubs_before_it_cuts_the_preview() {
    let server = endpoint(Hostile::EchoSecrets).await;
    let client = HttpClient::new().unwrap();
    for _ in 0..ECHO_SHAPES {
        let result = test_connection(&client, &target(&server.base_url()), "m", Duration::from_secs(5)).await;
        assert_clean(&result.body);
        assert!(result.body.chars().count() <= 240);
    }
}

#[tokio::test]
async fn an_endless_error_body_is_read_to_64_kib_and_its_start_kept() {
    let server = endpoint(Hostile::EndlessErrorBody).await;
    let m = measure_once(&HttpClient::new().unwrap(), &server.base_url(), true, Duration::from_secs(20)).await;
    assert_eq!((m.error.unwrap().detail, m.status), ("e".repeat(300), Some(500)));
}

#[tokio::test]
async fn a_flood_of_tiny_chunks_keeps_bounded_marks_and_exact_counts() {
    let server = endpoint(Hostile::Flood).await;
    let m = measure_once(&HttpClient::new().unwrap(), &server.base_url(), true, Duration::from_secs(30)).await;
    assert!(m.error.is_none(), "{:?}", m.error);
    let (marks, chunks) = (m.timeline.chunks.len(), m.timeline.chunk_count());
    assert!(marks <= MAX_CHUNK_MARKS, "{marks} marks");
    assert!(chunks > 4 * MAX_CHUNK_MARKS as u64, "the flood sent {chunks} chunks");
    assert_eq!(m.tokens_out, Some(chunks.div_ceil(4)), "no usage: one character a chunk, estimated as characters / 4");
    let stored = serde_json::to_vec(&m).unwrap();
    assert!(stored.len() < 400_000, "the stored measurement is {} bytes", stored.len());
}

#[tokio::test]
async fn tls_and_dns_failures_are_connect_errors_in_words() {
    // https to a plain-HTTP port: the TLS handshake fails.
    let plain = spawn_hostile(Hostile::HtmlError, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let tls = format!("https://{}/v1", plain.addr());
    // `.invalid` never resolves (RFC 2606).
    for (base, class) in
        [(tls.as_str(), ErrorClass::Connect), ("http://latency-guard-test.invalid/v1", ErrorClass::Connect)]
    {
        let m = measure_once(&HttpClient::new().unwrap(), base, true, Duration::from_secs(10)).await;
        let error = m.error.unwrap();
        assert_eq!(error.class, class, "{base}: {error:?}");
        assert!(error.detail.len() > 20, "the cause in words: {}", error.detail);
        assert_clean(&error.detail);
    }
}
