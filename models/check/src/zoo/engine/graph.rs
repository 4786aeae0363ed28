//! The ground-truth wait-for graph of a design's state (MDL waits and every foreign wait,
//! registered with the detector or not), the blockers a step would wait for, and the
//! properties computed from them ([`Design::holds`]).

use super::*;

impl Design {
    /// The sessions that MDL requests `reqs` of `s` would wait for now.
    pub(super) fn mdl_blockers(
        &self,
        st: &DesignState,
        s: usize,
        reqs: &[(MdlKey, LockType)],
    ) -> Vec<OwnerId> {
        let mut out = Vec::new();
        for (k, ty) in reqs {
            if st.table.owns_equal_or_stronger(owner(s), k, *ty) {
                continue;
            }
            if let Some(l) = st.table.lock(k) {
                let r = st.table.rules(k);
                let tk = Ticket {
                    id: TicketId(u64::MAX),
                    owner: owner(s),
                    ty: *ty,
                };
                out.extend(l.blockers(&r, &tk));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The foreign blockers of a session blocked at its step.
    pub(super) fn foreign_blockers(&self, st: &DesignState, s: usize) -> Vec<OwnerId> {
        let mut c = st.clone();
        match self.try_foreign(&mut c, s) {
            Some(Try::Blocked(b)) => b,
            _ => Vec::new(),
        }
    }

    /// The ground-truth wait-for graph: MDL waits (from the lock table) and every foreign
    /// wait, whether or not it was registered with the detector.
    pub fn edges(&self, st: &DesignState) -> BTreeSet<(usize, usize)> {
        let mut e = BTreeSet::new();
        for (a, b) in st.table.wait_edges() {
            let a = a.0 as usize;
            if st.table.session(owner(a)).is_some_and(|x| x.wait.is_some()) {
                e.insert((a, b.0 as usize));
            }
        }
        for s in 0..self.progs.len() {
            if st.foreign_wait[s] {
                for b in self.foreign_blockers(st, s) {
                    e.insert((s, b.0 as usize));
                }
            }
        }
        e
    }

    /// The sessions that `s`'s next MDL request would wait for (hypothetically).
    pub(super) fn hyp_blockers(&self, st: &DesignState, s: usize) -> Vec<OwnerId> {
        let reqs: Vec<(MdlKey, LockType)> = match self.op(st, s) {
            Some((Op::Acq(k, ty, _), _)) | Some((Op::Upg(k, ty), _)) => vec![(k.clone(), *ty)],
            Some((Op::ShowOpen(k), _)) => vec![(k.clone(), LockType::SH)],
            Some((Op::Bulk(v, _), _)) | Some((Op::BulkRetry(v, _), _)) => v.clone(),
            Some((Op::PurgeLock, _)) => self
                .purge_key(st)
                .map(|k| vec![(k, LockType::SR)])
                .unwrap_or_default(),
            _ => return self.foreign_blockers(st, s),
        };
        self.mdl_blockers(st, s, &reqs)
    }

    pub(super) fn suspect(&self, st: &DesignState, s: usize, k: &MdlKey) -> bool {
        let holds = st
            .table
            .session(owner(s))
            .is_some_and(|x| !x.book.held().is_empty());
        holds
            && st.table.lock(k).is_some_and(|l| {
                l.waiting().iter().any(|w| {
                    w.owner != owner(s)
                        && self.d.weight(k.namespace(), w.ty, WeightRule::ByTicket, 0)
                            >= self.d.weights.ddl
                })
            })
    }

    /// The watched session waits for its lock.
    pub fn watched_waiting(&self, st: &DesignState) -> bool {
        self.watch.as_ref().is_some_and(|(ws, key)| {
            st.table
                .session(owner(*ws as usize))
                .and_then(|x| x.wait.as_ref())
                .is_some_and(|w| w.key == *key)
        })
    }

    /// Evaluates one property on a state.
    pub fn holds(&self, c: Check, st: &DesignState) -> bool {
        match c {
            Check::NoStuckCycle => {
                let g = self.edges(st);
                !(0..self.progs.len()).any(|s| on_cycle(&g, s))
            }
            Check::NoFalseDeadlock => !st.false_deadlock,
            Check::BoundedWait => st.starve <= self.starve_bound,
            Check::NoFlushPileUp => !(0..self.progs.len()).any(|s| {
                if !st.foreign_wait[s] {
                    return false;
                }
                let Some((Op::Take(r, _, _), _)) = self.op(st, s) else {
                    return false;
                };
                let waits_old = st.res[*r as usize].old.iter().any(|x| *x as usize != s);
                let x_requested = self
                    .share_keys
                    .iter()
                    .filter(|(rr, _)| rr == r)
                    .any(|(_, k)| {
                        st.table.lock(k).is_some_and(|l| {
                            l.granted()
                                .iter()
                                .chain(l.waiting())
                                .any(|t| t.ty == LockType::X)
                        })
                    });
                waits_old && !x_requested
            }),
            Check::RefCount => st.bad.is_none(),
            Check::NoStaleMeta => !st.stale_meta,
            Check::ExactKeys => {
                let g = self.edges(st);
                !self
                    .never_waits
                    .iter()
                    .any(|(a, b)| g.contains(&(*a as usize, *b as usize)))
            }
            Check::FairVictims => {
                let mx = st.aborts.iter().copied().max().unwrap_or(0);
                let mn = st.aborts.iter().copied().min().unwrap_or(0);
                mx - mn <= 1
            }
            Check::NoStuckState => {
                st.done.iter().all(|x| *x) || (0..self.progs.len()).any(|s| self.enabled(st, s))
            }
            Check::Isolation => !(0..self.progs.len()).any(|s| {
                !st.done[s]
                    && self.tracked.iter().enumerate().any(|(i, k)| {
                        st.used[s] & (1 << i) != 0
                            && st.table.lock(k).is_some_and(|l| {
                                l.granted()
                                    .iter()
                                    .any(|t| t.owner != owner(s) && t.ty == LockType::X)
                            })
                    })
            }),
            Check::NoVictim => st.aborts[self.protect as usize] == 0,
            Check::Bounded => st.starve <= self.starve_bound,
            // A property of runs, checked by `starving_lasso`.
            Check::Eventually => true,
            Check::AllDone => st.done.iter().all(|x| *x),
            Check::DeadlockReported => st.deadlocks > 0,
            Check::WatchedGranted => st.watched_granted,
            Check::GrantedAfterPassedOver => st.passed_then_granted,
            Check::TwoDeadlocks => st.deadlocks >= 2,
            Check::NoLostWakeup => st.table.grantable_waiters().is_empty(),
        }
    }
}

/// The ground-truth wait-for graph of a state with the deadlock weights of the waits, for
/// the one-pass detector ([`Design::one_pass`]).
pub(super) struct EdgeGraph {
    adj: BTreeMap<usize, Vec<usize>>,
    w: Vec<u32>,
}

impl EdgeGraph {
    pub(super) fn new(m: &Design, st: &DesignState) -> EdgeGraph {
        let mut adj: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (a, b) in m.edges(st) {
            adj.entry(a).or_default().push(b);
        }
        let w = (0..m.progs.len())
            .map(|s| {
                let vc = st.table.session(owner(s)).map_or(0, |x| x.victim_count);
                match m.op(st, s) {
                    Some((Op::Acq(k, ty, _), _)) | Some((Op::Upg(k, ty), _))
                        if st.foreign_wait[s] =>
                    {
                        m.d.weight(k.namespace(), *ty, WeightRule::ByTicket, vc)
                    }
                    _ => st.table.wait_weight(owner(s)),
                }
            })
            .collect();
        EdgeGraph { adj, w }
    }
}

impl WaitGraph for EdgeGraph {
    type Node = usize;
    fn successors(&self, n: usize, out: &mut Vec<usize>) {
        out.extend(self.adj.get(&n).into_iter().flatten().copied());
    }
    fn weight(&self, n: usize) -> u32 {
        self.w.get(n).copied().unwrap_or(0)
    }
}

/// Is `v` on a cycle of the graph?
pub fn on_cycle(g: &BTreeSet<(usize, usize)>, v: usize) -> bool {
    let mut adj: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (a, b) in g {
        adj.entry(*a).or_default().push(*b);
    }
    let mut seen = BTreeSet::new();
    let mut stack: Vec<usize> = adj.get(&v).cloned().unwrap_or_default();
    while let Some(x) = stack.pop() {
        if x == v {
            return true;
        }
        if seen.insert(x) {
            stack.extend(adj.get(&x).into_iter().flatten().copied());
        }
    }
    false
}
