//! A run over time: p50 and p95 of total time and TTFT per time slice (lines at each slice's middle), with each
//! slice's completions per second and failures in the point titles.

use std::fmt::Write;

use super::plot::{chart, empty, tick_label, Axes, Canvas};
use crate::stats::{Percentiles, TimeSlice};

const CANVAS: Canvas = Canvas { height: 220, class: "time-slices" };
const LABEL: &str = "Latency over the run: p50 and p95 of total time and TTFT per time slice";

/// One line: a percentile of a latency.
struct Series {
    name: &'static str,
    class: &'static str,
    pick: fn(&TimeSlice) -> Option<Percentiles>,
    p95: bool,
}

const SERIES: [Series; 4] = [
    Series { name: "total p95", class: "total p95", pick: |s| s.total, p95: true },
    Series { name: "total p50", class: "total p50", pick: |s| s.total, p95: false },
    Series { name: "TTFT p95", class: "ttft p95", pick: |s| s.ttft, p95: true },
    Series { name: "TTFT p50", class: "ttft p50", pick: |s| s.ttft, p95: false },
];

fn value(series: &Series, slice: &TimeSlice) -> Option<f64> {
    (series.pick)(slice).map(|p| if series.p95 { p.p95 } else { p.p50 })
}

/// The chart as a standalone `<svg>` element.
pub fn time_slices_chart(slices: &[TimeSlice]) -> String {
    let Some(last) = slices.last() else { return empty(CANVAS, LABEL, "No timed requests") };
    let highest = slices.iter().flat_map(|s| SERIES.iter().filter_map(|series| value(series, s))).fold(0.0, f64::max);
    let axes = Axes {
        x: (0.0, last.end_s),
        y: (0.0, (highest * 1.15).max(1.0)),
        x_labels: 8,
        y_labels: 4,
        x_label: &tick_label,
        y_label: &tick_label,
        x_title: "seconds since the run started (by completion)",
        y_title: "ms",
    };
    chart(CANVAS, LABEL, &axes, |plot| {
        let mut svg = String::new();
        let (left, top, _, _) = plot.edges();
        for (i, series) in SERIES.iter().enumerate() {
            let mut points = Vec::new();
            let mut marks = String::new();
            for slice in slices {
                let Some(v) = value(series, slice) else { continue };
                let (x, y) = plot.at((slice.start_s + slice.end_s) / 2.0, v);
                points.push(format!("{x},{y}"));
                let _ = write!(
                    marks,
                    r#"<circle cx="{x}" cy="{y}" r="2.5" class="slice-point {}"><title>{}–{} s: {} {v:.1} ms; {} done ({:.2}/s), {} failed</title></circle>"#,
                    series.class,
                    tick_label(slice.start_s),
                    tick_label(slice.end_s),
                    series.name,
                    slice.completed,
                    slice.requests_per_sec,
                    slice.failed
                );
            }
            if points.is_empty() {
                continue;
            }
            let ly = top + 6 + i as i32 * 16;
            let _ = write!(
                svg,
                r#"<polyline points="{}" class="slice-line {}"/>{marks}<g class="legend"><line x1="{}" x2="{}" y1="{ly}" y2="{ly}" class="slice-line {}"/><text x="{}" y="{}">{}</text></g>"#,
                points.join(" "),
                series.class,
                left + 12,
                left + 30,
                series.class,
                left + 36,
                ly + 4,
                series.name
            );
        }
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(i: f64, total: Option<f64>, ttft: Option<f64>) -> TimeSlice {
        let p = |v: f64| Percentiles { p50: v, p95: v * 1.5, p99: v * 2.0 };
        TimeSlice {
            start_s: i * 2.0,
            end_s: i * 2.0 + 2.0,
            completed: 4,
            failed: 1,
            ttft: ttft.map(p),
            total: total.map(p),
            requests_per_sec: 2.0,
            output_tokens_per_sec: 40.0,
        }
    }

    #[test]
    fn draws_four_lines_with_a_title_per_point() {
        let svg = time_slices_chart(&[slice(0.0, Some(100.0), Some(20.0)), slice(1.0, Some(300.0), Some(40.0))]);
        assert_eq!(svg.matches(r#"class="slice-line"#).count(), 8, "four lines and their legend");
        assert!(svg.contains("<title>0–2 s: total p95 150.0 ms; 4 done (2.00/s), 1 failed</title>"), "{svg}");
        let no_ttft = time_slices_chart(&[slice(0.0, Some(100.0), None)]);
        assert_eq!(no_ttft.matches(r#"class="slice-line"#).count(), 4, "no TTFT when not streamed");
        assert!(time_slices_chart(&[]).contains("No timed requests"));
    }
}
