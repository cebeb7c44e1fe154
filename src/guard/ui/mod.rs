//! Guard's pages: the alert feed (`/guard`), the benchmark sets, a schedule, and the schedule form with the pages
//! that show it (a new schedule, an existing one's settings).

mod feed;
mod schedule;
mod schedule_form;
mod schedule_settings;
mod sets;

pub use feed::GuardPage;
pub use schedule::SchedulePage;
pub use schedule_settings::{NewSchedulePage, ScheduleSettingsPage};
pub use sets::GuardSetsPage;
