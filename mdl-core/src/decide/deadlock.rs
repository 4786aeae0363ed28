//! The deadlock detector's search, over any wait-for graph.
//!
//! MySQL and MariaDB (sql/mdl.cc, `MDL_context::find_deadlock`, `MDL_lock::visit_subgraph`,
//! `Deadlock_detection_visitor`) search depth-first from the context that starts to wait:
//! at each node they first inspect every edge for the start, then descend into the
//! successors in order (granted tickets, then waiting ones). They keep no record of the
//! nodes seen and stop at depth `MAX_SEARCH_DEPTH` = 32, *assuming* a deadlock there.
//!
//! Two searches, the same order:
//! - [`find_cycle`] (the default) is exact: it visits every node once (a node fully
//!   explored without reaching the start cannot reach it later in the same search), never
//!   follows a cycle that does not pass through the start, and so costs O(edges). It
//!   finds the cycle the servers find whenever their search does not reach the cap.
//! - [`find_capped`] is the servers' search as written, with the cap as a parameter
//!   (`max_search_depth`): exponential in the worst case, bounded by the cap.
//!
//! The victim rule is the servers': the lowest weight on the path; on a tie the node
//! nearest the requester (`opt_change_victim_to` replaces the victim while backtracking
//! when the new one weighs the same or less).
//!
//! Other lock subsystems (a table-definition cache's flush waits, a storage engine's row
//! locks) join the same graph through [`ForeignWaits`].

use crate::decide::lock::OwnerId;
use std::collections::HashSet;
use std::hash::Hash;

/// A wait-for graph: nodes are waiters, an edge `a -> b` means `a` waits for `b`.
pub trait WaitGraph {
    type Node: Copy + Eq + Hash + std::fmt::Debug;
    /// Appends the nodes `n` waits for (nothing when `n` does not wait).
    fn successors(&self, n: Self::Node, out: &mut Vec<Self::Node>);
    /// The deadlock weight of `n`'s wait: the lowest on a cycle is the victim.
    fn weight(&self, n: Self::Node) -> u32;
    /// Does `n` wait (with no outcome decided yet)? The capped search enters, and counts
    /// the depth of, waiting nodes only (MySQL: `MDL_context::visit_subgraph` follows
    /// `m_waiting_for`, and `MDL_lock::visit_subgraph` skips a context whose wait status
    /// is set). By default: `n` has a successor.
    fn is_waiting(&self, n: Self::Node) -> bool {
        let mut v = Vec::new();
        self.successors(n, &mut v);
        !v.is_empty()
    }
}

impl<G: WaitGraph + ?Sized> WaitGraph for &G {
    type Node = G::Node;
    fn successors(&self, n: G::Node, out: &mut Vec<G::Node>) {
        (**self).successors(n, out)
    }
    fn weight(&self, n: G::Node) -> u32 {
        (**self).weight(n)
    }
    fn is_waiting(&self, n: G::Node) -> bool {
        (**self).is_waiting(n)
    }
}

/// The edges of `g` out of `nodes`, in that order: (waiter, waited-for) pairs, each
/// node's successors sorted and without repeats (for introspection and the model's
/// wait-for graph).
pub fn edges<G: WaitGraph>(
    g: &G,
    nodes: impl IntoIterator<Item = G::Node>,
) -> Vec<(G::Node, G::Node)>
where
    G::Node: Ord,
{
    let mut out = Vec::new();
    let mut succ = Vec::new();
    for n in nodes {
        succ.clear();
        g.successors(n, &mut succ);
        succ.sort();
        succ.dedup();
        out.extend(succ.iter().map(|m| (n, *m)));
    }
    out
}

/// A deadlock found from a start node and the victim chosen on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock<N> {
    /// The path of the search, `cycle[0]` the start, each node waiting for the next. The
    /// last waits for the first, unless `capped`.
    pub cycle: Vec<N>,
    pub victim: N,
    /// Edges inspected by the search (for the linear-time benchmark).
    pub edges_visited: usize,
    /// The search reached `max_search_depth` on this path and declared a deadlock
    /// without a cycle (MySQL: `Deadlock_detection_visitor::enter_node`).
    pub capped: bool,
}

