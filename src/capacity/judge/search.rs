//! Which level to try next: bracket by doubling from the lowest level until one fails (or the maximum passes),
//! then bisect between the highest pass and the lowest failure. Concurrency stops when the two are adjacent whole
//! numbers; a rate stops when they are within the asked relative resolution, bisecting geometrically (rates span
//! orders of magnitude). Each level costs a run, so the rule spends as few as it can: about log2(answer) levels to
//! bracket and as many again to bisect.

use crate::capacity::model::{LoadAxis, SearchSpace};

/// Where a search stands: the highest level that passed and the lowest that failed so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    space: SearchSpace,
    highest_pass: Option<f64>,
    lowest_fail: Option<f64>,
}

impl Search {
    /// A search over `space` (validated by the caller).
    pub fn new(space: SearchSpace) -> Self {
        Self { space, highest_pass: None, lowest_fail: None }
    }

    /// The next level to try; `None` when the answer is known.
    pub fn next_level(&self) -> Option<f64> {
        let SearchSpace { axis, min, max, resolution } = self.space;
        match (self.highest_pass, self.lowest_fail) {
            (None, None) => Some(min),
            (None, Some(_)) => None,
            (Some(pass), None) => (pass < max).then(|| (pass * 2.0).min(max)),
            (Some(pass), Some(fail)) => match axis {
                LoadAxis::Concurrency => (fail - pass > 1.0).then(|| ((pass + fail) / 2.0).floor()),
                LoadAxis::Rate => (fail / pass > 1.0 + resolution).then(|| (pass * fail).sqrt()),
            },
        }
    }

    /// Records how `level` went.
    pub fn record(&mut self, level: f64, passed: bool) {
        if passed {
            self.highest_pass = Some(self.highest_pass.map_or(level, |p| p.max(level)));
        } else {
            self.lowest_fail = Some(self.lowest_fail.map_or(level, |f| f.min(level)));
        }
    }

    /// The highest level that passed.
    pub fn answer(&self) -> Option<f64> {
        self.highest_pass
    }

    /// Whether a level above the answer failed.
    pub fn bounded(&self) -> bool {
        self.lowest_fail.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search against an endpoint whose true capacity is `capacity`; returns the levels tried and the answer.
    fn search(space: SearchSpace, capacity: f64) -> (Vec<f64>, Option<f64>, bool) {
        let mut search = Search::new(space);
        let mut tried = Vec::new();
        while let Some(level) = search.next_level() {
            assert!(tried.len() < 64, "a search ends");
            tried.push(level);
            search.record(level, level <= capacity);
        }
        (tried, search.answer(), search.bounded())
    }

    fn concurrency(min: f64, max: f64) -> SearchSpace {
        SearchSpace { axis: LoadAxis::Concurrency, min, max, resolution: 0.1 }
    }

    #[test]
    fn concurrency_is_bracketed_by_doubling_then_bisected_to_the_exact_answer() {
        let (tried, answer, bounded) = search(concurrency(1.0, 256.0), 11.0);
        assert_eq!(tried, [1.0, 2.0, 4.0, 8.0, 16.0, 12.0, 10.0, 11.0]);
        assert_eq!((answer, bounded), (Some(11.0), true));
        for capacity in 1..=100 {
            let (tried, answer, _) = search(concurrency(1.0, 100.0), f64::from(capacity));
            assert_eq!(answer, Some(f64::from(capacity)));
            assert!(tried.len() <= 14, "{capacity}: {tried:?}");
        }
    }

    #[test]
    fn the_ends_of_the_space_say_nothing_passes_or_at_least_the_maximum() {
        assert_eq!(search(concurrency(1.0, 64.0), 0.0), (vec![1.0], None, true));
        let (tried, answer, bounded) = search(concurrency(4.0, 20.0), 1000.0);
        assert_eq!(tried, [4.0, 8.0, 16.0, 20.0]);
        assert_eq!((answer, bounded), (Some(20.0), false), "every level passed: at least 20, not bounded");
    }

    #[test]
    fn a_rate_is_bisected_geometrically_to_the_asked_resolution() {
        let space = SearchSpace { axis: LoadAxis::Rate, min: 1.0, max: 1000.0, resolution: 0.05 };
        let (tried, answer, bounded) = search(space, 37.0);
        let answer = answer.unwrap();
        assert!(bounded && answer <= 37.0 && answer > 37.0 / 1.05, "{answer} from {tried:?}");
        assert_eq!(&tried[..7], [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
        assert!((tried[7] - (32.0f64 * 64.0).sqrt()).abs() < 1e-9, "the geometric midpoint: {tried:?}");
    }

    #[test]
    fn nonsense_bounds_are_refused_in_words() {
        assert!(concurrency(0.0, 4.0).validate().is_err());
        assert!(concurrency(8.0, 4.0).validate().unwrap_err().to_string().contains("below the lowest"));
        assert!(concurrency(1.5, 4.0).validate().unwrap_err().to_string().contains("whole numbers"));
        let rate = SearchSpace { axis: LoadAxis::Rate, min: 0.5, max: 4.0, resolution: 0.0 };
        assert!(rate.validate().unwrap_err().to_string().contains("resolution"));
        assert!(concurrency(1.0, 1.0).validate().is_ok());
    }
}
