//! The deadlock detector's search, over any wait-for graph.
//!
//! MySQL searches depth-first from the context that starts to wait and stops at depth 32,
//! *assuming* a deadlock there. This search has no depth cap: it is iterative with an
//! explicit stack, visits every node once (a node fully explored without reaching the
//! start cannot reach it later in the same search), and so costs O(edges). The victim
//! rule is MySQL's: the lowest weight on the cycle; on a tie the requester (the start),
//! then the node nearest to it on the path.
//!
//! Other lock subsystems (a table-definition cache's flush waits, a storage engine's row
//! locks) join the same graph through [`ForeignWaits`].

use crate::lock::OwnerId;
use std::collections::HashSet;
use std::hash::Hash;

/// A wait-for graph: nodes are waiters, an edge `a -> b` means `a` waits for `b`.
pub trait WaitGraph {
    type Node: Copy + Eq + Hash + std::fmt::Debug;
    /// Appends the nodes `n` waits for (nothing when `n` does not wait).
    fn successors(&self, n: Self::Node, out: &mut Vec<Self::Node>);
    /// The deadlock weight of `n`'s wait: the lowest on a cycle is the victim.
    fn weight(&self, n: Self::Node) -> u32;
}

/// A cycle through the start node and the victim chosen on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock<N> {
    /// `cycle[0]` is the start; each node waits for the next, the last for the first.
    pub cycle: Vec<N>,
    pub victim: N,
    /// Edges inspected by the search (for the linear-time benchmark).
    pub edges_visited: usize,
}

/// Looks for a cycle through `start`. Returns the path and the number of edges visited.
pub fn find_cycle<G: WaitGraph>(g: &G, start: G::Node) -> (Option<Vec<G::Node>>, usize) {
    let mut edges = 0usize;
    let mut done: HashSet<G::Node> = HashSet::new();
    let mut on_path: HashSet<G::Node> = HashSet::new();
    // Each frame: a node and its successors, with the index of the next to look at.
    let mut stack: Vec<(G::Node, Vec<G::Node>, usize)> = Vec::new();
    let mut succ = Vec::new();
    g.successors(start, &mut succ);
    stack.push((start, succ, 0));
    on_path.insert(start);
    while let Some(top) = stack.last_mut() {
        if top.2 == top.1.len() {
            let (n, _, _) = stack.pop().expect("non-empty");
            on_path.remove(&n);
            done.insert(n);
            continue;
        }
        let next = top.1[top.2];
        top.2 += 1;
        edges += 1;
        if next == start {
            return (Some(stack.iter().map(|f| f.0).collect()), edges);
        }
        // Seeded bug `mdl_bug="false_deadlock"`: a wait chain of length two is taken for
        // a cycle (MySQL's depth cap, set to 2).
        #[cfg(mdl_bug = "false_deadlock")]
        if stack.len() >= 2 {
            return (Some(stack.iter().map(|f| f.0).collect()), edges);
        }
        if done.contains(&next) || on_path.contains(&next) {
            // Explored already, or a cycle that does not pass through the start (it was
            // there before this wait and is some other search's business).
            continue;
        }
        let mut succ = Vec::new();
        g.successors(next, &mut succ);
        on_path.insert(next);
        stack.push((next, succ, 0));
    }
    (None, edges)
}

/// The victim on a cycle: the lowest weight; ties go to the node nearest the start (the
/// start itself first), as MySQL's `Deadlock_detection_visitor::opt_change_victim_to`.
pub fn choose_victim<G: WaitGraph>(g: &G, cycle: &[G::Node]) -> G::Node {
    let mut victim = cycle[0];
    let mut w = g.weight(victim);
    for n in &cycle[1..] {
        let nw = g.weight(*n);
        if nw < w {
            victim = *n;
            w = nw;
        }
    }
    #[cfg(mdl_bug = "heaviest_victim")]
    {
        victim = *cycle
            .iter()
            .max_by_key(|n| g.weight(**n))
            .expect("non-empty");
    }
    victim
}

/// One detection: a cycle through `start`, if any, and its victim.
pub fn detect<G: WaitGraph>(g: &G, start: G::Node) -> Option<Deadlock<G::Node>> {
    // Seeded bug `mdl_bug="no_deadlock_detection"`: the detector never finds a cycle.
    #[cfg(mdl_bug = "no_deadlock_detection")]
    return None;
    #[allow(unreachable_code)]
    let (cycle, edges_visited) = find_cycle(g, start);
    let cycle = cycle?;
    let victim = choose_victim(g, &cycle);
    Some(Deadlock {
        cycle,
        victim,
        edges_visited,
    })
}

/// Waits in another lock subsystem, joined to the MDL wait-for graph so that cycles that
/// pass through both are found by one detector instead of a timeout. Nodes are lock
/// owners: the subsystem names its waiters by the [`OwnerId`] of their MDL context.
pub trait ForeignWaits: Send + Sync {
    /// Appends the owners `waiter` waits for in this subsystem.
    fn waits_for(&self, waiter: OwnerId, out: &mut Vec<OwnerId>);
    /// The weight of `waiter`'s wait here, if it waits here.
    fn weight(&self, waiter: OwnerId) -> Option<u32>;
    /// `waiter` was chosen as a deadlock victim: end its wait here with an error. Returns
    /// false when it no longer waits here.
    fn abort_wait(&self, waiter: OwnerId) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct G(HashMap<u32, Vec<u32>>, HashMap<u32, u32>);
    impl WaitGraph for G {
        type Node = u32;
        fn successors(&self, n: u32, out: &mut Vec<u32>) {
            out.extend(self.0.get(&n).into_iter().flatten().copied());
        }
        fn weight(&self, n: u32) -> u32 {
            self.1.get(&n).copied().unwrap_or(10)
        }
    }

    #[test]
    fn ring_of_200() {
        let n = 200u32;
        let g = G(
            (0..n).map(|i| (i, vec![(i + 1) % n])).collect(),
            HashMap::new(),
        );
        let d = detect(&g, 0).expect("cycle");
        assert_eq!(d.cycle.len(), 200);
        assert_eq!(d.victim, 0, "tie: the requester");
    }

    #[test]
    fn lowest_weight_and_no_false_cycle() {
        let mut w = HashMap::new();
        w.insert(2, 1);
        let g = G(
            [(0, vec![1]), (1, vec![2]), (2, vec![0])]
                .into_iter()
                .collect(),
            w,
        );
        assert_eq!(detect(&g, 0).unwrap().victim, 2);
        // A cycle that does not pass through the start is not this search's.
        let g = G(
            [(0, vec![1]), (1, vec![2]), (2, vec![1])]
                .into_iter()
                .collect(),
            HashMap::new(),
        );
        assert!(detect(&g, 0).is_none());
        // A chain is no cycle.
        let g = G(
            (0..1000).map(|i| (i, vec![i + 1])).collect(),
            HashMap::new(),
        );
        let (c, e) = find_cycle(&g, 0);
        assert!(c.is_none());
        assert_eq!(e, 1000);
    }
}
