//! Every inter-token gap of a run, kept small: a histogram with logarithmic buckets (the DDSketch layout), so that
//! per-token ITL percentiles pooled over all requests — vLLM's definition — can be reported without storing each
//! gap. A bucket spans values within ±[`RELATIVE_ACCURACY`] of its representative, so a percentile read from the
//! histogram is within 1 % of the order statistic it stands for. Histograms of requests merge exactly.

use std::collections::BTreeMap;

/// How far a reported value may be from the true order statistic, relatively.
pub const RELATIVE_ACCURACY: f64 = 0.01;

/// Values at or below this many ms count as zero (a gap of under a nanosecond is a merged burst).
const ZERO_MS: f64 = 1e-6;

/// Counts of values per logarithmic bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogHistogram {
    buckets: BTreeMap<i32, u64>,
    zeros: u64,
}

fn gamma() -> f64 {
    (1.0 + RELATIVE_ACCURACY) / (1.0 - RELATIVE_ACCURACY)
}

impl LogHistogram {
    /// Counts one value (negative and NaN values are ignored).
    pub fn add(&mut self, value: f64) {
        if value.is_nan() || value < 0.0 {
            return;
        }
        if value <= ZERO_MS {
            self.zeros += 1;
            return;
        }
        let index = (value.ln() / gamma().ln()).ceil() as i32;
        *self.buckets.entry(index).or_insert(0) += 1;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &LogHistogram) {
        self.zeros += other.zeros;
        for (index, count) in &other.buckets {
            *self.buckets.entry(*index).or_insert(0) += count;
        }
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.zeros + self.buckets.values().sum::<u64>()
    }

    /// The `p`-th percentile (0–100): the representative of the bucket holding the order statistic of rank
    /// `p/100 × (n − 1)` (rounded down), within ±1 % of it. `None` when empty.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        let n = self.count();
        if n == 0 || !(0.0..=100.0).contains(&p) {
            return None;
        }
        let rank = ((p / 100.0) * (n - 1) as f64).floor() as u64;
        if rank < self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        for (index, count) in &self.buckets {
            seen += count;
            if seen > rank {
                return Some(2.0 * gamma().powi(*index) / (gamma() + 1.0));
            }
        }
        None
    }

    /// The compact text stored with an iteration: `z<zeros>` then `index:count` pairs, comma-separated.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        // Written into one string: every iteration of a run is stored with its histogram.
        let mut text = String::with_capacity(8 + 8 * self.buckets.len());
        let _ = write!(text, "z{}", self.zeros);
        for (index, count) in &self.buckets {
            let _ = write!(text, ",{index}:{count}");
        }
        text
    }

    /// Reads [`LogHistogram::to_text`]; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split(',');
        let zeros = parts.next()?.strip_prefix('z')?.parse().ok()?;
        let mut buckets = BTreeMap::new();
        for part in parts {
            let (index, count) = part.split_once(':')?;
            buckets.insert(index.parse().ok()?, count.parse().ok()?);
        }
        Some(Self { buckets, zeros })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 gaps: 0.5 ms × 1..=1000 / 100 … a spread from 0.005 to 5 ms, plus a stall of 250 ms.
    fn gaps() -> Vec<f64> {
        let mut v: Vec<f64> = (1..=999).map(|i| 0.005 * i as f64).collect();
        v.push(250.0);
        v
    }

    #[test]
    fn percentiles_are_within_one_percent_of_numpys() {
        let mut h = LogHistogram::default();
        gaps().into_iter().for_each(|g| h.add(g));
        // numpy.percentile(gaps, [50, 95, 99, 100]) with numpy 2.x (method "linear"):
        // [2.5025, 4.75025, 4.95005, 250.0]; the histogram reads the order statistic at the rank rounded down.
        for (p, numpy) in [(50.0, 2.5025), (95.0, 4.75025), (99.0, 4.95005), (100.0, 250.0)] {
            let got = h.percentile(p).unwrap();
            assert!((got - numpy).abs() / numpy <= 0.012, "p{p}: {got} vs numpy {numpy}");
        }
        assert_eq!(h.count(), 1_000);
    }

    #[test]
    fn histograms_merge_exactly_and_round_trip_as_text() {
        let (mut a, mut b, mut all) = (LogHistogram::default(), LogHistogram::default(), LogHistogram::default());
        for (i, g) in gaps().into_iter().enumerate() {
            if i % 3 == 0 {
                a.add(g)
            } else {
                b.add(g)
            }
            all.add(g);
        }
        a.add(0.0);
        all.add(0.0);
        a.merge(&b);
        assert_eq!(a, all);
        assert_eq!(LogHistogram::parse(&a.to_text()), Some(a.clone()));
        assert_eq!(LogHistogram::parse("nonsense"), None);
        assert_eq!(a.percentile(0.0), Some(0.0), "the zero gap is the smallest");
        assert_eq!(LogHistogram::default().percentile(50.0), None);
    }
}
