//! The measurement engine against real HTTP on loopback: the simulator with scripted timings, and a scripted
//! server that sends hostile streams byte for byte.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use axum::body::Body;
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use latency_guard::engine::{
    measure, open_connections, rejects_stream_options, Call, ChatRequest, HttpClient, RequestTarget,
};
use latency_guard::model::{ErrorClass, Measurement, TokenSource};
use latency_guard::sim::{self, SimConfig};
use std::net::SocketAddr;
use std::time::Duration;

fn request(stream: bool) -> ChatRequest {
    common::chat_request("sim-model", "Say something", 512, stream)
}

fn target(base: &str) -> RequestTarget {
    common::any_target(base, None, &[])
}

async fn run(base: &str, request: &ChatRequest, timeout: Duration) -> Measurement {
    let client = HttpClient::new().unwrap();
    let target = target(base);
    measure(&client, Call { target: &target, request, timeout, intended: tokio::time::Instant::now() }).await
}

/// A server whose `/v1/chat/completions` answers `status` and then sends `pieces` as separate writes.
async fn scripted(status: u16, pieces: Vec<&'static [u8]>) -> String {
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let pieces = pieces.clone();
            async move {
                let stream =
                    futures::stream::iter(pieces.into_iter().map(|p| Ok::<_, std::io::Error>(Bytes::from_static(p))));
                Response::builder()
                    .status(status)
                    .header("content-type", "text/event-stream")
                    .body(Body::from_stream(stream))
                    .unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn measures_ttft_within_2_ms_of_the_simulators_configured_delay() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(30, 2, 8)).await.unwrap();
    // As in a run: one client, its connection opened by a first request and then kept, so what is measured is
    // the request's path, not TCP set-up (which the engine benchmark measures apart; on a slow virtual machine a
    // debug build's connect alone took up to 0.7 ms and pushed a fresh connection's overhead past 2 ms).
    let (client, target, request) = (HttpClient::new().unwrap(), target(&sim.base_url()), request(true));
    let on_the_client = || {
        let call = Call {
            target: &target,
            request: &request,
            timeout: Duration::from_secs(5),
            intended: tokio::time::Instant::now(),
        };
        measure(&client, call)
    };
    assert_eq!(on_the_client().await.error, None, "the first request opens the connection");
    let (mut ttfts, mut tpots) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let m = on_the_client().await;
        assert_eq!(m.error, None);
        ttfts.push(m.ttft_ms().unwrap());
        // The simulator's own clock says when it received the request and wrote the first token; the engine's
        // TTFT must contain that interval (0.2 ms of slack for the two clocks' rounding).
        let server = m.server_timing.unwrap().time_to_first_output_ms().unwrap();
        assert!(server >= 29.9, "the simulator wrote the first token after {server} ms");
        assert!(m.ttft_ms().unwrap() + 0.2 >= server, "TTFT {:?} shorter than the server's {server}", m.ttft_ms());
        assert_eq!(m.tokens_out, Some(8));
        assert_eq!(m.token_source, TokenSource::Reported);
        assert_eq!(m.timeline.chunks.len(), 8, "one content chunk per token; the role chunk does not count");
        assert_eq!(m.finish_reason.as_deref(), Some("stop"));
        tpots.push(m.tpot_ms().unwrap());
    }
    // Medians of the five: on a loaded machine one request's first token can come a few ms late, and the tokens
    // after it, due on the simulator's fixed schedule, then come closer together.
    ttfts.sort_by(f64::total_cmp);
    tpots.sort_by(f64::total_cmp);
    let median = ttfts[2];
    assert!((30.0..32.0).contains(&median), "median TTFT {median} ms for a configured 30 ms: {ttfts:?}");
    assert!((1.5..4.0).contains(&tpots[2]), "inter-token 2 ms, measured TPOT: {tpots:?}");
}

/// The simulator's count of connections it accepted (this request's own included: it comes on a new client).
async fn connections_accepted(sim: &sim::SimHandle) -> u64 {
    let stats: serde_json::Value =
        reqwest::get(format!("http://{}/sim/stats", sim.addr())).await.unwrap().json().await.unwrap();
    stats["connections"].as_u64().unwrap()
}

