//! Guard's API over real HTTP: sets and schedules with their validation, the signing secret shown once, the
//! cost estimate, pinning a baseline, Run now, the alert feed with acknowledgement, and workspace isolation.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;
use crate::common::{follow_events, spawn_app, spawn_app_with_demo};
use serde_json::{json, Value};

fn set_input(prompts: &[&str]) -> Value {
    json!({"name": "Checkout", "prompts": prompts.iter().map(|p| json!({"text": p})).collect::<Vec<_>>(), "maxTokens": 8})
}

fn schedule_input(set: &str, connector: &str, webhook: Option<&str>) -> Value {
    json!({"name": "Checkout p95", "setId": set, "connectorId": connector, "cadence": "15m", "notify": {"webhookUrl": webhook},
           "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]})
}

#[tokio::test]
async fn every_guard_function_needs_a_session() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4().to_string();
    for (path, body) in [
        ("guard/sets/list", json!({})),
        ("guard/sets/save", json!({"id": null, "input": set_input(&["a"])})),
        ("guard/sets/delete", json!({"id": id})),
        ("guard/schedules/list", json!({})),
        ("guard/schedules/save", json!({"id": null, "input": schedule_input(&id, &id, None)})),
        ("guard/schedules/get", json!({"id": id})),
        ("guard/schedules/page", json!({"id": id})),
        ("guard/schedules/choices", json!({})),
        ("guard/schedules/enable", json!({"id": id, "enabled": false})),
        ("guard/schedules/delete", json!({"id": id})),
        ("guard/schedules/run", json!({"id": id})),
        ("guard/schedules/test-webhook", json!({"id": id})),
        ("guard/estimate", json!({"set": id, "connector": id, "cadence": "15m"})),
        ("guard/baselines/pin", json!({"schedule": id, "run": id})),
        ("guard/alerts/list", json!({})),
        ("guard/alerts/count", json!({})),
        ("guard/alerts/ack", json!({"id": id})),
        ("guard/alerts/ack-all", json!({})),
        ("guard/mutes/set", json!({"schedule": id, "threshold": null, "minutes": 60})),
        ("guard/mutes/clear", json!({"schedule": id, "threshold": null})),
        ("guard/mutes/list", json!({})),
    ] {
        assert_eq!(app.call(path, body, None).await.0, 401, "{path}");
    }
}

#[tokio::test]
async fn a_schedule_from_set_to_acknowledged_alert_through_the_api() {
    let app = spawn_app_with_demo().await;
    let (ws, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let (_, stranger) = app.session_for("someone-else").await;
    let demo = app.state.store.list_connectors(ws).await.unwrap().remove(0).id.to_string();

    // Sets: bad input names its field; a good one is stored.
    let (status, text) =
        app.call("guard/sets/save", json!({"id": null, "input": set_input(&["ok", " "])}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], "prompts.1");
    let set =
        app.json(&cookie, "guard/sets/save", json!({"id": null, "input": set_input(&["a", "b", "c", "d", "e"])})).await;
    let set_id = set["id"].as_str().unwrap().to_string();

    // The form's pickers: the set with its prompt count, the connector with its model, and no e-mail here (no SMTP
    // server, no contact address); only what the pickers show.
    let choices = app.json(&cookie, "guard/schedules/choices", json!({})).await;
    // Five one-character prompts, no system prompt, 8 tokens each at most.
    let volume = json!({"requests": 5, "inputTokens": 5.0, "outputTokens": 40.0});
    assert_eq!(choices["sets"], json!([{"id": set_id, "name": "Checkout", "volume": volume, "systemTokens": 0.0}]));
    assert_eq!(choices["workloads"], json!([]));
    assert_eq!(choices["connectors"][0]["id"], demo.as_str());
    assert_eq!(
        choices["connectors"][0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "inputPricePerMtok", "model", "name", "outputPricePerMtok"]
    );
    assert_eq!(choices["mail"], json!({"enabled": false, "ownerContact": null}));

    // The estimate: 5 prompts every 15 minutes is 480 requests a day (the demo connector has no prices).
    let estimate =
        app.json(&cookie, "guard/estimate", json!({"set": set_id, "connector": demo, "cadence": "15m"})).await;
    assert_eq!(estimate["requestsPerDay"].as_f64(), Some(480.0));
    assert!(common::null_at(&estimate, "/usdPerDay"), "{estimate}");

    // A schedule: its signing secret comes back once, never again.
    let (status, text) =
        app.call("guard/schedules/save", json!({"id": null, "input": {"name": "x"}}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    let saved = app
        .json(
            &cookie,
            "guard/schedules/save",
            json!({"id": null, "input": schedule_input(&set_id, &demo, Some("http://127.0.0.1:9/hook"))}),
        )
        .await;
    let secret = saved["webhookSecret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let schedule_id = saved["schedule"]["id"].as_str().unwrap().to_string();
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": schedule_id})).await;
    assert!(!detail.to_string().contains(&secret), "the secret is shown once");
    assert!(common::null_at(&detail, "/baseline"));
    assert_eq!(detail["schedule"]["enabled"], true);
    let list = app.json(&cookie, "guard/schedules/list", json!({})).await;
    assert!(!list.to_string().contains(&secret));
    let (status, text) = app.call("guard/sets/delete", json!({"id": set_id}), Some(&cookie)).await;
    assert_eq!(status, 400);
    assert!(text.contains("Checkout p95"), "names the schedule that runs it: {text}");

    // A baseline run on the same connector, pinned through the API, with what makes it a weaker baseline.
    let plan = json!({"input": {"connectorId": demo, "agent": {"name": "bot", "tokenBudget": 8}, "prompts": ["a", "b", "c", "d", "e"],
                                "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}});
    let run = app.json(&cookie, "runs/start", plan).await["id"].as_str().unwrap().to_string();
    follow_events(&app, &cookie, &run, usize::MAX).await;
    let pinned = app.json(&cookie, "guard/baselines/pin", json!({"schedule": schedule_id, "run": run})).await;
    assert_eq!(pinned["baseline"]["n"], 10);
    let warnings = pinned["warnings"].to_string();
    assert!(
        warnings.contains("streamed") && warnings.contains("temperature") && warnings.contains("30 or more"),
        "{warnings}"
    );
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": schedule_id})).await;
    assert_eq!(detail["baseline"]["runId"], run.as_str());
    assert_eq!(detail["pinnableRuns"][0]["id"], run.as_str());
    // Re-pinning replaces the baseline in force and keeps the earlier one in the history.
    app.json(&cookie, "guard/baselines/pin", json!({"schedule": schedule_id, "run": run})).await;
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": schedule_id})).await;
    assert_eq!(detail["earlierBaselines"].as_array().unwrap().len(), 1);
    assert_eq!(detail["earlierBaselines"][0]["runId"], run.as_str());

    // Run now against the same endpoint: compared, and the feed and badge say what it decided.
    let outcome = app.json(&cookie, "guard/schedules/run", json!({"id": schedule_id})).await;
    assert!(["healthy", "breached"].contains(&outcome["status"].as_str().unwrap()), "{outcome}");
    assert!(outcome["pValue"].is_number());
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": schedule_id})).await;
    assert_eq!(detail["evaluations"][0]["trigger"], "run_now");
    assert_eq!(detail["evaluations"][0]["decision"]["n"], json!([10, 5]));
    assert!(detail.get("historySvg").is_none(), "the chart is drawn for the page, not sent as data");
    // The page shows the same, rendered by the server: the chart, the evaluation and the baselines, and the runs
    // to pin as choices.
    let page = app.json(&cookie, "guard/schedules/page", json!({"id": schedule_id})).await;
    let history = page["history"].as_str().unwrap();
    assert!(history.contains("baseline-band") && history.contains(r#"id="evaluations""#), "{history}");
    assert!(history.contains(&format!(r#"href="/runs/{}""#, detail["evaluations"][0]["runId"].as_str().unwrap())));
    assert!(page["baselines"].as_str().unwrap().contains("1 earlier baseline(s)"), "{page}");
    assert!(page["pinnableChoices"].as_str().unwrap().contains(&format!(r#"value="{run}""#)));
    assert_eq!(
        (&page["firstPinnable"], &page["schedule"]["id"]),
        (&detail["pinnableRuns"][0]["id"], &json!(schedule_id))
    );
    assert!(page["header"].as_str().unwrap().contains(r#"id="schedule-title""#));

    // The endpoint slows down threefold: Run now breaches the p95 threshold, the feed and the badge show one open
    // alert, and only a person closes it — once.
    let slow = latency_guard::sim::spawn_local(latency_guard::sim::SimConfig::fixed_ms(600, 15, 64)).await.unwrap();
    let repoint =
        json!({"id": demo, "input": {"name": "Demo (simulated)", "baseUrl": slow.base_url(), "model": "sim-model"}});
    app.json(&cookie, "connectors/update", repoint).await;
    let breached = app.json(&cookie, "guard/schedules/run", json!({"id": schedule_id})).await;
    assert_eq!(breached["status"], "breached", "{breached}");
    assert_eq!(app.json(&cookie, "guard/alerts/count", json!({})).await, json!(1));
    let feed = app.json(&cookie, "guard/alerts/list", json!({})).await;
    let alert = feed[0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        (feed[0]["breach"]["metric"].as_str(), feed[0]["acknowledged"].as_bool()),
        (Some("p95_ms"), Some(false))
    );
    // Muted for maintenance: its threshold for an hour; a key the schedule lacks and a mute beyond 30 days are
    // refused with the field named; the feed says until when, and it ends by hand.
    for (body, field) in [
        (json!({"schedule": schedule_id, "threshold": "p50_ms:pct_increase", "minutes": 60}), "threshold"),
        (json!({"schedule": schedule_id, "threshold": null, "minutes": 0}), "minutes"),
        (json!({"schedule": schedule_id, "threshold": null, "minutes": 30 * 24 * 60 + 1}), "minutes"),
    ] {
        let (status, text) = app.call("guard/mutes/set", body, Some(&cookie)).await;
        assert_eq!(status, 400, "{text}");
        assert!(text.contains(field), "{text}");
    }
    let mute = json!({"schedule": schedule_id, "threshold": "p95_ms:pct_increase", "minutes": 60});
    let muted = app.json(&cookie, "guard/mutes/set", mute).await;
    let until = muted["untilMs"].as_i64().unwrap();
    assert_eq!(app.json(&cookie, "guard/mutes/list", json!({})).await[0]["thresholdKey"], "p95_ms:pct_increase");
    assert_eq!(app.json(&cookie, "guard/alerts/list", json!({})).await[0]["mutedUntilMs"], until);
    assert_eq!(app.json(&stranger, "guard/mutes/list", json!({})).await, json!([]));
    let page = app.json(&cookie, "guard/schedules/page", json!({"id": schedule_id})).await;
    assert!(page["header"].as_str().unwrap().contains("Threshold p95_ms:pct_increase muted until"), "{page}");
    let unmute = json!({"schedule": schedule_id, "threshold": "p95_ms:pct_increase"});
    assert_eq!(app.json(&cookie, "guard/mutes/clear", unmute.clone()).await, json!(true));
    assert_eq!(app.json(&cookie, "guard/mutes/clear", unmute).await, json!(false), "ended already");
    assert!(app.json(&cookie, "guard/alerts/list", json!({})).await[0]["mutedUntilMs"].is_null());

    assert_eq!(app.json(&cookie, "guard/alerts/ack", json!({"id": alert})).await, json!(true));
    assert_eq!(app.json(&cookie, "guard/alerts/ack", json!({"id": alert})).await, json!(false), "already acknowledged");
    assert_eq!(app.json(&cookie, "guard/alerts/count", json!({})).await, json!(0));
    assert_eq!(app.json(&cookie, "guard/alerts/ack-all", json!({})).await, json!(0));
    let feed = app.json(&cookie, "guard/alerts/list", json!({})).await;
    assert_eq!((feed[0]["id"].as_str(), feed[0]["acknowledged"].as_bool()), (Some(alert.as_str()), Some(true)));
    slow.stop();

    // Another workspace sees none of it.
    for (path, body) in [
        ("guard/schedules/get", json!({"id": schedule_id})),
        ("guard/schedules/page", json!({"id": schedule_id})),
        ("guard/schedules/run", json!({"id": schedule_id})),
        ("guard/schedules/enable", json!({"id": schedule_id, "enabled": false})),
        ("guard/schedules/delete", json!({"id": schedule_id})),
        ("guard/sets/delete", json!({"id": set_id})),
        ("guard/baselines/pin", json!({"schedule": schedule_id, "run": run})),
        ("guard/mutes/set", json!({"schedule": schedule_id, "threshold": null, "minutes": 60})),
        ("guard/mutes/clear", json!({"schedule": schedule_id, "threshold": null})),
    ] {
        assert_eq!(app.call(path, body, Some(&stranger)).await.0, 404, "{path}");
    }
    assert_eq!(app.json(&stranger, "guard/schedules/list", json!({})).await, json!([]));
    assert_eq!(app.json(&stranger, "guard/alerts/count", json!({})).await, json!(0));

    // Pause, resume, and a test message to a loopback receiver that is not allow-listed: refused, and said so.
    assert_eq!(
        app.json(&cookie, "guard/schedules/enable", json!({"id": schedule_id, "enabled": false})).await["enabled"],
        false
    );
    assert_eq!(
        app.json(&cookie, "guard/schedules/enable", json!({"id": schedule_id, "enabled": true})).await["enabled"],
        true
    );
    let test = app.json(&cookie, "guard/schedules/test-webhook", json!({"id": schedule_id})).await;
    assert_eq!(test["attempts"], 1);
    assert!(test["lastError"].as_str().unwrap().starts_with("refused: 127.0.0.1"), "{test}");
    // Each test message is a request to a URL the workspace chose: five at once, then one a minute.
    for _ in 0..4 {
        app.json(&cookie, "guard/schedules/test-webhook", json!({"id": schedule_id})).await;
    }
    let (status, text) = app.call("guard/schedules/test-webhook", json!({"id": schedule_id}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("test messages are limited to 5 at once, then one a minute: try again in "), "{text}");
    app.json(&cookie, "guard/schedules/delete", json!({"id": schedule_id})).await;
    app.json(&cookie, "guard/sets/delete", json!({"id": set_id})).await;
}

#[tokio::test]
async fn a_schedule_names_a_saved_workload_through_the_api() {
    let app = spawn_app_with_demo().await;
    let (ws, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let demo = app.state.store.list_connectors(ws).await.unwrap().remove(0).id.to_string();
    let mut set = set_input(&["a", "b", "c"]);
    set["systemPrompt"] = json!("Answer briefly."); // 15 characters: 4 tokens as estimated
    let set_id = app.json(&cookie, "guard/sets/save", json!({"id": null, "input": set})).await["id"].clone();
    let synthetic = |requests: u32| {
        json!({"kind": "synthetic", "input": {"kind": "fixed", "tokens": 40}, "output": {"kind": "fixed", "tokens": 4},
               "requests": requests, "seed": 3})
    };
    let save = |name: &'static str, spec: Value| {
        let body = json!({"id": null, "input": {"name": name, "spec": spec}});
        let (app, cookie) = (&app, &cookie);
        async move { app.json(cookie, "workloads/save", body).await["id"].as_str().unwrap().to_string() }
    };
    let small = save("small", synthetic(6)).await;
    let big = save("too big for Guard", synthetic(101)).await;

    // The form offers the workloads a schedule can send, with what its cost estimate needs.
    let choices = app.json(&cookie, "guard/schedules/choices", json!({})).await;
    assert_eq!(choices["sets"][0]["systemTokens"], json!(4.0));
    let offered = choices["workloads"].as_array().unwrap();
    assert_eq!(offered.len(), 1, "the one of 101 requests is left out: {offered:?}");
    assert_eq!((offered[0]["id"].as_str(), offered[0]["requests"].as_u64()), (Some(small.as_str()), Some(6)));
    assert_eq!(offered[0]["volume"], json!({"requests": 6, "inputTokens": 240.0, "outputTokens": 24.0}));
    let estimate = json!({"set": set_id, "connector": demo, "cadence": "15m", "workload": small});
    assert_eq!(app.json(&cookie, "guard/estimate", estimate).await["requestsPerDay"].as_f64(), Some(6.0 * 96.0));

    // Naming the big one is refused by field; the small one is copied into the schedule.
    let mut input = schedule_input(set_id.as_str().unwrap(), &demo, None);
    input["workloadId"] = json!(big);
    let (status, text) =
        app.call("guard/schedules/save", json!({"id": null, "input": input.clone()}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    let refusal: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(refusal["detail"]["field"], "workloadId", "{text}");
    assert!(text.contains("sends 101 requests"), "{text}");
    assert_eq!(app.json(&cookie, "guard/schedules/list", json!({})).await, json!([]), "nothing stored");
    input["workloadId"] = json!(small);
    let saved = app.json(&cookie, "guard/schedules/save", json!({"id": null, "input": input})).await;
    assert_eq!(saved["schedule"]["workloadId"], small.as_str());
    let id = saved["schedule"]["id"].clone();
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": id})).await;
    assert_eq!(detail["workload"]["name"], "small");
    assert_eq!(detail["workload"]["spec"], synthetic(6));

    // Run now sends the workload with the set's system prompt; the page says so.
    let outcome = app.json(&cookie, "guard/schedules/run", json!({"id": id})).await;
    assert_eq!(outcome["status"], "no_baseline", "{outcome}");
    let run: latency_guard::model::RunId = serde_json::from_value(outcome["runId"].clone()).unwrap();
    let run = app.state.store.get_run(ws, run).await.unwrap();
    assert_eq!(run.plan.agent.system_prompt.as_deref(), Some("Answer briefly."));
    assert_eq!(run.total_requests, 6);
    let page = app.json(&cookie, "guard/schedules/page", json!({"id": id})).await;
    let header = page["header"].as_str().unwrap();
    assert!(
        header.contains("Sends the workload \"small\"") && header.contains("synthetic: input 40 tokens"),
        "{header}"
    );
}

/// The statistics a schedule may choose travel through the API as written: a window test on a threshold, a
/// change-point threshold and the policy's minimum segment; out-of-range ones name their field.
#[tokio::test]
async fn window_tests_and_change_points_are_saved_and_bad_ones_name_their_field() {
    let app = spawn_app_with_demo().await;
    let (ws, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let demo = app.state.store.list_connectors(ws).await.unwrap().remove(0).id.to_string();
    let set = app.json(&cookie, "guard/sets/save", json!({"id": null, "input": set_input(&["a", "b"])})).await;
    let input = |thresholds: Value, policy: Value| {
        let mut input = schedule_input(set["id"].as_str().unwrap(), &demo, None);
        input["thresholds"] = thresholds;
        input["policy"] = policy;
        json!({"id": null, "input": input})
    };
    let thresholds = json!([
        {"metric": "p95_ms", "op": "pct_increase", "value": 10, "test": "z_score:12"},
        {"metric": "p95_ms", "op": "pct_increase", "value": 20},
        {"metric": "tok_s", "op": "change_point", "value": 15, "severity": "critical"}
    ]);
    let saved = app.json(&cookie, "guard/schedules/save", input(thresholds, json!({"changeMinSegment": 4}))).await;
    let id = saved["schedule"]["id"].as_str().unwrap();
    let read = app.json(&cookie, "guard/schedules/get", json!({"id": id})).await;
    let stored = &read["schedule"]["thresholds"];
    assert_eq!(stored[0]["test"], "z_score:12:5", "{read}");
    assert!(stored[1].get("test").is_none(), "a baseline threshold is written as before: {read}");
    assert_eq!(stored[2]["op"], "change_point");
    assert_eq!(read["schedule"]["policy"]["changeMinSegment"], 4);
    assert_eq!(read["schedule"]["policy"]["baseline"], json!({"kind": "pinned"}), "pinned unless asked");
    let rolling = input(
        json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10}]),
        json!({"baseline": {"kind": "rolling", "last": 10}}),
    );
    let saved = app.json(&cookie, "guard/schedules/save", rolling).await;
    assert_eq!(saved["schedule"]["policy"]["baseline"], json!({"kind": "rolling", "last": 10}), "{saved}");

    for (thresholds, policy, field, words) in [
        (
            json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10, "test": "iqr:200"}]),
            json!({}),
            "thresholds.0.test",
            "window must be 2 to 96 evaluations",
        ),
        (
            json!([{"metric": "p95_ms", "op": "change_point", "value": 10, "test": "z_score"}]),
            json!({}),
            "thresholds.0.test",
            "change_point is a test of its own",
        ),
        (
            json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10}]),
            json!({"changeMinSegment": 2}),
            "policy.changeMinSegment",
            "must be 3 to 20 evaluations",
        ),
        (
            json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10}]),
            json!({"baseline": {"kind": "rolling", "last": 2}}),
            "policy.baseline.last",
            "must be 3 to 50 evaluations",
        ),
        (
            json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10}]),
            json!({"baseline": {"kind": "window", "hours": 721}}),
            "policy.baseline.hours",
            "must be 1 to 720 hours",
        ),
    ] {
        let (status, text) = app.call("guard/schedules/save", input(thresholds, policy), Some(&cookie)).await;
        assert_eq!(status, 400, "{text}");
        let detail = &serde_json::from_str::<Value>(&text).unwrap()["detail"];
        assert_eq!(detail["field"], field, "{text}");
        assert!(text.contains(words), "{text}");
    }
    let (status, text) = app
        .call(
            "guard/schedules/save",
            input(json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10, "test": "median"}]), json!({})),
            Some(&cookie),
        )
        .await;
    assert_eq!(status, 400, "an unknown test is refused, not ignored: {text}");
    let unknown_pool = input(
        json!([{"metric": "p95_ms", "op": "pct_increase", "value": 10}]),
        json!({"baseline": {"kind": "median"}}),
    );
    let (status, text) = app.call("guard/schedules/save", unknown_pool, Some(&cookie)).await;
    assert_eq!(status, 400, "an unknown baseline is refused, not taken as pinned: {text}");
}
