//! Workspaces kept apart, proven with two wallets: wallet A makes one of everything (connector with a key, run,
//! share link, set, schedule with a webhook, open alert, A/B test, sweep, API token); wallet B then calls every API
//! endpoint — with its session cookie, then with its API token — using A's ids, and opens A's pages and live
//! events. B reads, changes, shares, runs, exports and deletes none of it, and afterwards A's data is as it was.
//! The sweep must name every server function the app registers, so a new endpoint cannot skip it. On SQLite and
//! PostgreSQL.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};
use std::collections::BTreeSet;

use crate::common::{client, follow_events, on_both, TestApp};
use latency_guard::account::service::wallet_identity;
use latency_guard::sim::{spawn_local, SimConfig};

const WALLET_A: &str = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
const WALLET_B: &str = "0x1563915e194D8CfBA1943570603F7606A3115508";
/// A's connector key: must never reach B.
const A_KEY: &str = "sk-WALLET-A-7c1e9b";

/// Everything A owns, by id, and the names B must never see.
struct Owned {
    connector: String,
    second_connector: String,
    run: String,
    set: String,
    schedule: String,
    alert: String,
    ab_test: String,
    sweep: String,
    workload: String,
    dataset: String,
    token_id: String,
    token: String,
    share_token: String,
    cookie: String,
}

