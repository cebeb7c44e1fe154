//! What every feature's types share: typed ids, checked input, names and text, times.

pub(in crate::model) mod checked;
pub(in crate::model) mod ids;
pub(in crate::model) mod text;
pub(in crate::model) mod time;

pub use checked::Checked;
pub use ids::{
    AbTestId, AlertId, ApiTokenId, BaselineId, BenchmarkSetId, ConnectorId, DatasetId, EvaluationId, RunId, ScheduleId,
    SweepId, WorkloadId, WorkspaceId,
};
pub use text::{display_name, is_one_email_address, prompt_text, trim_number, typed_number};
pub use time::{iso8601_utc, utc_minute, utc_second};
