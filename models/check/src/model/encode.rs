//! States as compact, canonical byte strings: what the search stores (its queue) and
//! fingerprints (its visited set).
//!
//! An encoding names keys and savepoints by their index in tables built once from the
//! scenario, sessions by position, and leaves out or renumbers every value that only
//! identity or order matters for:
//!
//! - **Ticket ids** are not written at all. A granted ticket is written as its owner and
//!   its place in the owner's book, a waiting one as its owner (a session waits for one
//!   ticket at a time), and an upgrade's old ticket or a bulk acquire's taken ones as
//!   places in the book; [`Codec::decode`] (`encode/decode.rs`) hands out fresh ids. `LockTable` compares
//!   ticket ids only for equality (`==` in `book.rs`, `lock.rs` and `table.rs`; the one
//!   ordered use, `LockState::grant_in_id_order`, is the concurrent manager's), and a new
//!   ticket gets an id above every id in use, so two states that differ only in their
//!   ticket ids behave alike: they are one state. (Without this, two interleavings that
//!   take the same locks in another order would stay distinct states forever.)
//! - **Acquisition numbers** (`Held::seq`, savepoint marks, the next number) are replaced
//!   by their rank within the session: only their order is ever compared.
//! - **The grant order of a quiet lock.** A lock's granted list is kept in grant order,
//!   which decides the order in which the deadlock detector looks at a waiter's blockers
//!   (and so, with two cycles, which victim it finds). A key on which no two of the lock
//!   types the scenario ever requests conflict (granted matrix) or yield to each other
//!   (any pending matrix) never has a waiter, so nobody ever looks at its order: its
//!   granted list is written sorted by owner and book place.
//! - **Where unplaced grants lie.** A fast-path grant its owner has not materialised
//!   (`LockState::unplaced`, mysql-8.0) is written after the other granted tickets,
//!   sorted by owner and book place, with a flag: its owner does not wait, so no search
//!   enters it, and when it is placed it goes to the back of the list.
//! - **Symmetry** (when on): sessions of one class ([`MdlModel::classes`]: identical
//!   programs and kill counts, named by no assert or kill) are sorted by the bytes of their
//!   own part of the state (which name no session and no ticket), ties broken by where
//!   they first appear in the lock table's lists, and every owner in the lock table is
//!   renamed to match. Two states that differ by a permutation of interchangeable
//!   sessions then have one encoding: equal own parts and equal first places mean
//!   sessions that appear nowhere, which any order writes alike. [`Codec::decode`] gives
//!   the representative, a real state of the model.
//!
//! Every other part of the state is written out in full, so two states with one encoding
//! differ only in those numberings and (with symmetry) the naming of interchangeable
//! sessions.

use super::keys::{command_keys, contains, KeyIndex};
use super::quiet::Quiet;
use super::{MdlModel, State};
use mdl_core::key::MdlKey;
use mdl_core::lock::TicketId;
use mdl_core::table::{BulkReq, WaitKind};
use mdl_core::{Duration, LockType, Outcome, WaitOption};
use mdl_scenario::Command;
use std::collections::HashMap;

mod decode;

/// The tables an encoding refers to, built once per model.
#[derive(Clone, Debug)]
pub struct Codec {
    /// Every key the scenario names, in key order (so a lock table in key order is in
    /// index order).
    pub keys: Vec<MdlKey>,
    /// Open addressing by the keys' precomputed hashes: index + 1, 0 empty.
    key_slots: Vec<u32>,
    /// Some step takes or rolls back to a savepoint (acquisition numbers then need
    /// ranking; otherwise they rise along each book and the rank is the place).
    savepoints: bool,
    /// Per key: no waiter is possible on it (see the module doc).
    quiet: Vec<bool>,
    names: Vec<String>,
    name_ix: HashMap<String, u32>,
    /// Groups of two or more interchangeable sessions (empty without symmetry).
    groups: Vec<Vec<usize>>,
    n: usize,
    config: mdl_core::table::Config,
    /// The model's dialect, shared by every decoded table.
    dialect: std::sync::Arc<mdl_core::dialect::Dialect>,
    /// Keys quiet from a state on and sessions that may still wait ([`super::quiet`]).
    /// `None`: off.
    dynamic: Option<Quiet>,
}

