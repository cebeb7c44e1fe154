//! Every kind of threshold Guard offers, walked end to end on SQLite and PostgreSQL as a user meets it: a
//! breaching evaluation opens its alert, a receiver on loopback gets the alert's message naming the threshold, and
//! a healthy evaluation after it sends the recovered notice. The kinds: the baseline comparison gated by Welch's test
//! (p95 up, p50 up by an amount, tok/s down), each window test (z-score, log-normal, IQR, delta-IQR), a change point,
//! the error rate, the cost, the streamed figures (TTFT, TPOT, time to first output) and the acceptance rate of a
//! speculative-decoding server. A kind missing here is a kind that may breach without anyone being told.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::endpoint::scripted_endpoint;
use crate::common::guard_rig::{Rig, MINUTE};
use crate::common::TestDb;
use crate::webhooks::webhook_policy;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{
    AlertPolicy, BenchmarkSet, Cadence, EvaluationStatus, Metric, Notify, Op, Schedule, ScheduleInput, ScheduleOutcome,
    Severity, Threshold, WindowTest,
};
use latency_guard::guard::notify::WebhookSender;
use latency_guard::model::{ConnectorId, ConnectorInput, ServerKind};
use latency_guard::sim::{self, Delay, Fault, SimConfig, SimHandle};
use serde_json::Value;

/// The endpoints a case moves its connector between.
struct Endpoints {
    /// About 50 ms a request, 4 tokens.
    fast: SimHandle,
    /// About 250 ms a request.
    slow: SimHandle,
    /// As fast, answering 40 tokens: ten times the output, ten times the cost.
    verbose: SimHandle,
    /// As fast, half its requests answered 500.
    failing: SimHandle,
    /// Streamed: the first token after 30 ms, the next 3 each 10 ms later.
    quick_start: SimHandle,
    /// Streamed: the first token after 150 ms.
    slow_start: SimHandle,
    /// Streamed: tokens 60 ms apart.
    slow_tokens: SimHandle,
}

async fn endpoint(ttft_ms: u64, itl_ms: u64, tokens: u32, fault_rate: f64) -> SimHandle {
    let config = SimConfig {
        ttft: Delay::Normal { mean: Duration::from_millis(ttft_ms), sd: Duration::from_millis(ttft_ms / 20 + 1) },
        itl: Delay::Fixed(Duration::from_millis(itl_ms)),
        tokens,
        fault_rate,
        faults: vec![Fault::ServerError],
        ..Default::default()
    };
    sim::spawn_local(config).await.unwrap()
}

impl Endpoints {
    async fn start() -> Self {
        Self {
            fast: endpoint(50, 0, 4, 0.0).await,
            slow: endpoint(250, 0, 4, 0.0).await,
            verbose: endpoint(50, 0, 40, 0.0).await,
            failing: endpoint(50, 0, 4, 0.5).await,
            quick_start: endpoint(30, 10, 4, 0.0).await,
            slow_start: endpoint(150, 10, 4, 0.0).await,
            slow_tokens: endpoint(30, 60, 4, 0.0).await,
        }
    }

    fn stop(self) {
        let all =
            [self.fast, self.slow, self.verbose, self.failing, self.quick_start, self.slow_start, self.slow_tokens];
        for sim in all {
            sim.stop();
        }
    }
}

/// A server that drafts tokens for speculative decoding and says so on `/metrics` as vLLM does: each completion
/// drafts 10 tokens, of which `accept_pct` % are accepted.
struct DraftingServer {
    base_url: String,
    accept_pct: Arc<AtomicU32>,
}

