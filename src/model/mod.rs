//! Shared, pure domain types: typed ids, connectors and their validated inputs, connection-test results, runs,
//! and Guard's sets, schedules, thresholds and summaries.
//! No I/O and no clock here; the browser build compiles this module too.

/// Generates `as_str` (the stored and sent spelling), `parse` and `ALL` for a fieldless enum. Defined before the
/// submodules so each of them can use it.
macro_rules! spelled {
    ($name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The spelling stored and sent.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The value spelled `text`.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }
    };
}
pub(crate) use spelled;

mod ab;
mod account;
mod api_token;
mod benchmark_set;
mod capacity;
mod checked;
mod connection_test;
mod connector;
mod engine_timings;
mod evaluation;
mod guard;
mod guard_records;
mod guard_states;
mod headers;
mod ids;
mod iteration;
mod log_histogram;
mod measurement;
mod progress;
mod quota;
mod run;
mod schedule_detail;
pub(crate) mod siwe_message;
mod slo;
mod speclab;
mod sweep;
mod text;
mod time;
mod wallet_admission;

pub use ab::{ab_limits, AbCellPlan, AbPlan, AbPlanInput, AbTestInput, AbTestSummary};
pub use account::{validate_workspace_name, AccountView, SignedInAs, MAX_WORKSPACE_NAME_CHARS};
pub use api_token::{
    ApiTokenInput, ApiTokenState, ApiTokenView, NewApiToken, TokenScope, API_TOKEN_PREFIX, MAX_TOKEN_DAYS,
    MAX_TOKEN_NAME_CHARS,
};
pub use benchmark_set::{BenchmarkSet, BenchmarkSetInput, SetPrompt, ADVISED_MIN_PROMPTS, MAX_SET_PROMPTS};
pub use capacity::{
    trim_number, LevelPlan, LoadAxis, SearchSpace, DEFAULT_RESOLUTION, MAX_LISTED_LEVELS, MAX_REPETITIONS,
    MAX_REPETITION_PAUSE_S,
};
pub use checked::Checked;
pub use connection_test::{ConnectionTestResult, TestTarget, BODY_PREVIEW_CHARS};
pub use connector::{
    credentials_kept_for, BaseUrl, Connector, ConnectorInput, HeaderView, KeyChange, ModelName, Price, ValidConnector,
};
pub use engine_timings::{EngineTimingTotals, EngineTimings};
pub use evaluation::{AlertPlan, EvaluationEnd, OpenAlert};
pub use guard::{
    Cadence, CostEstimate, GuardSummary, Metric, Notify, Op, RunVolume, Schedule, ScheduleInput, Severity, Threshold,
    MAX_THRESHOLDS,
};
pub use guard_records::{
    AlertView, Baseline, Breach, Decision, EvaluationView, ScheduleOutcome, ThresholdCheck, WebhookDelivery,
};
pub use guard_states::{EvaluationStatus, Trigger};
pub use headers::{is_credential_header, is_credential_query_name, HeaderName, HeaderSet, HeaderValueChange};
pub use ids::{
    AbTestId, AlertId, ApiTokenId, BaselineId, BenchmarkSetId, ConnectorId, EvaluationId, RunId, ScheduleId, SweepId,
    WorkspaceId,
};
pub use iteration::{cost_usd, row_prompt, IterationRecord, ROW_PROMPT_CHARS};
pub use log_histogram::{LogHistogram, RELATIVE_ACCURACY as ITL_RELATIVE_ACCURACY};
pub use measurement::{
    ChunkMark, ErrorClass, IterationError, Measurement, RetriedAttempt, RetryCause, ServerTiming, Timeline, TokenSource,
};
pub use progress::{LivePoint, RunProgress, RunUpdate};
pub use quota::WorkspaceQuota;
#[cfg(test)]
pub(crate) use run::fixtures;
pub use run::{limits, Agent, ConnectionPolicy, Job, LoadMode, OpenedAhead, RunPlan, RunPlanInput, RunStatus, RunView};
pub use schedule_detail::{BaselineInfo, PinnableRun, ScheduleDetail};
pub use siwe_message::{eip55_address, hex_utf8, short_address, siwe_message_text, AddressError, NonceGrant};
pub use slo::{parse_slos, Slo, SloMetric, SloScope, MAX_SLOS};
pub use speclab::{
    ProbeReport, ProbedPath, ServerKind, ServerLatency, ServerMetrics, ServerSample, SpecCounters, SpecOutcome,
    SpecWindow, Speculation, WindowError, MAX_SERVER_SAMPLES, PROCESS_START,
};
pub use sweep::{SweepInput, SweepPlan, SweepSummary, MAX_SWEEP_REQUESTS_PER_LEVEL};
pub use text::{display_name, is_one_email_address, prompt_text};
pub use time::{iso8601_utc, utc_minute, utc_second};
pub use wallet_admission::{NotAdmitted, WalletAdmission, WALLET_SIGN_IN};

/// A field-level validation failure: which input field, and why, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{field}: {reason}")]
pub struct ValidationError {
    /// The input field's name as the API spells it (`baseUrl`, `headers.x-foo`, ...).
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ValidationError {
    /// A failure of `field` for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { field: field.into(), reason: reason.into() }
    }
}

/// The header a share page presents its token in (`GET /api/public/reports/{id}`).
pub const SHARE_TOKEN_HEADER: &str = "x-share-token";
