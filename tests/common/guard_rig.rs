//! A Guard test rig: a workspace, sealer, run manager and Guard over one store, on one fixed clock, with
//! helpers to make connectors, sets, schedules and baselines against the simulator.

use latency_guard::clock::{Clock, FixedClock};
use latency_guard::config::Secret;
use latency_guard::engine::HttpClient;
use latency_guard::guard::judge::{observe, streamed_samples, GUARD_TEMPERATURE};
use latency_guard::guard::model::{
    BenchmarkSet, BenchmarkSetInput, Cadence, Metric, Op, Schedule, ScheduleInput, SetPrompt, Severity, Threshold,
};
use latency_guard::guard::service::{Guard, GuardOptions};
use latency_guard::guard::store::NewBaseline;
use latency_guard::model::{Agent, ConnectorId, ConnectorInput, LoadMode, RunPlanInput, RunStatus, WorkspaceId};
use latency_guard::runs::service::RunManager;
use latency_guard::secrets::SecretBox;
use latency_guard::sim::{self, Delay, SimConfig, SimHandle};
use latency_guard::store::Store;
use std::sync::Arc;
use std::time::Duration;

pub const T0: i64 = 1_800_000_000_000;
pub const MINUTE: i64 = 60_000;

pub async fn simulator(total_ms: u64) -> SimHandle {
    let config = SimConfig {
        ttft: Delay::Normal { mean: Duration::from_millis(total_ms), sd: Duration::from_millis(total_ms / 20 + 1) },
        itl: Delay::Fixed(Duration::from_millis(0)),
        tokens: 4,
        ..Default::default()
    };
    sim::spawn_local(config).await.unwrap()
}

/// A workspace, a sealer, a run manager and a Guard over `store`, all on one fixed clock at `T0`.
pub struct Rig {
    pub store: Store,
    pub sealer: SecretBox,
    pub clock: Arc<FixedClock>,
    pub runs: RunManager,
    pub guard: Guard,
    pub ws: WorkspaceId,
}

impl Rig {
    pub async fn new(store: &Store, limit: u32) -> Self {
        Self::with_mailer(store, limit, None).await
    }

    /// The same, sending alert e-mail through `mailer`.
    pub async fn with_mailer(store: &Store, limit: u32, mailer: Option<latency_guard::guard::notify::Mailer>) -> Self {
        let sealer = SecretBox::new(&Secret::generate());
        let clock = Arc::new(FixedClock::at(T0));
        let runs = RunManager::new(store.clone(), sealer.clone(), HttpClient::new().unwrap(), clock.clone());
        let guard = guard(store, &runs, &clock, limit, mailer);
        let (ws, _) = store.ensure_workspace("owner", "Owner", T0).await.unwrap();
        Self { store: store.clone(), sealer, clock, runs, guard, ws: ws.id }
    }

    pub async fn connector(&self, base_url: &str) -> ConnectorId {
        let input = ConnectorInput {
            name: "sim".into(),
            base_url: base_url.into(),
            model: "sim-model".into(),
            ..Default::default()
        };
        let valid = input.validate().unwrap();
        self.store.create_connector(self.ws, &valid, false, &self.sealer, self.clock.now_ms()).await.unwrap().id
    }

    pub async fn repoint(&self, id: ConnectorId, base_url: &str) {
        let input = ConnectorInput {
            name: "sim".into(),
            base_url: base_url.into(),
            model: "sim-model".into(),
            ..Default::default()
        };
        self.store
            .update_connector(self.ws, id, &input.validate().unwrap(), &self.sealer, self.clock.now_ms())
            .await
            .unwrap();
    }

    pub async fn set(&self, prompts: usize) -> BenchmarkSet {
        let input = BenchmarkSetInput {
            name: "Checkout prompts".into(),
            prompts: (0..prompts).map(|i| SetPrompt { text: format!("prompt {i}") }).collect(),
            system_prompt: None,
            max_tokens: 8,
        };
        self.store.create_set(self.ws, &input.validate().unwrap(), self.clock.now_ms()).await.unwrap()
    }

    /// A schedule alerting when p95 rises 50 % (significantly), with a webhook to a closed port.
    pub async fn schedule(
        &self,
        name: &str,
        set: &BenchmarkSet,
        connector: ConnectorId,
        cadence: Cadence,
        enabled: bool,
    ) -> Schedule {
        self.schedule_notifying(name, set, connector, cadence, enabled, Some("http://127.0.0.1:9/hook"), None).await
    }

    /// The same, telling `webhook_url` and `email`, signing with a fresh secret.
    #[allow(clippy::too_many_arguments, reason = "a test helper's knobs")]
    pub async fn schedule_notifying(
        &self,
        name: &str,
        set: &BenchmarkSet,
        connector: ConnectorId,
        cadence: Cadence,
        enabled: bool,
        webhook_url: Option<&str>,
        email: Option<&str>,
    ) -> Schedule {
        let input = ScheduleInput {
            name: name.into(),
            set_id: set.id,
            connector_id: connector,
            enabled,
            cadence,
            notify: latency_guard::guard::model::Notify {
                webhook_url: webhook_url.map(String::from),
                email: email.map(String::from),
                ..Default::default()
            },
            thresholds: vec![Threshold {
                metric: Metric::P95Ms,
                op: Op::PctIncrease,
                value: 50.0,
                severity: Severity::Warn,
                test: None,
            }],
            alpha: 0.05,
            require_significance: true,
            workload_id: None,
            stream: false,
            policy: Default::default(),
        };
        self.store
            .create_schedule(
                self.ws,
                &input.validate().unwrap(),
                &latency_guard::guard::notify::new_webhook_secret(),
                &self.sealer,
                self.clock.now_ms(),
            )
            .await
            .unwrap()
    }

