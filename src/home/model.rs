//! The first steps of a new install, a pure rule: what the workspace has done so far in, which steps are done out.

/// What the first steps are judged from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// The install serves the demo simulator and the workspace has its connector.
    pub has_demo: bool,
    /// Runs of the demo connector, any status.
    pub demo_runs: u64,
    /// Connectors of the workspace's own (not the demo's).
    pub own_connectors: u64,
    /// Runs of those connectors, any status.
    pub own_runs: u64,
    /// Guard schedules.
    pub schedules: u64,
}

/// One first step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A run against the demo simulator, started by one click.
    RunTheDemo,
    /// A connector of one's own endpoint.
    AddYourEndpoint,
    /// A run against it.
    BenchmarkIt,
    /// A Guard schedule.
    ScheduleACheck,
}

/// The steps a page offers, each with whether it is done; empty once every one is (the page then shows what the
/// install is doing alone).
pub fn first_steps(progress: Progress) -> Vec<(Step, bool)> {
    let steps = [
        (Step::RunTheDemo, progress.demo_runs > 0),
        (Step::AddYourEndpoint, progress.own_connectors > 0),
        (Step::BenchmarkIt, progress.own_runs > 0),
        (Step::ScheduleACheck, progress.schedules > 0),
    ];
    // Without the demo simulator there is no demo to run: the steps start with one's own endpoint.
    let offered: Vec<(Step, bool)> =
        steps.into_iter().filter(|(step, _)| progress.has_demo || *step != Step::RunTheDemo).collect();
    if offered.iter().all(|(_, done)| *done) {
        Vec::new()
    } else {
        offered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(progress: Progress) -> Vec<(Step, bool)> {
        first_steps(progress)
    }

    #[test]
    fn the_first_steps_follow_what_the_workspace_has_done() {
        use Step::*;
        let new = Progress { has_demo: true, ..Progress::default() };
        let table: [(Progress, Vec<(Step, bool)>); 5] = [
            (new, vec![(RunTheDemo, false), (AddYourEndpoint, false), (BenchmarkIt, false), (ScheduleACheck, false)]),
            (
                Progress { demo_runs: 1, ..new },
                vec![(RunTheDemo, true), (AddYourEndpoint, false), (BenchmarkIt, false), (ScheduleACheck, false)],
            ),
            (
                Progress { own_connectors: 1, own_runs: 2, ..new },
                vec![(RunTheDemo, false), (AddYourEndpoint, true), (BenchmarkIt, true), (ScheduleACheck, false)],
            ),
            // Every step done: nothing left to offer.
            (Progress { demo_runs: 1, own_connectors: 1, own_runs: 1, schedules: 1, ..new }, vec![]),
            // No demo simulator: its step is not offered, and the rest can be all done without it.
            (Progress { has_demo: false, own_connectors: 1, own_runs: 1, schedules: 1, demo_runs: 0 }, vec![]),
        ];
        for (progress, expected) in table {
            assert_eq!(steps(progress), expected, "{progress:?}");
        }
        let no_demo = steps(Progress::default());
        assert_eq!(no_demo.first(), Some(&(AddYourEndpoint, false)), "without a demo, one's own endpoint comes first");
    }
}
