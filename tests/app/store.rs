//! The store's story, told twice: on SQLite and on PostgreSQL, over real connections.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::TestDb;
use latency_guard::config::Secret;
use latency_guard::model::{ConnectorId, ConnectorInput, ValidConnector, WorkspaceId};
use latency_guard::runs::store::{PromptsKept, RunEnding};
use latency_guard::secrets::SecretBox;
use latency_guard::store::{Store, StoreError};
use std::collections::BTreeMap;
use std::sync::OnceLock;

fn sealer() -> &'static SecretBox {
    static SEALER: OnceLock<SecretBox> = OnceLock::new();
    SEALER.get_or_init(|| SecretBox::new(&Secret::generate()))
}

fn input(name: &str) -> ConnectorInput {
    ConnectorInput {
        name: name.into(),
        base_url: "https://gw.example/openai/deployments/gpt/?api-version=2024-10-21".into(),
        api_key: Some("sk-store-canary-0001".into()),
        model: "gpt-4o-mini".into(),
        headers: BTreeMap::from([
            ("api-version".into(), Some("2024-10-21".into())),
            ("X-Api-Key".into(), Some("hdr-store-canary-0002".into())),
        ]),
        input_price_per_mtok: Some(0.15),
        output_price_per_mtok: Some(0.6),
        ..Default::default()
    }
}

fn valid(input: &ConnectorInput) -> ValidConnector {
    input.validate().unwrap()
}

/// A validated closed-loop plan (concurrency 1, streamed) for agent `bot` against `connector`.
fn run_plan(
    connector: &latency_guard::model::Connector,
    prompts: &[&str],
    iterations: u32,
    warmup: u32,
    token_budget: u32,
) -> latency_guard::model::RunPlan {
    use latency_guard::model::{Agent, LoadMode, RunPlanInput};
    let agent = Agent { name: "bot".into(), system_prompt: None, tools: vec![], token_budget };
    let prompts = prompts.iter().map(|p| p.to_string()).collect();
    let one = LoadMode::Closed { concurrency: 1 };
    RunPlanInput { warmup, ..RunPlanInput::new(connector.id, agent, prompts, iterations, one) }
        .validate(&connector.model)
        .unwrap()
}

async fn workspace(store: &Store, owner: &str) -> WorkspaceId {
    store.ensure_workspace(owner, owner, 1_000).await.unwrap().0.id
}

/// Every connector column as text, read over a separate raw connection (what a stolen database file shows).
async fn dump_connector_rows(db: &TestDb) -> String {
    use sqlx::Row;
    let pool = sqlx::AnyPool::connect(&db.url).await.unwrap();
    let rows = sqlx::query(
        "SELECT name || '|' || base_url || '|' || model || '|' || headers || '|' || secret_header_names || '|' || sealed_secrets AS line FROM connectors",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows.iter().map(|r| r.get::<String, _>("line")).collect::<Vec<_>>().join("\n")
}

async fn copy_sealed_secrets(db: &TestDb, from: ConnectorId, to: ConnectorId) {
    let pool = sqlx::AnyPool::connect(&db.url).await.unwrap();
    sqlx::query(
        "UPDATE connectors SET sealed_secrets = (SELECT sealed_secrets FROM connectors WHERE id = $1) WHERE id = $2",
    )
    .bind(from.to_string())
    .bind(to.to_string())
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
}

async fn connector_crud_round_trips(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let created = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1_000).await.unwrap();
    assert_eq!(created.name, "Gateway");
    assert_eq!(created.base_url, "https://gw.example/openai/deployments/gpt?api-version=2024-10-21");
    assert!(created.has_api_key);
    assert_eq!(created.input_price_per_mtok, Some(0.15));
    let header_names: Vec<_> =
        created.headers.iter().map(|h| (h.name.as_str(), h.value.as_deref(), h.secret)).collect();
    assert_eq!(header_names, vec![("api-version", Some("2024-10-21"), false), ("x-api-key", None, true)]);

    let opened = store.open_connector(ws, created.id, sealer()).await.unwrap();
    assert_eq!(opened.credentials.api_key.as_deref(), Some("sk-store-canary-0001"));
    assert_eq!(opened.credentials.headers["x-api-key"], "hdr-store-canary-0002");
    assert_eq!(opened.credentials.headers["api-version"], "2024-10-21");

    let renamed = ConnectorInput { name: "Renamed".into(), api_key: None, output_price_per_mtok: None, ..input("x") };
    let updated = store.update_connector(ws, created.id, &valid(&renamed), sealer(), 2_000).await.unwrap();
    assert_eq!(updated.name, "Renamed");
    assert_eq!(updated.output_price_per_mtok, None);
    assert_eq!(updated.updated_at_ms, 2_000);
    assert_eq!(updated.created_at_ms, 1_000);

    assert_eq!(store.list_connectors(ws).await.unwrap().len(), 1);
    store.delete_connector(ws, created.id).await.unwrap();
    assert!(store.list_connectors(ws).await.unwrap().is_empty());
    assert!(matches!(store.delete_connector(ws, created.id).await, Err(StoreError::NotFound)));
}

