//! The alert state machine, as a pure function: from an evaluation, the schedule's recent history and its open
//! alerts to the plan of what changes. Its rows, as the tests below spell them:
//!
//! - **sustained**: a breach opens an alert only when its threshold breached in K of the last N conclusive
//!   evaluations (this one included; inconclusive and failed ones are skipped, they say nothing); until then it is
//!   pending, and the evaluation says so;
//! - **again**: a breach of a threshold whose alert is open updates that alert and sends nothing — unless the
//!   alert had recovered, then it is announced again (relapsed);
//! - **recovered**: an open alert whose threshold was healthy in M conclusive evaluations in a row sends one
//!   recovered notice; it stays open until acknowledged by hand;
//! - **inconclusive**: an evaluation that could not measure (inconclusive or failed) neither breaches nor counts as
//!   healthy; M of them in a row open one "cannot measure" alert, which later ones update silently and the first
//!   measured evaluation announces as measurable again;
//! - **muted**: while a threshold (or the whole schedule) is muted, everything above happens in the feed but
//!   nothing is sent; an alert that opened meanwhile is announced when it breaches (or still cannot measure) after
//!   the mute, and its recovery is marked quietly if nobody was told it opened.
//!
//! Notices go out only on the channels the schedule has. `Store::finish_evaluation` applies the plan in one
//! transaction.

use crate::guard::model::{
    AlertPlan, AlertPolicy, Breach, CannotMeasurePlan, EvaluationStatus, Muting, OpenAlert, PastEvaluation,
    PendingBreach, CANNOT_MEASURE_KEY,
};

/// The channels a schedule notifies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Channels {
    /// It has a webhook URL.
    pub webhook: bool,
    /// It has an e-mail address, and e-mail is on.
    pub email: bool,
}

/// The evaluation being finished, as the state machine sees it.
#[derive(Debug, Clone, Copy)]
pub struct Finished<'a> {
    /// Its status, breached and healthy thresholds.
    pub verdict: &'a PastEvaluation,
    /// Its breaches, with their figures.
    pub breaches: &'a [Breach],
    /// Why it could not measure, when it could not.
    pub unmeasured: Option<&'a str>,
}

/// What a schedule is as an evaluation ends: its earlier finished evaluations (newest first), its open alerts, its
/// policy and what is muted.
#[derive(Debug, Clone, Copy)]
pub struct Standing<'a> {
    /// Earlier finished evaluations, newest first.
    pub history: &'a [PastEvaluation],
    /// Its open alerts.
    pub open: &'a [OpenAlert],
    /// Its policy.
    pub policy: &'a AlertPolicy,
    /// What is muted now.
    pub muting: &'a Muting,
}

