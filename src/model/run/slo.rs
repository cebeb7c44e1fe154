//! Service-level objectives a run is judged against, written as users write them: `ttft_ms<=500` (every request),
//! `ttft_p95_ms<=500` (the 95th percentile), for TTFT, time per output token, inter-token latency and total time.
//! A request is "good" when it succeeded and met every per-request objective; goodput counts good requests.

use serde::{Deserialize, Serialize};

use crate::model::{IterationRecord, ValidationError};

/// The most objectives one run carries.
pub const MAX_SLOS: usize = 8;

/// What an objective bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SloMetric {
    /// Time to first token.
    Ttft,
    /// Time per output token.
    Tpot,
    /// Inter-token latency (per request: its longest gap; as a percentile: pooled over all gaps).
    Itl,
    /// Total time.
    Total,
}

spelled!(SloMetric { Ttft => "ttft", Tpot => "tpot", Itl => "itl", Total => "total" });

/// Which requests an objective speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "p")]
pub enum SloScope {
    /// Each request on its own (goodput).
    PerRequest,
    /// The run's `p`-th percentile (1–99).
    Percentile(u8),
}

/// One objective: `metric` (at `scope`) at most `bound_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slo {
    /// What it bounds.
    pub metric: SloMetric,
    /// Each request, or a percentile.
    pub scope: SloScope,
    /// The bound, ms.
    pub bound_ms: f64,
}

impl Slo {
    /// Reads `ttft_ms<=500` or `tpot_p95_ms<=50` (spaces around `<=` allowed); the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, SloError> {
        let shape = || SloError::Shape { text: text.to_string() };
        let (left, bound) = text.split_once("<=").ok_or_else(shape)?;
        let bound_ms: f64 =
            bound.trim().parse().map_err(|_| SloError::NotANumber { bound: bound.trim().to_string() })?;
        if !(bound_ms.is_finite() && bound_ms > 0.0) {
            return Err(SloError::NotPositive { text: text.to_string() });
        }
        let name = left.trim().strip_suffix("_ms").ok_or_else(shape)?;
        let (metric, scope) = match name.rsplit_once("_p") {
            Some((metric, p)) if p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => match p.parse::<u8>() {
                Ok(p) if (1..=99).contains(&p) => (metric, SloScope::Percentile(p)),
                _ => return Err(SloError::Percentile { text: text.to_string() }),
            },
            _ => (name, SloScope::PerRequest),
        };
        let metric = SloMetric::parse(metric)
            .ok_or_else(|| SloError::UnknownMetric { text: text.to_string(), metric: metric.to_string() })?;
        Ok(Self { metric, scope, bound_ms })
    }

    /// The text form, as parsed.
    pub fn spelled(&self) -> String {
        let scope = match self.scope {
            SloScope::PerRequest => String::new(),
            SloScope::Percentile(p) => format!("_p{p}"),
        };
        format!("{}{scope}_ms<={}", self.metric.as_str(), self.bound_ms)
    }

    /// This request's value of the metric, when it has one: ITL per request is its longest gap.
    pub fn value_of(&self, record: &IterationRecord) -> Option<f64> {
        match self.metric {
            SloMetric::Ttft => record.ttft_ms,
            SloMetric::Tpot => record.tpot_ms,
            SloMetric::Itl => record.max_itl_ms,
            SloMetric::Total => Some(record.total_ms),
        }
    }

    /// Whether a request meets this per-request objective: it must have the value (a request without a TTFT
    /// cannot show it met a TTFT bound).
    pub fn met_by(&self, record: &IterationRecord) -> bool {
        self.value_of(record).is_some_and(|v| v <= self.bound_ms)
    }
}

impl Serialize for Slo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.spelled())
    }
}

impl<'de> Deserialize<'de> for Slo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// How an objective is written, for an error that does not understand one.
const SLO_USAGE: &str = "write it as metric_ms<=bound or metric_pNN_ms<=bound, metric one of ttft, tpot, itl, total \
                         (e.g. ttft_p95_ms<=500)";

/// Why the text of an objective cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SloError {
    /// Not `metric_ms<=bound` or `metric_pNN_ms<=bound`.
    #[error("{text:?} is not an objective: {}", SLO_USAGE)]
    Shape {
        /// The objective as written.
        text: String,
    },
    /// The bound is not a number.
    #[error("{bound:?} is not a number of ms")]
    NotANumber {
        /// The bound as written.
        bound: String,
    },
    /// The bound is zero, negative or not finite.
    #[error("the bound of {text:?} must be a positive number of ms")]
    NotPositive {
        /// The objective as written.
        text: String,
    },
    /// The percentile is not 1 to 99.
    #[error("{text:?}: the percentile must be 1 to 99")]
    Percentile {
        /// The objective as written.
        text: String,
    },
    /// A metric that has no objective.
    #[error("{text:?}: unknown metric {metric:?}; {}", SLO_USAGE)]
    UnknownMetric {
        /// The objective as written.
        text: String,
        /// The metric it names.
        metric: String,
    },
}

/// The objectives of a plan as entered (text), checked: at most [`MAX_SLOS`], each readable, no metric and scope
/// twice.
pub fn parse_slos(texts: &[String]) -> Result<Vec<Slo>, ValidationError> {
    if texts.len() > MAX_SLOS {
        return Err(ValidationError::new("slos", format!("at most {MAX_SLOS} objectives")));
    }
    let mut slos: Vec<Slo> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let slo = Slo::parse(text).map_err(|why| ValidationError::new(format!("slos[{i}]"), why.to_string()))?;
        if slos.iter().any(|s| s.metric == slo.metric && s.scope == slo.scope) {
            return Err(ValidationError::new(format!("slos[{i}]"), format!("{text:?} repeats an objective")));
        }
        slos.push(slo);
    }
    Ok(slos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_read_as_users_write_them() {
        let slo = Slo::parse("ttft_p95_ms <= 500").unwrap();
        assert_eq!((slo.metric, slo.scope, slo.bound_ms), (SloMetric::Ttft, SloScope::Percentile(95), 500.0));
        assert_eq!(slo.spelled(), "ttft_p95_ms<=500");
        let each = Slo::parse("tpot_ms<=50.5").unwrap();
        assert_eq!((each.metric, each.scope), (SloMetric::Tpot, SloScope::PerRequest));
        assert_eq!(serde_json::to_string(&each).unwrap(), "\"tpot_ms<=50.5\"");
        for bad in
            ["ttft<=5", "ttft_ms>=5", "foo_ms<=5", "ttft_p0_ms<=5", "ttft_p100_ms<=5", "ttft_ms<=-1", "ttft_ms<=x"]
        {
            assert!(Slo::parse(bad).is_err(), "{bad}");
        }
        let twice = parse_slos(&["ttft_ms<=5".into(), "ttft_ms<=6".into()]).unwrap_err();
        assert_eq!(twice.field, "slos[1]");
    }

    #[test]
    fn a_request_meets_an_objective_only_with_a_value_under_the_bound() {
        let record = IterationRecord {
            ttft_ms: Some(400.0),
            total_ms: 900.0,
            max_itl_ms: Some(80.0),
            ..IterationRecord::blank()
        };
        assert!(Slo::parse("ttft_ms<=400").unwrap().met_by(&record));
        assert!(!Slo::parse("total_ms<=899").unwrap().met_by(&record));
        assert!(!Slo::parse("itl_ms<=50").unwrap().met_by(&record), "per request, ITL is the longest gap");
        assert!(!Slo::parse("tpot_ms<=50").unwrap().met_by(&record), "no TPOT: not shown to be met");
    }
}
