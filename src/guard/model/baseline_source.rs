//! What a schedule compares each run with: a pinned run (the default), its last N healthy evaluations pooled
//! (rolling), or its healthy evaluations of the last hours (a time window); and what an evaluation was in fact
//! compared with, so its row and its alert can say so with their n. Pure data shared with the browser; the pool
//! itself is read by the store and summarised by `guard::pool`.

use serde::{Deserialize, Serialize};

use crate::model::{BaselineId, RunId};

/// The fewest evaluations a pool is judged against: two runs cannot tell a run's noise from the endpoint's.
pub const MIN_POOLED_EVALUATIONS: u32 = 3;

/// The most evaluations a rolling baseline pools.
pub const MAX_ROLLING_EVALUATIONS: u32 = 50;

/// The longest time window, hours (30 days).
pub const MAX_WINDOW_HOURS: u32 = 720;

/// The most evaluations a time window pools, the latest first: a 15-minute schedule runs 2,880 times in 30 days,
/// and the latest 200 already pin its level down.
pub const MAX_WINDOW_EVALUATIONS: u32 = 200;

/// Where a schedule's baseline comes from, `policy.baseline` on the wire: `{"kind": "pinned"}`,
/// `{"kind": "rolling", "last": 10}` or `{"kind": "window", "hours": 168}`.
///
/// A pooled baseline takes the evaluations that measured the same thing (the same connector, requests and
/// streaming as this run) and were **healthy**, or were valid runs judged against nothing yet (how a new schedule
/// fills its pool). A breached run never enters it, so a regression stays a regression instead of becoming the
/// new normal; to accept a new level, pin a run or start the pool again by editing what the schedule measures.
///
/// It is read and written through [`SourceWire`]: serde's internally tagged enums buffer every field first, and
/// that reader cost the schedule form's page 8 KB in the browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "SourceWire", into = "SourceWire")]
pub enum BaselineSource {
    /// The run pinned for the set on the connector (with the workload).
    #[default]
    Pinned,
    /// The last `last` healthy evaluations' requests, pooled.
    Rolling {
        /// How many evaluations, [`MIN_POOLED_EVALUATIONS`] to [`MAX_ROLLING_EVALUATIONS`].
        last: u32,
    },
    /// The healthy evaluations that finished within the last `hours`, pooled (at most
    /// [`MAX_WINDOW_EVALUATIONS`], the latest).
    Window {
        /// 1 to [`MAX_WINDOW_HOURS`].
        hours: u32,
    },
}

/// [`BaselineSource`] on the wire: `kind`, and the count its kind takes.
#[derive(Serialize, Deserialize)]
struct SourceWire {
    kind: SourceKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hours: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum SourceKind {
    Pinned,
    Rolling,
    Window,
}

impl TryFrom<SourceWire> for BaselineSource {
    type Error = &'static str;

    fn try_from(wire: SourceWire) -> Result<Self, Self::Error> {
        match (wire.kind, wire.last, wire.hours) {
            (SourceKind::Pinned, None, None) => Ok(Self::Pinned),
            (SourceKind::Rolling, Some(last), None) => Ok(Self::Rolling { last }),
            (SourceKind::Window, None, Some(hours)) => Ok(Self::Window { hours }),
            (SourceKind::Pinned, ..) => Err("a pinned baseline takes neither last nor hours"),
            (SourceKind::Rolling, ..) => Err("a rolling baseline takes last (evaluations) and not hours"),
            (SourceKind::Window, ..) => Err("a time-window baseline takes hours and not last"),
        }
    }
}

impl From<BaselineSource> for SourceWire {
    fn from(source: BaselineSource) -> Self {
        let (kind, last, hours) = match source {
            BaselineSource::Pinned => (SourceKind::Pinned, None, None),
            BaselineSource::Rolling { last } => (SourceKind::Rolling, Some(last), None),
            BaselineSource::Window { hours } => (SourceKind::Window, None, Some(hours)),
        };
        Self { kind, last, hours }
    }
}

impl BaselineSource {
    /// The counts in range, naming `policy.baseline.last` or `policy.baseline.hours`.
    pub fn validate(&self) -> Result<(), crate::model::ValidationError> {
        use crate::model::ValidationError;
        match *self {
            Self::Pinned => Ok(()),
            Self::Rolling { last } if !(MIN_POOLED_EVALUATIONS..=MAX_ROLLING_EVALUATIONS).contains(&last) => {
                Err(ValidationError::new(
                    "policy.baseline.last",
                    format!(
                        "must be {MIN_POOLED_EVALUATIONS} to {MAX_ROLLING_EVALUATIONS} evaluations (fewer cannot \
                         tell a run's noise from the endpoint's)"
                    ),
                ))
            }
            Self::Window { hours } if !(1..=MAX_WINDOW_HOURS).contains(&hours) => Err(ValidationError::new(
                "policy.baseline.hours",
                format!("must be 1 to {MAX_WINDOW_HOURS} hours (30 days)"),
            )),
            _ => Ok(()),
        }
    }

