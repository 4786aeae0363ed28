//! A design's states compared up to the renaming of ticket ids: equality and hashing of
//! [`DesignState`] through [`canon_table`], a bisimulation (see the module doc of
//! [`super`]).

use super::*;

impl DesignState {
    fn rest(&self) -> impl Hash + PartialEq + '_ {
        (
            (
                &self.pc,
                &self.round,
                &self.aborts,
                &self.foreign_wait,
                &self.done,
                &self.res,
            ),
            (&self.objs, self.purge_obj, self.purge_name, self.bad),
            (
                self.false_deadlock,
                self.stale_meta,
                self.deadlocks,
                self.starve,
            ),
            (self.watched_granted, self.passed_then_granted, &self.used),
        )
    }
}

impl PartialEq for DesignState {
    fn eq(&self, o: &DesignState) -> bool {
        self.rest() == o.rest() && canon_table(&self.table) == canon_table(&o.table)
    }
}
impl Eq for DesignState {}

impl Hash for DesignState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.rest().hash(h);
        canon_table(&self.table).hash(h);
    }
}

/// The lock table as text, with ticket ids and acquisition sequence numbers replaced by
/// their ranks. Ids and sequence numbers only ever grow and the core only compares them,
/// so two tables equal up to this renaming make the same decisions for ever after: this
/// is a bisimulation, and the states of a program that loops repeat. (Savepoints, the
/// table's private counters and its drained event list are left out: the zoo uses no
/// savepoints, the counters only give the next, greater, number, and events are drained
/// after every step.)
pub fn canon_table(t: &LockTable) -> String {
    let mut ids: Vec<u64> = Vec::new();
    for (_, l) in t.locks() {
        ids.extend(l.granted().iter().chain(l.waiting()).map(|x| x.id.0));
    }
    for x in t.sessions() {
        ids.extend(x.book.held().iter().map(|h| h.id.0));
        if let Some(w) = &x.wait {
            ids.push(w.ticket.id.0);
            match &w.kind {
                WaitKind::Upgrade { old } => ids.push(old.0),
                WaitKind::Bulk { taken, .. } => ids.extend(taken.iter().map(|t| t.0)),
                WaitKind::Acquire { .. } => {}
            }
        }
        if let Some(r) = &x.resume {
            ids.extend(r.taken.iter().map(|t| t.0));
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let r = |id: TicketId| ids.binary_search(&id.0).map(|i| i as i64).unwrap_or(-1);
    // The hog and piglet counters are only ever compared with `max_write_lock_count`
    // (`switch_matrix`, MariaDB's `skip_high`): values at or above it act alike, and
    // below an unreachable limit (a u32 counter never reaches more than u32::MAX) every
    // value acts alike.
    let limit = t.config().max_write_lock_count;
    let counter = |c: u32| -> u64 {
        if limit > u64::from(u32::MAX) {
            0
        } else {
            u64::from(c).min(limit)
        }
    };
    let mut out = String::new();
    for (k, l) in t.locks() {
        let _ = write!(out, "{k:?}:");
        for x in l.granted() {
            let _ = write!(out, "g{},{},{};", r(x.id), x.owner.0, x.ty.0);
        }
        for x in l.waiting() {
            let _ = write!(out, "w{},{},{};", r(x.id), x.owner.0, x.ty.0);
        }
        let _ = write!(
            out,
            "h{}p{}i{}|",
            counter(l.hog_count()),
            counter(l.piglet_count()),
            l.pending_index()
        );
    }
    for x in t.sessions() {
        let mut seqs: Vec<u32> = x.book.held().iter().map(|h| h.seq).collect();
        seqs.sort_unstable();
        let sr = |q: u32| seqs.binary_search(&q).map(|i| i as i64).unwrap_or(-1);
        out.push('S');
        for h in x.book.held() {
            let _ = write!(
                out,
                "{},{:?},{},{:?},{};",
                r(h.id),
                h.key,
                h.ty.0,
                h.dur,
                sr(h.seq)
            );
        }
        if let Some(w) = &x.wait {
            let kind = match &w.kind {
                WaitKind::Acquire { dur } => format!("a{dur:?}"),
                WaitKind::Upgrade { old } => format!("u{}", r(*old)),
                WaitKind::Bulk {
                    dur,
                    rest,
                    taken,
                    wait,
                } => format!(
                    "b{dur:?}{rest:?}{:?}{wait:?}",
                    taken.iter().map(|t| r(*t)).collect::<Vec<_>>()
                ),
            };
            let _ = write!(
                out,
                "W{:?},{},{},{kind},{}",
                w.key,
                r(w.ticket.id),
                w.ticket.ty.0,
                w.timed
            );
        }
        if let Some(b) = &x.resume {
            let _ = write!(
                out,
                "R{:?}{:?}{:?}{:?}",
                b.dur,
                b.rest,
                b.taken.iter().map(|t| r(*t)).collect::<Vec<_>>(),
                b.wait
            );
        }
        let _ = write!(
            out,
            "f{}v{}g{}{:?}|",
            x.force_dml, x.victim_count, x.gone, x.foreign
        );
    }
    out
}
