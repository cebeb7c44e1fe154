//! Safe to open to the internet: a fresh wallet, signed in for real, reads nothing of the server's own network
//! through any spelling of an internal address or any surface that sends requests (save, connection test, once,
//! runs, the probe, A/B tests, sweeps, Guard), and a service there that answers every path with a secret is never
//! reached; the install owner still reaches it (and benchmarks a loopback llama.cpp server); an allowed range and
//! the demo simulator stay reachable; a name that resolves to a public address and then to the loopback is
//! refused where the connection is made; a stored key never goes to a URL the caller typed.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::wallet::sign_in;
use crate::common::{spawn_app_resolving, TestApp};
use latency_guard::config::{Settings, CONNECTOR_ALLOW};
use latency_guard::model::ConnectorInput;
use latency_guard::outbound::{AllowRules, Lookup, SystemLookup};
use latency_guard::sim::{spawn_local, SimConfig};
use latency_guard::store::LOCAL_OWNER;

/// A throwaway wallet key (32 bytes of 0x33).
const WALLET_KEY: &str = "0x3333333333333333333333333333333333333333333333333333333333333333";
/// What the internal service answers, to every path and method.
const SECRET: &str = "INTERNAL-SECRET-5f2a9c";

/// A service on the server's loopback that answers every request with [`SECRET`] and counts the requests.
struct InternalService {
    addr: SocketAddr,
    hits: Arc<AtomicUsize>,
    seen_authorization: Arc<Mutex<Vec<String>>>,
}

impl InternalService {
    async fn start() -> Self {
        let hits = Arc::new(AtomicUsize::new(0));
        let seen_authorization = Arc::new(Mutex::new(Vec::new()));
        let (counter, seen) = (Arc::clone(&hits), Arc::clone(&seen_authorization));
        let app = axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
            counter.fetch_add(1, Ordering::SeqCst);
            if let Some(value) = headers.get("authorization") {
                seen.lock().unwrap().push(value.to_str().unwrap_or_default().to_string());
            }
            async { SECRET }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, hits, seen_authorization }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// Answers scripted addresses for some names (one answer a lookup, the last repeated) and asks the system for
/// the rest.
#[derive(Default)]
struct ScriptedLookup {
    answers: Mutex<HashMap<String, Vec<Vec<IpAddr>>>>,
}

impl ScriptedLookup {
    fn answering(host: &str, answers: &[&[&str]]) -> Arc<Self> {
        let answers = answers.iter().map(|a| a.iter().map(|ip| ip.parse().unwrap()).collect()).collect();
        Arc::new(Self { answers: Mutex::new(HashMap::from([(host.to_string(), answers)])) })
    }
}

impl Lookup for ScriptedLookup {
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let mut answers = self.answers.lock().unwrap();
        match answers.get_mut(host) {
            Some(script) => {
                let next = if script.len() > 1 { script.remove(0) } else { script[0].clone() };
                Box::pin(async move { Ok(next) })
            }
            None => SystemLookup.lookup(host),
        }
    }
}

/// Nothing allowed beyond public addresses: the default a fresh install has.
fn default_policy(settings: &mut Settings) {
    settings.connector_allow = AllowRules::none(CONNECTOR_ALLOW);
}

async fn call(app: &TestApp, cookie: &str, path: &str, body: Value) -> (u16, String) {
    app.call(path, body, Some(cookie)).await
}

/// Saves a connector through the API (it must be accepted) and answers its id.
async fn saved_connector(app: &TestApp, cookie: &str, base_url: &str, model: &str) -> Value {
    let input = json!({"input": {"name": format!("to {base_url}"), "baseUrl": base_url, "model": model}});
    let (status, text) = call(app, cookie, "connectors/create", input).await;
    assert_eq!(status, 200, "{base_url}: {text}");
    serde_json::from_str::<Value>(&text).unwrap()["id"].clone()
}