    /// A 15-minute schedule of `set` on `connector` (as [`Rig::schedule`]) under `policy`.
    pub async fn schedule_with_policy(
        &self,
        set: &BenchmarkSet,
        connector: ConnectorId,
        policy: latency_guard::guard::model::AlertPolicy,
    ) -> Schedule {
        let created = self.schedule("checkout", set, connector, Cadence::FifteenMinutes, true).await;
        let input = ScheduleInput { policy, ..created.input.clone() }.validate().unwrap();
        self.store.update_schedule(self.ws, created.id, &input, &self.sealer, self.clock.now_ms()).await.unwrap()
    }

    /// Points `connector` at `url`, ticks (one schedule due), and moves the clock 15 minutes on.
    pub async fn tick_against(
        &self,
        connector: ConnectorId,
        url: &str,
    ) -> latency_guard::guard::model::ScheduleOutcome {
        self.repoint(connector, url).await;
        let outcome = self.guard.tick().await.unwrap().ran.remove(0);
        self.clock.advance(15 * MINUTE);
        outcome
    }

    pub async fn next_run_at(&self, s: &Schedule) -> i64 {
        self.store.get_schedule(self.ws, s.id).await.unwrap().next_run_at_ms
    }

    /// Pins as baseline a 5-iteration run of `set` on `connector`.
    pub async fn pin(&self, set: &BenchmarkSet, connector: ConnectorId) {
        self.pin_as(set, connector, false).await;
    }

    /// Pins as baseline a 5-iteration run of `set` on `connector`, streamed or not, as Guard runs a set: one at a
    /// time, at Guard's temperature.
    pub async fn pin_as(&self, set: &BenchmarkSet, connector: ConnectorId, stream: bool) {
        let agent = Agent { name: "baseline".into(), system_prompt: None, tools: vec![], token_budget: set.max_tokens };
        let prompts = set.prompts.iter().map(|p| p.text.clone()).collect();
        let one = LoadMode::Closed { concurrency: 1 };
        let input = RunPlanInput {
            stream,
            temperature: GUARD_TEMPERATURE,
            ..RunPlanInput::new(connector, agent, prompts, 5, one)
        };
        let run = self.runs.run_to_end(self.ws, input).await.unwrap();
        assert_eq!(run.status, RunStatus::Completed);
        let records = self.store.run_iterations(self.ws, run.id).await.unwrap();
        let (total_ms, summary) = observe(&records);
        let streamed = streamed_samples(&records);
        let new = NewBaseline {
            set_id: set.id,
            connector_id: connector,
            workload: None,
            run_id: run.id,
            total_ms,
            summary,
            streamed,
        };
        self.store.pin_baseline(self.ws, &new, self.clock.now_ms()).await.unwrap();
    }

    /// A schedule of another workspace, `owner`'s (made when new), over a connector to `base_url` and a set of one
    /// prompt, like `template` otherwise, telling `webhook_url`; sealed with this rig's sealer, so this rig's Guard
    /// runs it.
    pub async fn schedule_elsewhere(
        &self,
        owner: &str,
        base_url: &str,
        template: &ScheduleInput,
        webhook_url: Option<&str>,
    ) -> (WorkspaceId, Schedule) {
        let now = self.clock.now_ms();
        let (ws, _) = self.store.ensure_workspace(owner, owner, now).await.unwrap();
        let connector = ConnectorInput {
            name: format!("{owner}'s endpoint"),
            base_url: base_url.into(),
            model: "sim-model".into(),
            ..Default::default()
        };
        let connector =
            self.store.create_connector(ws.id, &connector.validate().unwrap(), false, &self.sealer, now).await.unwrap();
        let set = BenchmarkSetInput {
            name: format!("{owner}'s prompts"),
            prompts: vec![SetPrompt { text: "hi".into() }],
            system_prompt: None,
            max_tokens: 8,
        };
        let set = self.store.create_set(ws.id, &set.validate().unwrap(), now).await.unwrap();
        let input = ScheduleInput {
            name: format!("{owner}'s schedule"),
            set_id: set.id,
            connector_id: connector.id,
            notify: latency_guard::guard::model::Notify {
                webhook_url: webhook_url.map(String::from),
                ..Default::default()
            },
            ..template.clone()
        };
        let secret = latency_guard::guard::notify::new_webhook_secret();
        let schedule =
            self.store.create_schedule(ws.id, &input.validate().unwrap(), &secret, &self.sealer, now).await.unwrap();
        (ws.id, schedule)
    }

    /// Webhook messages written for every schedule of the workspace.
    pub async fn outbox_rows(&self) -> usize {
        let mut n = 0;
        for s in self.store.list_schedules(self.ws).await.unwrap() {
            n += self.store.list_webhook_deliveries(self.ws, s.id, 100).await.unwrap().len();
        }
        n
    }
}

pub fn guard(
    store: &Store,
    runs: &RunManager,
    clock: &Arc<FixedClock>,
    limit: u32,
    mailer: Option<latency_guard::guard::notify::Mailer>,
) -> Guard {
    let options =
        GuardOptions { limit, parallelism: 4, public_base: "http://lg.test".into(), database_clock: false, mailer };
    Guard::new(store.clone(), runs.clone(), clock.clone(), options)
}
