//! Hostile endpoints: the ways real endpoints (and attackers) misbehave, one per kind, for the reliability
//! catalogue (`docs/RELIABILITY.md`), its tests and its memory benchmark. `latency-guard sim --hostile KIND` serves
//! one on `POST /v1/chat/completions`, so every case can be reproduced with `latency-guard bench` by hand.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures::StreamExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One way of misbehaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// Accepts the request and never sends a byte.
    HangBeforeHeaders,
    /// Sends the headers and two chunks, then nothing, forever.
    HangMidStream,
    /// A valid stream sent one byte every 2 ms.
    Drip,
    /// Tiny content chunks as fast as the socket takes them, for 3 s, then a proper end.
    Flood,
    /// Content chunks every millisecond, never ending.
    EndlessStream,
    /// A `data:` line that never ends.
    GiantLine,
    /// A 200 body that never ends (whether streaming was asked for or not).
    GiantBody,
    /// A 500 whose body never ends.
    EndlessErrorBody,
    /// A stream whose second event is not UTF-8.
    InvalidUtf8,
    /// A chunk of the wrong shape (`choices` an object).
    WrongShape,
    /// A `data:` line that is not JSON (an HTML fragment) mid-stream.
    NonJsonLine,
    /// A 502 with an HTML error page, as proxies send.
    HtmlError,
    /// A 429 asking to wait eleven days.
    AbsurdRetryAfter,
    /// A redirect elsewhere.
    Redirect,
    /// Echoes the request's credentials back: in a 401 body, an SSE error event, a non-JSON line, and padded to
    /// straddle the cuts at 240 and 300 characters (requests take these shapes in turn).
    EchoSecrets,
}

impl Hostile {
    /// Every kind, as named on the command line.
    pub const ALL: [(&'static str, Hostile); 15] = [
        ("hang-before-headers", Self::HangBeforeHeaders),
        ("hang-mid-stream", Self::HangMidStream),
        ("drip", Self::Drip),
        ("flood", Self::Flood),
        ("endless-stream", Self::EndlessStream),
        ("giant-line", Self::GiantLine),
        ("giant-body", Self::GiantBody),
        ("endless-error-body", Self::EndlessErrorBody),
        ("invalid-utf8", Self::InvalidUtf8),
        ("wrong-shape", Self::WrongShape),
        ("non-json-line", Self::NonJsonLine),
        ("html-error", Self::HtmlError),
        ("absurd-retry-after", Self::AbsurdRetryAfter),
        ("redirect", Self::Redirect),
        ("echo-secrets", Self::EchoSecrets),
    ];

    /// Parses a name from [`Hostile::ALL`].
    pub fn parse(name: &str) -> Result<Self, crate::sim::SimOptionError> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, h)| *h)
            .ok_or_else(|| crate::sim::SimOptionError::UnknownHostile(name.into()))
    }

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, h)| *h == self).map_or("?", |(n, _)| n)
    }
}

const ROLE: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
const HELLO: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n";
const TINY: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n";
const STOP: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
const DONE: &[u8] = b"data: [DONE]\n\n";

/// How long the flood lasts.
const FLOOD_FOR: Duration = Duration::from_secs(3);

type Chunks = futures::stream::BoxStream<'static, Result<Bytes, std::io::Error>>;

fn response(status: StatusCode, content_type: &'static str, body: Body) -> Response {
    (status, [("content-type", content_type)], body).into_response()
}

fn stream_of(status: StatusCode, content_type: &'static str, chunks: Chunks) -> Response {
    response(status, content_type, Body::from_stream(chunks))
}

fn pieces(parts: Vec<&'static [u8]>) -> Chunks {
    futures::stream::iter(parts.into_iter().map(|p| Ok(Bytes::from_static(p)))).boxed()
}

/// `first`, then the same piece forever (1 KiB pieces, as fast as they are read).
fn endless(first: &'static [u8], piece: u8) -> Chunks {
    let piece = Bytes::from(vec![piece; 1024]);
    futures::stream::once(async move { Ok(Bytes::from_static(first)) })
        .chain(futures::stream::repeat_with(move || Ok(piece.clone())))
        .boxed()
}

