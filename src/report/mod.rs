//! Figures for people, written the same way everywhere (milliseconds, percentiles, p-values, costs, tenths). Pure:
//! the same code runs on the server and in the browser. A run's report is the runs feature's (`runs::report`).

mod format;

pub use format::{ms, ms_number, p_value, percentile_triple, tenths, total_cost};
