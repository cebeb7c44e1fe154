//! Typed ids: a `ConnectorId` can never be passed where a `WorkspaceId` is meant.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh random id.
            #[cfg(feature = "ssr")]
            pub fn new_random() -> Self {
                Self(Uuid::new_v4())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    };
}

typed_id!(
    /// Identifies one connector (an endpoint, a model and its credentials).
    ConnectorId
);
typed_id!(
    /// Identifies one workspace: the unit of data isolation, owned by one identity.
    WorkspaceId
);
typed_id!(
    /// Identifies one benchmark run (and its report).
    RunId
);
typed_id!(
    /// Identifies one benchmark set (the prompts a Guard schedule runs).
    BenchmarkSetId
);
typed_id!(
    /// Identifies one Guard schedule.
    ScheduleId
);
typed_id!(
    /// Identifies one saved workload.
    WorkloadId
);
typed_id!(
    /// Identifies one dataset uploaded to a workspace.
    DatasetId
);
typed_id!(
    /// Identifies one pinned baseline.
    BaselineId
);
typed_id!(
    /// Identifies one evaluation of a schedule (a claimed slot, run and compared).
    EvaluationId
);
typed_id!(
    /// Identifies one Guard alert.
    AlertId
);
typed_id!(
    /// Identifies one Spec Lab A/B test.
    AbTestId
);
typed_id!(
    /// Identifies one API token (not its secret).
    ApiTokenId
);
typed_id!(
    /// Identifies one sweep (a series of runs over load levels, or a capacity search).
    SweepId
);
