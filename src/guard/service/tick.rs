//! One Guard tick: claim the due schedules (at most `limit`, oldest due first), run each one's benchmark set once
//! per prompt — non-streaming, temperature 0.2, one request at a time, as a regular run with its own report —
//! judge whether the run is valid, compare it with the baseline (the pinned run, or the pool of the schedule's
//! recent healthy evaluations: `pool`), apply the alert state machine, and record
//! the outcome on the schedule. A run that is not valid (unreachable endpoint, too many errors, too few samples)
//! is inconclusive; a schedule whose run cannot be made (deleted connector, a run that cannot start) is failed;
//! either way it was advanced by its claim and the tick goes on with the others. Run now is the same path for one
//! schedule. The process's evaluation slots are shared between workspaces (`fair_share`); the in-process loop
//! dispatches without waiting, so a long evaluation never holds the next due ones.

use futures::StreamExt;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

use super::observed::observe_run;
use super::schedule_page::HISTORY;
use super::why::why_it_breached;
use crate::clock::Clock;
use crate::guard::judge::{
    decide_run, guard_plan, heeded, judge_validity, measured_history, measured_key, pick_fairly, plan_alerts,
    pool_state, send_order_lag1, Channels, Finished, PoolState, Standing,
};
use crate::guard::model::{
    BaselineSource, EvaluationEnd, GuardSummary, InvalidRun, Notice, Op, PastEvaluation, Schedule, ScheduleOutcome,
    Validity,
};
use crate::guard::notify::{new_message_id, AlertMessage, MailSender, MailedAlert, Mailer};
use crate::guard::store::{Claim, WebhookNotice};
use crate::jobs::StartError;
use crate::model::{AlertId, RunId, RunPlanInput, RunStatus, ScheduleId, Workload, WorkspaceId};
use crate::runs::service::RunManager;
use crate::stats::serial::MIN_SERIAL_VALUES;
use crate::store::{Backend, Store, StoreError};

/// The longest an evaluation can take: a set's 100 prompts one at a time, each up to the 120 s request limit,
/// with room to spare. An evaluation running longer was abandoned by a stopped process.
pub const MAX_EVALUATION_MS: i64 = 4 * 3_600_000;

/// Due schedules a claim looks at to share the slots fairly: enough that one workspace's many due schedules do not
/// hide another's.
const FAIR_WINDOW: u32 = 500;

/// The evaluations this process runs now, by workspace, and a signal each time one ends.
#[derive(Default)]
struct Running {
    by_workspace: std::sync::Mutex<HashMap<WorkspaceId, usize>>,
    ended: tokio::sync::Notify,
}

impl Running {
    /// How many each workspace runs now.
    fn by_workspace(&self) -> HashMap<WorkspaceId, usize> {
        self.by_workspace.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Counts one more evaluation of `workspace` until the slot is dropped.
    fn take(self: &Arc<Self>, workspace: WorkspaceId) -> Slot {
        if let Ok(mut m) = self.by_workspace.lock() {
            *m.entry(workspace).or_default() += 1;
        }
        Slot { running: Arc::clone(self), workspace }
    }
}

/// One evaluation's place among those running; freed however its task ends.
struct Slot {
    running: Arc<Running>,
    workspace: WorkspaceId,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut m) = self.running.by_workspace.lock() {
            if let Some(n) = m.get_mut(&self.workspace) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    m.remove(&self.workspace);
                }
            }
        }
        self.running.ended.notify_one();
    }
}

/// What one tick did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TickReport {
    /// The tick's time, unix ms.
    pub at_ms: i64,
    /// Each schedule it ran, in claim order.
    pub ran: Vec<ScheduleOutcome>,
}

/// How Guard ticks.
#[derive(Debug, Clone)]
pub struct GuardOptions {
    /// Due schedules a tick claims at most.
    pub limit: u32,
    /// Schedules evaluated at once at most.
    pub parallelism: usize,
    /// The app's address, for links in alerts.
    pub public_base: String,
    /// Take "now" from the database (PostgreSQL), so replicas with drifting clocks agree on what is due; off,
    /// the injected clock decides (SQLite, and tests with a fixed clock).
    pub database_clock: bool,
    /// Sends alert e-mail; `None`: e-mail is off.
    pub mailer: Option<Mailer>,
}

