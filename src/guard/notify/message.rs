//! What an alert says, once, for every channel: the webhook body (its fields are listed in the
//! `docs/GUARD.md`) with its two-line `text`
//! fallback, which Slack-style incoming webhooks show as-is (Discord reads `content` instead).

use serde::Serialize;

use crate::guard::model::{
    AlertContext, Breach, Change, GuardSummary, Metric, Notice, Op, Schedule, Severity, SlowRequest,
};
use crate::model::Verdict;
use crate::model::{iso8601_utc, ScheduleId};
use crate::report::p_value;

/// The alert event's `type`.
pub const EVENT_TYPE: &str = "latency_guard.guard.alert";

/// A recovered notice's `type`: open alerts whose thresholds are healthy again.
pub const RECOVERED_TYPE: &str = "latency_guard.guard.recovered";

/// A "cannot measure" notice's `type`: a schedule's evaluations could not measure, several in a row.
pub const CANNOT_MEASURE_TYPE: &str = "latency_guard.guard.cannot_measure";

/// The notice's `type` when a schedule that could not measure measured again.
pub const MEASURABLE_TYPE: &str = "latency_guard.guard.measurable";

/// What a notice says about one evaluation of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertMessage<'a> {
    /// What is announced.
    pub notice: &'a Notice,
    /// The schedule.
    pub schedule_id: ScheduleId,
    /// Its name.
    pub schedule_name: String,
    /// Its benchmark set.
    pub benchmark_set_id: String,
    /// The baseline's summary, when the run was compared.
    pub baseline: Option<GuardSummary>,
    /// The run's summary, when it had one.
    pub observed: Option<GuardSummary>,
    /// The benchmark set in the app (`runUrl`, as the webhook format specifies).
    pub set_url: String,
    /// The schedule's page.
    pub schedule_url: String,
    /// The report of the evaluation's run (`reportUrl`), when it made one.
    pub report_url: Option<String>,
    /// When, unix ms.
    pub at_ms: i64,
    /// Why the evaluation may have breached (an alert's; none for other notices or without a comparison).
    pub context: Option<AlertContext>,
}

/// One change as the webhook body carries it: its fields and its words.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeBody<'a> {
    #[serde(flatten)]
    change: &'a Change,
    description: String,
}

