//! API tokens over HTTP: created from a browser session (secret shown once), used as `Authorization: Bearer` on
//! the API in place of the cookie, last use noted, revoked or expired → 401, kept to their own workspace, and
//! never able to manage tokens themselves or end browser sessions, each within its scope (read, run, admin). On
//! SQLite and PostgreSQL.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};

use crate::common::{client, on_both, TestApp};
use latency_guard::model::{ApiTokenId, ApiTokenState, ApiTokenView, TokenScope};

/// `POST /api/<path>` with a bearer token.
async fn call_with_token(app: &TestApp, path: &str, body: Value, token: &str) -> (u16, String) {
    let reply = client().post(format!("{}/api/{path}", app.base)).bearer_auth(token).json(&body).send().await.unwrap();
    (reply.status().as_u16(), reply.text().await.unwrap())
}

async fn create(app: &TestApp, cookie: &str, input: Value) -> Value {
    let (status, body) = app.call("tokens/create", json!({ "input": input }), Some(cookie)).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn listed_tokens(app: &TestApp, cookie: &str) -> Vec<ApiTokenView> {
    serde_json::from_str(&app.call("tokens/list", json!({}), Some(cookie)).await.1).unwrap()
}

#[tokio::test]
async fn a_token_works_in_place_of_the_cookie_until_it_is_revoked() {
    on_both(|app| async move {
        let (_, cookie) = app.session_for("ci-owner@example.test").await;
        let made = json!({"input": {"name": "mine", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}});
        assert_eq!(app.call("connectors/create", made, Some(&cookie)).await.0, 200);

        let created = create(&app, &cookie, json!({"name": "  CI nightly ", "expiresInDays": 30})).await;
        let token = created["token"].as_str().unwrap().to_string();
        assert!(token.starts_with("lgt_") && token.len() > 40, "{token}");
        assert_eq!(created["view"]["name"], "CI nightly");
        assert_eq!(created["view"]["hint"], format!("{}…", &token[..8]));
        let expires =
            created["view"]["expiresAtMs"].as_i64().unwrap() - created["view"]["createdAtMs"].as_i64().unwrap();
        assert_eq!(expires, 30 * 86_400_000);

        // The token reads the workspace's data, with no cookie.
        let (status, listed) = call_with_token(&app, "connectors/list", json!({}), &token).await;
        assert_eq!(status, 200);
        assert!(listed.contains("mine"), "{listed}");
        // Its listing shows when it was used, never the secret.
        let (_, tokens) = app.call("tokens/list", json!({}), Some(&cookie)).await;
        assert!(!tokens.contains(&token[8..]), "the secret is listed: {tokens}");
        let tokens: Vec<ApiTokenView> = serde_json::from_str(&tokens).unwrap();
        assert_eq!(tokens.len(), 1);
        assert!(tokens[0].last_used_at_ms.is_some(), "last use noted");

        // A token cannot manage tokens.
        let (status, body) = call_with_token(&app, "tokens/create", json!({"input": {"name": "more"}}), &token).await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("signed-in browser"), "{body}");
        let id = tokens[0].id;
        assert_eq!(call_with_token(&app, "tokens/revoke", json!({"id": id}), &token).await.0, 403);

        // Revoked: refused at once; revoking again says it already was.
        assert_eq!(app.call("tokens/revoke", json!({"id": id}), Some(&cookie)).await, (200, "true".into()));
        assert_eq!(call_with_token(&app, "connectors/list", json!({}), &token).await.0, 401);
        assert_eq!(app.call("tokens/revoke", json!({"id": id}), Some(&cookie)).await, (200, "false".into()));
        let listed = &listed_tokens(&app, &cookie).await[0];
        assert!(listed.revoked_at_ms.is_some() && listed.state == ApiTokenState::Revoked, "listed as revoked");
    })
    .await;
}

#[tokio::test]
async fn expired_unknown_or_misplaced_tokens_are_refused_and_other_workspaces_stay_out_of_reach() {
    on_both(|app| async move {
        let (workspace_a, cookie_a) = app.session_for("a@example.test").await;
        let (_, cookie_b) = app.session_for("b@example.test").await;
        let made = json!({"input": {"name": "b's", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}});
        let (_, b_connector) = app.call("connectors/create", made, Some(&cookie_b)).await;
        let b_connector: Value = serde_json::from_str(&b_connector).unwrap();
        let b_token = create(&app, &cookie_b, json!({"name": "b's script"})).await;
        assert!(common::null_at(&b_token, "/view/expiresAtMs"), "no expiry: lasts until revoked");

        // A's token sees none of B's: not the connector by its id, not B's token to revoke.
        let a_token =
            create(&app, &cookie_a, json!({"name": "a's script"})).await["token"].as_str().unwrap().to_string();
        let (status, _) = call_with_token(&app, "connectors/get", json!({"id": b_connector["id"]}), &a_token).await;
        assert_eq!(status, 404);
        let (status, _) = app.call("tokens/revoke", json!({"id": b_token["view"]["id"]}), Some(&cookie_a)).await;
        assert_eq!(status, 404, "another workspace's token cannot be revoked");
        let b_list = listed_tokens(&app, &cookie_b).await;
        assert_eq!((b_list[0].name.as_str(), b_list[0].revoked_at_ms), ("b's script", None));

        // Expired a moment ago: refused.
        let now = app.state.clock.now_ms();
        let expired = "lgt_expired-token-of-workspace-a-0000000000000";
        let view = ApiTokenView {
            id: ApiTokenId::new_random(),
            name: "old".into(),
            hint: "lgt_expi…".into(),
            created_at_ms: now - 10_000,
            expires_at_ms: Some(now - 1),
            last_used_at_ms: None,
            revoked_at_ms: None,
            state: ApiTokenState::Active,
            scope: TokenScope::Admin,
        };
        app.state.store.insert_api_token(workspace_a, &view, &app.state.tokens.hash(expired)).await.unwrap();
        assert_eq!(call_with_token(&app, "connectors/list", json!({}), expired).await.0, 401);
        let listed = listed_tokens(&app, &cookie_a).await;
        assert_eq!(listed.iter().find(|t| t.name == "old").unwrap().state, ApiTokenState::Expired);

        // Unknown, malformed, or a session cookie's value offered as a token: 401, even beside a good cookie.
        for wrong in ["lgt_nope", "not-a-token", cookie_a.trim_start_matches("lg_session=")] {
            assert_eq!(call_with_token(&app, "connectors/list", json!({}), wrong).await.0, 401, "{wrong}");
        }
        let both = client()
            .post(format!("{}/api/connectors/list", app.base))
            .header("cookie", &cookie_a)
            .bearer_auth("lgt_nope")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(both.status(), 401, "a refused token is not rescued by a cookie");
        // Pages take no tokens: a browser page still needs the cookie.
        let page = client().get(format!("{}/connectors", app.base)).bearer_auth(&a_token).send().await.unwrap();
        assert_eq!(page.headers()["location"], "/login");

        // Bad input names its field.
        for (input, field) in
            [(json!({"name": " "}), "name"), (json!({"name": "t", "expiresInDays": 0}), "expiresInDays")]
        {
            let (status, body) = app.call("tokens/create", json!({ "input": input }), Some(&cookie_a)).await;
            assert_eq!(status, 400, "{body}");
            assert!(body.contains(field), "{body}");
        }
        let (status, body) =
            app.call("tokens/create", json!({"input": {"name": "t", "scopes": []}}), Some(&cookie_a)).await;
        assert_eq!(status, 400, "an unknown field is refused: {body}");
    })
    .await;
}