/// The e-mail one evaluation asks for: its recipient and the alerts it opened.
/// The alert e-mail one evaluation asks for: each recipient with the alerts it opened.
type Mail = Vec<(String, Vec<MailedAlert>)>;

/// Runs ticks. Cheap to clone.
#[derive(Clone)]
pub struct Guard {
    store: Store,
    runs: RunManager,
    clock: Arc<dyn Clock>,
    options: Arc<GuardOptions>,
    instance: Arc<str>,
    hook_limit: super::hook_limit::HookLimit,
    mail: Option<MailSender>,
    running: Arc<Running>,
}

impl Guard {
    /// A Guard over the shared store, run manager and clock.
    pub fn new(store: Store, runs: RunManager, clock: Arc<dyn Clock>, options: GuardOptions) -> Self {
        let instance = format!("guard-{}", uuid::Uuid::new_v4()).into();
        let mail = options.mailer.clone().map(|mailer| MailSender::new(store.clone(), mailer, Arc::clone(&clock)));
        let running = Arc::default();
        Self { store, runs, clock, options: Arc::new(options), instance, hook_limit: Default::default(), mail, running }
    }

    /// Alert e-mail's sender, when e-mail is on (its outbox is retried by a loop of its own).
    pub fn mail(&self) -> Option<&MailSender> {
        self.mail.as_ref()
    }

    /// The budget of ticks asked for through the hook.
    pub fn hook_limit(&self) -> &super::hook_limit::HookLimit {
        &self.hook_limit
    }

    /// Marks failed the evaluations left running that started before `started_before_ms` (`i64::MAX`: all, at
    /// the start of the one process of an SQLite file).
    pub async fn fail_abandoned(&self, started_before_ms: i64) -> Result<(), StoreError> {
        let failed = self.store.fail_abandoned_evaluations(started_before_ms, self.clock.now_ms()).await?;
        if failed > 0 {
            tracing::warn!(failed, "guard evaluations left running by a stopped server were marked failed");
        }
        Ok(())
    }

    async fn now(&self) -> Result<i64, StoreError> {
        if self.options.database_clock && self.store.backend() == Backend::Postgres {
            self.store.database_now_ms().await
        } else {
            Ok(self.clock.now_ms())
        }
    }

    /// One tick: claims the due schedules and evaluates them, `parallelism` at a time across the process, each
    /// workspace within its share of those slots; returns when they have ended. First it closes the evaluations a
    /// stopped process left running (older than the longest an evaluation can take).
    pub async fn tick(&self) -> Result<TickReport, StoreError> {
        let started = std::time::Instant::now();
        let report = self.tick_once().await;
        crate::telemetry::counters().guard_tick(started.elapsed());
        report
    }

    /// The tick's evaluations start as slots free up, each workspace within its share of them
    /// ([`pick_fairly`]): one workspace's slow schedules never hold another's. It claims at most `limit` schedules
    /// in all and returns once the ones it started have ended.
    async fn tick_once(&self) -> Result<TickReport, StoreError> {
        let at_ms = self.now().await?;
        self.fail_abandoned(at_ms - MAX_EVALUATION_MS).await?;
        let mut started = futures::stream::FuturesUnordered::new();
        let mut ran: Vec<(usize, (ScheduleOutcome, Mail))> = Vec::new();
        let mut claimed = 0;
        loop {
            let room = (self.options.limit as usize).saturating_sub(claimed);
            // Each evaluation is a task of its own: it goes on while this one waits for the next claim (a
            // future left unpolled could hold SQLite's write lock that the claim waits for).
            for claim in self.claim_fairly(at_ms, room).await? {
                let (guard, slot, i) = (self.clone(), self.running.take(claim.workspace), claimed);
                started.push(tokio::spawn(async move {
                    let _slot = slot;
                    (i, guard.evaluate(claim).await)
                }));
                claimed += 1;
            }
            match started.next().await {
                Some(Ok(done)) => ran.push(done),
                Some(Err(e)) => tracing::error!(error = %e, "a guard evaluation's task failed"),
                None => break,
            }
        }
        if claimed > 0 {
            tracing::info!(claimed, "guard tick evaluated schedules");
        }
        ran.sort_by_key(|(i, _)| *i);
        let (outcomes, mail): (Vec<ScheduleOutcome>, Vec<Mail>) = ran.into_iter().map(|(_, pair)| pair).unzip();
        self.send_mail(mail).await;
        Ok(TickReport { at_ms, ran: outcomes })
    }