/// The run's verdict as the webhook body carries it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ValidityBody<'a> {
    verdict: Verdict,
    headline: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BreachBody {
    metric: Metric,
    op: Op,
    threshold: f64,
    delta: f64,
    pct_change: Option<f64>,
    p_value: Option<f64>,
    severity: Severity,
    /// A window test's threshold: which test (`"z_score:20:5"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<crate::guard::model::WindowTest>,
    /// A change point's: this run's own figure (the text gives the levels before and after).
    #[serde(skip_serializing_if = "Option::is_none")]
    latest: Option<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    severity: Severity,
    schedule_id: String,
    schedule_name: &'a str,
    benchmark_set_id: &'a str,
    baseline: Option<GuardSummary>,
    observed: Option<GuardSummary>,
    breaches: Vec<BreachBody>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evaluations: Option<u32>,
    run_url: &'a str,
    report_url: Option<&'a str>,
    at: String,
    /// What differs from the baseline (an alert's; empty: nothing Guard reads moved).
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Vec<ChangeBody<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    validity: Option<ValidityBody<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slowest_requests: Option<&'a [SlowRequest]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slowest_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

impl AlertMessage<'_> {
    fn breaches(&self) -> &[Breach] {
        match self.notice {
            Notice::Opened(breaches) | Notice::Recovered(breaches) => breaches,
            Notice::CannotMeasure(_) | Notice::MeasurableAgain => &[],
        }
    }

    /// Why, when the notice opens alerts and the evaluation was compared.
    fn why(&self) -> Option<&AlertContext> {
        self.context.as_ref().filter(|_| matches!(self.notice, Notice::Opened(_)))
    }

    /// The run's report at its slowest requests, when there is a report and slow requests to show.
    pub fn slowest_url(&self) -> Option<String> {
        let report = self.report_url.as_ref()?;
        self.why().filter(|c| !c.slowest.is_empty()).map(|_| format!("{report}#slowest"))
    }

    /// What an alert says of why, a line each: what changed since the baseline, the run's verdict, its slowest
    /// requests and where they are.
    pub fn why_lines(&self) -> Vec<String> {
        let Some(context) = self.why() else { return Vec::new() };
        let mut lines = vec![context.changed_line(), context.validity_line()];
        if let Some(slowest) = context.slowest_line() {
            lines.push(match self.slowest_url() {
                Some(url) => format!("{slowest} — {url}"),
                None => slowest,
            });
        }
        lines
    }

    /// The most severe breach's severity (`warn` for a notice about measuring).
    pub fn severity(&self) -> Severity {
        if self.breaches().iter().any(|b| b.severity == Severity::Critical) {
            Severity::Critical
        } else {
            Severity::Warn
        }
    }

    /// Where a person should look: the run's report for an alert or a recovery, else the schedule's page.
    pub fn link(&self) -> String {
        match (self.notice, &self.report_url) {
            (Notice::Opened(_) | Notice::Recovered(_), Some(report)) => report.clone(),
            _ => self.schedule_url.clone(),
        }
    }

    /// The event's `type`.
    pub fn event_type(&self) -> &'static str {
        match self.notice {
            Notice::Opened(_) => EVENT_TYPE,
            Notice::Recovered(_) => RECOVERED_TYPE,
            Notice::CannotMeasure(_) => CANNOT_MEASURE_TYPE,
            Notice::MeasurableAgain => MEASURABLE_TYPE,
        }
    }

    /// The first line: a marker, what happened, `[severity]` and the schedule.
    pub fn headline(&self) -> String {
        let (marker, what) = match self.notice {
            Notice::Opened(_) => ("🚨", "alert"),
            Notice::Recovered(_) => ("✅", "recovered"),
            Notice::CannotMeasure(_) => ("⚠️", "cannot measure"),
            Notice::MeasurableAgain => ("✅", "measuring again"),
        };
        format!("{marker} latency-guard {what} [{}] {}", self.severity().as_str(), self.schedule_name)
    }

    /// The figures, one line per breach the notice is about: for an alert the metric, signed change, baseline →
    /// observed and p-value; for a recovery the metric's figure now; for "cannot measure" the reason.
    pub fn details(&self) -> Vec<String> {
        match self.notice {
            Notice::Opened(breaches) => breaches.iter().map(opened_line).chain(self.why_lines()).collect(),
            Notice::Recovered(breaches) => breaches.iter().map(|b| self.recovered_line(b)).collect(),
            Notice::CannotMeasure(what) => {
                vec![format!("{} ({} evaluations in a row could not measure)", what.reason, what.evaluations)]
            }
            Notice::MeasurableAgain => vec![
                "the latest evaluation measured the endpoint again; its \"cannot measure\" alert stays open until \
                 acknowledged"
                    .to_string(),
            ],
        }
    }

    fn recovered_line(&self, b: &Breach) -> String {
        let unit = b.metric.unit();
        let now = |summary: Option<GuardSummary>| {
            summary.and_then(|s| b.metric.of(&s)).map_or("n/a".to_string(), |v| format!("{}{unit}", figure(v)))
        };
        format!(
            "{} healthy again: baseline {} → observed {} (it breached at {}{unit}); the alert stays open until acknowledged",
            b.metric.as_str(),
            now(self.baseline),
            now(self.observed),
            figure(b.observed),
        )
    }

    /// What a person reads first: the headline, the first figures line (and how many more breaches there are),
    /// then, for an alert, why (what changed, the run's verdict, its slowest requests).
    pub fn text(&self) -> String {
        let why = self.why_lines();
        let details = self.details();
        let figures = details.len() - why.len();
        let more = if figures > 1 { format!(" (+{} more)", figures - 1) } else { String::new() };
        let mut lines = vec![self.headline()];
        lines.extend(details.first().filter(|_| figures > 0).map(|first| format!("{first}{more}")));
        lines.extend(why);
        lines.join("\n")
    }

    /// Everything, a line each: the headline, every figures line, why (e-mail, which has room).
    pub fn full_text(&self) -> String {
        std::iter::once(self.headline()).chain(self.details()).collect::<Vec<_>>().join("\n")
    }

    /// The JSON body for `url`: `text` for Slack-style receivers, `content` for Discord's.
    pub fn webhook_body(&self, url: &str) -> String {
        let discord = is_discord(url);
        let cannot = match self.notice {
            Notice::CannotMeasure(what) => Some(what),
            _ => None,
        };
        let body = Body {
            kind: self.event_type(),
            severity: self.severity(),
            schedule_id: self.schedule_id.to_string(),
            schedule_name: &self.schedule_name,
            benchmark_set_id: &self.benchmark_set_id,
            baseline: self.baseline,
            observed: self.observed,
            breaches: self
                .breaches()
                .iter()
                .map(|b| BreachBody {
                    metric: b.metric,
                    op: b.op,
                    threshold: b.threshold,
                    delta: b.delta,
                    pct_change: b.pct_change,
                    p_value: b.p_value,
                    severity: b.severity,
                    test: b.test,
                    latest: b.latest,
                })
                .collect(),
            reason: cannot.map(|c| c.reason.as_str()),
            evaluations: cannot.map(|c| c.evaluations),
            changes: self.why().map(|c| {
                c.changes.iter().map(|change| ChangeBody { change, description: change.describe() }).collect()
            }),
            validity: self.why().map(|c| ValidityBody { verdict: c.verdict, headline: &c.validity }),
            slowest_requests: self.why().map(|c| c.slowest.as_slice()),
            slowest_url: self.slowest_url(),
            run_url: &self.set_url,
            report_url: self.report_url.as_deref(),
            at: iso8601_utc(self.at_ms),
            text: (!discord).then(|| self.text()),
            content: discord.then(|| self.text()),
        };
        serde_json::to_string(&body).unwrap_or_default()
    }
}

