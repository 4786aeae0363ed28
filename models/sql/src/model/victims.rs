//! Deadlock victims, back-offs and retries, and the pump that wakes waiting sessions.

use super::SqlModel;
use crate::compose::{Ctx, Step};
use mdl_core::key::MdlKey;
use mdl_core::{Outcome, OwnerId};

/// Retries of a deadlock victim before the model gives up (the server would loop). More
/// than a DDL weight (100): a victim that waits again (FTWRL weighs 0) grows heavier by
/// one each time (MariaDB's victim overweight) until the other waiter of the cycle is the
/// lighter one (measured: found/seed-70252, GET_LOCK against FTWRL: GET_LOCK's SNW weighs
/// DDL, and after 100 retries of FTWRL it is GET_LOCK that gets ER_LOCK_DEADLOCK).
pub(super) const MAX_RETRIES: u32 = 1000;

impl SqlModel {
    /// The session was chosen as a deadlock victim while it ran `ctx`'s request (the
    /// request is first in its steps). `None`: it goes on (back-off and retry, or FTWRL's
    /// wait again); `Some(outcome)`: the statement ended.
    pub(super) fn deadlocked(&mut self, s: usize, ctx: Ctx) -> Option<Outcome> {
        let run = self.sessions[s].run.as_mut().expect("running");
        run.waiting = None;
        run.retries += 1;
        let give_up = run.retries > MAX_RETRIES;
        match ctx {
            _ if give_up => Some(self.finish(s, Outcome::Deadlock)),
            Ctx::Retry => None,
            Ctx::OpenTable if !run.had_locks => {
                // OT_BACKOFF_AND_RETRY: give back the statement's locks, open again.
                let own = run.own.clone();
                self.give_back(s, 0);
                let run = self.sessions[s].run.as_mut().expect("running");
                run.steps = own.into();
                run.group_start = 0;
                None
            }
            Ctx::OpenTable => {
                let o = self.finish(s, Outcome::Deadlock);
                // request_backoff_action: the transaction is rolled back.
                let _ = self.table.commit(self.sessions[s].id);
                self.sessions[s].session.in_txn = false;
                self.sessions[s].session.wrote = false;
                Some(o)
            }
            Ctx::BlockDdl if run.retries <= crate::compose::BLOCK_DDL_RETRIES => {
                // (The server sleeps 0.1 s, 0.5 s, ... before it tries again; the model
                // tries at once: nothing the cycle's other sessions do depends on it.)
                None
            }
            // The last try failed (`backup_stage_failed` takes the lock back down).
            Ctx::BlockDdl => Some(self.finish(s, Outcome::Deadlock)),
            Ctx::Plain => Some(self.finish(s, Outcome::Deadlock)),
        }
    }

    /// The ends of waits the table decided and `pump` has not played yet, in order.
    pub(super) fn table_events(&mut self) -> Vec<(OwnerId, Outcome)> {
        let mut ev = std::mem::take(&mut self.held_back);
        ev.extend(self.table.take_events());
        ev
    }

    /// Another session that `s`'s request made a deadlock victim and whose statement
    /// asks again at once (`Ctx::Retry`: FTWRL, `lock_global_read_lock`'s loop; LOCK
    /// TABLES READ's move to SRO) asks now, before `s` goes on: the server wakes it at
    /// once, and its new request is queued while `s` still works (measured:
    /// found/seed-211601, FTWRL the victim of a copying ALTER's move from
    /// BACKUP_ALTER_COPY back to BACKUP_DDL; it asks for BACKUP_FTWRL1 again before the
    /// ALTER ends, so it is granted at that end, ahead of a LOCK TABLES waiting for the
    /// ALTER's table). The other ends of waits stay for `pump`, in their order.
    pub(super) fn retry_victims_now(&mut self, s: usize) {
        let ev = self.table.take_events(); // (only the new ones: `held_back` keeps the rest)
        for (owner, o) in ev {
            let v = self.sessions.iter().position(|x| x.id == owner);
            let retry = o == Outcome::Deadlock
                && v.is_some_and(|v| {
                    v != s
                        && self.sessions[v].run.as_ref().is_some_and(|r| {
                            r.retries < MAX_RETRIES
                                && r.waiting.as_ref().is_some_and(|w| {
                                    !w.release_after && self.ctx_of(v, &w.step) == Ctx::Retry
                                })
                        })
                });
            let Some(v) = v.filter(|_| retry) else {
                self.held_back.push((owner, o));
                continue;
            };
            let run = self.sessions[v].run.as_mut().expect("running");
            let w = run.waiting.take().expect("waiting");
            run.steps.push_front(w.step);
            if self.deadlocked(v, Ctx::Retry).is_none() {
                let out = self.run(v);
                let out = self.user_locks_after(v, out);
                if out != Outcome::Waiting {
                    self.events.push((v, out));
                }
            }
        }
    }

    /// A victim whose statement backs off and opens its tables again (`Ctx::OpenTable`
    /// with no lock held before it): gives back its locks now and sets its steps for the
    /// retry; `false` (nothing done) for any other victim.
    pub(super) fn back_off_now(&mut self, owner: OwnerId) -> bool {
        let Some(s) = self.sessions.iter().position(|x| x.id == owner) else {
            return false;
        };
        let Some(w) = self.sessions[s]
            .run
            .as_ref()
            .and_then(|r| r.waiting.clone())
        else {
            return false;
        };
        let run = self.sessions[s].run.as_ref().expect("running");
        if w.release_after
            || self.ctx_of(s, &w.step) != Ctx::OpenTable
            || run.had_locks
            || run.retries >= MAX_RETRIES
        {
            return false;
        }
        let out = self.deadlocked(s, Ctx::OpenTable);
        debug_assert!(out.is_none(), "a back-off goes on");
        true
    }