    /// Starts the due schedules that fit in the free slots, each workspace within its share, and returns without
    /// waiting for them: what the in-process loop does, so a long evaluation never holds the next due ones. Each
    /// evaluation sends its own e-mail when it ends. How many started.
    pub async fn dispatch(&self) -> Result<usize, StoreError> {
        let started = std::time::Instant::now();
        let at_ms = self.now().await?;
        self.fail_abandoned(at_ms - MAX_EVALUATION_MS).await?;
        let claims = self.claim_fairly(at_ms, self.options.limit as usize).await?;
        let count = claims.len();
        for claim in claims {
            let (guard, slot) = (self.clone(), self.running.take(claim.workspace));
            tokio::spawn(async move {
                let _slot = slot;
                let (_, mail) = guard.evaluate(claim).await;
                guard.send_mail(vec![mail]).await;
            });
        }
        crate::telemetry::counters().guard_tick(started.elapsed());
        Ok(count)
    }

    /// Waits until an evaluation this process runs ends (or returns at once when one ended since the last wait).
    pub async fn evaluation_ended(&self) {
        self.running.ended.notified().await;
    }

    /// Claims up to `room` due schedules for this process's free slots, in turns across workspaces.
    async fn claim_fairly(&self, at_ms: i64, room: usize) -> Result<Vec<Claim>, StoreError> {
        let slots = self.options.parallelism.max(1);
        let running = self.running.by_workspace();
        let free = slots.saturating_sub(running.values().sum()).min(room);
        if free == 0 {
            return Ok(Vec::new());
        }
        let pick = |due: &[WorkspaceId]| pick_fairly(due, &running, slots, free);
        self.store.claim_due_schedules_picked(at_ms, FAIR_WINDOW, &self.instance, pick).await
    }

    /// One message per recipient listing every alert this tick opened for them, written to the mail outbox and
    /// sent at once; a message the SMTP server refuses is retried from the outbox later. The alerts are in the
    /// feed whatever happens to the mail.
    async fn send_mail(&self, mail: Vec<Mail>) {
        let Some(sender) = &self.mail else { return };
        let mut by_recipient: Vec<(String, Vec<MailedAlert>)> = Vec::new();
        for (to, alerts) in mail.into_iter().flatten() {
            match by_recipient.iter_mut().find(|(r, _)| *r == to) {
                Some((_, all)) => all.extend(alerts),
                None => by_recipient.push((to, alerts)),
            }
        }
        if by_recipient.is_empty() {
            return;
        }
        for (to, alerts) in by_recipient {
            if let Err(e) = sender.queue(&to, &alerts).await {
                tracing::error!(error = %e, alerts = alerts.len(), "writing alert e-mail to the outbox failed");
            }
        }
        if let Err(e) = sender.deliver_due().await {
            tracing::error!(error = %e, "sending alert e-mail failed");
        }
    }

    /// Run now: the same evaluation for one schedule of `workspace`, whatever its due time or pause. `None` when
    /// that very instant was claimed already (a double press).
    pub async fn run_now(&self, workspace: WorkspaceId, id: ScheduleId) -> Result<Option<ScheduleOutcome>, StoreError> {
        let now = self.now().await?;
        match self.store.claim_schedule_now(workspace, id, now, &self.instance).await? {
            Some(claim) => {
                let (outcome, mail) = self.evaluate(claim).await;
                self.send_mail(vec![mail]).await;
                Ok(Some(outcome))
            }
            None => Ok(None),
        }
    }

