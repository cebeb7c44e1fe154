//! The engine's own HTTP/1.1 client (`engine::http1`, for `http://` endpoints) against a server that answers raw
//! bytes a test scripts: what goes on the wire, every framing a body may have, when a connection is kept and when
//! not, and how broken answers are named.

use latency_guard::engine::{measure, Call, ChatRequest, HttpClient};
use latency_guard::model::{ErrorClass, Measurement};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::common;

/// What the server does after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// Waits for the next request on the connection.
    Keep,
    /// Closes the connection.
    Close,
}

/// One scripted answer: its bytes, written as separate pieces, and what follows it.
struct Answer {
    pieces: Vec<Vec<u8>>,
    after: After,
}

fn answer(pieces: &[&str], after: After) -> Answer {
    Answer { pieces: pieces.iter().map(|p| p.as_bytes().to_vec()).collect(), after }
}

/// A server answering each request with the next scripted answer (and closing when none is left).
struct Raw {
    base: String,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
    /// Every request as it arrived, head and body.
    requests: Arc<Mutex<Vec<Vec<u8>>>>,
    /// A message each time the server closed a connection.
    closed: mpsc::UnboundedReceiver<()>,
}

async fn raw(answers: Vec<Answer>) -> Raw {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let answers = Arc::new(Mutex::new(VecDeque::from(answers)));
    let (accepted, requests) = (Arc::new(AtomicUsize::new(0)), Arc::new(Mutex::new(Vec::new())));
    let (closed_tx, closed) = mpsc::unbounded_channel();
    let (count, seen) = (Arc::clone(&accepted), Arc::clone(&requests));
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.set_nodelay(true).unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            let (answers, seen, closed_tx) = (Arc::clone(&answers), Arc::clone(&seen), closed_tx.clone());
            tokio::spawn(async move {
                while let Some(request) = read_request(&mut socket).await {
                    seen.lock().unwrap().push(request);
                    let Some(answer) = answers.lock().unwrap().pop_front() else { break };
                    for piece in &answer.pieces {
                        if socket.write_all(piece).await.is_err() {
                            break;
                        }
                        socket.flush().await.unwrap();
                        tokio::task::yield_now().await;
                    }
                    if answer.after == After::Close {
                        break;
                    }
                }
                drop(socket);
                let _ = closed_tx.send(());
            });
        }
    });
    Raw { base, accepted, requests, closed }
}

/// Whether `bytes` hold a whole request: its head and its `content-length` body.
fn whole_request(bytes: &[u8]) -> bool {
    let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
    let length: usize =
        head.lines().find_map(|line| line.strip_prefix("content-length: ")).map_or(0, |n| n.trim().parse().unwrap());
    bytes.len() >= end + 4 + length
}

/// A request's head and its `content-length` body; `None` when the client closed first.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if whole_request(&bytes) {
            return Some(bytes);
        }
        match socket.read(&mut buffer).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
        }
    }
}

const HEAD_CHUNKED: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
const EVENTS: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n\
                      data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\n\n\
                      data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\
                      \"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n\
                      data: [DONE]\n\n";

/// `EVENTS` as a chunked body: one chunk per event, each chunk's size line and data written apart.
fn chunked_events() -> Vec<String> {
    let mut pieces = vec![HEAD_CHUNKED.to_string()];
    for event in EVENTS.split_inclusive("\n\n") {
        pieces.push(format!("{:x}\r\n", event.len()));
        pieces.push(format!("{event}\r\n"));
    }
    pieces.push("0\r\n\r\n".into());
    pieces
}

fn streamed() -> ChatRequest {
    common::chat_request("m", "Say hello", 16, true)
}

async fn measure_at(client: &HttpClient, base: &str, request: &ChatRequest) -> Measurement {
    let target = common::any_target(base, Some("sk-wire"), &[("x-extra", "1")]);
    let call =
        Call { target: &target, request, timeout: Duration::from_secs(5), intended: tokio::time::Instant::now() };
    measure(client, call).await
}

fn assert_hello_there(m: &Measurement) {
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!((m.status, m.tokens_out, m.timeline.chunk_count()), (Some(200), Some(2), 2), "{m:?}");
    assert_eq!(m.finish_reason.as_deref(), Some("stop"));
}

