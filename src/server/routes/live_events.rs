//! `GET /api/runs/{id}/events`: a run's progress as Server-Sent Events, pushed as batches are stored. A running
//! run first gets an `update` with the counters and every point recorded so far (from the database), then
//! `update`s with the points finished since, and an `end` when it is over; a run already over gets a single `end`
//! with everything. A run driven by another server process on the same database (replicas) is followed by
//! reading its new iterations once a second, server-side; the browser never polls.
//!
//! `?points=false` leaves the points out (every event's `points` is empty): the counters are all the run page
//! needs, since the server draws its scatter, and a long run's first event would otherwise carry every
//! iteration again (about 7 MB at 100,000).

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures::stream::{self, Stream, StreamExt};
use std::collections::HashSet;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::broadcast;

use crate::auth::Session;
use crate::model::{LivePoint, RunId, RunProgress, RunStatus, RunUpdate, RunView, WorkspaceId};
use crate::state::AppState;
use crate::store::StoreError;

/// What a client asked to be sent: `?points=false` for the counters alone.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct EventsQuery {
    /// Whether events carry the iterations' points (default true).
    #[serde(default = "every_point")]
    points: bool,
}

fn every_point() -> bool {
    true
}

/// Whether the events carry the iterations' points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Points {
    Sent,
    LeftOut,
}

fn event(name: &str, update: &RunUpdate, points: Points) -> Event {
    let counters_only;
    let update = match points {
        Points::Sent => update,
        Points::LeftOut => {
            counters_only = RunUpdate { progress: update.progress.clone(), points: Vec::new() };
            &counters_only
        }
    };
    Event::default().event(name).json_data(update).unwrap_or_else(|_| Event::default().event(name))
}

/// The SSE handler.
pub async fn live_events(
    State(state): State<AppState>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
    Query(query): Query<EventsQuery>,
) -> Response {
    let points = if query.points { Points::Sent } else { Points::LeftOut };
    let Ok(id) = id.parse::<RunId>() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let workspace = session.workspace_id;
    // Subscribe before reading the database, so no batch falls between the snapshot and the live updates.
    let subscription = state.runs.subscribe(workspace, id);
    let run = match state.store.get_run(workspace, id).await {
        Ok(run) => run,
        Err(StoreError::NotFound) => return StatusCode::NOT_FOUND.into_response(),
        Err(e) => {
            tracing::error!(error = %e, "reading a run failed");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let records = match state.store.run_iterations(workspace, id).await {
        Ok(records) => records,
        Err(e) => {
            tracing::error!(error = %e, "reading a run's iterations failed");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let end_ms = run.finished_at_ms.unwrap_or_else(|| state.clock.now_ms());
    let elapsed = u64::try_from(end_ms - run.created_at_ms).unwrap_or(0);
    let errors = records.iter().filter(|r| r.error.is_some()).count() as u64;
    let first = RunUpdate {
        progress: RunProgress::new(run.status, run.total_requests, records.len() as u64, errors, elapsed)
            .limited(run.plan.duration_ms),
        points: records.iter().map(LivePoint::from).collect(),
    };
    let seen: HashSet<u64> = records.iter().map(|r| r.seq).collect();
    let source = match (run.status, subscription) {
        (RunStatus::Running, Some(receiver)) => Source::Here(receiver),
        (RunStatus::Running, None) => {
            let lowest_unseen = (0u64..).find(|seq| !seen.contains(seq)).unwrap_or(0);
            Source::Elsewhere(Box::new(StoredFollow { state, workspace, run, errors, lowest_unseen }))
        }
        _ => Source::Over,
    };
    Sse::new(updates(first, seen, source, points))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// Where a run's later updates come from.
enum Source {
    /// This process drives the run: its broadcast.
    Here(broadcast::Receiver<RunUpdate>),
    /// Another process drives it: the database.
    Elsewhere(Box<StoredFollow>),
    /// The run is over: nothing more.
    Over,
}

/// Following a run another process drives, from what it stores.
struct StoredFollow {
    state: AppState,
    workspace: WorkspaceId,
    run: RunView,
    errors: u64,
    /// Iterations are stored as they finish, slightly out of send order: reads start at the lowest number not
    /// yet sent.
    lowest_unseen: u64,
}

/// How often a run driven elsewhere is read again.
const STORED_FOLLOW_EVERY: Duration = Duration::from_secs(1);

impl StoredFollow {
    /// The next update: the run's status and the iterations stored since `seen`; `None` when it cannot be read.
    async fn next(&mut self, seen: &mut HashSet<u64>) -> Option<RunUpdate> {
        tokio::time::sleep(STORED_FOLLOW_EVERY).await;
        let (store, workspace, id) = (&self.state.store, self.workspace, self.run.id);
        let run =
            store.get_run(workspace, id).await.map_err(|e| tracing::error!(error = %e, "following a run")).ok()?;
        let records = store
            .run_iterations_from(workspace, id, self.lowest_unseen)
            .await
            .map_err(|e| tracing::error!(error = %e, "following a run"))
            .ok()?;
        let fresh: Vec<_> = records.iter().filter(|r| seen.insert(r.seq)).collect();
        self.errors += fresh.iter().filter(|r| r.error.is_some()).count() as u64;
        while seen.contains(&self.lowest_unseen) {
            self.lowest_unseen += 1;
        }
        let end_ms = run.finished_at_ms.unwrap_or_else(|| self.state.clock.now_ms());
        let elapsed = u64::try_from(end_ms - run.created_at_ms).unwrap_or(0);
        let progress = RunProgress::new(run.status, run.total_requests, seen.len() as u64, self.errors, elapsed)
            .limited(run.plan.duration_ms);
        self.run = run;
        Some(RunUpdate { progress, points: fresh.into_iter().map(LivePoint::from).collect() })
    }
}

/// The snapshot, then later updates without the points already sent, then `end`.
fn updates(
    first: RunUpdate,
    seen: HashSet<u64>,
    source: Source,
    points: Points,
) -> impl Stream<Item = Result<Event, Infallible>> {
    // A run that is over gets one `end` event with everything; a running one an `update` first.
    let finished = matches!(source, Source::Over);
    let head = stream::iter([Ok(event(if finished { "end" } else { "update" }, &first, points))]);
    let tail = stream::unfold((source, seen), move |(source, mut seen)| async move {
        let mut receiver = match source {
            Source::Over => return None,
            Source::Elsewhere(mut follow) => {
                let update = follow.next(&mut seen).await?;
                let over = update.progress.status != RunStatus::Running;
                let next = if over { Source::Over } else { Source::Elsewhere(follow) };
                return Some((Ok(event(if over { "end" } else { "update" }, &update, points)), (next, seen)));
            }
            Source::Here(receiver) => receiver,
        };
        loop {
            match receiver.recv().await {
                Ok(mut update) => {
                    update.points.retain(|p| seen.insert(p.seq));
                    let over = update.progress.status != RunStatus::Running;
                    let name = if over { "end" } else { "update" };
                    let next = if over { Source::Over } else { Source::Here(receiver) };
                    return Some((Ok(event(name, &update, points)), (next, seen)));
                }
                // A slow reader missed some updates: the counters in the next one are still right, and the
                // report reads every point from the database.
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    head.chain(tail)
}
