//! One TCP connection to an endpoint, with the buffers it reads and writes through: opened only to addresses the
//! outbound policy judged, a request written in one piece, a response head read from what arrived.

use serde::Serialize;
use std::io::Write as _;
use std::os::fd::AsRawFd;
use tokio::io::{AsyncWriteExt, Interest};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::error::SendError;
use super::response_head::{read_head, ResponseHead};
use super::{Destination, Outgoing};
use crate::clock::arrival;
use crate::outbound::{AddressError, AddressPolicy};

/// What a read asks the kernel for at most: a streamed answer's events (a few hundred bytes each) arrive in reads
/// far smaller, and a whole 16-token answer fits in one.
const READ_BYTES: usize = 16 * 1024;

/// An open connection and its buffers, kept with it so that a kept connection's requests allocate nothing.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    /// Bytes received and not yet handed on: `read[taken..filled]` (the rest is room for the next read, zeroed
    /// once when the buffer grows).
    read: Vec<u8>,
    taken: usize,
    filled: usize,
    /// Room for the kernel's receive timestamp of each read.
    control: Vec<u8>,
    /// No read is timed before this: the last read's instant, or the request's send (a timestamp moved between
    /// clocks can be a little off; instants on one connection never go back).
    not_before: Instant,
    /// The request being written, and its body before its length is known.
    write: Vec<u8>,
    body: Vec<u8>,
    /// It carried a response before (a request on it may cross the server's close).
    pub(super) reused: bool,
}

impl Connection {
    /// Resolves the destination's host through `addresses` (which refuses what the destination's reach does not
    /// allow) and connects to the first address that answers.
    pub async fn open(addresses: &AddressPolicy, destination: &Destination) -> Result<Self, SendError> {
        let candidates = addresses.resolve(destination.reach, &destination.url).await.map_err(|e| match e {
            AddressError::Refused(refusal) => SendError::Refused(refusal),
            other => SendError::Resolve(other),
        })?;
        let mut failure = None;
        for address in candidates {
            match TcpStream::connect(address).await {
                Ok(stream) => {
                    // A request is written whole at once; nothing is gained by holding its last segment back.
                    let _ = stream.set_nodelay(true);
                    arrival::enable(&stream);
                    return Ok(Self {
                        stream,
                        read: Vec::new(),
                        taken: 0,
                        filled: 0,
                        control: arrival::control_buffer(),
                        not_before: Instant::now(),
                        write: Vec::new(),
                        body: Vec::new(),
                        reused: false,
                    });
                }
                Err(source) => failure = Some(SendError::Connect { address, source }),
            }
        }
        Err(failure.unwrap_or(SendError::Resolve(AddressError::NoAddress { host: destination.host.clone() })))
    }

    /// Writes the request line, the fields and the body in one write.
    pub async fn send(
        &mut self,
        destination: &Destination,
        request: &Outgoing<'_, impl Serialize>,
    ) -> Result<(), SendError> {
        request.write_to(destination, &mut self.write, &mut self.body);
        let reused = self.reused;
        self.stream.write_all(&self.write).await.map_err(|source| SendError::Write { reused, source })?;
        self.not_before = Instant::now();
        Ok(())
    }

    /// Reads until a whole response head has arrived: the head, and the instant the read that completed it
    /// returned. The bytes after it (the body's start) stay to be handed on.
    pub async fn read_head(&mut self, to_head_request: bool) -> Result<(ResponseHead, Instant), SendError> {
        loop {
            let received = match self.receive().await {
                Ok(received) => received,
                Err(e) if self.filled == 0 => {
                    return Err(SendError::Closed { reused: self.reused, source: Some(e) });
                }
                Err(e) => return Err(SendError::CutHead(Some(e))),
            };
            let Some(at) = received else {
                return Err(match self.filled == 0 {
                    true => SendError::Closed { reused: self.reused, source: None },
                    false => SendError::CutHead(None),
                });
            };
            if let Some(head) = read_head(&self.read[..self.filled], to_head_request).map_err(SendError::Head)? {
                self.taken = head.length;
                return Ok((head, at));
            }
        }
    }