async fn update_keeps_stored_secrets_when_omitted_and_clears_on_request(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let created = store.create_connector(ws, &valid(&input("G")), false, sealer(), 1).await.unwrap();
    let keep = ConnectorInput {
        api_key: None,
        headers: BTreeMap::from([("x-api-key".into(), None), ("api-version".into(), Some("2025-01-01".into()))]),
        ..input("G")
    };
    store.update_connector(ws, created.id, &valid(&keep), sealer(), 2).await.unwrap();
    let opened = store.open_connector(ws, created.id, sealer()).await.unwrap();
    assert_eq!(opened.credentials.api_key.as_deref(), Some("sk-store-canary-0001"));
    assert_eq!(opened.credentials.headers["x-api-key"], "hdr-store-canary-0002");
    assert_eq!(opened.credentials.headers["api-version"], "2025-01-01");

    let clear = ConnectorInput { api_key: None, clear_api_key: true, headers: BTreeMap::new(), ..input("G") };
    let cleared = store.update_connector(ws, created.id, &valid(&clear), sealer(), 3).await.unwrap();
    assert!(!cleared.has_api_key);
    assert!(cleared.headers.is_empty());
    let opened = store.open_connector(ws, created.id, sealer()).await.unwrap();
    assert_eq!(opened.credentials.api_key, None);
    assert!(opened.credentials.headers.is_empty());
}

async fn a_rejected_update_changes_nothing(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let created = store.create_connector(ws, &valid(&input("Before")), false, sealer(), 1).await.unwrap();
    // Keeping a credential header that was never stored is an error, detected before anything is written.
    let bad =
        ConnectorInput { name: "After".into(), headers: BTreeMap::from([("x-auth-token".into(), None)]), ..input("x") };
    let err = store.update_connector(ws, created.id, &valid(&bad), sealer(), 2).await.unwrap_err();
    assert!(matches!(&err, StoreError::Invalid(v) if v.field == "headers.x-auth-token"), "{err}");
    let after = store.get_connector(ws, created.id).await.unwrap();
    assert_eq!(after, created);
}

