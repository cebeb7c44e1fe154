//! Signing in as a wallet does: a nonce from `POST /auth/siwe/nonce`, the EIP-4361 message built from it, signed
//! by Python's eth-account (`tests/support/siwe_sign.py`, an implementation independent of the Rust crate that
//! verifies it), and `POST /auth/siwe/verify`.

use serde_json::{json, Value};
use std::process::Stdio;
use tokio::io::AsyncWriteExt;

use super::{client, TestApp};

/// Runs the signing helper; `None` (and the test returns) when its Python lacks eth-account and the suite does not
/// require it.
pub async fn sign_helper(key: &str, message: &str, extra: &[&str]) -> Option<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/siwe_sign.py");
    let mut child = tokio::process::Command::new(super::python())
        .arg(script)
        .arg(key)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(message.as_bytes()).await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    if !output.status.success() {
        let missing = format!("{} cannot sign (is eth-account installed? scripts/setup.sh --test)", super::python());
        assert!(super::may_skip(&missing), "{missing}: {}", String::from_utf8_lossy(&output.stderr));
        return None;
    }
    Some(String::from_utf8(output.stdout).unwrap().trim().to_string())
}

pub async fn address_of(key: &str) -> Option<String> {
    sign_helper(key, "", &["--address"]).await
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
    let signature = sign_helper(key, &text, &[]).await?;
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
