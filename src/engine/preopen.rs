//! Opening a run's connections before its first measured request.
//!
//! A closed-loop run's first round sends all its requests in the same instant. On an empty pool each of them first
//! opens its connection (TCP, and TLS for https), and that set-up lands in the first round's times while every later
//! round reuses the connections: the first round measured something else. On loopback at 256 streams it put the
//! first round's p99 TTFT overhead at 36 ms against 4 ms on open connections (`benches/engine.rs`, table 3); over the
//! internet one TLS handshake is tens of milliseconds. So the pool is filled first: one `HEAD {base}/models` per
//! connection the run will hold, all at once so that each needs a connection of its own. Any HTTP answer will do
//! (a 404 or 405 leaves the connection open just as well), and a HEAD answer has no body to read, so the connection
//! goes back to the pool at once. None of this is measured.

use futures::future::join_all;
use reqwest::header::CONNECTION;
use std::time::Duration;

use super::connection_test::{HttpClient, Route};
use super::http1::{Connections, Destination, Http1Client, Method, Outgoing};
use super::request::RequestTarget;
use crate::model::OpenedAhead;

/// Opens up to `count` pooled connections to the target, each with one unmeasured `HEAD {base}/models`, and
/// waits at most `timeout` for all of them. A connection the server refused, failed or announced it would close
/// is not counted; the run's first request on it then opens its own, as it would have anyway.
pub async fn open_connections(
    client: &HttpClient,
    target: &RequestTarget,
    count: u32,
    timeout: Duration,
) -> OpenedAhead {
    let nothing = OpenedAhead { asked: count, kept: 0, http2: false };
    let Ok(headers) = target.header_map() else {
        // The run's own requests will fail with this reason; nothing to open ahead.
        return nothing;
    };
    // Refused: the run's own requests say why.
    let Ok(route) = client.route(target, "models") else { return nothing };
    let answers: Vec<(bool, bool)> = match route {
        Route::Own { client, destination } => open_own(client, &destination, &headers, count, timeout).await,
        Route::Reqwest { pooled, url, .. } => open_reqwest(pooled, &url, &headers, count, timeout).await,
    };
    let kept = answers.iter().filter(|(kept, _)| *kept).count();
    OpenedAhead {
        asked: count,
        kept: u32::try_from(kept).unwrap_or(u32::MAX),
        http2: answers.iter().any(|(_, http2)| *http2),
    }
}

/// Through the engine's own client: each answer says whether its connection was kept (never HTTP/2).
async fn open_own(
    client: &Http1Client,
    destination: &Destination,
    headers: &reqwest::header::HeaderMap,
    count: u32,
    timeout: Duration,
) -> Vec<(bool, bool)> {
    // All sends are polled once before any answer can arrive, so none finds another's connection idle.
    let opens = (0..count).map(|_| async move {
        let head = Outgoing::<()> { method: Method::Head, headers, body: None };
        match tokio::time::timeout(timeout, client.send(destination, head, Connections::Kept)).await {
            // The answer has no body: its connection went back to the pool as the head was read.
            Ok(Ok(response)) => Some((response.head.keep_alive, false)),
            _ => None,
        }
    });
    join_all(opens).await.into_iter().flatten().collect()
}

/// Through reqwest: each answer says whether its connection was kept and whether it speaks HTTP/2.
async fn open_reqwest(
    client: &reqwest::Client,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    count: u32,
    timeout: Duration,
) -> Vec<(bool, bool)> {
    let opens = (0..count).map(|_| {
        let request = client.head(url).headers(headers.clone()).send();
        async move {
            match tokio::time::timeout(timeout, request).await {
                Ok(Ok(response)) => Some((!announces_close(&response), response.version() == reqwest::Version::HTTP_2)),
                _ => None,
            }
        }
    });
    join_all(opens).await.into_iter().flatten().collect()
}

/// `Connection: close`, or HTTP/1.0 (whose connections close unless the server says otherwise).
fn announces_close(response: &reqwest::Response) -> bool {
    let says = |word: &str| {
        response
            .headers()
            .get_all(CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.split(',').any(|token| token.trim().eq_ignore_ascii_case(word)))
    };
    says("close") || (response.version() == reqwest::Version::HTTP_10 && !says("keep-alive"))
}