#[tokio::test]
async fn a_request_goes_out_whole_with_its_host_length_and_the_targets_fields() {
    let pieces: Vec<String> = chunked_events();
    let server = raw(vec![answer(&pieces.iter().map(String::as_str).collect::<Vec<_>>(), After::Keep)]).await;
    let m = measure_at(&HttpClient::new().unwrap(), &server.base, &streamed()).await;
    assert_hello_there(&m);

    let request = server.requests.lock().unwrap()[0].clone();
    let text = String::from_utf8(request).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    assert_eq!(lines.next(), Some("POST /v1/chat/completions HTTP/1.1"));
    let fields: Vec<&str> = lines.collect();
    let port = server.base.trim_start_matches("http://127.0.0.1:").trim_end_matches("/v1");
    for field in [
        format!("host: 127.0.0.1:{port}"),
        "content-type: application/json".into(),
        "authorization: Bearer sk-wire".into(),
        "x-extra: 1".into(),
        format!("content-length: {}", body.len()),
        "accept: */*".into(),
    ] {
        assert!(fields.contains(&field.as_str()), "{field:?} in {fields:?}");
    }
    assert!(fields.iter().any(|f| f.starts_with("user-agent: latency-guard/")), "{fields:?}");
    let sent: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(sent, serde_json::to_value(streamed()).unwrap());
}

#[tokio::test]
async fn a_body_framed_by_chunks_by_length_or_by_the_close_is_read_alike() {
    let chunked = chunked_events();
    let mut split_anywhere = vec![HEAD_CHUNKED.to_string()];
    let whole = format!("{:x};ext=1\r\n{EVENTS}\r\n0\r\nx-trailer: 1\r\n\r\n", EVENTS.len());
    // The framing and the events cut at every seventh byte, across size lines, data and line ends.
    split_anywhere.extend(whole.as_bytes().chunks(7).map(|c| String::from_utf8(c.to_vec()).unwrap()));
    let length = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{EVENTS}",
        EVENTS.len()
    );
    let until_close = format!("HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{EVENTS}");
    let cases: Vec<(&str, Vec<String>, After)> = vec![
        ("chunked", chunked, After::Keep),
        ("chunked, split anywhere, with an extension and a trailer", split_anywhere, After::Keep),
        ("content-length", vec![length], After::Keep),
        ("until the close (HTTP/1.0)", vec![until_close], After::Close),
    ];
    let client = HttpClient::new().unwrap();
    for (name, pieces, after) in cases {
        let server = raw(vec![answer(&pieces.iter().map(String::as_str).collect::<Vec<_>>(), after)]).await;
        let m = measure_at(&client, &server.base, &streamed()).await;
        assert!(m.error.is_none(), "{name}: {:?}", m.error);
        assert_eq!((m.tokens_out, m.timeline.chunk_count()), (Some(2), 2), "{name}");
        assert!(m.timeline.headers_us <= m.timeline.first_byte_us, "{name}: {:?}", m.timeline);
    }
}

#[tokio::test]
async fn a_kept_connection_carries_the_next_request_unless_the_server_closed_it_or_answered_out_of_step() {
    let events = chunked_events();
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let client = HttpClient::new().unwrap();

    // Two answers on one connection.
    let server = raw(vec![answer(&events, After::Keep), answer(&events, After::Keep)]).await;
    for _ in 0..2 {
        assert_hello_there(&measure_at(&client, &server.base, &streamed()).await);
    }
    assert_eq!(server.accepted.load(Ordering::SeqCst), 1, "the second request went on the kept connection");

    // The server closed the kept connection before the next request: a new one is opened, and nothing is lost.
    let mut server = raw(vec![answer(&events, After::Close), answer(&events, After::Keep)]).await;
    assert_hello_there(&measure_at(&client, &server.base, &streamed()).await);
    server.closed.recv().await.unwrap();
    let m = measure_at(&client, &server.base, &streamed()).await;
    assert_hello_there(&m);
    assert!(m.retried.is_empty(), "the closed connection was seen before a request went on it: {:?}", m.retried);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);

    // Bytes after the body (no request asked for them) and `connection: close`: neither connection is kept.
    // (In the last chunk's write, so that they arrive with it.)
    let mut extra = events.clone();
    let last_with_more = format!("{}HTTP/1.1 200 OK\r\n", extra.pop().unwrap());
    extra.push(&last_with_more);
    let closing = HEAD_CHUNKED.replace("\r\n\r\n", "\r\nconnection: close\r\n\r\n");
    let mut closing_events = events.clone();
    closing_events[0] = &closing;
    let server =
        raw(vec![answer(&extra, After::Keep), answer(&closing_events, After::Keep), answer(&events, After::Keep)])
            .await;
    for _ in 0..3 {
        assert_hello_there(&measure_at(&client, &server.base, &streamed()).await);
    }
    assert_eq!(server.accepted.load(Ordering::SeqCst), 3, "a new connection after each of the first two");
}