/// An alert's figures line: metric, signed change, baseline (or the level before a change point) → observed, p.
pub fn opened_line(b: &Breach) -> String {
    let unit = b.metric.unit();
    let change = match b.pct_change {
        Some(p) => format!("{p:+.1}%"),
        None => format!("{:+.3}{unit}", b.delta),
    };
    let p = b.p_value.map_or_else(|| "p = n/a".to_string(), |p| format!("p = {}", p_value(p)));
    // A change-point breach compares the level after the change with the level before it, and says the run's
    // own figure too; a window test compares with the window's center.
    let (what, from, to) = match (b.op, &b.test) {
        (Op::ChangePoint, _) => (" change point".to_string(), "level before", "level after"),
        (_, Some(test)) => (format!(" {} window", test.kind.as_str()), "window center", "observed"),
        _ => (String::new(), "baseline", "observed"),
    };
    let latest = b.latest.map_or_else(String::new, |v| format!("; this run {}{unit}", figure(v)));
    format!(
        "{}{what} {change} ({from} {}{unit} → {to} {}{unit}{latest}), {p}",
        b.metric.as_str(),
        figure(b.baseline),
        figure(b.observed)
    )
}

/// A fresh message id (`webhook-id`): `msg_` and a random UUID's 32 hex digits.
pub fn new_message_id() -> String {
    // Time-ordered (UUIDv7, increasing within the process): a schedule's messages written in one moment (a
    // PagerDuty test's trigger and resolve) are leased in the order they were written.
    format!("msg_{}", uuid::Uuid::now_v7().simple())
}

/// The body of a "Send test" message: the alert's envelope without breaches, `type`
/// `latency_guard.guard.test`, and a text saying so.
pub fn test_message_body(schedule: &Schedule, url: &str, at_ms: i64) -> String {
    let text = format!(
        "✅ latency-guard test message [{}]\nAlerts of this schedule will arrive here, signed like this message.",
        schedule.input.name
    );
    let mut body = serde_json::json!({
        "type": "latency_guard.guard.test",
        "scheduleId": schedule.id.to_string(),
        "scheduleName": schedule.input.name,
        "benchmarkSetId": schedule.input.set_id.to_string(),
        "breaches": [],
        "at": iso8601_utc(at_ms),
    });
    body[if is_discord(url) { "content" } else { "text" }] = serde_json::Value::String(text);
    body.to_string()
}

