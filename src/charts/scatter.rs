//! The per-iteration latency scatter: x = send order, y = ms; TTFT and total time as two series, failures
//! marked with a cross at their total time.

use std::fmt::Write;

use super::frame::Frame;
use super::scale::tick_label;

/// One iteration to plot.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Points drawn at most; beyond this an even subset is drawn (every point still counts in the statistics).
const MAX_DRAWN: usize = 4_000;

const FRAME: Frame = Frame::new(280.0);

/// The scatter as a standalone `<svg>` element.
pub fn latency_scatter(points: &[ScatterPoint]) -> String {
    let mut svg = String::with_capacity(256 + points.len().min(MAX_DRAWN) * 64);
    svg.push_str(&FRAME.open("scatter", "Latency per iteration: TTFT and total time in ms by send order"));
    if points.is_empty() {
        FRAME.empty(&mut svg, "No iterations yet");
        return svg;
    }
    let stride = points.len().div_ceil(MAX_DRAWN);
    let drawn: Vec<&ScatterPoint> = points.iter().step_by(stride).collect();
    let max_seq = points.iter().map(|p| p.seq).max().unwrap_or(0) as f64;
    // Headroom above the highest point keeps the legend clear of the data.
    let max_ms = points.iter().map(|p| p.total_ms).fold(0.0, f64::max) * 1.15;
    let x = FRAME.x_scale(0.0, max_seq.max(1.0));
    let y = FRAME.y_scale(0.0, max_ms.max(1.0));
    FRAME.y_grid(&mut svg, &y, y.ticks(5), tick_label);
    FRAME.x_ticks(&mut svg, &x, x.ticks(8).into_iter().filter(|t| t.fract() == 0.0), tick_label);
    FRAME.x_title(&mut svg, "iteration (send order)");
    FRAME.y_title(&mut svg, "ms");
    for p in &drawn {
        let px = x.at(p.seq as f64);
        let py = y.at(p.total_ms);
        if p.error {
            let _ = write!(
                svg,
                r#"<path d="M{:.1} {:.1}l6 6m0 -6l-6 6" class="error"><title>#{}: failed after {:.1} ms</title></path>"#,
                px - 3.0,
                py - 3.0,
                p.seq,
                p.total_ms
            );
            continue;
        }
        let _ = write!(
            svg,
            r#"<circle cx="{px:.1}" cy="{py:.1}" r="2.5" class="total"><title>#{}: total {:.1} ms</title></circle>"#,
            p.seq, p.total_ms
        );
        if let Some(ttft) = p.ttft_ms {
            let _ = write!(
                svg,
                r#"<circle cx="{px:.1}" cy="{:.1}" r="2.5" class="ttft"><title>#{}: TTFT {ttft:.1} ms</title></circle>"#,
                y.at(ttft),
                p.seq
            );
        }
    }
    let (lx, top) = (FRAME.width - FRAME.right - 190.0, FRAME.top);
    let _ = write!(
        svg,
        r#"<g class="legend"><circle cx="{lx}" cy="{top}" r="3" class="ttft"/><text x="{}" y="{}">TTFT</text><circle cx="{}" cy="{top}" r="3" class="total"/><text x="{}" y="{}">total</text><path d="M{} {}l6 6m0 -6l-6 6" class="error"/><text x="{}" y="{}">failed</text></g>"#,
        lx + 8.0,
        top + 4.0,
        lx + 60.0,
        lx + 68.0,
        top + 4.0,
        lx + 118.0,
        top - 3.0,
        lx + 130.0,
        top + 4.0,
    );
    if stride > 1 {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end" class="note">showing every {stride}th of {} points</text>"#,
            FRAME.width - FRAME.right,
            FRAME.height - 4.0,
            points.len()
        );
    }
    svg.push_str("</svg>");
    svg
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
        assert!(svg.contains("showing every 25th of 100000 points"));
    }
}
