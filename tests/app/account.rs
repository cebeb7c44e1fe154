//! The workspace's own settings over HTTP: its display name, and signing out of every session (of this workspace
//! only; API tokens keep working).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};

use crate::common::spawn_app;
use latency_guard::account::service::wallet_identity;

#[tokio::test]
async fn a_workspace_is_renamed_with_its_name_checked() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for(&wallet_identity("0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A")).await;
    let (status, body) = app.call("account/rename", json!({"name": "  Perf team "}), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    let (_, me) = app.call("account/whoami", json!({}), Some(&cookie)).await;
    assert_eq!(serde_json::from_str::<Value>(&me).unwrap()["workspaceName"], "Perf team");
    for bad in ["", "line\nbreak", &"x".repeat(81)] {
        let (status, body) = app.call("account/rename", json!({ "name": bad }), Some(&cookie)).await;
        assert_eq!(status, 400, "{bad:?}: {body}");
        assert!(body.contains("\"field\":\"name\""), "{body}");
    }
    let (_, me) = app.call("account/whoami", json!({}), Some(&cookie)).await;
    assert!(me.contains("Perf team"), "a refused name changes nothing: {me}");
    assert_eq!(app.call("account/rename", json!({"name": "x"}), None).await.0, 401);
}

#[tokio::test]
async fn signing_out_everywhere_ends_this_workspaces_sessions_only_and_leaves_tokens() {
    let app = spawn_app().await;
    let (_, laptop) = app.session_for("owner@example.test").await;
    let (_, desktop) = app.session_for("owner@example.test").await;
    let (_, neighbour) = app.session_for("neighbour@example.test").await;
    // An identity of no kind this version signs in is shown as stored, and its pages still render.
    let (_, me) = app.call("account/whoami", json!({}), Some(&laptop)).await;
    assert!(me.contains(r#""signedInAs":{"kind":"other","identity":"owner@example.test"}"#), "{me}");
    assert_eq!(app.get("/connectors", Some(&laptop)).await.0, 200);
    let (_, created) = app.call("tokens/create", json!({"input": {"name": "ci"}}), Some(&laptop)).await;
    let token = serde_json::from_str::<Value>(&created).unwrap()["token"].as_str().unwrap().to_string();

    assert_eq!(app.call("account/sign-out-everywhere", json!({}), Some(&laptop)).await, (200, "2".into()));
    for ended in [&laptop, &desktop] {
        assert_eq!(app.call("connectors/list", json!({}), Some(ended)).await.0, 401);
    }
    assert_eq!(app.call("connectors/list", json!({}), Some(&neighbour)).await.0, 200, "another workspace stays in");
    let with_token = common::client()
        .post(format!("{}/api/connectors/list", app.base))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 200, "API tokens are not sessions");
}