    /// Whether evaluations are compared with a pool of earlier ones rather than a pinned run.
    pub fn is_pooled(&self) -> bool {
        !matches!(self, Self::Pinned)
    }

    /// The most evaluations its pool takes.
    pub fn max_evaluations(&self) -> u32 {
        match *self {
            Self::Pinned => 0,
            Self::Rolling { last } => last,
            Self::Window { .. } => MAX_WINDOW_EVALUATIONS,
        }
    }

    /// In words: `the pinned run`, `the last 10 healthy evaluations`, `the healthy evaluations of the last 7 days`.
    pub fn describe(&self) -> String {
        match *self {
            Self::Pinned => "the pinned run".into(),
            Self::Rolling { last } => format!("the last {last} healthy evaluations"),
            Self::Window { hours: 1 } => "the healthy evaluations of the last hour".into(),
            Self::Window { hours: 24 } => "the healthy evaluations of the last day".into(),
            Self::Window { hours } if hours % 24 == 0 => {
                format!("the healthy evaluations of the last {} days", hours / 24)
            }
            Self::Window { hours } => format!("the healthy evaluations of the last {hours} hours"),
        }
    }
}

/// Earlier evaluations pooled into one baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pool {
    /// The rule that chose them.
    pub source: BaselineSource,
    /// How many evaluations.
    pub evaluations: u32,
    /// When the oldest of them finished, unix ms.
    pub first_at_ms: i64,
    /// When the newest finished, unix ms.
    pub last_at_ms: i64,
    /// The newest one's run (its requests stand for the pool's per-prompt times).
    pub latest_run: RunId,
}

impl Pool {
    /// Whether it holds enough evaluations to judge a run.
    pub fn is_enough(&self) -> bool {
        self.evaluations >= MIN_POOLED_EVALUATIONS
    }
}

/// What an evaluation was compared with: `{"pinned": {baselineId, runId}}` or `{"pooled": {source, evaluations,
/// firstAtMs, lastAtMs, latestRun}}` on the wire (externally tagged, the cheapest shape to read in the browser).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceFrom {
    /// A pinned run.
    #[serde(rename_all = "camelCase")]
    Pinned {
        /// The pin.
        baseline_id: BaselineId,
        /// The run.
        run_id: RunId,
    },
    /// Earlier evaluations pooled.
    Pooled(Pool),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_reads_and_writes_its_documented_shape() {
        let cases = [
            (BaselineSource::Pinned, r#"{"kind":"pinned"}"#),
            (BaselineSource::Rolling { last: 10 }, r#"{"kind":"rolling","last":10}"#),
            (BaselineSource::Window { hours: 168 }, r#"{"kind":"window","hours":168}"#),
        ];
        for (source, json) in cases {
            assert_eq!(serde_json::to_string(&source).unwrap(), json);
            assert_eq!(serde_json::from_str::<BaselineSource>(json).unwrap(), source);
        }
        for (muddled, why) in [
            (r#"{"kind":"rolling"}"#, "takes last"),
            (r#"{"kind":"window","last":3}"#, "takes hours"),
            (r#"{"kind":"pinned","hours":3}"#, "neither"),
            (r#"{"kind":"median"}"#, "unknown variant"),
        ] {
            let refused = serde_json::from_str::<BaselineSource>(muddled).unwrap_err().to_string();
            assert!(refused.contains(why), "{muddled}: {refused}");
        }
    }

    #[test]
    fn counts_out_of_range_name_their_field() {
        let field = |s: BaselineSource| s.validate().unwrap_err().field;
        assert_eq!(field(BaselineSource::Rolling { last: 2 }), "policy.baseline.last");
        assert_eq!(field(BaselineSource::Rolling { last: 51 }), "policy.baseline.last");
        assert_eq!(field(BaselineSource::Window { hours: 0 }), "policy.baseline.hours");
        assert_eq!(field(BaselineSource::Window { hours: 721 }), "policy.baseline.hours");
        assert!(BaselineSource::Rolling { last: 3 }.validate().is_ok());
        assert!(BaselineSource::Window { hours: 720 }.validate().is_ok());
    }

    #[test]
    fn the_words_name_the_rule() {
        assert_eq!(BaselineSource::Rolling { last: 10 }.describe(), "the last 10 healthy evaluations");
        assert_eq!(BaselineSource::Window { hours: 168 }.describe(), "the healthy evaluations of the last 7 days");
        assert_eq!(BaselineSource::Window { hours: 1 }.describe(), "the healthy evaluations of the last hour");
        assert_eq!(BaselineSource::Window { hours: 36 }.describe(), "the healthy evaluations of the last 36 hours");
    }
}