    async fn evaluate(&self, claim: Claim) -> (ScheduleOutcome, Mail) {
        let schedule = self.store.get_schedule(claim.workspace, claim.schedule).await;
        let (end, measured_key) = match &schedule {
            Ok(schedule) => self.measure(&claim, schedule).await,
            Err(e) => {
                (EvaluationEnd::Failed { error: format!("the schedule could not be read: {e}"), run: None }, None)
            }
        };
        let now = self.clock.now_ms();
        let schedule = schedule.ok();
        let bodies = |notice: &Notice, alerts: &[AlertId]| match &schedule {
            Some(s) => {
                let url = s.input.notify.webhook_url.as_deref().unwrap_or_default();
                crate::guard::notify::bodies(s.input.notify.receiver, url, notice, alerts, |n| {
                    self.notice(s, &end, n, now)
                })
            }
            None => Vec::new(),
        };
        let webhook = schedule.as_ref().and_then(|s| s.input.notify.webhook_url.as_deref().map(|url| (url, s))).map(
            |(url, s)| WebhookNotice {
                url,
                receiver: s.input.notify.receiver,
                message_id: new_message_id,
                bodies: &bodies,
            },
        );
        let recipients = match &schedule {
            Some(s) if self.mail.is_some() => self.recipients(claim.workspace, s).await,
            _ => Vec::new(),
        };
        let channels = Channels { webhook: webhook.is_some(), email: !recipients.is_empty() };
        let verdict = PastEvaluation::of(end.status(), end.comparison().map(|(_, decision)| decision));
        let error = end.error();
        let finished = Finished {
            verdict: &verdict,
            breaches: end.breaches(),
            unmeasured: error.as_deref().filter(|_| end.status().unmeasured()),
        };
        let policy = schedule.as_ref().map(|s| s.input.policy).unwrap_or_default();
        let plan = |open: &[_], history: &[_], muting: &_| {
            plan_alerts(finished, Standing { history, open, policy: &policy, muting }, channels)
        };
        let changes =
            match self.store.finish_evaluation(&claim, &end, measured_key.as_deref(), plan, webhook, now).await {
                Ok(changes) => changes,
                Err(e) => {
                    tracing::error!(schedule = %claim.schedule, error = %e, "recording a guard evaluation failed");
                    Default::default()
                }
            };
        crate::telemetry::counters().evaluation(end.status().as_str());
        if let Err(e) = self.store.record_schedule_outcome(claim.schedule, end.status(), error.as_deref(), now).await {
            tracing::error!(schedule = %claim.schedule, error = %e, "recording a schedule's outcome failed");
        }
        if let Some(e) = &error {
            tracing::warn!(schedule = %claim.schedule, status = end.status().as_str(), error = %e, "guard evaluation could not measure");
        }
        // One e-mail item per notice — every threshold one evaluation breached is one incident, with all its
        // figures and why — for every recipient.
        let alerts: Vec<MailedAlert> = schedule
            .as_ref()
            .filter(|_| changes.email)
            .map(|s| {
                changes
                    .notices
                    .iter()
                    .map(|notice| {
                        let message = self.notice(s, &end, notice, now);
                        MailedAlert {
                            schedule_name: s.input.name.clone(),
                            text: message.full_text(),
                            report_url: message.link(),
                            opens: matches!(notice, Notice::Opened(_)),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mail: Mail = if alerts.is_empty() {
            Vec::new()
        } else {
            recipients.into_iter().map(|to| (to, alerts.clone())).collect()
        };
        let outcome = ScheduleOutcome {
            schedule_id: claim.schedule,
            evaluation_id: claim.evaluation,
            slot_at_ms: claim.slot_at,
            trigger: claim.trigger,
            status: end.status(),
            error,
            run_id: end.run(),
            p_value: end.comparison().and_then(|(_, decision)| decision.p_value),
            alerts_opened: changes.opened.iter().map(|(id, _)| *id).collect(),
            alerts_updated: changes.updated,
            alerts_recovered: changes.recovered,
        };
        (outcome, mail)
    }

    /// Who a schedule's alert e-mail goes to: its own address, and the owner's confirmed contact address when the
    /// schedule mails the owner (once, if they are the same).
    pub(super) async fn recipients(&self, workspace: WorkspaceId, schedule: &Schedule) -> Vec<String> {
        let mut to: Vec<String> = schedule.input.notify.email.iter().cloned().collect();
        if schedule.input.notify.email_owner {
            match self.store.owner_contact(workspace).await {
                Ok(Some(owner)) if !to.iter().any(|t| t.eq_ignore_ascii_case(&owner)) => to.push(owner),
                Ok(_) => {}
                Err(e) => tracing::error!(%workspace, error = %e, "reading the owner's contact address failed"),
            }
        }
        to
    }

    /// What `notice` says about an evaluation of `schedule`.
    fn notice<'a>(&self, schedule: &Schedule, end: &EvaluationEnd, notice: &'a Notice, at_ms: i64) -> AlertMessage<'a> {
        let (baseline, observed) = match end {
            EvaluationEnd::Compared { observed, baseline, .. } => (Some(baseline.summary), Some(observed.1)),
            _ => (None, end.observed().map(|(_, summary)| summary).copied()),
        };
        AlertMessage {
            notice,
            schedule_id: schedule.id,
            schedule_name: schedule.input.name.clone(),
            benchmark_set_id: schedule.input.set_id.to_string(),
            baseline,
            observed,
            set_url: format!("{}/guard/sets#set-{}", self.options.public_base, schedule.input.set_id),
            schedule_url: format!("{}/guard/schedules/{}", self.options.public_base, schedule.id),
            report_url: end.run().map(|run| format!("{}/runs/{run}", self.options.public_base)),
            at_ms,
            context: end.context().cloned(),
        }
    }

    /// Runs the schedule's set and compares it with the baseline; every failure becomes `Failed` with a reason.
    /// With the end, the key of what the run measured ([`measured_key`]), once its plan is made.
    async fn measure(&self, claim: &Claim, schedule: &Schedule) -> (EvaluationEnd, Option<String>) {
        let failed = |error: String, run: Option<RunId>| (EvaluationEnd::Failed { error, run }, None);
        let set = match self.store.get_set(claim.workspace, schedule.input.set_id).await {
            Ok(set) => set,
            Err(e) => return failed(format!("the benchmark set could not be read: {e}"), None),
        };
        let workload = match self.store.schedule_workload(claim.workspace, schedule.id).await {
            Ok(workload) => workload.map(|w| w.spec),
            Err(e) => return failed(format!("the schedule's workload could not be read: {e}"), None),
        };
        let plan = guard_plan(schedule, &set, workload.as_ref());
        let key = measured_key(&plan);
        let end = self.measure_plan(claim, schedule, plan, workload.as_ref(), &key).await;
        (end, Some(key))
    }

    /// Runs `plan` and judges it: valid or not, then compared with the schedule's baseline (pinned or pooled from
    /// the evaluations that measured `key`).
    async fn measure_plan(
        &self,
        claim: &Claim,
        schedule: &Schedule,
        plan: RunPlanInput,
        workload: Option<&Workload>,
        key: &str,
    ) -> EvaluationEnd {
        let failed = |error: String, run: Option<RunId>| EvaluationEnd::Failed { error, run };
        let run = match self.runs.run_to_end(claim.workspace, plan).await {
            Ok(run) => run,
            Err(StartError::Store(StoreError::NotFound)) => {
                return failed("the connector was deleted: edit the schedule to pick another".into(), None)
            }
            Err(e) => return failed(format!("the run could not start: {e}"), None),
        };
        let records = match self.store.run_iterations(claim.workspace, run.id).await {
            Ok(records) => records,
            Err(e) => return failed(format!("the run's results could not be read: {e}"), Some(run.id)),
        };
        let (totals, summary, streamed) = observe_run(&self.store, claim.workspace, run.id, &records).await;
        let observed = (totals, summary);
        if run.status != RunStatus::Completed {
            let why = run.failure.clone().unwrap_or_else(|| format!("the run ended {}", run.status.as_str()));
            let reason = InvalidRun::RunEnded { why };
            return EvaluationEnd::Inconclusive { run: run.id, reason, observed: Some(observed) };
        }
        let validity = Validity { min_samples: schedule.input.samples_needed(), ..schedule.input.policy.validity() };
        let verdict = crate::runs::report::judge_run(&run, &records, &crate::stats::summarize(&records));
        if let Err(reason) = judge_validity(&run.plan.mode, &records, &validity).and_then(|()| heeded(&verdict)) {
            return EvaluationEnd::Inconclusive { run: run.id, reason, observed: Some(observed) };
        }
        let (totals, summary) = observed;
        let baseline = match self.reference(claim, schedule, workload, key).await {
            Ok(PoolState::Ready(reference)) => *reference,
            Ok(PoolState::Empty) => {
                return EvaluationEnd::NoBaseline { run: run.id, observed: (totals, summary), streamed, pool: None }
            }
            Ok(PoolState::Filling(pool)) => {
                let pool = Some(pool);
                return EvaluationEnd::NoBaseline { run: run.id, observed: (totals, summary), streamed, pool };
            }
            Err(e) => return failed(format!("the baseline could not be read: {e}"), Some(run.id)),
        };
        // The history a change-point or window threshold reads (what the schedule's page charts); read only when
        // one of its thresholds needs it.
        let reads_history = schedule.input.thresholds.iter().any(|t| t.op == Op::ChangePoint || t.test.is_some());
        let history: Vec<GuardSummary> = if reads_history {
            match self.store.list_evaluations(claim.workspace, schedule.id, HISTORY).await {
                Ok(evaluations) => measured_history(&evaluations).into_iter().map(|(_, summary)| summary).collect(),
                Err(e) => return failed(format!("the schedule's history could not be read: {e}"), Some(run.id)),
            }
        } else {
            Vec::new()
        };
        // The baseline run's requests, to tell a prompt's own length from correlated requests, read only when the
        // run is long enough for its autocorrelation to be read; without them its requests count as independent.
        let baseline_records = if totals.len() >= MIN_SERIAL_VALUES {
            Some(self.store.run_iterations(claim.workspace, baseline.run_id()).await.unwrap_or_default())
        } else {
            None
        };
        let lag1 = baseline_records.as_ref().and_then(|b| send_order_lag1(&records, b));
        // Judging is CPU work (a change point's search shuffles a series up to 100,000 times): on the blocking
        // pool, so it never holds the async workers that time other runs' requests.
        let input = schedule.input.clone();
        let judged = tokio::task::spawn_blocking(move || {
            let decision = decide_run(&input, &baseline, (&totals, &summary), streamed.as_ref(), lag1, &history);
            (decision, baseline, totals, summary, streamed)
        })
        .await;
        let (decision, baseline, totals, summary, streamed) = match judged {
            Ok(judged) => judged,
            Err(e) => return failed(format!("judging the run failed: {e}"), Some(run.id)),
        };
        let context = if decision.breaches.is_empty() {
            None
        } else {
            let baseline_run = (baseline.run_id(), baseline_records.as_deref());
            Some(Box::new(why_it_breached(&self.store, claim.workspace, &run, &records, &verdict, baseline_run).await))
        };
        EvaluationEnd::Compared {
            run: run.id,
            observed: (totals, summary),
            streamed,
            baseline: Box::new(baseline),
            decision: Box::new(decision),
            context,
        }
    }

    /// What a run measuring `key` is compared with: the pinned run (a pin is [`PoolState::Ready`] at once, none is
    /// [`PoolState::Empty`]), or the schedule's pool of earlier evaluations.
    async fn reference(
        &self,
        claim: &Claim,
        schedule: &Schedule,
        workload: Option<&Workload>,
        key: &str,
    ) -> Result<PoolState, StoreError> {
        let input = &schedule.input;
        match input.policy.baseline {
            BaselineSource::Pinned => {
                let pinned =
                    self.store.current_baseline(claim.workspace, input.set_id, input.connector_id, workload).await?;
                Ok(pinned.map_or(PoolState::Empty, |b| PoolState::Ready(Box::new(b.into()))))
            }
            source => {
                let now = self.clock.now_ms();
                let pooled = self.store.pooled_evaluations(claim.workspace, schedule.id, key, source, now).await?;
                Ok(pool_state(source, &pooled))
            }
        }
    }
}
