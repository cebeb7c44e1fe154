//! Wallet login over HTTP: a nonce from `POST /auth/siwe/nonce`, a message built from it and signed as a wallet
//! signs (Python's eth-account, `tests/support/siwe_sign.py`), `POST /auth/siwe/verify` → a session in the
//! wallet's own workspace; every refusal is a 401 with its reason, and nonces hold across replicas.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};
use std::process::Stdio;

use crate::common::wallet::{address_of, body, grant, message, sign_helper, signed_login, verify};
use crate::common::{client, spawn_app, spawn_app_on, TestApp, TestDb};

/// Throwaway keys: 32 bytes of 0x11 (address 0x19E7…Ff2A) and of 0x22.
const KEY_A: &str = "0x1111111111111111111111111111111111111111111111111111111111111111";
const KEY_B: &str = "0x2222222222222222222222222222222222222222222222222222222222222222";

#[tokio::test]
async fn a_wallet_signs_in_to_a_workspace_of_its_own_and_a_replay_is_refused() {
    let app = spawn_app().await;
    let Some((text, signature)) = signed_login(&app, KEY_A).await else { return };
    let (status, reply, cookie) = verify(&app, body(&text, &signature)).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["address"], "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A");
    let cookie = cookie.expect("a session cookie");
    let (status, connectors) = app.call("connectors/list", json!({}), Some(&cookie)).await;
    assert_eq!((status, connectors.as_str()), (200, "[]"), "a new, empty workspace");
    let (status, me) = app.call("account/whoami", json!({}), Some(&cookie)).await;
    let me: Value = serde_json::from_str(&me).unwrap();
    assert_eq!(status, 200);
    assert_eq!(me["signedInAs"], json!({"kind": "wallet", "address": "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"}));
    assert_eq!(me["workspaceName"], "0x19E7…ff2A");
    let (_, owner_cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let (_, owner) = app.call("account/whoami", json!({}), Some(&owner_cookie)).await;
    assert!(owner.contains(r#""signedInAs":{"kind":"installOwner"}"#), "{owner}");
    let made = json!({"input": {"name": "owner's", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}});
    assert_eq!(app.call("connectors/create", made, Some(&owner_cookie)).await.0, 200);
    assert_eq!(app.call("connectors/list", json!({}), Some(&cookie)).await.1, "[]", "not the owner's data");

    // The same message and signature again: the nonce was used.
    let (status, reply, cookie) = verify(&app, body(&text, &signature)).await;
    assert_eq!((status, cookie), (401, None));
    assert_eq!(reply["error"], "the nonce was already used (a replayed message)");

    // Signing in again lands in the same workspace with a new session.
    let Some((text, signature)) = signed_login(&app, KEY_A).await else { return };
    let (status, reply, again) = verify(&app, body(&text, &signature)).await;
    assert_eq!(status, 200, "{reply}");
    assert_ne!(again.as_deref(), None);
    let made = json!({"input": {"name": "mine", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}});
    assert_eq!(app.call("connectors/create", made, Some(&again.clone().unwrap())).await.0, 200);
    assert!(app.call("connectors/list", json!({}), Some(&again.unwrap())).await.1.contains("mine"));

    // Another wallet gets another workspace.
    let Some((text, signature)) = signed_login(&app, KEY_B).await else { return };
    let (status, _, other) = verify(&app, body(&text, &signature)).await;
    assert_eq!(status, 200);
    assert_eq!(app.call("connectors/list", json!({}), Some(&other.unwrap())).await.1, "[]");
}

#[tokio::test]
async fn every_bad_login_is_a_401_with_its_reason() {
    let app = spawn_app().await;
    let Some(address) = address_of(KEY_A).await else { return };
    let refusal = |(status, reply, cookie): (u16, Value, Option<String>)| {
        assert_eq!((status, cookie), (401, None), "{reply}");
        reply["error"].as_str().unwrap().to_string()
    };
    let good = grant(&app).await;
    let text = message(&good, &address);
    let Some(signature) = sign_helper(KEY_A, &text).await else { return };

    // Signed by another key; tampered after signing; a malformed or short signature.
    let other = sign_helper(KEY_B, &text).await.unwrap();
    assert!(refusal(verify(&app, body(&text, &other)).await).contains("not the message's address's"));
    let tampered = text.replace("Sign in to latency-guard.", "Sign in to latency-guard!");
    assert!(refusal(verify(&app, body(&tampered, &signature)).await).contains("not the message's address's"));
    assert!(refusal(verify(&app, body(&text, "0xdeadbeef")).await).contains("not 65 bytes of hex"));
    // A nonce this server never issued; another domain; another URI.
    let unknown = text.replace(good["nonce"].as_str().unwrap(), "abcdefgh12345678");
    let signed = sign_helper(KEY_A, &unknown).await.unwrap();
    assert_eq!(refusal(verify(&app, body(&unknown, &signed)).await), "the nonce was not issued by this server");
    let elsewhere = text.replacen(good["domain"].as_str().unwrap(), "evil.example", 1);
    let signed = sign_helper(KEY_A, &elsewhere).await.unwrap();
    assert_eq!(
        refusal(verify(&app, body(&elsewhere, &signed)).await),
        "the message is for evil.example, not this server"
    );
    let other_uri = text.replace(good["uri"].as_str().unwrap(), "http://elsewhere.example/login");
    let signed = sign_helper(KEY_A, &other_uri).await.unwrap();
    assert!(refusal(verify(&app, body(&other_uri, &signed)).await).contains("not this server's login"));
    // Expired, not yet valid, issued long ago, on a chain not accepted here: each signed, each refused.
    let issued = good["issuedAt"].as_str().unwrap();
    let expired = text.replace(good["expirationTime"].as_str().unwrap(), "2020-01-01T00:00:00Z");
    let later = text.clone() + "\nNot Before: 2999-01-01T00:00:00Z";
    let old = text.replace(issued, "2020-01-01T00:00:00Z");
    let chain = text.replace("Chain ID: 1\n", "Chain ID: 5\n");
    for (changed, reason) in [
        (expired, "the message expired at 2020-01-01T00:00:00Z"),
        (later, "the message is not valid before 2999-01-01T00:00:00Z"),
        (old, "the message was issued at 2020-01-01T00:00:00Z, outside the accepted window"),
        (chain, "chain id 5 is not accepted here"),
    ] {
        let signed = sign_helper(KEY_A, &changed).await.unwrap();
        assert_eq!(refusal(verify(&app, body(&changed, &signed)).await), reason);
    }
    // Not JSON, not the message's shape, larger than allowed.
    assert!(refusal(verify(&app, "{not json").await).contains("is not {\"message\", \"signature\"} JSON"));
    assert!(refusal(verify(&app, body("hello", &signature)).await).starts_with("not a Sign-In with Ethereum message"));
    let huge = body(&"x".repeat(20_000), &signature);
    assert!(refusal(verify(&app, huge).await).contains("larger than"));
    // None of those used the nonce: the genuine login still works, once.
    let (status, reply, _) = verify(&app, body(&text, &signature)).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn a_nonce_issued_by_one_replica_logs_in_at_another_once() {
    let Some(db) = TestDb::postgres().await else { return };
    // Two replicas behind one public URL, as a load balancer serves them.
    let public =
        |settings: &mut latency_guard::config::Settings| settings.public_url = Some("https://bench.example".into());
    let (one, two) = (spawn_app_on(&db.url, public).await, spawn_app_on(&db.url, public).await);
    let Some(address) = address_of(KEY_A).await else { return };
    let issued = grant(&one).await;
    assert_eq!(
        (issued["domain"].as_str(), issued["uri"].as_str()),
        (Some("bench.example"), Some("https://bench.example/login"))
    );
    let text = message(&issued, &address);
    let signature = sign_helper(KEY_A, &text).await.unwrap();
    let (status, reply, _) = verify(&two, body(&text, &signature)).await;
    assert_eq!(status, 200, "{reply}");
    let (status, reply, _) = verify(&one, body(&text, &signature)).await;
    assert_eq!((status, reply["error"].as_str()), (401, Some("the nonce was already used (a replayed message)")));
}

#[tokio::test]
async fn a_client_asking_too_often_gets_429_and_others_are_not_held_back() {
    // Behind a proxy that names the client in x-forwarded-for (its last entry counts).
    let db = TestDb::sqlite().await;
    let app = spawn_app_on(&db.url, |s| s.client_ip_header = Some("x-forwarded-for".parse().unwrap())).await;
    let ask = |client: &'static str| {
        client_request(&app, "/auth/siwe/nonce").header("x-forwarded-for", format!("203.0.113.250, {client}")).send()
    };
    for _ in 0..20 {
        assert_eq!(ask("198.51.100.7").await.unwrap().status(), 200);
    }
    let refused = ask("198.51.100.7").await.unwrap();
    assert_eq!(refused.status(), 429);
    let wait: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=4).contains(&wait), "one more call within the refill: {wait} s");
    let reason: Value = refused.json().await.unwrap();
    assert!(reason["error"].as_str().unwrap().starts_with("too many wallet-login requests"), "{reason}");
    // Verify counts against the same budget; another client still gets in.
    let verify = client_request(&app, "/auth/siwe/verify").header("x-forwarded-for", "198.51.100.7").body("{}");
    assert_eq!(verify.send().await.unwrap().status(), 429);
    assert_eq!(ask("198.51.100.8").await.unwrap().status(), 200, "another client is not held back");
    db.cleanup().await;
}