async fn drafting_server() -> DraftingServer {
    #[derive(Default)]
    struct Counters {
        drafts: u64,
        drafted: u64,
        accepted: u64,
    }
    let accept_pct = Arc::new(AtomicU32::new(80));
    let counters: Arc<Mutex<Counters>> = Arc::default();
    let (rate, on_complete, on_scrape) = (accept_pct.clone(), counters.clone(), counters);
    let on_chat = Arc::new(move || {
        let mut c = on_complete.lock().unwrap();
        c.drafts += 1;
        c.drafted += 10;
        c.accepted += u64::from(rate.load(Ordering::SeqCst)) / 10;
    });
    let metrics = Arc::new(move || {
        let c = on_scrape.lock().unwrap();
        format!(
            "# TYPE vllm:spec_decode_num_drafts_total counter\n\
             vllm:spec_decode_num_drafts_total{{engine=\"0\",model_name=\"sim-model\"}} {}\n\
             # TYPE vllm:spec_decode_num_draft_tokens_total counter\n\
             vllm:spec_decode_num_draft_tokens_total{{engine=\"0\",model_name=\"sim-model\"}} {}\n\
             # TYPE vllm:spec_decode_num_accepted_tokens_total counter\n\
             vllm:spec_decode_num_accepted_tokens_total{{engine=\"0\",model_name=\"sim-model\"}} {}\n",
            c.drafts, c.drafted, c.accepted
        )
    });
    DraftingServer { base_url: scripted_endpoint(on_chat, metrics).await, accept_pct }
}

