//! Shared inputs of the fuzz targets: programs (the same as the proptest's, built from
//! `arbitrary`) and wait-for graphs; the `cli` target's body ([`cli`]).

pub mod cli;

use arbitrary::{Arbitrary, Result, Unstructured};
use mdl_core::deadlock::WaitGraph;
use mdl_scenario::oracle::brute::Graph;
use mdl_scenario::oracle::{Op, Program};

/// One step; mirrors [`mdl_scenario::oracle::Op`].
#[derive(Arbitrary, Clone, Debug)]
pub enum FOp {
    Acquire {
        s: u8,
        k: u8,
        t: u8,
        d: u8,
        w: u8,
    },
    AcquireAll {
        s: u8,
        items: Vec<(u8, u8)>,
        d: u8,
        w: u8,
    },
    Upgrade {
        s: u8,
        k: u8,
        t: u8,
        w: u8,
    },
    Downgrade {
        s: u8,
        k: u8,
        t: u8,
    },
    Clone {
        s: u8,
        k: u8,
        t: Option<u8>,
        d: u8,
    },
    Release {
        s: u8,
        k: u8,
        t: Option<u8>,
    },
    EndStatement {
        s: u8,
    },
    Commit {
        s: u8,
    },
    ReleaseExplicit {
        s: u8,
    },
    Savepoint {
        s: u8,
        n: u8,
    },
    RollbackTo {
        s: u8,
        n: u8,
    },
    SetDuration {
        s: u8,
        d: u8,
    },
    ForceDml {
        s: u8,
        on: bool,
    },
    Disconnect {
        s: u8,
    },
    Kill {
        s: u8,
    },
    Timeout {
        s: u8,
    },
}

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
            ops.push(op(FOp::arbitrary(u)?));
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

fn op(f: FOp) -> Op {
    match f {
        FOp::Acquire { s, k, t, d, w } => Op::Acquire { s, k, t, d, w },
        FOp::AcquireAll { s, mut items, d, w } => {
            items.truncate(4);
            Op::AcquireAll { s, items, d, w }
        }
        FOp::Upgrade { s, k, t, w } => Op::Upgrade { s, k, t, w },
        FOp::Downgrade { s, k, t } => Op::Downgrade { s, k, t },
        FOp::Clone { s, k, t, d } => Op::Clone { s, k, t, d },
        FOp::Release { s, k, t } => Op::Release { s, k, t },
        FOp::EndStatement { s } => Op::EndStatement { s },
        FOp::Commit { s } => Op::Commit { s },
        FOp::ReleaseExplicit { s } => Op::ReleaseExplicit { s },
        FOp::Savepoint { s, n } => Op::Savepoint { s, n },
        FOp::RollbackTo { s, n } => Op::RollbackTo { s, n },
        FOp::SetDuration { s, d } => Op::SetDuration { s, d },
        FOp::ForceDml { s, on } => Op::ForceDml { s, on },
        FOp::Disconnect { s } => Op::Disconnect { s },
        FOp::Kill { s } => Op::Kill { s },
        FOp::Timeout { s } => Op::Timeout { s },
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