    /// Gives back the tickets the running statement made since `new[from]`.
    pub(super) fn give_back(&mut self, s: usize, from: usize) {
        let id = self.sessions[s].id;
        let mine: Vec<(mdl_core::lock::TicketId, MdlKey)> = {
            let run = self.sessions[s].run.as_mut().expect("running");
            let from = from.min(run.new.len());
            run.new.split_off(from)
        };
        for (tid, key) in mine.into_iter().rev() {
            let ty = self
                .table
                .session(id)
                .and_then(|x| x.book.get(tid))
                .map(|h| h.ty);
            if let Some(ty) = ty {
                let _ = self.table.release(id, &key, Some(ty));
            }
        }
    }

    /// Resolves the waits that the last call ended, until none is left.
    pub(super) fn pump(&mut self) {
        loop {
            if self.stash.is_empty() {
                let mut ev = self.table_events();
                if ev.is_empty() {
                    // The sessions that stood aside (an ALTER's slow phase) go on once the
                    // others are done.
                    let Some(y) = self.yielded.pop_front() else {
                        return;
                    };
                    if self.sessions[y].run.is_some() {
                        let out = self.run(y);
                        let out = self.user_locks_after(y, out);
                        if out != Outcome::Waiting {
                            self.events.push((y, out));
                        }
                    }
                    continue;
                }
                // Of the sessions one release lets in, the one whose step is being played
                // goes on first: its next request follows at once, the others' after they
                // wake (measured: found/seed-1632.mdl; a race on the server, see
                // known-differences/woken-sessions-race.mdl).
                if let Some(fg) = self
                    .foreground
                    .and_then(|f| self.sessions.get(f))
                    .map(|x| x.id)
                {
                    ev.sort_by_key(|(o, _)| *o != fg);
                }
                // The victims of one search that back off give back their locks before
                // any of them opens its tables again: each releases as it wakes, and the
                // reopen comes after (`open_tables`: `close_tables_for_reopen`, then
                // `Open_table_context::recover_from_failed_open`, sql/sql_base.cc).
                // Measured: found/seed-191826, two LOCK TABLES ... WRITE CONCURRENT both
                // victims of the FTWRL holder's LOCK TABLES READ LOCAL, which gets SRO
                // between their releases and their new SW requests; both then wait for SW.
                // Their retries stand aside until the sessions those releases let in have
                // gone on (known-differences/woken-race-201610, below in `run`).
                let mut rest = Vec::with_capacity(ev.len());
                for e in ev {
                    if e.1 == Outcome::Deadlock && self.back_off_now(e.0) {
                        if let Some(s) = self.sessions.iter().position(|x| x.id == e.0) {
                            self.yielded.push_back(s);
                        }
                    } else {
                        rest.push(e);
                    }
                }
                if rest.is_empty() {
                    continue;
                }
                self.stash = rest;
            }
            // (The batch one release let in stays in `stash` while its sessions go on one
            // by one: a session may stand aside for the rest, `run`.)
            {
                let (owner, o) = self.stash.remove(0);
                let Some(s) = self.sessions.iter().position(|x| x.id == owner) else {
                    continue;
                };
                if self.sessions[s].run.is_none() {
                    continue;
                }
                let out = match o {
                    Outcome::Granted => {
                        let w = self.sessions[s].run.as_mut().and_then(|r| r.waiting.take());
                        if let Some(w) = w {
                            if w.release_after {
                                // A back-off's wait: give the lock back at once.
                                if let Step::Backoff { key, ty, .. } = &w.step {
                                    let _ = self.table.release(owner, key, Some(*ty));
                                }
                            } else if let Some(k) = w.step.key() {
                                let k = k.clone();
                                self.note_new(s, &w.before, &k);
                                self.set_last_open(s, &w.step);
                                self.trigger_rebind(s, &w.step);
                                self.trigger_parts_rebind(s, &w.step);
                                self.trigger_flush(s, &w.step);
                            }
                            match self.opened_missing(s, &w.step) {
                                Some(o) => o,
                                None => self.run(s),
                            }
                        } else {
                            self.run(s)
                        }
                    }
                    Outcome::Deadlock => {
                        let w = self.sessions[s].run.as_mut().and_then(|r| r.waiting.take());
                        let ctx = match w.as_ref() {
                            Some(w) => self.ctx_of(s, &w.step),
                            None => Ctx::Plain,
                        };
                        if let Some(w) = w {
                            if !w.release_after {
                                self.sessions[s]
                                    .run
                                    .as_mut()
                                    .expect("running")
                                    .steps
                                    .push_front(w.step);
                            }
                        }
                        match self.deadlocked(s, ctx) {
                            Some(o) => o,
                            None => self.run(s),
                        }
                    }
                    o => {
                        // (Read before the wait is forgotten: `model::stat_open`.)
                        let o = match self.sessions[s].run.as_ref() {
                            Some(r) => super::stat_open::stat_tables_open_failed(r, o),
                            None => o,
                        };
                        if let Some(r) = self.sessions[s].run.as_mut() {
                            r.waiting = None;
                        }
                        self.finish(s, o)
                    }
                };
                let out = self.user_locks_after(s, out);
                if out != Outcome::Waiting {
                    self.events.push((s, out));
                }
            }
        }
    }
}