impl Owned {
    /// Texts that only A's data contains.
    fn markers(&self) -> Vec<&str> {
        vec![
            &self.connector,
            &self.second_connector,
            &self.run,
            &self.set,
            &self.schedule,
            &self.alert,
            &self.ab_test,
            &self.sweep,
            &self.workload,
            &self.dataset,
            &self.token_id,
            "A-sweep",
            "A-dataset.jsonl",
            "A-workload",
            "A-endpoint",
            "A-set",
            "A-schedule",
            A_KEY,
        ]
    }
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

fn plan(connector: &str) -> Value {
    json!({"input": {"connectorId": connector, "title": "A-run", "agent": {"name": "bot", "tokenBudget": 8},
                     "prompts": ["a", "b", "c", "d", "e"], "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}})
}

/// `plan` sending the saved workload `workload` instead of its prompts.
fn with_workload(mut plan: Value, workload: &str) -> Value {
    plan["input"]["prompts"] = json!([]);
    plan["input"]["iterations"] = json!(1);
    plan["input"]["workloadId"] = json!(workload);
    plan
}

fn schedule_input(set: &str, connector: &str) -> Value {
    json!({"name": "A-schedule", "setId": set, "connectorId": connector, "cadence": "15m",
           "notify": {"webhookUrl": "http://127.0.0.1:9/a-hook"},
           "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]})
}

fn sweep_input(connector: &str) -> Value {
    json!({"input": {"connectorId": connector, "title": "A-sweep", "prompts": ["x"], "requestsPerLevel": 2,
                     "levels": {"kind": "listed", "axis": "concurrency", "levels": [1]}}})
}

fn workload_input() -> Value {
    json!({"name": "A-workload", "spec": {"kind": "synthetic", "requests": 2, "seed": 1,
                                          "input": {"kind": "fixed", "tokens": 8}, "output": {"kind": "fixed", "tokens": 2}}})
}

/// The workload form's boxes for a new workload, as the browser sends them.
fn typed_workload() -> Value {
    let typed = latency_guard::workload::model::WorkloadFields { name: "taken".into(), ..Default::default() };
    serde_json::to_value(typed).unwrap()
}

fn connector_input(base_url: &str) -> Value {
    json!({"name": "A-endpoint", "baseUrl": base_url, "model": "sim-model", "apiKey": A_KEY})
}

/// A makes one of everything; the alert comes from a real breach (the endpoint slowed down after the baseline).
async fn make_everything(app: &TestApp) -> (Owned, Vec<latency_guard::sim::SimHandle>) {
    let (_, cookie) = app.session_for(&wallet_identity(WALLET_A)).await;
    let fast = spawn_local(SimConfig::fixed_ms(5, 1, 8)).await.unwrap();
    let slow = spawn_local(SimConfig::fixed_ms(600, 15, 64)).await.unwrap();
    let connector =
        id(&app.json(&cookie, "connectors/create", json!({"input": connector_input(&fast.base_url())})).await);
    let run = id(&app.json(&cookie, "runs/start", plan(&connector)).await);
    follow_events(app, &cookie, &run, usize::MAX).await;
    let share_token =
        app.json(&cookie, "reports/share", json!({"id": run})).await["token"].as_str().unwrap().to_string();
    let prompts: Vec<Value> = ["a", "b", "c", "d", "e"].iter().map(|p| json!({"text": p})).collect();
    let set_input = json!({"name": "A-set", "prompts": prompts, "maxTokens": 8});
    let set = id(&app.json(&cookie, "guard/sets/save", json!({"id": null, "input": set_input})).await);
    let saved =
        app.json(&cookie, "guard/schedules/save", json!({"id": null, "input": schedule_input(&set, &connector)})).await;
    let schedule = id(&saved["schedule"]);
    app.json(&cookie, "guard/baselines/pin", json!({"schedule": schedule, "run": run})).await;
    let repoint = json!({"id": connector, "input": connector_input(&slow.base_url())});
    app.json(&cookie, "connectors/update", repoint).await;
    let breached = app.json(&cookie, "guard/schedules/run", json!({"id": schedule})).await;
    assert_eq!(breached["status"], "breached", "{breached}");
    let alert = id(&app.json(&cookie, "guard/alerts/list", json!({})).await[0]);
    app.json(&cookie, "guard/mutes/set", json!({"schedule": schedule, "threshold": null, "minutes": 60})).await;
    let ab = json!({"input": {"baselineConnectorId": connector, "candidateConnectorId": connector,
                              "plan": {"prompts": ["x"], "iterations": 1}}});
    // One connector on both sides is refused; a second one of A's makes the pair.
    let second = id(&app.json(&cookie, "connectors/create", json!({"input": connector_input(&fast.base_url())})).await);
    let mut ab = ab;
    ab["input"]["candidateConnectorId"] = json!(second);
    let ab_test = id(&app.json(&cookie, "speclab/ab/start", ab).await);
    let sweep = id(&app.json(&cookie, "sweeps/start", sweep_input(&connector)).await);
    let token = app.json(&cookie, "tokens/create", json!({"input": {"name": "A-token"}})).await;
    let workload = id(&app.json(&cookie, "workloads/save", json!({"id": null, "input": workload_input()})).await);
    let (status, uploaded) = app.upload("A-dataset.jsonl", b"{\"prompt\": \"A's row\"}".to_vec(), &cookie).await;
    assert_eq!(status, 200, "{uploaded}");
    let dataset = id(&serde_json::from_str(&uploaded).unwrap());
    let owned = Owned {
        connector,
        second_connector: second,
        run,
        set,
        schedule,
        alert,
        ab_test,
        sweep,
        workload,
        dataset,
        token_id: id(&token["view"]),
        token: token["token"].as_str().unwrap().to_string(),
        share_token,
        cookie,
    };
    (owned, vec![fast, slow])
}

/// What B must get back.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// A's thing by its id: 404, as if it did not exist.
    NotFound,
    /// A list or count of B's own: 200, none of A's data in it.
    OwnOnly,
    /// Acts on B's own workspace only: 200 (A's state is checked afterwards).
    OwnWorkspace,
    /// Acts on B's own workspace but is refused with this status here (e-mail is off in this app).
    Status(u16),
    /// Managing API tokens or ending sessions: B's session may (404 for A's token, 200 for its own); B's token
    /// may not (403), whatever its scope.
    TokenManagement(u16),
}

/// Every server function, called by B with A's ids.
fn sweep(a: &Owned) -> Vec<(&'static str, Value, Expect)> {
    use Expect::*;
    let (conn, run, set, sched) = (&a.connector, &a.run, &a.set, &a.schedule);
    vec![
        ("account/whoami", json!({}), OwnOnly),
        ("account/rename", json!({"name": "B's workspace"}), OwnWorkspace),
        ("account/contact", json!({"email": "b@example.com"}), Status(400)),
        ("account/contact/clear", json!({}), OwnWorkspace),
        ("benchmark/once", json!({"input": {"connectorId": conn, "prompt": "x"}}), NotFound),
        (
            "connectors/create",
            json!({"input": {"name": "B-endpoint", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}}),
            OwnWorkspace,
        ),
        ("connectors/delete", json!({"id": conn}), NotFound),
        ("connectors/get", json!({"id": conn}), NotFound),
        ("connectors/list", json!({}), OwnOnly),
        ("datasets/delete", json!({"id": a.dataset}), NotFound),
        ("datasets/list", json!({}), OwnOnly),
        // The stored connector's key would be sent: the id alone must not lend it.
        (
            "connectors/test",
            json!({"target": {"baseUrl": "http://127.0.0.1:9/v1", "model": "m", "connectorId": conn}}),
            NotFound,
        ),
        (
            "connectors/update",
            json!({"id": conn, "input": {"name": "taken", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}}),
            NotFound,
        ),
        ("guard/alerts/ack", json!({"id": a.alert}), NotFound),
        ("guard/alerts/ack-all", json!({}), OwnWorkspace),
        ("guard/alerts/count", json!({}), OwnOnly),
        ("guard/alerts/list", json!({}), OwnOnly),
        ("guard/baselines/pin", json!({"schedule": sched, "run": run}), NotFound),
        ("guard/email-enabled", json!({}), OwnWorkspace),
        ("guard/estimate", json!({"set": set, "connector": conn, "cadence": "15m"}), NotFound),
        ("guard/schedules/delete", json!({"id": sched}), NotFound),
        ("guard/schedules/enable", json!({"id": sched, "enabled": false}), NotFound),
        ("guard/schedules/get", json!({"id": sched}), NotFound),
        ("guard/schedules/page", json!({"id": sched}), NotFound),
        ("guard/schedules/choices", json!({}), OwnOnly),
        ("guard/schedules/list", json!({}), OwnOnly),
        ("guard/schedules/run", json!({"id": sched}), NotFound),
        ("guard/schedules/save", json!({"id": sched, "input": schedule_input(set, conn)}), NotFound),
        ("guard/schedules/save", json!({"id": null, "input": schedule_input(set, conn)}), NotFound),
        ("guard/schedules/test-email", json!({"id": sched}), NotFound),
        ("guard/schedules/test-webhook", json!({"id": sched}), NotFound),
        ("guard/mutes/set", json!({"schedule": sched, "threshold": null, "minutes": 5}), NotFound),
        ("guard/mutes/clear", json!({"schedule": sched, "threshold": null}), NotFound),
        ("guard/mutes/list", json!({}), OwnOnly),
        ("guard/sets/delete", json!({"id": set}), NotFound),
        ("guard/sets/list", json!({}), OwnOnly),
        (
            "guard/sets/save",
            json!({"id": set, "input": {"name": "taken", "prompts": [{"text": "x"}], "maxTokens": 8}}),
            NotFound,
        ),
        // The home page lists runs, schedules and incidents: B's own only.
        ("home/page", json!({}), OwnOnly),
        ("reports/share", json!({"id": run}), NotFound),
        ("reports/unshare", json!({"id": run}), NotFound),
        ("runs/cancel", json!({"id": run}), NotFound),
        ("runs/compare", json!({"baseline": run, "candidate": run}), NotFound),
        // The page's pickers are B's own runs; the comparison of A's runs is "not found" inside it.
        ("runs/compare_page", json!({"baseline": run, "candidate": run}), OwnOnly),
        ("runs/delete", json!({"id": run}), NotFound),
        ("runs/iterations", json!({"id": run, "query": {"page": 1, "pageSize": 10}}), NotFound),
        ("runs/table", json!({"id": run, "query": {"page": 0}}), NotFound),
        ("runs/list", json!({}), OwnOnly),
        ("runs/listing", json!({}), OwnOnly),
        ("runs/rename", json!({"id": run, "title": "taken"}), NotFound),
        ("runs/export", json!({"id": run}), NotFound),
        ("runs/report", json!({"id": run}), NotFound),
        ("runs/start", plan(conn), NotFound),
        ("runs/begin", plan(conn), NotFound),
        ("runs/view", json!({"id": run}), NotFound),
        ("runs/page", json!({"id": run}), NotFound),
        ("runs/scatter", json!({"id": run}), NotFound),
        ("speclab/ab/cancel", json!({"id": a.ab_test}), NotFound),
        ("speclab/ab/get", json!({"id": a.ab_test}), NotFound),
        ("speclab/ab/page", json!({"id": a.ab_test}), NotFound),
        ("speclab/ab/list", json!({}), OwnOnly),
        (
            "speclab/ab/start",
            json!({"input": {"baselineConnectorId": conn, "candidateConnectorId": a.second_connector, "plan": {"prompts": ["x"], "iterations": 1}}}),
            NotFound,
        ),
        ("speclab/probe", json!({"id": conn}), NotFound),
        ("sweeps/cancel", json!({"id": a.sweep}), NotFound),
        ("sweeps/compare", json!({"a": a.sweep, "b": a.sweep}), NotFound),
        ("sweeps/delete", json!({"id": a.sweep}), NotFound),
        ("sweeps/get", json!({"id": a.sweep}), NotFound),
        ("sweeps/page", json!({"id": a.sweep}), NotFound),
        ("sweeps/file", json!({"id": a.sweep}), NotFound),
        ("sweeps/list", json!({}), OwnOnly),
        ("sweeps/start", sweep_input(conn), NotFound),
        ("tokens/create", json!({"input": {"name": "B-token"}}), TokenManagement(200)),
        ("workloads/delete", json!({"id": a.workload}), NotFound),
        ("workloads/choices", json!({}), OwnOnly),
        ("workloads/list", json!({}), OwnOnly),
        ("workloads/page", json!({}), OwnOnly),
        ("workloads/save", json!({"id": a.workload, "input": workload_input()}), NotFound),
        ("workloads/save-form", json!({"id": a.workload, "fields": typed_workload()}), NotFound),
        // A's saved workload named by a run (with B's own connector: `runs.rs`, a saved workload's run).
        ("runs/start", with_workload(plan(conn), &a.workload), NotFound),
        ("tokens/list", json!({}), TokenManagement(200)),
        ("tokens/revoke", json!({"id": a.token_id}), TokenManagement(404)),
        // Last: it ends B's browser sessions.
        ("account/sign-out-everywhere", json!({}), TokenManagement(200)),
    ]
}

/// How B presents itself.
enum Caller<'a> {
    Cookie(&'a str),
    Token(&'a str),
}

async fn call_as(app: &TestApp, caller: &Caller<'_>, path: &str, body: &Value) -> (u16, String) {
    let request = client().post(format!("{}/api/{path}", app.base)).json(body);
    let request = match caller {
        Caller::Cookie(cookie) => request.header("cookie", *cookie),
        Caller::Token(token) => request.bearer_auth(token),
    };
    let reply = request.send().await.unwrap();
    (reply.status().as_u16(), reply.text().await.unwrap())
}

async fn b_sweeps(app: &TestApp, a: &Owned, caller: Caller<'_>) {
    for (path, body, expect) in sweep(a) {
        let (status, text) = call_as(app, &caller, path, &body).await;
        let wanted = match (expect, &caller) {
            (Expect::NotFound, _) => 404,
            (Expect::OwnOnly | Expect::OwnWorkspace, _) => 200,
            (Expect::Status(status), _) => status,
            (Expect::TokenManagement(by_session), Caller::Cookie(_)) => by_session,
            (Expect::TokenManagement(_), Caller::Token(_)) => 403,
        };
        assert_eq!(status, wanted, "{path} {body}: {text}");
        for marker in a.markers() {
            assert!(!text.contains(marker), "{path} showed B something of A's ({marker}): {text}");
        }
    }
}

/// A's data after B's sweeps: all there, unchanged.
async fn a_is_intact(app: &TestApp, a: &Owned) {
    let c = &a.cookie;
    assert_eq!(app.json(c, "connectors/get", json!({"id": a.connector})).await["name"], "A-endpoint");
    assert_eq!(app.json(c, "runs/report", json!({"id": a.run})).await["run"]["title"], "A-run");
    assert_eq!(app.json(c, "guard/sets/list", json!({})).await[0]["name"], "A-set");
    let schedule = app.json(c, "guard/schedules/get", json!({"id": a.schedule})).await;
    assert_eq!(
        (schedule["schedule"]["name"].as_str(), schedule["schedule"]["enabled"].as_bool()),
        (Some("A-schedule"), Some(true))
    );
    assert_eq!(schedule["baseline"]["runId"], a.run.as_str());
    assert_eq!(app.json(c, "guard/alerts/count", json!({})).await, json!(1), "A's alert is still open");
    let mutes = app.json(c, "guard/mutes/list", json!({})).await;
    assert_eq!(mutes[0]["scheduleId"], a.schedule.as_str(), "A's mute is still there, for its hour: {mutes}");
    assert_eq!(id(&app.json(c, "speclab/ab/get", json!({"id": a.ab_test})).await["summary"]), a.ab_test);
    assert_eq!(app.json(c, "sweeps/get", json!({"id": a.sweep})).await["summary"]["title"], "A-sweep");
    assert_eq!(app.json(c, "workloads/list", json!({})).await[0]["name"], "A-workload");
    assert_eq!(app.json(c, "workloads/choices", json!({})).await[0]["name"], "A-workload");
    assert_eq!(app.json(c, "datasets/list", json!({})).await[0]["choice"]["name"], "A-dataset.jsonl");
    let shelf = app.json(c, "workloads/page", json!({})).await;
    assert_eq!(shelf["workloads"][0]["choice"]["name"], "A-workload");
    assert_eq!(shelf["datasets"][0]["choice"]["name"], "A-dataset.jsonl");
    let tokens = app.json(c, "tokens/list", json!({})).await;
    assert_eq!((tokens.as_array().unwrap().len(), tokens[0]["state"].as_str()), (1, Some("active")));
    let shared = client()
        .get(format!("{}/api/public/reports/{}", app.base, a.run))
        .header(latency_guard::model::SHARE_TOKEN_HEADER, &a.share_token)
        .send()
        .await
        .unwrap();
    assert_eq!(shared.status(), 200, "A's share link still opens");
    let (status, _) = call_as(app, &Caller::Token(&a.token), "connectors/list", &json!({})).await;
    assert_eq!(status, 200, "A's token still works");
    let (_, me) = app.call("account/whoami", json!({}), Some(c)).await;
    assert!(me.contains(WALLET_A) && !me.contains("B's workspace"), "A's session and name: {me}");
}

/// B's session opens none of A's pages, live events or share routes without the link's token.
async fn b_opens_nothing_of_as_by_url(app: &TestApp, a: &Owned, b_cookie: &str) {
    for page in [
        format!("/connectors/{}", a.connector),
        format!("/runs/{}", a.run),
        format!("/guard/schedules/{}", a.schedule),
        format!("/guard/schedules/{}/settings", a.schedule),
        format!("/spec-lab/ab/{}", a.ab_test),
        format!("/sweeps/{}", a.sweep),
    ] {
        let (status, _, body) = app.get(&page, Some(b_cookie)).await;
        assert!(status == 200 || status == 404, "{page}: {status}");
        for marker in ["A-endpoint", "A-run", "A-schedule", "A-sweep", A_KEY] {
            assert!(!body.contains(marker), "{page} showed B {marker}");
        }
    }
    let (status, _, _) = app.get(&format!("/api/runs/{}/events", a.run), Some(b_cookie)).await;
    assert_eq!(status, 404, "A's live events");
    for path in [
        format!("/api/public/reports/{}", a.run),
        format!("/api/public/reports/{}/iterations", a.run),
        format!("/api/public/reports/{}/table", a.run),
    ] {
        let (status, _, _) = app.get(&path, Some(b_cookie)).await;
        assert_eq!(status, 404, "{path} without the link's token");
    }
}

#[tokio::test]
async fn two_wallets_cannot_reach_each_others_data_through_any_endpoint() {
    on_both(|app| async move {
        let (a, _sims) = make_everything(&app).await;
        let (_, b_cookie) = app.session_for(&wallet_identity(WALLET_B)).await;
        let b_token = app
            .json(&b_cookie, "tokens/create", json!({"input": {"name": "B's script", "scope": "admin"}}))
            .await["token"]
            .as_str()
            .unwrap()
            .to_string();
        b_opens_nothing_of_as_by_url(&app, &a, &b_cookie).await;
        b_sweeps(&app, &a, Caller::Cookie(&b_cookie)).await;
        b_sweeps(&app, &a, Caller::Token(&b_token)).await;
        a_is_intact(&app, &a).await;
    })
    .await;
}

#[tokio::test]
async fn the_sweep_names_every_server_function_the_app_serves() {
    let _app = common::spawn_app().await; // registers the server functions
    let served: BTreeSet<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.trim_start_matches("/api/").to_string())
        .collect();
    let owned = Owned {
        connector: String::new(),
        second_connector: String::new(),
        run: String::new(),
        set: String::new(),
        schedule: String::new(),
        alert: String::new(),
        ab_test: String::new(),
        sweep: String::new(),
        workload: String::new(),
        dataset: String::new(),
        token_id: String::new(),
        token: String::new(),
        share_token: String::new(),
        cookie: String::new(),
    };
    let swept: BTreeSet<String> = sweep(&owned).into_iter().map(|(path, _, _)| path.to_string()).collect();
    assert!(served.len() > 40, "the registry lists the server functions: {served:?}");
    assert_eq!(
        served.difference(&swept).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "server functions the isolation sweep does not call: add them to `sweep`"
    );
    assert_eq!(swept.difference(&served).collect::<Vec<_>>(), Vec::<&String>::new(), "swept paths nothing serves");
}
