//! A sweep's two charts. The curve: TTFT and total-time p50 / p95 of each level against the throughput it
//! achieved, levels joined in load order, the knee ringed — where a curve turns upward, more load buys latency
//! instead of throughput. The load chart: throughput, goodput and (open loop) the achieved send rate against the
//! load asked, so a generator that fell behind, or goodput falling while throughput holds, shows at a glance.

use std::fmt::Write;

use crate::capacity::model::LoadAxis;
use crate::charts::plot::{chart, empty, tick_label, Axes, Canvas, Plot};
use crate::model::{trim_number, Slo, SloMetric, SloScope};
use crate::stats::Percentiles;

/// One level as the sweep charts draw it.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    /// The load.
    pub level: f64,
    /// Whether it passed.
    pub passed: bool,
    /// Completions per second.
    pub throughput_rps: Option<f64>,
    /// Good completions per second.
    pub good_rps: Option<f64>,
    /// Open loop: sends per second achieved.
    pub achieved_rate: Option<f64>,
    /// TTFT percentiles, ms.
    pub ttft_ms: Option<Percentiles>,
    /// Total-time percentiles, ms.
    pub total_ms: Option<Percentiles>,
}

/// What the sweep charts draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepChart {
    /// The load varied.
    pub axis: LoadAxis,
    /// Every level.
    pub points: Vec<SweepPoint>,
    /// The knee's level.
    pub knee: Option<f64>,
    /// The sweep's objectives; those on TTFT or total time are drawn on the curve as the bounds they are.
    pub objectives: Vec<Slo>,
}

/// An objective as its line on the curve is labelled (`TTFT p95 ≤ 500 ms`); `None` for one on time per token or
/// between tokens, which is not on the curve's scale.
fn objective_label(slo: &Slo) -> Option<String> {
    let metric = match slo.metric {
        SloMetric::Ttft => "TTFT",
        SloMetric::Total => "total",
        SloMetric::Tpot | SloMetric::Itl => return None,
    };
    let scope = match slo.scope {
        SloScope::PerRequest => " of every request".to_string(),
        SloScope::Percentile(p) => format!(" p{p}"),
    };
    Some(format!("objective: {metric}{scope} ≤ {} ms", trim_number(slo.bound_ms)))
}

/// A level as a point's label says it: `c=4` in flight, `4/s` asked.
fn short_level(axis: LoadAxis, level: f64) -> String {
    match axis {
        LoadAxis::Concurrency => format!("c={}", level.round()),
        LoadAxis::Rate => format!("{}/s", trim_number(level)),
    }
}

const CURVE: Canvas = Canvas { height: 260, class: "sweep-curve" };
const CURVE_LABEL: &str = "Latency against throughput, one point per level: TTFT and total time, p50 and p95";
const LOAD: Canvas = Canvas { height: 220, class: "sweep-load" };
const LOAD_LABEL: &str = "Throughput, goodput and the achieved send rate against the load asked";

/// One line of a chart.
struct Series {
    name: &'static str,
    class: &'static str,
    pick: fn(&SweepPoint) -> Option<f64>,
}

fn p50(p: Option<Percentiles>) -> Option<f64> {
    p.map(|p| p.p50)
}

fn p95(p: Option<Percentiles>) -> Option<f64> {
    p.map(|p| p.p95)
}

const LATENCY: [Series; 4] = [
    Series { name: "total p95", class: "total p95", pick: |l| p95(l.total_ms) },
    Series { name: "total p50", class: "total p50", pick: |l| p50(l.total_ms) },
    Series { name: "TTFT p95", class: "ttft p95", pick: |l| p95(l.ttft_ms) },
    Series { name: "TTFT p50", class: "ttft p50", pick: |l| p50(l.ttft_ms) },
];

const RATES: [Series; 3] = [
    Series { name: "throughput", class: "total p95", pick: |l| l.throughput_rps },
    Series { name: "goodput", class: "ttft p95", pick: |l| l.good_rps },
    Series { name: "achieved send rate", class: "total p50", pick: |l| l.achieved_rate },
];

/// The rates when goodput is throughput at every level (every completed request met the per-request objectives, or
/// there are none): one line says so, instead of a goodput line drawn exactly over the throughput's and hiding it.
const RATES_ALL_GOOD: [Series; 2] = [
    Series { name: "throughput (= goodput at every level)", class: "total p95", pick: |l| l.throughput_rps },
    Series { name: "achieved send rate", class: "total p50", pick: |l| l.achieved_rate },
];

/// Whether goodput equals throughput at every level that has either.
fn all_good(report: &SweepChart) -> bool {
    report.points.iter().all(|l| match (l.throughput_rps, l.good_rps) {
        (Some(t), Some(g)) => (t - g).abs() <= 1e-9 * t.abs().max(1.0),
        (None, None) => true,
        _ => false,
    })
}