/// Connections opened ahead are one per request to come, and those requests go out on them: the server sees no
/// further connection when they are sent all at once.
#[tokio::test]
async fn connections_opened_ahead_carry_the_first_round() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(5, 1, 4)).await.unwrap();
    let (client, to_sim) = (HttpClient::new().unwrap(), target(&sim.base_url()));
    let opened = open_connections(&client, &to_sim, 5, Duration::from_secs(5)).await;
    assert_eq!((opened.asked, opened.kept, opened.http2), (5, 5, false));
    assert_eq!(connections_accepted(&sim).await, 5 + 1, "five opened ahead, one for the count");

    let request = request(true);
    let sends = (0..5).map(|_| {
        let call = Call {
            target: &to_sim,
            request: &request,
            timeout: Duration::from_secs(5),
            intended: tokio::time::Instant::now(),
        };
        measure(&client, call)
    });
    let measured = futures::future::join_all(sends).await;
    assert!(measured.iter().all(|m| m.error.is_none() && m.retried.is_empty()), "{measured:?}");
    assert_eq!(connections_accepted(&sim).await, 5 + 2, "the five requests opened none: only the two counts did");

    // Nothing answers: nothing is kept, and the wait is bounded.
    let nobody = target("http://127.0.0.1:9/v1");
    let opened = open_connections(&client, &nobody, 3, Duration::from_secs(2)).await;
    assert_eq!((opened.asked, opened.kept), (3, 0));
}

#[tokio::test]
async fn a_non_streamed_request_has_a_total_but_no_ttft() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(20, 1, 10)).await.unwrap();
    let m = run(&sim.base_url(), &request(false), Duration::from_secs(5)).await;
    assert_eq!(m.error, None);
    assert_eq!(m.ttft_ms(), None);
    assert!(m.total_ms() >= 29.0, "20 ms + 9 × 1 ms, measured {}", m.total_ms());
    // "Say something" is Say, ' som', ethi, ng to the simulator's tokenizer; its template adds the role and the
    // answer's start.
    assert_eq!((m.tokens_in, m.tokens_out), (Some(6), Some(10)));
    assert_eq!(m.cached_tokens, Some(0), "usage.prompt_tokens_details.cached_tokens is kept");
}

