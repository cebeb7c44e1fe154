//! Incremental decoding of an HTTP/1.1 chunked body (RFC 9112 §7.1): bytes in, split anywhere, the body's data out
//! as slices of the bytes given, with no copy. The first piece of the engine reading responses itself (issue 49):
//! hyper hands a body on one HTTP chunk at a time between two tasks, and a streamed answer is one chunk per event.
//!
//! Lenient where servers are (a bare LF ends a line as CRLF does; chunk extensions and trailers are skipped), strict
//! where a mistake would misframe the body (a size that is not hex, data not followed by its line end), and bounded:
//! a size line, the sizes themselves and the trailers each have a limit, so a hostile server cannot make it hold or
//! promise more than that.

use std::ops::ControlFlow;

/// The longest chunk-size line accepted, extensions included.
pub const MAX_SIZE_LINE_BYTES: usize = 1024;
/// The most trailer bytes accepted after the last chunk.
pub const MAX_TRAILER_BYTES: usize = 16 * 1024;
/// The largest single chunk accepted (far beyond any event stream's; a size beyond it is a broken or hostile body).
pub const MAX_CHUNK_BYTES: u64 = 1 << 40;

/// Why the bytes are not a chunked body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ChunkedError {
    /// A chunk-size line that does not start with hex digits, or says more than [`MAX_CHUNK_BYTES`].
    #[error("a chunk size that is not a hexadecimal number within bounds")]
    BadSize,
    /// A chunk-size line longer than [`MAX_SIZE_LINE_BYTES`] without ending.
    #[error("a chunk-size line exceeded {MAX_SIZE_LINE_BYTES} bytes")]
    SizeLineTooLong,
    /// A chunk's data not followed by its line end.
    #[error("a chunk's data was not followed by CRLF")]
    MissingLineEnd,
    /// More trailer bytes than [`MAX_TRAILER_BYTES`].
    #[error("the trailers exceeded {MAX_TRAILER_BYTES} bytes")]
    TrailersTooLong,
}

/// Where the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a chunk-size line (its bytes so far are in `size_line`).
    Size,
    /// Inside a chunk's data, this many bytes left.
    Data(u64),
    /// After a chunk's data: its CR (optional) and LF.
    DataEnd { saw_cr: bool },
    /// After the last chunk: trailer lines until an empty one (`line_empty`: nothing yet on the current line).
    Trailers { line_empty: bool },
    /// The body ended.
    Done,
}

/// How far one call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fed {
    /// Bytes of the input taken; fewer than given only when the body ended (the rest is not this body's) or the
    /// caller stopped.
    pub consumed: usize,
    /// The caller's `Break`, if it stopped.
    pub flow: ControlFlow<()>,
}

