//! Incremental Server-Sent Events decoding: bytes in (split anywhere), events out. Lines end in LF, CRLF or CR,
//! even when the CR and LF arrive in different reads; `data:` lines of one event are joined with `\n`; comment
//! lines (`: keep-alive`) and `id:`/`retry:` fields are skipped, as the SSE specification says.

/// One dispatched event, owned (for callers that keep events past the next read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the event had one (`error` marks a mid-stream failure on some servers).
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// One dispatched event, borrowed from the read that completed it or from the decoder: the measuring path reads
/// each chunk where it arrived, with no copy and no allocation when the event lies whole inside one read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// The `event:` field, if the event had one.
    pub event: Option<&'a str>,
    /// The `data:` lines, joined with `\n`.
    pub data: &'a str,
}

impl SseEvent {
    /// The event, borrowed.
    pub fn borrowed(&self) -> SseEventRef<'_> {
        SseEventRef { event: self.event.as_deref(), data: &self.data }
    }
}

impl SseEventRef<'_> {
    /// The event, owned.
    pub fn to_owned(self) -> SseEvent {
        SseEvent { event: self.event.map(str::to_string), data: self.data.to_string() }
    }
}

/// Why the byte stream is not a valid event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A field's value is not valid UTF-8.
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
    /// A line begun in an earlier read and not ended yet.
    line: Vec<u8>,
    /// The previous read ended in CR: an LF at the start of the next read belongs to that line ending.
    after_cr: bool,
    /// The event's data so far, unless it is one `data:` line lying whole in the read being decoded (then that
    /// read's range says where, and this stays empty until the read ends without the event's end).
    data: String,
    has_data: bool,
    event: Option<String>,
}

