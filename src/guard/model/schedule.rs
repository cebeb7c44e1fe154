//! Guard's rules: schedules (what runs when, compared how, telling whom), cadences and thresholds. The figures a
//! run is judged by are `figures`; what evaluations record is `records`. Pure: the decision itself is
//! `guard::decide` on the server, because its p-value needs the statistics library.

use crate::model::spelled;
use serde::{Deserialize, Serialize};

use super::figures::Metric;
use super::notify::Notify;
use super::policy::AlertPolicy;
use super::states::EvaluationStatus;
use super::window_test::WindowTest;
use crate::model::ValidationError;
use crate::model::{BenchmarkSetId, ConnectorId, WorkloadId};

/// Thresholds a schedule may hold at most.
pub const MAX_THRESHOLDS: usize = 10;

/// How often a schedule runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cadence {
    /// Every 15 minutes.
    #[serde(rename = "15m")]
    FifteenMinutes,
    /// Every hour.
    #[serde(rename = "hourly")]
    Hourly,
    /// Every 24 hours.
    #[serde(rename = "daily")]
    Daily,
    /// Every 7 days.
    #[serde(rename = "weekly")]
    Weekly,
}

spelled!(Cadence { FifteenMinutes => "15m", Hourly => "hourly", Daily => "daily", Weekly => "weekly" });

impl Cadence {
    /// The time between two runs, ms.
    pub fn period_ms(self) -> i64 {
        const MINUTE: i64 = 60_000;
        match self {
            Cadence::FifteenMinutes => 15 * MINUTE,
            Cadence::Hourly => 60 * MINUTE,
            Cadence::Daily => 24 * 60 * MINUTE,
            Cadence::Weekly => 7 * 24 * 60 * MINUTE,
        }
    }

    /// Runs per day (a weekly schedule runs 1/7 times a day).
    pub fn runs_per_day(self) -> f64 {
        86_400_000.0 / self.period_ms() as f64
    }
}

/// How a threshold compares the observed figure with the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Observed is at least `value` % above the baseline.
    PctIncrease,
    /// Observed is at least `value` % below the baseline.
    PctDecrease,
    /// Observed exceeds the baseline by at least `value`, in the metric's unit.
    AbsIncrease,
    /// The schedule's history has a change point (E-Divisive) whose later level is at least `value` % worse than
    /// the level before it (higher, or lower for tok/s), and this evaluation is at that later level.
    ChangePoint,
}

spelled!(Op { PctIncrease => "pct_increase", PctDecrease => "pct_decrease", AbsIncrease => "abs_increase", ChangePoint => "change_point" });

/// How loud an alert is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The default.
    #[default]
    Warn,
    /// Pages someone.
    Critical,
}

spelled!(Severity { Warn => "warn", Critical => "critical" });

/// One rule of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Threshold {
    /// The figure watched.
    pub metric: Metric,
    /// The comparison.
    pub op: Op,
    /// Percent for the `pct_` ops and `change_point`, the metric's unit for `abs_increase`.
    pub value: f64,
    /// Severity of its alert.
    #[serde(default)]
    pub severity: Severity,
    /// Judged against the schedule's recent evaluations instead of the pinned baseline; `null` (the default):
    /// against the baseline, with Welch's test for a latency figure.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", serde(skip_serializing_if = "Option::is_none"))]
    pub test: Option<WindowTest>,
}

impl Threshold {
    /// The threshold's identity on its schedule (`p95_ms:pct_increase`, `p95_ms:pct_increase:z_score` with a
    /// window test): at most one open alert each.
    pub fn key(&self) -> String {
        threshold_key(self.metric, self.op, self.test.as_ref())
    }
}

/// A threshold's identity from its parts: what a [`Threshold`] and the [`Breach`](super::Breach) it makes both
/// answer, so an alert, its sustain count and its recovery find one another.
pub fn threshold_key(metric: Metric, op: Op, test: Option<&WindowTest>) -> String {
    match test {
        None => format!("{}:{}", metric.as_str(), op.as_str()),
        Some(t) => format!("{}:{}:{}", metric.as_str(), op.as_str(), t.kind.as_str()),
    }
}

