//! A run's report rendered once on the server: the owner's page, a share link's page and a file's sections (the
//! header, the scatter, stat cards, honesty notes, distribution, the run over time, a workload's section, the
//! server's own metrics), a page of its iteration table, and two runs compared.

mod compare;
mod report;
mod table;
mod workload;

pub use compare::{comparison, run_choices};
pub use report::{live_scatter, report_file_sections, run_page, shared_page};
pub use table::table_page;
