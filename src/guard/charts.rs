//! A schedule's history: p95 and mean total time of each evaluation over time, the pinned baseline as a band
//! from its mean to its p95, breaches marked, change points found in the history as dashed upright lines;
//! evaluations that failed are ticks along the bottom; a legend names each mark it shows.

use std::fmt::Write;

use crate::charts::plot::{chart, empty, tick_label, Axes, Canvas};
use crate::model::{iso8601_utc, utc_minute};

/// One evaluation to plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint {
    /// When it ran, unix ms.
    pub at_ms: i64,
    /// Its p95 and mean total time, ms; `None` when it failed.
    pub p95_ms: Option<f64>,
    /// Mean total time, ms.
    pub mean_ms: Option<f64>,
    /// It breached a threshold.
    pub breached: bool,
}

/// A change point to mark: where the new level began and what changed, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChange {
    /// The first evaluation at the new level, unix ms.
    pub at_ms: i64,
    /// What changed (`p95 100.3 → 130.0 ms (+29.6 %), p = 0.005`).
    pub label: String,
}

const CANVAS: Canvas = Canvas { height: 240, class: "history" };
const LABEL: &str = "p95 and mean total time of each evaluation, with the baseline band";

/// The chart as a standalone `<svg>` element; `baseline` is the pinned (mean, p95), if any.
pub fn schedule_history(points: &[HistoryPoint], baseline: Option<(f64, f64)>, changes: &[HistoryChange]) -> String {
    let (Some(first), Some(last)) = (points.iter().map(|p| p.at_ms).min(), points.iter().map(|p| p.at_ms).max()) else {
        return empty(CANVAS, LABEL, "No evaluations yet");
    };
    let highest = points
        .iter()
        .flat_map(|p| [p.p95_ms, p.mean_ms])
        .flatten()
        .chain(baseline.map(|(_, p95)| p95))
        .fold(0.0, f64::max);
    let span = (last - first).max(1) as f64;
    // Time labels go at the two ends only (below); plotters' round numbers of milliseconds would read badly.
    let none = |_: f64| String::new();
    let axes = Axes {
        x: (0.0, span),
        y: (0.0, (highest * 1.15).max(1.0)),
        x_labels: 0,
        y_labels: 5,
        x_label: &none,
        y_label: &tick_label,
        x_title: "",
        y_title: "ms",
    };
    chart(CANVAS, LABEL, &axes, |plot| {
        let mut svg = String::with_capacity(1_024 + points.len() * 160);
        let at = |ms: i64, v: f64| plot.at((ms - first) as f64, v);
        let (left, _, right, bottom) = plot.edges();
        let edges: &[(&str, i64)] =
            if first == last { &[("middle", first)] } else { &[("start", first), ("end", last)] };
        for &(edge, ms) in edges {
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="{edge}" class="tick">{}</text>"#,
                at(ms, 0.0).0,
                bottom + 16,
                utc_minute(ms)
            );
        }
        if let Some((mean, p95)) = baseline {
            let (top, floor) = (at(first, p95).1, at(first, mean).1);
            let _ = write!(
                svg,
                r#"<rect x="{left}" y="{top}" width="{}" height="{}" class="baseline-band"><title>baseline: mean {mean:.1} ms, p95 {p95:.1} ms</title></rect>"#,
                right - left,
                (floor - top).max(1)
            );
        }
        for change in changes {
            let (x, top) = at(change.at_ms, highest * 1.1);
            let _ = write!(
                svg,
                r#"<path d="M{x} {bottom}V{top}" class="change-point"><title>change point: {}</title></path>"#,
                change.label
            );
        }
        for (class, pick) in
            [("p95", (|p: &HistoryPoint| p.p95_ms) as fn(&HistoryPoint) -> Option<f64>), ("mean", |p| p.mean_ms)]
        {
            let line: Vec<String> = points
                .iter()
                .filter_map(|p| {
                    let (x, y) = at(p.at_ms, pick(p)?);
                    Some(format!("{x},{y}"))
                })
                .collect();
            let _ = write!(
                svg,
                r#"<polyline points="{}" class="history-line {class}"><title>{class} total time of each evaluation</title></polyline>"#,
                line.join(" ")
            );
        }
        svg.push_str(&legend(plot.edges(), baseline.is_some(), points, !changes.is_empty()));
        for p in points {
            let when = iso8601_utc(p.at_ms);
            match (p.p95_ms, p.mean_ms) {
                (Some(p95), mean) => {
                    let class = if p.breached { "breach" } else { "p95" };
                    let (x, y) = at(p.at_ms, p95);
                    let _ = write!(
                        svg,
                        r#"<circle cx="{x}" cy="{y}" r="{}" class="{class}"><title>{when}: p95 {p95:.1} ms, mean {} ms{}</title></circle>"#,
                        if p.breached { 5 } else { 3 },
                        mean.map_or("—".into(), |m| format!("{m:.1}")),
                        if p.breached { " — breached" } else { "" }
                    );
                }
                (None, _) => {
                    let _ = write!(
                        svg,
                        r#"<path d="M{} {bottom}v-8" class="failed"><title>{when}: failed</title></path>"#,
                        at(p.at_ms, 0.0).0
                    );
                }
            }
        }
        svg
    })
}