/// Each scope does what it names and no more: a read token reads, a run token also starts and stops work, an
/// admin token also changes the workspace; none manages tokens or signs the owner out; the refusal says why.
#[tokio::test]
async fn a_token_does_what_its_scope_names_and_no_more() {
    on_both(|app| async move {
        let sim = latency_guard::sim::spawn_local(latency_guard::sim::SimConfig::fixed_ms(1, 1, 4)).await.unwrap();
        let (_, cookie) = app.session_for("scoped@example.test").await;
        let made = json!({"input": {"name": "sim", "baseUrl": sim.base_url(), "model": "m"}});
        let (_, connector) = app.call("connectors/create", made, Some(&cookie)).await;
        let connector = serde_json::from_str::<Value>(&connector).unwrap()["id"].clone();
        let token = |scope: &'static str| {
            let (app, cookie) = (&app, &cookie);
            async move {
                let made = create(app, cookie, json!({"name": format!("{scope} script"), "scope": scope})).await;
                assert_eq!(made["view"]["scope"], scope);
                made["token"].as_str().unwrap().to_string()
            }
        };
        let (read, run, admin) = (token("read").await, token("run").await, token("admin").await);
        let default = create(&app, &cookie, json!({"name": "unsaid"})).await;
        assert_eq!(default["view"]["scope"], "run", "a token made without a scope may run");

        let once = json!({"input": {"connectorId": connector, "prompt": "hi", "maxTokens": 2}});
        let rename = json!({"id": connector, "input": {"name": "renamed", "baseUrl": sim.base_url(), "model": "m"}});
        let calls = [
            ("connectors/list", json!({}), [200, 200, 200]),
            ("runs/list", json!({}), [200, 200, 200]),
            ("benchmark/once", once, [403, 200, 200]),
            ("connectors/update", rename, [403, 403, 200]),
            ("account/sign-out-everywhere", json!({}), [403, 403, 403]),
            ("tokens/list", json!({}), [403, 403, 403]),
        ];
        for (path, body, expected) in calls {
            for (token, scope, status) in
                [(&read, "read", expected[0]), (&run, "run", expected[1]), (&admin, "admin", expected[2])]
            {
                let (got, reply) = call_with_token(&app, path, body.clone(), token).await;
                assert_eq!(got, status, "{scope} token, {path}: {reply}");
                if got == 403 {
                    let error: Value = serde_json::from_str(&reply).unwrap();
                    assert_eq!(error["kind"], "forbidden", "{reply}");
                    assert!(error["detail"].as_str().unwrap().contains(path), "the refusal names the call: {reply}");
                }
            }
        }
        let (_, refused) = call_with_token(&app, "benchmark/once", json!({}), &read).await;
        assert!(refused.contains("this token's scope is read; benchmark/once needs a run token"), "{refused}");
        // The owner's browser session is untouched by every refused sign-out.
        assert_eq!(app.call("account/whoami", json!({}), Some(&cookie)).await.0, 200);
        let listed = listed_tokens(&app, &cookie).await;
        let scopes: Vec<TokenScope> = listed.iter().map(|t| t.scope).collect();
        assert!(scopes.contains(&TokenScope::Read) && scopes.contains(&TokenScope::Admin), "{scopes:?}");
        sim.stop();
    })
    .await;
}

/// Every server function the app serves is in the scope table: a new one left out would be refused to every
/// token without anyone deciding so.
#[tokio::test]
async fn the_scope_table_names_every_server_function_the_app_serves() {
    let _app = common::spawn_app().await; // registers the server functions
    let unnamed: Vec<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.trim_start_matches("/api/").to_string())
        .filter(|path| latency_guard::auth::token_needs(path).is_none())
        .collect();
    assert_eq!(unnamed, Vec::<String>::new(), "server functions without a scope: add them to src/auth/scopes.rs");
}
