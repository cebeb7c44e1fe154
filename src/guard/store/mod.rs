//! Guard's tables: schedules and benchmark sets, baselines pinned and pooled, evaluations and the alerts they open,
//! mutes, the cannot-measure alert, the `/metrics` figures, and the webhook and e-mail outboxes. Each file adds
//! `impl Store` methods, so `Store` stays one type; a transaction here applies what `guard::judge` decided and
//! decides nothing itself.

mod alerts;
mod baselines;
mod benchmark_sets;
mod cannot_measure;
mod deliveries;
mod exposition;
mod mail;
mod mutes;
mod open_alerts;
mod outbox;
mod pools;
mod schedules;

pub use alerts::{AlertChanges, OutboxRow, Recipient, WebhookNotice};
pub use baselines::NewBaseline;
pub use exposition::ScheduleFigures;
pub use mail::{MailState, QueuedMail};
pub use open_alerts::PagedAlert;
pub use outbox::{Attempt, AttemptOutcome, OutboxMessage};
pub use schedules::Claim;
