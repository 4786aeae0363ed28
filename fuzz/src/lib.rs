//! Shared inputs of the fuzz targets: programs (the same as the proptest's, built from
//! `arbitrary`: the oracle's own `Op` derives it, with mdl-scenario's `arbitrary`
//! feature) and wait-for graphs; the `cli` target's body ([`cli`]).

pub mod cli;

use arbitrary::{Arbitrary, Result, Unstructured};
use mdl_core::deadlock::WaitGraph;
use mdl_scenario::oracle::brute::Graph;
use mdl_scenario::oracle::{Op, Program};

/// A program; see [`mdl_scenario::oracle::Program`] for how the numbers are read.
#[derive(Clone, Debug)]
pub struct FProgram(pub Program);

impl<'a> Arbitrary<'a> for FProgram {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mariadb = bool::arbitrary(u)?;
        let max_write_lock_count = u8::arbitrary(u)?;
        let sessions = u8::arbitrary(u)?;
        let keys = u8::arbitrary(u)?;
        let key_offset = u8::arbitrary(u)?;
        let mut ops = Vec::new();
        while ops.len() < 64 && !u.is_empty() {
            let mut op = Op::arbitrary(u)?;
            if let Op::AcquireAll { items, .. } = &mut op {
                items.truncate(4);
            }
            ops.push(op);
        }
        // The servers' depth cap, from a byte left after 64 operations (so that the
        // committed corpus decodes to the same programs as before it was added).
        let max_search_depth = if u.is_empty() {
            0
        } else {
            u8::arbitrary(u)? % 4
        };
        Ok(FProgram(Program {
            mariadb,
            max_write_lock_count,
            sessions,
            keys,
            key_offset,
            max_search_depth,
            ops,
        }))
    }
}


/// A wait-for graph of 2-7 nodes: MDL edges, then foreign edges (another subsystem's
/// waits, as `LockTable`'s graph appends them), and weights.
#[derive(Clone, Debug)]
pub struct FGraph {
    pub g: Graph,
    pub start: usize,
}

impl<'a> Arbitrary<'a> for FGraph {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        const WEIGHTS: [u32; 6] = [0, 1, 25, 50, 100, 101];
        let n = 2 + usize::from(u8::arbitrary(u)? % 6);
        let mut g = Graph {
            succ: vec![Vec::new(); n],
            weight: Vec::new(),
        };
        for _ in 0..n {
            g.weight
                .push(WEIGHTS[usize::from(u8::arbitrary(u)?) % WEIGHTS.len()]);
        }
        let mdl: Vec<(u8, u8)> = Vec::arbitrary(u)?;
        let foreign: Vec<(u8, u8)> = Vec::arbitrary(u)?;
        for (a, b) in mdl.into_iter().chain(foreign).take(24) {
            let (a, b) = (usize::from(a) % n, usize::from(b) % n);
            // A waiter never waits for itself (the lock filters its own tickets).
            if a != b && g.succ[a].len() < 5 {
                g.succ[a].push(b);
            }
        }
        let start = usize::from(u8::arbitrary(u)?) % n;
        Ok(FGraph { g, start })
    }
}

/// The graph as `mdl_core::deadlock` sees it.
pub struct Core<'a>(pub &'a Graph);

impl WaitGraph for Core<'_> {
    type Node = usize;
    fn successors(&self, n: usize, out: &mut Vec<usize>) {
        out.extend(&self.0.succ[n]);
    }
    fn weight(&self, n: usize) -> u32 {
        self.0.weight[n]
    }
}