async fn workspaces_cannot_touch_each_others_connectors(db: &TestDb) {
    let store = &db.store;
    let a = workspace(store, "owner-a").await;
    let b = workspace(store, "owner-b").await;
    let of_a = store.create_connector(a, &valid(&input("A's")), false, sealer(), 1).await.unwrap();
    assert!(store.list_connectors(b).await.unwrap().is_empty());
    assert!(matches!(store.get_connector(b, of_a.id).await, Err(StoreError::NotFound)));
    assert!(matches!(store.open_connector(b, of_a.id, sealer()).await, Err(StoreError::NotFound)));
    assert!(matches!(
        store.update_connector(b, of_a.id, &valid(&input("hijack")), sealer(), 2).await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(store.delete_connector(b, of_a.id).await, Err(StoreError::NotFound)));
    assert_eq!(store.get_connector(a, of_a.id).await.unwrap().name, "A's");
    assert!(matches!(store.get_connector(a, ConnectorId::new_random()).await, Err(StoreError::NotFound)));
}

async fn credentials_are_sealed_at_rest_and_bound_to_their_row(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let created = store.create_connector(ws, &valid(&input("Sealed")), false, sealer(), 1).await.unwrap();
    let other = store.create_connector(ws, &valid(&input("Other")), false, sealer(), 1).await.unwrap();
    // A stolen database without the server secret yields no keys: the key is in no column as plain text.
    let dump = dump_connector_rows(db).await;
    assert!(dump.contains("Sealed"));
    assert!(!dump.contains("sk-store-canary-0001"), "API key stored in plain text");
    assert!(!dump.contains("hdr-store-canary-0002"), "credential header stored in plain text");
    // Another secret cannot open it.
    let stranger = SecretBox::new(&Secret::generate());
    assert!(matches!(store.open_connector(ws, created.id, &stranger).await, Err(StoreError::Sealed(_))));
    // A sealed blob copied onto another row does not open there.
    copy_sealed_secrets(db, created.id, other.id).await;
    assert!(matches!(store.open_connector(ws, other.id, sealer()).await, Err(StoreError::Sealed(_))));
}

async fn login_tokens_work_once_and_expire(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    store.insert_login_token(ws, "hash-1", 1_000, 5_000).await.unwrap();
    assert_eq!(store.consume_login_token("hash-1", 2_000).await.unwrap(), Some(ws));
    assert_eq!(store.consume_login_token("hash-1", 2_001).await.unwrap(), None, "second use");
    store.insert_login_token(ws, "hash-2", 1_000, 5_000).await.unwrap();
    assert_eq!(store.consume_login_token("hash-2", 5_000).await.unwrap(), None, "expired");
    assert_eq!(store.consume_login_token("unknown", 2_000).await.unwrap(), None);
}

async fn sessions_expire_and_end_on_logout(db: &TestDb) {
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    store.insert_session(ws, "s-1", 1_000, 10_000).await.unwrap();
    assert_eq!(store.find_session("s-1", 9_999).await.unwrap().map(|s| s.workspace_id), Some(ws));
    assert_eq!(store.find_session("s-1", 10_000).await.unwrap(), None);
    store.delete_session("s-1").await.unwrap();
    assert_eq!(store.find_session("s-1", 2_000).await.unwrap(), None);
    store.insert_session(ws, "s-2", 1_000, 10_000).await.unwrap();
    assert_eq!(store.purge_expired_auth(20_000).await.unwrap(), 1);
}

async fn ensure_workspace_is_idempotent(db: &TestDb) {
    let store = &db.store;
    let (first, created) = store.ensure_workspace("owner-x", "X", 1).await.unwrap();
    let (again, created_again) = store.ensure_workspace("owner-x", "X", 2).await.unwrap();
    assert!(created);
    assert!(!created_again);
    assert_eq!(first, again);
}

async fn runs_store_iterations_in_order_and_running_runs_become_interrupted(db: &TestDb) {
    use latency_guard::model::{
        ErrorClass, IterationError, IterationRecord, Measurement, RunId, RunStatus, Timeline, TokenSource,
    };
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let other = workspace(store, "owner-b").await;
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let plan = run_plan(&connector, &["first", "second"], 2, 0, 64);
    let id = RunId::new_random();
    let run = store.create_run(ws, id, &plan, &connector, "replica-1", 5_000).await.unwrap();
    assert_eq!((run.status, run.total_requests, run.title.as_str()), (RunStatus::Running, 4, "bot on gpt-4o-mini"));
    let measurement = |error: Option<IterationError>| Measurement {
        streamed: true,
        status: Some(200),
        timeline: Timeline { first_token_us: Some(12_500), end_us: 40_000, ..Timeline::default() },
        tokens_in: Some(7),
        tokens_out: Some(9),
        token_source: TokenSource::Reported,
        finish_reason: Some("stop".into()),
        error,
        ..Measurement::blank()
    };
    let rows: Vec<(IterationRecord, Measurement)> = plan
        .jobs()
        .map(|job| {
            let error = (job.seq == 3).then(|| IterationError::new(ErrorClass::Http, Some(503), "overloaded"));
            let m = measurement(error);
            (IterationRecord::from_measurement(&plan.prompts[job.prompt_index as usize], job, &m, Some(1.0), None), m)
        })
        .collect();
    store.insert_iterations(id, &rows[2..], PromptsKept::InPlan).await.unwrap();
    store.insert_iterations(id, &rows[..2], PromptsKept::InPlan).await.unwrap();
    let back = store.run_iterations(ws, id).await.unwrap();
    assert_eq!(back, rows.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>(), "stored in send order, exactly");
    assert_eq!(back[1].prompt, "second");
    assert_eq!(back[3].error.as_deref(), Some("http_503: overloaded"));
    assert_eq!(back[0].ttft_ms, Some(12.5));
    assert!(matches!(store.run_iterations(other, id).await, Err(StoreError::NotFound)));
    assert!(store.list_runs(other).await.unwrap().is_empty());

    // Its owner renews the heartbeat; a cancel asked elsewhere reaches it through the heartbeat's answer.
    assert_eq!(store.heartbeat_jobs::<RunId>("replica-1", 8_000).await.unwrap(), vec![]);
    assert!(
        matches!(store.request_job_cancel(other, id).await, Err(StoreError::NotFound)),
        "another workspace cannot cancel it"
    );
    assert!(store.request_job_cancel(ws, id).await.unwrap());
    assert_eq!(store.heartbeat_jobs::<RunId>("replica-2", 8_500).await.unwrap(), vec![], "only for its owner");
    assert_eq!(store.heartbeat_jobs::<RunId>("replica-1", 8_500).await.unwrap(), vec![id]);
    // A run is orphaned only once its owner has been silent since the given time.
    assert_eq!(store.interrupt_orphaned_jobs::<RunId>(8_500, 9_000).await.unwrap(), 0, "heartbeat at 8,500 is recent");
    assert_eq!(store.get_run(ws, id).await.unwrap().status, RunStatus::Running);
    assert_eq!(store.interrupt_orphaned_jobs::<RunId>(8_501, 9_000).await.unwrap(), 1);
    let run = store.get_run(ws, id).await.unwrap();
    assert_eq!((run.status, run.finished_at_ms), (RunStatus::Interrupted, Some(9_000)));
    assert!(!store.request_job_cancel(ws, id).await.unwrap(), "an ended run cannot be cancelled");
    assert_eq!(
        store.heartbeat_jobs::<RunId>("replica-1", 9_500).await.unwrap(),
        vec![],
        "nor does it keep a heartbeat"
    );
    store.finish_run(id, &completed(), 10_000).await.unwrap();
    assert_eq!(store.get_run(ws, id).await.unwrap().status, RunStatus::Interrupted, "an ended run stays ended");
    // Deleting the connector later keeps the run and its report.
    store.delete_connector(ws, connector.id).await.unwrap();
    assert_eq!(store.list_runs(ws).await.unwrap().len(), 1);
}

/// A figure that is missing in one row and present in the next is stored either way, whichever order the pool's
/// connections see them in: a failed request (no TTFT, no cost) stored first once made every later measured row of
/// that connection fail on PostgreSQL ("incorrect binary data format"), so a run whose first request failed lost
/// iterations, and a Guard evaluation compared after one without a baseline was never recorded.
async fn a_missing_figure_then_a_present_one_are_both_stored(db: &TestDb) {
    use latency_guard::model::{ErrorClass, IterationError, IterationRecord, Measurement, RunId, Timeline};
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let plan = run_plan(&connector, &["only"], 40, 0, 64);
    let id = RunId::new_random();
    store.create_run(ws, id, &plan, &connector, "replica-1", 5_000).await.unwrap();
    let rows: Vec<(IterationRecord, Measurement)> = plan
        .jobs()
        .map(|job| {
            // Even rows failed before their first token: no TTFT, no tokens, no cost.
            let failed = job.seq % 2 == 0;
            let m = Measurement {
                streamed: true,
                status: Some(if failed { 503 } else { 200 }),
                timeline: Timeline {
                    first_token_us: (!failed).then_some(12_500),
                    end_us: 40_000,
                    ..Timeline::default()
                },
                tokens_out: (!failed).then_some(9),
                error: failed.then(|| IterationError::new(ErrorClass::Http, Some(503), "overloaded")),
                ..Measurement::blank()
            };
            (IterationRecord::from_measurement("only", job, &m, Some(1.0), None), m)
        })
        .collect();
    // One row a batch, so that each of the pool's connections meets both kinds in turn.
    for row in &rows {
        store.insert_iterations(id, std::slice::from_ref(row), PromptsKept::InPlan).await.unwrap();
    }
    let back = store.run_iterations(ws, id).await.unwrap();
    assert_eq!(back.len(), 40);
    assert_eq!(back.iter().filter(|r| r.ttft_ms == Some(12.5)).count(), 20);
    assert_eq!(back, rows.into_iter().map(|(r, _)| r).collect::<Vec<_>>(), "every figure as it was measured");
}

/// A workload's rows keep what the plan does not: the prompt made for each request, the lengths asked and made, and
/// what the server reported (cached tokens, its own time to first output).
async fn a_workload_runs_rows_keep_their_prompts_and_asked_lengths(db: &TestDb) {
    use latency_guard::model::{
        Agent, IterationRecord, Job, LengthDist, LoadMode, Measurement, RunId, RunPlanInput, TokenSource, Workload,
    };
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let agent = Agent { name: "bot".into(), system_prompt: None, tools: vec![], token_budget: 64 };
    let workload =
        Workload::Synthetic { input: LengthDist::fixed(300), output: LengthDist::fixed(40), requests: 2, seed: 3 };
    let one = LoadMode::Closed { concurrency: 1 };
    let plan = RunPlanInput { workload: Some(workload), ..RunPlanInput::new(connector.id, agent, vec![], 1, one) }
        .validate(&connector.model)
        .unwrap();
    let id = RunId::new_random();
    store.create_run(ws, id, &plan, &connector, "replica-1", 5_000).await.unwrap();
    let rows: Vec<(IterationRecord, Measurement)> = (0..2u32)
        .map(|i| {
            let job = Job { seq: u64::from(i), prompt_index: i, iteration: 0, warmup: false };
            let m = Measurement {
                tokens_in: Some(302),
                tokens_out: Some(40),
                token_source: TokenSource::Reported,
                cached_tokens: Some(u64::from(i) * 16),
                // What the simulator says of its own time to first output: 12.5 ms.
                server_timing: Some(latency_guard::model::ServerTiming {
                    received_us: 1_000,
                    first_output_sent_us: Some(13_500),
                }),
                ..Measurement::blank()
            };
            let record = IterationRecord {
                asked_input_tokens: Some(300),
                made_input_tokens: Some(299 + i),
                asked_output_tokens: Some(40),
                ..IterationRecord::from_measurement(&format!("made prompt {i}"), job, &m, None, None)
            };
            (record, m)
        })
        .collect();
    store.insert_iterations(id, &rows, PromptsKept::of(&plan)).await.unwrap();
    let back = store.run_iterations(ws, id).await.unwrap();
    assert_eq!(back, rows.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>());
    assert_eq!(
        (back[1].prompt.as_str(), back[1].cached_tokens, back[1].made_input_tokens),
        ("made prompt 1", Some(16), Some(300))
    );
    assert_eq!(back[1].server_first_output_ms, Some(12.5), "the endpoint's own time to first output, kept");
    assert_eq!(store.get_run(ws, id).await.unwrap().prompt_tokenizer, None, "none until the run says");
    let used = latency_guard::model::PromptTokenizer::Estimate { vocabulary: "o200k_base".into() };
    store.set_run_prompt_tokenizer(id, &used).await.unwrap();
    assert_eq!(store.get_run(ws, id).await.unwrap().prompt_tokenizer, Some(used), "the report can say which it was");
}

async fn share_links_belong_to_one_report_of_one_workspace(db: &TestDb) {
    use latency_guard::model::RunId;
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let other = workspace(store, "owner-b").await;
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let plan = run_plan(&connector, &["p"], 1, 0, 8);
    let run = RunId::new_random();
    store.create_run(ws, run, &plan, &connector, "replica", 10).await.unwrap();

    assert!(matches!(store.share_report(other, run, "h-other", 20).await, Err(StoreError::NotFound)));
    assert_eq!(store.share_of(run).await.unwrap(), None, "a refused share leaves nothing behind");
    store.share_report(ws, run, "h-1", 20).await.unwrap();
    assert_eq!(store.shared_since(ws, run).await.unwrap(), Some(20));
    assert_eq!(store.shared_since(other, run).await.unwrap(), None, "another workspace does not see it");
    store.share_report(ws, run, "h-2", 30).await.unwrap();
    let share = store.share_of(run).await.unwrap().unwrap();
    assert_eq!((share.workspace_id, share.token_hash.as_str()), (ws, "h-2"), "a new link replaces the old");
    assert!(!store.revoke_share(other, run).await.unwrap());
    assert!(store.revoke_share(ws, run).await.unwrap());
    assert!(!store.revoke_share(ws, run).await.unwrap());
    assert_eq!(store.share_of(run).await.unwrap(), None);

    // Rename and delete: only within the workspace, never a running run, and the share goes with the report.
    assert!(matches!(store.rename_run(other, run, "x").await, Err(StoreError::NotFound)));
    store.rename_run(ws, run, "Renamed").await.unwrap();
    assert_eq!(store.get_run(ws, run).await.unwrap().title, "Renamed");
    assert!(!store.delete_run(ws, run).await.unwrap(), "a running run is not deleted");
    // How the run ended travels with it, the connections it opened ahead and its client's load included.
    let opened = latency_guard::model::OpenedAhead { asked: 64, kept: 63, http2: false };
    let client_load = latency_guard::model::ClientLoad {
        workers: 2,
        cores: 2.0,
        window_ms: 250.0,
        windows: 8,
        busy_windows: 3,
        busy_share: 0.625,
        cpu_share: Some(0.5),
        wakes: 400,
        wake_lag_p99_ms: 1.5,
        wake_lag_max_ms: 12.25,
    };
    let mut fingerprint = latency_guard::model::Fingerprint::default();
    fingerprint
        .add(&latency_guard::model::AnsweredBy { model: Some("gpt-4o-mini-2024-07-18".into()), ..Default::default() });
    let headline = latency_guard::model::RunHeadline {
        measured: 200,
        succeeded: 198,
        output_tok_per_sec: Some(435.5),
        requests_per_sec: Some(6.8),
        ttft_p95_ms: Some(124.25),
    };
    let ending = RunEnding {
        stream_options_rejected: true,
        opened_ahead: Some(opened),
        client_load: Some(client_load.clone()),
        fingerprint: Some(fingerprint.clone()),
        headline: Some(headline),
        ..completed()
    };
    store.finish_run(run, &ending, 40).await.unwrap();
    let ended = store.get_run(ws, run).await.unwrap();
    assert_eq!(
        (ended.opened_ahead, ended.stream_options_rejected, ended.finished_at_ms, ended.client_load),
        (Some(opened), true, Some(40), Some(client_load))
    );
    assert_eq!(ended.fingerprint, Some(fingerprint), "what answered is kept with the run");
    store.share_report(ws, run, "h-3", 50).await.unwrap();
    assert!(matches!(store.delete_run(other, run).await, Err(StoreError::NotFound)));
    assert!(store.delete_run(ws, run).await.unwrap());
    assert!(matches!(store.get_run(ws, run).await, Err(StoreError::NotFound)));
    assert_eq!(store.share_of(run).await.unwrap(), None, "its share link is gone too");
    assert!(store.run_iterations_from(ws, run, 0).await.is_err());
}

async fn iteration_pages_from_sql_match_the_table_definition(db: &TestDb) {
    use latency_guard::model::{
        ErrorClass, IterationError, IterationRecord, Measurement, RunId, Timeline, TokenSource,
    };
    use latency_guard::runs::report::{table_page, SortKey, TableQuery};
    let store = &db.store;
    let ws = workspace(store, "owner-a").await;
    let other = workspace(store, "owner-b").await;
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let plan = run_plan(&connector, &["a", "b, \"quoted\"", "c"], 41, 2, 64);
    let id = RunId::new_random();
    store.create_run(ws, id, &plan, &connector, "replica-1", 5_000).await.unwrap();
    // Ties in every column, failures without TTFT or tokens, and successes without reported tokens.
    let rows: Vec<(IterationRecord, Measurement)> = plan
        .jobs()
        .map(|job| {
            let failed = job.seq % 9 == 4;
            let m = Measurement {
                streamed: true,
                status: Some(if failed { 502 } else { 200 }),
                timeline: Timeline {
                    first_token_us: (!failed).then_some(1_000 * (job.seq % 7)),
                    end_us: 10_000 * (job.seq % 11),
                    ..Timeline::default()
                },
                tokens_in: Some(7),
                tokens_out: (!failed && job.seq % 5 != 0).then_some(job.seq % 4),
                token_source: TokenSource::Reported,
                finish_reason: Some("stop".into()),
                error: failed.then(|| IterationError::new(ErrorClass::Http, Some(502), "bad gateway")),
                ..Measurement::blank()
            };
            let prompt = &plan.prompts[job.prompt_index as usize];
            (IterationRecord::from_measurement(prompt, job, &m, None, None), m)
        })
        .collect();
    store.insert_iterations(id, &rows, PromptsKept::InPlan).await.unwrap();
    let all = store.run_iterations(ws, id).await.unwrap();
    assert_eq!(all.len(), 125, "2 warm-ups and 41 × 3 measured");
    for sort in [SortKey::Seq, SortKey::Ttft, SortKey::Total, SortKey::TokensOut] {
        for descending in [false, true] {
            for errors_only in [false, true] {
                for (page_size, page) in [(100, 0), (100, 1), (7, 0), (7, 3), (7, 18), (7, 99), (1_000_000, 0)] {
                    let query = TableQuery { sort, descending, errors_only, page, page_size };
                    let from_sql = store.iteration_page(ws, id, &query).await.unwrap();
                    assert_eq!(from_sql, table_page(&all, &query), "{query:?}");
                }
            }
        }
    }
    let failures = store.iteration_page(ws, id, &TableQuery { errors_only: true, ..TableQuery::default() }).await;
    assert_eq!(failures.unwrap().matching, all.iter().filter(|r| r.error.is_some()).count());
    assert!(matches!(store.iteration_page(other, id, &TableQuery::default()).await, Err(StoreError::NotFound)));
}

/// A probe's finding is kept with the connector, for this workspace only, until its base URL changes.
async fn a_probed_engine_stays_with_its_connector_until_the_server_changes(db: &TestDb) {
    use latency_guard::model::ServerKind;
    let store = &db.store;
    let (ws, other) = (workspace(store, "owner-a").await, workspace(store, "owner-b").await);
    let created = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1_000).await.unwrap();
    assert_eq!((created.server_kind, created.probed_at_ms), (None, None));
    store.record_probe(ws, created.id, Some(ServerKind::Vllm), 1_500).await.unwrap();
    assert!(matches!(store.record_probe(other, created.id, None, 1_600).await, Err(StoreError::NotFound)));
    let probed = store.get_connector(ws, created.id).await.unwrap();
    assert_eq!((probed.server_kind, probed.probed_at_ms), (Some(ServerKind::Vllm), Some(1_500)));
    let renamed = ConnectorInput { name: "Renamed".into(), api_key: None, ..input("x") };
    let same_server = store.update_connector(ws, created.id, &valid(&renamed), sealer(), 2_000).await.unwrap();
    assert_eq!(same_server.server_kind, Some(ServerKind::Vllm));
    // Another origin takes the key entered again (a stored key goes only where it was entered for).
    let moved =
        ConnectorInput { base_url: "https://other.example/v1".into(), api_key: Some("sk-other".into()), ..renamed };
    let elsewhere = store.update_connector(ws, created.id, &valid(&moved), sealer(), 3_000).await.unwrap();
    assert_eq!((elsewhere.server_kind, elsewhere.probed_at_ms), (None, None));
    store.record_probe(ws, created.id, None, 4_000).await.unwrap();
    let told_none = store.get_connector(ws, created.id).await.unwrap();
    assert_eq!((told_none.server_kind, told_none.probed_at_ms), (None, Some(4_000)));
}

