//! A run's server load over time, from its own metrics: requests running and waiting at each reading (and KV-cache
//! use in percent, where exposed, on the same axis as a share of 100).

use std::fmt::Write;

use super::plot::{chart, empty, tick_label, Axes, Canvas};
use crate::model::ServerSample;

/// One gauge of a reading.
type Gauge = fn(&ServerSample) -> Option<f64>;

const CANVAS: Canvas = Canvas { height: 200, class: "server-load" };
const LABEL: &str = "Requests running and waiting on the server over the run, from its own metrics";

/// The chart as a standalone `<svg>` element.
pub fn server_load(samples: &[ServerSample]) -> String {
    let Some(last) = samples.last() else { return empty(CANVAS, LABEL, "No server readings") };
    let seconds = |s: &ServerSample| s.at_ms as f64 / 1e3;
    let series: [(&str, Gauge); 2] = [("running", |s| s.running), ("waiting", |s| s.waiting)];
    let highest = samples.iter().flat_map(|s| [s.running, s.waiting]).flatten().fold(0.0, f64::max);
    let axes = Axes {
        x: (0.0, seconds(last).max(1.0)),
        y: (0.0, (highest * 1.2).max(1.0)),
        x_labels: 8,
        y_labels: 4,
        x_label: &tick_label,
        y_label: &tick_label,
        x_title: "seconds since the run started",
        y_title: "requests",
    };
    chart(CANVAS, LABEL, &axes, |plot| {
        let mut svg = String::new();
        let (left, top, _, _) = plot.edges();
        for (i, (name, pick)) in series.into_iter().enumerate() {
            let points: Vec<String> = samples
                .iter()
                .filter_map(|s| {
                    let (x, y) = plot.at(seconds(s), pick(s)?);
                    Some(format!("{x},{y}"))
                })
                .collect();
            if points.is_empty() {
                continue;
            }
            let ly = top + 6 + i as i32 * 16;
            let _ = write!(
                svg,
                r#"<polyline points="{}" class="load-line {name}"><title>requests {name}</title></polyline><g class="legend"><line x1="{}" x2="{}" y1="{ly}" y2="{ly}" class="load-line {name}"/><text x="{}" y="{}">{name}</text></g>"#,
                points.join(" "),
                left + 12,
                left + 30,
                left + 36,
                ly + 4
            );
        }
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(at_ms: u64, running: f64, waiting: Option<f64>) -> ServerSample {
        ServerSample { at_ms, running: Some(running), waiting, kv_cache: None }
    }

    #[test]
    fn draws_running_and_waiting_over_time_with_readable_titles() {
        let svg =
            server_load(&[reading(0, 0.0, Some(0.0)), reading(1_000, 3.0, Some(1.0)), reading(2_000, 1.0, Some(0.0))]);
        assert_eq!(svg.matches("</polyline>").count(), 2);
        assert!(svg.contains("<title>requests running</title>") && svg.contains("seconds since the run started"));
        let only_running = server_load(&[reading(0, 1.0, None), reading(500, 2.0, None)]);
        assert_eq!(only_running.matches("</polyline>").count(), 1, "a gauge the server lacks is not drawn");
        assert!(server_load(&[]).contains("No server readings"));
    }
}
