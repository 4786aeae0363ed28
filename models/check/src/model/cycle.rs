//! The checker's one cycle search over an explored state graph: liveness as a search mode
//! of the engine ([`super::search::Search::run_mode`] with [`super::search::Mode::graph`]
//! records every edge it follows and which states are *pending*, i.e. states in which an
//! `eventually` property still waits, [`super::engine_model::EngineModel::pending`]). A liveness
//! violation is a lasso: a path to a pending state from which a cycle of pending states
//! leads back to it (a run on which the awaited thing never happens).
//!
//! The oracle's wait-for-graph cycle check ([`super::graph`]) stays independent of this.

use std::collections::VecDeque;

/// The explored graph: every edge followed (source, action, target), in the order the
/// search expanded its states, and per state whether it is pending.
#[derive(Debug)]
pub struct Graph<A> {
    pub edges: Vec<(u32, A, u32)>,
    pub pending: Vec<bool>,
}

impl<A> Default for Graph<A> {
    fn default() -> Self {
        Graph {
            edges: Vec::new(),
            pending: Vec::new(),
        }
    }
}

/// A cycle of pending states: its first state and the actions around it (back to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingCycle<A> {
    pub state: u32,
    pub cycle: Vec<A>,
}

/// Successor lists over the pending states only (edges between two pending states).
struct Adj<A> {
    start: Vec<usize>,
    to: Vec<(A, u32)>,
}

/// Seeded bug `mdl_bug="cycle_ignores_pending"`: every state counts as pending, so any
/// cycle (a loop of the other sessions after the watched one was served) is taken for a
/// starving run. The zoo's fixed `snrw-starves-readers` design then fails its `assert
/// eventually` (models/mdl/tests/zoo.rs).
#[cfg(mdl_bug = "cycle_ignores_pending")]
fn marks(g: &[bool]) -> Vec<bool> {
    vec![true; g.len()]
}
#[cfg(not(mdl_bug = "cycle_ignores_pending"))]
fn marks(g: &[bool]) -> Vec<bool> {
    g.to_vec()
}

impl<A: Copy> Adj<A> {
    fn new(g: &Graph<A>, pending: &[bool]) -> Adj<A> {
        let n = pending.len();
        let mut count = vec![0usize; n + 1];
        let inside = |e: &&(u32, A, u32)| pending[e.0 as usize] && pending[e.2 as usize];
        for e in g.edges.iter().filter(inside) {
            count[e.0 as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut to = Vec::with_capacity(count[n]);
        to.resize(count[n], None);
        for e in g.edges.iter().filter(inside) {
            to[fill[e.0 as usize]] = Some((e.1, e.2));
            fill[e.0 as usize] += 1;
        }
        Adj {
            start: count,
            to: to.into_iter().flatten().collect(),
        }
    }
    fn succ(&self, v: usize) -> &[(A, u32)] {
        &self.to[self.start[v]..self.start[v + 1]]
    }
}

/// Strongly connected components of the pending states (Tarjan's, iterative): each
/// pending state's component number (`usize::MAX` for the others).
fn components<A: Copy>(adj: &Adj<A>, pending: &[bool]) -> Vec<usize> {
    let n = pending.len();
    let mut idx = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on = vec![false; n];
    let mut comp = vec![usize::MAX; n];
    let mut stack: Vec<usize> = Vec::new();
    let (mut next, mut ncomp) = (0usize, 0usize);
    for root in (0..n).filter(|&r| pending[r]) {
        if idx[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        (idx[root], low[root]) = (next, next);
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if let Some(&(_, w)) = adj.succ(v).get(*k) {
                *k += 1;
                let w = w as usize;
                if idx[w] == usize::MAX {
                    (idx[w], low[w]) = (next, next);
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == idx[v] {
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp[w] = ncomp;
                    if w == v {
                        break;
                    }
                }
                ncomp += 1;
            }
        }
    }
    comp
}

/// A shortest cycle through `v` inside its component (breadth-first): its actions.
fn shortest_cycle<A: Copy>(adj: &Adj<A>, comp: &[usize], v: usize) -> Vec<A> {
    let mut from: Vec<Option<(usize, A)>> = vec![None; comp.len()];
    let mut q = VecDeque::from([v]);
    let mut cycle = Vec::new();
    'bfs: while let Some(x) = q.pop_front() {
        for &(a, w) in adj.succ(x) {
            let w = w as usize;
            if comp[w] != comp[v] {
                continue;
            }
            if w == v {
                cycle.push(a);
                let mut y = x;
                while y != v {
                    let (p, b) = from[y].expect("on the breadth-first tree");
                    cycle.push(b);
                    y = p;
                }
                break 'bfs;
            }
            if from[w].is_none() {
                from[w] = Some((x, a));
                q.push_back(w);
            }
        }
    }
    cycle.reverse();
    cycle
}

/// The first state (in the search's order: with a breadth-first search, one nearest the
/// initial state) that lies on a cycle of pending states, with a shortest such cycle
/// through it; `None` when no run stays pending for ever.
pub fn pending_cycle<A: Copy>(g: &Graph<A>) -> Option<PendingCycle<A>> {
    let pending = marks(&g.pending);
    let adj = Adj::new(g, &pending);
    let comp = components(&adj, &pending);
    let on_cycle = |v: usize| {
        pending[v]
            && adj
                .succ(v)
                .iter()
                .any(|&(_, w)| comp[w as usize] == comp[v])
    };
    let v = (0..pending.len()).find(|&v| on_cycle(v))?;
    Some(PendingCycle {
        state: v as u32,
        cycle: shortest_cycle(&adj, &comp, v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, pending: &[usize], edges: &[(u32, u32)]) -> Graph<u8> {
        let mut p = vec![false; n];
        for &v in pending {
            p[v] = true;
        }
        Graph {
            edges: edges.iter().map(|&(a, b)| (a, b as u8, b)).collect(),
            pending: p,
        }
    }

    #[test]
    fn a_pending_cycle_is_found_with_its_shortest_loop() {
        // 0 -> 1 -> 2 -> 3 -> 1, and 2 -> 1: the shortest loop through 1 is 1 2 1.
        let g = graph(4, &[1, 2, 3], &[(0, 1), (1, 2), (2, 3), (3, 1), (2, 1)]);
        let c = pending_cycle(&g).expect("a cycle");
        assert_eq!(c.state, 1);
        assert_eq!(c.cycle, vec![2, 1]);
    }

    #[test]
    fn a_cycle_through_a_state_that_is_not_pending_does_not_count() {
        let g = graph(3, &[1, 2], &[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(pending_cycle(&g), None);
        let g = graph(3, &[2], &[(0, 1), (1, 2), (2, 2)]);
        assert_eq!(
            pending_cycle(&g),
            Some(PendingCycle {
                state: 2,
                cycle: vec![2]
            })
        );
    }
}