async fn ab_tests_keep_progress_and_report_and_their_orphans_are_interrupted(db: &TestDb) {
    use latency_guard::lab::model::AbPlanInput;
    use latency_guard::lab::report::{AbEndpoint, AbReport};
    use latency_guard::lab::store::NewAbTest;
    use latency_guard::model::{AbTestId, RunStatus};
    let store = &db.store;
    let (ws, other) = (workspace(store, "owner-a").await, workspace(store, "owner-b").await);
    let baseline = store.create_connector(ws, &valid(&input("Spec off")), false, sealer(), 1).await.unwrap();
    let candidate = store.create_connector(ws, &valid(&input("Spec on")), false, sealer(), 1).await.unwrap();
    let plan = serde_json::from_value::<AbPlanInput>(serde_json::json!({"prompts": ["a"], "iterations": 2}))
        .unwrap()
        .validate()
        .unwrap();
    let new = |owner| NewAbTest {
        id: AbTestId::new_random(),
        plan: &plan,
        arms: [(baseline.id, "Spec off"), (candidate.id, "Spec on")],
        owner,
    };
    let test = new("process-1");
    let created = store.create_ab_test(ws, &test, 1_000).await.unwrap();
    assert_eq!((created.status, created.done_requests, created.total_requests), (RunStatus::Running, 0, 6));
    assert_eq!((created.baseline_name.as_str(), created.candidate_name.as_str()), ("Spec off", "Spec on"));
    assert!(matches!(store.job(other, test.id).await, Err(StoreError::NotFound)), "another workspace's");
    store.set_ab_progress(test.id, 4, 1_500).await.unwrap();
    assert!(!store.delete_job(ws, test.id).await.unwrap(), "a running test is not deleted");
    assert!(store.request_job_cancel(ws, test.id).await.unwrap());
    assert_eq!(
        store.heartbeat_jobs::<AbTestId>("process-1", 2_000).await.unwrap(),
        [test.id],
        "the cancel reaches its owner"
    );
    assert_eq!(store.heartbeat_jobs::<AbTestId>("process-2", 2_000).await.unwrap(), []);
    let endpoint = |name: &str| AbEndpoint {
        name: name.into(),
        base_url: "http://h/v1".into(),
        model: "m".into(),
        server_kind: None,
    };
    let report = AbReport {
        title: plan.title.clone(),
        created_at: "2026-11-23T00:00:01Z".into(),
        baseline: endpoint("Spec off"),
        candidate: endpoint("Spec on"),
        plan: plan.clone(),
        cells: vec![],
        notes: vec!["how".into()],
    };
    store.finish_job(test.id, RunStatus::Cancelled, Some(&report), None, 3_000).await.unwrap();
    store.finish_job(test.id, RunStatus::Completed, None, None, 4_000).await.unwrap();
    let (summary, stored_plan, stored_report) = store.job_record(ws, test.id).await.unwrap();
    assert_eq!(
        (summary.status, summary.done_requests, summary.finished_at_ms),
        (RunStatus::Cancelled, 4, Some(3_000)),
        "an ended test stays ended"
    );
    assert_eq!((stored_plan, stored_report), (plan.clone(), Some(report)));

    // A test whose process went silent is interrupted; a live one is not.
    let silent = new("process-gone");
    store.create_ab_test(ws, &silent, 5_000).await.unwrap();
    let alive = new("process-1");
    store.create_ab_test(ws, &alive, 5_000).await.unwrap();
    store.heartbeat_jobs::<AbTestId>("process-1", 9_000).await.unwrap();
    assert_eq!(store.interrupt_orphaned_jobs::<AbTestId>(8_000, 9_500).await.unwrap(), 1);
    assert_eq!(store.job(ws, silent.id).await.unwrap().status, RunStatus::Interrupted);
    assert_eq!(store.job(ws, alive.id).await.unwrap().status, RunStatus::Running);
    let listed: Vec<AbTestId> = store.list_jobs::<AbTestId>(ws).await.unwrap().iter().map(|t| t.id).collect();
    assert_eq!(listed.len(), 3);
    assert!(store.list_jobs::<AbTestId>(other).await.unwrap().is_empty());
    assert!(store.delete_job(ws, test.id).await.unwrap());
    assert!(matches!(store.job(ws, test.id).await, Err(StoreError::NotFound)));
}

