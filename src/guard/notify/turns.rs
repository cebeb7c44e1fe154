//! Whose message goes out when: a delivery pass sends its messages at once, up to [`SENDING_AT_ONCE`] in all,
//! [`PER_WORKSPACE`] of one workspace and [`PER_DESTINATION`] to one host, starting them in turns across
//! workspaces (oldest first within each); one schedule's messages go one after another, in the order written. A receiver that hangs then holds its own workspace's turns only, never
//! another workspace's alert, and a batch of hanging receivers takes a few time limits, not one each.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::guard::store::OutboxMessage;
use crate::model::WorkspaceId;

/// Messages being sent at once by one pass.
pub const SENDING_AT_ONCE: usize = 16;
/// Of those, one workspace's at most.
pub const PER_WORKSPACE: usize = 4;
/// Of those, to one host and port at most (a receiver is not flooded by one pass).
pub const PER_DESTINATION: usize = 2;

/// `messages` (oldest first) as chains, one per schedule, each oldest first (a chain is sent one message after
/// another: a receiver sees a schedule's messages in the order they were written), the chains in turns across
/// workspaces: each workspace's oldest chain, then each one's next, the workspaces in the order of their oldest
/// message.
pub fn chains_in_turns(messages: Vec<OutboxMessage>) -> Vec<Vec<OutboxMessage>> {
    let mut chains: Vec<Vec<OutboxMessage>> = Vec::new();
    for message in messages {
        match chains.iter_mut().find(|chain| chain[0].schedule == message.schedule) {
            Some(chain) => chain.push(message),
            None => chains.push(vec![message]),
        }
    }
    let mut queues: Vec<(WorkspaceId, VecDeque<Vec<OutboxMessage>>)> = Vec::new();
    for chain in chains {
        let workspace = chain[0].workspace;
        match queues.iter_mut().find(|(w, _)| *w == workspace) {
            Some((_, queue)) => queue.push_back(chain),
            None => queues.push((workspace, VecDeque::from([chain]))),
        }
    }
    let mut ordered = Vec::new();
    loop {
        let before = ordered.len();
        for (_, queue) in &mut queues {
            ordered.extend(queue.pop_front());
        }
        if ordered.len() == before {
            return ordered;
        }
    }
}

/// The turns of one pass: a message waits for its workspace's, then its destination's, then any, in the order
/// they were asked for.
pub struct Turns {
    any: Arc<Semaphore>,
    workspaces: Mutex<HashMap<WorkspaceId, Arc<Semaphore>>>,
    destinations: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A message's turn: held while it is sent.
pub struct Turn {
    _permits: [OwnedSemaphorePermit; 3],
}

impl Default for Turns {
    fn default() -> Self {
        Self {
            any: Arc::new(Semaphore::new(SENDING_AT_ONCE)),
            workspaces: Mutex::default(),
            destinations: Mutex::default(),
        }
    }
}

impl Turns {
    /// Waits for `message`'s turn; `None` when the pass is closing.
    pub async fn take(&self, message: &OutboxMessage) -> Option<Turn> {
        let workspace = self.semaphore(&self.workspaces, message.workspace, PER_WORKSPACE);
        let destination = self.semaphore(&self.destinations, destination(&message.url), PER_DESTINATION);
        let workspace = workspace.acquire_owned().await.ok()?;
        let destination = destination.acquire_owned().await.ok()?;
        let any = Arc::clone(&self.any).acquire_owned().await.ok()?;
        Some(Turn { _permits: [workspace, destination, any] })
    }

    fn semaphore<K: std::hash::Hash + Eq>(
        &self,
        map: &Mutex<HashMap<K, Arc<Semaphore>>>,
        key: K,
        permits: usize,
    ) -> Arc<Semaphore> {
        match map.lock() {
            Ok(mut map) => Arc::clone(map.entry(key).or_insert_with(|| Arc::new(Semaphore::new(permits)))),
            Err(_) => Arc::new(Semaphore::new(permits)),
        }
    }
}

/// The host and port a URL's messages go to (the whole URL when it does not parse: it will fail on its own).
fn destination(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(url) => format!("{}:{}", url.host_str().unwrap_or_default(), url.port_or_known_default().unwrap_or(0)),
        Err(_) => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::Receiver;
    use crate::model::ScheduleId;

    fn message(workspace: u128, schedule: u128, id: &str) -> OutboxMessage {
        OutboxMessage {
            id: id.into(),
            workspace: WorkspaceId(uuid::Uuid::from_u128(workspace)),
            schedule: ScheduleId(uuid::Uuid::from_u128(schedule)),
            url: format!("http://{id}"),
            receiver: Receiver::Webhook,
            body: String::new(),
            attempts: 0,
        }
    }

    fn to(workspace: u128, url: &str) -> OutboxMessage {
        OutboxMessage { url: url.into(), ..message(workspace, 0, "m") }
    }

    #[test]
    fn a_schedules_messages_form_one_chain_and_chains_go_in_turns_across_workspaces() {
        // Workspace 1 has schedules 10 and 11; workspace 2 has 20 and 21; workspace 3 has 30.
        let oldest_first = vec![
            message(1, 10, "a1"),
            message(1, 10, "a2"),
            message(1, 11, "b1"),
            message(2, 20, "c1"),
            message(1, 10, "a3"),
            message(3, 30, "e1"),
            message(2, 21, "d1"),
            message(2, 20, "c2"),
        ];
        let chains: Vec<Vec<String>> =
            chains_in_turns(oldest_first).into_iter().map(|chain| chain.into_iter().map(|m| m.id).collect()).collect();
        assert_eq!(chains, [vec!["a1", "a2", "a3"], vec!["c1", "c2"], vec!["e1"], vec!["b1"], vec!["d1"]]);
    }

    #[test]
    fn a_destination_is_its_host_and_port() {
        assert_eq!(destination("https://hooks.slack.com/services/T/B/x"), "hooks.slack.com:443");
        assert_eq!(destination("http://127.0.0.1:9000/hook?x=1"), "127.0.0.1:9000");
        assert_eq!(destination("not a url"), "not a url");
    }

    #[tokio::test]
    async fn a_workspace_and_a_destination_hold_their_own_turns_only() {
        let turns = Turns::default();
        let mut held = Vec::new();
        for i in 0..PER_WORKSPACE {
            held.push(turns.take(&to(1, &format!("http://a{i}"))).await.unwrap());
        }
        let fifth = to(1, "http://z");
        let blocked = tokio::time::timeout(std::time::Duration::from_millis(50), turns.take(&fifth));
        assert!(blocked.await.is_err(), "a fifth message of one workspace waits");
        assert!(turns.take(&to(2, "http://b")).await.is_some(), "another workspace's goes at once");
        let first = turns.take(&to(3, "http://same")).await.unwrap();
        let second = turns.take(&to(4, "http://same")).await.unwrap();
        let to_the_same = to(5, "http://same");
        let third = tokio::time::timeout(std::time::Duration::from_millis(50), turns.take(&to_the_same));
        assert!(third.await.is_err(), "a third message to one host waits");
        drop((first, second, held));
    }
}
