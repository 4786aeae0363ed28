//! Keys quiet *from a state on*: the dynamic counterpart of the scenario-wide quiet keys
//! of the encoding (`encode.rs`).
//!
//! A key is quiet in state `s` when nobody waits on it in `s` and no two of the lock
//! types that can ever be on it from `s` on conflict (granted matrix, either way) or
//! yield to each other (any pending matrix). The types that can ever be on it: the types
//! granted or waiting on it in `s`, the types the sessions' remaining steps request on it
//! (from each session's program counter on: acquire, bulk acquire, upgrade, downgrade,
//! clone of a named type), and the rest of a bulk acquire in progress (waiting or to be
//! resumed). A clone without a type copies a type already granted.
//!
//! **It stays quiet.** Every later state's types on the key are a subset of these: a
//! program counter only advances, so the remaining requests only shrink, and every type
//! that appears on the key later comes from one of them. So from `s` on every request on
//! the key is granted at once and nobody ever waits on it; the only reader of the order
//! of a lock's granted list is the deadlock detector's walk from a waiter's lock
//! (`LockState::blockers`), and `eventually`'s lock configuration of the lock a session
//! waits for: neither ever reads this key's list again. Two states that differ only in
//! the order of the granted lists of such keys therefore behave alike (the same actions
//! with the same outcomes and events, the same property predicates): the encoding
//! writes those lists sorted, one state; and any two actions whose only shared lock
//! objects are such keys commute (the partial-order reduction, `por.rs`, leaves them out of footprints).
//!
//! **Sessions that will never wait again.** A session that does not wait, has no bulk
//! acquire to go on, and whose remaining steps request only keys quiet from `s` on never
//! waits again (the same argument: those keys stay quiet). The deadlock detector
//! (`mdl_core::deadlock::find_cycle`, `find_capped`; sql/mdl.cc `MDL_lock::visit_subgraph`)
//! walks a waiter's blockers in granted-list order but enters only sessions that wait: a
//! blocker that does not wait has no successors (`find_cycle`) or is skipped
//! (`find_capped`), and it is never on a cycle. So where such a session's tickets lie in
//! a granted list, relative to the others, is never read again: only the order of the
//! tickets of sessions that may still wait is. The encoding writes those first, in
//! list order, and the others after them, sorted; every list operation (a grant appends, a
//! release removes, a change of type moves the ticket to the back) keeps the relative
//! order of the first group, so two states that differ only in where the settled tickets
//! lie behave alike.
//!
//! Only for scenarios that name at most [`MAX_KEYS`] keys.

use super::keys::{command_keys, contains, KeyIndex, KeySet, MAX_KEYS};
use super::{MdlModel, State};
use mdl_scenario::Command;

/// The static tables of the test, built once per model.
#[derive(Clone, Debug)]
pub struct Quiet {
    /// Per key, per type `t`: the types that conflict with `t` or that `t` yields to, or
    /// that do so to `t`.
    bad: Vec<[u64; 64]>,
    /// Per session, per step index `i` (and one past the end): (key, types) requested by
    /// steps `i..`, one entry per key.
    future: Vec<Vec<Vec<(u16, u64)>>>,
}

/// The (key, type) pairs a command requests or may end up holding (as in
/// the encoding's scenario-wide test).
fn requested(codec: &impl KeyIndex, cmd: &Command, out: &mut Vec<(u16, u64)>) {
    let mut add =
        |k: usize, ty: mdl_core::LockType| match out.iter_mut().find(|e| e.0 as usize == k) {
            Some(e) => e.1 |= ty.bit(),
            None => out.push((k as u16, ty.bit())),
        };
    match cmd {
        Command::Acquire { key, ty, .. }
        | Command::Upgrade { key, ty, .. }
        | Command::Downgrade { key, ty } => add(codec.key_index(key), *ty),
        Command::Clone {
            key, ty: Some(ty), ..
        } => add(codec.key_index(key), *ty),
        Command::AcquireAll { reqs, .. } => {
            for (k, t) in reqs {
                add(codec.key_index(k), *t);
            }
        }
        _ => debug_assert!(
            matches!(cmd, Command::Clone { .. } | Command::Release { .. })
                || command_keys(cmd).is_empty()
        ),
    }
}