/// What one line means.
enum Line<'a> {
    /// An empty line: dispatch the event.
    Blank,
    /// A `data` field's value.
    Data(&'a [u8]),
    /// An `event` field's value.
    Event(&'a [u8]),
    /// A comment, `id`, `retry` or an unknown field: nothing for measurement.
    Ignored,
}

impl<'a> Line<'a> {
    fn of(line: &'a [u8]) -> Self {
        match line.first() {
            None => return Self::Blank,
            Some(b':') => return Self::Ignored,
            Some(_) => {}
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => Self::Data(value),
            b"event" => Self::Event(value),
            _ => Self::Ignored, // id, retry and unknown fields do not affect measurement
        }
    }
}

fn text(bytes: &[u8]) -> Result<&str, SseError> {
    std::str::from_utf8(bytes).map_err(|_| SseError::InvalidUtf8)
}

/// Whether decoding goes on after an event: `Break` when the caller has read enough.
pub type Flow = std::ops::ControlFlow<()>;

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes; complete events are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.feed(bytes, |event| {
            out.push(event.to_owned());
            Flow::Continue(())
        })
        .map(drop)
    }

    /// Feeds the next bytes, handing each complete event to `on_event` as it is found, borrowed where it lies;
    /// `Break` from it stops decoding (the rest of `bytes` is not read) and is returned.
    pub fn feed(&mut self, read: &[u8], mut on_event: impl FnMut(SseEventRef<'_>) -> Flow) -> Result<Flow, SseError> {
        // An empty read says nothing about a pending CR: the LF that may complete it is still to come.
        if read.is_empty() {
            return Ok(Flow::Continue(()));
        }
        let mut at = usize::from(std::mem::take(&mut self.after_cr) && read[0] == b'\n');
        let mut data_in_read = None;
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &read[at..]) {
            let (start, end) = (at, at + found);
            at = end + 1;
            if read[end] == b'\r' {
                match read.get(at) {
                    Some(b'\n') => at += 1,
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
            let flow = if self.line.is_empty() {
                self.on_line(&read[start..end], Some(start), read, &mut data_in_read, &mut on_event)?
            } else {
                // Begun in an earlier read, so it is this read's first line: no data lies in the read yet.
                self.extend_line(&read[start..end])?;
                let line = std::mem::take(&mut self.line);
                let flow = self.on_line(&line, None, read, &mut data_in_read, &mut on_event);
                self.line = line;
                self.line.clear();
                flow?
            };
            if flow.is_break() {
                return Ok(flow);
            }
        }
        // The event goes on in a later read: what of it lies in this one is kept.
        if let Some(range) = data_in_read {
            self.data.push_str(text(&read[range])?);
        }
        self.extend_line(&read[at..])?;
        Ok(Flow::Continue(()))
    }

    /// Ends the stream. A last event whose lines all ended but which lacks the closing blank line is still
    /// dispatched (servers that end with `data: [DONE]\n`); a line cut off mid-way is dropped and reported as
    /// `true` (the stream was truncated inside a line).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> bool {
        self.finish_with(|event| out.push(event.to_owned()))
    }

    /// [`Self::finish`], handing the last event (if any) to `on_event`.
    pub fn finish_with(&mut self, on_event: impl FnOnce(SseEventRef<'_>)) -> bool {
        let cut_mid_line = !self.line.is_empty();
        self.line.clear();
        if self.has_data {
            on_event(SseEventRef { event: self.event.as_deref(), data: &self.data });
        }
        self.reset_event();
        cut_mid_line
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > MAX_LINE_BYTES {
            return Err(SseError::LineTooLong(MAX_LINE_BYTES));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    /// Applies one complete line; `in_read_at` is where it starts in `read` when it lies there (else it was
    /// carried over from earlier reads). `data_in_read` is the event's data when that is one whole line of `read`.
    fn on_line(
        &mut self,
        line: &[u8],
        in_read_at: Option<usize>,
        read: &[u8],
        data_in_read: &mut Option<std::ops::Range<usize>>,
        on_event: &mut impl FnMut(SseEventRef<'_>) -> Flow,
    ) -> Result<Flow, SseError> {
        match Line::of(line) {
            Line::Blank => {
                let mut flow = Flow::Continue(());
                if self.has_data {
                    let data = match data_in_read.take() {
                        Some(range) => text(&read[range])?,
                        None => self.data.as_str(),
                    };
                    flow = on_event(SseEventRef { event: self.event.as_deref(), data });
                }
                self.reset_event();
                return Ok(flow);
            }
            Line::Data(value) => match (self.has_data, in_read_at) {
                (false, Some(start)) => {
                    let end = start + line.len();
                    *data_in_read = Some(end - value.len()..end);
                    self.has_data = true;
                }
                _ => {
                    if let Some(range) = data_in_read.take() {
                        self.data.push_str(text(&read[range])?);
                    }
                    if self.has_data {
                        self.data.push('\n');
                    }
                    self.data.push_str(text(value)?);
                    self.has_data = true;
                }
            },
            // An empty event type means the default type, as the specification says (a bare `event` line).
            Line::Event(value) => {
                self.event = (!value.is_empty()).then(|| text(value)).transpose()?.map(str::to_string)
            }
            Line::Ignored => {}
        }
        Ok(Flow::Continue(()))
    }

    fn reset_event(&mut self) {
        self.data.clear();
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
    fn events_whole_in_a_read_are_borrowed_from_it_and_the_rest_come_whole_too() {
        let read = b"data: {\"a\":1}\n\ndata: {\"b\":\n";
        let mut decoder = SseDecoder::new();
        let mut seen = Vec::new();
        let flow = decoder.feed(read, |event| {
            assert!(read.as_ptr_range().contains(&event.data.as_ptr()), "borrowed, not copied");
            seen.push(event.to_owned());
            Flow::Continue(())
        });
        assert_eq!(flow, Ok(Flow::Continue(())));
        assert_eq!(seen.len(), 1);
        let flow = decoder.feed(b"data: 2}\n\n", |event| {
            seen.push(event.to_owned());
            Flow::Continue(())
        });
        assert_eq!(flow, Ok(Flow::Continue(())));
        assert_eq!(seen[1].data, "{\"b\":\n2}", "an event split across reads is joined");
    }

    #[test]
    fn a_break_stops_decoding_at_that_event() {
        let mut decoder = SseDecoder::new();
        let mut seen = 0;
        let flow = decoder.feed(b"data: 1\n\ndata: 2\n\ndata: 3\n\n", |_| {
            seen += 1;
            if seen == 2 {
                Flow::Break(())
            } else {
                Flow::Continue(())
            }
        });
        assert_eq!((flow, seen), (Ok(Flow::Break(())), 2));
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
