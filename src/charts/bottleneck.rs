//! The bottleneck panel: where an average request's time goes in each arm of an A/B test — queueing and prefill
//! (TTFT) against decode (time per output token × the tokens after the first) — as stacked bars side by side, with
//! each arm's draft acceptance beside its name. Speculative decoding should shorten the decode part and leave the
//! first part alone; the picture shows at a glance whether it did.

use std::fmt::Write;

use super::escape_text;
use super::plot::{chart, empty, tick_label, Axes, Canvas};

/// One arm's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct BottleneckBar<'a> {
    /// The arm's name ("baseline", a connector's name).
    pub name: &'a str,
    /// Mean TTFT, ms: queueing and prefill as the client sees them.
    pub ttft_ms: f64,
    /// Mean decode time, ms: TPOT × (output tokens − 1).
    pub decode_ms: f64,
    /// What the arm's drafts did, in a few words ("71.2 % accepted", "no drafts").
    pub drafts: String,
}

const LABEL: &str = "Where each request's time goes: queueing and prefill (TTFT) and decode, per arm";

/// The panel as a standalone `<svg>` element.
pub fn bottleneck(bars: &[BottleneckBar]) -> String {
    let canvas = Canvas { height: 70 + 50 * bars.len().max(1) as u32, class: "bottleneck" };
    let usable = |b: &&BottleneckBar| b.ttft_ms.is_finite() && b.decode_ms.is_finite();
    if bars.is_empty() || !bars.iter().all(|b| usable(&b)) {
        return empty(canvas, LABEL, "No successful streamed requests to split");
    }
    let longest = bars.iter().map(|b| b.ttft_ms.max(0.0) + b.decode_ms.max(0.0)).fold(0.0, f64::max);
    let rows = bars.len() as f64;
    let axes = Axes {
        x: (0.0, (longest * 1.1).max(1.0)),
        y: (0.0, rows),
        x_labels: 8,
        y_labels: 0,
        x_label: &tick_label,
        y_label: &tick_label,
        x_title: "ms, mean per request",
        y_title: "",
    };
    chart(canvas, LABEL, &axes, |plot| {
        let mut svg = String::new();
        for (i, bar) in bars.iter().enumerate() {
            // Row 0 at the top: its band is y ∈ [rows − 1, rows].
            let band_top = rows - i as f64;
            let (x0, top) = plot.at(0.0, band_top - 0.45);
            let (_, bottom) = plot.at(0.0, band_top - 0.85);
            let (x1, _) = plot.at(bar.ttft_ms.max(0.0), 0.0);
            let (x2, _) = plot.at(bar.ttft_ms.max(0.0) + bar.decode_ms.max(0.0), 0.0);
            let name = escape_text(bar.name);
            let drafts = escape_text(&bar.drafts);
            let (_, label_y) = plot.at(0.0, band_top - 0.3);
            let _ = write!(
                svg,
                r#"<g class="arm"><text x="{}" y="{label_y}" class="arm-name">{name} · {drafts}</text><rect x="{x0}" y="{top}" width="{}" height="{}" class="phase prefill"><title>{name}: queueing + prefill (TTFT) {:.1} ms</title></rect><rect x="{x1}" y="{top}" width="{}" height="{}" class="phase decode"><title>{name}: decode (TPOT × tokens after the first) {:.1} ms</title></rect><text x="{}" y="{}" class="total">{:.0} ms</text></g>"#,
                x0 + 2,
                x1 - x0,
                bottom - top,
                bar.ttft_ms,
                x2 - x1,
                bottom - top,
                bar.decode_ms,
                x2 + 4,
                (top + bottom) / 2 + 4,
                bar.ttft_ms + bar.decode_ms
            );
        }
        let (left, top, _, _) = plot.edges();
        let legend_y = top - 2;
        let _ = write!(
            svg,
            r#"<g class="legend"><rect x="{}" y="{}" width="10" height="8" class="phase prefill"/><text x="{}" y="{legend_y}">queueing + prefill (TTFT)</text><rect x="{}" y="{}" width="10" height="8" class="phase decode"/><text x="{}" y="{legend_y}">decode</text></g>"#,
            left + 340,
            legend_y - 8,
            left + 354,
            left + 520,
            legend_y - 8,
            left + 534
        );
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The widths of the bar segments (rects with a title; the legend's swatches have none), in order.
    fn segment_widths(svg: &str) -> Vec<i32> {
        svg.split("<rect ")
            .filter(|rect| rect.contains("class=\"phase") && rect.contains("><title>"))
            .map(|rect| {
                let rest = &rect[rect.find("width=\"").unwrap() + 7..];
                rest[..rest.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    #[test]
    fn each_arm_splits_into_prefill_and_decode_drawn_to_scale() {
        let svg = bottleneck(&[
            BottleneckBar { name: "baseline", ttft_ms: 50.0, decode_ms: 450.0, drafts: "no drafts".into() },
            BottleneckBar { name: "spec <on>", ttft_ms: 52.0, decode_ms: 248.0, drafts: "71.2 % accepted".into() },
        ]);
        assert_eq!(svg.matches("class=\"phase prefill\"><title>").count(), 2);
        assert!(svg.contains("<title>baseline: decode (TPOT × tokens after the first) 450.0 ms</title>"), "{svg}");
        assert!(svg.contains("spec &lt;on&gt; · 71.2 % accepted") && svg.contains("baseline · no drafts"));
        assert!(svg.contains(">500 ms</text>") && svg.contains(">300 ms</text>"));
        // Decode 450 ms is 9 × prefill 50 ms, give or take a pixel.
        let widths = segment_widths(&svg);
        assert_eq!(widths.len(), 4, "{widths:?}");
        assert!((widths[1] - 9 * widths[0]).abs() <= 9, "{widths:?}");
        assert!(widths[3] < widths[1], "the candidate decodes faster, so its decode bar is shorter: {widths:?}");
    }

    #[test]
    fn nothing_to_split_says_so() {
        assert!(bottleneck(&[]).contains("No successful streamed requests"));
        let nan = BottleneckBar { name: "a", ttft_ms: f64::NAN, decode_ms: 1.0, drafts: String::new() };
        assert!(bottleneck(&[nan]).contains("No successful streamed requests"));
    }
}
