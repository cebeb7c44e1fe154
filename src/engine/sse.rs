//! Incremental Server-Sent Events decoding: bytes in (split anywhere), events out. Lines end in LF, CRLF or CR,
//! even when the CR and LF arrive in different reads; `data:` lines of one event are joined with `\n`; comment
//! lines (`: keep-alive`) and `id:`/`retry:` fields are skipped, as the SSE specification says.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the event had one (`error` marks a mid-stream failure on some servers).
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Why the byte stream is not a valid event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A line is not valid UTF-8.
    #[error("stream is not valid UTF-8")]
    InvalidUtf8,
    /// A line grew beyond the limit without ending (a hostile or broken stream).
    #[error("a stream line exceeded {0} bytes without ending")]
    LineTooLong(usize),
}

/// The longest line accepted; OpenAI-style chunks are a few hundred bytes (a few KiB with usage, timings or
/// logprobs). Bounds a stream's memory: 2,048 streams in flight hold at most 512 MiB of unfinished lines.
pub const MAX_LINE_BYTES: usize = 256 * 1024;

/// The decoder's state between reads.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    /// The previous read ended in CR: an LF at the start of the next read belongs to that line ending.
    after_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes; complete events are appended to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        // An empty read says nothing about a pending CR: the LF that may complete it is still to come.
        if bytes.is_empty() {
            return Ok(());
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.extend_line(&bytes[..end])?;
            self.finish_line(out)?;
            let ending = bytes[end];
            bytes = &bytes[end + 1..];
            if ending == b'\r' {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
        }
        self.extend_line(bytes)
    }

    /// Ends the stream. A last event whose lines all ended but which lacks the closing blank line is still
    /// dispatched (servers that end with `data: [DONE]\n`); a line cut off mid-way is dropped and reported as
    /// `true` (the stream was truncated inside a line).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> bool {
        let cut_mid_line = !self.line.is_empty();
        self.line.clear();
        self.dispatch(out);
        cut_mid_line
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > MAX_LINE_BYTES {
            return Err(SseError::LineTooLong(MAX_LINE_BYTES));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn finish_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let line = std::str::from_utf8(&self.line).map_err(|_| SseError::InvalidUtf8)?;
        if !line.starts_with(':') {
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "data" => {
                    if self.has_data {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                    self.has_data = true;
                }
                // An empty event type means the default type, as the specification says (a bare `event` line).
                "event" => self.event = (!value.is_empty()).then(|| value.to_string()),
                _ => {} // id, retry and unknown fields do not affect measurement
            }
        }
        self.line.clear();
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.has_data {
            out.push(SseEvent { event: self.event.take(), data: std::mem::take(&mut self.data) });
        }
        self.has_data = false;
        self.event = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = concat!(
        ": OPENROUTER PROCESSING\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hé🙂\"}}]}\r\n\r\n",
        "id: 7\nretry: 100\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\r",
        "event: error\ndata: {\"error\":\n",
        "data: \"x\"}\n\n",
        "data: [DONE]\n\n",
    );

    fn decode_in_pieces(bytes: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
            decoder.push(&bytes[start..cut], &mut out).unwrap();
            start = cut;
        }
        assert!(!decoder.finish(&mut out));
        out
    }

    #[test]
    fn decodes_events_with_comments_crlf_cr_multiline_data_and_named_events() {
        let events = decode_in_pieces(STREAM.as_bytes(), &[]);
        let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(events.len(), 5, "the comment is no event: {data:#?}");
        assert!(data[1].contains("Hé🙂"));
        assert!(data[2].contains("\"stop\""));
        assert_eq!(events[3].event.as_deref(), Some("error"));
        assert_eq!(data[3], "{\"error\":\n\"x\"}");
        assert_eq!(data[4], "[DONE]");
        assert_eq!(events[4].event, None, "the event name applies to one event only");
    }

    #[test]
    fn an_empty_read_between_cr_and_lf_keeps_them_one_line_ending() {
        let bytes = b"data: first\r\ndata: second\r\n\r\n";
        let whole = decode_in_pieces(bytes, &[]);
        assert_eq!(whole.len(), 1, "{whole:?}");
        assert_eq!(decode_in_pieces(bytes, &[12, 12]), whole, "found by sse_fuzz: an empty read after the CR");
    }

    #[test]
    fn an_empty_event_type_is_the_default_type() {
        let events = decode_in_pieces(b"event\ndata: a\n\nevent:\ndata: b\n\n", &[]);
        assert_eq!(events.iter().map(|e| e.event.clone()).collect::<Vec<_>>(), [None, None], "found by sse_fuzz");
    }

    #[test]
    fn a_stream_split_at_every_byte_position_decodes_the_same() {
        let bytes = STREAM.as_bytes();
        let whole = decode_in_pieces(bytes, &[]);
        for cut in 1..bytes.len() {
            assert_eq!(decode_in_pieces(bytes, &[cut]), whole, "split at byte {cut}");
        }
        let every_byte: Vec<usize> = (1..bytes.len()).collect();
        assert_eq!(decode_in_pieces(bytes, &every_byte), whole, "one byte per read");
    }

    #[test]
    fn a_last_event_without_its_blank_line_is_still_dispatched() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.push(b"data: [DONE]\n", &mut out).unwrap();
        assert!(out.is_empty());
        assert!(!decoder.finish(&mut out));
        assert_eq!(out[0].data, "[DONE]");
    }

    #[test]
    fn a_stream_cut_inside_a_line_is_reported() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.push(b"data: {\"choices\":[{\"del", &mut out).unwrap();
        assert!(decoder.finish(&mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn rejects_invalid_utf8_and_endless_lines() {
        let mut out = Vec::new();
        assert_eq!(SseDecoder::new().push(b"data: \xff\xfe\n", &mut out), Err(SseError::InvalidUtf8));
        let mut decoder = SseDecoder::new();
        let chunk = vec![b'a'; 64 * 1024];
        let result = (0..20).try_for_each(|_| decoder.push(&chunk, &mut out));
        assert_eq!(result, Err(SseError::LineTooLong(MAX_LINE_BYTES)));
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        // A deterministic pseudo-random walk over hostile inputs: control bytes, partial UTF-8, field soup.
        let alphabet: &[&[u8]] = &[
            b"data:",
            b"event:",
            b":",
            b" ",
            b"\r",
            b"\n",
            b"\r\n",
            b"\xf0\x9f",
            b"\x99\x82",
            b"\xff",
            b"x",
            b"[DONE]",
            b"{",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2_000 {
            let mut decoder = SseDecoder::new();
            let mut out = Vec::new();
            for _ in 0..64 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let piece = alphabet[(state % alphabet.len() as u64) as usize];
                if decoder.push(piece, &mut out).is_err() {
                    break;
                }
            }
            decoder.finish(&mut out);
        }
    }
}
