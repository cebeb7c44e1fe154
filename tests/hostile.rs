//! The engine against hostile endpoints on loopback: echoed credentials never survive into a result, endless
//! bodies and chunk floods cost bounded memory and end with a clear record.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

mod common;

use axum::http::StatusCode;
use latency_guard::engine::{measure, test_connection, Call, ChatMessage, ChatRequest, HttpClient, RequestTarget};
use latency_guard::model::{BaseUrl, ErrorClass, Measurement};
use std::collections::BTreeMap;
use std::time::Duration;

const KEY: &str = "sk-HOSTILE-canary-1f2e3d4c5b6a";
const HEADER: &str = "hdr-HOSTILE-canary-9a8b7c6d";

fn request(stream: bool) -> ChatRequest {
    ChatRequest {
        model: "m".into(),
        messages: vec![ChatMessage { role: "user", content: "hi".into() }],
        tools: vec![],
        max_tokens: 16,
        temperature: 0.0,
        stream,
        stream_options: None,
    }
}

fn target(base: &str) -> RequestTarget {
    RequestTarget {
        base_url: BaseUrl::parse(base).unwrap(),
        api_key: Some(KEY.into()),
        headers: BTreeMap::from([("x-api-key".to_string(), HEADER.to_string())]),
    }
}

async fn measure_once(client: &HttpClient, target: &RequestTarget, stream: bool, timeout: Duration) -> Measurement {
    let request = request(stream);
    measure(client, Call { target, request: &request, timeout, intended: tokio::time::Instant::now() }).await
}

fn assert_clean(text: &str) {
    for secret in [KEY, HEADER, &KEY[..12], &HEADER[..12]] {
        assert!(!text.contains(secret), "{secret:?} survived in {text:?}");
    }
}

#[tokio::test]
async fn echoed_credentials_never_reach_an_iteration_error_in_any_shape() {
    let server = common::hostile::echoing().await;
    let (client, target) = (HttpClient::new().unwrap(), target(&server.base_url()));
    let mut classes = Vec::new();
    for _ in 0..4 {
        let m = measure_once(&client, &target, true, Duration::from_secs(5)).await;
        let error = m.error.expect("every echo shape is a failure");
        assert_clean(&error.detail);
        assert!(error.detail.contains("[redacted]"), "the echo was there and was scrubbed: {}", error.detail);
        assert!(error.detail.chars().count() <= 300, "cut to 300 characters after scrubbing");
        classes.push(error.class);
    }
    assert_eq!(classes, [ErrorClass::Http, ErrorClass::StreamError, ErrorClass::Malformed, ErrorClass::Http]);
}

#[tokio::test]
async fn the_connection_test_scrubs_before_it_cuts_the_preview() {
    let server = common::hostile::echoing().await;
    let (client, target) = (HttpClient::new().unwrap(), target(&server.base_url()));
    for _ in 0..4 {
        let result = test_connection(&client, &target, "m", Duration::from_secs(5)).await;
        assert_clean(&result.body);
        assert!(result.body.chars().count() <= 240);
    }
}

#[tokio::test]
async fn an_endless_error_body_is_read_to_64_kib_and_recorded() {
    let server = common::hostile::endless_body(StatusCode::INTERNAL_SERVER_ERROR).await;
    let client = HttpClient::new().unwrap();
    let m = measure_once(&client, &target(&server.base_url()), true, Duration::from_secs(20)).await;
    let error = m.error.clone().unwrap();
    assert_eq!((error.code.as_str(), m.status), ("http_500", Some(500)));
    assert!(m.total_ms() < 10_000.0, "stopped reading at the limit, not at the timeout: {} ms", m.total_ms());
    assert_eq!(error.detail, "a".repeat(300));
}

#[tokio::test]
async fn an_endless_completion_body_is_refused_past_16_mib() {
    let server = common::hostile::endless_body(StatusCode::OK).await;
    let client = HttpClient::new().unwrap();
    let m = measure_once(&client, &target(&server.base_url()), false, Duration::from_secs(60)).await;
    let error = m.error.unwrap();
    assert_eq!(error.class, ErrorClass::TooLarge, "{error:?}");
    assert_eq!(error.code, "too_large");
    assert!(error.detail.contains("16 MiB"), "{}", error.detail);
}

#[tokio::test]
async fn a_flood_of_tiny_chunks_keeps_bounded_marks_and_exact_counts() {
    let server = common::hostile::flood(1.5).await;
    let client = HttpClient::new().unwrap();
    let m = measure_once(&client, &target(&server.base_url()), true, Duration::from_secs(30)).await;
    assert!(m.error.is_none(), "{:?}", m.error);
    let marks = m.timeline.chunks.len();
    let chunks = m.timeline.chunk_count();
    assert!(marks <= latency_guard::engine::MAX_CHUNK_MARKS, "{marks} marks");
    assert!(chunks > 4 * latency_guard::engine::MAX_CHUNK_MARKS as u64, "the flood sent {chunks} chunks");
    assert_eq!(m.tokens_out, Some(chunks.div_ceil(4)), "no usage: one character a chunk, estimated as characters / 4");
    let stored = serde_json::to_vec(&m).unwrap();
    assert!(stored.len() < 400_000, "the stored measurement is {} bytes", stored.len());
}