/// A webhook receiver on loopback: its URL and every body it accepted.
pub(crate) async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let store = store.clone();
            async move { store.lock().unwrap().push(serde_json::from_str(&body).unwrap()) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

/// Where a case's connector points, evaluation by evaluation.
#[derive(Clone, Copy)]
enum Point {
    Fast,
    Slow,
    Verbose,
    Failing,
    QuickStart,
    SlowStart,
    SlowTokens,
    /// The drafting server, accepting this percentage of drafted tokens.
    Drafting(u32),
}

/// One kind of threshold and how to make it breach and recover.
struct Case {
    threshold: Threshold,
    /// The schedule streams its requests (and its baseline run streamed).
    stream: bool,
    /// Evaluations before the breach, for a window or a change point to fill.
    warm_up: usize,
    healthy: Point,
    breaching: Point,
    /// Evaluations allowed for the breach and for the recovery: a change point is seen once its new level fills a
    /// segment, and failures are drawn at random.
    patience: usize,
    policy: AlertPolicy,
}

fn rule(metric: Metric, op: Op, value: f64, test: Option<&str>) -> Threshold {
    let test = test.map(|t| WindowTest::try_from(t.to_string()).unwrap());
    Threshold { metric, op, value, severity: Severity::Critical, test }
}

/// Recovered after one healthy evaluation; errors allowed in a valid run where the error rate is what is watched.
fn policy() -> AlertPolicy {
    AlertPolicy { recover_after: 1, ..AlertPolicy::default() }
}

fn every_kind() -> Vec<Case> {
    let case = |threshold: Threshold, healthy: Point, breaching: Point| Case {
        threshold,
        stream: false,
        warm_up: 0,
        healthy,
        breaching,
        patience: 1,
        policy: policy(),
    };
    let windowed = |kind: &str| Case {
        warm_up: 5,
        ..case(rule(Metric::P95Ms, Op::PctIncrease, 100.0, Some(kind)), Point::Fast, Point::Slow)
    };
    let streamed = |metric: Metric, breaching: Point| Case {
        stream: true,
        ..case(rule(metric, Op::PctIncrease, 100.0, None), Point::QuickStart, breaching)
    };
    vec![
        case(rule(Metric::P95Ms, Op::PctIncrease, 100.0, None), Point::Fast, Point::Slow),
        case(rule(Metric::P50Ms, Op::AbsIncrease, 100.0, None), Point::Fast, Point::Slow),
        case(rule(Metric::TokS, Op::PctDecrease, 50.0, None), Point::Fast, Point::Slow),
        windowed("z_score"),
        windowed("log_normal"),
        windowed("iqr"),
        windowed("delta_iqr"),
        Case {
            warm_up: 5,
            patience: 8,
            policy: AlertPolicy { change_min_segment: 3, ..policy() },
            ..case(rule(Metric::P95Ms, Op::ChangePoint, 100.0, None), Point::Fast, Point::Slow)
        },
        Case {
            patience: 6,
            policy: AlertPolicy { max_error_rate: 0.9, ..policy() },
            ..case(rule(Metric::ErrorRate, Op::AbsIncrease, 0.2, None), Point::Fast, Point::Failing)
        },
        case(rule(Metric::CostUsd, Op::PctIncrease, 100.0, None), Point::Fast, Point::Verbose),
        streamed(Metric::TtftP95Ms, Point::SlowStart),
        streamed(Metric::FirstOutputP95Ms, Point::SlowStart),
        streamed(Metric::TpotP95Ms, Point::SlowTokens),
        case(rule(Metric::AcceptanceRate, Op::PctDecrease, 20.0, None), Point::Drafting(80), Point::Drafting(30)),
    ]
}

/// The rig and the endpoints one case's connector moves between.
struct World {
    rig: Rig,
    endpoints: Endpoints,
    drafting: DraftingServer,
    sender: WebhookSender,
}

impl World {
    /// Points `connector` at `point`, keeping its prices (USD 10 per million output tokens).
    async fn point(&self, connector: ConnectorId, point: Point) {
        let e = &self.endpoints;
        let url = match point {
            Point::Fast => e.fast.base_url(),
            Point::Slow => e.slow.base_url(),
            Point::Verbose => e.verbose.base_url(),
            Point::Failing => e.failing.base_url(),
            Point::QuickStart => e.quick_start.base_url(),
            Point::SlowStart => e.slow_start.base_url(),
            Point::SlowTokens => e.slow_tokens.base_url(),
            Point::Drafting(pct) => {
                self.drafting.accept_pct.store(pct, Ordering::SeqCst);
                self.drafting.base_url.clone()
            }
        };
        let input = connector_input(&url).validate().unwrap();
        let rig = &self.rig;
        rig.store.update_connector(rig.ws, connector, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap();
        if let Point::Drafting(_) = point {
            // A Spec Lab probe identified the server (a connector moved to another server forgets what it was).
            rig.store.record_probe(rig.ws, connector, Some(ServerKind::Vllm), rig.clock.now_ms()).await.unwrap();
        }
    }

    /// Points the connector, evaluates the schedule now, and moves the clock a minute on.
    async fn evaluate(&self, schedule: &Schedule, point: Point) -> ScheduleOutcome {
        self.point(schedule.input.connector_id, point).await;
        let rig = &self.rig;
        let outcome = rig.guard.run_now(rig.ws, schedule.id).await.unwrap().unwrap();
        rig.clock.advance(MINUTE);
        outcome
    }

    /// The latest evaluation's reason for the case's one threshold.
    async fn why(&self, schedule: &Schedule) -> String {
        let latest = self.rig.store.list_evaluations(self.rig.ws, schedule.id, 1).await.unwrap().remove(0);
        latest.decision.map_or_else(|| format!("{:?}", latest.status), |d| d.checks[0].reason.clone())
    }
}

fn connector_input(url: &str) -> ConnectorInput {
    ConnectorInput {
        name: "endpoint".into(),
        base_url: url.into(),
        model: "sim-model".into(),
        input_price_per_mtok: Some(0.0),
        output_price_per_mtok: Some(10.0),
        ..Default::default()
    }
}

/// A schedule of `set` with the case's one threshold, its policy, streaming or not, sending to `hook`.
async fn schedule_for(world: &World, case: &Case, set: &BenchmarkSet, hook: &str) -> Schedule {
    let rig = &world.rig;
    let valid = connector_input(&world.endpoints.fast.base_url()).validate().unwrap();
    let connector = rig.store.create_connector(rig.ws, &valid, false, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    let name = case.threshold.key();
    let created = rig.schedule_notifying(&name, set, connector.id, Cadence::Hourly, true, None, None).await;
    let input = ScheduleInput {
        thresholds: vec![case.threshold],
        stream: case.stream,
        policy: case.policy,
        notify: Notify { webhook_url: Some(hook.into()), ..Notify::default() },
        ..created.input.clone()
    };
    let input = input.validate().unwrap();
    rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap()
}

/// Walks `case`: baseline, warm-up, breach → alert → message, healthy → recovered notice.
async fn walk(world: &World, case: &Case, set: &BenchmarkSet) {
    let rig = &world.rig;
    let key = case.threshold.key();
    let (hook, seen) = receiver().await;
    let schedule = schedule_for(world, case, set, &hook).await;
    // The first evaluation has nothing to compare with; its run is pinned, as a user pins one from the page.
    let first = world.evaluate(&schedule, case.healthy).await;
    assert_eq!(first.status, EvaluationStatus::NoBaseline, "{key}: {first:?}");
    latency_guard::guard::service::pin_run(&rig.store, rig.ws, schedule.id, first.run_id.unwrap(), rig.clock.now_ms())
        .await
        .unwrap();
    for _ in 0..case.warm_up {
        let outcome = world.evaluate(&schedule, case.healthy).await;
        assert_eq!(outcome.status, EvaluationStatus::Healthy, "{key}, warming up: {}", world.why(&schedule).await);
    }

    let mut tries = 0;
    let breached = loop {
        tries += 1;
        let outcome = world.evaluate(&schedule, case.breaching).await;
        if outcome.status == EvaluationStatus::Breached || tries >= case.patience {
            break outcome;
        }
    };
    assert_eq!(breached.status, EvaluationStatus::Breached, "{key}: {}", world.why(&schedule).await);
    assert_eq!(breached.alerts_opened.len(), 1, "{key}: the breach opens its alert: {breached:?}");
    let alert = rig.store.list_alerts(rig.ws, 100, rig.clock.now_ms()).await.unwrap();
    let alert = alert.iter().find(|a| a.id == breached.alerts_opened[0]).expect("in the feed");
    assert_eq!(alert.breach.as_ref().unwrap().key(), key, "{alert:?}");

    assert_eq!(world.sender.deliver_due().await.unwrap(), 1, "{key}: one alert message");
    let message = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(message["type"], "latency_guard.guard.alert", "{key}: {message}");
    let breach = &message["breaches"][0];
    assert_eq!(
        (breach["metric"].as_str(), breach["op"].as_str()),
        (Some(case.threshold.metric.as_str()), Some(case.threshold.op.as_str()))
    );
    assert_eq!(breach["severity"], "critical", "{key}: {message}");
    let figures = message["text"].as_str().unwrap().lines().nth(1).unwrap().to_string();
    assert!(figures.starts_with(case.threshold.metric.as_str()), "{key}: {figures}");
    match (&case.threshold.test, case.threshold.op) {
        (Some(test), _) => {
            assert_eq!(breach["test"], String::from(*test), "{key}: {message}");
            assert!(figures.contains(&format!("{} window", test.kind.as_str())), "{key}: {figures}");
        }
        (None, Op::ChangePoint) => {
            assert!(breach["latest"].as_f64().is_some(), "{key}: this run's own figure: {message}");
            assert!(figures.contains("level after") && figures.contains("; this run "), "{key}: {figures}");
        }
        (None, _) => assert!(breach.get("test").is_none() && breach.get("latest").is_none(), "{key}: {message}"),
    }

    let mut tries = 0;
    let recovered = loop {
        tries += 1;
        let outcome = world.evaluate(&schedule, case.healthy).await;
        if !outcome.alerts_recovered.is_empty() || tries >= case.patience.max(2) {
            break outcome;
        }
    };
    assert_eq!(recovered.alerts_recovered, breached.alerts_opened, "{key}: {}", world.why(&schedule).await);
    assert_eq!(world.sender.deliver_due().await.unwrap(), 1, "{key}: one recovered notice");
    let notice = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(notice["type"], "latency_guard.guard.recovered", "{key}: {notice}");
    assert_eq!(notice["breaches"][0]["metric"], case.threshold.metric.as_str(), "{key}: {notice}");
    assert_eq!(seen.lock().unwrap().len(), 2, "{key}: nothing else was sent");
}

async fn every_threshold_kind_that_breaches_opens_an_alert_that_reaches_a_receiver_and_recovers(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let world = World { rig, endpoints: Endpoints::start().await, drafting: drafting_server().await, sender };
    let small = world.rig.set(4).await;
    // The error rate is drawn: more requests make "at least 2 of 8 failed" near certain on the failing endpoint.
    let large = world.rig.set(8).await;
    for case in every_kind() {
        let set = if case.threshold.metric == Metric::ErrorRate { &large } else { &small };
        walk(&world, &case, set).await;
    }
    world.endpoints.stop();
}

both_backends!(every_threshold_kind_that_breaches_opens_an_alert_that_reaches_a_receiver_and_recovers);
