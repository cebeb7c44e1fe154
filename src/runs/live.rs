//! `GET /api/runs/{id}/events`: a run's progress as Server-Sent Events, pushed as batches are stored (no
//! polling). A running run first gets an `update` with the counters and every point recorded so far (from the
//! database), then `update`s with the points finished since, and an `end` when it is over; a run already over
//! gets a single `end` with everything.

use axum::extract::{Path, State};
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
use crate::model::{LivePoint, RunId, RunProgress, RunStatus, RunUpdate};
use crate::server::AppState;
use crate::store::StoreError;

fn event(name: &str, update: &RunUpdate) -> Event {
    Event::default().event(name).json_data(update).unwrap_or_else(|_| Event::default().event(name))
}

/// The SSE handler.
pub async fn live_events(
    State(state): State<AppState>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> Response {
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
        progress: RunProgress::new(run.status, run.total_requests, records.len() as u64, errors, elapsed),
        points: records.iter().map(LivePoint::from).collect(),
    };
    let seen: HashSet<u64> = records.iter().map(|r| r.seq).collect();
    let live = subscription.filter(|_| run.status == RunStatus::Running);
    Sse::new(updates(first, seen, live)).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// The snapshot, then live updates without the points already sent, then `end`.
fn updates(
    first: RunUpdate,
    seen: HashSet<u64>,
    live: Option<broadcast::Receiver<RunUpdate>>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    // A run that is over gets one `end` event with everything; a running one an `update` first.
    let finished = live.is_none();
    let head = stream::iter([Ok(event(if finished { "end" } else { "update" }, &first))]);
    let tail = stream::unfold((live, seen, finished), |(live, mut seen, finished)| async move {
        if finished {
            return None;
        }
        let mut receiver = live?;
        loop {
            match receiver.recv().await {
                Ok(mut update) => {
                    update.points.retain(|p| seen.insert(p.seq));
                    let over = update.progress.status != RunStatus::Running;
                    let name = if over { "end" } else { "update" };
                    return Some((Ok(event(name, &update)), (Some(receiver), seen, over)));
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