/// What `finished` does to a schedule that stands as `standing`.
pub fn plan_alerts(finished: Finished<'_>, standing: Standing<'_>, channels: Channels) -> AlertPlan {
    let Standing { history, open, policy, muting } = standing;
    let mut plan = AlertPlan::default();
    let recent = || std::iter::once(finished.verdict).chain(history);
    let conclusive = || recent().filter(|e| e.status.conclusive());
    let open_on = |key: &str| open.iter().find(|a| a.threshold_key == key);

    let mut seen: Vec<String> = Vec::with_capacity(finished.breaches.len());
    for breach in finished.breaches {
        let key = breach.key();
        // A schedule's thresholds have distinct keys (validation refuses duplicates); should two breaches still
        // share one, the first decides, so a threshold never gets two alerts from one evaluation.
        if seen.contains(&key) {
            continue;
        }
        seen.push(key.clone());
        if let Some(alert) = open_on(&key) {
            plan.update.push((alert.id, breach.clone()));
            if (alert.recovered || !alert.announced) && !muting.covers(&key) {
                plan.relapsed.push(alert.id);
            }
            continue;
        }
        let window: Vec<&PastEvaluation> = conclusive().take(policy.sustain_of as usize).collect();
        let breaches = window.iter().filter(|e| e.breached.contains(&key)).count() as u32;
        if breaches >= policy.sustain_breaches {
            plan.open.push(breach.clone());
            if muting.covers(&key) {
                plan.silenced.push(key);
            }
        } else {
            plan.pending.push(PendingBreach {
                threshold_key: key,
                breaches,
                of: window.len() as u32,
                needed: policy.sustain_breaches,
            });
        }
    }

    if finished.verdict.status.conclusive() {
        for alert in open.iter().filter(|a| !a.recovered && a.threshold_key != CANNOT_MEASURE_KEY) {
            let healthy = conclusive().take_while(|e| e.healthy.contains(&alert.threshold_key)).count();
            if healthy < policy.recover_after as usize {
                continue;
            }
            if alert.announced && !muting.covers(&alert.threshold_key) {
                plan.recovered.push(alert.id);
            } else {
                plan.recovered_quietly.push(alert.id);
            }
        }
    }

    let cannot_measure = open_on(CANNOT_MEASURE_KEY);
    let cannot_measure_muted = muting.covers(CANNOT_MEASURE_KEY);
    match finished.unmeasured {
        Some(reason) => {
            let evaluations = recent().take_while(|e| e.status.unmeasured()).count() as u32;
            let persists = evaluations >= policy.cannot_measure_after;
            let update = |alert: &OpenAlert, relapsed| CannotMeasurePlan::Update {
                id: alert.id,
                reason: reason.to_string(),
                evaluations,
                relapsed,
            };
            plan.cannot_measure = match cannot_measure {
                // Opened while muted: announced once the mute is over.
                Some(alert) if !alert.recovered => Some(update(alert, !alert.announced && !cannot_measure_muted)),
                // It measured again since: a blip leaves it be; a new run of failures is announced again.
                Some(alert) if persists => Some(update(alert, !cannot_measure_muted)),
                Some(_) => None,
                None if persists => {
                    if cannot_measure_muted {
                        plan.silenced.push(CANNOT_MEASURE_KEY.to_string());
                    }
                    Some(CannotMeasurePlan::Open { reason: reason.to_string(), evaluations })
                }
                None => None,
            };
        }
        None if finished.verdict.status != EvaluationStatus::Running => match cannot_measure {
            Some(alert) if alert.recovered => {}
            Some(alert) if alert.announced && !cannot_measure_muted => plan.measurable_again = Some(alert.id),
            Some(alert) => plan.recovered_quietly.push(alert.id),
            None => {}
        },
        None => {}
    }

    let announce = plan.announces();
    plan.webhook = announce && channels.webhook;
    plan.email = announce && channels.email;
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::{Metric, Op, Severity};
    use crate::model::AlertId;

    fn breach(metric: Metric, op: Op) -> Breach {
        Breach {
            metric,
            op,
            threshold: 10.0,
            delta: 50.0,
            pct_change: Some(25.0),
            p_value: Some(0.001),
            severity: Severity::Warn,
            baseline: 200.0,
            observed: 250.0,
            test: None,
            latest: None,
        }
    }

    fn p95() -> Breach {
        breach(Metric::P95Ms, Op::PctIncrease)
    }

    const P95: &str = "p95_ms:pct_increase";

    fn open_on(key: &str) -> OpenAlert {
        OpenAlert { id: AlertId::new_random(), threshold_key: key.to_string(), recovered: false, announced: true }
    }

    fn breached(keys: &[&str]) -> PastEvaluation {
        PastEvaluation {
            status: EvaluationStatus::Breached,
            breached: keys.iter().map(|k| k.to_string()).collect(),
            healthy: vec![],
        }
    }

    fn healthy(keys: &[&str]) -> PastEvaluation {
        PastEvaluation {
            status: EvaluationStatus::Healthy,
            breached: vec![],
            healthy: keys.iter().map(|k| k.to_string()).collect(),
        }
    }

    fn status(status: EvaluationStatus) -> PastEvaluation {
        PastEvaluation { status, breached: vec![], healthy: vec![] }
    }

    const BOTH: Channels = Channels { webhook: true, email: true };

    fn policy(breaches: u32, of: u32) -> AlertPolicy {
        AlertPolicy { sustain_breaches: breaches, sustain_of: of, ..AlertPolicy::default() }
    }

    static NOTHING_MUTED: Muting = Muting { schedule: false, thresholds: vec![] };

    fn standing<'a>(history: &'a [PastEvaluation], open: &'a [OpenAlert], policy: &'a AlertPolicy) -> Standing<'a> {
        Standing { history, open, policy, muting: &NOTHING_MUTED }
    }

    /// The plan for an evaluation that breached `now` (each with its figures) after `history`.
    fn after(now: &[Breach], history: &[PastEvaluation], open: &[OpenAlert], policy: &AlertPolicy) -> AlertPlan {
        after_muted(now, history, open, policy, &NOTHING_MUTED)
    }

    /// The same, with `muting` in force.
    fn after_muted(
        now: &[Breach],
        history: &[PastEvaluation],
        open: &[OpenAlert],
        policy: &AlertPolicy,
        muting: &Muting,
    ) -> AlertPlan {
        let keys: Vec<String> = now.iter().map(Breach::key).collect();
        let verdict = PastEvaluation { status: EvaluationStatus::Breached, breached: keys, healthy: vec![] };
        let finished = Finished { verdict: &verdict, breaches: now, unmeasured: None };
        plan_alerts(finished, Standing { history, open, policy, muting }, BOTH)
    }

    /// The plan for an evaluation that is `verdict` (healthy, inconclusive, …), with no breach.
    fn after_verdict(
        verdict: &PastEvaluation,
        unmeasured: Option<&str>,
        history: &[PastEvaluation],
        open: &[OpenAlert],
        policy: &AlertPolicy,
    ) -> AlertPlan {
        plan_alerts(Finished { verdict, breaches: &[], unmeasured }, standing(history, open, policy), BOTH)
    }

    #[test]
    fn a_first_breach_opens_an_alert_and_announces_it_on_every_channel() {
        let plan = after(&[p95()], &[], &[], &AlertPolicy::default());
        assert_eq!(plan, AlertPlan { open: vec![p95()], webhook: true, email: true, ..AlertPlan::default() });
    }

    #[test]
    fn a_breach_of_an_open_alert_updates_it_and_sends_nothing() {
        let open = open_on(P95);
        let plan = after(&[p95()], &[breached(&[P95])], std::slice::from_ref(&open), &AlertPolicy::default());
        assert_eq!(plan, AlertPlan { update: vec![(open.id, p95())], ..AlertPlan::default() });
    }

    #[test]
    fn one_new_breach_beside_an_open_one_announces_only_the_new_one() {
        let cost = breach(Metric::CostUsd, Op::AbsIncrease);
        let open = open_on(P95);
        let plan = after(&[p95(), cost.clone()], &[], std::slice::from_ref(&open), &AlertPolicy::default());
        assert_eq!(plan.open, vec![cost]);
        assert_eq!(plan.update, vec![(open.id, p95())]);
        assert!(plan.webhook && plan.email);
    }

    #[test]
    fn the_same_metric_with_another_op_is_another_threshold() {
        let abs = breach(Metric::MeanMs, Op::AbsIncrease);
        let plan = after(std::slice::from_ref(&abs), &[], &[open_on("mean_ms:pct_increase")], &AlertPolicy::default());
        assert_eq!((plan.open, plan.update), (vec![abs], vec![]));
    }

    #[test]
    fn no_breach_changes_nothing_and_open_alerts_stay_open() {
        let plan = after_verdict(&healthy(&[P95]), None, &[], &[open_on(P95)], &AlertPolicy::default());
        assert_eq!(plan, AlertPlan::default());
    }

    #[test]
    fn only_the_schedules_channels_are_used() {
        let verdict = breached(&[P95]);
        let finished = Finished { verdict: &verdict, breaches: &[p95()], unmeasured: None };
        let policy = AlertPolicy::default();
        let webhook_only = plan_alerts(finished, standing(&[], &[], &policy), Channels { webhook: true, email: false });
        assert!(webhook_only.webhook && !webhook_only.email);
        let neither = plan_alerts(finished, standing(&[], &[], &policy), Channels::default());
        assert_eq!(neither.open.len(), 1, "the alert opens even when nobody is told: the feed shows it");
        assert!(!neither.webhook && !neither.email);
    }

    #[test]
    fn a_repeated_threshold_in_one_evaluation_opens_one_alert() {
        let again = Breach { severity: Severity::Critical, ..p95() };
        let plan = after(&[p95(), again], &[], &[], &AlertPolicy::default());
        assert_eq!(plan.open, vec![p95()]);
    }

    #[test]
    fn sustained_a_breach_waits_until_k_of_the_last_n_conclusive_evaluations() {
        let two_of_three = policy(2, 3);
        let first = after(&[p95()], &[], &[], &two_of_three);
        assert!(first.open.is_empty() && !first.webhook && !first.email);
        assert_eq!(first.pending, [PendingBreach { threshold_key: P95.into(), breaches: 1, of: 1, needed: 2 }]);

        // Breached, healthy, now breached: 2 of the last 3.
        let history = [healthy(&[P95]), breached(&[P95])];
        assert_eq!(after(&[p95()], &history, &[], &two_of_three).open, vec![p95()]);

        // The earlier breach has left the window of 3: healthy, healthy, breached long ago.
        let history = [healthy(&[P95]), healthy(&[P95]), breached(&[P95])];
        let plan = after(&[p95()], &history, &[], &two_of_three);
        assert_eq!(plan.pending, [PendingBreach { threshold_key: P95.into(), breaches: 1, of: 3, needed: 2 }]);
    }

    #[test]
    fn sustained_inconclusive_and_failed_evaluations_are_skipped_not_counted() {
        let history = [
            status(EvaluationStatus::Inconclusive),
            status(EvaluationStatus::Failed),
            status(EvaluationStatus::NoBaseline),
            breached(&[P95]),
        ];
        assert_eq!(after(&[p95()], &history, &[], &policy(2, 2)).open, vec![p95()]);
    }

    #[test]
    fn recovered_after_m_healthy_conclusive_evaluations_once() {
        let open = open_on(P95);
        let three = AlertPolicy::default();
        assert_eq!(three.recover_after, 3);
        let two_healthy = [healthy(&[P95]), breached(&[P95])];
        assert_eq!(
            after_verdict(&healthy(&[P95]), None, &two_healthy, std::slice::from_ref(&open), &three).recovered,
            []
        );
        let three_healthy = [healthy(&[P95]), status(EvaluationStatus::Inconclusive), healthy(&[P95])];
        let plan = after_verdict(&healthy(&[P95]), None, &three_healthy, std::slice::from_ref(&open), &three);
        assert_eq!(plan.recovered, [open.id]);
        assert!(plan.webhook && plan.email, "a recovered notice goes out");
        let told = OpenAlert { recovered: true, ..open };
        assert_eq!(after_verdict(&healthy(&[P95]), None, &three_healthy, &[told], &three), AlertPlan::default());
    }

    #[test]
    fn recovered_needs_the_threshold_itself_healthy_not_the_evaluation() {
        let cost = "cost_usd:abs_increase";
        let open = open_on(P95);
        let other_breached = PastEvaluation {
            status: EvaluationStatus::Breached,
            breached: vec![cost.into()],
            healthy: vec![P95.into()],
        };
        let history = [other_breached.clone(), other_breached.clone()];
        let plan = after_verdict(&other_breached, None, &history, std::slice::from_ref(&open), &AlertPolicy::default());
        assert_eq!(plan.recovered, [open.id], "p95 healthy three times while cost breached");
        let unchecked = [healthy(&[]), healthy(&[])];
        assert_eq!(after_verdict(&healthy(&[]), None, &unchecked, &[open], &AlertPolicy::default()).recovered, []);
    }

    #[test]
    fn a_recovered_alert_breached_again_relapses_and_is_announced() {
        let told = OpenAlert { recovered: true, ..open_on(P95) };
        let plan = after(&[p95()], &[], std::slice::from_ref(&told), &AlertPolicy::default());
        assert_eq!((plan.update, plan.relapsed.clone()), (vec![(told.id, p95())], vec![told.id]));
        assert!(plan.webhook);
    }

    #[test]
    fn inconclusive_in_a_row_opens_one_cannot_measure_alert() {
        let why = Some("no request succeeded");
        let inconclusive = status(EvaluationStatus::Inconclusive);
        let policy = AlertPolicy::default();
        assert_eq!(policy.cannot_measure_after, 3);
        let one_before = [inconclusive.clone(), healthy(&[P95]), inconclusive.clone()];
        let plan = after_verdict(&inconclusive, why, &one_before, &[open_on(P95)], &policy);
        assert_eq!(plan, AlertPlan::default(), "2 in a row: nothing yet, and the open p95 alert is untouched");

        let two_before = [status(EvaluationStatus::Failed), inconclusive.clone(), healthy(&[P95])];
        let plan = after_verdict(&inconclusive, why, &two_before, &[], &policy);
        let opened = CannotMeasurePlan::Open { reason: "no request succeeded".into(), evaluations: 3 };
        assert_eq!(plan.cannot_measure, Some(opened));
        assert!(plan.webhook && plan.email);

        let open = open_on(CANNOT_MEASURE_KEY);
        let plan = after_verdict(&inconclusive, why, &two_before, std::slice::from_ref(&open), &policy);
        let moved_on = CannotMeasurePlan::Update {
            id: open.id,
            reason: "no request succeeded".into(),
            evaluations: 3,
            relapsed: false,
        };
        assert_eq!(plan.cannot_measure, Some(moved_on));
        assert!(!plan.webhook && !plan.email, "de-duplicated: the open alert moves on silently");

        let measured_since = OpenAlert { recovered: true, ..open };
        let blip = after_verdict(&inconclusive, why, &[healthy(&[])], std::slice::from_ref(&measured_since), &policy);
        assert_eq!(blip, AlertPlan::default(), "one failure after measuring again changes nothing");
        let plan = after_verdict(&inconclusive, why, &two_before, std::slice::from_ref(&measured_since), &policy);
        assert!(matches!(plan.cannot_measure, Some(CannotMeasurePlan::Update { relapsed: true, .. })));
        assert!(plan.webhook, "failing again for as long: announced again");
    }

    #[test]
    fn inconclusive_neither_breaches_nor_recovers_and_measuring_again_is_announced() {
        let open = [open_on(P95), open_on(CANNOT_MEASURE_KEY)];
        let history = [healthy(&[P95]), healthy(&[P95]), healthy(&[P95])];
        let inconclusive = status(EvaluationStatus::Inconclusive);
        let plan = after_verdict(&inconclusive, Some("too few"), &history, &open, &AlertPolicy::default());
        assert!(plan.recovered.is_empty() && plan.open.is_empty(), "{plan:?}");

        let plan = after_verdict(&status(EvaluationStatus::NoBaseline), None, &[], &open, &AlertPolicy::default());
        assert_eq!(plan.measurable_again, Some(open[1].id), "measured, even without a baseline to compare");
        assert!(plan.webhook);
    }

    #[test]
    fn muted_an_alert_opens_in_the_feed_unannounced_and_is_announced_when_it_breaches_after_the_mute() {
        let policy = AlertPolicy::default();
        let p95_muted = Muting { schedule: false, thresholds: vec![P95.into()] };
        let plan = after_muted(&[p95()], &[], &[], &policy, &p95_muted);
        assert_eq!((plan.open.clone(), plan.silenced.clone()), (vec![p95()], vec![P95.to_string()]));
        assert!(!plan.webhook && !plan.email, "nothing is sent while muted");

        let cost = breach(Metric::CostUsd, Op::AbsIncrease);
        let both = after_muted(&[p95(), cost], &[], &[], &policy, &p95_muted);
        assert!(both.webhook, "another threshold is not muted");

        let quiet = OpenAlert { announced: false, ..open_on(P95) };
        let still_muted = after_muted(&[p95()], &[], std::slice::from_ref(&quiet), &policy, &p95_muted);
        assert!(still_muted.relapsed.is_empty() && !still_muted.webhook);
        let over = after(&[p95()], &[], std::slice::from_ref(&quiet), &policy);
        assert_eq!((over.relapsed, over.webhook), (vec![quiet.id], true), "the mute is over: told now");
    }

    #[test]
    fn muted_a_recovery_or_an_unannounced_one_is_marked_quietly() {
        let policy = AlertPolicy::default();
        let history = [healthy(&[P95]), healthy(&[P95])];
        let (open, quiet) = (open_on(P95), OpenAlert { announced: false, ..open_on(P95) });
        let muted = Muting { schedule: true, thresholds: vec![] };
        let finished = Finished { verdict: &healthy(&[P95]), breaches: &[], unmeasured: None };
        let plan = plan_alerts(
            finished,
            Standing { history: &history, open: std::slice::from_ref(&open), policy: &policy, muting: &muted },
            BOTH,
        );
        assert_eq!((plan.recovered, plan.recovered_quietly, plan.webhook), (vec![], vec![open.id], false));
        let plan = after_verdict(&healthy(&[P95]), None, &history, std::slice::from_ref(&quiet), &policy);
        assert_eq!((plan.recovered, plan.recovered_quietly), (vec![], vec![quiet.id]), "never told it opened");
    }

    #[test]
    fn muted_the_schedule_holds_back_cannot_measure_too() {
        let policy = AlertPolicy { cannot_measure_after: 1, ..AlertPolicy::default() };
        let muted = Muting { schedule: true, thresholds: vec![] };
        let inconclusive = status(EvaluationStatus::Inconclusive);
        let finished = Finished { verdict: &inconclusive, breaches: &[], unmeasured: Some("down") };
        let plan = plan_alerts(finished, Standing { history: &[], open: &[], policy: &policy, muting: &muted }, BOTH);
        assert!(matches!(plan.cannot_measure, Some(CannotMeasurePlan::Open { .. })));
        assert_eq!((plan.silenced, plan.webhook), (vec![CANNOT_MEASURE_KEY.to_string()], false));
        let quiet = OpenAlert { announced: false, ..open_on(CANNOT_MEASURE_KEY) };
        let plan = after_verdict(&inconclusive, Some("down"), &[], std::slice::from_ref(&quiet), &policy);
        assert!(matches!(plan.cannot_measure, Some(CannotMeasurePlan::Update { relapsed: true, .. })), "{plan:?}");
        assert!(plan.webhook, "still failing after the mute: told now");
        let p95_only = Muting { schedule: false, thresholds: vec![P95.into()] };
        let plan =
            plan_alerts(finished, Standing { history: &[], open: &[], policy: &policy, muting: &p95_only }, BOTH);
        assert!(plan.webhook, "a threshold's mute does not hold back \"cannot measure\"");
    }
}
