//! What one workspace may keep of each kind of thing it saves: connectors, benchmark sets, saved workloads, Guard
//! schedules, uploaded datasets and API tokens. A rule over a count; the store counts and inserts in one
//! transaction (the workspace's row locked on PostgreSQL), so uploads or saves at once cannot pass the limit
//! together. It applies to every workspace: these are far above what one team keeps, and each kept thing costs
//! the server (a schedule runs, a dataset holds up to 16 MiB).

use crate::model::ValidationError;

/// A kind of thing a workspace keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// Connectors.
    Connectors,
    /// Benchmark sets.
    BenchmarkSets,
    /// Saved workloads.
    Workloads,
    /// Guard schedules.
    Schedules,
    /// Uploaded datasets.
    Datasets,
    /// API tokens, revoked ones included (until deleted).
    ApiTokens,
}

impl Holding {
    /// Every kind.
    pub const ALL: [Holding; 6] = [
        Holding::Connectors,
        Holding::BenchmarkSets,
        Holding::Workloads,
        Holding::Schedules,
        Holding::Datasets,
        Holding::ApiTokens,
    ];

    /// The most a workspace keeps.
    pub const fn most(self) -> u32 {
        match self {
            Holding::Connectors => 200,
            Holding::BenchmarkSets | Holding::Workloads => 500,
            Holding::Schedules => 200,
            Holding::Datasets => 50,
            Holding::ApiTokens => 100,
        }
    }

    /// Its name in a refusal (plural).
    pub const fn noun(self) -> &'static str {
        match self {
            Holding::Connectors => "connectors",
            Holding::BenchmarkSets => "benchmark sets",
            Holding::Workloads => "saved workloads",
            Holding::Schedules => "Guard schedules",
            Holding::Datasets => "datasets",
            Holding::ApiTokens => "API tokens",
        }
    }

    /// Whether one more may be kept beside the `held` already kept; the refusal names the field and what to do.
    pub fn admits_one_more(self, held: u64) -> Result<(), ValidationError> {
        if held < u64::from(self.most()) {
            return Ok(());
        }
        let todo = match self {
            Holding::ApiTokens => "delete revoked ones first",
            _ => "delete one first",
        };
        Err(ValidationError::new("name", format!("a workspace keeps at most {} {}: {todo}", self.most(), self.noun())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_more_is_kept_below_the_limit_only_and_the_refusal_says_what_to_do() {
        for kind in Holding::ALL {
            let most = u64::from(kind.most());
            assert!(kind.admits_one_more(0).is_ok() && kind.admits_one_more(most - 1).is_ok(), "{kind:?}");
            for held in [most, most + 1, u64::MAX] {
                let refused = kind.admits_one_more(held).unwrap_err();
                assert_eq!(refused.field, "name");
                assert!(refused.reason.starts_with(&format!("a workspace keeps at most {most} ")), "{refused:?}");
                assert!(refused.reason.ends_with(" first"), "{refused:?}");
            }
        }
        let datasets = Holding::Datasets.admits_one_more(50).unwrap_err().reason;
        assert_eq!(datasets, "a workspace keeps at most 50 datasets: delete one first");
    }
}
