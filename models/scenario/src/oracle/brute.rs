//! Brute-force cycle search: enumerate every simple path from the start, successors in
//! the order given, and take the first that returns to the start. Exponential, and
//! obviously right; only for the small graphs of the oracle and the fuzzers.

// Seeded bug `oracle_imports_decision`: the oracle reaches for the core's cycle search,
// the code it is there to check (`tests/oracle_independent.rs` must catch it).
#[cfg(mdl_bug = "oracle_imports_decision")]
#[allow(unused_imports)]
use mdl_core::deadlock::find_cycle;

/// A wait-for graph as plain lists: `succ[n]` are the nodes `n` waits for, in the order
/// the detector looks at them; `weight[n]` is the deadlock weight of `n`'s wait.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub succ: Vec<Vec<usize>>,
    pub weight: Vec<u32>,
}

/// The first simple cycle through `start` in the servers' depth-first order (sql/mdl.cc,
/// `MDL_lock::visit_subgraph`: at each node every edge is inspected for the start before
/// the search descends into the successors, in order).
pub fn first_cycle(g: &Graph, start: usize) -> Option<Vec<usize>> {
    fn go(g: &Graph, start: usize, path: &mut Vec<usize>) -> bool {
        let n = *path.last().expect("non-empty");
        if g.succ[n].contains(&start) {
            return true;
        }
        for &m in &g.succ[n] {
            if path.contains(&m) {
                continue;
            }
            path.push(m);
            if go(g, start, path) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut path = vec![start];
    go(g, start, &mut path).then_some(path)
}

/// The servers' search with its depth cap, as written (sql/mdl.cc,
/// `MDL_lock::visit_subgraph` with `Deadlock_detection_visitor`): recursive, no record of
/// the nodes seen; `enter_node` adds one to the depth (the start is 1) and at `depth`
/// declares a deadlock; a node that does not wait (`waits[n]` false) is not entered.
/// Returns the path and whether the cap (not a cycle) ended it.
pub fn capped_search(
    g: &Graph,
    waits: &[bool],
    start: usize,
    depth: u32,
) -> Option<(Vec<usize>, bool)> {
    fn visit(
        g: &Graph,
        waits: &[bool],
        start: usize,
        depth: u32,
        path: &mut Vec<usize>,
    ) -> Option<bool> {
        // enter_node
        if path.len() as u32 >= depth {
            return Some(true);
        }
        let n = *path.last().expect("non-empty");
        // inspect_edge for every edge first
        if g.succ[n].contains(&start) {
            return Some(false);
        }
        for &m in &g.succ[n] {
            if !waits[m] {
                continue;
            }
            path.push(m);
            if let Some(c) = visit(g, waits, start, depth, path) {
                return Some(c);
            }
            path.pop();
        }
        None
    }
    let mut path = vec![start];
    visit(g, waits, start, depth, &mut path).map(|capped| (path, capped))
}

/// Is there any cycle through `start`? (Plain reachability of `start` from its
/// successors, a second independent formulation.)
pub fn reaches_start(g: &Graph, start: usize) -> bool {
    let mut seen = vec![false; g.succ.len()];
    let mut todo: Vec<usize> = g.succ[start].clone();
    while let Some(n) = todo.pop() {
        if n == start {
            return true;
        }
        if !seen[n] {
            seen[n] = true;
            todo.extend(&g.succ[n]);
        }
    }
    false
}

/// The victim on a cycle: the lowest weight; on a tie the earliest on the path (the
/// start, then the node nearest to it).
pub fn victim(g: &Graph, cycle: &[usize]) -> usize {
    let min = cycle.iter().map(|&n| g.weight[n]).min().expect("non-empty");
    *cycle
        .iter()
        .find(|&&n| g.weight[n] == min)
        .expect("the minimum is on the cycle")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graphs() {
        let g = Graph {
            succ: vec![vec![1, 2], vec![2], vec![0]],
            weight: vec![5, 1, 1],
        };
        assert_eq!(first_cycle(&g, 0), Some(vec![0, 1, 2]));
        assert_eq!(victim(&g, &[0, 1, 2]), 1);
        assert!(reaches_start(&g, 0));
        let g = Graph {
            succ: vec![vec![1], vec![2], vec![1]],
            weight: vec![1, 1, 1],
        };
        assert_eq!(first_cycle(&g, 0), None);
        assert!(!reaches_start(&g, 0));
        // Under a cap the loop 1 -> 2 -> 1 is followed until depth 4.
        let all = [true; 3];
        assert_eq!(
            capped_search(&g, &all, 0, 4),
            Some((vec![0, 1, 2, 1], true))
        );
        // The direct edge back to the start is seen before any descent: 0 -> 1 -> 0,
        // not 0 -> 1 -> 2 -> 0.
        let g = Graph {
            succ: vec![vec![1], vec![2, 0], vec![0]],
            weight: vec![1, 1, 1],
        };
        assert_eq!(first_cycle(&g, 0), Some(vec![0, 1]));
        assert_eq!(capped_search(&g, &all, 0, 32), Some((vec![0, 1], false)));
        // A node that does not wait is not entered.
        let chain = Graph {
            succ: vec![vec![1], vec![2], vec![]],
            weight: vec![1, 1, 1],
        };
        assert_eq!(capped_search(&chain, &[true, true, false], 0, 3), None);
        assert_eq!(
            capped_search(&chain, &[true, true, true], 0, 3),
            Some((vec![0, 1, 2], true))
        );
    }
}
