//! The secret canary: a connector with a distinctive key and credential header goes through every page, every
//! server-function reply, the hydration data, the server's own log output (at debug level) and the database
//! file; the canary must appear in none of them. Runs the real binary, as a user would.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KEY_CANARY: &str = "sk-CANARY-7f3a9c1e5b";
const HEADER_CANARY: &str = "hdr-CANARY-2d8e4b6f0a";
const TICK_KEY_CANARY: &str = "tick-CANARY-5e1b7d3f9c2a";
const SMTP_PASSWORD_CANARY: &str = "smtp-CANARY-8a4c2e6b1d";
const RPC_KEY_CANARY: &str = "rpc-CANARY-3f9a1c7e5b";
/// A PagerDuty routing key: 32 letters and digits, as the form checks.
const ROUTING_KEY_CANARY: &str = "CANARYroutingKEY0123456789abcdef";

struct Server {
    child: Child,
    log_path: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read(path: &std::path::Path) -> String {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.read_to_string(&mut text);
    }
    text
}

/// Starts `latency-guard serve` on port 0 and waits for its first-start output: the address and the login link.
fn start_server(dir: &std::path::Path) -> (Server, String, String) {
    let log_path = dir.join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .arg("serve")
        .env("DATABASE_URL", latency_guard::config::sqlite_url(&dir.join("canary.db")))
        .env("LATENCY_GUARD_DATA_DIR", dir)
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
        .env("LATENCY_GUARD_DEMO_SIMULATOR", "true")
        .env("RUST_LOG", "debug")
        .env("GUARD_TICK_API_KEY", TICK_KEY_CANARY)
        .env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S", "0")
        .env("LATENCY_GUARD_SMTP_URL", format!("smtp://guard:{SMTP_PASSWORD_CANARY}@127.0.0.1:9"))
        .env("LATENCY_GUARD_SMTP_FROM", "guard@lg.test")
        .env("LATENCY_GUARD_SIWE_RPC_URL", format!("http://127.0.0.1:9/v3/{RPC_KEY_CANARY}"))
        .env_remove("LATENCY_GUARD_SECRET")
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let server = Server { child, log_path };
    let started = Instant::now();
    loop {
        let out = read(&server.log_path);
        let base = out
            .lines()
            .find_map(|l| l.split("listening on ").nth(1))
            .map(|r| r.split_whitespace().next().unwrap_or_default().to_string());
        let link = out.lines().map(str::trim).find(|l| l.contains("/auth/link?token=")).map(str::to_string);
        if let (Some(base), Some(link)) = (base, link) {
            return (server, base, link);
        }
        assert!(started.elapsed() < Duration::from_secs(30), "server did not start:\n{out}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The session cookie the first-start login link gives.
async fn signed_in(client: &reqwest::Client, link: &str) -> String {
    let login = client.get(link).send().await.unwrap();
    login.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string()
}

/// What the public share API answers with `token`: the snapshot, the view and a table page (each a 200).
async fn shared_reads(client: &reqwest::Client, base: &str, run: &str, token: &str) -> Vec<(String, String)> {
    let mut replies = Vec::new();
    for path in ["", "/view", "/page", "/iterations?sort=total"] {
        let public =
            client.get(format!("{base}/api/public/reports/{run}{path}")).header("x-share-token", token).send().await;
        let public = public.unwrap();
        assert_eq!(public.status(), 200, "shared report{path}");
        replies.push((format!("shared report{path} reply"), public.text().await.unwrap()));
    }
    replies
}

#[tokio::test]
async fn no_secret_reaches_pages_replies_hydration_data_logs_or_the_database_file() {
    let sim = latency_guard::sim::spawn(
        latency_guard::sim::SimConfig { api_key: Some(KEY_CANARY.into()), ..Default::default() },
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (server, base, link) = start_server(dir.path());
    let client = common::client();
    let cookie = signed_in(&client, &link).await;

    let mut seen = Vec::<(String, String)>::new();
    let call = |path: &str, body: Value| {
        let request = client.post(format!("{base}/api/{path}")).header("cookie", &cookie).json(&body);
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    let input = json!({
        "name": "Canary", "baseUrl": sim.base_url(), "model": "sim-model", "apiKey": KEY_CANARY,
        "headers": {"x-api-key": HEADER_CANARY, "api-version": "2024-10-21"}
    });
    let (status, created) = call("connectors/create", json!({"input": input})).await;
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();
    seen.push(("create reply".into(), created));

    let keep_secrets = json!({"name": "Canary", "baseUrl": sim.base_url(), "model": "sim-model",
                              "headers": {"x-api-key": null, "api-version": "2024-10-21"}});
    for (path, body) in [
        ("connectors/list", json!({})),
        ("connectors/get", json!({"id": id})),
        ("connectors/update", json!({"id": id, "input": keep_secrets})),
        (
            "connectors/test",
            json!({"target": {"baseUrl": sim.base_url(), "model": "sim-model", "connectorId": id,
                                              "headers": {"x-api-key": null}}}),
        ),
        ("connectors/test", json!({"target": {"baseUrl": sim.base_url(), "model": "sim-model", "apiKey": KEY_CANARY}})),
    ] {
        let (status, text) = call(path, body).await;
        assert_eq!(status, 200, "{path}: {text}");
        seen.push((format!("{path} reply"), text));
    }
    let tested: Value = serde_json::from_str(&seen[4].1).unwrap();
    assert_eq!(tested["ok"], true, "the stored key was used server-side: {tested}");

    // A run against the canary connector: its replies, its live events and its report.
    let plan = json!({"input": {"connectorId": id, "agent": {"name": "canary", "tokenBudget": 8}, "prompts": ["hi"],
                                "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}});
    let (status, started) = call("runs/start", plan).await;
    assert_eq!(status, 200, "{started}");
    let run = serde_json::from_str::<Value>(&started).unwrap()["id"].as_str().unwrap().to_string();
    seen.push(("runs/start reply".into(), started));
    let events = client.get(format!("{base}/api/runs/{run}/events")).header("cookie", &cookie).send().await.unwrap();
    let events = tokio::time::timeout(Duration::from_secs(30), events.text()).await.unwrap().unwrap();
    assert!(events.contains("event: end"), "{events}");
    seen.push(("run events".into(), events));
    let (status, report) = call("runs/report", json!({"id": run})).await;
    assert_eq!(status, 200);
    assert!(report.contains(r#""error":null"#), "the run used the stored key: {report}");
    seen.push(("runs/report reply".into(), report));
    for path in ["runs/view", "runs/page", "runs/iterations"] {
        let (status, reply) = call(path, json!({"id": run, "query": {"errorsOnly": false}})).await;
        assert_eq!(status, 200, "{reply}");
        seen.push((format!("{path} reply"), reply));
    }
    let (_, list) = call("runs/list", json!({})).await;
    seen.push(("runs/list reply".into(), list));

    // A share link: the token is a secret too. Its reply is the one place it may appear; the public read with it
    // and the share page must not put it anywhere else (the log above all).
    let (status, shared) = call("reports/share", json!({"id": run})).await;
    assert_eq!(status, 200, "{shared}");
    let share_token = serde_json::from_str::<Value>(&shared).unwrap()["token"].as_str().unwrap().to_string();
    seen.extend(shared_reads(&client, &base, &run, &share_token).await);
    let share_page = client.get(format!("{base}/share/{run}")).send().await.unwrap();
    assert_eq!(share_page.status(), 200, "the share page is public");
    let share_page = share_page.text().await.unwrap();

    // A Guard schedule against the canary connector: its webhook signing secret is a secret too; the save reply
    // is the one place it may appear. The tick hook's key and the SMTP password never appear anywhere.
    let set = json!({"id": null, "input": {"name": "canary set", "prompts": [{"text": "hi"}, {"text": "yo"}, {"text": "ok"}], "maxTokens": 4}});
    let (status, set) = call("guard/sets/save", set).await;
    assert_eq!(status, 200, "{set}");
    let set_id = serde_json::from_str::<Value>(&set).unwrap()["id"].as_str().unwrap().to_string();
    let schedule = json!({"id": null, "input": {"name": "canary schedule", "setId": set_id, "connectorId": id, "cadence": "hourly",
        "webhookUrl": "http://127.0.0.1:9/hook", "email": "ops@example.com",
        "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]}});
    let (status, saved) = call("guard/schedules/save", schedule).await;
    assert_eq!(status, 200, "{saved}");
    let saved: Value = serde_json::from_str(&saved).unwrap();
    let webhook_secret = saved["webhookSecret"].as_str().unwrap().to_string();
    let schedule_id = saved["schedule"]["id"].as_str().unwrap().to_string();
    // A schedule paging PagerDuty: its routing key is sealed and never comes back, not even in its save reply.
    let paging = json!({"id": null, "input": {"name": "canary pager", "setId": set_id, "connectorId": id, "cadence": "hourly",
        "notify": {"receiver": "pagerduty", "webhookUrl": "http://127.0.0.1:9/enqueue", "routingKey": ROUTING_KEY_CANARY},
        "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]}});
    let (status, paging) = call("guard/schedules/save", paging).await;
    assert_eq!(status, 200, "{paging}");
    seen.push(("pagerduty schedule save reply".into(), paging.clone()));
    let paging: Value = serde_json::from_str(&paging).unwrap();
    assert_eq!(paging["schedule"]["notify"]["routingKeySet"], true, "{paging}");
    let paging_id = paging["schedule"]["id"].as_str().unwrap().to_string();
    for (path, body) in [
        ("guard/schedules/get", json!({"id": paging_id})),
        ("guard/schedules/test-webhook", json!({"id": paging_id})),
        ("guard/schedules/get", json!({"id": schedule_id})),
        ("guard/schedules/list", json!({})),
        ("guard/schedules/run", json!({"id": schedule_id})),
        ("guard/schedules/test-webhook", json!({"id": schedule_id})),
        ("guard/alerts/list", json!({})),
    ] {
        let (status, reply) = call(path, body).await;
        assert_eq!(status, 200, "{path}: {reply}");
        seen.push((format!("{path} reply"), reply));
    }
    let hook = client
        .post(format!("{base}/api/public/hooks/guard-tick"))
        .header("apikey", TICK_KEY_CANARY)
        .send()
        .await
        .unwrap();
    assert_eq!(hook.status(), 200);
    seen.push(("tick hook reply".into(), hook.text().await.unwrap()));

    // An API token: its create reply is the one place it may appear; using it (and a wrong one) leaves it nowhere.
    let (status, created) = call("tokens/create", json!({"input": {"name": "canary token"}})).await;
    assert_eq!(status, 200, "{created}");
    let api_token = serde_json::from_str::<Value>(&created).unwrap()["token"].as_str().unwrap().to_string();
    for (path, token) in
        [("connectors/list", api_token.as_str()), ("runs/list", &api_token), ("runs/list", "lgt_wrong")]
    {
        let reply = client.post(format!("{base}/api/{path}")).bearer_auth(token).json(&json!({})).send().await.unwrap();
        seen.push((format!("{path} reply with a token"), reply.text().await.unwrap()));
    }
    let (_, tokens) = call("tokens/list", json!({})).await;
    assert!(tokens.contains("canary token"), "{tokens}");
    seen.push(("tokens/list reply".into(), tokens));

    // A smart-contract wallet's login: the chain node (whose URL holds a key) is asked, fails, and is not named.
    let grant: latency_guard::model::NonceGrant =
        client.post(format!("{base}/auth/siwe/nonce")).send().await.unwrap().json().await.unwrap();
    let text = latency_guard::model::siwe_message_text(&grant, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed").unwrap();
    let refused = client
        .post(format!("{base}/auth/siwe/verify"))
        .json(&json!({"message": text, "signature": "0x0102"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let refused = refused.text().await.unwrap();
    assert!(refused.contains("could not be checked"), "the node was asked: {refused}");
    seen.push(("contract wallet refusal".into(), refused));

    for page in [
        "/settings",
        "/guard",
        "/guard/sets",
        "/guard/schedules/new",
        &format!("/guard/schedules/{schedule_id}"),
        &format!("/guard/schedules/{paging_id}/settings"),
        "/",
        "/connectors",
        "/connectors/new",
        &format!("/connectors/{id}"),
        "/login",
        "/runs",
        "/runs/new",
        &format!("/runs/{run}"),
    ] {
        let response = client.get(format!("{base}{page}")).header("cookie", &cookie).send().await.unwrap();
        assert_eq!(response.status(), 200, "{page}");
        let html = response.text().await.unwrap();
        if page.contains(&id) {
            assert!(html.contains("Canary"), "the edit page (and its hydration data) shows the connector");
        }
        seen.push((format!("page {page}"), html));
    }
    drop(server);

    seen.push(("server log".into(), read(&dir.path().join("server.log"))));
    for file in ["canary.db", "canary.db-wal"] {
        let bytes = std::fs::read(dir.path().join(file)).unwrap_or_default();
        seen.push((file.into(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let log = read(&dir.path().join("server.log"));
    assert!(log.contains(&format!("/api/public/reports/{run}")), "the public read was logged (path only)");
    assert!(!log.contains(&share_token), "the share token leaked into the server log");
    assert!(!share_page.contains(&share_token), "the share page never carries the token");
    for (what, text) in &seen {
        assert!(!text.contains(KEY_CANARY), "the API key leaked into {what}");
        assert!(!text.contains(HEADER_CANARY), "the credential header leaked into {what}");
        assert!(!text.contains(&webhook_secret), "the webhook signing secret leaked into {what}");
        assert!(!text.contains(TICK_KEY_CANARY), "the tick hook's key leaked into {what}");
        assert!(!text.contains(SMTP_PASSWORD_CANARY), "the SMTP password leaked into {what}");
        assert!(!text.contains(&api_token), "the API token leaked into {what}");
        assert!(!text.contains(RPC_KEY_CANARY), "the chain node URL's key leaked into {what}");
        assert!(!text.contains(ROUTING_KEY_CANARY), "the PagerDuty routing key leaked into {what}");
    }
    let log = &seen.iter().find(|(w, _)| w == "server log").unwrap().1;
    assert!(log.contains("/api/connectors/create"), "the log was captured (one line per request)");
}

/// The same promise when the endpoint itself echoes the credentials back, in every shape of the hostile echo (an
/// error body, an SSE error event, a non-JSON stream line, padded to straddle the preview's and an error's cut,
/// base64 at three alignments, hex, percent-encoded, `\u00xx`-escaped, HTML references, the case swapped, split
/// over a line break, cut short mid-text), judged by an independent decoder (`tests/common/echoes.rs`): the echo must not survive into a
/// run's records, its report, views and table, the `benchmark/once` reply, the public share API, Guard's replies
/// and pages (a failing schedule's last error), the server log, the database file or `bench --out`.
#[tokio::test]
async fn secrets_echoed_by_the_endpoint_reach_no_report_reply_page_log_file_or_database() {
    let echo =
        latency_guard::sim::spawn_hostile(latency_guard::sim::Hostile::EchoSecrets, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (server, base, link) = start_server(dir.path());
    let client = common::client();
    let cookie = signed_in(&client, &link).await;
    let call = |path: &str, body: Value| {
        let request = client.post(format!("{base}/api/{path}")).header("cookie", &cookie).json(&body);
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    let mut seen = Vec::<(String, String)>::new();

    // A key in the base URL's query would be shown wherever the URL is: refused, with the way out named.
    for path in ["connectors/create", "connectors/test"] {
        let url = format!("{}?api_key={KEY_CANARY}", echo.base_url());
        let body = if path == "connectors/create" {
            json!({"input": {"name": "q", "baseUrl": url, "model": "m"}})
        } else {
            json!({"target": {"baseUrl": url, "model": "m"}})
        };
        let (status, reply) = call(path, body).await;
        assert_eq!(status, 400, "{path}: {reply}");
        assert!(reply.contains("looks like a credential"), "{reply}");
        seen.push((format!("{path} reply with a query key"), reply));
    }

    let input = json!({"name": "Echo", "baseUrl": echo.base_url(), "model": "m", "apiKey": KEY_CANARY,
                       "headers": {"x-api-key": HEADER_CANARY}});
    let (status, created) = call("connectors/create", json!({"input": input})).await;
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"].as_str().unwrap().to_string();
    for _ in 0..latency_guard::sim::ECHO_SHAPES {
        let (status, tested) = call(
            "connectors/test",
            json!({"target": {"baseUrl": echo.base_url(), "model": "m",
            "connectorId": id, "headers": {"x-api-key": null}}}),
        )
        .await;
        assert_eq!(status, 200, "{tested}");
        seen.push(("connection test of the echo".into(), tested));
    }
    for stream in [true, false] {
        let (status, once) =
            call("benchmark/once", json!({"input": {"connectorId": id, "prompt": "hi", "stream": stream}})).await;
        assert_eq!(status, 200, "{once}");
        seen.push(("benchmark/once reply".into(), once));
    }

    let plan = json!({"input": {"connectorId": id, "agent": {"name": "echo", "tokenBudget": 8}, "prompts": ["hi"],
                                "iterations": 8, "mode": {"kind": "closed", "concurrency": 1}}});
    let (status, started) = call("runs/start", plan).await;
    assert_eq!(status, 200, "{started}");
    let run = serde_json::from_str::<Value>(&started).unwrap()["id"].as_str().unwrap().to_string();
    let events = client.get(format!("{base}/api/runs/{run}/events")).header("cookie", &cookie).send().await.unwrap();
    let events = tokio::time::timeout(Duration::from_secs(30), events.text()).await.unwrap().unwrap();
    seen.push(("run events".into(), events));
    let (_, report) = call("runs/report", json!({"id": run})).await;
    assert!(report.contains("[redacted]"), "the echoes were recorded, scrubbed: {report}");
    seen.push(("runs/report reply".into(), report));
    for path in ["runs/view", "runs/page", "runs/iterations"] {
        let (status, reply) = call(path, json!({"id": run, "query": {"errorsOnly": true}})).await;
        assert_eq!(status, 200, "{reply}");
        seen.push((format!("{path} reply"), reply));
    }
    let (_, shared) = call("reports/share", json!({"id": run})).await;
    let token = serde_json::from_str::<Value>(&shared).unwrap()["token"].as_str().unwrap().to_string();
    seen.extend(shared_reads(&client, &base, &run, &token).await);

    // Guard: every request of the set fails with an echo, so the schedule's last error quotes one.
    let set = json!({"id": null, "input": {"name": "echo set", "prompts": [{"text": "a"}, {"text": "b"}, {"text": "c"}], "maxTokens": 4}});
    let (_, set) = call("guard/sets/save", set).await;
    let set_id = serde_json::from_str::<Value>(&set).unwrap()["id"].as_str().unwrap().to_string();
    let schedule = json!({"id": null, "input": {"name": "echo schedule", "setId": set_id, "connectorId": id,
        "cadence": "hourly", "thresholds": [{"metric": "error_rate", "op": "abs_increase", "value": 0.1}]}});
    let (status, saved) = call("guard/schedules/save", schedule).await;
    assert_eq!(status, 200, "{saved}");
    let schedule_id = serde_json::from_str::<Value>(&saved).unwrap()["schedule"]["id"].as_str().unwrap().to_string();
    let (status, ran) = call("guard/schedules/run", json!({"id": schedule_id})).await;
    assert_eq!(status, 200, "{ran}");
    assert!(ran.contains("no request succeeded"), "the evaluation was inconclusive on the echoes: {ran}");
    seen.push(("guard run now reply".into(), ran));
    let (_, got) = call("guard/schedules/get", json!({"id": schedule_id})).await;
    seen.push(("guard schedule reply".into(), got));
    for page in [format!("/guard/schedules/{schedule_id}"), format!("/runs/{run}"), "/guard".into()] {
        let html = client.get(format!("{base}{page}")).header("cookie", &cookie).send().await.unwrap();
        seen.push((format!("page {page}"), html.text().await.unwrap()));
    }
    drop(server);

    // The CLI's exports of the stored report.
    let db_url = latency_guard::config::sqlite_url(&dir.path().join("canary.db"));
    for format in ["json", "csv", "html"] {
        let (code, exported, stderr) = common::cli(
            &["export", &run, "--format", format],
            &[("DATABASE_URL", db_url.as_str()), ("LATENCY_GUARD_DATA_DIR", dir.path().to_str().unwrap())],
        )
        .await;
        assert_eq!(code, 0, "{stderr}");
        assert!(exported.contains("[redacted]"), "the {format} export carries the scrubbed echoes");
        seen.push((format!("export {format}"), exported));
    }

    // The CLI's report file.
    let out = dir.path().join("bench.json");
    let (_, _, stderr) = common::cli(
        &[
            "bench",
            "--base-url",
            &echo.base_url(),
            "--model",
            "m",
            "--api-key-env",
            "ECHO_KEY",
            "--header",
            &format!("x-api-key:{HEADER_CANARY}"),
            "--prompt",
            "hi",
            "-n",
            "8",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("ECHO_KEY", KEY_CANARY)],
    )
    .await;
    seen.push(("bench stderr".into(), stderr));
    seen.push(("bench --out".into(), read(&out)));
    assert!(read(&out).contains("[redacted]"), "bench recorded the scrubbed echoes");

    seen.push(("server log".into(), read(&dir.path().join("server.log"))));
    for file in ["canary.db", "canary.db-wal"] {
        let bytes = std::fs::read(dir.path().join(file)).unwrap_or_default();
        seen.push((file.into(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let mut found = 0;
    for (what, text) in &seen {
        for secret in [KEY_CANARY, HEADER_CANARY] {
            if let Some(echo) = common::echoes::surviving_echo(text, secret) {
                found += 1;
                eprintln!("{echo} of {secret:?} leaked into {what}");
            }
        }
    }
    assert_eq!(found, 0, "secrets found (see above)");
}