/// A schedule as the user enters it. Its notification settings travel as `notify: {webhookUrl, email}`; the
/// flat `webhookUrl` and `email` of earlier clients are still read when `notify` is absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "ScheduleInputWire")]
pub struct ScheduleInput {
    /// Name, 1 to 100 characters.
    pub name: String,
    /// The set it runs.
    pub set_id: BenchmarkSetId,
    /// Against which connector.
    pub connector_id: ConnectorId,
    /// Paused when false.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// How often.
    pub cadence: Cadence,
    /// Where alerts go.
    pub notify: Notify,
    /// The rules, 1 to [`MAX_THRESHOLDS`], one per metric and op.
    pub thresholds: Vec<Threshold>,
    /// Significance level of the Welch test.
    pub alpha: f64,
    /// A latency threshold breaches only when Welch's p-value is below `alpha` too.
    pub require_significance: bool,
    /// A saved workload the schedule sends instead of its set's prompts (the set still gives the system prompt);
    /// the server keeps a copy of it, taken when the schedule is saved. Absent: each of the set's prompts once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_id: Option<WorkloadId>,
    /// Stream the requests, so TTFT, TPOT and time to first output are measured and may have thresholds (off by
    /// default: the specified shape is unstreamed).
    #[serde(default)]
    pub stream: bool,
    /// What a valid run is and how alerts open, recover and report a schedule that cannot measure.
    #[serde(default)]
    pub policy: AlertPolicy,
}

/// [`ScheduleInput`] as it arrives: `notify`, or the flat fields of earlier clients.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScheduleInputWire {
    name: String,
    set_id: BenchmarkSetId,
    connector_id: ConnectorId,
    #[serde(default = "yes")]
    enabled: bool,
    cadence: Cadence,
    #[serde(default)]
    notify: Option<Notify>,
    #[serde(default)]
    webhook_url: Option<String>,
    #[serde(default)]
    email: Option<String>,
    thresholds: Vec<Threshold>,
    #[serde(default = "default_alpha")]
    alpha: f64,
    #[serde(default = "yes")]
    require_significance: bool,
    #[serde(default)]
    workload_id: Option<WorkloadId>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    policy: AlertPolicy,
}

impl From<ScheduleInputWire> for ScheduleInput {
    fn from(wire: ScheduleInputWire) -> Self {
        Self {
            notify: wire.notify.unwrap_or(Notify {
                webhook_url: wire.webhook_url,
                email: wire.email,
                ..Notify::default()
            }),
            name: wire.name,
            set_id: wire.set_id,
            connector_id: wire.connector_id,
            enabled: wire.enabled,
            cadence: wire.cadence,
            thresholds: wire.thresholds,
            alpha: wire.alpha,
            require_significance: wire.require_significance,
            workload_id: wire.workload_id,
            stream: wire.stream,
            policy: wire.policy,
        }
    }
}

fn yes() -> bool {
    true
}

fn default_alpha() -> f64 {
    0.05
}

impl ScheduleInput {
    /// The fewest successful requests its thresholds can judge: the policy's minimum when a threshold watches a
    /// latency figure (a percentile or Welch's test of one request says nothing), else one.
    pub fn samples_needed(&self) -> u32 {
        if self.thresholds.iter().any(|t| t.metric.is_latency() || t.metric.is_streamed()) {
            self.policy.min_samples
        } else {
            1
        }
    }