impl Quiet {
    /// `None` when the scenario names more than [`MAX_KEYS`] keys.
    pub fn new(m: &MdlModel, codec: &impl KeyIndex) -> Option<Quiet> {
        if codec.keys().len() > MAX_KEYS {
            return None;
        }
        let bad = codec
            .keys()
            .iter()
            .map(|k| {
                let s = m.dialect.strategy(k.namespace());
                let mut b = [0u64; 64];
                for (a, row) in b.iter_mut().enumerate() {
                    *row = s.granted[a].0;
                    for p in &s.pending {
                        *row |= p[a].0;
                    }
                }
                // Either way round.
                let mut sym = b;
                for (a, row) in b.iter().enumerate() {
                    for (t, srow) in sym.iter_mut().enumerate() {
                        if row & (1u64 << t) != 0 {
                            *srow |= 1u64 << a;
                        }
                    }
                }
                sym
            })
            .collect();
        let future = m
            .programs
            .iter()
            .map(|p| {
                let mut fut: Vec<Vec<(u16, u64)>> = vec![Vec::new(); p.len() + 1];
                for i in (0..p.len()).rev() {
                    let mut here = fut[i + 1].clone();
                    requested(codec, &p[i].cmd, &mut here);
                    fut[i] = here;
                }
                fut
            })
            .collect();
        Some(Quiet { bad, future })
    }

    /// The keys quiet from `st` on (the scenario-wide quiet keys among them), and the
    /// sessions (a bit per session; all for more than 64) that may still wait: those
    /// that wait or have a bulk acquire to go on, or whose remaining steps request a
    /// key that is not quiet from `st` on.
    pub fn scan(&self, codec: &impl KeyIndex, st: &State) -> (KeySet, u64) {
        let q = self.keys(codec, st);
        let n = st.pc.len();
        if n > 64 {
            return (q, u64::MAX);
        }
        let mut w = 0u64;
        for (s, x) in st.table.sessions().iter().enumerate().take(n) {
            let pc = (st.pc[s] as usize).min(self.future[s].len() - 1);
            if x.wait.is_some()
                || x.resume.is_some()
                || self.future[s][pc]
                    .iter()
                    .any(|&(k, _)| !contains(&q, k as usize))
            {
                w |= 1 << s;
            }
        }
        (q, w)
    }

    /// The keys quiet from `st` on (the scenario-wide quiet keys among them).
    pub fn keys(&self, codec: &impl KeyIndex, st: &State) -> KeySet {
        let mut types = [0u64; MAX_KEYS];
        let mut busy = KeySet::default();
        // Seeded bug `mdl_bug="quiet_ignores_future"`: the sessions' remaining steps are
        // left out, so a key nobody holds yet looks quiet although two sessions will ask
        // for it in conflicting types (the partial-order reduction then takes their
        // requests for independent).
        let future = !cfg!(mdl_bug = "quiet_ignores_future");
        for (s, x) in st.table.sessions().iter().enumerate() {
            let pc = (st.pc[s] as usize).min(self.future[s].len() - 1);
            for &(k, t) in self.future[s][pc].iter().filter(|_| future) {
                types[k as usize] |= t;
            }
            let rest = match (&x.wait, &x.resume) {
                (Some(w), _) => match &w.kind {
                    mdl_core::table::WaitKind::Bulk { rest, .. } => &rest[..],
                    _ => &[],
                },
                (None, Some(r)) => &r.rest[..],
                (None, None) => &[],
            };
            for b in rest {
                types[codec.key_index(&b.key)] |= b.ty.bit();
            }
        }
        for (k, l) in st.table.locks() {
            let i = codec.key_index(k);
            if !l.waiting().is_empty() {
                busy[i / 64] |= 1 << (i % 64);
            }
            types[i] |= l.granted_types().0;
        }
        let mut q = KeySet::default();
        for (i, bad) in self.bad.iter().enumerate() {
            if busy[i / 64] & (1 << (i % 64)) != 0 {
                continue;
            }
            let m = types[i];
            let mut rest = m;
            let mut ok = true;
            while rest != 0 {
                let t = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if bad[t] & m != 0 {
                    ok = false;
                    break;
                }
            }
            if ok || codec.is_quiet(i) {
                q[i / 64] |= 1 << (i % 64);
            }
        }
        q
    }
}
