//! Reports, one folder a kind: `run` (the snapshot of a run, its notes, cards, table, page and compact form, two
//! runs compared), `lab` (an A/B test); `format` writes
//! figures for people the same way everywhere. Every type is re-exported here. Pure: the same code builds them on
//! the server and in the browser.

mod format;
mod run;

pub use format::{ms, p_value, percentile_triple, total_cost};
pub use run::*;