/// The levels in load order.
fn sorted(report: &SweepChart) -> Vec<&SweepPoint> {
    let mut levels: Vec<&SweepPoint> = report.points.iter().collect();
    levels.sort_by(|a, b| a.level.total_cmp(&b.level));
    levels
}

/// Draws `series` as lines through `(x(level), series(level))`, with a titled mark per point and a legend.
fn lines(plot: &Plot, report: &SweepChart, series: &[Series], x: fn(&SweepPoint) -> Option<f64>, unit: &str) -> String {
    let mut svg = String::new();
    let (left, top, _, _) = plot.edges();
    let mut drawn = 0;
    for s in series {
        let mut points = Vec::new();
        let mut marks = String::new();
        for level in sorted(report) {
            let (Some(px), Some(py)) = (x(level), (s.pick)(level)) else { continue };
            let (cx, cy) = plot.at(px, py);
            points.push(format!("{cx},{cy}"));
            let _ = write!(
                marks,
                r#"<circle cx="{cx}" cy="{cy}" r="3" class="slice-point {}"><title>{}: {} {py:.1} {unit} at {:.2} req/s{}</title></circle>"#,
                s.class,
                report.axis.describe(level.level),
                s.name,
                level.throughput_rps.unwrap_or(0.0),
                if level.passed { "" } else { " (failed)" }
            );
        }
        if points.is_empty() {
            continue;
        }
        let ly = top + 6 + drawn * 16;
        drawn += 1;
        let _ = write!(
            svg,
            r#"<polyline points="{}" class="slice-line {}"/>{marks}<g class="legend"><line x1="{}" x2="{}" y1="{ly}" y2="{ly}" class="slice-line {}"/><text x="{}" y="{}">{}</text></g>"#,
            points.join(" "),
            s.class,
            left + 12,
            left + 30,
            s.class,
            left + 36,
            ly + 4,
            s.name
        );
    }
    svg
}

fn highest(report: &SweepChart, series: &[Series]) -> f64 {
    report.points.iter().flat_map(|l| series.iter().filter_map(|s| (s.pick)(l))).fold(0.0, f64::max)
}

/// Latency against throughput, the knee ringed.
pub fn sweep_curve_chart(report: &SweepChart) -> String {
    let throughput = |l: &SweepPoint| l.throughput_rps;
    let widest = report.points.iter().filter_map(throughput).fold(0.0, f64::max);
    if widest <= 0.0 {
        return empty(CURVE, CURVE_LABEL, "No level measured yet");
    }
    let objectives: Vec<(f64, String)> =
        report.objectives.iter().filter_map(|o| Some((o.bound_ms, objective_label(o)?))).collect();
    // High enough for every point and every objective's line, so a bound far above the levels still shows.
    let top = objectives.iter().map(|(bound, _)| *bound).fold(highest(report, &LATENCY), f64::max);
    let axes = Axes {
        x: (0.0, widest * 1.1),
        y: (0.0, (top * 1.15).max(1.0)),
        x_labels: 8,
        y_labels: 4,
        x_label: &tick_label,
        y_label: &tick_label,
        x_title: "throughput achieved, completed requests per second",
        y_title: "ms",
    };
    chart(CURVE, CURVE_LABEL, &axes, |plot| {
        let (_, _, right, _) = plot.edges();
        let mut svg = String::new();
        for (bound, label) in &objectives {
            let (left, y) = plot.at(0.0, *bound);
            let _ = write!(
                svg,
                r#"<g class="objective"><line x1="{left}" x2="{right}" y1="{y}" y2="{y}" class="objective-line"/><text x="{}" y="{}" text-anchor="end" class="objective-label">{label}</text></g>"#,
                right - 4,
                y - 4
            );
        }
        svg.push_str(&lines(plot, report, &LATENCY, throughput, "ms"));
        // Each level named beside its highest point (total p95), so the curve reads as the loads it was made of.
        for level in sorted(report) {
            let (Some(x), Some(y)) = (level.throughput_rps, p95(level.total_ms)) else { continue };
            let (cx, cy) = plot.at(x, y);
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" class="level-label">{}</text>"#,
                cx + 6,
                cy - 6,
                short_level(report.axis, level.level)
            );
        }
        let knee = report.knee.and_then(|k| report.points.iter().find(|l| l.level == k));
        if let Some((level, x, y)) = knee.and_then(|l| Some((l, l.throughput_rps?, l.total_ms?.p95))) {
            let (cx, cy) = plot.at(x, y);
            let _ = write!(
                svg,
                r#"<circle cx="{cx}" cy="{cy}" r="9" class="sweep-knee"><title>the knee: {} ({x:.2} req/s, total p95 {y:.1} ms)</title></circle>"#,
                report.axis.describe(level.level)
            );
        }
        svg
    })
}

