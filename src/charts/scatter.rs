//! The per-iteration latency scatter: x = send order, y = ms; TTFT and total time as two series, failures
//! marked with a cross at their total time.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::plot::{chart, empty, tick_label, Axes, Canvas};

/// One iteration to plot.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScatterPoint {
    /// Send order (x).
    pub seq: u64,
    /// TTFT, ms.
    pub ttft_ms: Option<f64>,
    /// Total time, ms.
    pub total_ms: f64,
    /// Failed.
    pub error: bool,
}

/// Points drawn at most; beyond this a subset is drawn (every point still counts in the statistics).
const MAX_DRAWN: usize = 4_000;

/// Of the drawn points, how many may be failures kept whatever their place, and how many of the slowest.
const KEPT_FAILURES: usize = 1_000;
const KEPT_SLOWEST: usize = 50;

/// What a scatter draws of a run: at most `MAX_DRAWN` points and how many there were. Small enough to send
/// to the browser whatever the run's size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScatterSample {
    /// The points drawn, in send order.
    pub points: Vec<ScatterPoint>,
    /// How many points the run had.
    pub of: usize,
}

impl ScatterSample {
    /// The sample of `points`.
    pub fn of(points: &[ScatterPoint]) -> Self {
        Self { points: thin(points), of: points.len() }
    }
}

/// The points a scatter of `points` draws, in send order: all of them up to `MAX_DRAWN`; beyond, the slowest
/// ones, the failures (evenly thinned past a thousand), the first and last, and an even spread of the rest.
/// Outliers and failures are what a reader looks for on a scatter, so thinning must not hide them.
fn thin(points: &[ScatterPoint]) -> Vec<ScatterPoint> {
    if points.len() <= MAX_DRAWN {
        return points.to_vec();
    }
    let mut keep = vec![false; points.len()];
    let mut by_total: Vec<usize> = (0..points.len()).collect();
    by_total.sort_by(|&a, &b| points[b].total_ms.total_cmp(&points[a].total_ms));
    by_total.iter().take(KEPT_SLOWEST).for_each(|&i| keep[i] = true);
    let failures: Vec<usize> = (0..points.len()).filter(|&i| points[i].error).collect();
    let failure_stride = failures.len().div_ceil(KEPT_FAILURES).max(1);
    failures.iter().step_by(failure_stride).for_each(|&i| keep[i] = true);
    keep[0] = true;
    keep[points.len() - 1] = true;
    let spread = MAX_DRAWN.saturating_sub(keep.iter().filter(|&&k| k).count()).max(1);
    let stride = points.len().div_ceil(spread);
    (0..points.len()).step_by(stride).for_each(|i| keep[i] = true);
    points.iter().zip(keep).filter_map(|(p, k)| k.then_some(*p)).collect()
}

const CANVAS: Canvas = Canvas { height: 280, class: "scatter" };
const LABEL: &str = "Latency per iteration: TTFT and total time in ms by send order";

/// The scatter of `points` as a standalone `<svg>` element.
pub fn latency_scatter(points: &[ScatterPoint]) -> String {
    sampled_scatter(&ScatterSample::of(points))
}