/// Discord's incoming webhooks (`discord.com/api/webhooks/…`) want `content`, not `text`.
pub fn is_discord(url: &str) -> bool {
    url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).is_some_and(|host| {
        matches!(host.as_str(), "discord.com" | "discordapp.com" | "ptb.discord.com" | "canary.discord.com")
    })
}

/// A figure as notices write it: whole above 100, else up to three decimals without trailing zeros.
pub(super) fn figure(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::notify::receivers::fixtures::{self, breach};

    /// The receivers' alert, for the schedule these tests name.
    fn message(notice: &Notice) -> AlertMessage<'_> {
        fixtures::message(notice, "Checkout API")
    }

    #[test]
    fn the_text_has_a_marker_line_and_a_figures_line() {
        let opened =
            Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn), breach(Metric::MeanMs, Severity::Critical)]);
        let text = message(&opened).text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "🚨 latency-guard alert [critical] Checkout API");
        assert_eq!(lines[1], "p95_ms +119.2% (baseline 104 ms → observed 228 ms), p = 6.1e-6 (+1 more)");
        let change = Breach {
            op: Op::ChangePoint,
            p_value: Some(0.005),
            latest: Some(241.0),
            ..breach(Metric::P95Ms, Severity::Warn)
        };
        let text = message(&Notice::Opened(vec![change])).text();
        assert_eq!(
            text.lines().nth(1),
            Some("p95_ms change point +119.2% (level before 104 ms → level after 228 ms; this run 241 ms), p = 0.0050"),
            "the levels before and after the change, not a baseline, and the run's own figure"
        );
        let test = Some(crate::guard::model::WindowTest {
            kind: crate::guard::model::WindowTestKind::Iqr,
            window: 20,
            min_history: 5,
        });
        let window = Breach { test, p_value: None, ..breach(Metric::P95Ms, Severity::Warn) };
        assert_eq!(
            message(&Notice::Opened(vec![window])).text().lines().nth(1),
            Some("p95_ms iqr window +119.2% (window center 104 ms → observed 228 ms), p = n/a")
        );
    }

    #[test]
    fn the_body_has_the_documented_fields_and_discord_gets_content() {
        let breaches = Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn)]);
        let body: serde_json::Value =
            serde_json::from_str(&message(&breaches).webhook_body("https://hooks.slack.com/x")).unwrap();
        let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "at",
                "baseline",
                "benchmarkSetId",
                "breaches",
                "observed",
                "reportUrl",
                "runUrl",
                "scheduleId",
                "scheduleName",
                "severity",
                "text",
                "type"
            ]
        );
        assert_eq!(body["type"], EVENT_TYPE);
        assert_eq!(body["at"], "2026-11-18T11:06:40.000Z");
        let breach_keys: Vec<&str> = body["breaches"][0].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(breach_keys, ["delta", "metric", "op", "pValue", "pctChange", "severity", "threshold"]);
        assert_eq!(body["baseline"]["p95Ms"], 104.0);
        assert_eq!(
            (body["runUrl"].as_str(), body["reportUrl"].as_str()),
            (Some("http://lg.example/guard/sets#set-1"), Some("http://lg.example/runs/1"))
        );
        let discord: serde_json::Value =
            serde_json::from_str(&message(&breaches).webhook_body("https://discord.com/api/webhooks/1/t")).unwrap();
        assert!(discord.get("text").is_none() && discord["content"].as_str().unwrap().starts_with("🚨"));
    }

    #[test]
    fn an_alert_says_why_after_its_figures_and_a_recovery_does_not() {
        use crate::guard::model::{AlertContext, Change, SlowRequest};
        let context = AlertContext {
            changes: vec![Change::Answered {
                field: "system_fingerprint".into(),
                from: "b100".into(),
                to: "b200".into(),
            }],
            verdict: Verdict::Valid,
            validity: "valid (5 checks passed)".into(),
            slowest: vec![SlowRequest { seq: 7, total_ms: 812.4, ttft_ms: None }],
        };
        let opened =
            Notice::Opened(vec![breach(Metric::P95Ms, Severity::Warn), breach(Metric::MeanMs, Severity::Critical)]);
        let m = AlertMessage { context: Some(context.clone()), ..message(&opened) };
        assert_eq!(
            m.text().lines().skip(1).collect::<Vec<_>>(),
            [
                "p95_ms +119.2% (baseline 104 ms → observed 228 ms), p = 6.1e-6 (+1 more)",
                "What changed: system_fingerprint b100 → b200",
                "The run: valid (5 checks passed)",
                "Slowest requests: #7 812 ms — http://lg.example/runs/1#slowest",
            ]
        );
        assert_eq!(m.full_text().lines().count(), 6, "the headline, both figures and why: {}", m.full_text());
        let body: serde_json::Value = serde_json::from_str(&m.webhook_body("https://hooks.example/x")).unwrap();
        assert_eq!(body["changes"][0]["description"], "system_fingerprint b100 → b200");
        assert_eq!(
            (body["changes"][0]["what"].as_str(), body["changes"][0]["to"].as_str()),
            (Some("answered"), Some("b200"))
        );
        assert_eq!(body["validity"]["verdict"], "valid");
        assert_eq!(body["slowestRequests"][0]["totalMs"], 812.4);
        assert_eq!(body["slowestUrl"], "http://lg.example/runs/1#slowest");
        let recovered = Notice::Recovered(vec![breach(Metric::P95Ms, Severity::Warn)]);
        let quiet = AlertMessage { context: Some(context), ..message(&recovered) };
        assert!(!quiet.text().contains("What changed") && quiet.webhook_body("").find("changes").is_none());
    }

    #[test]
    fn a_recovered_notice_says_the_figure_now_and_that_the_alert_stays_open() {
        let recovered = Notice::Recovered(vec![breach(Metric::P95Ms, Severity::Critical)]);
        let mut m = message(&recovered);
        m.observed = Some(GuardSummary { p95_ms: Some(106.0), ..m.baseline.unwrap() });
        let text = m.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "✅ latency-guard recovered [critical] Checkout API");
        assert_eq!(
            lines[1],
            "p95_ms healthy again: baseline 104 ms → observed 106 ms (it breached at 228 ms); the alert stays open until acknowledged"
        );
        let body: serde_json::Value = serde_json::from_str(&m.webhook_body("https://hooks.example/x")).unwrap();
        assert_eq!(
            (body["type"].as_str(), body["breaches"][0]["metric"].as_str()),
            (Some(RECOVERED_TYPE), Some("p95_ms"))
        );
        assert_eq!(m.link(), "http://lg.example/runs/1");
    }

    #[test]
    fn a_cannot_measure_notice_gives_the_reason_and_how_long() {
        let what = Notice::CannotMeasure(crate::guard::model::CannotMeasure {
            reason: "no request succeeded; the first failure: connect: connection refused".into(),
            evaluations: 3,
        });
        let mut m = message(&what);
        (m.baseline, m.observed, m.report_url) = (None, None, None);
        assert_eq!(
            m.text(),
            "⚠️ latency-guard cannot measure [warn] Checkout API\nno request succeeded; the first failure: connect: \
             connection refused (3 evaluations in a row could not measure)"
        );
        let body: serde_json::Value = serde_json::from_str(&m.webhook_body("https://hooks.example/x")).unwrap();
        assert_eq!(body["type"], CANNOT_MEASURE_TYPE);
        assert_eq!((body["evaluations"].as_u64(), body["breaches"].as_array().map(Vec::len)), (Some(3), Some(0)));
        assert!(body["reportUrl"].is_null() && body["baseline"].is_null());
        assert_eq!(m.link(), "http://lg.example/guard/schedules/1", "no run to show: the schedule's page");
        let again = message(&Notice::MeasurableAgain);
        assert!(again.text().starts_with("✅ latency-guard measuring again [warn] Checkout API\n"), "{}", again.text());
        assert_eq!(again.event_type(), MEASURABLE_TYPE);
    }
}
