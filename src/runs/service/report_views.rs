//! What is built from a finished run's every stored iteration — the report page's view and the export's compact
//! snapshot with its rendered sections — kept per server process instead of built on every visit: at 100,000 iterations the view takes 1.4 s
//! to build and the snapshot 0.9 s, and a finished run's iterations no longer change.
//!
//! An entry is used only while the run's stored row is exactly the one it was built from, so a rename, or anything
//! another replica changes, builds it anew; a run still running is never kept. Each cache is bounded in entries and
//! in bytes and forgets the least recently built first.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::value::RawValue;

use crate::model::{RunId, RunStatus, RunView, WorkspaceId};
use crate::runs::report::{report_view, CompactExport, CompactSnapshot, ReportSnapshot, ReportView};
use crate::store::{Store, StoreError};
use crate::wire::ServerHtml;

/// Report views kept at most; each is bounded (the scatter's sample, two charts, one table page): a few hundred KB.
pub const REPORT_VIEWS_KEPT: usize = 32;

/// Bytes of encoded compact snapshots kept at most (about 10 MB per 100,000 iterations); a larger one is not kept.
pub const EXPORT_BYTES_KEPT: usize = 64 << 20;

/// Finished runs' report views, shared by every request of this process. Cheap to clone.
#[derive(Clone)]
pub struct ReportViews(FinishedRuns<ReportView>);

impl Default for ReportViews {
    fn default() -> Self {
        Self(FinishedRuns::new(REPORT_VIEWS_KEPT, usize::MAX))
    }
}

impl ReportViews {
    /// The run `id` of `workspace` and its report view: kept from an earlier visit when the run has not changed
    /// since, else built from the store (and kept when the run has finished).
    pub async fn view(
        &self,
        store: &Store,
        workspace: WorkspaceId,
        id: RunId,
    ) -> Result<(RunView, ReportView), StoreError> {
        let run = store.get_run(workspace, id).await?;
        if let Some(view) = self.0.kept(&run) {
            return Ok((run, (*view).clone()));
        }
        let (run, snapshot, summary) = store.run_report(workspace, id).await?;
        let view = report_view(&snapshot, summary);
        self.0.keep(&run, Arc::new(view.clone()), 0);
        Ok((run, view))
    }

    /// How many views are kept now.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no view is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Finished runs' compact snapshots, encoded once, shared by every request of this process. Cheap to clone.
#[derive(Clone)]
pub struct ExportSnapshots(FinishedRuns<RawValue>);

impl Default for ExportSnapshots {
    fn default() -> Self {
        Self(FinishedRuns::new(usize::MAX, EXPORT_BYTES_KEPT))
    }
}

impl ExportSnapshots {
    /// The compact snapshot of the run `id` of `workspace` with its sections as `render` draws them for a file, ready
    /// to send: kept from an earlier fetch when the run has not changed since, else built from the store (and kept,
    /// encoded, when the run has finished).
    pub async fn export(
        &self,
        store: &Store,
        workspace: WorkspaceId,
        id: RunId,
        render: fn(&ReportSnapshot) -> ServerHtml,
    ) -> Result<CompactExport, StoreError> {
        let run = store.get_run(workspace, id).await?;
        if let Some(encoded) = self.0.kept(&run) {
            return Ok(CompactExport::encoded(encoded));
        }
        let (run, snapshot, _) = store.run_report(workspace, id).await?;
        let compact = CompactSnapshot::of(&snapshot, render(&snapshot));
        if run.status != RunStatus::Running {
            // Plain data with string keys always encodes.
            if let Some(encoded) = serde_json::value::to_raw_value(&compact).ok().map(Arc::<RawValue>::from) {
                let bytes = encoded.get().len();
                self.0.keep(&run, Arc::clone(&encoded), bytes);
                return Ok(CompactExport::encoded(encoded));
            }
        }
        Ok(CompactExport::from(compact))
    }

    /// Bytes kept now.
    pub fn bytes(&self) -> usize {
        self.0.lock().bytes
    }
}

/// Values built from finished runs, keyed by run and checked against the run's stored row.
struct FinishedRuns<T: ?Sized> {
    inner: Arc<Mutex<Kept<T>>>,
    max_entries: usize,
    max_bytes: usize,
}

impl<T: ?Sized> Clone for FinishedRuns<T> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner), max_entries: self.max_entries, max_bytes: self.max_bytes }
    }
}

struct Kept<T: ?Sized> {
    /// The run as it was when the value was built, the value, its size in bytes.
    entries: HashMap<RunId, (RunView, Arc<T>, usize)>,
    /// Oldest first.
    order: VecDeque<RunId>,
    bytes: usize,
}

impl<T: ?Sized> FinishedRuns<T> {
    fn new(max_entries: usize, max_bytes: usize) -> Self {
        let kept = Kept { entries: HashMap::new(), order: VecDeque::new(), bytes: 0 };
        Self { inner: Arc::new(Mutex::new(kept)), max_entries, max_bytes }
    }

    fn kept(&self, run: &RunView) -> Option<Arc<T>> {
        let kept = self.lock();
        let (built_from, value, _) = kept.entries.get(&run.id)?;
        (built_from == run).then(|| Arc::clone(value))
    }

    /// Keeps `value`, built from `run`, unless the run is still going or the value alone exceeds the byte budget.
    fn keep(&self, run: &RunView, value: Arc<T>, bytes: usize) {
        if run.status == RunStatus::Running || bytes > self.max_bytes {
            return;
        }
        let mut kept = self.lock();
        let id = run.id;
        match kept.entries.insert(id, (run.clone(), value, bytes)) {
            Some((_, _, replaced)) => kept.bytes -= replaced,
            None => kept.order.push_back(id),
        }
        kept.bytes += bytes;
        while kept.order.len() > self.max_entries || kept.bytes > self.max_bytes {
            let Some(oldest) = kept.order.pop_front() else { break };
            if let Some((_, _, freed)) = kept.entries.remove(&oldest) {
                kept.bytes -= freed;
            }
        }
    }

    fn len(&self) -> usize {
        self.lock().entries.len()
    }

    fn lock(&self) -> MutexGuard<'_, Kept<T>> {
        // A panic while holding the lock leaves whole entries behind (each change is a few single steps).
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
