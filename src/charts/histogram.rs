//! The latency histogram of a report: successful measured iterations binned by total time (and TTFT, drawn
//! over it), bins of a round width chosen by the Freedman–Diaconis rule and capped in number.

use std::fmt::Write;

use super::plot::{chart, empty, tick_label, Axes, Canvas};

const CANVAS: Canvas = Canvas { height: 240, class: "histogram" };
const LABEL: &str = "Histogram of latencies in ms";
/// Bins drawn at most.
const MAX_BINS: usize = 60;

/// Counts of `values` in `bins` equal bins from `lo` of width `width`.
fn counts(values: &[f64], lo: f64, width: f64, bins: usize) -> Vec<usize> {
    let mut counts = vec![0; bins];
    for v in values {
        let i = (((v - lo) / width).floor().max(0.0) as usize).min(bins - 1);
        counts[i] += 1;
    }
    counts
}

/// A round bin width: the Freedman–Diaconis width (2·IQR·n^(−1/3)) rounded up to 1, 2 or 5 × 10ⁿ, widened
/// until at most `MAX_BINS` bins cover the range.
fn bin_width(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    let (min, max) = (sorted[0], sorted[n - 1]);
    let iqr =
        crate::stats::percentile(sorted, 75.0).unwrap_or(max) - crate::stats::percentile(sorted, 25.0).unwrap_or(min);
    let raw = if iqr > 0.0 { 2.0 * iqr / (n as f64).cbrt() } else { ((max - min) / 10.0).max(1.0) };
    let raw = raw.max((max - min) / MAX_BINS as f64).max(1e-3);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|w| *w >= raw).unwrap_or(raw)
}

/// The histogram of `total` (and `ttft`, when given) as an `<svg>` element; values in ms.
pub fn latency_histogram(total: &[f64], ttft: &[f64]) -> String {
    let mut all: Vec<f64> = total.iter().chain(ttft).copied().filter(|v| v.is_finite()).collect();
    if all.is_empty() {
        return empty(CANVAS, LABEL, "No successful iterations");
    }
    all.sort_by(f64::total_cmp);
    let width = bin_width(&all);
    let lo = (all[0] / width).floor() * width;
    let bins = ((((all[all.len() - 1] - lo) / width).floor() as usize) + 1).min(MAX_BINS);
    let series = [("total", counts(total, lo, width, bins)), ("ttft", counts(ttft, lo, width, bins))];
    let peak = series.iter().flat_map(|(_, c)| c.iter().copied()).max().unwrap_or(1).max(1);
    let whole = |v: f64| if v.fract() == 0.0 { tick_label(v) } else { String::new() };
    let x_title = format!("ms (bins of {} ms)", tick_label(width));
    let axes = Axes {
        x: (lo, lo + width * bins as f64),
        y: (0.0, peak as f64 * 1.1),
        x_labels: 8,
        y_labels: 4,
        x_label: &tick_label,
        y_label: &whole,
        x_title: &x_title,
        y_title: "requests",
    };
    chart(CANVAS, LABEL, &axes, |plot| {
        let mut svg = String::with_capacity(4_096);
        for (class, counts) in &series {
            for (i, &count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                let from = lo + width * i as f64;
                let (x0, top) = plot.at(from, count as f64);
                let (x1, floor) = plot.at(from + width, 0.0);
                let _ = write!(
                    svg,
                    r#"<rect x="{}" y="{top}" width="{}" height="{}" class="bar {class}"><title>{}: {count} request(s) in {}–{} ms</title></rect>"#,
                    x0 + 1,
                    (x1 - x0 - 1).max(1),
                    (floor - top).max(0),
                    if *class == "ttft" { "TTFT" } else { "total" },
                    tick_label(from),
                    tick_label(from + width)
                );
            }
        }
        svg
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lands_in_exactly_one_bin() {
        let values: Vec<f64> = (0..1000).map(|i| 100.0 + f64::from(i % 97)).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let width = bin_width(&sorted);
        let lo = (sorted[0] / width).floor() * width;
        let bins = (((sorted[999] - lo) / width).floor() as usize) + 1;
        assert!(bins <= MAX_BINS);
        assert_eq!(counts(&values, lo, width, bins).iter().sum::<usize>(), 1000);
    }

    #[test]
    fn bars_carry_their_counts_and_one_value_still_draws() {
        let svg = latency_histogram(&[120.0, 121.0, 180.0], &[40.0]);
        assert!(svg.contains("class=\"bar total\""));
        assert!(svg.contains("class=\"bar ttft\""));
        assert!(latency_histogram(&[5.0], &[]).contains("1 request(s)"));
        assert!(latency_histogram(&[], &[]).contains("No successful iterations"));
    }
}
