//! Requests: one acquire (reuse, clone, grant or wait), a bulk acquire, an upgrade, and
//! MySQL's starvation counters of a grant.

use super::{Oracle, Priority, Request, Wait, WaitFor, HOGS};
use mdl_core::{Duration, LockType, MdlKey, Outcome, WaitOption};

impl Oracle {
    /// One request: reuse, a clone of another duration, a grant, or a wait.
    pub(super) fn acquire_one(
        &mut self,
        s: usize,
        key: &MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
        what: WaitFor,
    ) -> (Outcome, Option<u64>) {
        let st = self.strategy(key);
        let covering: Vec<Duration> = self.sessions[s]
            .held
            .iter()
            .filter(|h| &h.key == key && st.covers(h.ty, ty))
            .map(|h| h.dur)
            .collect();
        // MDL_context::try_acquire_lock_impl: find_ticket looks at the request's own
        // duration first; a ticket found there is reused, unless the request is explicit;
        // any other found ticket is cloned (clone_ticket: no grant decision).
        if covering.contains(&dur) && dur != Duration::Explicit {
            return (Outcome::Granted, None);
        }
        let id = self.new_id();
        let req = Request { id, owner: s, ty };
        if !covering.is_empty() {
            self.locks.entry(key.clone()).or_default().granted.push(req);
            self.add_ticket(s, id, key, ty, dur);
            return (Outcome::Granted, Some(id));
        }
        if !self.is_unobtrusive(key, ty) {
            // try_acquire_lock_impl: "if (!unobtrusive_lock_increment)
            // materialize_fast_path_locks()".
            self.materialise_own(s);
        }
        if self.can_grant(key, s, ty, Priority::Honoured) {
            let fast = self.is_fast_path(key, ty);
            let l = self.locks.entry(key.clone()).or_default();
            l.granted.push(req);
            if fast {
                l.fast.push(id);
            }
            self.add_ticket(s, id, key, ty, dur);
            // try_acquire_lock_impl: "if (lock->count_piglets_and_hogs(type))
            // lock->reschedule_waiters()" (MySQL; MariaDB does not count here).
            if self.count_grant(key, ty) {
                self.reschedule(key);
            }
            return (Outcome::Granted, Some(id));
        }
        match wait {
            WaitOption::NoWait => (Outcome::Busy, None),
            WaitOption::Timeout(std::time::Duration::ZERO) => (Outcome::Timeout, None),
            WaitOption::Timeout(_) | WaitOption::Forever => {
                self.locks
                    .entry(key.clone())
                    .or_default()
                    .waiting
                    .push(req.clone());
                self.sessions[s].wait = Some(Wait {
                    key: key.clone(),
                    req,
                    what,
                    timed: matches!(wait, WaitOption::Timeout(_)),
                });
                // will_wait_for: materialize_fast_path_locks, then the search.
                self.materialise_own(s);
                let o = self.detect(s);
                let g = self.self_grant.take();
                (o, if o == Outcome::Granted { g } else { None })
            }
        }
    }

    pub(super) fn run_bulk(
        &mut self,
        s: usize,
        items: Vec<(MdlKey, LockType)>,
        mut taken: Vec<u64>,
        dur: Duration,
        wait: WaitOption,
    ) -> Outcome {
        for i in 0..items.len() {
            let (k, t) = items[i].clone();
            let what = WaitFor::Bulk {
                dur,
                rest: items[i + 1..].to_vec(),
                taken: taken.clone(),
                wait,
            };
            match self.acquire_one(s, &k, t, dur, wait, what) {
                (Outcome::Granted, id) => taken.extend(id),
                (Outcome::Waiting, _) => return Outcome::Waiting,
                (failed, _) => {
                    taken.reverse();
                    self.release_ids(s, &taken);
                    return failed;
                }
            }
        }
        Outcome::Granted
    }

