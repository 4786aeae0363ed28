//! Brute-force cycle search: enumerate every simple path from the start, successors in
//! the order given, and take the first that returns to the start. Exponential, and
//! obviously right; only for the small graphs of the oracle and the fuzzers.

/// A wait-for graph as plain lists: `succ[n]` are the nodes `n` waits for, in the order
/// the detector looks at them; `weight[n]` is the deadlock weight of `n`'s wait.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub succ: Vec<Vec<usize>>,
    pub weight: Vec<u32>,
}

/// The first simple cycle through `start` in depth-first order (`cycle[0] == start`).
pub fn first_cycle(g: &Graph, start: usize) -> Option<Vec<usize>> {
    fn go(g: &Graph, start: usize, path: &mut Vec<usize>) -> bool {
        let n = *path.last().expect("non-empty");
        for &m in &g.succ[n] {
            if m == start {
                return true;
            }
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
    }
}