/// Buffers reused from one encoding to the next.
#[derive(Default, Debug)]
pub struct Scratch {
    /// Per ticket id: (owner + 1) << 24 | (place in the owner's book + 1); 0 unknown.
    place: Vec<u64>,
    local: Vec<u8>,
    spans: Vec<(usize, usize)>,
    order: Vec<usize>,
    new_of_old: Vec<u8>,
    ranks: Vec<u32>,
    entries: Vec<(u8, u32, u8, u8)>,
    /// Per session: its first place in the lock table's lists (`u32::MAX`: none).
    first: Vec<u32>,
}

#[cold]
#[inline(never)]
fn unknown_key(k: &MdlKey) -> ! {
    panic!("key {k:?} is not one the scenario names")
}

/// The (key, type) pairs a command requests or may end up holding.
fn command_types(cmd: &Command) -> Vec<(MdlKey, LockType)> {
    match cmd {
        Command::Acquire { key, ty, .. }
        | Command::Upgrade { key, ty, .. }
        | Command::Downgrade { key, ty } => vec![(key.clone(), *ty)],
        Command::Clone {
            key, ty: Some(ty), ..
        } => vec![(key.clone(), *ty)],
        Command::AcquireAll { reqs, .. } => reqs.clone(),
        _ => Vec::new(),
    }
}

fn put(out: &mut Vec<u8>, b: u8) {
    out.push(b);
}

