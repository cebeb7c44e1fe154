//! An HTTP/1.x response's head read from the bytes received so far (RFC 9112): its status, headers, and how its
//! body is framed. Pure: bytes in, a head or "not yet" out. The second piece of the engine reading responses itself
//! (issue 49), beside `chunked.rs`. Bounded: a head larger than [`MAX_HEAD_BYTES`] or with more than
//! [`MAX_HEADERS`] fields is refused, so a hostile server cannot make it hold more.

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};

/// The largest response head accepted (hyper's default limit is about 400 KiB; a model server's head is well
/// under 1 KiB).
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most header fields accepted in one head.
pub const MAX_HEADERS: usize = 128;

/// How the body after a head is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body (a response to HEAD, 204, 304).
    Empty,
    /// `Content-Length` bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked` (see `chunked.rs`).
    Chunked,
    /// Until the server closes the connection (no length given, or a transfer coding other than chunked last).
    UntilClose,
}

/// A response head.
#[derive(Debug, Clone)]
pub struct ResponseHead {
    /// The status.
    pub status: StatusCode,
    /// The header fields.
    pub headers: HeaderMap,
    /// How the body is delimited.
    pub framing: Framing,
    /// The connection can carry another request after this response's body.
    pub keep_alive: bool,
    /// Bytes of the input the head (and any informational responses before it) took.
    pub length: usize,
}

/// Why the bytes are not a response head.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeadError {
    /// Not an HTTP/1.x status line and header fields (the parser's reason).
    #[error("the response is not HTTP/1.x: {0}")]
    Malformed(String),
    /// The head did not end within [`MAX_HEAD_BYTES`].
    #[error("the response head exceeded {MAX_HEAD_BYTES} bytes")]
    TooLarge,
    /// More than [`MAX_HEADERS`] fields.
    #[error("the response head has more than {MAX_HEADERS} header fields")]
    TooManyHeaders,
    /// `Content-Length` that is not one number (or several that differ).
    #[error("the response's content-length is not one number")]
    BadLength,
}

/// Reads the head at the start of `bytes`, skipping informational (1xx) responses before it: `Ok(None)` while it
/// has not all arrived. `to_head_request` says the request was HEAD (its response has no body whatever it says).
pub fn read_head(bytes: &[u8], to_head_request: bool) -> Result<Option<ResponseHead>, HeadError> {
    let mut start = 0;
    loop {
        let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut response = httparse::Response::new(&mut fields);
        let parsed = match response.parse(&bytes[start..]) {
            Ok(parsed) => parsed,
            Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooManyHeaders),
            Err(e) => return Err(HeadError::Malformed(e.to_string())),
        };
        let httparse::Status::Complete(length) = parsed else {
            return match bytes.len() - start > MAX_HEAD_BYTES {
                true => Err(HeadError::TooLarge),
                false => Ok(None),
            };
        };
        if start + length > MAX_HEAD_BYTES {
            return Err(HeadError::TooLarge);
        }
        let code = response.code.unwrap_or_default();
        // 101 would switch protocols, which this request never asks for: read as a final answer (and refused later).
        if (100..200).contains(&code) && code != 101 {
            start += length;
            continue;
        }
        let status = StatusCode::from_u16(code).map_err(|e| HeadError::Malformed(e.to_string()))?;
        let version = if response.version == Some(0) { http::Version::HTTP_10 } else { http::Version::HTTP_11 };
        let mut headers = HeaderMap::with_capacity(response.headers.len());
        for field in response.headers.iter() {
            let name =
                HeaderName::from_bytes(field.name.as_bytes()).map_err(|e| HeadError::Malformed(e.to_string()))?;
            let value = HeaderValue::from_bytes(field.value).map_err(|e| HeadError::Malformed(e.to_string()))?;
            headers.append(name, value);
        }
        let framing = framing(status, &headers, to_head_request)?;
        let keep_alive = keeps_alive(version, &headers) && framing != Framing::UntilClose;
        return Ok(Some(ResponseHead { status, headers, framing, keep_alive, length: start + length }));
    }
}

/// RFC 9112 §6.3, in its order.
fn framing(status: StatusCode, headers: &HeaderMap, to_head_request: bool) -> Result<Framing, HeadError> {
    if to_head_request || status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED {
        return Ok(Framing::Empty);
    }
    if headers.contains_key(http::header::TRANSFER_ENCODING) {
        let last = tokens(headers, http::header::TRANSFER_ENCODING).last();
        return Ok(match last {
            Some(coding) if coding.eq_ignore_ascii_case("chunked") => Framing::Chunked,
            _ => Framing::UntilClose,
        });
    }
    let mut lengths = tokens(headers, http::header::CONTENT_LENGTH).map(|v| v.parse::<u64>());
    match lengths.next() {
        None => Ok(Framing::UntilClose),
        Some(Ok(length)) if lengths.all(|other| other == Ok(length)) => Ok(Framing::Length(length)),
        Some(_) => Err(HeadError::BadLength),
    }
}

