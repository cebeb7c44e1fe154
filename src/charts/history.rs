//! A schedule's history: p95 and mean total time of each evaluation over time, the pinned baseline as a band
//! from its mean to its p95, breaches marked; evaluations that failed are ticks along the bottom.

use std::fmt::Write;

use super::frame::Frame;
use super::scale::tick_label;
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

const FRAME: Frame = Frame::new(240.0);

/// The chart as a standalone `<svg>` element; `baseline` is the pinned (mean, p95), if any.
pub fn schedule_history(points: &[HistoryPoint], baseline: Option<(f64, f64)>) -> String {
    let mut svg = String::with_capacity(1_024 + points.len() * 160);
    svg.push_str(&FRAME.open("history", "p95 and mean total time of each evaluation, with the baseline band"));
    let (Some(first), Some(last)) = (points.iter().map(|p| p.at_ms).min(), points.iter().map(|p| p.at_ms).max()) else {
        FRAME.empty(&mut svg, "No evaluations yet");
        return svg;
    };
    let highest = points
        .iter()
        .flat_map(|p| [p.p95_ms, p.mean_ms])
        .flatten()
        .chain(baseline.map(|(_, p95)| p95))
        .fold(0.0, f64::max);
    let span = (last - first).max(1) as f64;
    let x = FRAME.x_scale(0.0, span);
    let y = FRAME.y_scale(0.0, (highest * 1.15).max(1.0));
    let at = |ms: i64| x.at((ms - first) as f64);
    FRAME.y_grid(&mut svg, &y, y.ticks(5), tick_label);
    FRAME.y_title(&mut svg, "ms");
    let edges: &[(&str, i64)] = if first == last { &[("middle", first)] } else { &[("start", first), ("end", last)] };
    for &(edge, ms) in edges {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="{edge}" class="tick">{}</text>"#,
            at(ms),
            FRAME.height - FRAME.bottom + 16.0,
            utc_minute(ms)
        );
    }
    if let Some((mean, p95)) = baseline {
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" class="baseline-band"><title>baseline: mean {mean:.1} ms, p95 {p95:.1} ms</title></rect>"#,
            FRAME.left,
            y.at(p95),
            FRAME.width - FRAME.right - FRAME.left,
            (y.at(mean) - y.at(p95)).max(1.0)
        );
    }
    for (class, pick) in
        [("p95", (|p: &HistoryPoint| p.p95_ms) as fn(&HistoryPoint) -> Option<f64>), ("mean", |p| p.mean_ms)]
    {
        let line: Vec<String> =
            points.iter().filter_map(|p| pick(p).map(|v| format!("{:.1},{:.1}", at(p.at_ms), y.at(v)))).collect();
        let _ = write!(svg, r#"<polyline points="{}" class="history-line {class}"/>"#, line.join(" "));
    }
    for p in points {
        let when = iso8601_utc(p.at_ms);
        match (p.p95_ms, p.mean_ms) {
            (Some(p95), mean) => {
                let class = if p.breached { "breach" } else { "p95" };
                let _ = write!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="{}" class="{class}"><title>{when}: p95 {p95:.1} ms, mean {} ms{}</title></circle>"#,
                    at(p.at_ms),
                    y.at(p95),
                    if p.breached { 5 } else { 3 },
                    mean.map_or("—".into(), |m| format!("{m:.1}")),
                    if p.breached { " — breached" } else { "" }
                );
            }
            (None, _) => {
                let _ = write!(
                    svg,
                    r#"<path d="M{:.1} {:.1}v-8" class="failed"><title>{when}: failed</title></path>"#,
                    at(p.at_ms),
                    FRAME.height - FRAME.bottom
                );
            }
        }
    }
    svg.push_str("</svg>");
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
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains(r#"class="baseline-band""#) && svg.contains("baseline: mean 90.0 ms, p95 110.0 ms"));
        assert!(svg.contains("p95 250.0 ms, mean 200.0 ms — breached") && svg.contains(r#"class="breach""#));
        assert!(svg.contains("1970-01-01T00:15:00.000Z: failed"));
        assert_eq!(svg.matches("<polyline").count(), 2);
    }

    #[test]
    fn copes_with_nothing_and_one_point() {
        assert!(schedule_history(&[], None).contains("No evaluations yet"));
        assert!(schedule_history(&[point(5, Some(1.0), false)], None).contains("p95 1.0 ms"));
    }
}
