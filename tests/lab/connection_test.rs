//! The connection test against real sockets on loopback: the simulator on port 0, a closed port, a silent server.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::engine::{test_connection, HttpClient, RequestTarget};
use latency_guard::model::BODY_PREVIEW_CHARS;
use latency_guard::sim::{self, SimConfig};
use std::net::SocketAddr;
use std::time::Duration;

const LOOPBACK_ANY_PORT: ([u8; 4], u16) = ([127, 0, 0, 1], 0);

fn target(base: &str, key: Option<&str>) -> RequestTarget {
    common::any_target(base, key, &[])
}

async fn run(target: &RequestTarget, timeout: Duration) -> latency_guard::model::ConnectionTestResult {
    test_connection(&HttpClient::new().unwrap(), target, "sim-model", timeout).await
}

#[tokio::test]
async fn succeeds_against_the_simulator_with_the_right_key() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(Some("sk-right"))).await.unwrap();
    let result = run(&target(&sim.base_url(), Some("sk-right")), Duration::from_secs(5)).await;
    assert!(result.ok, "{result:?}");
    assert_eq!(result.status, 200);
    assert!(
        result.body.starts_with(r#"{"id":"chatcmpl-sim-"#) || result.body.contains("chat.completion"),
        "{}",
        result.body
    );
    assert!(result.ms >= 5, "the simulator waits 5 ms before its one token; measured {} ms", result.ms);
}

#[tokio::test]
async fn truncates_the_body_to_240_characters() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(None)).await.unwrap();
    let result = run(&target(&sim.base_url(), None), Duration::from_secs(5)).await;
    assert!(result.ok);
    // The simulator's full completion JSON is longer than the preview.
    assert_eq!(result.body.chars().count(), BODY_PREVIEW_CHARS, "{}", result.body);
}

#[tokio::test]
async fn reports_401_for_a_wrong_key_and_for_a_missing_one() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(Some("sk-right"))).await.unwrap();
    for key in [Some("sk-wrong"), None] {
        let result = run(&target(&sim.base_url(), key), Duration::from_secs(5)).await;
        assert!(!result.ok);
        assert_eq!(result.status, 401, "{result:?}");
        assert!(result.body.contains("Incorrect API key"), "{}", result.body);
        assert!(result.hint().unwrap().contains("API key"));
    }
}

#[tokio::test]
async fn reports_404_for_a_base_url_without_the_api_prefix() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(None)).await.unwrap();
    let result = run(&target(&format!("http://{}", sim.addr()), None), Duration::from_secs(5)).await;
    assert_eq!(result.status, 404);
    assert!(!result.ok);
    assert!(result.hint().unwrap().contains("/v1"));
}

#[tokio::test]
async fn keeps_an_azure_style_query_on_the_request() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(None)).await.unwrap();
    let result =
        run(&target(&format!("{}/?api-version=2024-10-21", sim.base_url()), None), Duration::from_secs(5)).await;
    assert_eq!(result.status, 200, "{result:?}");
}

#[tokio::test]
async fn reports_status_0_when_nothing_listens() {
    let closed = std::net::TcpListener::bind(SocketAddr::from(LOOPBACK_ANY_PORT)).unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let result = run(&target(&format!("http://{addr}/v1"), None), Duration::from_secs(5)).await;
    assert_eq!(result.status, 0);
    assert!(!result.ok);
    assert!(result.body.to_ascii_lowercase().contains("refused"), "{}", result.body);
    assert!(result.hint().unwrap().contains("refused"));
}

#[tokio::test]
async fn times_out_on_a_server_that_accepts_and_never_answers() {
    let silent = tokio::net::TcpListener::bind(SocketAddr::from(LOOPBACK_ANY_PORT)).await.unwrap();
    let addr = silent.local_addr().unwrap();
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let result = run(&target(&format!("http://{addr}/v1"), None), Duration::from_millis(300)).await;
    assert_eq!(result.status, 0);
    assert!(result.body.contains("timed out after 300 ms"), "{}", result.body);
    assert!((300..3_000).contains(&result.ms), "took {} ms", result.ms);
    holder.abort();
}

#[tokio::test]
async fn scrubs_a_key_that_the_endpoint_echoes_back() {
    use axum::routing::post;
    let echo = axum::Router::new().route(
        "/v1/chat/completions",
        post(|headers: axum::http::HeaderMap| async move {
            let auth = headers["authorization"].to_str().unwrap().to_string();
            (axum::http::StatusCode::UNAUTHORIZED, format!("bad credentials: {auth}"))
        }),
    );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(LOOPBACK_ANY_PORT)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, echo).await });
    let result = run(&target(&format!("http://{addr}/v1"), Some("sk-echo-canary")), Duration::from_secs(5)).await;
    assert_eq!(result.status, 401);
    assert!(!result.body.contains("sk-echo-canary"), "{}", result.body);
    assert!(result.body.contains("Bearer [redacted]"), "{}", result.body);
}

#[tokio::test]
async fn a_server_that_closes_kept_alive_connections_still_tests_ok_every_time() {
    let config = SimConfig {
        close_after_response: true,
        ..SimConfig::fixed(Duration::from_millis(1), Duration::from_millis(1), 4)
    };
    let sim = sim::spawn(config, SocketAddr::from(LOOPBACK_ANY_PORT)).await.unwrap();
    let client = HttpClient::new().unwrap();
    for attempt in 0..4 {
        let result = test_connection(&client, &target(&sim.base_url(), None), "m", Duration::from_secs(5)).await;
        assert!(result.ok, "attempt {attempt}: {result:?}");
    }
}