/// A legend entry's mark, drawn with its left edge at `x`.
type Mark<'a> = dyn Fn(i32) -> String + 'a;

/// The legend, one row along the top of the plot: each mark the chart shows, and only those it shows.
fn legend((left, top, _, _): (i32, i32, i32, i32), baseline: bool, points: &[HistoryPoint], changes: bool) -> String {
    let y = top + 8;
    // Each entry: whether the chart shows it, its mark drawn at `x`, its label.
    let entries: [(bool, &Mark<'_>, &str); 6] = [
        (true, &|x| format!(r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" class="history-line p95"/>"#, x + 16), "p95"),
        (true, &|x| format!(r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" class="history-line mean"/>"#, x + 16), "mean"),
        (
            baseline,
            &|x| format!(r#"<rect x="{x}" y="{}" width="16" height="8" class="baseline-band"/>"#, y - 4),
            "baseline, mean to p95",
        ),
        (
            points.iter().any(|p| p.breached),
            &|x| format!(r#"<circle cx="{}" cy="{y}" r="5" class="breach"/>"#, x + 8),
            "breached",
        ),
        (changes, &|x| format!(r#"<path d="M{} {}v12" class="change-point"/>"#, x + 8, y - 6), "change point"),
        (
            points.iter().any(|p| p.p95_ms.is_none()),
            &|x| format!(r#"<path d="M{} {}v-8" class="failed"/>"#, x + 8, y + 4),
            "failed",
        ),
    ];
    let mut svg = String::from(r#"<g class="legend">"#);
    let mut x = left + 8;
    for (_, mark, label) in entries.iter().filter(|(shown, _, _)| *shown) {
        let _ = write!(svg, r#"{}<text x="{}" y="{}">{label}</text>"#, mark(x), x + 22, y + 4);
        // About 6.5 px a character at the chart's 11 px text, and room before the next mark.
        x += 22 + (label.chars().count() as f64 * 6.5) as i32 + 14;
    }
    svg.push_str("</g>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(at_ms: i64, p95: Option<f64>, breached: bool) -> HistoryPoint {
        HistoryPoint { at_ms, p95_ms: p95, mean_ms: p95.map(|v| v * 0.8), breached }
    }

    #[test]
    fn draws_lines_band_breaches_and_failures() {
        let svg = schedule_history(
            &[point(0, Some(100.0), false), point(900_000, None, false), point(1_800_000, Some(250.0), true)],
            Some((90.0, 110.0)),
            &[HistoryChange { at_ms: 1_800_000, label: "p95 100 → 250 ms".into() }],
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains(r#"class="baseline-band""#) && svg.contains("baseline: mean 90.0 ms, p95 110.0 ms"));
        assert!(svg.contains("p95 250.0 ms, mean 200.0 ms — breached") && svg.contains(r#"class="breach""#));
        assert!(svg.contains("1970-01-01T00:15:00.000Z: failed"));
        assert_eq!(svg.matches("</polyline>").count(), 2, "the p95 and the mean line");
        assert!(svg.contains(r#"class="change-point"><title>change point: p95 100 → 250 ms</title>"#), "{svg}");
        let legend = svg.split(r#"<g class="legend">"#).nth(1).unwrap().split("</g>").next().unwrap();
        let labels: Vec<&str> =
            legend.split("<text").skip(1).map(|t| t.split('>').nth(1).unwrap().trim_end_matches("</text")).collect();
        assert_eq!(labels, ["p95", "mean", "baseline, mean to p95", "breached", "change point", "failed"]);
    }

    #[test]
    fn copes_with_nothing_and_one_point() {
        assert!(schedule_history(&[], None, &[]).contains("No evaluations yet"));
        let one = schedule_history(&[point(5, Some(1.0), false)], None, &[]);
        assert!(one.contains("p95 1.0 ms"));
        assert!(!one.contains(">breached<") && !one.contains(">baseline, mean to p95<"), "only the marks it shows");
    }
}
