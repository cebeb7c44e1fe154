//! The load a capacity search or a sweep varies, and how its levels are written.

use serde::{Deserialize, Serialize};

/// Which load a search varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadAxis {
    /// Requests in flight (a closed loop): levels are whole numbers.
    Concurrency,
    /// Requests sent per second (an open loop).
    Rate,
}

spelled!(LoadAxis { Concurrency => "concurrency", Rate => "rate" });

impl LoadAxis {
    /// The level in words: `8 in flight`, `12.5 req/s`.
    pub fn describe(self, level: f64) -> String {
        match self {
            Self::Concurrency => format!("{} in flight", level.round()),
            Self::Rate => format!("{} req/s", trim_number(level)),
        }
    }
}

/// A level as people write it: `4`, `12.5`, `0.3` (at most 3 decimals, no trailing zeros).
pub fn trim_number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_people_write_them() {
        assert_eq!(LoadAxis::Concurrency.describe(8.0), "8 in flight");
        assert_eq!(LoadAxis::Rate.describe(12.5), "12.5 req/s");
        assert_eq!(trim_number(3.0), "3");
        assert_eq!(trim_number(0.333_333), "0.333");
    }
}