#[tokio::test]
async fn http_errors_connect_failures_and_timeouts_are_classified_with_timings() {
    let base = scripted(429, vec![br#"{"error":{"message":"Rate limit reached"}}"#]).await;
    let m = run(&base, &request(true), Duration::from_secs(5)).await;
    let error = m.error.unwrap();
    assert_eq!((error.class, error.code.as_str()), (ErrorClass::Http, "http_429"));
    assert!(error.detail.contains("Rate limit"));

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let m = run(&format!("http://{addr}/v1"), &request(true), Duration::from_secs(5)).await;
    assert_eq!(m.error.unwrap().class, ErrorClass::Connect);

    let sim = sim::spawn_local(SimConfig::fixed_ms(2_000, 1, 4)).await.unwrap();
    let m = run(&sim.base_url(), &request(true), Duration::from_millis(200)).await;
    assert_eq!(m.error.as_ref().unwrap().class, ErrorClass::Timeout);
    assert!(m.timeline.headers_us.is_some(), "headers arrived before the first token");
    assert!((200.0..1_000.0).contains(&m.total_ms()), "{}", m.total_ms());
}

const ROLE: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
const HELLO: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"}}]}\n\n";
const STOP: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
const DONE: &[u8] = b"data: [DONE]\n\n";

#[tokio::test]
async fn hostile_streams_become_the_right_error_class() {
    let cases: Vec<(Vec<&'static [u8]>, ErrorClass)> = vec![
        (
            vec![ROLE, HELLO, b"data: {\"error\":{\"message\":\"upstream died\",\"code\":500}}\n\n"],
            ErrorClass::StreamError,
        ),
        (
            vec![ROLE, HELLO, b"event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"Overloaded\"}}\n\n"],
            ErrorClass::StreamError,
        ),
        (vec![ROLE, HELLO], ErrorClass::Truncated),
        (vec![ROLE, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel"], ErrorClass::Truncated),
        (vec![ROLE, b"data: {not json}\n\n", DONE], ErrorClass::Malformed),
        (vec![ROLE, b"data: \xff\xfe\n\n", DONE], ErrorClass::Malformed),
        (vec![ROLE, STOP, DONE], ErrorClass::NoTokens),
    ];
    for (pieces, class) in cases {
        let base = scripted(200, pieces).await;
        let m = run(&base, &request(true), Duration::from_secs(5)).await;
        let error = m.error.unwrap_or_else(|| panic!("expected {class:?}"));
        assert_eq!(error.class, class, "{}", error.detail);
        assert_eq!(m.status, Some(200));
    }
}

#[tokio::test]
async fn comments_and_split_chunks_do_not_start_the_clock_and_missing_usage_is_estimated() {
    let base = scripted(
        200,
        vec![
            b": OPENROUTER PROCESSING\n\n",
            ROLE,
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"con",
            b"tent\":\"Hello there\"}}]}\n",
            b"\n",
            STOP,
            DONE,
        ],
    )
    .await;
    let m = run(&base, &request(true), Duration::from_secs(5)).await;
    assert_eq!(m.error, None);
    assert_eq!(m.timeline.chunks.len(), 1);
    assert!(m.timeline.first_token_us.unwrap() >= m.timeline.first_byte_us.unwrap());
    assert_eq!(m.token_source, TokenSource::Estimated);
    assert_eq!(m.tokens_out, Some(3), "11 characters / 4, rounded up");
}

#[tokio::test]
async fn an_endpoint_rejecting_stream_options_is_recognised() {
    let base =
        scripted(400, vec![br#"{"error":{"message":"Unrecognized request argument supplied: stream_options"}}"#]).await;
    let m = run(&base, &request(true), Duration::from_secs(5)).await;
    assert!(rejects_stream_options(&m), "{:?}", m.error);
}

#[tokio::test]
async fn every_injected_simulator_fault_becomes_its_error_class() {
    use latency_guard::sim::Fault;
    let cases = [
        (Fault::RateLimit, ErrorClass::Http),
        (Fault::ServerError, ErrorClass::Http),
        (Fault::MidStreamError, ErrorClass::StreamError),
        (Fault::Truncated, ErrorClass::Truncated),
        (Fault::Reset, ErrorClass::Reset),
        (Fault::Stall, ErrorClass::Timeout),
    ];
    for (fault, class) in cases {
        let config = SimConfig {
            fault_rate: 1.0,
            faults: vec![fault],
            ..SimConfig::fixed(Duration::from_millis(1), Duration::from_millis(1), 8)
        };
        let sim = sim::spawn(config, SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
        let m = run(&sim.base_url(), &request(true), Duration::from_millis(500)).await;
        let error = m.error.clone().unwrap_or_else(|| panic!("{fault:?} gave no error"));
        assert_eq!(error.class, class, "{fault:?}: {}", error.detail);
        if fault == Fault::RateLimit {
            assert_eq!(m.retry_after_ms, Some(20), "retry-after-ms is read before retry-after");
        }
        if matches!(fault, Fault::MidStreamError | Fault::Truncated | Fault::Reset | Fault::Stall) {
            // A reset (TCP RST) discards whatever the receiver had not read yet, so it can swallow any of the bytes
            // written before it, all of them on a loaded machine; every other fault keeps all four chunks.
            let kept = m.timeline.chunks.len();
            let expected = if fault == Fault::Reset { 0..=4 } else { 4..=4 };
            assert!(expected.contains(&kept), "{fault:?}: {kept} chunks recorded before the fault");
            assert_eq!(m.ttft_ms().is_some(), kept > 0, "{fault:?}: TTFT is measured when a chunk arrived");
        }
    }
}