/// The operator's switch: closed to new wallets (a wallet with a workspace still signs in), then a list of the
/// wallets that may (others, old or new, are refused with a 403 that says why); on SQLite and on PostgreSQL.
#[tokio::test]
async fn the_operator_closes_sign_in_to_new_wallets_or_lists_who_may_sign_in() {
    use latency_guard::model::WalletAdmission;
    for db in [Some(TestDb::sqlite().await), TestDb::postgres().await].into_iter().flatten() {
        let open = spawn_app_on(&db.url, |_| {}).await;
        let Some((text, signature)) = signed_login(&open, KEY_A).await else { return };
        assert_eq!(verify(&open, body(&text, &signature)).await.0, 200, "A signs in while sign-in is open");

        let closed = spawn_app_on(&db.url, |s| s.wallet_sign_in = WalletAdmission::Closed).await;
        let (text, signature) = signed_login(&closed, KEY_A).await.unwrap();
        assert_eq!(verify(&closed, body(&text, &signature)).await.0, 200, "A has a workspace: still let in");
        let (text, signature) = signed_login(&closed, KEY_B).await.unwrap();
        let (status, reply, cookie) = verify(&closed, body(&text, &signature)).await;
        assert_eq!(status, 403, "{reply}");
        assert!(reply["error"].as_str().unwrap().contains("takes no new wallets"), "{reply}");
        assert!(reply["error"].as_str().unwrap().contains("wallet-sign-in"), "{reply}");
        assert!(cookie.is_none(), "no session for a wallet not let in");

        let address_b = address_of(KEY_B).await.unwrap();
        let listed = spawn_app_on(&db.url, |s| s.wallet_sign_in = WalletAdmission::Listed(vec![address_b])).await;
        let (text, signature) = signed_login(&listed, KEY_B).await.unwrap();
        assert_eq!(verify(&listed, body(&text, &signature)).await.0, 200, "B is listed");
        let (text, signature) = signed_login(&listed, KEY_A).await.unwrap();
        let (status, reply, _) = verify(&listed, body(&text, &signature)).await;
        assert_eq!(status, 403, "A is not listed, though it has a workspace: {reply}");
        assert!(reply["error"].as_str().unwrap().contains("not among those"), "{reply}");
        // A's sessions and API tokens from before end with its admission: checked on every use, not only at
        // sign-in. B's, and the install owner's, go on.
        let address_a = address_of(KEY_A).await.unwrap();
        let (workspace_a, cookie_a) =
            listed.session_for(&latency_guard::account::service::wallet_identity(&address_a)).await;
        let (status, reply) = listed.call("connectors/list", serde_json::json!({}), Some(&cookie_a)).await;
        assert_eq!(status, 403, "{reply}");
        assert!(reply.contains("not among those this server lets in") && reply.contains("wallet-sign-in"), "{reply}");
        let (status, _, _) = listed.get("/connectors", Some(&cookie_a)).await;
        assert_eq!(status, 303, "a page sends A back to sign-in");
        let input = latency_guard::model::ApiTokenInput {
            name: "ci".into(),
            expires_in_days: None,
            scope: latency_guard::model::TokenScope::Read,
        };
        let now = listed.state.clock.now_ms();
        let token = latency_guard::account::service::create_api_token(
            &listed.state.store,
            &listed.state.tokens,
            workspace_a,
            &input,
            now,
        )
        .await
        .unwrap()
        .token;
        let by_token = client()
            .post(format!("{}/api/connectors/list", listed.base))
            .bearer_auth(&token)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(by_token.status().as_u16(), 403, "A's API token");
        let address_b = address_of(KEY_B).await.unwrap();
        let (_, cookie_b) = listed.session_for(&latency_guard::account::service::wallet_identity(&address_b)).await;
        assert_eq!(listed.call("connectors/list", serde_json::json!({}), Some(&cookie_b)).await.0, 200, "B is listed");
        let (_, owner) = listed.session_for("local:owner").await;
        assert_eq!(
            listed.call("connectors/list", serde_json::json!({}), Some(&owner)).await.0,
            200,
            "the install owner"
        );
        db.cleanup().await;
    }
}