/// Throughput, goodput and achieved rate against the load asked.
pub fn sweep_load_chart(report: &SweepChart) -> String {
    let Some(top_level) = report.points.iter().map(|l| l.level).reduce(f64::max) else {
        return empty(LOAD, LOAD_LABEL, "No level measured yet");
    };
    let rates: &[Series] = if all_good(report) { &RATES_ALL_GOOD } else { &RATES };
    let axes = Axes {
        x: (0.0, top_level * 1.05),
        y: (0.0, (highest(report, rates) * 1.15).max(1.0)),
        x_labels: 8,
        y_labels: 4,
        x_label: &|v| trim_number(v),
        y_label: &tick_label,
        x_title: match report.axis {
            crate::capacity::model::LoadAxis::Concurrency => "requests in flight",
            crate::capacity::model::LoadAxis::Rate => "requests per second asked",
        },
        y_title: "req/s",
    };
    chart(LOAD, LOAD_LABEL, &axes, |plot| lines(plot, report, rates, |l| Some(l.level), "req/s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(level: f64, throughput: f64, total: f64) -> SweepPoint {
        let p = |v: f64| Percentiles { p50: v, p95: v * 1.2, p99: v * 1.5 };
        SweepPoint {
            level,
            passed: level <= 4.0,
            throughput_rps: Some(throughput),
            good_rps: Some(throughput),
            achieved_rate: None,
            ttft_ms: Some(p(total / 3.0)),
            total_ms: Some(p(total)),
        }
    }

    fn report(points: Vec<SweepPoint>, knee: Option<f64>) -> SweepChart {
        SweepChart { axis: LoadAxis::Concurrency, points, knee, objectives: Vec::new() }
    }

    #[test]
    fn the_curve_joins_levels_in_load_order_and_rings_the_knee() {
        let r = report(vec![level(8.0, 130.0, 60.0), level(1.0, 33.0, 30.0), level(4.0, 130.0, 30.0)], Some(4.0));
        let svg = sweep_curve_chart(&r);
        assert_eq!(svg.matches(r#"class="slice-line"#).count(), 8, "four lines and their legend");
        assert!(svg.contains("<title>the knee: 4 in flight (130.00 req/s, total p95 36.0 ms)</title>"), "{svg}");
        assert!(svg.contains("<title>8 in flight: total p95 72.0 ms at 130.00 req/s (failed)</title>"), "{svg}");
        for label in ["c=1", "c=4", "c=8"] {
            assert!(
                svg.contains(&format!(r#"class="level-label">{label}</text>"#)),
                "each point says its level: {svg}"
            );
        }
        let load = sweep_load_chart(&r);
        assert_eq!(
            load.matches(r#"class="slice-line"#).count(),
            2,
            "one line where goodput is throughput; no send rate"
        );
        assert!(load.contains("throughput (= goodput at every level)"), "{load}");
        let mut some_bad = r.clone();
        some_bad.points[0].good_rps = Some(100.0);
        let load = sweep_load_chart(&some_bad);
        assert_eq!(load.matches(r#"class="slice-line"#).count(), 4, "throughput and goodput apart: two lines");
        assert!(sweep_curve_chart(&report(vec![], None)).contains("No level measured yet"));
        assert!(sweep_load_chart(&report(vec![], None)).contains("No level measured yet"));
    }

    #[test]
    fn objectives_on_ttft_and_total_are_lines_on_the_curve_and_raise_its_scale_to_show_them() {
        let mut r = report(vec![level(1.0, 33.0, 30.0), level(2.0, 60.0, 40.0)], None);
        r.objectives =
            ["ttft_p95_ms<=500", "total_ms<=2000", "tpot_ms<=50"].iter().map(|s| Slo::parse(s).unwrap()).collect();
        let svg = sweep_curve_chart(&r);
        assert_eq!(svg.matches(r#"class="objective-line""#).count(), 2, "no line for time per token: {svg}");
        assert!(svg.contains(">objective: TTFT p95 ≤ 500 ms</text>"), "{svg}");
        assert!(svg.contains(">objective: total of every request ≤ 2000 ms</text>"), "{svg}");
        let y = |label: &str| -> i32 {
            let before = svg.split(label).next().unwrap();
            let at = before.rfind("y1=\"").unwrap() + 4;
            before[at..].split('"').next().unwrap().parse().unwrap()
        };
        // SVG's y grows downwards: the higher bound is the higher line, and both are inside the plot.
        assert!(y(">objective: total of every request") < y(">objective: TTFT p95"), "{svg}");
        assert!(y(">objective: total of every request") > 0);
    }
}