/// The decoder's state between reads.
#[derive(Debug)]
pub struct ChunkedDecoder {
    state: State,
    /// The chunk-size line so far.
    size_line: Vec<u8>,
    trailer_bytes: usize,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkedDecoder {
    /// A decoder at the start of a body.
    pub fn new() -> Self {
        Self { state: State::Size, size_line: Vec::new(), trailer_bytes: 0 }
    }

    /// Whether the body ended (its last chunk and trailers were read).
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes `bytes`, handing each run of the body's data to `on_data` as a slice of `bytes`.
    pub fn feed(
        &mut self,
        bytes: &[u8],
        mut on_data: impl FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<Fed, ChunkedError> {
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            match self.state {
                State::Size => match memchr::memchr(b'\n', rest) {
                    Some(end) => {
                        self.extend_size_line(&rest[..end])?;
                        at += end + 1;
                        let size = chunk_size(&self.size_line)?;
                        self.size_line.clear();
                        self.state = if size == 0 { State::Trailers { line_empty: true } } else { State::Data(size) };
                    }
                    None => {
                        self.extend_size_line(rest)?;
                        at = bytes.len();
                    }
                },
                State::Data(left) => {
                    let take = usize::try_from(left).map_or(rest.len(), |left| left.min(rest.len()));
                    at += take;
                    let left = left - take as u64;
                    self.state = if left == 0 { State::DataEnd { saw_cr: false } } else { State::Data(left) };
                    if let ControlFlow::Break(()) = on_data(&rest[..take]) {
                        return Ok(Fed { consumed: at, flow: ControlFlow::Break(()) });
                    }
                }
                State::DataEnd { saw_cr } => {
                    at += 1;
                    self.state = match (rest[0], saw_cr) {
                        (b'\r', false) => State::DataEnd { saw_cr: true },
                        (b'\n', _) => State::Size,
                        _ => return Err(ChunkedError::MissingLineEnd),
                    };
                }
                State::Trailers { line_empty } => {
                    let Some(end) = memchr::memchr(b'\n', rest) else {
                        self.count_trailer(rest.len())?;
                        let only_cr = rest.iter().all(|&b| b == b'\r');
                        self.state = State::Trailers { line_empty: line_empty && only_cr };
                        at = bytes.len();
                        continue;
                    };
                    self.count_trailer(end + 1)?;
                    at += end + 1;
                    let line_is_empty = line_empty && rest[..end].iter().all(|&b| b == b'\r');
                    self.state = if line_is_empty { State::Done } else { State::Trailers { line_empty: true } };
                }
                State::Done => break,
            }
        }
        Ok(Fed { consumed: at, flow: ControlFlow::Continue(()) })
    }

    fn extend_size_line(&mut self, bytes: &[u8]) -> Result<(), ChunkedError> {
        if self.size_line.len() + bytes.len() > MAX_SIZE_LINE_BYTES {
            return Err(ChunkedError::SizeLineTooLong);
        }
        self.size_line.extend_from_slice(bytes);
        Ok(())
    }

    fn count_trailer(&mut self, bytes: usize) -> Result<(), ChunkedError> {
        self.trailer_bytes += bytes;
        if self.trailer_bytes > MAX_TRAILER_BYTES {
            return Err(ChunkedError::TrailersTooLong);
        }
        Ok(())
    }
}

/// The size a chunk-size line gives: hex digits, then optional whitespace, extensions (`;name=value`) and CR.
fn chunk_size(line: &[u8]) -> Result<u64, ChunkedError> {
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let rest = &line[digits..];
    let blank = |bytes: &[u8]| bytes.iter().all(|&b| b == b' ' || b == b'\t');
    let rest_is_allowed = match rest.iter().position(|&b| b == b';') {
        Some(semicolon) => blank(&rest[..semicolon]),
        None => blank(rest.strip_suffix(b"\r").unwrap_or(rest)),
    };
    if digits == 0 || digits > 16 || !rest_is_allowed {
        return Err(ChunkedError::BadSize);
    }
    let text = std::str::from_utf8(&line[..digits]).map_err(|_| ChunkedError::BadSize)?;
    let size = u64::from_str_radix(text, 16).map_err(|_| ChunkedError::BadSize)?;
    if size > MAX_CHUNK_BYTES {
        return Err(ChunkedError::BadSize);
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `bytes` cut at `cuts`, returning the body's data and the bytes left after the body.
    fn decode(bytes: &[u8], cuts: &[usize]) -> Result<(Vec<u8>, usize, bool), ChunkedError> {
        let mut decoder = ChunkedDecoder::new();
        let mut data = Vec::new();
        let (mut start, mut left_over) = (0, 0);
        for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
            let piece = &bytes[start..cut];
            let fed = decoder.feed(piece, |d| {
                data.extend_from_slice(d);
                ControlFlow::Continue(())
            })?;
            left_over += piece.len() - fed.consumed;
            start = cut;
        }
        Ok((data, left_over, decoder.is_done()))
    }

    const BODY: &[u8] =
        b"17\r\ndata: {\"a\":1}\n\ndata: [D\r\n5;name=\"v\"\r\nONE]\n\r\n2\n\n\n\n0\r\nx-trailer: 1\r\n\r\n";

    #[test]
    fn data_comes_out_whole_with_extensions_bare_lfs_and_trailers_skipped() {
        let (data, left_over, done) = decode(BODY, &[]).unwrap();
        assert_eq!(data, b"data: {\"a\":1}\n\ndata: [DONE]\n\n\n");
        assert_eq!((left_over, done), (0, true));
    }

    #[test]
    fn a_body_split_at_every_position_decodes_the_same() {
        let whole = decode(BODY, &[]).unwrap();
        for cut in 1..BODY.len() {
            assert_eq!(decode(BODY, &[cut]).unwrap(), whole, "split at byte {cut}");
        }
        let every_byte: Vec<usize> = (1..BODY.len()).collect();
        assert_eq!(decode(BODY, &every_byte).unwrap(), whole, "one byte per read");
    }

    #[test]
    fn data_is_handed_on_as_slices_of_the_read_and_bytes_after_the_body_are_left() {
        let read = b"5\r\nhello\r\n0\r\n\r\nHTTP/1.1 200 OK";
        let mut decoder = ChunkedDecoder::new();
        let fed = decoder
            .feed(read, |d| {
                assert!(read.as_ptr_range().contains(&d.as_ptr()), "no copy");
                ControlFlow::Continue(())
            })
            .unwrap();
        assert!(decoder.is_done());
        assert_eq!(&read[fed.consumed..], b"HTTP/1.1 200 OK");
    }

    #[test]
    fn a_break_stops_where_the_caller_stopped() {
        let read = b"1\r\na\r\n1\r\nb\r\n0\r\n\r\n";
        let mut decoder = ChunkedDecoder::new();
        let fed = decoder.feed(read, |_| ControlFlow::Break(())).unwrap();
        assert_eq!((fed.consumed, fed.flow), (4, ControlFlow::Break(())));
        assert!(!decoder.is_done());
    }

    #[test]
    fn misframed_or_unbounded_bodies_are_refused_by_name() {
        assert_eq!(decode(b"zz\r\n", &[]), Err(ChunkedError::BadSize));
        assert_eq!(decode(b"\r\n", &[]), Err(ChunkedError::BadSize), "an empty size");
        assert_eq!(decode(b"5 x\r\n", &[]), Err(ChunkedError::BadSize), "junk after the size");
        assert_eq!(decode(b"11111111111111111\r\n", &[]), Err(ChunkedError::BadSize), "17 hex digits");
        assert_eq!(decode(b"ffffffffffff\r\n", &[]), Err(ChunkedError::BadSize), "beyond the largest chunk");
        assert_eq!(decode(b"2\r\nabc\r\n", &[]), Err(ChunkedError::MissingLineEnd), "more data than the size");
        let endless = vec![b'0'; MAX_SIZE_LINE_BYTES + 1];
        assert_eq!(decode(&endless, &[512]), Err(ChunkedError::SizeLineTooLong));
        let mut trailers = b"0\r\n".to_vec();
        trailers.extend(std::iter::repeat_n(b"x-a: 1\r\n".as_slice(), 2_100).flatten());
        assert_eq!(decode(&trailers, &[]), Err(ChunkedError::TrailersTooLong));
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        let alphabet: &[&[u8]] = &[b"0", b"1", b"f", b"\r", b"\n", b"\r\n", b";", b" ", b"x", b"data", b"0\r\n\r\n"];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..2_000 {
            let mut decoder = ChunkedDecoder::new();
            for _ in 0..64 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let piece = alphabet[(state % alphabet.len() as u64) as usize];
                if decoder.feed(piece, |_| ControlFlow::Continue(())).is_err() {
                    break;
                }
            }
        }
    }
}
