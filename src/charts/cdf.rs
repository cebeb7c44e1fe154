//! Overlaid empirical CDFs of two or more samples (x = ms, y = share of requests at or below x), for comparing
//! runs. Each series arrives already thinned to at most a few hundred quantile points.

use std::fmt::Write;

use super::markup::escape_text;
use super::plot::{chart, empty, tick_label, Axes, Canvas};

/// One sample's distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct CdfSeries {
    /// Legend text.
    pub label: String,
    /// CSS class of its line (`baseline`, `candidate`).
    pub class: &'static str,
    /// (value, share ≤ value) in increasing order.
    pub points: Vec<(f64, f64)>,
}

/// At most `max_points` points of the empirical CDF of sorted `values`: evenly spaced ranks, always the first
/// and the last, so the curve keeps its shape and its tails.
pub fn ecdf_points(sorted: &[f64], max_points: usize) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return vec![];
    }
    let m = max_points.clamp(2, n.max(2));
    let mut points: Vec<(f64, f64)> = (0..m)
        .map(|k| ((k * (n - 1)) as f64 / (m - 1) as f64).round() as usize)
        .map(|i| (sorted[i], (i + 1) as f64 / n as f64))
        .collect();
    points.dedup();
    points
}

const CANVAS: Canvas = Canvas { height: 280, class: "cdf" };

/// The chart as a standalone `<svg>` element; `unit` labels the x axis.
pub fn cdf_overlay(series: &[CdfSeries], unit: &str) -> String {
    let label = format!("Cumulative distribution of {unit} per run");
    let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let Some(max) = values().reduce(f64::max) else {
        return empty(CANVAS, &label, "No data");
    };
    let min = values().fold(max, f64::min);
    let share = |v: f64| format!("{}%", (v * 100.0).round());
    let x_title = format!("{unit} (share of requests at or below)");
    let axes = Axes {
        x: (min.min(0.0), max * 1.02),
        y: (0.0, 1.0),
        x_labels: 8,
        y_labels: 5,
        x_label: &tick_label,
        y_label: &share,
        x_title: &x_title,
        y_title: "",
    };
    chart(CANVAS, &label, &axes, |plot| {
        let mut svg = String::with_capacity(1_024 + series.iter().map(|s| s.points.len() * 16).sum::<usize>());
        let (left, top, _, _) = plot.edges();
        for (i, s) in series.iter().enumerate() {
            let path: Vec<String> = s
                .points
                .iter()
                .map(|&(v, share)| {
                    let (x, y) = plot.at(v, share);
                    format!("{x},{y}")
                })
                .collect();
            let ly = top + 6 + i as i32 * 16;
            let _ = write!(
                svg,
                r#"<polyline points="{}" class="cdf-line {}"><title>{}</title></polyline><g class="legend"><line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" class="cdf-line {}"/><text x="{}" y="{}">{}</text></g>"#,
                path.join(" "),
                s.class,
                escape_text(&s.label),
                left + 30,
                s.class,
                left + 36,
                ly + 4,
                escape_text(&s.label),
                lx = left + 12,
            );
        }
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdf_points_keep_both_ends_and_thin_the_middle() {
        let values: Vec<f64> = (1..=1000).map(f64::from).collect();
        let points = ecdf_points(&values, 101);
        assert_eq!(points.len(), 101);
        assert_eq!(points[0], (1.0, 0.001));
        assert_eq!(*points.last().unwrap(), (1000.0, 1.0));
        assert_eq!(ecdf_points(&[7.0], 400), vec![(7.0, 1.0)], "one value is one point");
        assert!(ecdf_points(&[], 400).is_empty());
    }

    #[test]
    fn series_are_drawn_with_legends_and_escaped_labels() {
        let series = [
            CdfSeries { label: "before <a>".into(), class: "baseline", points: vec![(10.0, 0.5), (20.0, 1.0)] },
            CdfSeries { label: "after".into(), class: "candidate", points: vec![(12.0, 1.0)] },
        ];
        let svg = cdf_overlay(&series, "total ms");
        assert_eq!(svg.matches("</polyline>").count(), 2, "one line per series");
        assert!(svg.contains("before &lt;a&gt;"));
        assert!(cdf_overlay(&[], "ms").contains("No data"));
    }
}
