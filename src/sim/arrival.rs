//! When a request reached the simulator's socket, rather than when its busy runtime got to read it.
//!
//! A simulator serving 1,000 streams on one core writes a chunk every few microseconds, and a new request waits in
//! its socket until the runtime polls for it: measured from the handler's start, that wait fell outside the
//! simulator's own time to first output and was charged to the client in every benchmark that subtracts the
//! simulator's times (`benches/engine.rs`: at 256 streams nearly all of a 3 ms median "overhead" was between the
//! client's send and the handler). Each connection's reads go through `recvmsg` with the kernel's receive stamp
//! (`clock::arrival`), the stamp of the last read is kept beside the connection, and a request's handler takes it
//! as the request's arrival: the simulator schedules its answer from there and reports it as `x-sim-received-us`.

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use crate::clock::arrival;

/// The kernel's stamp of a connection's last read, unix ns (0: none yet, or the kernel gave none). A handler's
/// extension (`ConnectInfo<Arrival>`); clients do not pipeline, so the last read is the one that completed the
/// request being handled.
#[derive(Debug, Clone, Default)]
pub struct Arrival(Arc<AtomicU64>);

impl Arrival {
    /// Keeps a read's stamp; a read without one forgets the last (it must not time a later request).
    fn record(&self, stamp: Option<SystemTime>) {
        let nanos = stamp
            .and_then(|stamp| stamp.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |since| u64::try_from(since.as_nanos()).unwrap_or(0));
        self.0.store(nanos, Ordering::Relaxed);
    }

    fn stamp(&self) -> Option<SystemTime> {
        let nanos = self.0.load(Ordering::Relaxed);
        (nanos > 0).then(|| UNIX_EPOCH + Duration::from_nanos(nanos))
    }
}

/// When the request being handled arrived, on the monotonic clock and in unix µs: the kernel's stamp when the
/// connection has one (and it is plausible), else now.
pub(super) fn received(arrival: Option<&Arrival>) -> (Instant, u64) {
    let (at, wall) = arrival::arrived(arrival.and_then(Arrival::stamp));
    let unix_us = wall.duration_since(UNIX_EPOCH).map_or(0, |since| u64::try_from(since.as_micros()).unwrap_or(0));
    (at, unix_us)
}

/// A connection whose reads keep the kernel's receive stamp.
pub(super) struct Stamped {
    stream: TcpStream,
    control: Vec<u8>,
    arrival: Arrival,
}

impl Stamped {
    /// `stream`, with the kernel asked to stamp what it receives (reads are unstamped where it will not).
    pub(super) fn new(stream: TcpStream) -> Self {
        arrival::enable(&stream);
        Self { stream, control: arrival::control_buffer(), arrival: Arrival::default() }
    }

    /// Where this connection's stamps are kept.
    pub(super) fn arrival(&self) -> Arrival {
        self.arrival.clone()
    }
}

impl AsyncRead for Stamped {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let fd = this.stream.as_raw_fd();
        loop {
            ready!(this.stream.poll_read_ready(cx))?;
            let room = buf.initialize_unfilled();
            let control = &mut this.control;
            match this.stream.try_io(Interest::READABLE, || arrival::receive(fd, room, control)) {
                Ok((count, stamp)) => {
                    if count > 0 {
                        this.arrival.record(stamp);
                    }
                    buf.advance(count);
                    return Poll::Ready(Ok(()));
                }
                // Readiness was stale: wait for the next.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for Stamped {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A listener whose connections are [`Stamped`], each set up by `on_accept` first (no delay, counted).
pub(super) struct StampedListener<F> {
    listener: TcpListener,
    on_accept: F,
    /// Keeps the kernel's stamping on while the simulator serves.
    _stamping: Option<arrival::Holder>,
}

impl<F: FnMut(&TcpStream) + Send + 'static> StampedListener<F> {
    pub(super) fn new(listener: TcpListener, on_accept: F) -> Self {
        Self { listener, on_accept, _stamping: arrival::Holder::new() }
    }
}

impl<F: FnMut(&TcpStream) + Send + 'static> Listener for StampedListener<F> {
    type Io = Stamped;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Stamped, SocketAddr) {
        let (stream, addr) = Listener::accept(&mut self.listener).await;
        (self.on_accept)(&stream);
        (Stamped::new(stream), addr)
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Listener::local_addr(&self.listener)
    }
}

impl<F: FnMut(&TcpStream) + Send + 'static> Connected<IncomingStream<'_, StampedListener<F>>> for Arrival {
    fn connect_info(stream: IncomingStream<'_, StampedListener<F>>) -> Self {
        stream.io().arrival()
    }
}