    pub(super) fn upgrade(
        &mut self,
        s: usize,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Outcome {
        if !self.strategy(key).takes(ty) {
            return Outcome::Error;
        }
        let Some(h) = self.strongest(s, key) else {
            return Outcome::Error;
        };
        // MDL_context::upgrade_shared_lock: nothing to do when the ticket is already that
        // strong; MariaDB: except in the BACKUP namespace, where "upgrade must always
        // happen" (its acquire_lock then finds this ticket and the merge retypes it).
        let backup = self.tables.dialect == "mariadb" && self.ns_name(key) == "BACKUP";
        if self.strategy(key).covers(h.ty, ty) {
            if backup && h.ty != ty {
                self.retype_and_reschedule(s, key, h.id, ty);
            }
            return Outcome::Granted;
        }
        // An upgrade to an earlier type is our misuse rule, not the servers'; MariaDB's
        // BACKUP namespace has callers that ask for one (sql/backup.cc,
        // backup_reset_alter_copy_lock: BACKUP_ALTER_COPY back up to BACKUP_DDL).
        if ty.0 < h.ty.0 && !backup {
            return Outcome::Error;
        }
        // acquire_lock for the new type: a held ticket that covers it is found first
        // (find_ticket) and no grant decision is made.
        let st = self.strategy(key);
        if self.sessions[s]
            .held
            .iter()
            .any(|x| &x.key == key && st.covers(x.ty, ty))
        {
            self.retype_and_reschedule(s, key, h.id, ty);
            return Outcome::Granted;
        }
        if !self.is_unobtrusive(key, ty) {
            self.materialise_own(s);
        }
        if self.can_grant(key, s, ty, Priority::Honoured) {
            // The new-type ticket is granted (and counted, MySQL) next to the old one; a
            // switch of matrices reschedules then; the merge drops it and retypes.
            let id = self.new_id();
            let l = self.locks.get_mut(key).expect("held");
            l.granted.push(Request { id, owner: s, ty });
            if self.count_grant(key, ty) {
                self.reschedule(key);
            }
            if let Some(l) = self.locks.get_mut(key) {
                l.granted.retain(|g| g.id != id);
            }
            self.retype_and_reschedule(s, key, h.id, ty);
            return Outcome::Granted;
        }
        match wait {
            WaitOption::NoWait => Outcome::Busy,
            WaitOption::Timeout(std::time::Duration::ZERO) => Outcome::Timeout,
            _ => {
                let id = self.new_id();
                let req = Request { id, owner: s, ty };
                self.locks
                    .get_mut(key)
                    .expect("held")
                    .waiting
                    .push(req.clone());
                self.sessions[s].wait = Some(Wait {
                    key: key.clone(),
                    req,
                    what: WaitFor::Upgrade { old: h.id },
                    timed: matches!(wait, WaitOption::Timeout(_)),
                });
                self.materialise_own(s);
                self.detect(s)
            }
        }
    }

    /// The merge of an upgrade: the ticket takes the new type at the end of the granted
    /// list. The servers do not reschedule then; the project does (a higher type need
    /// not block all the old one did, SU -> SRO: whoever that lets in is woken, as after a
    /// release; mdl-core/FIDELITY.md).
    pub(super) fn retype_and_reschedule(&mut self, s: usize, key: &MdlKey, id: u64, ty: LockType) {
        self.upgrade_ticket(s, key, id, ty);
        self.reschedule(key);
    }

    /// MySQL's MDL_lock::count_piglets_and_hogs for a ticket of `ty` just granted on
    /// `key` (a no-op outside MySQL's object locks): a hog granted while a non-hog
    /// waits, or SW while SRO waits, counts; true when the priority matrix changes.
    pub(super) fn count_grant(&mut self, key: &MdlKey, ty: LockType) -> bool {
        if !self.mysql_starvation(key) {
            return false;
        }
        let max = self.max_write_lock_count;
        let l = self.locks.get_mut(key).expect("present");
        let waiting: Vec<LockType> = l.waiting.iter().map(|r| r.ty).collect();
        if HOGS.contains(&ty) {
            if !waiting.iter().any(|t| !HOGS.contains(t)) {
                return false;
            }
            l.hog += 1;
        } else if ty == LockType::SW && waiting.contains(&LockType::SRO) {
            l.piglet += 1;
        } else {
            return false;
        }
        let new =
            usize::from(u64::from(l.piglet) >= max) + 2 * usize::from(u64::from(l.hog) >= max);
        if new == l.idx {
            return false;
        }
        l.idx = new;
        true
    }
}
