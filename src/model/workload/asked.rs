//! A request that asks for a workload: a run's plan, a sweep's, an A/B test's. It gives one whole or names a saved
//! one by id; the server resolves either into the workload it sends, in one step every job's start shares
//! (`Store::resolve_workload`).

use super::spec::Workload;
use crate::model::{RunPlanInput, WorkloadId};

/// A request that may ask for a workload.
pub trait AsksForWorkload {
    /// Takes what the request asks for: the workload it gives, and the saved one it names.
    fn take_workload_asked(&mut self) -> (Option<Workload>, Option<WorkloadId>);
    /// Puts in the workload it will send, resolved.
    fn put_workload(&mut self, workload: Option<Workload>);
}

/// `AsksForWorkload` for a request whose fields are named `workload` and `workload_id` (a feature's request, such
/// as a sweep's, says so beside its type).
macro_rules! asks_for_workload {
    ($($request:ty),*) => {$(
        impl $crate::model::AsksForWorkload for $request {
            fn take_workload_asked(
                &mut self,
            ) -> (Option<$crate::model::Workload>, Option<$crate::model::WorkloadId>) {
                (self.workload.take(), self.workload_id.take())
            }

            fn put_workload(&mut self, workload: Option<$crate::model::Workload>) {
                self.workload = workload;
            }
        }
    )*};
}

pub(crate) use asks_for_workload;

asks_for_workload!(RunPlanInput);