async fn contact_links_confirm_once_and_only_the_newest_works(db: &TestDb) {
    let store = &db.store;
    let a = workspace(store, "owner-a").await;
    let b = workspace(store, "owner-b").await;
    store.insert_contact_verification(a, "old@example.com", "hash-old", 1_000, 10_000).await.unwrap();
    store.insert_contact_verification(a, "new@example.com", "hash-new", 2_000, 10_000).await.unwrap();
    store.insert_contact_verification(b, "b@example.com", "hash-b", 2_000, 3_000).await.unwrap();
    assert_eq!(store.confirm_contact("hash-old", 5_000).await.unwrap(), None, "a newer link replaced it");
    assert_eq!(store.owner_contact(a).await.unwrap(), None, "nothing confirmed yet");
    assert_eq!(store.confirm_contact("hash-new", 5_000).await.unwrap(), Some((a, "new@example.com".into())));
    assert_eq!(store.confirm_contact("hash-new", 5_001).await.unwrap(), None, "once");
    assert_eq!(store.owner_contact(a).await.unwrap().as_deref(), Some("new@example.com"));
    assert_eq!(store.confirm_contact("hash-b", 3_000).await.unwrap(), None, "expired");
    assert_eq!(store.owner_contact(b).await.unwrap(), None, "another workspace is untouched");
    store.clear_owner_contact(a).await.unwrap();
    assert_eq!(store.owner_contact(a).await.unwrap(), None);
    assert!(store.purge_expired_auth(20_000).await.unwrap() >= 1, "expired links are purged");
}

