//! What a workspace keeps at most, on SQLite and PostgreSQL: with a kind three short of its limit, ten saves at
//! once keep exactly three and refuse seven, naming the limit — for connectors, benchmark sets, saved workloads,
//! Guard schedules and API tokens (datasets: `datasets.rs`, through uploads). Counted and inserted in one
//! transaction; a count read first and an insert after would let every one of the ten through.

use std::future::Future;
use std::pin::Pin;

use crate::common::guard_rig::Rig;
use crate::common::TestDb;
use latency_guard::guard::model::{BenchmarkSetInput, Cadence, ScheduleInput, SetPrompt};
use latency_guard::model::{
    ApiTokenId, ApiTokenState, ApiTokenView, ConnectorInput, Holding, LengthDist, TokenScope, Workload, WorkspaceId,
};
use latency_guard::secrets::SecretBox;
use latency_guard::store::{Store, StoreError};
use latency_guard::workload::model::WorkloadInput;

/// One save of `kind`, numbered `n`.
type Save = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

/// What one save of each kind needs beside the store.
#[derive(Clone)]
struct Saver {
    store: Store,
    ws: WorkspaceId,
    sealer: SecretBox,
    /// A schedule's settings, saved again under other names.
    schedule: ScheduleInput,
}

impl Saver {
    fn save(&self, kind: Holding, n: u32) -> Save {
        let this = self.clone();
        Box::pin(async move {
            let (store, ws) = (&this.store, this.ws);
            match kind {
                Holding::Connectors => {
                    let input = ConnectorInput {
                        name: format!("endpoint {n}"),
                        base_url: "http://127.0.0.1:9/v1".into(),
                        model: "m".into(),
                        ..Default::default()
                    };
                    store.create_connector(ws, &input.validate().unwrap(), false, &this.sealer, 0).await.map(drop)
                }
                Holding::BenchmarkSets => {
                    let input = BenchmarkSetInput {
                        name: format!("set {n}"),
                        prompts: vec![SetPrompt { text: "hi".into() }],
                        system_prompt: None,
                        max_tokens: 8,
                    };
                    store.create_set(ws, &input.validate().unwrap(), 0).await.map(drop)
                }
                Holding::Workloads => {
                    let spec = Workload::Synthetic {
                        input: LengthDist::fixed(10),
                        output: LengthDist::fixed(3),
                        requests: 4,
                        seed: 7,
                    };
                    let input = WorkloadInput { name: format!("workload {n}"), spec }.validate().unwrap();
                    store.create_workload(ws, &input, 0).await.map(drop)
                }
                Holding::Schedules => {
                    let input = ScheduleInput { name: format!("schedule {n}"), ..this.schedule.clone() };
                    let secret = latency_guard::guard::notify::new_webhook_secret();
                    store.create_schedule(ws, &input.validate().unwrap(), &secret, &this.sealer, 0).await.map(drop)
                }
                Holding::ApiTokens => {
                    let view = ApiTokenView {
                        id: ApiTokenId::new_random(),
                        name: format!("token {n}"),
                        hint: "lgt_abcd…".into(),
                        created_at_ms: 0,
                        expires_at_ms: None,
                        last_used_at_ms: None,
                        revoked_at_ms: None,
                        state: ApiTokenState::Active,
                        scope: TokenScope::Read,
                    };
                    store.insert_api_token(ws, &view, &format!("hash-{n}-{}", view.id)).await
                }
                Holding::Datasets => unreachable!("datasets are uploaded: datasets.rs"),
            }
        })
    }
}

async fn saves_at_once_never_pass_a_workspaces_limit(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let connector = rig.connector("http://127.0.0.1:9/v1").await;
    let set = rig.set(1).await;
    let schedule = rig.schedule("template", &set, connector, Cadence::Daily, false).await.input;
    let (store, ws) = (db.store.clone(), rig.ws);
    let saver = Saver { store: store.clone(), ws, sealer: rig.sealer.clone(), schedule };
    for kind in Holding::ALL.into_iter().filter(|k| *k != Holding::Datasets) {
        let most = kind.most();
        let mut n = store.count_held(ws, kind).await.unwrap() as u32;
        while n < most - 3 {
            saver.save(kind, n).await.unwrap();
            n += 1;
        }
        let at_once: Vec<_> = (0..10).map(|i| tokio::spawn(saver.save(kind, 10_000 + i))).collect();
        let mut refused = Vec::new();
        for save in at_once {
            if let Err(e) = save.await.unwrap() {
                refused.push(e);
            }
        }
        assert_eq!(store.count_held(ws, kind).await.unwrap(), u64::from(most), "{kind:?}: kept exactly the limit");
        assert_eq!(refused.len(), 7, "{kind:?}: {refused:?}");
        for e in refused {
            let StoreError::Invalid(why) = e else { panic!("{kind:?}: {e}") };
            assert_eq!(why.reason, kind.admits_one_more(u64::from(most)).unwrap_err().reason, "{kind:?}");
        }
    }
}

both_backends!(saves_at_once_never_pass_a_workspaces_limit);
