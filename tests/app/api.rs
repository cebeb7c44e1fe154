//! The HTTP surface through a real socket: sessions, login links, workspace isolation, validation, origin checks.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::{spawn_app, spawn_app_with_demo};
use serde_json::{json, Value};

/// Every server function, with a body of the right shape.
fn every_server_function(id: &str) -> Vec<(&'static str, Value)> {
    let input = json!({"name": "n", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"});
    vec![
        ("connectors/list", json!({})),
        ("connectors/get", json!({"id": id})),
        ("connectors/create", json!({"input": input})),
        ("connectors/update", json!({"id": id, "input": input})),
        ("connectors/delete", json!({"id": id})),
        ("connectors/test", json!({"target": {"baseUrl": "http://127.0.0.1:9/v1", "model": "m", "connectorId": id}})),
    ]
}

fn connector_body(name: &str, base_url: &str) -> Value {
    json!({"input": {
        "name": name, "baseUrl": base_url, "model": "sim-model", "apiKey": "sk-api-test-0001",
        "headers": {"api-version": "2024-10-21"}, "inputPricePerMtok": 0.5, "outputPricePerMtok": 1.5
    }})
}

#[tokio::test]
async fn without_a_session_server_functions_answer_401_and_pages_redirect_to_login() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4().to_string();
    for (path, body) in every_server_function(&id) {
        let (status, text) = app.call(path, body, None).await;
        assert_eq!(status, 401, "{path}: {text}");
    }
    let (status, text) = app.call("connectors/list", json!({}), Some("lg_session=forged-token")).await;
    assert_eq!(status, 401, "forged cookie: {text}");
    for page in ["/", "/connectors", "/connectors/new", &format!("/connectors/{id}")] {
        let (status, location, _) = app.get(page, None).await;
        assert_eq!(status, 303, "{page}");
        assert_eq!(location.as_deref(), Some("/login"), "{page}");
    }
    let (status, _, body) = app.get("/login", None).await;
    assert_eq!(status, 200);
    assert!(body.contains("latency-guard login-link"));
}

#[tokio::test]
async fn a_login_link_opens_a_session_once() {
    let app = spawn_app_with_demo().await;
    let link = app.first_login_link.clone().expect("a first start prints a login link");
    assert!(link.starts_with(&app.base), "{link} should point at {}", app.base);
    let response = common::client().get(&link).send().await.unwrap();
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/", "a login lands on the home page");
    let cookie_header = response.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie_header.contains("HttpOnly") && cookie_header.contains("SameSite=Lax"), "{cookie_header}");
    let cookie = cookie_header.split(';').next().unwrap().to_string();

    let (status, _, page) = app.get("/connectors", Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(page.contains("Demo (simulated)"), "the first start seeds the demo connector");

    let again = common::client().get(&link).send().await.unwrap();
    assert_eq!(again.headers()["location"], "/login?error=expired", "a login link works once");

    let logout =
        common::client().post(format!("{}/auth/logout", app.base)).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(logout.status(), 303);
    let (status, _) = app.call("connectors/list", json!({}), Some(&cookie)).await;
    assert_eq!(status, 401, "the session ends on logout");
}

#[tokio::test]
async fn a_workspace_cannot_read_update_test_or_delete_another_workspaces_connector() {
    let app = spawn_app().await;
    let (_, alice) = app.session_for("owner-alice").await;
    let (_, bob) = app.session_for("owner-bob").await;
    let (status, created) =
        app.call("connectors/create", connector_body("Alice's", "http://127.0.0.1:9/v1"), Some(&alice)).await;
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();

    for (path, body) in every_server_function(&id) {
        if path == "connectors/create" {
            continue;
        }
        let (status, text) = app.call(path, body, Some(&bob)).await;
        match path {
            "connectors/list" => assert_eq!(text, "[]", "bob sees nothing"),
            _ => assert_eq!(status, 404, "{path} by another workspace: {text}"),
        }
    }
    let (status, text) = app.call("connectors/get", json!({"id": id}), Some(&alice)).await;
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["name"], "Alice's", "unchanged for its owner");
}