async fn wallet_login_nonces_are_used_once_before_they_expire(db: &TestDb) {
    use latency_guard::account::store::NonceUse;
    let store = &db.store;
    store.issue_siwe_nonce("nonce-fresh-0001", 1_000, 601_000).await.unwrap();
    store.issue_siwe_nonce("nonce-stale-0002", 1_000, 2_000).await.unwrap();
    assert_eq!(store.consume_siwe_nonce("nonce-fresh-0001", 5_000).await.unwrap(), NonceUse::Consumed);
    assert_eq!(store.consume_siwe_nonce("nonce-fresh-0001", 6_000).await.unwrap(), NonceUse::AlreadyUsed);
    assert_eq!(store.consume_siwe_nonce("nonce-stale-0002", 2_000).await.unwrap(), NonceUse::Expired);
    assert_eq!(store.consume_siwe_nonce("never-issued-003", 2_000).await.unwrap(), NonceUse::Unknown);
    assert!(store.issue_siwe_nonce("nonce-fresh-0001", 7_000, 9_000).await.is_err(), "a nonce is never issued twice");
    assert!(store.purge_expired_auth(700_000).await.unwrap() >= 2, "expired nonces are purged");
    assert_eq!(store.consume_siwe_nonce("nonce-stale-0002", 2_000).await.unwrap(), NonceUse::Unknown);
}

