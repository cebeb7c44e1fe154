//! The latency histograms of a report: successful measured iterations binned by TTFT, then by total time, each in a
//! panel of its own with bins of a round width chosen from its own values by the Freedman–Diaconis rule (capped in
//! number) — on one shared axis, a TTFT spread over 4 ms beside totals near 350 ms would be one bar each.

use std::fmt::Write;

use super::plot::{chart, empty, tick_label, Axes, Canvas};

const CANVAS: Canvas = Canvas { height: 200, class: "histogram" };
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

/// One series of an overlaid histogram: its CSS class, its name in a bar's title, its values.
pub struct Series<'a> {
    /// The bars' CSS class (`asked`, `served`).
    pub class: &'static str,
    /// What a bar's title calls it.
    pub name: &'static str,
    /// The values binned.
    pub values: &'a [f64],
}

/// What a histogram is of: its label for a screen reader, its empty state, its unit and what it counts.
struct Histogram {
    canvas: Canvas,
    label: String,
    empty: &'static str,
    unit: &'static str,
    counted: &'static str,
    /// Whether the values are whole numbers (token counts): only whole ticks are labelled.
    whole_x: bool,
}

/// The histograms of `ttft` (when any) and `total`, each an `<svg>` element with bins of its own; values in ms.
pub fn latency_histogram(total: &[f64], ttft: &[f64]) -> String {
    let panel = |class, name: &'static str, values| {
        let what = Histogram {
            canvas: CANVAS,
            label: format!("Histogram of {name} in ms"),
            empty: "No successful iterations",
            unit: "ms",
            counted: "requests",
            whole_x: false,
        };
        overlaid(&what, &[Series { class, name, values }])
    };
    let mut svg = if ttft.is_empty() { String::new() } else { panel("ttft", "TTFT", ttft) };
    svg.push_str(&panel("total", "total", total));
    svg
}

/// The histogram of token lengths a workload asked for (`asked`) beside those the server counted (`served`), as an
/// `<svg>` element: how far the server's lengths are from the plan shows at a glance.
pub fn length_histogram(asked: &[f64], served: &[f64], label: &'static str) -> String {
    token_histogram(
        &[
            Series { class: "asked", name: "asked", values: asked },
            Series { class: "served", name: "server's count", values: served },
        ],
        label,
    )
}

/// The histogram of token lengths in `series`, drawn over one another, as an `<svg>` element.
pub fn token_histogram(series: &[Series], label: &'static str) -> String {
    let what = Histogram {
        canvas: Canvas { height: 200, class: "histogram lengths" },
        label: label.to_string(),
        empty: "No lengths recorded",
        unit: "tokens",
        counted: "requests",
        whole_x: true,
    };
    overlaid(&what, series)
}

/// The series drawn over one another in bins of one round width.
fn overlaid(what: &Histogram, series: &[Series]) -> String {
    let mut all: Vec<f64> = series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite()).collect();
    if all.is_empty() {
        return empty(what.canvas, &what.label, what.empty);
    }
    all.sort_by(f64::total_cmp);
    // Whole things (tokens) are never binned in fractions of one.
    let width = if what.whole_x { bin_width(&all).max(1.0) } else { bin_width(&all) };
    let lo = (all[0] / width).floor() * width;
    let bins = ((((all[all.len() - 1] - lo) / width).floor() as usize) + 1).min(MAX_BINS);
    let counted: Vec<Vec<usize>> = series.iter().map(|s| counts(s.values, lo, width, bins)).collect();
    let peak = counted.iter().flat_map(|c| c.iter().copied()).max().unwrap_or(1).max(1);
    let whole = |v: f64| if v.fract() == 0.0 { tick_label(v) } else { String::new() };
    // One series: its name says what the bars are (several: the legend does).
    let named = match series {
        [one] => format!("{} ", one.name),
        _ => String::new(),
    };
    let bin_unit = if width == 1.0 && what.unit == "tokens" { "token" } else { what.unit };
    let x_title = format!("{named}{} (bins of {} {bin_unit})", what.unit, tick_label(width));
    let axes = Axes {
        x: (lo, lo + width * bins as f64),
        y: (0.0, peak as f64 * 1.1),
        x_labels: 8,
        y_labels: 4,
        // Counts of whole things (tokens) have no fractional ticks.
        x_label: if what.whole_x { &whole } else { &tick_label },
        y_label: &whole,
        x_title: &x_title,
        y_title: what.counted,
    };
    chart(what.canvas, &what.label, &axes, |plot| {
        let mut svg = String::with_capacity(4_096);
        for (s, counts) in series.iter().zip(&counted) {
            for (i, &count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                let from = lo + width * i as f64;
                let (x0, top) = plot.at(from, count as f64);
                let (x1, floor) = plot.at(from + width, 0.0);
                let _ = write!(
                    svg,
                    r#"<rect x="{}" y="{top}" width="{}" height="{}" class="bar {}"><title>{}: {count} request(s) in {}–{} {}</title></rect>"#,
                    x0 + 1,
                    (x1 - x0 - 1).max(1),
                    (floor - top).max(0),
                    s.class,
                    s.name,
                    tick_label(from),
                    tick_label(from + width),
                    what.unit,
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
        assert_eq!(svg.matches("<svg").count(), 2, "a panel each");
        assert!(latency_histogram(&[5.0], &[]).contains("1 request(s)"));
        assert!(latency_histogram(&[], &[]).contains("No successful iterations"));
    }

    #[test]
    fn each_latency_gets_bins_of_its_own_spread() {
        // TTFT within 4 ms near 120, totals within 4 ms near 350: on one axis both would be a single 200 ms bar.
        let ttft: Vec<f64> = (0..200).map(|i| 120.0 + f64::from(i % 5)).collect();
        let total: Vec<f64> = (0..200).map(|i| 346.0 + f64::from(i % 5)).collect();
        let svg = latency_histogram(&total, &ttft);
        assert!(svg.contains("TTFT ms (bins of 1 ms)") && svg.contains("total ms (bins of 1 ms)"), "{svg}");
        assert_eq!(svg.matches("class=\"bar ttft\"").count(), 5, "five bars of 40: {svg}");
        assert_eq!(svg.matches("class=\"bar total\"").count(), 5);
        assert!(!latency_histogram(&total, &[]).contains("TTFT"), "no TTFT panel for a run that was not streamed");
    }

    #[test]
    fn a_length_histogram_draws_the_asked_and_the_served_lengths_in_tokens() {
        let svg = length_histogram(&[100.0, 100.0, 200.0], &[103.0, 103.0, 203.0], "Prompt lengths");
        assert!(svg.contains("class=\"bar asked\"") && svg.contains("class=\"bar served\""), "{svg}");
        assert!(svg.contains("asked: 2 request(s) in 100–") && svg.contains("tokens</title>"), "{svg}");
        assert!(length_histogram(&[], &[], "Prompt lengths").contains("No lengths recorded"));
        let lengths: Vec<f64> = (0..300).map(|i| 10.0 + f64::from(i % 3)).collect();
        let one_wide = length_histogram(&lengths, &lengths, "Prompt lengths");
        assert!(one_wide.contains("(bins of 1 token)"), "{one_wide}");
    }
}