#[tokio::test]
async fn invalid_input_is_refused_with_the_field_named_and_stored_data_kept() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let (_, created) =
        app.call("connectors/create", connector_body("Good", "http://127.0.0.1:9/v1"), Some(&cookie)).await;
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();

    let cases = [
        (json!({"name": "x", "baseUrl": "ftp://h/v1", "model": "m"}), "baseUrl"),
        (json!({"name": "x", "baseUrl": "http://h/v1", "model": " "}), "model"),
        (json!({"name": "", "baseUrl": "http://h/v1", "model": "m"}), "name"),
        (json!({"name": "\u{200B}\u{2060}", "baseUrl": "http://h/v1", "model": "m"}), "name"),
        (json!({"name": "a\u{0}b", "baseUrl": "http://h/v1", "model": "m"}), "name"),
        (json!({"name": "x", "baseUrl": "http://h/v1?api_key=sk-1", "model": "m"}), "baseUrl"),
        (
            json!({"name": "x", "baseUrl": "http://h/v1", "model": "m", "headers": {"bad name": "v"}}),
            "headers.bad name",
        ),
        (json!({"name": "x", "baseUrl": "http://h/v1", "model": "m", "inputPricePerMtok": -2}), "inputPricePerMtok"),
        // Sizes no credential has, and a name that reads as another.
        (json!({"name": "x", "baseUrl": "http://h/v1", "model": "m", "apiKey": "k".repeat(1 << 20)}), "apiKey"),
        (
            json!({"name": "x", "baseUrl": "http://h/v1", "model": "m", "headers": {"x-api-key": "v".repeat(1 << 20)}}),
            "headers.x-api-key",
        ),
        (json!({"name": "x", "baseUrl": "http://h/v1", "model": "m", "headers": many_headers(10_000)}), "headers"),
        (json!({"name": "gpt\u{202E}inim", "baseUrl": "http://h/v1", "model": "m"}), "name"),
    ];
    for (input, field) in cases {
        let (status, text) = app.call("connectors/update", json!({"id": id, "input": input}), Some(&cookie)).await;
        assert_eq!(status, 400, "{field}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["kind"], "invalid", "{text}");
        assert_eq!(error["detail"]["field"], field, "{text}");
    }
    // Wrong JSON types are refused too, naming the offending field.
    let (status, text) = app
        .call(
            "connectors/update",
            json!({"id": id, "input": {"name": 5, "baseUrl": "http://h/v1", "model": "m"}}),
            Some(&cookie),
        )
        .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("name: invalid type"), "the reply names the field: {text}");
    // A huge wrong-type value: still the JSON 400, quoting an excerpt only.
    for huge in [1_000, 70_000, 2_000_000] {
        let (status, text) = app.call("connectors/get", json!({"id": "x".repeat(huge)}), Some(&cookie)).await;
        assert_eq!(status, 400, "{huge}: {}", &text[..text.len().min(300)]);
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["kind"], "request", "{text}");
        assert!(text.len() < 600, "{huge}-character value: a {}-byte reply", text.len());
    }

    let (_, after) = app.call("connectors/get", json!({"id": id}), Some(&cookie)).await;
    let after: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(after["name"], "Good");
    assert_eq!(after["baseUrl"], "http://127.0.0.1:9/v1");
}

fn many_headers(count: usize) -> Value {
    Value::Object((0..count).map(|i| (format!("x-h{i}"), json!("v"))).collect())
}

