//! The service's own counters, kept in this process: runs, measured requests and their errors, Guard ticks and how
//! long they took, evaluations by status, webhook and e-mail deliveries by outcome. One set per process, as
//! Prometheus expects of a scraped target (each replica is scraped on its own and the sums are taken in queries);
//! what every replica shares (open alerts, each schedule's last figures) is read from the database at each scrape
//! instead (`guard::exposition`). The counters are `prometheus-client` metrics, so the exposition is that crate's.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// A `status` label (a run's or an evaluation's, as the product spells it).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusLabel {
    /// The status.
    pub status: &'static str,
}

/// A delivery attempt's `outcome`: a 2xx reply (or the SMTP server took it).
pub const DELIVERED: &str = "delivered";
/// A delivery attempt's `outcome`: it failed and is tried again later.
pub const RETRYING: &str = "retrying";
/// A delivery attempt's `outcome`: it failed for the last time.
pub const GAVE_UP: &str = "gave_up";

/// An `outcome` label of a delivery attempt: [`DELIVERED`], [`RETRYING`] or [`GAVE_UP`].
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    /// The outcome.
    pub outcome: &'static str,
}

/// The process's counters.
#[derive(Debug)]
pub struct Counters {
    runs_started: Counter,
    runs_finished: Family<StatusLabel, Counter>,
    requests: Counter,
    request_errors: Counter,
    guard_ticks: Counter,
    guard_tick_seconds: Histogram,
    evaluations: Family<StatusLabel, Counter>,
    webhook_attempts: Family<OutcomeLabel, Counter>,
    mail_attempts: Family<OutcomeLabel, Counter>,
}

/// Guard tick durations, seconds: a tick with nothing due takes milliseconds, one that runs sets takes up to
/// minutes.
const TICK_BUCKETS: [f64; 10] = [0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0];

static COUNTERS: LazyLock<Counters> = LazyLock::new(|| {
    let counters = Counters {
        runs_started: Counter::default(),
        runs_finished: Family::default(),
        requests: Counter::default(),
        request_errors: Counter::default(),
        guard_ticks: Counter::default(),
        guard_tick_seconds: Histogram::new(TICK_BUCKETS),
        evaluations: Family::default(),
        webhook_attempts: Family::default(),
        mail_attempts: Family::default(),
    };
    // Every outcome written from the start, at 0: a series that appears only on its first event hides that first
    // event from `rate()` and `increase()`.
    for outcome in [DELIVERED, RETRYING, GAVE_UP] {
        counters.webhook_attempts.get_or_create(&OutcomeLabel { outcome }).inc_by(0);
        counters.mail_attempts.get_or_create(&OutcomeLabel { outcome }).inc_by(0);
    }
    counters
});

/// This process's counters.
pub fn counters() -> &'static Counters {
    &COUNTERS
}

impl Counters {
    /// A run started executing here.
    pub fn run_started(&self) {
        self.runs_started.inc();
    }

    /// A run ended with `status`.
    pub fn run_finished(&self, status: &'static str) {
        self.runs_finished.get_or_create(&StatusLabel { status }).inc();
    }

    /// Requests measured (stored), `errors` of them failed.
    pub fn requests_measured(&self, requests: u64, errors: u64) {
        self.requests.inc_by(requests);
        self.request_errors.inc_by(errors);
    }

    /// A Guard tick ended after `took`.
    pub fn guard_tick(&self, took: Duration) {
        self.guard_ticks.inc();
        self.guard_tick_seconds.observe(took.as_secs_f64());
    }

    /// An evaluation ended with `status`.
    pub fn evaluation(&self, status: &'static str) {
        self.evaluations.get_or_create(&StatusLabel { status }).inc();
    }

    /// A webhook delivery attempt ended with `outcome`.
    pub fn webhook_attempt(&self, outcome: &'static str) {
        self.webhook_attempts.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    /// An e-mail delivery attempt ended with `outcome`.
    pub fn mail_attempt(&self, outcome: &'static str) {
        self.mail_attempts.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    /// Writes every run and evaluation status from now on, at 0 until it happens (for the reason the outcomes are
    /// written from the start).
    pub fn list_statuses(&self, runs: &[&'static str], evaluations: &[&'static str]) {
        for status in runs {
            self.runs_finished.get_or_create(&StatusLabel { status }).inc_by(0);
        }
        for status in evaluations {
            self.evaluations.get_or_create(&StatusLabel { status }).inc_by(0);
        }
    }

    /// Registers every counter in `registry` (clones share the counts), under the registry's prefix.
    pub fn register(&self, registry: &mut Registry) {
        registry.register("runs_started", "Runs that started executing in this process", self.runs_started.clone());
        registry.register("runs_finished", "Runs that ended in this process, by status", self.runs_finished.clone());
        registry.register("requests", "Requests measured by runs in this process", self.requests.clone());
        registry.register(
            "request_errors",
            "Requests measured by runs in this process that failed",
            self.request_errors.clone(),
        );
        registry.register("guard_ticks", "Guard ticks run by this process", self.guard_ticks.clone());
        registry.register(
            "guard_tick_duration_seconds",
            "How long a Guard tick took, evaluations included",
            self.guard_tick_seconds.clone(),
        );
        registry.register(
            "guard_evaluations",
            "Guard evaluations finished by this process, by status",
            self.evaluations.clone(),
        );
        registry.register(
            "webhook_deliveries",
            "Webhook delivery attempts by this process, by outcome (delivered, retrying, gave_up)",
            self.webhook_attempts.clone(),
        );
        registry.register(
            "email_deliveries",
            "Alert e-mail delivery attempts by this process, by outcome (delivered, retrying, gave_up)",
            self.mail_attempts.clone(),
        );
    }
}
