//! The book's key filter folded into the pins, for a context that holds many tickets.
//!
//! An acquire first asks whether the context holds a ticket on the key (MySQL: sql/mdl.cc,
//! `MDL_context::try_acquire_lock_impl`, `find_ticket`): if so, the request reuses or
//! clones it. With more than a few tickets held the book answers through a per-key
//! filter (`book.rs`, `TicketBook::keys`), a hash table the acquire writes and the commit
//! writes again: with thousands of locks, one more cache line per lock each way, from
//! L3 (models/BENCH.md, issue 30, sixth round). The context's pins already know: every
//! ticket held is a use of its pin ("(pins)", `pins.rs`), so a key with no pin, or whose
//! pin has no use, is held by no ticket of ours, and the acquire is a new request, as
//! the book would plan it. So with many tickets held an acquire looks at the pin first,
//! under the one hold of `locks` that the request takes anyway, and goes on with the
//! request from there; only a key held goes to the book, whose filter is then built for
//! the rest of the round (`TicketBook::with_filter_on_demand`, `index_now`). A round
//! that only acquires keys it does not hold and commits never builds the filter.
//!
//! # Invariants
//!
//! - (fold) A pin with no use (or no pin) means no ticket of the context on the key, so
//!   the plan is `AcquirePlan::New`, the book's answer (checked against the sequential
//!   table by `tests/manager_diff.rs`, `manager_matches_lock_table_big_rounds`; the
//!   seeded bug `fold_ignores_uses` takes a held key for a free one and is caught
//!   there).

use super::context::{Begun, Context};
use super::types::{Pin, Pins};
use crate::decide::key::MdlKey;
use crate::decide::types::{LockDuration, LockType, WaitOption};

/// What [`Pins::take_unheld`] found.
pub(super) enum Unheld<'a> {
    /// The pin of a key we hold no ticket on, with one more use counted.
    Taken(&'a mut Pin),
    /// The key is pinned and in use: a ticket of ours may be on it (ask the book).
    InUse,
    /// No pin: the key is not held (a new pin is needed).
    Missing,
}

impl Pins {
    /// One more use of the pin of `key` if no ticket of ours is on it ("(fold)").
    #[inline(always)]
    pub(super) fn take_unheld(&mut self, key: &MdlKey) -> Unheld<'_> {
        let Some(i) = self.find(key) else {
            return Unheld::Missing;
        };
        let p = &mut self.slots[i];
        // Seeded bug: the pin's use count is not asked, so a key held looks free.
        if p.uses > 0 && !cfg!(mdl_bug = "fold_ignores_uses") {
            return Unheld::InUse;
        }
        self.n.use_pin(p);
        Unheld::Taken(p)
    }
}

impl Context {
    /// The request of an acquire when many tickets are held, if the key is not held
    /// (`None`: it may be; the book plans). The ticket id is taken only for a request.
    #[inline(always)]
    pub(super) fn request_unheld(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Option<Begun> {
        let id = self.next_ticket();
        let on_pin = self.fast_or_obj(key, id, ty, dur);
        let slow = {
            let mut p = self.sh.locks.lock();
            match p.take_unheld(key) {
                Unheld::Taken(pin) => on_pin(pin),
                Unheld::InUse => return None,
                Unheld::Missing => {
                    drop(p);
                    self.pin_new(key, on_pin)
                }
            }
        };
        self.new_ticket();
        Some(self.request_pinned(key, id, ty, dur, wait, slow))
    }
}
