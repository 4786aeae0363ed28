//! Wait-for graphs for the deadlock-search benchmarks: a synthetic adjacency list, and a
//! [`LockTable`] in which sessions each hold X on one table and wait for the next.
//!
//! Shared by `mdl bench` and the criterion benches (`models/bench/benches/deadlock.rs`,
//! through `#[path]`). Needs only `mdl_core`'s public API.

use mdl_core::deadlock::WaitGraph;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Dialect, Duration, LockType, MdlKey, Outcome, OwnerId, WaitOption};

/// The shape of the benchmark graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `n` waiters, each waiting for the next; the last waits for a holder that does not
    /// wait (the search visits `n` edges and finds nothing).
    Chain,
    /// `n` waiters in a ring (the search visits `n` edges and finds the cycle).
    Cycle,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Cycle => "cycle",
        }
    }
}

/// An adjacency list over `u32` nodes, all of weight 10.
pub struct Synthetic {
    succ: Vec<Vec<u32>>,
}

impl Synthetic {
    /// Node `i` waits for `i + 1`; in a chain node `n` waits for nobody, in a cycle node
    /// `n - 1` waits for 0.
    pub fn new(shape: Shape, n: usize) -> Synthetic {
        let n = n.max(1);
        let succ = match shape {
            Shape::Chain => (0..=n)
                .map(|i| if i < n { vec![i as u32 + 1] } else { vec![] })
                .collect(),
            Shape::Cycle => (0..n).map(|i| vec![((i + 1) % n) as u32]).collect(),
        };
        Synthetic { succ }
    }
}

impl WaitGraph for Synthetic {
    type Node = u32;
    fn successors(&self, n: u32, out: &mut Vec<u32>) {
        if let Some(s) = self.succ.get(n as usize) {
            out.extend_from_slice(s);
        }
    }
    fn weight(&self, _n: u32) -> u32 {
        10
    }
}

/// The wait-for graph of a [`LockTable`], read through its public API (each session's
/// wait and the lock's `blockers`, exactly what the table's own detector follows), plus
/// optionally one extra edge: the closing edge of a cycle that the table itself would
/// have broken at once.
pub struct TableGraph<'a> {
    pub t: &'a LockTable,
    pub d: &'a Dialect,
    pub extra: Option<(OwnerId, OwnerId)>,
}

impl WaitGraph for TableGraph<'_> {
    type Node = OwnerId;
    fn successors(&self, n: OwnerId, out: &mut Vec<OwnerId>) {
        if let Some(w) = self.t.session(n).and_then(|x| x.wait.as_ref()) {
            if let Some(l) = self.t.lock(&w.key) {
                let r = self.t.rules(&w.key);
                out.extend(l.blockers(&r, &w.ticket));
            }
        }
        if let Some((a, b)) = self.extra {
            if a == n {
                out.push(b);
            }
        }
    }
    fn weight(&self, n: OwnerId) -> u32 {
        self.t.wait_weight(n)
    }
}

/// A lock table for the search benchmarks, with the keys and the request that closes it.
pub struct TableSetup {
    pub d: Dialect,
    pub t: LockTable,
    pub keys: Vec<MdlKey>,
    /// Chain: session 0 is not waiting yet; acquiring `keys[1]` for it starts the search
    /// over the `n` edges. Cycle: the last session is not waiting; acquiring `keys[0]`
    /// for it closes the ring (it is the victim, which restores the state).
    pub step: (OwnerId, MdlKey),
    /// Where a pure search starts and the extra edge it needs (`TableGraph::extra`).
    pub start: OwnerId,
    pub extra: Option<(OwnerId, OwnerId)>,
    /// The state for the pure search: in a chain every waiter waits (the step done).
    pub searched: LockTable,
}

fn table_key(d: &Dialect, i: usize) -> MdlKey {
    let ns = d.namespace_by_name("TABLE").expect("TABLE namespace");
    MdlKey::new(ns, "bench", &format!("t{i}"))
}

fn must(o: Result<Outcome, mdl_core::MdlError>, want: Outcome, what: &str) -> Result<(), String> {
    match o {
        Ok(x) if x == want => Ok(()),
        other => Err(format!("{what}: expected {want:?}, got {other:?}")),
    }
}

/// Builds the table for `n` waiters (`n >= 2`).
pub fn table_setup(shape: Shape, n: usize) -> Result<TableSetup, String> {
    let n = n.max(2);
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    // Chain: sessions 0..=n, session i holds t_i; sessions 1..n wait for t_{i+1}.
    // Cycle: sessions 0..n, session i holds t_i; sessions 0..n-1 wait for t_{i+1}.
    let sessions = match shape {
        Shape::Chain => n + 1,
        Shape::Cycle => n,
    };
    let keys: Vec<MdlKey> = (0..sessions).map(|i| table_key(&d, i)).collect();
    let x = LockType::X;
    let tr = Duration::Transaction;
    for (i, k) in keys.iter().enumerate() {
        let s = t.add_session();
        must(
            t.acquire(s, k, x, tr, WaitOption::NoWait),
            Outcome::Granted,
            &format!("hold t{i}"),
        )?;
    }
    let (waiters, step, start, extra) = match shape {
        Shape::Chain => (1..n, (OwnerId(0), keys[1].clone()), OwnerId(0), None),
        Shape::Cycle => (
            0..n - 1,
            (OwnerId(n as u32 - 1), keys[0].clone()),
            OwnerId(0),
            Some((OwnerId(n as u32 - 1), OwnerId(0))),
        ),
    };
    // From the front, so that every detection so far sees one edge.
    for i in waiters {
        must(
            t.acquire(OwnerId(i as u32), &keys[i + 1], x, tr, WaitOption::Forever),
            Outcome::Waiting,
            &format!("session {i} waits"),
        )?;
    }
    let mut searched = t.clone();
    if shape == Shape::Chain {
        must(
            searched.acquire(step.0, &step.1, x, tr, WaitOption::Forever),
            Outcome::Waiting,
            "session 0 waits",
        )?;
    }
    Ok(TableSetup {
        d,
        t,
        keys,
        step,
        start,
        extra,
        searched,
    })
}

impl TableSetup {
    /// The pure search: `detect` from the start over the table's graph. Returns the
    /// edges visited (and whether it found a cycle).
    pub fn search(&self) -> (bool, usize) {
        let g = TableGraph {
            t: &self.searched,
            d: &self.d,
            extra: self.extra,
        };
        let (c, e) = mdl_core::deadlock::find_cycle(&g, self.start);
        (c.is_some(), e)
    }

    /// The table step that runs the detector, and its undo (chain: a kill of the new
    /// wait; cycle: nothing, the requester is the victim). Returns the step's outcome.
    pub fn step(&mut self) -> Result<Outcome, String> {
        let (s, k) = &self.step;
        let o = self
            .t
            .acquire(
                *s,
                k,
                LockType::X,
                Duration::Transaction,
                WaitOption::Forever,
            )
            .map_err(|e| e.to_string())?;
        if o == Outcome::Waiting {
            self.t.kill(*s);
            self.t.take_events();
        }
        Ok(o)
    }
}
