//! The compact state of the SQL model for `mdl check`'s search (issue 28, item 3): the
//! parts of [`super::SqlModel`] that a step seldom changes (the catalog, each session's
//! SQL state with its statement in progress) are shared between the states that have
//! them alike, behind an [`Arc`] ([`Shared`]); a step copies only the part it writes
//! (copy on write, [`Arc::make_mut`]). Each shared part keeps its own fingerprint,
//! computed once per distinct value and cleared on a write, so the model's fingerprint
//! ([`fingerprint`]) hashes the lock table, the clock and one `u64` per part instead of
//! formatting the catalog and the sessions per state.
//!
//! A part's fingerprint is the hash of its `Debug` text (deterministic: ordered maps and
//! vectors only), as the model's whole fingerprint was before, each part formatted only
//! when it changed. The lock table is hashed with its ticket ids and acquisition numbers
//! canonical ([`super::canon`]), and so are the ticket ids a session's statement in
//! progress names: two states that differ only in those numberings are one state.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, OnceLock};

/// A part of the state shared between states (copy on write), with its fingerprint
/// cached.
pub struct Shared<T>(Arc<(T, OnceLock<u64>)>);

impl<T> Shared<T> {
    pub fn new(v: T) -> Shared<T> {
        Shared(Arc::new((v, OnceLock::new())))
    }

    /// The same value, not a copy (two states share it).
    pub fn same(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T: fmt::Debug> Shared<T> {
    /// The fingerprint of the value (its `Debug` text hashed), once per value.
    pub fn fingerprint(&self) -> u64 {
        *self.0 .1.get_or_init(|| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            write_debug(&self.0 .0, &mut h);
            h.finish()
        })
    }
}

/// Feeds `v`'s `Debug` text to a hasher without building the string.
fn write_debug<T: fmt::Debug>(v: &T, h: &mut impl Hasher) {
    struct W<'h, H: Hasher>(&'h mut H);
    impl<H: Hasher> fmt::Write for W<'_, H> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    // Writing to a hasher cannot fail.
    let _ = fmt::write(&mut W(h), format_args!("{v:?}"));
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0 .0
    }
}

/// A write copies the value if another state shares it, and forgets its fingerprint.
impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        let inner = Arc::make_mut(&mut self.0);
        inner.1 = OnceLock::new();
        &mut inner.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0 .0.fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, o: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.0, &o.0) || self.0 .0 == o.0 .0
    }
}

impl<T: Eq> Eq for Shared<T> {}

/// The model's fingerprint: everything that decides what it does next (the lock table,
/// the clock, the catalog, each session with its statement in progress, and the
/// bookkeeping of a step, empty between steps), not what is fixed for a file's run.
pub(super) fn fingerprint(m: &super::SqlModel) -> u64 {
    // Every field named: a new one does not compile here until it is either hashed or
    // said to be left out.
    let super::SqlModel {
        dialect: _,
        table: t,
        map: _,
        // Fixed for a file's run.
        names: _,
        stepwise_calls: _,
        catalog: cat,
        sessions: sess,
        events,
        now,
        seq: _,
        foreground: _,
        // Set and cleared within a step.
        flushed_by: _,
        stash,
        yielded,
        held_back,
        global_lock_wait_timeout,
    } = m;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let labels = super::canon::Labels::of(t);
    super::canon::hash_table(t, &labels, &mut h);
    now.hash(&mut h);
    global_lock_wait_timeout.hash(&mut h);
    cat.fingerprint().hash(&mut h);
    sess.len().hash(&mut h);
    let waits = wait_ranks(sess);
    for s in sess {
        if s.run.is_some() || !s.session.locking_reads.is_empty() {
            // Its statement in progress or its locking reads name tickets: their labels.
            super::canon::relabel_debug(&ranked_debug(s, &waits), &labels).hash(&mut h);
        } else {
            s.fingerprint().hash(&mut h);
        }
    }
    // (`stash`, `yielded` and `held_back` are empty between calls: `pump` plays them
    // out; `events` are taken after each step.)
    if !(events.is_empty() && stash.is_empty() && yielded.is_empty() && held_back.is_empty()) {
        write_debug(&(events, stash, yielded, held_back), &mut h);
    }
    h.finish()
}

/// The start numbers of the waits in progress (`Waiting::seq`), in order. Only their
/// order is read (ties of deadlines, `SqlModel::advance`), and a new wait's number is
/// above every one in use (`set_waiting`; the next one, `SqlModel::seq`, is left out of
/// the fingerprint): so a wait's number is hashed as its rank among them. Hashing the
/// numbers themselves made the fingerprint depend on the path to a state (how many waits
/// began and ended before), and the unique states counted on the order of the search
/// (models/MODEL.md, "SQL scenarios on the one engine").
fn wait_ranks(sess: &[Shared<super::Connection>]) -> Vec<u64> {
    let mut v: Vec<u64> = sess
        .iter()
        .filter_map(|s| Some(s.run.as_ref()?.waiting.as_ref()?.seq))
        .collect();
    v.sort_unstable();
    v
}

/// A session's `Debug` text with its wait's start number as its rank in `waits`.
fn ranked_debug(s: &super::Connection, waits: &[u64]) -> String {
    let Some(seq) = s.run.as_ref().and_then(|r| Some(r.waiting.as_ref()?.seq)) else {
        return format!("{s:?}");
    };
    let mut c = s.clone();
    if let Some(w) = c.run.as_mut().and_then(|r| r.waiting.as_mut()) {
        w.seq = waits.binary_search(&seq).unwrap_or(usize::MAX) as u64;
    }
    format!("{c:?}")
}

#[cfg(test)]
mod tests {
    use super::Shared;

    #[test]
    fn a_write_copies_a_shared_value_and_forgets_its_fingerprint() {
        let a = Shared::new(vec![1, 2]);
        let fa = a.fingerprint();
        let mut b = a.clone();
        assert!(Shared::same(&a, &b));
        assert_eq!(b.fingerprint(), fa);
        b.push(3);
        assert!(!Shared::same(&a, &b));
        assert_eq!(*a, vec![1, 2]);
        assert_ne!(b.fingerprint(), fa);
        b.pop();
        assert_eq!(b.fingerprint(), fa);
        assert_eq!(a, b);
    }
}