    /// Trims the texts and checks every field (the webhook URL's address is checked again at each delivery).
    pub fn validate(&self) -> Result<Self, ValidationError> {
        let name = crate::model::display_name(&self.name, "name", 100)?;
        let notify = self.notify.validated()?;
        if self.thresholds.is_empty() || self.thresholds.len() > MAX_THRESHOLDS {
            return Err(ValidationError::new("thresholds", format!("add 1 to {MAX_THRESHOLDS} thresholds")));
        }
        for (i, t) in self.thresholds.iter().enumerate() {
            if !t.value.is_finite() || t.value <= 0.0 {
                return Err(ValidationError::new(format!("thresholds.{i}.value"), "must be a number above 0"));
            }
            if t.metric.is_streamed() && !self.stream {
                return Err(ValidationError::new(
                    format!("thresholds.{i}.metric"),
                    format!(
                        "{} is measured only when the schedule streams its requests: tick \"Stream\"",
                        t.metric.as_str()
                    ),
                ));
            }
            if t.metric == Metric::AcceptanceRate && t.op == Op::AbsIncrease {
                return Err(ValidationError::new(
                    format!("thresholds.{i}.op"),
                    "an acceptance rate regresses by falling: use pct_decrease",
                ));
            }
            if t.metric == Metric::ErrorRate && t.op == Op::AbsIncrease && t.value > 1.0 {
                return Err(ValidationError::new(
                    format!("thresholds.{i}.value"),
                    "an error rate is a fraction from 0 to 1 (0.05 is 5 points)",
                ));
            }
            if let Some(test) = &t.test {
                let field = format!("thresholds.{i}.test");
                if t.op == Op::ChangePoint {
                    return Err(ValidationError::new(field, "change_point is a test of its own: leave test out"));
                }
                test.validate().map_err(|why| ValidationError::new(field, why.to_string()))?;
            }
            if self.thresholds[..i].iter().any(|other| other.key() == t.key()) {
                return Err(ValidationError::new(
                    format!("thresholds.{i}"),
                    format!(
                        "a second {} {} threshold: keep one per metric and comparison",
                        t.metric.as_str(),
                        t.op.as_str()
                    ),
                ));
            }
        }
        self.policy.validate()?;
        let limit = self.policy.max_error_rate;
        if let Some(i) = self
            .thresholds
            .iter()
            .position(|t| t.metric == Metric::ErrorRate && t.op == Op::AbsIncrease && t.value >= limit)
        {
            return Err(ValidationError::new(
                format!("thresholds.{i}.value"),
                format!(
                    "a run with more than {}% errors is inconclusive (the policy's valid-run limit), so this \
                     error-rate threshold could never breach: set it below the limit",
                    crate::model::trim_number(limit * 100.0)
                ),
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 0.5) {
            return Err(ValidationError::new("alpha", "must be above 0 and at most 0.5 (0.05 is usual)"));
        }
        Ok(Self { name, notify, ..self.clone() })
    }
}

/// A stored schedule, as the user sees it (the webhook secret is never in it). On the wire its input's fields sit
/// beside its own; it is read through [`ScheduleWire`], because serde's `flatten` buffers every field first and
/// that reader was the largest part of Guard's pages in the browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "ScheduleWire")]
pub struct Schedule {
    /// Id.
    pub id: crate::model::ScheduleId,
    /// What the user entered, validated.
    #[serde(flatten)]
    pub input: ScheduleInput,
    /// When it is next due, unix ms.
    pub next_run_at_ms: i64,
    /// Its last evaluation: when, how it ended, and why it failed if it did.
    pub last_run_at_ms: Option<i64>,
    /// How the last evaluation ended.
    pub last_status: Option<EvaluationStatus>,
    /// The failure of the last evaluation, in words.
    pub last_error: Option<String>,
    /// Created, unix ms.
    pub created_at_ms: i64,
}

/// [`Schedule`] as the server writes it: every field at one level, `notify` always there.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScheduleWire {
    id: crate::model::ScheduleId,
    name: String,
    set_id: BenchmarkSetId,
    connector_id: ConnectorId,
    enabled: bool,
    cadence: Cadence,
    notify: Notify,
    thresholds: Vec<Threshold>,
    alpha: f64,
    require_significance: bool,
    #[serde(default)]
    workload_id: Option<WorkloadId>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    policy: AlertPolicy,
    next_run_at_ms: i64,
    last_run_at_ms: Option<i64>,
    last_status: Option<EvaluationStatus>,
    last_error: Option<String>,
    created_at_ms: i64,
}

impl From<ScheduleWire> for Schedule {
    fn from(wire: ScheduleWire) -> Self {
        Self {
            id: wire.id,
            input: ScheduleInput {
                name: wire.name,
                set_id: wire.set_id,
                connector_id: wire.connector_id,
                enabled: wire.enabled,
                cadence: wire.cadence,
                notify: wire.notify,
                thresholds: wire.thresholds,
                alpha: wire.alpha,
                require_significance: wire.require_significance,
                workload_id: wire.workload_id,
                stream: wire.stream,
                policy: wire.policy,
            },
            next_run_at_ms: wire.next_run_at_ms,
            last_run_at_ms: wire.last_run_at_ms,
            last_status: wire.last_status,
            last_error: wire.last_error,
            created_at_ms: wire.created_at_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn input() -> ScheduleInput {
        ScheduleInput {
            name: " API p95 ".into(),
            set_id: BenchmarkSetId(Uuid::nil()),
            connector_id: ConnectorId(Uuid::nil()),
            enabled: true,
            cadence: Cadence::FifteenMinutes,
            notify: Notify { webhook_url: Some(" ".into()), ..Notify::default() },
            thresholds: vec![Threshold {
                metric: Metric::P95Ms,
                op: Op::PctIncrease,
                value: 20.0,
                severity: Severity::Warn,
                test: None,
            }],
            alpha: 0.05,
            require_significance: true,
            workload_id: None,
            stream: false,
            policy: AlertPolicy::default(),
        }
    }

    #[test]
    fn only_a_latency_threshold_needs_the_policys_sample_minimum() {
        let p95 = input();
        assert_eq!(p95.samples_needed(), 2);
        let errors_only = ScheduleInput {
            thresholds: vec![Threshold {
                metric: Metric::ErrorRate,
                op: Op::AbsIncrease,
                value: 0.1,
                severity: Severity::Warn,
                test: None,
            }],
            ..input()
        };
        assert_eq!(errors_only.samples_needed(), 1, "an error rate of one request is still a figure");
    }

    #[test]
    fn a_streamed_figure_needs_a_streamed_schedule_and_acceptance_falls() {
        let ttft = Threshold { metric: Metric::TtftP95Ms, ..input().thresholds[0] };
        let unstreamed = ScheduleInput { thresholds: vec![ttft], ..input() };
        let refused = unstreamed.validate().unwrap_err();
        assert_eq!(refused.field, "thresholds.0.metric");
        assert!(refused.reason.contains("streams its requests"), "{}", refused.reason);
        let streamed = ScheduleInput { stream: true, ..unstreamed };
        assert!(streamed.validate().is_ok());
        assert_eq!(streamed.samples_needed(), 2, "a TTFT percentile of one request says nothing");
        let rising =
            Threshold { metric: Metric::AcceptanceRate, op: Op::AbsIncrease, value: 0.1, ..input().thresholds[0] };
        let wrong_way = ScheduleInput { thresholds: vec![rising], ..input() }.validate().unwrap_err();
        assert_eq!(wrong_way.field, "thresholds.0.op");
        assert!(!Metric::AcceptanceRate.worse_when_higher());
        assert_eq!(Metric::parse("first_output_p95_ms"), Some(Metric::FirstOutputP95Ms));
    }

    #[test]
    fn an_error_rate_threshold_the_valid_run_limit_hides_is_refused() {
        let never = ScheduleInput {
            thresholds: vec![Threshold {
                metric: Metric::ErrorRate,
                op: Op::AbsIncrease,
                value: 0.5,
                severity: Severity::Warn,
                test: None,
            }],
            ..input()
        };
        let refused = never.validate().unwrap_err();
        assert_eq!(refused.field, "thresholds.0.value");
        assert!(refused.reason.contains("could never breach"), "{}", refused.reason);
        let looser = AlertPolicy { max_error_rate: 0.8, ..AlertPolicy::default() };
        assert!(ScheduleInput { policy: looser, ..never }.validate().is_ok());
    }

    #[test]
    fn notification_settings_travel_as_notify_and_the_flat_fields_are_still_read() {
        let mut wire = serde_json::to_value(input()).unwrap();
        assert_eq!(
            wire["notify"],
            serde_json::json!({"webhookUrl": " ", "email": null, "emailOwner": false, "receiver": "webhook",
                "routingKeySet": false}),
            "no routing key unless one is being sent"
        );
        assert!(wire.get("webhookUrl").is_none() && wire.get("email").is_none());
        let nested: ScheduleInput = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(nested, input());
        let notify = wire.as_object_mut().unwrap().remove("notify").unwrap();
        wire["webhookUrl"] = "https://hooks.example.com/x".into();
        wire["email"] = "ops@example.com".into();
        let flat: ScheduleInput = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(flat.notify.webhook_url.as_deref(), Some("https://hooks.example.com/x"));
        assert_eq!(flat.notify.email.as_deref(), Some("ops@example.com"));
        wire["notify"] = notify;
        let both: ScheduleInput = serde_json::from_value(wire).unwrap();
        assert_eq!(both.notify, input().notify, "notify wins over the flat fields");
    }

    #[test]
    fn a_schedule_is_written_flat_and_read_back_whole() {
        let schedule = Schedule {
            id: crate::model::ScheduleId(Uuid::from_u128(7)),
            input: input(),
            next_run_at_ms: 2_000,
            last_run_at_ms: Some(1_000),
            last_status: Some(EvaluationStatus::Breached),
            last_error: Some("timed out".into()),
            created_at_ms: 500,
        };
        let wire = serde_json::to_value(&schedule).unwrap();
        assert_eq!((wire["name"].as_str(), wire["cadence"].as_str()), (Some(" API p95 "), Some("15m")));
        assert_eq!(wire["notify"]["webhookUrl"], " ");
        assert_eq!(serde_json::from_value::<Schedule>(wire.clone()).unwrap(), schedule);
        let mut never_run = wire;
        for field in ["lastRunAtMs", "lastStatus", "lastError"] {
            never_run.as_object_mut().unwrap().remove(field);
        }
        let read: Schedule = serde_json::from_value(never_run).unwrap();
        assert_eq!((read.last_run_at_ms, read.last_status, read.last_error), (None, None, None));
    }

    #[test]
    fn cadences_have_the_documented_periods() {
        let minutes: Vec<i64> = Cadence::ALL.iter().map(|c| c.period_ms() / 60_000).collect();
        assert_eq!(minutes, [15, 60, 24 * 60, 7 * 24 * 60]);
        assert_eq!(serde_json::to_string(&Cadence::FifteenMinutes).unwrap(), "\"15m\"");
        assert_eq!(Cadence::parse("weekly"), Some(Cadence::Weekly));
    }

    #[test]
    fn a_valid_schedule_is_trimmed_and_bad_fields_are_named() {
        let ok = input().validate().unwrap();
        assert_eq!((ok.name.as_str(), ok.notify.webhook_url), ("API p95", None));
        let field = |i: ScheduleInput| i.validate().unwrap_err().field;
        let notify = |webhook_url: Option<&str>, email: Option<&str>| Notify {
            webhook_url: webhook_url.map(String::from),
            email: email.map(String::from),
            ..Notify::default()
        };
        assert_eq!(field(ScheduleInput { notify: notify(Some("ftp://x"), None), ..input() }), "notify.webhookUrl");
        assert_eq!(field(ScheduleInput { notify: notify(None, Some("a@b, c@d.e")), ..input() }), "notify.email");
        assert_eq!(field(ScheduleInput { thresholds: vec![], ..input() }), "thresholds");
        assert_eq!(field(ScheduleInput { alpha: 0.0, ..input() }), "alpha");
        let twice = vec![input().thresholds[0], Threshold { value: 50.0, ..input().thresholds[0] }];
        assert_eq!(field(ScheduleInput { thresholds: twice, ..input() }), "thresholds.1");
        let negative = vec![Threshold { value: -1.0, ..input().thresholds[0] }];
        assert_eq!(field(ScheduleInput { thresholds: negative, ..input() }), "thresholds.0.value");
        let rate = vec![Threshold {
            metric: Metric::ErrorRate,
            op: Op::AbsIncrease,
            value: 5.0,
            severity: Severity::Critical,
            test: None,
        }];
        assert_eq!(field(ScheduleInput { thresholds: rate, ..input() }), "thresholds.0.value");
    }
}