/// `benchmark/once` of a connector that must answer; the measurement.
async fn once_succeeds(app: &TestApp, cookie: &str, connector: &Value) -> Value {
    let (status, text) = call(
        app,
        cookie,
        "benchmark/once",
        json!({"input": {"connectorId": connector, "prompt": "Hi", "maxTokens": 4}}),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let measured: Value = serde_json::from_str(&text).unwrap();
    assert!(common::null_at(&measured, "/error"), "{text}");
    measured
}

/// A connector stored as a save long ago (or a name that resolved elsewhere then) would have left it.
async fn stored_connector(app: &TestApp, workspace_cookie_owner: &str, base_url: &str) -> String {
    let now = app.state.clock.now_ms();
    let (workspace, _) = app.state.store.ensure_workspace(workspace_cookie_owner, "w", now).await.unwrap();
    let input = ConnectorInput {
        name: format!("stored {base_url}"),
        base_url: base_url.into(),
        model: "m".into(),
        ..Default::default()
    };
    let valid = input.validate().unwrap();
    let made = app.state.store.create_connector(workspace.id, &valid, false, &app.state.sealer, now).await.unwrap();
    made.id.to_string()
}

/// Every way this test spells the internal service's address.
fn spellings(port: u16) -> Vec<String> {
    [
        "127.0.0.1",
        "localhost",
        "127.1",
        "0x7f000001",
        "2130706433",
        "0177.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "0.0.0.0",
    ]
    .iter()
    .map(|host| format!("http://{host}:{port}/v1"))
    .chain([format!("http://127.0.0.1:{port}/secret?x="), format!("http://127.0.0.1:{port}/secret%23")])
    .collect()
}

fn assert_refused(surface: &str, status: u16, text: &str) {
    assert!(!text.contains(SECRET), "{surface} leaked the internal answer: {text}");
    assert!(text.contains("refused:") && text.contains("connector-allow"), "{surface} ({status}): {text}");
}

#[tokio::test]
async fn a_fresh_wallet_reaches_nothing_on_the_servers_network_in_any_spelling_through_any_surface() {
    let app = spawn_app_resolving(false, Arc::new(SystemLookup), default_policy).await;
    let internal = InternalService::start().await;
    let Some(cookie) = sign_in(&app, WALLET_KEY).await else { return };
    let wallet = latency_guard::account::service::wallet_identity(&address_of_session(&app, &cookie).await);
    let prompts: Vec<Value> = ["a", "b"].iter().map(|p| json!({"text": p})).collect();
    let set = call(
        &app,
        &cookie,
        "guard/sets/save",
        json!({"id": null, "input": {"name": "s", "prompts": prompts, "maxTokens": 8}}),
    )
    .await;
    let set: Value = serde_json::from_str(&set.1).unwrap();
    let public = stored_connector(&app, &wallet, "http://8.8.8.8/v1").await;

    for base_url in spellings(internal.addr.port()) {
        let (status, text) = call(
            &app,
            &cookie,
            "connectors/create",
            json!({"input": {"name": "x", "baseUrl": base_url, "model": "m"}}),
        )
        .await;
        assert_eq!(status, 400, "{base_url}: {text}");
        assert_refused(&format!("save {base_url}"), status, &text);

        let test = json!({"target": {"baseUrl": base_url, "model": "m"}});
        let (status, text) = call(&app, &cookie, "connectors/test", test).await;
        assert_eq!(status, 200, "{text}");
        assert_refused(&format!("connection test {base_url}"), status, &text);

        let stored = stored_connector(&app, &wallet, &base_url).await;
        let update = json!({"id": stored, "input": {"name": "y", "baseUrl": base_url, "model": "m"}});
        let uses = [
            ("connectors/update", update),
            ("benchmark/once", json!({"input": {"connectorId": stored, "prompt": "x"}})),
            (
                "runs/start",
                json!({"input": {"connectorId": stored, "prompts": ["a"], "iterations": 1,
                                 "agent": {"name": "bot", "tokenBudget": 8},
                                 "mode": {"kind": "closed", "concurrency": 1}}}),
            ),
            ("speclab/probe", json!({"id": stored})),
            (
                "speclab/ab/start",
                json!({"input": {"baselineConnectorId": public, "candidateConnectorId": stored,
                                 "plan": {"prompts": ["x"], "iterations": 1}}}),
            ),
            (
                "sweeps/start",
                json!({"input": {"connectorId": stored, "prompts": ["x"], "requestsPerLevel": 2,
                                 "levels": {"kind": "listed", "axis": "concurrency", "levels": [1]}}}),
            ),
        ];
        for (path, body) in uses {
            let (status, text) = call(&app, &cookie, path, body).await;
            assert_refused(&format!("{path} {base_url}"), status, &text);
        }
        let schedule = json!({"id": null, "input": {"name": "g", "setId": set["id"], "connectorId": stored,
                                                    "cadence": "15m",
                                                    "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]}});
        let (status, text) = call(&app, &cookie, "guard/schedules/save", schedule).await;
        assert_eq!(status, 200, "{text}");
        let schedule: Value = serde_json::from_str(&text).unwrap();
        let (status, text) =
            call(&app, &cookie, "guard/schedules/run", json!({"id": schedule["schedule"]["id"]})).await;
        assert_refused(&format!("Guard run {base_url}"), status, &text);
    }
    assert_eq!(internal.hits(), 0, "no request reached the internal service");

    // The install owner reaches it, as before: the service was there to be read all along.
    let (_, owner) = app.session_for(LOCAL_OWNER).await;
    let test = json!({"target": {"baseUrl": format!("http://127.0.0.1:{}/v1", internal.addr.port()), "model": "m"}});
    let (status, text) = call(&app, &owner, "connectors/test", test).await;
    assert_eq!(status, 200);
    assert!(text.contains(SECRET), "the owner reaches its own network: {text}");
    assert_eq!(internal.hits(), 1);
}

/// The wallet address of a session, as `account/whoami` says it.
async fn address_of_session(app: &TestApp, cookie: &str) -> String {
    let (_, me) = call(app, cookie, "account/whoami", json!({})).await;
    let me: Value = serde_json::from_str(&me).unwrap();
    me["signedInAs"]["address"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn the_install_owner_still_benchmarks_a_loopback_llama_cpp_server() {
    let app = spawn_app_resolving(false, Arc::new(SystemLookup), default_policy).await;
    let Some(llama) = common::llama::llama_server(false).await else { return };
    let (_, owner) = app.session_for(LOCAL_OWNER).await;
    let id = saved_connector(&app, &owner, &llama.base_url, "tiny").await;
    assert_eq!(once_succeeds(&app, &owner, &id).await["status"], 200);
}

#[tokio::test]
async fn an_allowed_host_and_the_demo_simulator_are_reachable_and_nothing_else_there() {
    let sim = spawn_local(SimConfig::fixed_ms(1, 1, 4)).await.unwrap();
    let internal = InternalService::start().await;
    // The operator allows one host name: a wallet's connector to it works, by name.
    let app = spawn_app_resolving(false, Arc::new(SystemLookup), |s| {
        s.connector_allow = AllowRules::parse(CONNECTOR_ALLOW, "localhost").unwrap();
    })
    .await;
    let Some(cookie) = sign_in(&app, WALLET_KEY).await else { return };
    let by_name = saved_connector(&app, &cookie, &format!("http://localhost:{}/v1", sim.addr().port()), "m").await;
    once_succeeds(&app, &cookie, &by_name).await;
    // The same address by number is not the allowed name.
    let by_number = json!({"target": {"baseUrl": format!("http://127.0.0.1:{}/v1", sim.addr().port()), "model": "m"}});
    let (_, text) = call(&app, &cookie, "connectors/test", by_number).await;
    assert_refused("the allowed host's address by number", 200, &text);

    // The demo simulator is reachable for every workspace; another port of its address is not.
    let demo = spawn_app_resolving(true, Arc::new(SystemLookup), default_policy).await;
    let Some(cookie) = sign_in(&demo, WALLET_KEY).await else { return };
    let (_, owner) = demo.session_for(LOCAL_OWNER).await;
    let (_, listed) = call(&demo, &owner, "connectors/list", json!({})).await;
    let demo_url = serde_json::from_str::<Value>(&listed).unwrap()[0]["baseUrl"].as_str().unwrap().to_string();
    let to_demo = saved_connector(&demo, &cookie, &demo_url, "sim-model").await;
    once_succeeds(&demo, &cookie, &to_demo).await;
    let beside = json!({"target": {"baseUrl": format!("http://127.0.0.1:{}/v1", internal.addr.port()), "model": "m"}});
    let (_, text) = call(&demo, &cookie, "connectors/test", beside).await;
    assert_refused("a port beside the demo simulator", 200, &text);
    assert_eq!(internal.hits(), 0);
}

#[tokio::test]
async fn a_name_that_resolves_to_a_public_address_and_then_to_the_loopback_is_refused_at_use() {
    let internal = InternalService::start().await;
    // The save's lookup and the run's own check see a public address; the connection's lookup sees the loopback.
    let lookup = ScriptedLookup::answering("rebind.test", &[&["93.184.216.34"], &["93.184.216.34"], &["127.0.0.1"]]);
    let app = spawn_app_resolving(false, lookup, default_policy).await;
    let Some(cookie) = sign_in(&app, WALLET_KEY).await else { return };
    // Saved: a public address then.
    let id = saved_connector(&app, &cookie, &format!("http://rebind.test:{}/v1", internal.addr.port()), "m").await;
    let once = json!({"input": {"connectorId": id, "prompt": "x"}});
    let (status, text) = call(&app, &cookie, "benchmark/once", once.clone()).await;
    assert_eq!(status, 200, "{text}");
    let measured: Value = serde_json::from_str(&text).unwrap();
    let error = measured["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("connect: refused: rebind.test resolves to an address that is not public;"), "{text}");
    assert!(!text.contains("127.0.0.1"), "a workspace never learns what a name resolves to: {text}");
    assert!(error.ends_with("connector-allow setting)"), "the whole refusal, not the transport's words: {text}");
    // From now on the name answers the loopback: refused before anything is sent.
    let (status, text) = call(&app, &cookie, "benchmark/once", once).await;
    assert_eq!(status, 400, "{text}");
    assert_refused("once after the rebinding", status, &text);
    assert_eq!(internal.hits(), 0, "no connection reached the loopback");
}

#[tokio::test]
async fn a_stored_key_never_reaches_a_url_the_caller_typed() {
    // The owner may reach anything, so only the key rule stands between the stored key and the typed URL.
    let app = spawn_app_resolving(false, Arc::new(SystemLookup), default_policy).await;
    let sim = spawn_local(SimConfig::fixed_ms(1, 1, 4)).await.unwrap();
    let elsewhere = InternalService::start().await;
    let (_, owner) = app.session_for(LOCAL_OWNER).await;
    let key = "sk-CANARY-4d1e8b2f";
    let input = json!({"input": {"name": "k", "baseUrl": sim.base_url(), "model": "m", "apiKey": key,
                                 "headers": {"x-api-key": key}}});
    let (status, text) = call(&app, &owner, "connectors/create", input).await;
    assert_eq!(status, 200, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    let typed = format!("http://127.0.0.1:{}/v1", elsewhere.addr.port());

    // The connection test with the stored key, or a stored credential header, and a typed URL: refused.
    for target in [
        json!({"connectorId": id, "baseUrl": typed, "model": "m"}),
        json!({"connectorId": id, "baseUrl": typed, "model": "m", "apiKey": "sk-typed-1", "headers": {"x-api-key": null}}),
    ] {
        let (status, text) = call(&app, &owner, "connectors/test", json!({"target": target})).await;
        assert_eq!(status, 400, "{text}");
        assert!(text.contains("enter it again"), "{text}");
    }
    // Moving the connector to another origin without entering the key again: refused, nothing changed.
    let moved =
        json!({"id": id, "input": {"name": "k", "baseUrl": typed, "model": "m", "headers": {"x-api-key": null}}});
    let (status, text) = call(&app, &owner, "connectors/update", moved).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("enter it again"), "{text}");
    let (_, kept) = call(&app, &owner, "connectors/get", json!({"id": id})).await;
    assert_eq!(serde_json::from_str::<Value>(&kept).unwrap()["baseUrl"], sim.base_url(), "{kept}");
    assert_eq!(elsewhere.hits(), 0, "nothing went to the typed URL");

    // Within the stored origin (another path) the key and the credential header follow.
    let same_origin = format!("{}/", sim.base_url().trim_end_matches("/v1"));
    let repathed = json!({"id": id, "input": {"name": "k", "baseUrl": format!("{same_origin}v1/"), "model": "m",
                                              "headers": {"x-api-key": null}}});
    let (status, text) = call(&app, &owner, "connectors/update", repathed).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["hasApiKey"], true, "{text}");
    // With the key entered again, the connector moves, and the key goes where the user said.
    let entered = json!({"id": id, "input": {"name": "k", "baseUrl": typed, "model": "m", "apiKey": "sk-new-1",
                                             "headers": {"x-api-key": "sk-new-1"}}});
    let (status, text) = call(&app, &owner, "connectors/update", entered).await;
    assert_eq!(status, 200, "{text}");
    let (status, _) =
        call(&app, &owner, "connectors/test", json!({"target": {"connectorId": id, "baseUrl": typed, "model": "m"}}))
            .await;
    assert_eq!(status, 200);
    assert_eq!(*elsewhere.seen_authorization.lock().unwrap(), vec!["Bearer sk-new-1".to_string()]);
}