/// LEB128.
fn var(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn outcome_code(o: Option<Outcome>) -> u8 {
    match o {
        None => 0,
        Some(o) => 1 + Outcome::ALL.iter().position(|x| *x == o).unwrap_or(0) as u8,
    }
}

fn dur_code(d: Duration) -> u8 {
    match d {
        Duration::Statement => 0,
        Duration::Transaction => 1,
        Duration::Explicit => 2,
    }
}

fn put_wait_option(out: &mut Vec<u8>, w: WaitOption) {
    match w {
        WaitOption::NoWait => put(out, 0),
        WaitOption::Forever => put(out, 1),
        WaitOption::Timeout(_) => {
            put(out, 2);
            var(out, w.timeout_ms().unwrap_or(0));
        }
    }
}

// Session flag bits of an encoding.
const F_FORCE_DML: u8 = 1;
const F_GONE: u8 = 2;
const F_WAIT: u8 = 4;
const F_RESUME: u8 = 8;
const F_BAD_DEADLOCK: u8 = 16;
const F_STARVED: u8 = 32;

impl Codec {
    /// The tables of a model; `symmetry` turns the renaming of interchangeable sessions
    /// on.
    pub fn new(m: &MdlModel, symmetry: bool) -> Codec {
        let mut keys: Vec<MdlKey> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut types: Vec<(MdlKey, LockType)> = Vec::new();
        for p in &m.programs {
            for st in p {
                keys.extend(command_keys(&st.cmd));
                types.extend(command_types(&st.cmd));
                match &st.cmd {
                    Command::Savepoint(n) | Command::RollbackTo(n) => names.push(n.clone()),
                    _ => {}
                }
            }
        }
        keys.sort();
        keys.dedup();
        names.sort();
        names.dedup();
        // The types requested per key (one pass: a bulk request may name 50,000 keys).
        let mut by_key: std::collections::BTreeMap<&MdlKey, Vec<LockType>> = Default::default();
        for (k, t) in &types {
            let v = by_key.entry(k).or_default();
            if !v.contains(t) {
                v.push(*t);
            }
        }
        let quiet = keys
            .iter()
            .map(|k| {
                let s = m.dialect.strategy(k.namespace());
                let tys = by_key.get(k).map_or(&[][..], |v| &v[..]);
                tys.iter().all(|a| {
                    tys.iter().all(|b| {
                        !s.conflicts_granted(*a, *b)
                            && s.pending.iter().all(|p| !p[a.0 as usize].contains(*b))
                    })
                })
            })
            .collect();
        let mut key_slots = vec![0u32; (keys.len() * 4).next_power_of_two().max(8)];
        let mask = key_slots.len() - 1;
        for (i, k) in keys.iter().enumerate() {
            let mut j = k.hash_value() as usize & mask;
            while key_slots[j] != 0 {
                j = (j + 1) & mask;
            }
            key_slots[j] = i as u32 + 1;
        }
        let savepoints = !names.is_empty();
        let name_ix = names
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i as u32))
            .collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        if symmetry {
            let mut by: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
            for (s, c) in m.classes.iter().enumerate() {
                by.entry(*c).or_default().push(s);
            }
            groups = by.into_values().filter(|g| g.len() > 1).collect();
        }
        Codec {
            keys,
            key_slots,
            savepoints,
            quiet,
            names,
            name_ix,
            groups,
            n: m.programs.len(),
            config: m.config,
            dialect: std::sync::Arc::new(m.dialect.clone()),
            dynamic: None,
        }
    }

    /// Turns on the state-dependent part of the encoding ([`super::quiet`]): the granted
    /// list of a key quiet from the state on is written sorted, like the scenario-wide
    /// quiet keys, and in the other lists the tickets of sessions that will never wait
    /// again are written after the others, sorted. Off for scenarios that name more than
    /// [`super::keys::MAX_KEYS`] keys.
    pub fn with_dynamic_quiet(mut self, m: &MdlModel) -> Codec {
        self.dynamic = Quiet::new(m, &self);
        self
    }

    /// The dynamic quiet test, when on.
    pub fn dynamic_quiet(&self) -> Option<&Quiet> {
        self.dynamic.as_ref()
    }

    /// Is any renaming of sessions done?
    pub fn symmetric(&self) -> bool {
        !self.groups.is_empty()
    }

    /// How many keys are quiet (their grant order is not kept).
    pub fn quiet_keys(&self) -> usize {
        self.quiet.iter().filter(|q| **q).count()
    }

    /// Is key `i` quiet: no two lock types the scenario requests on it conflict or yield
    /// to each other, so every request on it is granted at once and nobody ever waits
    /// on it?
    pub fn is_quiet(&self, i: usize) -> bool {
        self.quiet[i]
    }

    /// The index of a key the scenario names.
    #[inline]
    pub fn key_index(&self, k: &MdlKey) -> usize {
        let mask = self.key_slots.len() - 1;
        let mut j = k.hash_value() as usize & mask;
        loop {
            match self.key_slots[j] {
                0 => unknown_key(k),
                i if self.keys[(i - 1) as usize] == *k => return (i - 1) as usize,
                _ => j = (j + 1) & mask,
            }
        }
    }

    /// The place of ticket `id` in session `s`'s book, + 1 (0: not in it).
    fn place_in(sc: &Scratch, s: usize, id: TicketId) -> u64 {
        match sc.place.get(id.0 as usize) {
            Some(&p) if p != 0 && (p >> 24) == s as u64 + 1 => p & 0xff_ffff,
            _ => 0,
        }
    }

    fn put_reqs(&self, out: &mut Vec<u8>, reqs: &[BulkReq]) {
        var(out, reqs.len() as u64);
        for r in reqs {
            var(out, self.key_index(&r.key) as u64);
            put(out, r.ty.0);
        }
    }

    fn put_places(out: &mut Vec<u8>, sc: &Scratch, s: usize, ids: &[TicketId]) {
        var(out, ids.len() as u64);
        for id in ids {
            var(out, Self::place_in(sc, s, *id));
        }
    }

    /// A session's own part of the state (no owner ids, no ticket ids in it).
    fn put_session(&self, st: &State, s: usize, sc: &mut Scratch, out: &mut Vec<u8>) {
        let x = &st.table.sessions()[s];
        var(out, u64::from(st.pc[s]));
        put(out, outcome_code(st.last[s]));
        put(out, st.kills_left[s]);
        put(out, st.passed[s]);
        var(out, st.shape0[s]);
        put(out, st.jumps[s]);
        let mut soft = 0u8;
        if st.bad_cycle == Some(s as u8) {
            soft |= 1;
        }
        if st.bad_reorder == Some(s as u8) {
            soft |= 2;
        }
        if st.bad_jumps == Some(s as u8) {
            soft |= 4;
        }
        put(out, soft);
        let mut f = 0u8;
        if x.force_dml {
            f |= F_FORCE_DML;
        }
        if x.gone {
            f |= F_GONE;
        }
        if x.wait.is_some() {
            f |= F_WAIT;
        }
        if x.resume.is_some() {
            f |= F_RESUME;
        }
        if st.bad_deadlock == Some(s as u8) {
            f |= F_BAD_DEADLOCK;
        }
        if st.starved & (1u64 << s) != 0 {
            f |= F_STARVED;
        }
        put(out, f);
        var(out, u64::from(x.victim_count));
        // Acquisition numbers by rank. Without savepoints they rise along the book
        // (each ticket added gets the next number), so the rank is the place.
        sc.ranks.clear();
        if self.savepoints {
            sc.ranks.extend(x.book.held().iter().map(|h| h.seq));
            sc.ranks.extend(x.book.savepoints().iter().map(|(_, m)| *m));
            sc.ranks.push(x.book.next_seq());
            sc.ranks.sort_unstable();
            sc.ranks.dedup();
        }
        let ranked = self.savepoints;
        let rank = |sc: &Scratch, v: u32| sc.ranks.binary_search(&v).unwrap_or(0) as u64;
        var(out, x.book.held().len() as u64);
        for (i, h) in x.book.held().iter().enumerate() {
            var(out, self.key_index(&h.key) as u64);
            put(out, h.ty.0);
            put(out, dur_code(h.dur));
            var(out, if ranked { rank(sc, h.seq) } else { i as u64 });
        }
        var(out, x.book.savepoints().len() as u64);
        for (n, m) in x.book.savepoints() {
            var(
                out,
                u64::from(self.name_ix.get(n).copied().unwrap_or(u32::MAX)),
            );
            var(out, rank(sc, *m));
        }
        var(
            out,
            if ranked {
                rank(sc, x.book.next_seq())
            } else {
                x.book.held().len() as u64
            },
        );
        if let Some(w) = &x.wait {
            var(out, self.key_index(&w.key) as u64);
            put(out, w.ticket.ty.0);
            put(out, u8::from(w.timed));
            match &w.kind {
                WaitKind::Acquire { dur } => {
                    put(out, 0);
                    put(out, dur_code(*dur));
                }
                WaitKind::Upgrade { old } => {
                    put(out, 1);
                    var(out, Self::place_in(sc, s, *old));
                }
                WaitKind::Bulk {
                    dur,
                    rest,
                    taken,
                    wait,
                } => {
                    put(out, 2);
                    put(out, dur_code(*dur));
                    self.put_reqs(out, rest);
                    Self::put_places(out, sc, s, taken);
                    put_wait_option(out, *wait);
                }
            }
        }
        if let Some(r) = &x.resume {
            put(out, dur_code(r.dur));
            self.put_reqs(out, &r.rest);
            Self::put_places(out, sc, s, &r.taken);
            put_wait_option(out, r.wait);
        }
        // Foreign waits (the zoo's) never occur in a scenario model.
        debug_assert!(x.foreign.is_none());
    }

    /// Writes the canonical encoding of `st` to `out` (cleared first).
    pub fn encode(&self, st: &State, sc: &mut Scratch, out: &mut Vec<u8>) {
        out.clear();
        let n = self.n;
        // 1. Where each granted ticket sits in its owner's book.
        let top = st.table.next_ticket() as usize;
        if sc.place.len() < top {
            sc.place.resize(top, 0);
        }
        sc.place[..top].fill(0);
        for (s, x) in st.table.sessions().iter().enumerate() {
            for (i, h) in x.book.held().iter().enumerate() {
                if let Some(p) = sc.place.get_mut(h.id.0 as usize) {
                    *p = ((s as u64 + 1) << 24) | (i as u64 + 1);
                }
            }
        }
        if self.groups.is_empty() {
            // No renaming: the sessions in their own order, straight out.
            sc.new_of_old.clear();
            sc.new_of_old.extend((0..n).map(|s| s as u8));
            sc.order.clear();
            sc.order.extend(0..n);
            for s in 0..n {
                self.put_session(st, s, sc, out);
            }
            self.put_locks(st, sc, out);
            return;
        }
        // 2. Each session's own part.
        let mut local = std::mem::take(&mut sc.local);
        local.clear();
        sc.spans.clear();
        for s in 0..n {
            let a = local.len();
            self.put_session(st, s, sc, &mut local);
            sc.spans.push((a, local.len()));
        }
        // 3. Interchangeable sessions sorted by their own part, and sessions whose own
        // parts are equal by where they first appear in the lock table (its order does
        // not depend on names): so every renaming of a state gets one encoding.
        sc.first.clear();
        sc.first.resize(n, u32::MAX);
        let mut at = 0u32;
        for (_, l) in st.table.locks() {
            for t in l.granted().iter().chain(l.waiting()) {
                let f = &mut sc.first[t.owner.0 as usize];
                if *f == u32::MAX {
                    *f = at;
                }
                at += 1;
            }
        }
        sc.order.clear();
        sc.order.extend(0..n);
        for g in &self.groups {
            let mut members = g.clone();
            let spans = &sc.spans;
            let first = &sc.first;
            let bytes = |s: usize| &local[spans[s].0..spans[s].1];
            members.sort_by(|&a, &b| {
                bytes(a)
                    .cmp(bytes(b))
                    .then(first[a].cmp(&first[b]))
                    .then(a.cmp(&b))
            });
            for (slot, old) in g.iter().zip(members) {
                sc.order[*slot] = old;
            }
        }
        sc.new_of_old.clear();
        sc.new_of_old.resize(n, 0);
        for (new, &old) in sc.order.iter().enumerate() {
            sc.new_of_old[old] = new as u8;
        }
        // 4. Out: sessions in the new order, the locks with renamed owners, the conflict.
        for &old in &sc.order {
            let (a, b) = sc.spans[old];
            out.extend_from_slice(&local[a..b]);
        }
        sc.local = local;
        self.put_locks(st, sc, out);
    }

    /// The lock table (owners renamed by `sc.new_of_old`) and the conflict flag.
    fn put_locks(&self, st: &State, sc: &mut Scratch, out: &mut Vec<u8>) {
        let dynamic = self.dynamic.as_ref().map(|q| q.scan(self, st));
        // Sessions (renamed) that may still wait: the others' places in a granted list
        // are never read again (see `super::quiet`).
        let may_wait = dynamic.map_or(u64::MAX, |(_, w)| {
            let mut r = 0u64;
            for (old, &new) in sc.new_of_old.iter().enumerate() {
                if old >= 64 || w & (1 << old) != 0 {
                    r |= 1u64.checked_shl(u32::from(new)).unwrap_or(0);
                }
            }
            if sc.new_of_old.len() > 64 {
                u64::MAX
            } else {
                r
            }
        });
        var(out, st.table.locks().count() as u64);
        for (k, l) in st.table.locks() {
            let ki = self.key_index(k);
            var(out, ki as u64);
            sc.entries.clear();
            for t in l.granted() {
                let o = t.owner.0 as usize;
                let p = Self::place_in(sc, o, t.id);
                // A fast-path grant not yet materialised (`LockState::unplaced`): its
                // place in the list changes when its owner materialises it.
                let unplaced = u8::from(l.unplaced().contains(&t.id));
                sc.entries
                    .push((sc.new_of_old[o], p as u32, t.ty.0, unplaced));
            }
            if self.quiet[ki] || dynamic.is_some_and(|(q, _)| contains(&q, ki)) {
                sc.entries.sort_unstable();
            } else {
                // Unplaced grants last, sorted: their place never matters. Their owners do
                // not wait (a wait places them first), so no search enters them, and
                // placing moves them to the back (`LockState::place_own`). Before them,
                // the tickets of sessions that will never wait again, sorted: the
                // deadlock detector enters no session that does not wait, so only the
                // order of the others' tickets is ever read.
                let waits = |e: &(u8, u32, u8, u8)| may_wait & (1u64 << (e.0 & 63)) != 0;
                sc.entries.sort_by_key(|e| {
                    let settled = u8::from(!waits(e));
                    (
                        e.3,
                        settled,
                        if e.3 == 1 || settled == 1 {
                            *e
                        } else {
                            (0, 0, 0, 1)
                        },
                    )
                });
            }
            var(out, sc.entries.len() as u64);
            for (o, p, ty, unplaced) in &sc.entries {
                put(out, *o);
                var(out, u64::from(*p));
                put(out, *ty);
                put(out, *unplaced);
            }
            var(out, l.waiting().len() as u64);
            for t in l.waiting() {
                put(out, sc.new_of_old[t.owner.0 as usize]);
                put(out, t.ty.0);
            }
            var(out, u64::from(l.hog_count()));
            var(out, u64::from(l.piglet_count()));
            put(out, l.pending_index() as u8);
            // Soft-edge reorderings: waiting tickets by their place in the queue.
            let place = |id| {
                l.waiting()
                    .iter()
                    .position(|t| t.id == id)
                    .map_or(u64::MAX, |p| p as u64)
            };
            var(out, l.ahead().len() as u64);
            for (a, b) in l.ahead() {
                var(out, place(*a));
                var(out, place(*b));
            }
            var(out, l.jumped().len() as u64);
            for (t, n) in l.jumped() {
                var(out, place(*t));
                var(out, u64::from(*n));
            }
        }
        match &st.bad_grant {
            None => put(out, 0),
            Some((k, a, ta, b, tb)) => {
                put(out, 1);
                var(out, self.key_index(k) as u64);
                put(out, sc.new_of_old[*a]);
                put(out, ta.0);
                put(out, sc.new_of_old[*b]);
                put(out, tb.0);
            }
        }
    }

    /// The session order of the last [`Codec::encode`]: position `i` of the encoding is
    /// session `order()[i]` of the encoded state.
    pub fn last_order<'a>(&self, sc: &'a Scratch) -> &'a [usize] {
        &sc.order
    }
}

impl KeyIndex for Codec {
    fn keys(&self) -> &[MdlKey] {
        &self.keys
    }
    fn key_index(&self, k: &MdlKey) -> usize {
        Codec::key_index(self, k)
    }
    fn is_quiet(&self, i: usize) -> bool {
        Codec::is_quiet(self, i)
    }
}

/// The 64-bit fingerprint of an encoding (the visited set stores these, not states; two
/// different states share one with probability about 2^-64 per pair).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    // Fixed seeds: the same state has the same fingerprint in every run and thread.
    let h = ahash::RandomState::with_seeds(
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    );
    h.hash_one(bytes)
}
