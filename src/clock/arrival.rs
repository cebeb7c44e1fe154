//! When a read's bytes reached the socket, rather than when the task got to read them.
//!
//! A client on one core serves many streams: a token that arrives while the core works through other streams' ends
//! and sends is read late, and a read's own clock would charge that wait to the endpoint (measured: at 256 streams
//! it put the median added TTFT at 1 ms instead of 0.3, `docs/PERFORMANCE.md`). The engine times its reads by it
//! (`engine::http1`), and the simulator times a request's receipt by it (`sim::arrival`), so a busy simulator's
//! own lateness in reading is its time, not the client's. Linux stamps every received segment
//! and hands TCP the stamp of the last segment a `recvmsg` consumed (`SO_TIMESTAMPNS`), on the real-time clock; it
//! is moved onto the monotonic clock by how long ago it was. A read without a stamp, or with one that is
//! not plausible (in the future, or older than [`MAX_AGE`]: the real-time clock was stepped), is timed when it
//! returned, as before.
//!
//! Linux stamps for the whole system while any socket asks, and switches stamping on and off a little after the
//! first socket asks and the last one closes (deferred work): segments that arrive before the switch come
//! unstamped. A client or a simulator holds one idle socket that asked ([`Holder`]) so the switch stays on while
//! it lives.

use nix::sys::socket::{recvmsg, setsockopt, socket, sockopt, AddressFamily, ControlMessageOwned, MsgFlags};
use nix::sys::socket::{SockFlag, SockType};
use std::io::IoSliceMut;
use std::os::fd::{AsFd, OwnedFd, RawFd};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// The oldest stamp believed: bytes do not wait in a socket this long while the engine reads it.
const MAX_AGE: Duration = Duration::from_secs(60);

/// Room for one `SCM_TIMESTAMPNS` control message.
pub fn control_buffer() -> Vec<u8> {
    nix::cmsg_space!(nix::sys::time::TimeSpec)
}

/// Asks the kernel to stamp what `socket` receives; `false` when it will not (reads are then timed on return).
pub fn enable(socket: &impl AsFd) -> bool {
    setsockopt(socket, sockopt::ReceiveTimestampns, &true).is_ok()
}

/// An unbound socket that asked for stamps, held so the kernel's stamping stays on between connections: without it
/// a client whose connections come and go (fresh ones at one stream) would switch it off and on for every request
/// and read each new connection's first bytes unstamped.
#[derive(Debug)]
pub struct Holder {
    /// Held, never used: its asking is what keeps stamping on.
    _socket: OwnedFd,
}

impl Holder {
    /// A holder, when the kernel gives a socket that stamps.
    pub fn new() -> Option<Self> {
        let socket = socket(AddressFamily::Inet, SockType::Datagram, SockFlag::SOCK_CLOEXEC, None).ok()?;
        enable(&socket).then_some(Self { _socket: socket })
    }
}

/// Reads into `into` without waiting: the count (0 at the end of the stream) and the kernel's stamp of the last
/// segment read, when it gave one.
pub fn receive(fd: RawFd, into: &mut [u8], control: &mut [u8]) -> std::io::Result<(usize, Option<SystemTime>)> {
    let mut slices = [IoSliceMut::new(into)];
    let message = recvmsg::<()>(fd, &mut slices, Some(control), MsgFlags::empty())?;
    let stamp = message.cmsgs().ok().and_then(|mut messages| {
        messages.find_map(|message| match message {
            ControlMessageOwned::ScmTimestampns(at) => {
                let (seconds, nanos) = (u64::try_from(at.tv_sec()).ok()?, u32::try_from(at.tv_nsec()).ok()?);
                Some(UNIX_EPOCH + Duration::new(seconds, nanos))
            }
            _ => None,
        })
    });
    Ok((message.bytes, stamp))
}

/// The monotonic instant of a read that returned now with `stamp`: now less the stamp's age when it is plausible.
pub fn instant(stamp: Option<SystemTime>) -> Instant {
    arrived(stamp).0
}

/// When a read that returned now with `stamp` arrived, on the monotonic clock and the real-time one: the stamp
/// when it is plausible, else now on both.
pub fn arrived(stamp: Option<SystemTime>) -> (Instant, SystemTime) {
    let (now, wall) = (Instant::now(), SystemTime::now());
    stamp
        .and_then(|stamp| Some((stamp, wall.duration_since(stamp).ok()?)))
        .filter(|(_, age)| *age <= MAX_AGE)
        .and_then(|(stamp, age)| Some((now.checked_sub(age)?, stamp)))
        .unwrap_or((now, wall))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plausible_stamp_moves_the_instant_back_by_its_age_and_an_implausible_one_is_ignored() {
        let before = Instant::now();
        let aged = instant(Some(SystemTime::now() - Duration::from_millis(5)));
        assert!(aged < before, "5 ms ago is before the call");
        assert!(before.duration_since(aged) < Duration::from_millis(50), "and not much more");
        for implausible in [None, Some(SystemTime::now() + Duration::from_secs(5)), Some(UNIX_EPOCH)] {
            assert!(instant(implausible) >= before, "{implausible:?}: timed on return");
        }
    }

    /// Reads what `server` writes of `bytes` on `client` once it is there, `pause` after it is readable.
    async fn exchange(
        server: &mut tokio::net::TcpStream,
        client: &tokio::net::TcpStream,
        bytes: &[u8],
        pause: Duration,
    ) -> Option<SystemTime> {
        use std::os::fd::AsRawFd;
        use tokio::io::AsyncWriteExt;
        server.write_all(bytes).await.unwrap();
        client.readable().await.unwrap();
        std::thread::sleep(pause);
        let (mut into, mut control) = ([0u8; 64], control_buffer());
        let (count, stamp) = client
            .try_io(tokio::io::Interest::READABLE, || receive(client.as_raw_fd(), &mut into, &mut control))
            .unwrap();
        assert_eq!(&into[..count], bytes, "one read takes what one write sent");
        stamp
    }

    #[tokio::test]
    async fn the_kernel_stamps_what_arrives_on_a_tcp_socket_before_it_is_read() {
        let _holder = Holder::new().expect("Linux gives a socket that stamps");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = tokio::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        assert!(enable(&client), "Linux stamps TCP segments on request");
        // Stamping switches on a little after the first socket asks (on a machine where nothing else holds it on).
        let deadline = Instant::now() + Duration::from_secs(5);
        while exchange(&mut server, &client, b"probe", Duration::ZERO).await.is_none() {
            assert!(Instant::now() < deadline, "stamping never switched on");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // The read is made late on purpose: the stamp must say when the bytes came, not when they were read.
        let written = SystemTime::now();
        let stamp = exchange(&mut server, &client, b"data: x\n\n", Duration::from_millis(20)).await;
        let stamp = stamp.expect("a stamp came with the bytes");
        let age = SystemTime::now().duration_since(stamp).unwrap();
        assert!(age >= Duration::from_millis(20), "stamped on arrival, not when read 20 ms later: {age:?}");
        assert!(stamp.duration_since(written - Duration::from_millis(5)).is_ok(), "not before it was written");
    }
}