fn client_request(app: &TestApp, path: &str) -> reqwest::RequestBuilder {
    client().post(format!("{}{path}", app.base))
}

/// The stand-in chain node (`tests/support/contract_wallet_node.py`) serving `chain`, its contract approving
/// `approved` for the message in `message_file`: the process and its URL.
async fn contract_node(
    chain: u64,
    contract: &str,
    approved: &str,
    message_file: &std::path::Path,
) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/contract_wallet_node.py");
    let mut child = tokio::process::Command::new(common::python())
        .arg(script)
        .args([port.to_string(), chain.to_string(), contract.into(), approved.into()])
        .arg(message_file)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("READY"));
    // The node's per-call lines are not read: dropping the reader is fine, it prints little.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://127.0.0.1:{port}"))
}

#[tokio::test]
async fn a_smart_contract_wallet_logs_in_through_the_chain_node_and_nowhere_else() {
    // Skipped like the other signing tests when the set-up's Python (eth-account, eth-abi) is missing.
    if address_of(KEY_A).await.is_none() {
        return;
    }
    let contract = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"; // a contract: no key signs for it
    let approved = "0102030405060708090a0b0c0d0e0f10111213141516171819"; // a multisig-style blob, not 65 bytes
    let dir = tempfile::tempdir().unwrap();
    let message_file = dir.path().join("message.txt");
    let (_node, node_url) = contract_node(1, contract, approved, &message_file).await;
    let db = TestDb::sqlite().await;
    let app = spawn_app_on(&db.url, |s| s.siwe_rpc_url = Some(node_url.clone())).await;

    // What the contract approves: this message, this signature.
    let text = message(&grant(&app).await, contract);
    std::fs::write(&message_file, &text).unwrap();
    let refused = verify(&app, body(&text, "0xdeadbeef")).await;
    assert_eq!(refused.0, 401);
    assert_eq!(
        refused.1["error"],
        "neither the address's key nor a contract wallet at it (EIP-1271) accepts the signature"
    );
    let reverted = verify(&app, body(&text, &format!("0x{}", hex_of(b"revert")))).await;
    assert_eq!(
        reverted.1["error"],
        "neither the address's key nor a contract wallet at it (EIP-1271) accepts the signature"
    );
    let (status, reply, cookie) = verify(&app, body(&text, &format!("0x{approved}"))).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["address"], contract);
    let (_, me) = app.call("account/whoami", json!({}), Some(&cookie.unwrap())).await;
    assert!(me.contains(contract), "{me}");
    // The same approval for another message (another nonce) is not the contract's: refused.
    let other = message(&grant(&app).await, contract);
    assert_eq!(verify(&app, body(&other, &format!("0x{approved}"))).await.0, 401);
    // An ordinary wallet still signs in as before beside it.
    let Some((text_a, signature_a)) = signed_login(&app, KEY_A).await else { return };
    assert_eq!(verify(&app, body(&text_a, &signature_a)).await.0, 200);

    // A node of another chain than the message's, and a node that is down: refused with the reason.
    let (_wrong_chain, wrong_url) = contract_node(137, contract, approved, &message_file).await;
    let app137 = spawn_app_on(&db.url, |s| s.siwe_rpc_url = Some(wrong_url)).await;
    let text = message(&grant(&app137).await, contract);
    std::fs::write(&message_file, &text).unwrap();
    assert_eq!(
        verify(&app137, body(&text, &format!("0x{approved}"))).await.1["error"],
        "siwe-rpc-url serves chain 137, but the message names chain 1"
    );
    let down = spawn_app_on(&db.url, |s| s.siwe_rpc_url = Some("http://127.0.0.1:9/".into())).await;
    let text = message(&grant(&down).await, contract);
    let reason = verify(&down, body(&text, &format!("0x{approved}"))).await.1["error"].as_str().unwrap().to_string();
    assert!(reason.starts_with("the contract wallet could not be checked"), "{reason}");
    assert!(!reason.contains("127.0.0.1:9"), "the node's URL (which may hold a key) is not repeated: {reason}");

    // Without siwe-rpc-url, a contract wallet's signature is refused saying what is missing.
    let plain = spawn_app().await;
    let text = message(&grant(&plain).await, contract);
    let reason = verify(&plain, body(&text, &format!("0x{approved}"))).await.1["error"].as_str().unwrap().to_string();
    assert!(reason.contains("not 65 bytes of hex"), "{reason}");
    let sixty_five = format!("0x{}1b", "11".repeat(64));
    let reason = verify(&plain, body(&text, &sixty_five)).await.1["error"].as_str().unwrap().to_string();
    assert!(reason.contains("checked only when this server has siwe-rpc-url"), "{reason}");
    db.cleanup().await;
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