#[tokio::test]
async fn broken_answers_are_named_by_what_broke() {
    let head_then = |rest: &str| vec![HEAD_CHUNKED.to_string(), rest.to_string()];
    let cases: Vec<(&str, Vec<String>, ErrorClass, &str)> = vec![
        ("not HTTP", vec!["HELLO\r\n\r\n".into()], ErrorClass::Malformed, "not HTTP/1.x"),
        ("no answer at all", vec![], ErrorClass::Request, "closed the connection before answering"),
        (
            "cut in the head",
            vec!["HTTP/1.1 200 OK\r\ncontent-".into()],
            ErrorClass::Request,
            "middle of the response head",
        ),
        ("a chunk size that is not hex", head_then("zz\r\ndata: x\n\n\r\n"), ErrorClass::Malformed, "chunked framing"),
        ("cut before the last chunk", head_then("5\r\ndata:"), ErrorClass::Reset, "before the response's body ended"),
        (
            "shorter than its length",
            vec!["HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\ndata: [DONE]\n\n".into()],
            ErrorClass::Reset,
            "before the response's body ended",
        ),
        (
            "two lengths",
            vec!["HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\n".into()],
            ErrorClass::Malformed,
            "content-length",
        ),
    ];
    let client = HttpClient::new().unwrap();
    for (name, pieces, class, words) in cases {
        let server = raw(vec![answer(&pieces.iter().map(String::as_str).collect::<Vec<_>>(), After::Close)]).await;
        let m = measure_at(&client, &server.base, &streamed()).await;
        let error = m.error.unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(error.class, class, "{name}: {}", error.detail);
        assert!(error.detail.contains(words), "{name}: {}", error.detail);
        assert!(m.retried.is_empty(), "{name}: a fresh connection is never re-sent on: {:?}", m.retried);
    }
}

/// A token that arrives while the client's one thread is busy is timed by when it reached the socket, not when the
/// thread got to it: the thread is held for 60 ms from before the token is written, and the token's instant is
/// still the server's write, within milliseconds.
#[tokio::test(flavor = "current_thread")]
async fn a_token_is_timed_when_it_arrived_even_when_the_client_was_busy() {
    use std::io::{Read, Write};
    use std::sync::atomic::AtomicBool;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let role_written = Arc::new(AtomicBool::new(false));
    let (written_tx, written) = std::sync::mpsc::channel();
    let flag = Arc::clone(&role_written);
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        socket.set_nodelay(true).unwrap();
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !whole_request(&request) {
            let n = socket.read(&mut buffer).unwrap();
            request.extend_from_slice(&buffer[..n]);
        }
        let role = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n";
        write!(socket, "{HEAD_CHUNKED}{:x}\r\n{role}\r\n", role.len()).unwrap();
        flag.store(true, Ordering::SeqCst);
        // The client's thread is now being held; the token comes 10 ms into that.
        std::thread::sleep(Duration::from_millis(10));
        let mut rest = String::new();
        for event in EVENTS.split_inclusive("\n\n") {
            rest.push_str(&format!("{:x}\r\n{event}\r\n", event.len()));
        }
        rest.push_str("0\r\n\r\n");
        socket.write_all(rest.as_bytes()).unwrap();
        written_tx.send(tokio::time::Instant::now()).unwrap();
        // Held until the client closes.
        let _ = socket.read(&mut buffer);
    });
    let hog = tokio::spawn(async move {
        while !role_written.load(Ordering::SeqCst) {
            tokio::task::yield_now().await;
        }
        // Busy with other work: the whole thread, as a client's one core is when many streams need it at once.
        std::thread::sleep(Duration::from_millis(60));
    });
    let intended = tokio::time::Instant::now();
    let target = common::any_target(&base, None, &[]);
    let request = streamed();
    let call = Call { target: &target, request: &request, timeout: Duration::from_secs(5), intended };
    let m = measure(&HttpClient::new().unwrap(), call).await;
    hog.await.unwrap();
    assert_hello_there(&m);
    let written = written.recv().unwrap();
    let first_token = intended
        + Duration::from_micros(m.timeline.schedule_lag_us)
        + Duration::from_micros(m.timeline.first_token_us.unwrap());
    let late = first_token.saturating_duration_since(written);
    assert!(first_token + Duration::from_millis(1) >= written, "not before it was written");
    assert!(late < Duration::from_millis(20), "timed {late:?} after it was written; the thread was held 50 ms more");
}
