//! Taking in an upload's body without letting one client hold up another's: one upload per workspace at a time
//! (the others of that workspace wait for their turn), the bodies being held across the process within a byte
//! budget that each takes as its bytes arrive, and a body that stops coming, or takes too long, is ended with a
//! clear reason. A slow or stalled client so holds its own workspace's turn and the bytes it actually sent, never
//! a slot every workspace needs.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use axum::body::Body;
use tokio::sync::{OwnedMutexGuard, Semaphore, SemaphorePermit};

use crate::model::WorkspaceId;
use crate::workload::model::MAX_DATASET_BYTES;

/// Bodies held at once across the process, in KiB: two files at the limit. A body that would pass it waits for
/// room (in the order asked), within its time limit.
const HELD_KIB: usize = 2 * MAX_DATASET_BYTES / 1024;
static HELD: Semaphore = Semaphore::const_new(HELD_KIB);

/// The whole body must arrive within this long, waits for room included.
pub const BODY_TIME_LIMIT: Duration = Duration::from_secs(120);
/// No new byte for this long ends the upload.
pub const BODY_IDLE_LIMIT: Duration = Duration::from_secs(15);

/// Why a body was not taken in.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// More than the limit came.
    #[error("too large")]
    TooLarge,
    /// The connection broke.
    #[error("the upload broke off: {0}")]
    BrokeOff(String),
    /// No byte came for [`BODY_IDLE_LIMIT`].
    #[error(
        "the upload stopped: no byte came for {} s after {received} bytes; send the file again",
        BODY_IDLE_LIMIT.as_secs()
    )]
    Stalled {
        /// Bytes that came before it stopped.
        received: usize,
    },
    /// The body did not finish within [`BODY_TIME_LIMIT`].
    #[error(
        "the upload took longer than {} s ({received} bytes came); a larger or slower file goes through \
         `latency-guard bench --dataset`, which reads it from disk",
        BODY_TIME_LIMIT.as_secs()
    )]
    TooSlow {
        /// Bytes that came in time.
        received: usize,
    },
}

/// A body taken in, with the share of the process's byte budget it holds.
pub struct HeldBody {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Their room in the budget: keep it until what was made of the bytes is stored.
    pub room: BodyRoom,
}

/// A body's room in the process's byte budget, given back when dropped.
pub struct BodyRoom(Option<SemaphorePermit<'static>>);

/// One upload per workspace at a time: a workspace's turn, held while its upload is read, checked and stored.
pub struct WorkspaceTurn {
    workspace: WorkspaceId,
    _turn: OwnedMutexGuard<()>,
}

type TurnMap = Mutex<HashMap<WorkspaceId, Arc<tokio::sync::Mutex<()>>>>;
static TURNS: LazyLock<TurnMap> = LazyLock::new(TurnMap::default);

/// Waits for `workspace`'s turn to upload.
pub async fn workspace_turn(workspace: WorkspaceId) -> WorkspaceTurn {
    let lock = match TURNS.lock() {
        Ok(mut turns) => Arc::clone(turns.entry(workspace).or_default()),
        // A poisoned map only loses the one-at-a-time rule, never an upload.
        Err(_) => Arc::default(),
    };
    WorkspaceTurn { workspace, _turn: lock.lock_owned().await }
}

impl Drop for WorkspaceTurn {
    fn drop(&mut self) {
        // The last one out removes its workspace's entry, so the map holds only workspaces uploading now. The
        // guard still holds one reference and the map another; anyone waiting holds a third.
        if let Ok(mut turns) = TURNS.lock() {
            if turns.get(&self.workspace).is_some_and(|lock| Arc::strong_count(lock) <= 2) {
                turns.remove(&self.workspace);
            }
        }
    }
}

/// Reads `body` within the limits: at most [`MAX_DATASET_BYTES`] (one byte over is enough to know it is too
/// large), taking its room in the byte budget as it comes.
pub async fn take_in(body: Body) -> Result<HeldBody, BodyError> {
    let mut received = 0;
    match tokio::time::timeout(BODY_TIME_LIMIT, read(body, &mut received)).await {
        Ok(read) => read,
        Err(_) => Err(BodyError::TooSlow { received }),
    }
}

async fn read(body: Body, received: &mut usize) -> Result<HeldBody, BodyError> {
    use futures::StreamExt;
    let mut chunks = body.into_data_stream();
    let mut held = HeldBody { bytes: Vec::new(), room: BodyRoom(None) };
    let mut held_kib = 0;
    loop {
        let next = tokio::time::timeout(BODY_IDLE_LIMIT, chunks.next()).await;
        let chunk = match next {
            Err(_) => return Err(BodyError::Stalled { received: *received }),
            Ok(None) => return Ok(held),
            Ok(Some(chunk)) => chunk.map_err(|e| BodyError::BrokeOff(e.to_string()))?,
        };
        if held.bytes.len() + chunk.len() > MAX_DATASET_BYTES {
            return Err(BodyError::TooLarge);
        }
        let kib = (held.bytes.len() + chunk.len()).div_ceil(1024);
        if kib > held_kib {
            let more = u32::try_from(kib - held_kib).unwrap_or(u32::MAX);
            let Ok(room) = HELD.acquire_many(more).await else {
                return Err(BodyError::BrokeOff("the server is shutting down".into()));
            };
            match &mut held.room.0 {
                Some(permit) => permit.merge(room),
                None => held.room.0 = Some(room),
            }
            held_kib = kib;
        }
        held.bytes.extend_from_slice(&chunk);
        *received = held.bytes.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_workspace_waits_for_its_own_turn_and_its_entry_goes_with_the_last() {
        let (one, two) = (WorkspaceId(uuid::Uuid::from_u128(1)), WorkspaceId(uuid::Uuid::from_u128(2)));
        let first = workspace_turn(one).await;
        let second = tokio::time::timeout(Duration::from_millis(50), workspace_turn(one)).await;
        assert!(second.is_err(), "a second upload of one workspace waits");
        let other = tokio::time::timeout(Duration::from_millis(50), workspace_turn(two)).await;
        assert!(other.is_ok(), "another workspace's goes at once");
        drop(other);
        drop(first);
        let again = tokio::time::timeout(Duration::from_millis(50), workspace_turn(one)).await;
        assert!(again.is_ok(), "after the first, the next");
        drop(again);
        let left = TURNS.lock().unwrap().keys().filter(|w| [one, two].contains(w)).count();
        assert_eq!(left, 0, "no entry stays for a workspace that is not uploading");
    }

    #[tokio::test]
    async fn a_body_holds_room_for_its_bytes_until_dropped() {
        let before = HELD.available_permits();
        let body = take_in(Body::from(vec![b'x'; 10 * 1024 + 1])).await.unwrap();
        assert_eq!(body.bytes.len(), 10 * 1024 + 1);
        assert_eq!(HELD.available_permits(), before - 11);
        drop(body);
        assert_eq!(HELD.available_permits(), before);
    }
}
