//! The knee of a throughput–latency curve: where adding load stops buying throughput and starts buying latency.
//! Stepping from one level to the next, throughput grows by ΔT/T and latency (total p95) by ΔL/L; the knee is the
//! level before the first step on which latency grew faster than throughput and by more than 10 % (smaller moves
//! are run-to-run noise).

use crate::capacity::report::CapacityLevel;

/// Latency growth below this share is not taken as a knee.
pub const NOISE: f64 = 0.10;

/// The knee of `levels` (any order); `None` when no step qualifies.
pub fn knee(levels: &[CapacityLevel]) -> Option<f64> {
    let mut points: Vec<(f64, f64, f64)> = levels
        .iter()
        .filter_map(|l| Some((l.level, l.throughput_rps?, l.total_ms?.p95)))
        .filter(|(_, t, l)| *t > 0.0 && *l > 0.0)
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points.windows(2).find_map(|w| {
        let ((level, t0, l0), (_, t1, l1)) = (w[0], w[1]);
        let latency_growth = (l1 - l0) / l0;
        let throughput_growth = (t1 - t0) / t0;
        (latency_growth > NOISE && latency_growth > throughput_growth).then_some(level)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Percentiles;

    fn level(level: f64, throughput: f64, p95: f64) -> CapacityLevel {
        let latency = Percentiles { p50: p95, p95, p99: p95 };
        CapacityLevel {
            throughput_rps: Some(throughput),
            ttft_ms: Some(latency),
            total_ms: Some(latency),
            ..CapacityLevel::at(level)
        }
    }

    #[test]
    fn the_knee_is_where_latency_outgrows_throughput() {
        // 4 slots: throughput doubles with flat latency up to 4, then stays while latency climbs.
        let curve = [level(8.0, 80.0, 110.0), level(1.0, 20.0, 50.0), level(2.0, 40.0, 51.0), level(4.0, 79.0, 52.0)];
        assert_eq!(knee(&curve), Some(4.0));
        // Latency rising, but throughput rising faster: no knee yet.
        assert_eq!(knee(&[level(1.0, 10.0, 50.0), level(2.0, 19.0, 60.0), level(4.0, 36.0, 75.0)]), None);
        // Noise: 5 % more latency for no more throughput is not a knee.
        assert_eq!(knee(&[level(1.0, 10.0, 50.0), level(2.0, 10.0, 52.5)]), None);
        assert_eq!(knee(&[level(1.0, 10.0, 50.0)]), None);
    }
}
