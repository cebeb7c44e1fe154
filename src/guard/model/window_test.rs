//! A threshold judged against the schedule's recent evaluations (a window) instead of the pinned baseline: which
//! test, how many evaluations, and the fewest it needs. Pure data and its validation, shared with the browser; the
//! tests themselves are `stats::history_tests`.

use crate::model::spelled;
use serde::{Deserialize, Serialize};

/// A test of a threshold's figure against the same figure over the schedule's last `window` measured evaluations.
/// The threshold's op and value stay a floor on the size of the change, measured from the window's center; the test
/// says whether the change is beyond the window's usual spread at the schedule's α. On the wire it is one string,
/// `KIND[:WINDOW[:MIN_HISTORY]]` (`"z_score"`, `"iqr:30"`, `"log_normal:20:8"`; window 20 and 5 by default), written
/// back whole: a string costs the browser's schedule page far less to read than an object of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WindowTest {
    /// Which test.
    pub kind: WindowTestKind,
    /// Earlier evaluations in the window (the most recent ones that measured the endpoint).
    pub window: u32,
    /// Fewest earlier evaluations before the test says anything (its own minimum at least).
    pub min_history: u32,
}

/// The stored and sent form, read by serde (`#[serde(try_from = "String")]`): serde reports the sentence as the
/// field's error, so it is one.
impl TryFrom<String> for WindowTest {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let mut parts = text.split(':').map(str::trim);
        let kind = WindowTestKind::parse(parts.next().unwrap_or_default());
        let mut count = |default: u32| parts.next().map_or(Some(default), |n| n.parse::<u32>().ok());
        let (window, min_history) = (count(Self::DEFAULT_WINDOW), count(Self::DEFAULT_MIN_HISTORY));
        match (kind, window, min_history, parts.next()) {
            (Some(kind), Some(window), Some(min_history), None) => Ok(Self { kind, window, min_history }),
            _ => Err(refusal(&text)),
        }
    }
}

/// Why `text` is not a window test. Only the server says it in full: the browser reads what the server wrote.
#[cfg(feature = "ssr")]
fn refusal(text: &str) -> String {
    format!(
        "{text:?} is not a window test: KIND[:WINDOW[:MIN_HISTORY]], KIND one of z_score, log_normal, iqr, delta_iqr, \
         WINDOW and MIN_HISTORY counts of evaluations"
    )
}

#[cfg(not(feature = "ssr"))]
fn refusal(_: &str) -> String {
    String::from("not a window test")
}

impl From<WindowTest> for String {
    fn from(test: WindowTest) -> Self {
        format!("{}:{}:{}", test.kind.as_str(), test.window, test.min_history)
    }
}

impl WindowTest {
    /// The most evaluations a window holds: what the schedule's page and the tick read.
    pub const MAX_WINDOW: u32 = 96;
    /// The window when none is given.
    pub const DEFAULT_WINDOW: u32 = 20;
    /// The fewest earlier evaluations when none is given.
    pub const DEFAULT_MIN_HISTORY: u32 = 5;

    /// The fewest window values `kind` can judge with (a spread needs 2; quartiles, 4; quartiles of changes, 5).
    pub fn fewest(kind: WindowTestKind) -> u32 {
        match kind {
            WindowTestKind::ZScore | WindowTestKind::LogNormal => 2,
            WindowTestKind::Iqr => 4,
            WindowTestKind::DeltaIqr => 5,
        }
    }
}

impl WindowTest {
    /// A window within 2..=[`Self::MAX_WINDOW`] and a minimum within the test's own and the window.
    pub fn validate(&self) -> Result<(), WindowTestError> {
        if !(2..=Self::MAX_WINDOW).contains(&self.window) {
            return Err(WindowTestError::Window);
        }
        let fewest = Self::fewest(self.kind);
        if self.min_history < fewest || self.min_history > self.window {
            return Err(WindowTestError::MinHistory { fewest, kind: self.kind, window: self.window });
        }
        Ok(())
    }
}

/// Why a window test's counts do not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WindowTestError {
    /// The window is too short or too long.
    #[error("window must be 2 to {} evaluations", WindowTest::MAX_WINDOW)]
    Window,
    /// The minimum history is below what the test needs, or beyond the window.
    #[error("minHistory must be {fewest} (what {} needs) to the window's {window}", kind.as_str())]
    MinHistory {
        /// What the test needs.
        fewest: u32,
        /// The test.
        kind: WindowTestKind,
        /// The window.
        window: u32,
    },
}

/// The tests a threshold may use against a window of earlier evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowTestKind {
    /// Beyond `mean + z₁₋α · sd` of the window.
    ZScore,
    /// The z-score of the logarithms.
    LogNormal,
    /// Beyond Tukey's fence `Q3 + 1.5 · IQR`.
    Iqr,
    /// The change from the last evaluation beyond the fence of the window's consecutive changes.
    DeltaIqr,
}

spelled!(WindowTestKind { ZScore => "z_score", LogNormal => "log_normal", Iqr => "iqr", DeltaIqr => "delta_iqr" });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::{Metric, Op, Severity, Threshold};

    #[test]
    fn a_window_test_reads_with_its_defaults_and_keys_its_threshold_apart() {
        let test: WindowTest = serde_json::from_str(r#""log_normal""#).unwrap();
        assert_eq!(test, WindowTest { kind: WindowTestKind::LogNormal, window: 20, min_history: 5 });
        let iqr: WindowTest = serde_json::from_str(r#""iqr:30""#).unwrap();
        assert_eq!((iqr.window, iqr.min_history), (30, 5));
        assert_eq!(serde_json::to_string(&iqr).unwrap(), r#""iqr:30:5""#, "written back whole");
        for bad in [r#""median""#, r#""z_score:x""#, r#""z_score:20:5:1""#, r#""""#] {
            let error = serde_json::from_str::<WindowTest>(bad).unwrap_err().to_string();
            assert!(error.contains("is not a window test: KIND[:WINDOW[:MIN_HISTORY]]"), "{bad}: {error}");
        }
        let plain =
            Threshold { metric: Metric::P95Ms, op: Op::PctIncrease, value: 10.0, severity: Severity::Warn, test: None };
        assert_eq!(plain.key(), "p95_ms:pct_increase");
        assert_eq!(Threshold { test: Some(test), ..plain }.key(), "p95_ms:pct_increase:log_normal");
        assert!(!serde_json::to_string(&plain).unwrap().contains("test"), "a baseline threshold is written as before");
    }

    #[test]
    fn windows_minimums_and_ops_out_of_range_say_what_is_allowed() {
        let test = |kind, window, min_history| WindowTest { kind, window, min_history };
        assert_eq!(test(WindowTestKind::ZScore, 20, 5).validate(), Ok(()));
        assert_eq!(
            test(WindowTestKind::Iqr, 97, 5).validate().unwrap_err().to_string(),
            "window must be 2 to 96 evaluations"
        );
        assert_eq!(
            test(WindowTestKind::DeltaIqr, 20, 4).validate().unwrap_err().to_string(),
            "minHistory must be 5 (what delta_iqr needs) to the window's 20"
        );
        assert!(test(WindowTestKind::ZScore, 4, 5).validate().is_err(), "more than the window");
    }
}