    /// Reads what the kernel has (waiting for something): when those bytes reached the socket (`clock::arrival`), or
    /// `None` at the end of the stream.
    pub async fn receive(&mut self) -> std::io::Result<Option<Instant>> {
        if self.taken == self.filled {
            (self.taken, self.filled) = (0, 0);
        }
        if self.read.len() - self.filled < READ_BYTES / 4 {
            let grown = self.read.len() + READ_BYTES;
            self.read.resize(grown, 0);
        }
        let fd = self.stream.as_raw_fd();
        loop {
            self.stream.readable().await?;
            let (room, control) = (&mut self.read[self.filled..], &mut self.control);
            match self.stream.try_io(Interest::READABLE, || arrival::receive(fd, room, control)) {
                Ok((0, _)) => return Ok(None),
                Ok((count, stamp)) => {
                    self.filled += count;
                    let at = arrival::instant(stamp).max(self.not_before);
                    self.not_before = at;
                    return Ok(Some(at));
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The bytes received and not yet handed on.
    pub fn unread(&self) -> &[u8] {
        &self.read[self.taken..self.filled]
    }

    /// Marks `count` more bytes as handed on.
    pub fn take(&mut self, count: usize) {
        self.taken = (self.taken + count).min(self.filled);
    }

    /// Whether the server closed (or wrote to) this idle connection: a read that does not wait. Data on an idle
    /// connection is no answer to anything, so such a connection is not used either.
    pub fn closed_while_idle(&self) -> bool {
        let mut probe = [0u8; 1];
        !matches!(self.stream.try_read(&mut probe), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }

    /// Ready to carry another request: every byte of the last response taken, the buffers kept.
    pub fn ready_for_reuse(mut self) -> Option<Self> {
        if self.taken != self.filled {
            // Bytes beyond the response (a server that answered twice): the connection is out of step.
            return None;
        }
        (self.taken, self.filled) = (0, 0);
        self.reused = true;
        // A request or a head that once needed a large buffer does not keep it for the connection's life.
        if self.read.len() > 4 * READ_BYTES {
            self.read.truncate(READ_BYTES);
            self.read.shrink_to_fit();
        }
        for buffer in [&mut self.write, &mut self.body] {
            if buffer.capacity() > 4 * READ_BYTES {
                buffer.clear();
                buffer.shrink_to(READ_BYTES);
            }
        }
        Some(self)
    }
}

impl<B: Serialize> Outgoing<'_, B> {
    /// The request as bytes: request line, `Host`, the caller's fields (content type, authorization, extras), a
    /// user agent and `Accept` unless given, the body's length, and the body as JSON.
    fn write_to(&self, destination: &Destination, out: &mut Vec<u8>, body: &mut Vec<u8>) {
        out.clear();
        body.clear();
        if let Some(value) = self.body {
            // Serialising a value of plain data types into memory cannot fail.
            let _ = serde_json::to_writer(&mut *body, value);
        }
        let _ = write!(out, "{} {} HTTP/1.1\r\n", self.method.as_str(), destination.path);
        let given = |name: &http::HeaderName| self.headers.contains_key(name);
        if !given(&http::header::HOST) {
            let _ = write!(out, "host: {}\r\n", destination.host);
        }
        for (name, value) in self.headers {
            // The framing is this client's to say.
            if name == http::header::CONTENT_LENGTH || name == http::header::TRANSFER_ENCODING {
                continue;
            }
            out.extend_from_slice(name.as_str().as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if !given(&http::header::USER_AGENT) {
            out.extend_from_slice(concat!("user-agent: latency-guard/", env!("CARGO_PKG_VERSION"), "\r\n").as_bytes());
        }
        if !given(&http::header::ACCEPT) {
            out.extend_from_slice(b"accept: */*\r\n");
        }
        if self.body.is_some() {
            let _ = write!(out, "content-length: {}\r\n", body.len());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(body);
    }
}
