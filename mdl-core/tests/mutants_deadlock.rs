//! Tests written to kill mutants that cargo-mutants found surviving in `deadlock.rs`
//! (see `ci/mutants/REPORT.md`): the exact cycle, the victim rule and the linear cost.

use mdl_core::deadlock::{choose_victim, detect, find_cycle, WaitGraph};
use std::collections::HashMap;

/// Nodes are numbered from 1, so that a mutant returning `Default::default()` (0) is
/// never right by accident.
struct G {
    edges: HashMap<u32, Vec<u32>>,
    weights: HashMap<u32, u32>,
}

impl G {
    fn new(edges: &[(u32, &[u32])], weights: &[(u32, u32)]) -> G {
        G {
            edges: edges.iter().map(|(n, s)| (*n, s.to_vec())).collect(),
            weights: weights.iter().copied().collect(),
        }
    }
}

impl WaitGraph for G {
    type Node = u32;
    fn successors(&self, n: u32, out: &mut Vec<u32>) {
        out.extend(self.edges.get(&n).into_iter().flatten().copied());
    }
    fn weight(&self, n: u32) -> u32 {
        self.weights.get(&n).copied().unwrap_or(10)
    }
}

#[test]
fn the_cycle_is_the_path_from_the_start() {
    // 1 -> 2 -> 3 -> 1, with a dead end 2 -> 4 explored first.
    let g = G::new(&[(1, &[2]), (2, &[4, 3]), (3, &[1])], &[]);
    let (c, e) = find_cycle(&g, 1);
    assert_eq!(c, Some(vec![1, 2, 3]));
    // 1->2, 2->4, 2->3, 3->1.
    assert_eq!(e, 4);
    let d = detect(&g, 1).expect("a cycle");
    assert_eq!(d.cycle, vec![1, 2, 3]);
    assert_eq!(d.victim, 1, "a tie goes to the requester");
    assert_eq!(d.edges_visited, 4);
    // From 4 (which waits for nothing) there is no cycle, and one node costs no edge.
    assert_eq!(find_cycle(&g, 4), (None, 0));
    assert!(detect(&g, 4).is_none());
}

#[test]
fn a_node_explored_once_is_not_explored_again() {
    // A diamond 1 -> {2, 3} -> 4 -> 5, no cycle: every edge is looked at exactly once
    // (2->4 explores 4 and 5; 3->4 finds 4 done).
    let g = G::new(&[(1, &[2, 3]), (2, &[4]), (3, &[4]), (4, &[5])], &[]);
    assert_eq!(find_cycle(&g, 1), (None, 5));
    // A cycle that does not pass through the start is no deadlock of this search.
    let g = G::new(&[(1, &[2]), (2, &[3]), (3, &[2, 4])], &[]);
    assert_eq!(find_cycle(&g, 1), (None, 4));
}

#[test]
fn the_victim_is_the_lowest_weight_nearest_the_start() {
    let cycle = [1, 2, 3, 4];
    // Lowest weight wins wherever it is.
    let g = G::new(&[], &[(1, 10), (2, 7), (3, 5), (4, 9)]);
    assert_eq!(choose_victim(&g, &cycle), 3);
    // On a tie between two lighter nodes, the one nearer the start.
    let g = G::new(&[], &[(1, 10), (2, 5), (3, 5), (4, 9)]);
    assert_eq!(choose_victim(&g, &cycle), 2);
    // On a tie with the start, the start.
    let g = G::new(&[], &[(1, 5), (2, 5), (3, 5), (4, 5)]);
    assert_eq!(choose_victim(&g, &cycle), 1);
    // A heavier start loses to a lighter later node.
    let g = G::new(&[], &[(1, 9), (2, 10), (3, 10), (4, 8)]);
    assert_eq!(choose_victim(&g, &cycle), 4);
}

#[test]
fn detect_picks_the_victim_on_the_found_cycle() {
    let g = G::new(
        &[(1, &[2]), (2, &[3]), (3, &[1])],
        &[(1, 100), (2, 25), (3, 50)],
    );
    let d = detect(&g, 1).expect("a cycle");
    assert_eq!(d.cycle, vec![1, 2, 3]);
    assert_eq!(d.victim, 2);
    assert_eq!(d.edges_visited, 3);
    // From the middle of the same ring: the path starts there.
    let d = detect(&g, 3).expect("a cycle");
    assert_eq!(d.cycle, vec![3, 1, 2]);
    assert_eq!(d.victim, 2);
}