/// Looks for a cycle through `start`, exactly. Returns the path and the number of edges
/// inspected.
pub fn find_cycle<G: WaitGraph>(g: &G, start: G::Node) -> (Option<Vec<G::Node>>, usize) {
    let mut edges = 0usize;
    let mut done: HashSet<G::Node> = HashSet::new();
    let mut on_path: HashSet<G::Node> = HashSet::new();
    // Each frame: a node and its successors, with the index of the next to descend into.
    let mut stack: Vec<(G::Node, Vec<G::Node>, usize)> = Vec::new();
    let mut succ = Vec::new();
    g.successors(start, &mut succ);
    edges += succ.len();
    // MySQL: sql/mdl.cc, MDL_lock::visit_subgraph: "inspect all edges of the current
    // node, and only then follow up to the next node".
    if succ.contains(&start) {
        return (Some(vec![start]), edges);
    }
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
        edges += succ.len();
        let back = succ.contains(&start);
        on_path.insert(next);
        stack.push((next, succ, 0));
        if back {
            return (Some(stack.iter().map(|f| f.0).collect()), edges);
        }
    }
    (None, edges)
}

/// A path found by [`find_capped`] and whether the cap (not a cycle) ended it.
pub type CappedPath<N> = Option<(Vec<N>, bool)>;

/// A frame of the depth-first search: a node, its successors, the next to descend into.
type Frame<N> = (N, Vec<N>, usize);

/// The servers' search with its depth cap (MySQL and MariaDB: sql/mdl.cc,
/// `MDL_lock::visit_subgraph` with `Deadlock_detection_visitor`): no record of the nodes
/// seen; entering a waiting node adds one to the depth (the start is depth 1), and
/// entering the `max_depth`-th declares a deadlock there (`enter_node`: "++depth >=
/// MAX_SEARCH_DEPTH"). A node that does not wait is not entered. Returns the path, the
/// edges inspected, and whether the cap (not a cycle) ended the search; `None` as the
/// path when neither was reached.
pub fn find_capped<G: WaitGraph>(
    g: &G,
    start: G::Node,
    max_depth: u32,
) -> (CappedPath<G::Node>, usize) {
    let mut edges = 0usize;
    let path = |stack: &[Frame<G::Node>]| -> Vec<G::Node> { stack.iter().map(|f| f.0).collect() };
    // enter_node(start): depth 1.
    if max_depth <= 1 {
        return (Some((vec![start], true)), edges);
    }
    let mut stack: Vec<Frame<G::Node>> = Vec::new();
    let mut succ = Vec::new();
    g.successors(start, &mut succ);
    edges += succ.len();
    if succ.contains(&start) {
        return (Some((vec![start], false)), edges);
    }
    stack.push((start, succ, 0));
    while let Some(top) = stack.last_mut() {
        if top.2 == top.1.len() {
            // leave_node: no deadlock below this node.
            stack.pop();
            continue;
        }
        let next = top.1[top.2];
        top.2 += 1;
        if !g.is_waiting(next) {
            continue;
        }
        // enter_node(next): its depth is the stack's length plus one.
        if stack.len() as u32 + 1 >= max_depth {
            let mut p = path(&stack);
            p.push(next);
            return (Some((p, true)), edges);
        }
        let mut succ = Vec::new();
        g.successors(next, &mut succ);
        edges += succ.len();
        let back = succ.contains(&start);
        stack.push((next, succ, 0));
        if back {
            return (Some((path(&stack), false)), edges);
        }
    }
    (None, edges)
}

/// The victim on a path: the lowest weight; ties go to the node nearest the start (the
/// start itself first). MySQL and MariaDB: sql/mdl.cc,
/// `Deadlock_detection_visitor::opt_change_victim_to`, called for the deepest node and
/// then for each node backtracked over (`leave_node`), replacing the victim when the new
/// node weighs the same or less.
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

/// One detection, exact: a cycle through `start`, if any, and its victim.
pub fn detect<G: WaitGraph>(g: &G, start: G::Node) -> Option<Deadlock<G::Node>> {
    detect_with(g, start, None)
}

/// One detection: exact (`max_depth` `None`) or with the servers' depth cap.
pub fn detect_with<G: WaitGraph>(
    g: &G,
    start: G::Node,
    max_depth: Option<u32>,
) -> Option<Deadlock<G::Node>> {
    // Seeded bug `mdl_bug="no_deadlock_detection"`: the detector never finds a cycle.
    #[cfg(mdl_bug = "no_deadlock_detection")]
    return None;
    #[allow(unreachable_code)]
    let (found, edges_visited) = match max_depth {
        None => {
            let (c, e) = find_cycle(g, start);
            (c.map(|c| (c, false)), e)
        }
        Some(n) => find_capped(g, start, n),
    };
    let (cycle, capped) = found?;
    let victim = choose_victim(g, &cycle);
    Some(Deadlock {
        cycle,
        victim,
        edges_visited,
        capped,
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