/// A shared token bucket: a burst, then one call per refill, the wait said; buckets are per key, and quiet ones
/// are forgotten (full again).
async fn rate_buckets_give_a_burst_then_one_per_refill_with_the_wait_said(db: &TestDb) {
    use latency_guard::rate_limit::Budget;
    use std::time::Duration;
    let store = &db.store;
    let budget = Budget { burst: 3.0, refill: Duration::from_secs(2) };
    let t0 = 1_000_000;
    for _ in 0..3 {
        assert_eq!(store.take_rate_token("a", budget, t0).await.unwrap(), Ok(()));
    }
    assert_eq!(store.take_rate_token("a", budget, t0).await.unwrap(), Err(Duration::from_secs(2)));
    assert_eq!(store.take_rate_token("a", budget, t0 + 1_000).await.unwrap(), Err(Duration::from_secs(1)));
    assert_eq!(store.take_rate_token("a", budget, t0 + 2_000).await.unwrap(), Ok(()), "one more after a refill");
    assert_eq!(store.take_rate_token("b", budget, t0 + 2_000).await.unwrap(), Ok(()), "another key is not held");
    assert_eq!(
        store.take_rate_token("a", budget, t0 - 60_000).await.unwrap(),
        Err(Duration::from_secs(2)),
        "a clock going back refills nothing"
    );
    for _ in 0..3 {
        assert_eq!(
            store.take_rate_token("a", budget, t0 + 100_000).await.unwrap(),
            Ok(()),
            "a quiet spell refills to the burst"
        );
    }
    assert_eq!(store.forget_idle_rate_buckets(t0 + 2_000 + 24 * 3_600_000 + 1).await.unwrap(), 1, "b was idle a day");
}

