//! Signing in as a wallet does: a nonce from `POST /auth/siwe/nonce`, the EIP-4361 message built from it, signed
//! by Python's eth-account (`tests/support/siwe_sign.py`, an implementation independent of the Rust crate that
//! verifies it), and `POST /auth/siwe/verify`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::{client, TestApp};

/// The signing helper of this test process (`siwe_sign.py --serve`), started by the first signature: each test is
/// a process of its own under nextest, and a test signs many messages.
struct Signer {
    child: Child,
    requests: ChildStdin,
    answers: BufReader<ChildStdout>,
}

static SIGNER: Mutex<Option<Signer>> = Mutex::new(None);

impl Signer {
    /// Starts the helper and waits for its "ready"; the helper's error when its Python cannot start it.
    fn start() -> Result<Signer, String> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/siwe_sign.py");
        let mut child = Command::new(super::python())
            .args([script, "--serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let requests = child.stdin.take().unwrap();
        let mut signer = Signer { answers: BufReader::new(child.stdout.take().unwrap()), requests, child };
        match signer.read_line() {
            Some(ready) if ready == "ready" => Ok(signer),
            _ => Err(signer.stderr()),
        }
    }

    fn read_line(&mut self) -> Option<String> {
        let mut line = String::new();
        let read = self.answers.read_line(&mut line).ok()?;
        (read > 0).then(|| line.trim().to_string())
    }

    /// What the helper said on stderr before it ended.
    fn stderr(&mut self) -> String {
        let _ = self.child.kill();
        let mut text = String::new();
        let _ = self.child.stderr.take().map(|mut e| e.read_to_string(&mut text));
        text
    }

    fn ask(&mut self, request: &Value) -> String {
        writeln!(self.requests, "{request}").unwrap();
        self.read_line().unwrap_or_else(|| panic!("the signing helper ended: {}", self.stderr()))
    }
}

/// Asks the signing helper (on the blocking pool: its pipes are plain std ones, so they outlive any one runtime);
/// `None` (and the test returns) when its Python lacks eth-account and the suite does not require it.
async fn ask_signer(request: Value) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut signer = SIGNER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if signer.is_none() {
            match Signer::start() {
                Ok(started) => *signer = Some(started),
                Err(stderr) => {
                    let missing =
                        format!("{} cannot sign (is eth-account installed? scripts/setup.sh --test)", super::python());
                    assert!(super::may_skip(&missing), "{missing}: {stderr}");
                    return None;
                }
            }
        }
        signer.as_mut().map(|s| s.ask(&request))
    })
    .await
    .unwrap()
}

/// `message` signed by the wallet of `key` as `personal_sign` does.
pub async fn sign_helper(key: &str, message: &str) -> Option<String> {
    ask_signer(json!({"key": key, "message": message})).await
}

/// The address of the wallet of `key`.
pub async fn address_of(key: &str) -> Option<String> {
    ask_signer(json!({"key": key, "address": true})).await
}

/// A nonce grant from `app`.
pub async fn grant(app: &TestApp) -> Value {
    let reply = client().post(format!("{}/auth/siwe/nonce", app.base)).send().await.unwrap();
    assert_eq!(reply.status(), 200);
    reply.json().await.unwrap()
}

/// The EIP-4361 message a wallet page builds from `grant` for `address`.
pub fn message(grant: &Value, address: &str) -> String {
    format!(
        "{} wants you to sign in with your Ethereum account:\n{address}\n\n{}\n\nURI: {}\nVersion: 1\nChain ID: {}\n\
         Nonce: {}\nIssued At: {}\nExpiration Time: {}",
        grant["domain"].as_str().unwrap(),
        grant["statement"].as_str().unwrap(),
        grant["uri"].as_str().unwrap(),
        grant["chainId"],
        grant["nonce"].as_str().unwrap(),
        grant["issuedAt"].as_str().unwrap(),
        grant["expirationTime"].as_str().unwrap()
    )
}

/// Posts `body` to verify; status, JSON reply and the session cookie it set.
pub async fn verify(app: &TestApp, body: impl Into<reqwest::Body>) -> (u16, Value, Option<String>) {
    let reply = client()
        .post(format!("{}/auth/siwe/verify", app.base))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = reply.status().as_u16();
    let cookie = reply.headers().get("set-cookie").map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string());
    let text = reply.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), cookie)
}

/// Signs a fresh login for `key` at `app`: (message, signature).
pub async fn signed_login(app: &TestApp, key: &str) -> Option<(String, String)> {
    let address = address_of(key).await?;
    let text = message(&grant(app).await, &address);
    let signature = sign_helper(key, &text).await?;
    Some((text, signature))
}

pub fn body(message: &str, signature: &str) -> String {
    json!({"message": message, "signature": signature}).to_string()
}

/// Signs in a fresh wallet of `key` at `app` and answers its session cookie; `None` (the test returns) where the
/// signing helper cannot run and the suite does not require it.
pub async fn sign_in(app: &TestApp, key: &str) -> Option<String> {
    let (text, signature) = signed_login(app, key).await?;
    let (status, reply, cookie) = verify(app, body(&text, &signature)).await;
    assert_eq!(status, 200, "{reply}");
    Some(cookie.unwrap())
}
