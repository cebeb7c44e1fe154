//! Hostile endpoints on loopback for reliability tests: servers that echo the credentials they were sent, never
//! stop talking, or flood. Each is a real HTTP server on port 0.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A running hostile server.
pub struct Hostile {
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Hostile {
    /// `http://addr/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(router: axum::Router) -> Hostile {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Hostile { addr, task }
}

/// Everything a request carried that could be secret: every header value and the URL.
fn echo_of(headers: &HeaderMap, uri: &Uri) -> String {
    let mut text = format!("url {uri}; ");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {}; ", value.to_str().unwrap_or("?")));
    }
    text
}

fn sse(body: String) -> Response {
    ([("content-type", "text/event-stream")], body).into_response()
}

/// The echo shapes, in turn (request n gets shape n mod 4): a 401 error body quoting every header; a 200
/// stream with an `event: error` quoting them; a 200 stream whose second line is not JSON but the headers; and a
/// 401 whose body is padded so that the `Authorization` value straddles character 240 (the connection test's
/// cut) and again character 300 (an iteration error's cut).
pub async fn echoing() -> Hostile {
    let counter = Arc::new(AtomicUsize::new(0));
    let router = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |uri: Uri, headers: HeaderMap| {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            async move {
                let echo = echo_of(&headers, &uri);
                match n % 4 {
                    0 => (StatusCode::UNAUTHORIZED, format!("{{\"error\":{{\"message\":\"denied: {echo}\"}}}}"))
                        .into_response(),
                    1 => sse(format!(
                        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"hi\"}}}}]}}\n\n\
                         event: error\ndata: {{\"error\":{{\"message\":\"upstream said: {echo}\"}}}}\n\n"
                    )),
                    2 => sse(format!(
                        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"hi\"}}}}]}}\n\ndata: {echo}\n\n"
                    )),
                    _ => {
                        let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default();
                        let half = auth.len() / 2;
                        let pad = |cut: usize, before: usize| "x".repeat(cut.saturating_sub(before + half));
                        let first = format!("{}{auth} ", pad(240, 0));
                        let second = format!("{}{auth} ", pad(300, first.chars().count()));
                        (StatusCode::UNAUTHORIZED, format!("{first}{second}and more")).into_response()
                    }
                }
            }
        }),
    );
    serve(router).await
}

/// Answers every request with `status` and a body that never ends (1 KiB pieces, as fast as they are read).
pub async fn endless_body(status: StatusCode) -> Hostile {
    let router = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || async move {
            let piece = Bytes::from(vec![b'a'; 1024]);
            let stream = futures::stream::repeat_with(move || Ok::<_, std::io::Error>(piece.clone()));
            (status, Body::from_stream(stream)).into_response()
        }),
    );
    serve(router).await
}

/// A 200 stream that floods tiny content chunks for `seconds`, then ends properly.
pub async fn flood(seconds: f64) -> Hostile {
    let router = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || async move {
            let until = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
            let frame = Bytes::from_static(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n");
            let mut batch = Vec::with_capacity(frame.len() * 64);
            for _ in 0..64 {
                batch.extend_from_slice(&frame);
            }
            let batch = Bytes::from(batch);
            let stream = futures::stream::unfold(false, move |ended| {
                let batch = batch.clone();
                async move {
                    if ended {
                        return None;
                    }
                    if std::time::Instant::now() >= until {
                        let tail = Bytes::from_static(
                            b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
                        );
                        return Some((Ok::<_, std::io::Error>(tail), true));
                    }
                    tokio::task::yield_now().await;
                    Some((Ok(batch), false))
                }
            });
            sse_stream(Body::from_stream(stream))
        }),
    );
    serve(router).await
}

fn sse_stream(body: Body) -> Response {
    Response::builder().header("content-type", "text/event-stream").body(body).unwrap()
}
