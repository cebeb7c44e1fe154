//! The home page as a newcomer meets it: the first steps of a fresh install, "Run the demo" as the plain form the
//! page shows (the browser's POST, its same-origin check, the 303 to the new run's report), the finished run listed
//! with the figures its report leads with, and a workspace without the demo offered its own endpoint first.

use latency_guard::model::{RunId, RunStatus};
use latency_guard::report::ms;

use crate::common::{client, spawn_app_with_demo, TestApp};

/// Follows the first start's login link as a browser would; the session cookie.
async fn owner_cookie(app: &TestApp) -> String {
    let link = app.first_login_link.clone().expect("a first start prints a login link");
    let response = client().get(&link).send().await.unwrap();
    assert_eq!(response.headers()["location"], "/", "a login lands on the home page");
    response.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string()
}

/// Submits the first step's form as the page's browser does: same origin, the session cookie.
async fn run_the_demo(app: &TestApp, cookie: &str, origin: &str) -> (u16, Option<String>) {
    let response = client()
        .post(format!("{}/home/demo-run", app.base))
        .header("cookie", cookie)
        .header("origin", origin)
        .header("content-type", "application/x-www-form-urlencoded")
        .send()
        .await
        .unwrap();
    let location = response.headers().get("location").map(|v| v.to_str().unwrap().to_string());
    (response.status().as_u16(), location)
}

#[tokio::test]
async fn a_fresh_install_offers_the_demo_first_and_lists_the_run_it_starts_with_its_headline() {
    let app = spawn_app_with_demo().await;
    let cookie = owner_cookie(&app).await;

    let fresh = app.home_page(&cookie).await;
    assert!(fresh.contains(r#"id="first-steps""#), "{fresh}");
    assert!(fresh.contains("4 of 4 steps left"), "{fresh}");
    assert!(fresh.contains(r#"action="/home/demo-run""#) && fresh.contains(">Run the demo<"), "{fresh}");
    assert!(fresh.contains(r#"href="/connectors/new""#) && fresh.contains(r#"href="/guard/schedules/new""#));
    assert!(fresh.contains(r#"id="home-no-runs""#) && fresh.contains(r#"id="home-no-schedules""#), "{fresh}");
    // The page itself, before any WASM: the server rendered the button into it.
    let (status, _, page) = app.get("/", Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(page.contains(r#"id="run-demo""#), "the home page's HTML carries the form");

    // Another site's page cannot start runs with the session's cookie.
    let (status, _) = run_the_demo(&app, &cookie, "http://evil.example").await;
    assert_eq!(status, 403);
    assert_eq!(app.json(&cookie, "runs/list", serde_json::json!({})).await, serde_json::json!([]), "no run started");

    let (status, location) = run_the_demo(&app, &cookie, &app.base).await;
    assert_eq!(status, 303, "a 303, so a reload does not post again");
    let location = location.unwrap();
    let id: RunId = location.strip_prefix("/runs/").unwrap_or_else(|| panic!("{location}")).parse().unwrap();
    let report = app.until_run_ended(&cookie, id).await;
    assert_eq!(report.run.status, RunStatus::Completed);
    assert_eq!(report.summary.measured, 120, "the demo measures 120 requests after its warm-ups");
    assert_eq!(report.summary.succeeded, 120);

    // The headline kept at the end is the report's own figures.
    let headline = report.run.headline.expect("a finished run keeps its headline");
    assert_eq!(headline.output_tok_per_sec, report.summary.output_tok_per_sec);
    assert_eq!(headline.requests_per_sec, report.summary.requests_per_sec);
    assert_eq!(headline.ttft_p95_ms, report.summary.ttft.as_ref().map(|p| p.p95));
    let throughput = format!("{:.1} tok/s", headline.output_tok_per_sec.unwrap());
    let ttft = ms(headline.ttft_p95_ms.unwrap());

    let after = app.home_page(&cookie).await;
    assert!(after.contains("3 of 4 steps left"), "{after}");
    assert!(after.contains(">Run the demo again<"), "the demo step is done and can be run again: {after}");
    let row = after.split(r#"class="home-run">"#).nth(1).unwrap_or_else(|| panic!("the run is listed: {after}"));
    let link = format!("/runs/{id}");
    for expected in [link.as_str(), "Demo run", "Demo (simulated)", "completed", &throughput, &ttft, "0.0 % of 120"] {
        assert!(row.contains(expected), "the row shows {expected}: {row}");
    }

    // The demo again: its prompts start with marks of their own, so it does not measure the first one's cache.
    let (_, again) = run_the_demo(&app, &cookie, &app.base).await;
    let again: RunId = again.unwrap().strip_prefix("/runs/").unwrap().parse().unwrap();
    let second = app.until_run_ended(&cookie, again).await;
    assert!(second.snapshot.results.iter().all(|r| r.cached_tokens.is_some()), "the simulator says what it cached");
    let cached: u64 = second.snapshot.results.iter().filter_map(|r| r.cached_tokens).sum();
    assert_eq!(cached, 0, "no prompt token of the second demo came from the server's cache");
    let listed = app.home_page(&cookie).await;
    assert_eq!(listed.matches(r#"class="home-run">"#).count(), 2, "both runs listed, newest first: {listed}");
    assert!(listed.find(&format!("/runs/{again}")) < listed.find(&link), "{listed}");
}

#[tokio::test]
async fn a_workspace_without_the_demo_is_offered_its_own_endpoint_first_and_told_why_the_demo_cannot_run() {
    let app = spawn_app_with_demo().await;
    // A wallet's workspace: the demo connector is the install owner's alone.
    let (_, cookie) = app.session_for("0x00000000000000000000000000000000000000b0").await;
    let page = app.home_page(&cookie).await;
    assert!(!page.contains("/home/demo-run"), "no demo is offered: {page}");
    let first = page.split("<li").nth(1).unwrap();
    assert!(first.contains(r#"id="step-endpoint""#) && first.contains("Add your endpoint"), "{first}");
    assert_eq!(run_the_demo(&app, &cookie, &app.base).await, (303, Some("/?demo=no-demo".into())));
}
