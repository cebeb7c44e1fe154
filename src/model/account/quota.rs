//! What one workspace may hold and run at once on a shared server (`workspace-max-running-runs`,
//! `workspace-max-stored-requests`): one user must not fill the disk or starve the others. The install owner's
//! workspace and trusted wallets' are not limited. A rule over counts; the store counts and applies it in the
//! same transaction as the run it admits.

use crate::model::ValidationError;

/// The limits of a workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceQuota {
    /// Runs running at once (a sweep's level is a run; a repeated run's repetitions run one after another).
    pub max_running_runs: u32,
    /// Measured requests its runs may hold, planned ones included (each keeps its timings and a prompt excerpt).
    pub max_stored_requests: u64,
}

impl Default for WorkspaceQuota {
    fn default() -> Self {
        Self { max_running_runs: 4, max_stored_requests: 5_000_000 }
    }
}

impl WorkspaceQuota {
    /// Whether a run of `planned` requests may start beside `running` runs and `stored` requests already held.
    pub fn admits(&self, running: u64, stored: u64, planned: u64) -> Result<(), ValidationError> {
        if running >= u64::from(self.max_running_runs) {
            return Err(ValidationError::new(
                "connectorId",
                format!(
                    "this workspace already has {running} runs running, the most this server allows at once \
                     (workspace-max-running-runs); wait for one to end or cancel one"
                ),
            ));
        }
        if stored.saturating_add(planned) > self.max_stored_requests {
            return Err(ValidationError::new(
                "iterations",
                format!(
                    "this workspace holds {stored} measured requests and this run plans {planned}; this server keeps \
                     at most {} a workspace (workspace-max-stored-requests): delete old runs first",
                    self.max_stored_requests
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_starts_within_both_limits_only() {
        let quota = WorkspaceQuota { max_running_runs: 2, max_stored_requests: 1_000 };
        let table = [
            (0, 0, 1_000, None),
            (1, 999, 1, None),
            (2, 0, 1, Some("connectorId")),
            (0, 999, 2, Some("iterations")),
            (0, u64::MAX, 1, Some("iterations")),
        ];
        for (running, stored, planned, refused) in table {
            let got = quota.admits(running, stored, planned).err().map(|e| e.field);
            assert_eq!(got.as_deref(), refused, "{running} running, {stored} stored, {planned} planned");
        }
        let why = quota.admits(2, 0, 1).unwrap_err().reason;
        assert!(why.contains("2 runs running") && why.contains("workspace-max-running-runs"), "{why}");
    }
}
