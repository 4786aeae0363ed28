//! What a context gives back: releases, end of statement, commit, explicit locks,
//! savepoints, durations, and everything when it is dropped (MySQL: sql/mdl.cc,
//! `MDL_context::release_lock`, `release_locks_stored_before` and their callers).
//!
//! # Invariants
//!
//! - A fast-path grant still in the pin is released there, under our `locks` lock, and
//!   taken off its lock's count of fast-path grants (`fast.rs`, "(count)"); any
//!   other ticket through its lock's mutex with the step layer's `Lock::release`, one
//!   ticket at a time, each followed by its reschedule (the servers' order).
//! - The introspection copy of a ticket's duration (`Meta::dur`, `FastGrant::dur`)
//!   follows the book's.

use super::context::Context;
use super::fast::{stripe_of, uncount_fast};
use super::map::try_grant;
use super::types::{CtxShared, LockInner, LockObj, Pins};
use super::Shared;
use crate::decide::book::TicketBook;
use crate::decide::error::MdlError;
use crate::decide::key::MdlKey;
use crate::decide::lock::TicketId;
use crate::decide::types::{LockDuration, LockType};
use crate::sync::Arc;
use std::collections::HashMap;
use tracing::debug;

/// Up to this many locks, a release groups its slow tickets by a linear search; beyond,
/// it builds an index.
pub(super) const FEW: usize = 8;

impl Context {
    /// One ticket of `ty` (the latest), or every ticket on `key`.
    pub fn release(&mut self, key: &MdlKey, ty: Option<LockType>) -> Result<(), MdlError> {
        self.book.index_now();
        let ids = self.book.plan_release(key, ty)?;
        self.release_ids(&ids);
        Ok(())
    }

    /// Releases one ticket (MySQL: sql/mdl.cc, `MDL_context::release_lock`).
    pub fn release_ticket(&mut self, id: TicketId) -> Result<(), MdlError> {
        if self.book.get(id).is_none() {
            return Err(MdlError::NotHeld);
        }
        self.release_ids(&[id]);
        Ok(())
    }

    /// Gives back tickets: fast ones under our `locks` lock (one hold for all), the
    /// others lock by lock (removal and a reschedule after each, under one hold of the
    /// lock's mutex),
    /// locks in the order of their first ticket in `ids`. Linear in `ids`: a ticket is
    /// found in the book from the back (releases come latest first) and in its pin by
    /// key; slow tickets are grouped by lock through an index once there are more than
    /// a few locks.
    pub(super) fn release_ids(&mut self, ids: &[TicketId]) {
        let Context {
            book,
            sh,
            slow,
            mgr,
            ..
        } = self;
        release_from(book, sh, slow, &mgr.sh, ids);
    }

    /// Releases the tickets of `durs` (latest first): every ticket, popped from the book,
    /// when they are all of one of `durs` in one list (a commit, usually); otherwise
    /// those listed by [`TicketBook::of_durations_into`] through the reused scratch list.
    #[inline]
    pub(super) fn release_durations(&mut self, durs: &[LockDuration]) {
        let Context {
            book,
            sh,
            slow,
            mgr,
            scratch,
            ..
        } = self;
        if book.is_one_list_of(durs) {
            release_each(
                sh,
                slow,
                &mgr.sh,
                std::iter::from_fn(|| book.pop_latest_parts()),
            );
            return;
        }
        scratch.clear();
        book.of_durations_into(durs, scratch);
        release_from(book, sh, slow, &mgr.sh, scratch);
        scratch.clear();
    }

    /// MySQL: sql/mdl.cc, `MDL_context::release_statement_locks`.
    pub fn end_statement(&mut self) {
        self.release_durations(&[LockDuration::Statement]);
    }

    /// Commit or rollback: statement and transaction locks go (MySQL: sql/mdl.cc,
    /// `MDL_context::release_transactional_locks`).
    #[inline]
    pub fn commit(&mut self) {
        self.release_durations(&[LockDuration::Statement, LockDuration::Transaction]);
        self.book.clear_savepoints();
    }

    /// Releases every lock of [`LockDuration::Explicit`] duration (`UNLOCK TABLES`).
    pub fn release_explicit(&mut self) {
        self.release_durations(&[LockDuration::Explicit]);
    }

    /// Marks a savepoint: [`Context::rollback_to`] releases the statement and transaction
    /// locks taken after it (MySQL: sql/mdl.cc, `MDL_context::mdl_savepoint`).
    pub fn savepoint(&mut self, name: &str) {
        self.book.savepoint(name);
    }

    /// MySQL: sql/mdl.cc, `MDL_context::rollback_to_savepoint`.
    pub fn rollback_to(&mut self, name: &str) -> Result<(), MdlError> {
        let ids = self.book.plan_rollback_to(name)?;
        self.release_ids(&ids);
        self.book.forget_savepoints_after(name);
        Ok(())
    }

    /// MySQL: sql/mdl.cc, `MDL_context::set_explicit_duration_for_all_locks` and
    /// `set_transaction_duration_for_all_locks`.
    pub fn set_duration(&mut self, dur: LockDuration) {
        self.book.set_duration_all(dur);
        let ids: Vec<TicketId> = self.book.held().iter().map(|h| h.id).collect();
        for id in ids {
            self.note_duration(id, dur);
        }
    }

