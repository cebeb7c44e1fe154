//! A run as it is kept and shown: where it is in its life (`RunStatus`) and the run with its plan and the
//! connector's settings when it started (`RunView`).

use serde::{Deserialize, Serialize};

use super::plan::{OpenedAhead, RunPlan};

/// Where a run is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// Sending requests.
    Running,
    /// Every request was sent and recorded.
    Completed,
    /// Stopped by a user; finished iterations are kept.
    Cancelled,
    /// The server stopped while it ran; finished iterations are kept.
    Interrupted,
    /// Could not run (e.g. the connector's secrets did not open).
    Failed,
}

spelled!(RunStatus {
    Running => "running",
    Completed => "completed",
    Cancelled => "cancelled",
    Interrupted => "interrupted",
    Failed => "failed",
});

/// A run as pages and API replies show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    /// Its id.
    pub id: crate::model::RunId,
    /// Report title.
    pub title: String,
    /// Life-cycle state.
    pub status: RunStatus,
    /// The validated plan.
    pub plan: RunPlan,
    /// The connector's base URL when the run started (never its key).
    pub base_url: String,
    /// The model when the run started.
    pub model: String,
    /// Prices when the run started, USD per 1M tokens.
    pub input_price_per_mtok: Option<f64>,
    /// Prices when the run started, USD per 1M tokens.
    pub output_price_per_mtok: Option<f64>,
    /// Warm-up plus measured requests.
    pub total_requests: u64,
    /// Whether the endpoint rejected `stream_options` (so streamed token counts were estimated).
    pub stream_options_rejected: bool,
    /// The tokenizer a workload's prompts were made with (none without a workload, or before the run's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokenizer: Option<crate::model::PromptTokenizer>,
    /// The connections opened before the first request; `None` when none were (open loop, a fresh connection
    /// per request, or a run from before this was done).
    #[serde(default)]
    pub opened_ahead: Option<OpenedAhead>,
    /// What the load generator's own process did while the run sent (none for a run from before this was
    /// measured, or one that sent nothing). Pages show the verdict made of it, so the browser's build neither
    /// reads nor writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip))]
    pub client_load: Option<crate::model::ClientLoad>,
    /// What answered its requests, over every reply (none for a run from before this was kept, or with no reply).
    /// Pages show its note, so the browser's build neither reads nor writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip))]
    pub fingerprint: Option<crate::model::Fingerprint>,
    /// Its headline figures, kept when it ended (none while it runs, or for a run from before they were kept).
    /// Lists show them as the server renders them, so the browser's build neither reads nor writes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip))]
    pub headline: Option<super::headline::RunHeadline>,
    /// Why the run failed, if it did.
    pub failure: Option<String>,
    /// Start, unix ms.
    pub created_at_ms: i64,
    /// End, unix ms.
    pub finished_at_ms: Option<i64>,
}