/// The scatter of a sample as a standalone `<svg>` element.
pub fn sampled_scatter(sample: &ScatterSample) -> String {
    let drawn = &sample.points;
    if drawn.is_empty() {
        return empty(CANVAS, LABEL, "No iterations yet");
    }
    let max_seq = drawn.iter().map(|p| p.seq).max().unwrap_or(0) as f64;
    // Headroom above the highest point keeps the legend clear of the data.
    let max_ms = drawn.iter().map(|p| p.total_ms).fold(0.0, f64::max) * 1.15;
    let whole = |v: f64| if v.fract() == 0.0 { tick_label(v) } else { String::new() };
    let axes = Axes {
        x: (0.0, max_seq.max(1.0)),
        y: (0.0, max_ms.max(1.0)),
        x_labels: 8,
        y_labels: 5,
        x_label: &whole,
        y_label: &tick_label,
        x_title: "iteration (send order)",
        y_title: "ms",
    };
    chart(CANVAS, LABEL, &axes, |plot| {
        let mut svg = String::with_capacity(256 + drawn.len() * 96);
        for p in drawn {
            let (px, py) = plot.at(p.seq as f64, p.total_ms);
            if p.error {
                let _ = write!(
                    svg,
                    r#"<path d="M{} {}l6 6m0 -6l-6 6" class="error"><title>#{}: failed after {:.1} ms</title></path>"#,
                    px - 3,
                    py - 3,
                    p.seq,
                    p.total_ms
                );
                continue;
            }
            let _ = write!(
                svg,
                r#"<circle cx="{px}" cy="{py}" r="2.5" class="total"><title>#{}: total {:.1} ms</title></circle>"#,
                p.seq, p.total_ms
            );
            if let Some(ttft) = p.ttft_ms {
                let _ = write!(
                    svg,
                    r#"<circle cx="{px}" cy="{}" r="2.5" class="ttft"><title>#{}: TTFT {ttft:.1} ms</title></circle>"#,
                    plot.at(p.seq as f64, ttft).1,
                    p.seq
                );
            }
        }
        let (_, top, right, bottom) = plot.edges();
        let lx = right - 190;
        let _ = write!(
            svg,
            r#"<g class="legend"><circle cx="{lx}" cy="{top}" r="3" class="ttft"/><text x="{}" y="{}">TTFT</text><circle cx="{}" cy="{top}" r="3" class="total"/><text x="{}" y="{}">total</text><path d="M{} {}l6 6m0 -6l-6 6" class="error"/><text x="{}" y="{}">failed</text></g>"#,
            lx + 8,
            top + 4,
            lx + 60,
            lx + 68,
            top + 4,
            lx + 118,
            top - 3,
            lx + 130,
            top + 4,
        );
        if drawn.len() < sample.of {
            let _ = write!(
                svg,
                r#"<text x="{right}" y="{}" text-anchor="end" class="note">{} of {} points drawn: the {KEPT_SLOWEST} slowest and failures (up to {KEPT_FAILURES}) always</text>"#,
                bottom + 36,
                drawn.len(),
                sample.of
            );
        }
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(seq: u64, total: f64, error: bool) -> ScatterPoint {
        ScatterPoint { seq, ttft_ms: (!error).then_some(total / 4.0), total_ms: total, error }
    }

    #[test]
    fn draws_both_series_and_marks_failures() {
        let svg = latency_scatter(&[point(0, 100.0, false), point(1, 250.0, true)]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="ttft""#).count(), 2, "one point and the legend");
        assert!(svg.contains("#1: failed after 250.0 ms"));
        assert!(svg.contains(">ms</text>") && svg.contains("iteration (send order)"));
    }

    #[test]
    fn copes_with_one_point_none_and_many() {
        assert!(latency_scatter(&[point(0, 5.0, false)]).contains("#0: total 5.0 ms"));
        assert!(latency_scatter(&[]).contains("No iterations yet"));
        let many: Vec<ScatterPoint> = (0..100_000).map(|i| point(i, (i % 97) as f64, false)).collect();
        let svg = latency_scatter(&many);
        assert!(svg.matches("<circle").count() <= 2 * MAX_DRAWN + 2);
        assert!(svg.contains(" of 100000 points drawn"), "the note says how many were drawn");
    }

    #[test]
    fn thinning_keeps_the_outliers_failures_and_ends() {
        let mut many: Vec<ScatterPoint> = (0..100_000).map(|i| point(i, 100.0 + (i % 7) as f64, false)).collect();
        many[31_337] = point(31_337, 9_000.0, false);
        many[77_777] = point(77_777, 40.0, true);
        let sample = ScatterSample::of(&many);
        assert!(sample.points.len() <= MAX_DRAWN, "{} drawn", sample.points.len());
        assert_eq!(sample.of, 100_000);
        let seqs: Vec<u64> = sample.points.iter().map(|p| p.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "send order, no repeats");
        for kept in [0, 31_337, 77_777, 99_999] {
            assert!(seqs.contains(&kept), "#{kept} kept");
        }
        assert_eq!(ScatterSample::of(&sample.points).points, sample.points, "a sample thins no further");
        assert!(sampled_scatter(&sample).contains("#31337: total 9000.0 ms"), "the spike is drawn");
    }
}