/// HTTP/1.1 keeps the connection unless `Connection: close`; HTTP/1.0 closes it unless `Connection: keep-alive`.
fn keeps_alive(version: http::Version, headers: &HeaderMap) -> bool {
    let says = |word: &str| tokens(headers, http::header::CONNECTION).any(|t| t.eq_ignore_ascii_case(word));
    match version {
        http::Version::HTTP_10 => says("keep-alive"),
        _ => !says("close"),
    }
}

/// The comma-separated tokens of every field `name`, trimmed (a value that is not text gives none).
fn tokens(headers: &HeaderMap, name: HeaderName) -> impl Iterator<Item = &str> {
    headers
        .get_all(name)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> ResponseHead {
        read_head(text.as_bytes(), false).unwrap().unwrap()
    }

    #[test]
    fn an_event_streams_head_is_read_with_its_framing_and_length() {
        let text = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-sim-received-us: 17\r\n\
                    transfer-encoding: chunked\r\n\r\n5\r\ndata:";
        let head = head(text);
        assert_eq!((head.status, head.framing, head.keep_alive), (StatusCode::OK, Framing::Chunked, true));
        assert_eq!(head.headers["x-sim-received-us"], "17");
        assert_eq!(&text[head.length..], "5\r\ndata:");
    }

    #[test]
    fn a_head_not_yet_whole_is_waited_for_at_every_cut() {
        let text = b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 2\r\ncontent-length: 4\r\n\r\nslow";
        let end = text.len() - 4;
        for cut in 0..end {
            assert!(read_head(&text[..cut], false).unwrap().is_none(), "cut at {cut}");
        }
        let head = read_head(text, false).unwrap().unwrap();
        assert_eq!((head.status.as_u16(), head.framing, head.length), (429, Framing::Length(4), end));
    }

    #[test]
    fn informational_responses_before_the_answer_are_skipped() {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        let head = head(text);
        assert_eq!((head.status, head.framing, head.length), (StatusCode::OK, Framing::Length(0), text.len()));
    }

    #[test]
    fn framing_follows_rfc_9112_in_its_order() {
        assert_eq!(head("HTTP/1.1 204 No Content\r\ncontent-length: 9\r\n\r\n").framing, Framing::Empty);
        let answer = read_head(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\n", true).unwrap().unwrap();
        assert_eq!(answer.framing, Framing::Empty, "a response to HEAD has no body");
        let both = head("HTTP/1.1 200 OK\r\ncontent-length: 9\r\ntransfer-encoding: gzip, Chunked\r\n\r\n");
        assert_eq!(both.framing, Framing::Chunked, "transfer-encoding wins over content-length");
        let unframed = head("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n");
        assert_eq!((unframed.framing, unframed.keep_alive), (Framing::UntilClose, false));
        assert_eq!(head("HTTP/1.1 200 OK\r\ncontent-length: 7, 7\r\n\r\n").framing, Framing::Length(7));
        let differing = read_head(b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\ncontent-length: 8\r\n\r\n", false);
        assert_eq!(differing.unwrap_err(), HeadError::BadLength);
        assert_eq!(
            read_head(b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n", false).unwrap_err(),
            HeadError::BadLength
        );
    }

    #[test]
    fn which_connections_stay_open() {
        assert!(!head("HTTP/1.1 200 OK\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n").keep_alive);
        assert!(!head("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n").keep_alive);
        assert!(head("HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n").keep_alive);
    }

    #[test]
    fn broken_and_unbounded_heads_are_refused_by_name() {
        assert!(matches!(read_head(b"<html>hello</html>\r\n\r\n", false), Err(HeadError::Malformed(_))));
        assert!(matches!(read_head(b"HTTP/2 200\r\n\r\n", false), Err(HeadError::Malformed(_))));
        let mut many = b"HTTP/1.1 200 OK\r\n".to_vec();
        many.extend(std::iter::repeat_n(b"x-a: 1\r\n".as_slice(), MAX_HEADERS + 1).flatten());
        many.extend_from_slice(b"\r\n");
        assert_eq!(read_head(&many, false).unwrap_err(), HeadError::TooManyHeaders);
        let mut endless = b"HTTP/1.1 200 OK\r\nx-a: ".to_vec();
        endless.resize(MAX_HEAD_BYTES + 1, b'a');
        assert_eq!(read_head(&endless, false).unwrap_err(), HeadError::TooLarge);
    }
}
