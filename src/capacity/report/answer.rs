//! A capacity search's answer in words, as the page, its file and the command line say it.

use crate::capacity::report::CapacityReport;
use crate::model::trim_number;

/// The answer in words: `4 in flight (95 % interval 4 to 4)`, `at least 64 in flight`, or none.
pub fn answer_text(report: &CapacityReport) -> String {
    let end = |v: Option<f64>| v.map_or_else(|| "none".to_string(), trim_number);
    match report.answer {
        None => "none: the lowest level already missed the objectives".to_string(),
        Some(answer) => {
            let interval = if report.interval.resamples > 0 {
                format!(" (95 % interval {} to {})", end(report.interval.low), end(report.interval.high))
            } else {
                String::new()
            };
            format!("{}{}{interval}", if report.bounded { "" } else { "at least " }, report.axis.describe(answer))
        }
    }
}
