//! The model's own cycle search: a deliberately independent, brute-force check of the
//! wait-for graph (it does not use `mdl_core::deadlock`). With at most a few sessions a
//! reachability closure is cheap and obviously right.

/// Does the directed graph on nodes `0..n` with `edges` (waiter, waited-for) have a cycle
/// through `v`? Self-loops are ignored: a session never waits for itself.
pub fn has_cycle_through(n: usize, edges: &[(usize, usize)], v: usize) -> bool {
    if v >= n {
        return false;
    }
    // reach[a][b]: a path of one or more edges from a to b (Warshall's closure).
    let mut reach = vec![vec![false; n]; n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            reach[a][b] = true;
        }
    }
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (x, y) in row.iter_mut().zip(&via) {
                    *x |= *y;
                }
            }
        }
    }
    reach[v][v]
}

/// Under the servers' depth cap (`max_search_depth` = `depth`): is `v` on a walk of
/// `depth` waiting nodes that starts at `start`? The servers' search keeps no record of
/// the nodes it saw (a walk may repeat nodes) and declares a deadlock on entering the
/// `depth`-th; a waiting node is one with an outgoing edge (or the start). `v` is on such
/// a walk when it can be the k-th node of a walk from `start` (forward) and a walk can go
/// on from it to the `depth`-th node (backward).
pub fn on_capped_walk(
    n: usize,
    edges: &[(usize, usize)],
    start: usize,
    v: usize,
    depth: u32,
) -> bool {
    if start >= n || v >= n || depth == 0 {
        return false;
    }
    let depth = depth as usize;
    let mut waiting = vec![false; n];
    waiting[start] = true;
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            waiting[a] = true;
        }
    }
    let step = |from: &[bool], forward: bool| -> Vec<bool> {
        let mut to = vec![false; n];
        for &(a, b) in edges {
            if a >= n || b >= n || a == b {
                continue;
            }
            let (x, y) = if forward { (a, b) } else { (b, a) };
            if from[x] && waiting[y] {
                to[y] = true;
            }
        }
        to
    };
    // fwd[k]: the nodes that can be the (k+1)-th of a walk from start.
    let mut fwd = vec![vec![false; n]];
    fwd[0][start] = true;
    for k in 1..depth {
        let next = step(&fwd[k - 1], true);
        fwd.push(next);
    }
    // back[k]: the waiting nodes from which a walk reaches depth when they are the
    // (k+1)-th node.
    let mut back = vec![vec![false; n]; depth];
    back[depth - 1] = waiting.clone();
    for k in (0..depth - 1).rev() {
        back[k] = step(&back[k + 1], false);
    }
    (0..depth).any(|k| fwd[k][v] && back[k][v])
}

/// Is there a path of one or more edges from `a` to `b`?
pub fn reaches(n: usize, edges: &[(usize, usize)], a: usize, b: usize) -> bool {
    if a >= n || b >= n {
        return false;
    }
    let mut seen = vec![false; n];
    let mut stack = vec![a];
    while let Some(x) = stack.pop() {
        for &(p, q) in edges {
            if p == x && p != q && q < n && !seen[q] {
                if q == b {
                    return true;
                }
                seen[q] = true;
                stack.push(q);
            }
        }
    }
    false
}

/// A node on some cycle, if the graph has one (self-loops ignored).
pub fn any_cycle(n: usize, edges: &[(usize, usize)]) -> Option<usize> {
    (0..n).find(|&v| edges.iter().any(|&(a, _)| a == v) && reaches(n, edges, v, v))
}

/// The nodes on some cycle (for the report's wait-for graph).
pub fn on_cycles(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    (0..n).filter(|&v| has_cycle_through(n, edges, v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_walks() {
        // A chain 0 -> 1 -> 2 (2 waits for nothing, so it is not entered... unless it
        // waits: give it an edge to 3).
        let chain = [(0, 1), (1, 2), (2, 3)];
        assert!(on_capped_walk(4, &chain, 0, 0, 3));
        assert!(on_capped_walk(4, &chain, 0, 2, 3));
        assert!(!on_capped_walk(4, &chain, 0, 3, 4), "3 does not wait");
        assert!(!on_capped_walk(4, &chain, 0, 2, 4), "no 4th waiting node");
        // A cycle not through the start: the walk goes round it.
        let lasso = [(0, 1), (1, 2), (2, 1)];
        assert!(on_capped_walk(3, &lasso, 0, 2, 32));
        assert!(
            !on_capped_walk(3, &lasso, 1, 0, 32),
            "0 is not reachable from 1"
        );
    }

    #[test]
    fn cycles() {
        assert!(has_cycle_through(2, &[(0, 1), (1, 0)], 0));
        assert!(!has_cycle_through(3, &[(0, 1), (1, 2)], 0));
        assert!(has_cycle_through(3, &[(0, 1), (1, 2), (2, 0)], 1));
        assert!(!has_cycle_through(3, &[(0, 1), (1, 2), (2, 1)], 0));
        assert!(!has_cycle_through(1, &[(0, 0)], 0));
        assert_eq!(on_cycles(3, &[(0, 1), (1, 2), (2, 1)]), vec![1, 2]);
        assert_eq!(any_cycle(3, &[(0, 1), (1, 2), (2, 1)]), Some(1));
        assert_eq!(any_cycle(3, &[(0, 1), (1, 2)]), None);
        assert!(reaches(3, &[(0, 1), (1, 2)], 0, 2));
        assert!(!reaches(3, &[(0, 1), (1, 2)], 2, 0));
    }
}
