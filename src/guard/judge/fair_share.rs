//! Which due schedules take the free evaluation slots: one workspace's schedules never hold every slot while
//! another's wait. Each workspace with work (due or running) has an equal share of the process's slots (at least
//! one), and no workspace holds every slot even alone (one stays free for whoever comes next, since an evaluation
//! may run for many minutes); the due schedules are taken in turns across workspaces, oldest due first within each
//! and the workspace whose oldest is oldest first, until the free slots are gone or every workspace with due
//! schedules is at its share. A pure rule: the tick applies it to the due rows it locked.

use std::collections::HashMap;

use crate::model::WorkspaceId;

/// The indexes of `due` (each schedule's workspace, oldest due first) to evaluate now, in the order to start them:
/// at most `free` of them, and no workspace beyond its share of `slots` counting what it has `running`.
pub fn pick_fairly(
    due: &[WorkspaceId],
    running: &HashMap<WorkspaceId, usize>,
    slots: usize,
    free: usize,
) -> Vec<usize> {
    // Workspaces in the order of their oldest due schedule, each with its due schedules oldest first.
    let mut queues: Vec<(WorkspaceId, Vec<usize>)> = Vec::new();
    for (i, workspace) in due.iter().enumerate() {
        match queues.iter_mut().find(|(w, _)| w == workspace) {
            Some((_, queue)) => queue.push(i),
            None => queues.push((*workspace, vec![i])),
        }
    }
    let busy = running.iter().filter(|(w, n)| **n > 0 && !queues.iter().any(|(q, _)| q == *w)).count();
    let share = slots.div_ceil((queues.len() + busy).max(1)).min(slots.saturating_sub(1)).max(1);
    let mut taken: HashMap<WorkspaceId, usize> = HashMap::new();
    let mut picked = Vec::new();
    let mut round = 0;
    while picked.len() < free {
        let before = picked.len();
        for (workspace, queue) in &queues {
            let now = running.get(workspace).copied().unwrap_or(0) + taken.get(workspace).copied().unwrap_or(0);
            if picked.len() == free || now >= share {
                continue;
            }
            if let Some(&i) = queue.get(round) {
                picked.push(i);
                *taken.entry(*workspace).or_default() += 1;
            }
        }
        if picked.len() == before {
            break;
        }
        round += 1;
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Due (oldest first), running, slots, free slots → the indexes picked.
    type Case = (Vec<WorkspaceId>, Vec<(WorkspaceId, usize)>, usize, usize, Vec<usize>);

    fn ws(n: u128) -> WorkspaceId {
        WorkspaceId(uuid::Uuid::from_u128(n))
    }

    #[test]
    fn the_free_slots_go_round_the_workspaces_each_within_its_share() {
        let (a, b, c) = (ws(1), ws(2), ws(3));
        let none = HashMap::new();
        // (due, running, slots, free) → picked
        let table: [Case; 9] = [
            // One workspace alone takes every slot but one, kept for whoever comes next.
            (vec![a, a, a, a, a], vec![], 4, 4, vec![0, 1, 2]),
            // ... which the next workspace's schedule takes at once.
            (vec![a, a, b], vec![(a, 3)], 4, 1, vec![2]),
            // Four slow schedules of A and one of B: B starts beside A's first two; A's others wait their turn.
            (vec![a, a, a, a, b], vec![], 4, 4, vec![0, 4, 1]),
            // A already runs two: its share is spent, B's schedule takes a slot.
            (vec![a, a, b], vec![(a, 2)], 4, 2, vec![2]),
            // Three workspaces over four slots: two each at most, in turns, oldest workspace first.
            (vec![b, a, a, c, b, a], vec![], 4, 4, vec![0, 1, 3, 4]),
            // A workspace running but with nothing due still counts in the shares.
            (vec![a, a, a], vec![(b, 1)], 4, 3, vec![0, 1]),
            // No free slot: nothing starts.
            (vec![a, b], vec![], 4, 0, vec![]),
            // Nothing due.
            (vec![], vec![(a, 4)], 4, 0, vec![]),
            // More workspaces than slots: one each, the oldest workspaces first.
            (vec![a, b, c], vec![], 2, 2, vec![0, 1]),
        ];
        for (due, running, slots, free, picked) in table {
            let running: HashMap<_, _> = running.into_iter().collect();
            assert_eq!(pick_fairly(&due, &running, slots, free), picked, "{due:?} {running:?} {slots} {free}");
        }
        assert_eq!(pick_fairly(&[a], &none, 0, 1), vec![0], "a share is at least one");
        assert_eq!(pick_fairly(&[a, a], &none, 1, 1), vec![0], "one slot: taken, nothing to keep free");
    }
}
