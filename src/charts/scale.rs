//! Linear scales with "nice" tick steps (1, 2, 5 × 10ⁿ).

/// A linear map from a data range onto a pixel range.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Scale {
    /// Maps `[lo, hi]` onto `[from, to]`; an empty range is widened so every value has a place.
    pub fn new(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, lo + 1.0) };
        Self { lo, hi, from, to }
    }

    /// The pixel of `v`.
    pub fn at(&self, v: f64) -> f64 {
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }

    /// Round tick values inside the range, about `count` of them.
    pub fn ticks(&self, count: usize) -> Vec<f64> {
        let raw = (self.hi - self.lo) / count.max(1) as f64;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
        let first = (self.lo / step).ceil() as i64;
        let last = (self.hi / step).floor() as i64;
        (first..=last).map(|i| i as f64 * step).collect()
    }
}

/// A tick label: whole numbers without decimals, others with one.
pub fn tick_label(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(Scale::new(0.0, 100.0, 0.0, 1.0).ticks(5), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(Scale::new(3.0, 17.0, 0.0, 1.0).ticks(4), vec![5.0, 10.0, 15.0]);
        let flat = Scale::new(5.0, 5.0, 0.0, 100.0);
        assert_eq!(flat.at(5.0), 50.0, "a single value sits in the middle");
    }
}