/// Values that used to be stored (and then failed later, or showed as something else) are refused when sent,
/// naming the field.
#[tokio::test]
async fn out_of_range_rates_and_invisible_tricks_in_names_are_refused_at_once() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let (_, created) =
        app.call("connectors/create", connector_body("Good", "http://127.0.0.1:9/v1"), Some(&cookie)).await;
    let connector = serde_json::from_str::<Value>(&created).unwrap()["id"].clone();
    for rates in [json!([1e-300]), json!([1e9]), json!([1.0, 1e9])] {
        let sweep = json!({"input": {"connectorId": connector, "prompts": ["x"], "requestsPerLevel": 2,
                                     "levels": {"kind": "listed", "axis": "rate", "levels": rates}}});
        let (status, text) = app.call("sweeps/start", sweep, Some(&cookie)).await;
        assert_eq!(status, 400, "{rates}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["detail"]["field"], "levels", "{text}");
        assert!(text.contains("between 0.01 and 100000 requests per second"), "{text}");
    }
    let (_, sweeps) = app.call("sweeps/list", json!({}), Some(&cookie)).await;
    assert_eq!(sweeps, "[]", "nothing was stored");
    for name in ["a\u{0}b", "ci\u{202E}gnp.exe", " "] {
        let (status, text) = app.call("tokens/create", json!({"input": {"name": name}}), Some(&cookie)).await;
        assert_eq!(status, 400, "{name:?}: {text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], "name", "{text}");
    }
}

#[tokio::test]
async fn cross_origin_writes_are_refused() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let response = common::client()
        .post(format!("{}/api/connectors/create", app.base))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .json(&connector_body("x", "http://127.0.0.1:9/v1"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let (_, list) = app.call("connectors/list", json!({}), Some(&cookie)).await;
    assert_eq!(list, "[]");
}

#[tokio::test]
async fn testing_a_stored_connector_uses_its_key_server_side() {
    let app = spawn_app().await;
    let sim = latency_guard::sim::spawn(
        latency_guard::sim::SimConfig { api_key: Some("sk-api-test-0001".into()), ..Default::default() },
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let (_, cookie) = app.session_for("owner").await;
    let (_, created) = app.call("connectors/create", connector_body("Sim", &sim.base_url()), Some(&cookie)).await;
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();

    let form = json!({"baseUrl": sim.base_url(), "model": "sim-model", "connectorId": id});
    let (status, text) = app.call("connectors/test", json!({"target": form}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(result["ok"], true, "{text}");
    assert_eq!(result["status"], 200);

    // The same form without the stored connector has no key, and the simulator says so.
    let bare = json!({"baseUrl": sim.base_url(), "model": "sim-model"});
    let (_, text) = app.call("connectors/test", json!({"target": bare}), Some(&cookie)).await;
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["status"], 401, "{text}");
}

#[tokio::test]
async fn run_benchmark_once_measures_a_stored_connector_and_validates_its_input() {
    let app = spawn_app().await;
    let sim = latency_guard::sim::spawn(
        latency_guard::sim::SimConfig {
            api_key: Some("sk-api-test-0001".into()),
            ttft: latency_guard::sim::Delay::Fixed(std::time::Duration::from_millis(25)),
            itl: latency_guard::sim::Delay::Fixed(std::time::Duration::from_millis(1)),
            tokens: 16,
            ..Default::default()
        },
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let (_, cookie) = app.session_for("owner").await;
    let (_, other) = app.session_for("someone-else").await;
    let (_, created) = app.call("connectors/create", connector_body("Sim", &sim.base_url()), Some(&cookie)).await;
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();

    let (status, text) =
        app.call("benchmark/once", json!({"input": {"connectorId": id, "prompt": "Hello"}}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let streamed: Value = serde_json::from_str(&text).unwrap();
    assert!(common::null_at(&streamed, "/error"), "{text}");
    let ttft = streamed["ttftMs"].as_f64().unwrap();
    assert!(ttft >= 25.0, "{text}");
    // The last of 16 tokens leaves the simulator 25 + 15 × 1 ms after the request arrived.
    assert!(streamed["totalMs"].as_f64().unwrap() >= 40.0, "{text}");
    assert_eq!(streamed["tokensOut"], 16);
    assert_eq!(streamed["tokenSource"], "reported");

    let body = json!({"input": {"connectorId": id, "prompt": "Hello", "maxTokens": 4, "stream": false}});
    let (_, text) = app.call("benchmark/once", body, Some(&cookie)).await;
    let plain: Value = serde_json::from_str(&text).unwrap();
    assert!(common::null_at(&plain, "/ttftMs"), "not streamed, so no TTFT: {text}");
    assert_eq!(plain["tokensOut"], 4);

    for (input, field) in [
        (json!({"connectorId": id, "prompt": "x", "maxTokens": 0}), "maxTokens"),
        (json!({"connectorId": id, "prompt": "x", "maxTokens": 8193}), "maxTokens"),
        (json!({"connectorId": id, "prompt": "  "}), "prompt"),
    ] {
        let (status, text) = app.call("benchmark/once", json!({"input": input}), Some(&cookie)).await;
        assert_eq!(status, 400, "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], field);
    }
    let (status, text) =
        app.call("benchmark/once", json!({"input": {"connectorId": "not-a-uuid", "prompt": "x"}}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("connectorId"), "{text}");
    let (status, _) =
        app.call("benchmark/once", json!({"input": {"connectorId": id, "prompt": "x"}}), Some(&other)).await;
    assert_eq!(status, 404, "another workspace's connector");
}
