//! The per-iteration latency scatter: x = send order, y = ms; TTFT and total time as two series, failures
//! marked with a cross at their total time.

use std::fmt::Write;

use super::scale::{tick_label, Scale};

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

const W: f64 = 720.0;
const H: f64 = 280.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 40.0;

/// The scatter as a standalone `<svg>` element.
pub fn latency_scatter(points: &[ScatterPoint]) -> String {
    let mut svg = String::with_capacity(256 + points.len().min(MAX_DRAWN) * 64);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" class="chart scatter" role="img" aria-label="Latency per iteration: TTFT and total time in ms by send order">"#
    );
    if points.is_empty() {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="empty">No iterations yet</text></svg>"#,
            W / 2.0,
            H / 2.0
        );
        return svg;
    }
    let stride = points.len().div_ceil(MAX_DRAWN);
    let drawn: Vec<&ScatterPoint> = points.iter().step_by(stride).collect();
    let max_seq = points.iter().map(|p| p.seq).max().unwrap_or(0) as f64;
    // Headroom above the highest point keeps the legend clear of the data.
    let max_ms = points.iter().map(|p| p.total_ms).fold(0.0, f64::max) * 1.15;
    let x = Scale::new(0.0, max_seq.max(1.0), LEFT, W - RIGHT);
    let y = Scale::new(0.0, max_ms.max(1.0), H - BOTTOM, TOP);

    for tick in y.ticks(5) {
        let py = y.at(tick);
        let _ = write!(
            svg,
            r#"<line x1="{LEFT}" x2="{}" y1="{py:.1}" y2="{py:.1}" class="grid"/><text x="{}" y="{:.1}" text-anchor="end" class="tick">{}</text>"#,
            W - RIGHT,
            LEFT - 6.0,
            py + 4.0,
            tick_label(tick)
        );
    }
    for tick in x.ticks(8).into_iter().filter(|t| t.fract() == 0.0) {
        let px = x.at(tick);
        let _ = write!(
            svg,
            r#"<text x="{px:.1}" y="{}" text-anchor="middle" class="tick">{}</text>"#,
            H - BOTTOM + 16.0,
            tick_label(tick)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle" class="axis">iteration (send order)</text><text x="14" y="{}" text-anchor="middle" class="axis" transform="rotate(-90 14 {})">ms</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 4.0,
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0
    );
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
    let lx = W - RIGHT - 190.0;
    let _ = write!(
        svg,
        r#"<g class="legend"><circle cx="{lx}" cy="{TOP}" r="3" class="ttft"/><text x="{}" y="{}">TTFT</text><circle cx="{}" cy="{TOP}" r="3" class="total"/><text x="{}" y="{}">total</text><path d="M{} {}l6 6m0 -6l-6 6" class="error"/><text x="{}" y="{}">failed</text></g>"#,
        lx + 8.0,
        TOP + 4.0,
        lx + 60.0,
        lx + 68.0,
        TOP + 4.0,
        lx + 118.0,
        TOP - 3.0,
        lx + 130.0,
        TOP + 4.0,
    );
    if stride > 1 {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end" class="note">showing every {stride}th of {} points</text>"#,
            W - RIGHT,
            H - 4.0,
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
