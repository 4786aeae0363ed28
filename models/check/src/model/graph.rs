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

/// The nodes on some cycle (for the report's wait-for graph).
pub fn on_cycles(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    (0..n).filter(|&v| has_cycle_through(n, edges, v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles() {
        assert!(has_cycle_through(2, &[(0, 1), (1, 0)], 0));
        assert!(!has_cycle_through(3, &[(0, 1), (1, 2)], 0));
        assert!(has_cycle_through(3, &[(0, 1), (1, 2), (2, 0)], 1));
        assert!(!has_cycle_through(3, &[(0, 1), (1, 2), (2, 1)], 0));
        assert!(!has_cycle_through(1, &[(0, 0)], 0));
        assert_eq!(on_cycles(3, &[(0, 1), (1, 2), (2, 1)]), vec![1, 2]);
    }
}
