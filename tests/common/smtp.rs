//! A real SMTP server on loopback (aiosmtpd, `tests/support/smtp_sink.py`): one JSON line per message received,
//! with the raw message and its text body decoded by Python's `email` package.

use serde_json::Value;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

/// The sink's messages, one JSON line each.
pub type Received = Lines<BufReader<ChildStdout>>;

/// aiosmtpd on a free loopback port: the process, its port, and its output.
pub async fn smtp_sink() -> (Child, u16, Received) {
    // A free port: the probe listener is closed (end of this statement) before the sink binds it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    smtp_sink_on(port).await
}

/// aiosmtpd on `port`.
pub async fn smtp_sink_on(port: u16) -> (Child, u16, Received) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/smtp_sink.py");
    let mut child = tokio::process::Command::new(super::python())
        .args([script, &port.to_string()])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("a Python with aiosmtpd (LG_PYTHON; scripts/setup.sh --test makes one)");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("READY"), "aiosmtpd did not start");
    (child, port, lines)
}

/// The next message, within 10 s: `{from, to, content, subject, text}`.
pub async fn next_message(lines: &mut Received) -> Value {
    let line =
        tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line()).await.unwrap().unwrap().unwrap();
    serde_json::from_str(&line).unwrap()
}

/// A message's text as a reader sees it: quoted-printable decoded (soft line breaks joined, `=XX` bytes restored).
pub fn readable(content: &str) -> String {
    let joined = content.replace("=\r\n", "").replace("=\n", "");
    let (bytes, mut out) = (joined.as_bytes(), Vec::with_capacity(joined.len()));
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