    /// Changes one ticket's duration (MySQL: sql/mdl.cc, `MDL_context::set_lock_duration`).
    pub fn set_ticket_duration(&mut self, id: TicketId, dur: LockDuration) -> Result<(), MdlError> {
        if self.book.get(id).is_none() {
            return Err(MdlError::NotHeld);
        }
        self.book.set_duration(id, dur);
        self.note_duration(id, dur);
        Ok(())
    }

    /// Keeps the introspection copy of a ticket's duration in step with the book.
    pub(super) fn note_duration(&self, id: TicketId, dur: LockDuration) {
        let Some(key) = self.book.get(id).map(|h| h.key.clone()) else {
            return;
        };
        let obj = {
            let mut p = self.sh.locks.lock();
            let Some(pin) = p.get_mut(&key) else {
                return;
            };
            if let Some(e) = pin.fast.iter_mut().find(|e| e.id == id) {
                e.dur = dur;
                return;
            }
            pin.obj.clone()
        };
        let mut g = obj.state.lock();
        if let Some(m) = g.meta.get_mut(&id) {
            m.dur = dur;
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let ids = self.book.all();
        self.release_ids(&ids);
        // Idle pins go now, not when the last handle on the shared part does.
        *self.sh.locks.lock() = Pins::default();
        self.mgr.sh.registry.write().live.remove(&self.sh.id);
        debug!(owner = self.sh.id.0, "mdl context gone");
    }
}

/// [`Context::release_ids`] on the context's parts (so that a caller may pass a list the
/// context owns): tickets leave the book, then their pins; the slow ones (`slow`, empty
/// between calls) are given back to their locks after.
fn release_from(
    book: &mut TicketBook,
    sh: &CtxShared,
    slow: &mut Vec<(Arc<LockObj>, TicketId)>,
    m: &Shared,
    ids: &[TicketId],
) {
    if ids.is_empty() {
        return;
    }
    release_each(
        sh,
        slow,
        m,
        ids.iter()
            .filter_map(|id| book.remove(*id))
            .map(|h| (h.id, h.key)),
    );
}

/// Gives back the tickets `tickets` yields (id and key), each as it leaves the book (our own, under
/// our `locks` lock for no other reason than to save a second pass): from its pin, or
/// (`slow`, empty between calls) from its lock after.
#[inline]
fn release_each(
    sh: &CtxShared,
    slow: &mut Vec<(Arc<LockObj>, TicketId)>,
    m: &Shared,
    tickets: impl Iterator<Item = (TicketId, MdlKey)>,
) {
    {
        let stripe = stripe_of(sh.id);
        let mut p = sh.locks.lock();
        let mut evict = false;
        for (id, key) in tickets {
            let Some((pin, n)) = p.get_counted(&key) else {
                continue;
            };
            match pin.fast.iter().rposition(|e| e.id == id) {
                Some(i) => {
                    pin.fast.swap_remove(i);
                    uncount_fast(&pin.obj, stripe, 1);
                }
                // Not (or no longer) a fast grant: materialised or slow.
                None => slow.push((pin.obj.clone(), id)),
            }
            // `Pins::put` without a second probe; the eviction, if due, after the loop.
            evict |= n.release_pin(pin);
            pin.spare = Some(key);
        }
        if evict {
            p.evict_lru();
        }
        p.end_round_if();
    }
    if !slow.is_empty() {
        give_back_slow(m, slow);
    }
}

/// Gives the slow tickets of a release back to their locks, lock by lock in the order of
/// their first ticket (removal and a reschedule after each, under one hold of the
/// lock's mutex); leaves `slow` empty.
fn give_back_slow(m: &Shared, slow: &mut Vec<(Arc<LockObj>, TicketId)>) {
    // MySQL: sql/mdl.cc, MDL_context::release_lock -> MDL_lock::remove_ticket: one
    // ticket at a time, each followed by reschedule_waiters (under one hold of the
    // lock's mutex here; other locks do not see the difference).
    let give_back = |o: &LockObj, ids: &mut dyn Iterator<Item = TicketId>| {
        let mut g = o.state.lock();
        let r = m.rules(&o.key);
        for id in ids {
            g.meta.remove(&id);
            let LockInner { st, meta } = &mut *g;
            let woken = st.release(&r, id, try_grant(meta));
            m.granted(o, meta, woken);
        }
        m.clear_slow_if(o, &g);
    };
    if let [(o, id)] = slow.as_slice() {
        give_back(o, &mut std::iter::once(*id));
    } else if !slow.is_empty() {
        // Group by lock, in the order of first appearance: a linear search among a
        // few groups, an index (object address -> group) beyond.
        let mut groups: Vec<(Arc<LockObj>, Vec<TicketId>)> = Vec::new();
        let mut index: HashMap<usize, usize> = HashMap::new();
        for (o, id) in slow.drain(..) {
            let addr = Arc::as_ptr(&o) as usize;
            let gi = if groups.len() <= FEW {
                groups
                    .iter()
                    .position(|(x, _)| Arc::as_ptr(x) as usize == addr)
            } else {
                if index.is_empty() {
                    for (i, (x, _)) in groups.iter().enumerate() {
                        index.insert(Arc::as_ptr(x) as usize, i);
                    }
                }
                index.get(&addr).copied()
            };
            match gi {
                Some(i) => groups[i].1.push(id),
                None => {
                    if !index.is_empty() {
                        index.insert(addr, groups.len());
                    }
                    groups.push((o, vec![id]));
                }
            }
        }
        for (o, ids) in groups {
            give_back(&o, &mut ids.into_iter());
        }
    }
    slow.clear();
}