/// A workspace's quota holds within the insert's transaction: runs running at once, and the requests its runs
/// hold; an ended run makes room for a new one, a deleted run for more requests; other workspaces are not counted.
async fn a_workspace_quota_admits_runs_within_its_limits_only(db: &TestDb) {
    use latency_guard::model::{RunId, RunStatus, WorkspaceQuota};
    let store = &db.store;
    let (ws, other) = (workspace(store, "quota-a").await, workspace(store, "quota-b").await);
    let connector = store.create_connector(ws, &valid(&input("Gateway")), false, sealer(), 1).await.unwrap();
    let plan = run_plan(&connector, &["a", "b"], 2, 0, 8); // 4 requests
    let quota = WorkspaceQuota { max_running_runs: 1, max_stored_requests: 10 };
    let start = |workspace| {
        let (plan, connector) = (&plan, &connector);
        async move { store.create_run_within(workspace, RunId::new_random(), plan, (connector, "r"), Some(&quota), 1).await }
    };
    let first = start(ws).await.unwrap();
    let refused = start(ws).await.unwrap_err();
    assert!(refused.to_string().contains("workspace-max-running-runs"), "{refused}");
    assert!(start(other).await.is_ok(), "another workspace has its own count");
    store.finish_run(first.id, &completed(), 2).await.unwrap();
    let second = start(ws).await.unwrap();
    store.finish_run(second.id, &completed(), 3).await.unwrap();
    let full = start(ws).await.unwrap_err();
    assert!(full.to_string().contains("holds 8 measured requests and this run plans 4"), "{full}");
    assert!(store.delete_run(ws, first.id).await.unwrap());
    assert!(start(ws).await.is_ok(), "a deleted run made room");
    let counted: Vec<RunStatus> = store.list_runs(ws).await.unwrap().iter().map(|r| r.status).collect();
    assert_eq!(counted.len(), 2, "refused runs left nothing behind: {counted:?}");
}

both_backends!(
    a_workspace_quota_admits_runs_within_its_limits_only,
    rate_buckets_give_a_burst_then_one_per_refill_with_the_wait_said,
    contact_links_confirm_once_and_only_the_newest_works,
    wallet_login_nonces_are_used_once_before_they_expire,
    ab_tests_keep_progress_and_report_and_their_orphans_are_interrupted,
    a_probed_engine_stays_with_its_connector_until_the_server_changes,
    iteration_pages_from_sql_match_the_table_definition,
    share_links_belong_to_one_report_of_one_workspace,
    connector_crud_round_trips,
    update_keeps_stored_secrets_when_omitted_and_clears_on_request,
    a_rejected_update_changes_nothing,
    workspaces_cannot_touch_each_others_connectors,
    credentials_are_sealed_at_rest_and_bound_to_their_row,
    login_tokens_work_once_and_expire,
    sessions_expire_and_end_on_logout,
    ensure_workspace_is_idempotent,
    runs_store_iterations_in_order_and_running_runs_become_interrupted,
    a_workload_runs_rows_keep_their_prompts_and_asked_lengths,
    a_missing_figure_then_a_present_one_are_both_stored,
);

#[tokio::test]
async fn a_sqlite_url_naming_a_new_file_creates_it_with_its_folders() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/folder/app.db");
    let store = Store::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    workspace(&store, "owner").await;
    store.close().await;
    assert!(path.exists(), "sqlite:///path/new.db is created, not refused with \"unable to open database file\"");
    let read_only = Store::connect(&format!("sqlite://{}?mode=ro", dir.path().join("absent.db").display())).await;
    assert!(read_only.is_err(), "an explicit mode is kept as given");
}

/// How a run that sent everything ends, with nothing else to say.
fn completed() -> RunEnding {
    RunEnding {
        status: latency_guard::model::RunStatus::Completed,
        failure: None,
        stream_options_rejected: false,
        opened_ahead: None,
        client_load: None,
        fingerprint: None,
        headline: None,
    }
}
