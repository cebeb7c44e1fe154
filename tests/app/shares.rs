//! Share links over real HTTP: a token opens its one report and nothing else, wrong, replaced and revoked tokens
//! get a bare 404, and the owner sees whether a report is shared.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::{client, follow_events, spawn_app_with_demo, TestApp};
use serde_json::{json, Value};

/// A finished 2-iteration run against the demo simulator in the workspace of `cookie`.
async fn finished_run(app: &TestApp, cookie: &str, connector: &str, title: &str) -> String {
    let plan = json!({"input": {"connectorId": connector, "title": title, "agent": {"name": "bot", "tokenBudget": 4},
                                "prompts": ["hi"], "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}});
    let (status, text) = app.call("runs/start", plan, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    let run = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    follow_events(app, cookie, &run, usize::MAX).await;
    run
}

async fn share(app: &TestApp, cookie: &str, run: &str) -> String {
    let (status, text) = app.call("reports/share", json!({"id": run}), Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["token"].as_str().unwrap().to_string()
}

/// `GET /api/public/reports/{run}` with the token (if any) and no cookie: status and body.
async fn public_read(app: &TestApp, run: &str, token: Option<&str>) -> (u16, String) {
    public_get(app, run, token).await
}

/// `GET /api/public/reports/{path}` with the token (if any) and no cookie: status and body.
async fn public_get(app: &TestApp, path: &str, token: Option<&str>) -> (u16, String) {
    let mut request = client().get(format!("{}/api/public/reports/{path}", app.base));
    if let Some(token) = token {
        request = request.header("x-share-token", token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn shared_since(app: &TestApp, cookie: &str, run: &str) -> Option<i64> {
    let (_, text) = app.call("runs/report", json!({"id": run}), Some(cookie)).await;
    serde_json::from_str::<latency_guard::runs::api::RunReport>(&text).unwrap().shared_since_ms
}

#[tokio::test]
async fn a_share_token_opens_its_one_report_and_nothing_else() {
    let app = spawn_app_with_demo().await;
    let (workspace, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let demo = app.state.store.list_connectors(workspace).await.unwrap().remove(0).id.to_string();
    let first = finished_run(&app, &cookie, &demo, "Launch-report-7Q").await;
    let second = finished_run(&app, &cookie, &demo, "second").await;
    assert_eq!(shared_since(&app, &cookie, &first).await, None, "not shared until asked");

    let token = share(&app, &cookie, &first).await;
    assert!(token.len() >= 43, "at least 256 bits, URL-safe base64: {token}");
    assert!(shared_since(&app, &cookie, &first).await.is_some(), "the owner sees it is shared");
    let (status, body) = public_read(&app, &first, Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let shared: Value = serde_json::from_str(&body).unwrap();
    let keys: Vec<&str> = shared.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["snapshot", "summary"], "the report and its figures, nothing of the workspace");
    assert_eq!(shared["snapshot"]["report"]["id"], first.as_str());
    assert_eq!(shared["snapshot"]["results"].as_array().unwrap().len(), 2);
    common::assert_report_schema(&shared["snapshot"]);
    assert!(!body.contains(&demo), "not even the connector's id");
    // The page's view and the table's pages answer to the same token.
    let (status, body) = public_get(&app, &format!("{first}/view"), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let view: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((view["report"]["id"].as_str(), view["iterations"].as_u64()), (Some(first.as_str()), Some(2)));
    assert_eq!(view["firstPage"]["rows"].as_array().unwrap().len(), 2);
    let slowest_first = format!("{first}/iterations?sort=total&descending=true&pageSize=1&page=1");
    let (status, body) = public_get(&app, &slowest_first, Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let page: Value = serde_json::from_str(&body).unwrap();
    let totals: Vec<f64> =
        shared["snapshot"]["results"].as_array().unwrap().iter().map(|r| r["totalMs"].as_f64().unwrap()).collect();
    assert_eq!(page["rows"][0]["totalMs"].as_f64(), Some(totals.iter().copied().fold(f64::INFINITY, f64::min)));
    assert_eq!((page["matching"].as_u64(), page["pages"].as_u64(), page["page"].as_u64()), (Some(2), Some(2), Some(1)));
    // The share page's table asks for the same page with its rows drawn: the fastest total, in milliseconds, unit-less.
    let (status, body) = public_get(&app, &slowest_first.replace("/iterations?", "/table?"), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let table: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (table["matching"].as_u64(), table["pages"].as_u64(), table["page"].as_u64()),
        (Some(2), Some(2), Some(1))
    );
    let rows = table["rows"].as_str().unwrap();
    let fastest = latency_guard::report::ms_number(totals.iter().copied().fold(f64::INFINITY, f64::min));
    assert_eq!(rows.matches("<tr").count(), 1, "{rows}");
    assert!(rows.contains(&format!(r#"<td class="num">{fastest}</td>"#)) && !rows.contains(" ms<"), "{rows}");
    // The exports' compact form reads back as the very snapshot.
    let (status, body) = public_get(&app, &format!("{first}/export"), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let compact: latency_guard::runs::report::CompactSnapshot = serde_json::from_str(&body).unwrap();
    let keyed: latency_guard::runs::report::ReportSnapshot =
        serde_json::from_value(shared["snapshot"].clone()).unwrap();
    assert_eq!(compact.into_snapshot().unwrap(), keyed);
    let (status, body) = public_get(&app, &format!("{first}/iterations?sort=fastest"), Some(&token)).await;
    assert_eq!(status, 400, "a malformed query, once the token is good, says why");
    assert!(body.contains("sort"), "{body}");

    // Anything else: the same bare 404, or the usual 401 of routes that need a session.
    let second_token = share(&app, &cookie, &second).await;
    let refused = [
        public_read(&app, &first, None).await,
        public_read(&app, &first, Some("")).await,
        public_read(&app, &first, Some("not-the-token")).await,
        public_read(&app, &first, Some(&second_token)).await,
        public_read(&app, &second, Some(&token)).await,
        public_read(&app, "not-a-uuid", Some(&token)).await,
        public_read(&app, &uuid::Uuid::new_v4().to_string(), Some(&token)).await,
    ];
    for (status, body) in refused {
        assert_eq!((status, body.as_str()), (404, ""), "a refusal says nothing");
    }
    for path in [
        format!("{first}/view"),
        format!("{first}/export"),
        format!("{first}/iterations"),
        format!("{first}/iterations?sort=fastest"),
        format!("{first}/table"),
        format!("{first}/table?sort=fastest"),
    ] {
        for wrong in [None, Some("not-the-token"), Some(second_token.as_str())] {
            assert_eq!(public_get(&app, &path, wrong).await, (404, String::new()), "{path} with {wrong:?}");
        }
    }
    for path in ["connectors/list", "runs/list", "runs/report"] {
        let response = client()
            .post(format!("{}/api/{path}", app.base))
            .header("x-share-token", &token)
            .json(&json!({"id": first}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{path} needs a session, whatever the token");
    }
    let events =
        client().get(format!("{}/api/runs/{first}/events", app.base)).header("x-share-token", &token).send().await;
    assert_eq!(events.unwrap().status(), 401);
    let (status, location, _) = app.get(&format!("/runs/{first}"), None).await;
    assert_eq!((status, location.as_deref()), (303, Some("/login")), "the owner's page stays private");
    let (status, _, page) = app.get(&format!("/share/{first}"), None).await;
    assert_eq!(status, 200, "the share page itself is public");
    assert!(!page.contains("Launch-report-7Q"), "the page holds nothing of the report until the token is presented");

    // A new link replaces the old one; revoking ends it.
    let replaced = share(&app, &cookie, &first).await;
    assert_eq!(public_read(&app, &first, Some(&token)).await.0, 404, "the replaced link stopped working");
    assert_eq!(public_read(&app, &first, Some(&replaced)).await.0, 200);
    let (status, text) = app.call("reports/unshare", json!({"id": first}), Some(&cookie)).await;
    assert_eq!((status, text.as_str()), (200, "true"));
    assert_eq!(public_read(&app, &first, Some(&replaced)).await, (404, String::new()));
    assert_eq!(shared_since(&app, &cookie, &first).await, None);
    let (_, text) = app.call("reports/unshare", json!({"id": first}), Some(&cookie)).await;
    assert_eq!(text, "false", "nothing left to revoke");
    assert_eq!(public_read(&app, &second, Some(&second_token)).await.0, 200, "other shares are untouched");
}

#[tokio::test]
async fn another_workspace_can_neither_share_nor_revoke_a_report() {
    let app = spawn_app_with_demo().await;
    let (workspace, owner) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let (_, stranger) = app.session_for("someone-else").await;
    let demo = app.state.store.list_connectors(workspace).await.unwrap().remove(0).id.to_string();
    let run = finished_run(&app, &owner, &demo, "private").await;
    let token = share(&app, &owner, &run).await;
    for path in ["reports/share", "reports/unshare"] {
        let (status, text) = app.call(path, json!({"id": run}), Some(&stranger)).await;
        assert_eq!(status, 404, "{path}: {text}");
    }
    assert_eq!(public_read(&app, &run, Some(&token)).await.0, 200, "the owner's link still works");
}