/// The routes of one hostile endpoint.
pub fn router(kind: Hostile) -> Router {
    let turn = Arc::new(AtomicUsize::new(0));
    Router::new().route(
        "/v1/chat/completions",
        post(move |uri: Uri, headers: HeaderMap| {
            let n = turn.fetch_add(1, Ordering::SeqCst);
            async move { answer(kind, n, &uri, &headers).await }
        }),
    )
}

async fn answer(kind: Hostile, n: usize, uri: &Uri, headers: &HeaderMap) -> Response {
    const SSE: &str = "text/event-stream";
    match kind {
        Hostile::HangBeforeHeaders => std::future::pending().await,
        Hostile::HangMidStream => {
            let chunks = pieces(vec![ROLE, HELLO]).chain(futures::stream::pending()).boxed();
            stream_of(StatusCode::OK, SSE, chunks)
        }
        Hostile::Drip => {
            let bytes: Vec<u8> = [ROLE, HELLO, HELLO, STOP, DONE].concat();
            let chunks = futures::stream::iter(bytes)
                .then(|b| async move {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    Ok(Bytes::from(vec![b]))
                })
                .boxed();
            stream_of(StatusCode::OK, SSE, chunks)
        }
        Hostile::Flood => stream_of(StatusCode::OK, SSE, flood()),
        Hostile::EndlessStream => {
            let chunks = futures::stream::once(async { Ok(Bytes::from_static(ROLE)) })
                .chain(futures::stream::unfold((), |()| async {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    Some((Ok(Bytes::from_static(TINY)), ()))
                }))
                .boxed();
            stream_of(StatusCode::OK, SSE, chunks)
        }
        Hostile::GiantLine => stream_of(StatusCode::OK, SSE, endless(b"data: {\"choices\":\"", b'a')),
        Hostile::GiantBody => stream_of(StatusCode::OK, "application/json", endless(b"{\"choices\":\"", b'a')),
        Hostile::EndlessErrorBody => stream_of(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", endless(b"", b'e')),
        Hostile::InvalidUtf8 => stream_of(StatusCode::OK, SSE, pieces(vec![ROLE, b"data: \xff\xfe\xfd\n\n", DONE])),
        Hostile::WrongShape => {
            stream_of(StatusCode::OK, SSE, pieces(vec![ROLE, b"data: {\"choices\":{\"delta\":\"x\"}}\n\n", DONE]))
        }
        Hostile::NonJsonLine => {
            stream_of(StatusCode::OK, SSE, pieces(vec![ROLE, HELLO, b"data: <html>upstream hiccup</html>\n\n", DONE]))
        }
        Hostile::HtmlError => {
            let page = format!(
                "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>{}</body></html>",
                "<!-- padding -->".repeat(100)
            );
            response(StatusCode::BAD_GATEWAY, "text/html", Body::from(page))
        }
        Hostile::AbsurdRetryAfter => {
            let body = r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#;
            (
                StatusCode::TOO_MANY_REQUESTS,
                [("content-type", "application/json"), ("retry-after", "999999999"), ("retry-after-ms", "1e15")],
                body,
            )
                .into_response()
        }
        Hostile::Redirect => {
            (StatusCode::TEMPORARY_REDIRECT, [("location", "http://127.0.0.1:9/v1/chat/completions")]).into_response()
        }
        Hostile::EchoSecrets => echo(n, uri, headers),
    }
}

fn flood() -> Chunks {
    let batch = Bytes::from(TINY.repeat(64));
    let until = tokio::time::Instant::now() + FLOOD_FOR;
    futures::stream::unfold(false, move |ended| {
        let batch = batch.clone();
        async move {
            if ended {
                return None;
            }
            if tokio::time::Instant::now() >= until {
                return Some((Ok(Bytes::from([STOP, DONE].concat())), true));
            }
            tokio::task::yield_now().await;
            Some((Ok(batch), false))
        }
    })
    .boxed()
}

/// Everything the request carried that could be secret (every header value and the URL), in shape `n mod 4`.
/// How many shapes the echo takes, one per request in turn.
pub const ECHO_SHAPES: usize = 8;

/// The request's URL and headers sent back, in the shape `n` picks: plainly quoted (a 401, an SSE error event, a
/// non-JSON stream line, padded to straddle the 240- and 300-character cuts), and then encoded as endpoints and
/// the proxies before them were seen to encode what they echo.
fn echo(n: usize, uri: &Uri, headers: &HeaderMap) -> Response {
    let mut quoted = format!("url {uri}; ");
    for (name, value) in headers {
        quoted.push_str(&format!("{name}: {}; ", value.to_str().unwrap_or("?")));
    }
    let hello = std::str::from_utf8(HELLO).unwrap_or_default();
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let key = auth.strip_prefix("Bearer ").unwrap_or(auth);
    let header = headers.get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let denied = |body: String| (StatusCode::UNAUTHORIZED, body).into_response();
    match n % ECHO_SHAPES {
        0 => denied(format!("{{\"error\":{{\"message\":\"denied: {quoted}\"}}}}")),
        1 => response(
            StatusCode::OK,
            "text/event-stream",
            Body::from(format!(
                "{hello}event: error\ndata: {{\"error\":{{\"message\":\"upstream said: {quoted}\"}}}}\n\n"
            )),
        ),
        2 => response(StatusCode::OK, "text/event-stream", Body::from(format!("{hello}data: {quoted}\n\n"))),
        3 => {
            let half = auth.len() / 2;
            let pad = |cut: usize, before: usize| "x".repeat(cut.saturating_sub(before + half));
            let first = format!("{}{auth} ", pad(240, 0));
            let second = format!("{}{auth} ", pad(300, first.chars().count()));
            denied(format!("{first}{second}and more"))
        }
        // A debugging proxy's dump: base64 of the request's lines, at each alignment the key can have in them.
        4 => {
            use base64::Engine as _;
            let (standard, url_safe) =
                (base64::engine::general_purpose::STANDARD, base64::engine::general_purpose::URL_SAFE_NO_PAD);
            denied(format!(
                "request dump {} {} {} {}",
                standard.encode(format!("x{key}")),
                standard.encode(format!("xy{key}")),
                standard.encode(format!("x-api-key: {header}")),
                url_safe.encode(format!("authorization: {auth}")),
            ))
        }
        // Bytes written out: hex, and every byte percent-encoded in upper and lower case.
        5 => {
            let hex = |text: &str| text.bytes().map(|b| format!("{b:02x}")).collect::<String>();
            let upper = |text: &str| text.bytes().map(|b| format!("%{b:02X}")).collect::<String>();
            let lower = |text: &str| text.bytes().map(|b| format!("%{b:02x}")).collect::<String>();
            denied(format!("raw {} {} {}", hex(key).to_uppercase(), upper(header), lower(key)))
        }
        // Escaped for JSON (`\u00xx`) and for HTML (numeric character references).
        6 => {
            let unicode = |text: &str| text.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect::<String>();
            let entities = |text: &str| text.chars().map(|c| format!("&#{};", u32::from(c))).collect::<String>();
            denied(format!("{{\"detail\":\"{}\"}} <p>{}</p>", unicode(key), entities(header)))
        }
        // Mangled: the case swapped, split over a line break, and cut short in the middle of the text.
        _ => {
            let swapped: String = key
                .chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect();
            let (head, tail) = header.split_at(header.len() / 2);
            let cut: String = key.chars().take(12).collect();
            denied(format!("key {swapped} refused\nheader {head}\r\n{tail} refused\nthe key {cut}... is unknown"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_name_that_parses_back() {
        for (name, kind) in Hostile::ALL {
            assert_eq!(Hostile::parse(name), Ok(kind));
            assert_eq!(kind.name(), name);
        }
        assert!(Hostile::parse("nice").unwrap_err().to_string().contains("one of hang-before-headers"));
    }
}
