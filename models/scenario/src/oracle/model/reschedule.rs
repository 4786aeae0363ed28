//! Rescheduling a lock after a change (MySQL's and MariaDB's orders), the end of a wait
//! without a grant, and the grant of a waiter.

use super::{Continue, Oracle, Priority, Request, WaitFor, HOGS};
use mdl_core::{LockType, MdlKey, Outcome};

impl Oracle {
    /// Ends `s`'s wait without a grant (timeout, kill, deadlock).
    pub(super) fn end_wait(&mut self, s: usize, out: Outcome) {
        let Some(w) = self.sessions[s].wait.take() else {
            return;
        };
        if let Some(l) = self.locks.get_mut(&w.key) {
            l.waiting.retain(|r| r.id != w.req.id);
        }
        self.reschedule(&w.key);
        if let WaitFor::Bulk { mut taken, .. } = w.what {
            taken.reverse();
            self.release_ids(s, &taken);
        }
        if self.detecting != Some(s) {
            self.events.push((s, out));
        }
    }

    // --- rescheduling -------------------------------------------------------------------

    pub(super) fn reschedule(&mut self, key: &MdlKey) {
        // A finished upgrade gives its ticket a type that may block less than the old
        // one did (START -> FTWRL1, SU -> SRO): look at the queue again then.
        loop {
            if !self.locks.contains_key(key) {
                return;
            }
            let granted = if self.mariadb_starvation(key) {
                self.reschedule_mariadb(key)
            } else {
                self.reschedule_mysql(key)
            };
            let mut upgraded = false;
            for r in granted {
                if matches!(
                    self.sessions[r.owner].wait.as_ref().map(|w| &w.what),
                    Some(WaitFor::Upgrade { .. })
                ) {
                    upgraded = true;
                }
                self.finish_grant(key, r);
            }
            if !upgraded {
                break;
            }
        }
        self.drop_if_idle(key);
    }

    pub(super) fn reschedule_mysql(&mut self, key: &MdlKey) -> Vec<Request> {
        let counted = self.mysql_starvation(key);
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.locks[key].waiting.len() {
            let w = self.locks[key].waiting[i].clone();
            if !self.can_grant(key, w.owner, w.ty, Priority::Honoured) {
                i += 1;
                continue;
            }
            let l = self.locks.get_mut(key).expect("present");
            l.waiting.remove(i);
            l.granted.push(w.clone());
            out.push(w.clone());
            // A switch of matrices restarts the pass ("it.rewind()").
            if self.count_grant(key, w.ty) {
                i = 0;
            }
        }
        if counted {
            let l = self.locks.get_mut(key).expect("present");
            let waiting: Vec<LockType> = l.waiting.iter().map(|r| r.ty).collect();
            if l.idx == 3 {
                let heavy = [
                    LockType::SNW,
                    LockType::SNRW,
                    LockType::X,
                    LockType::SW,
                    LockType::SWLP,
                ];
                if waiting.iter().all(|t| heavy.contains(t)) {
                    l.hog = 0;
                    l.piglet = 0;
                    l.idx = 0;
                }
            } else {
                if waiting.iter().all(|t| HOGS.contains(t)) {
                    l.hog = 0;
                    l.idx &= !2;
                }
                if !waiting.contains(&LockType::SRO) {
                    l.piglet = 0;
                    l.idx &= !1;
                }
            }
        }
        out
    }

    pub(super) fn reschedule_mariadb(&mut self, key: &MdlKey) -> Vec<Request> {
        let max = self.max_write_lock_count;
        let mut out = Vec::new();
        let skip_high = {
            let l = &self.locks[key];
            u64::from(l.hog) >= max && l.waiting.iter().any(|r| !HOGS.contains(&r.ty))
        };
        let mut i = 0;
        while i < self.locks[key].waiting.len() {
            let w = self.locks[key].waiting[i].clone();
            if (skip_high && HOGS.contains(&w.ty))
                || !self.can_grant(
                    key,
                    w.owner,
                    w.ty,
                    if skip_high {
                        Priority::Ignored
                    } else {
                        Priority::Honoured
                    },
                )
            {
                i += 1;
                continue;
            }
            let l = self.locks.get_mut(key).expect("present");
            l.waiting.remove(i);
            l.granted.push(w.clone());
            if HOGS.contains(&w.ty) {
                l.hog += 1;
            }
            out.push(w);
        }
        let l = self.locks.get_mut(key).expect("present");
        if l.waiting.iter().all(|r| HOGS.contains(&r.ty)) {
            l.hog = 0;
        }
        out
    }

    /// A waiting request was granted: finish what its owner waited for.
    pub(super) fn finish_grant(&mut self, key: &MdlKey, r: Request) {
        let s = r.owner;
        let Some(w) = self.sessions[s].wait.take() else {
            return;
        };
        let own = self.detecting == Some(s);
        match w.what {
            WaitFor::Acquire { dur } => self.add_ticket(s, r.id, key, r.ty, dur),
            WaitFor::Upgrade { old } => {
                let l = self.locks.get_mut(key).expect("present");
                l.granted.retain(|g| g.id != r.id);
                self.upgrade_ticket(s, key, old, r.ty);
            }
            WaitFor::Bulk {
                dur,
                rest,
                mut taken,
                wait,
            } => {
                self.add_ticket(s, r.id, key, r.ty, dur);
                taken.push(r.id);
                if own {
                    self.self_grant = Some(r.id);
                } else if !rest.is_empty() {
                    self.continues.push(Continue {
                        s,
                        rest,
                        taken,
                        dur,
                        wait,
                    });
                    return;
                }
            }
        }
        if own {
            self.self_grant.get_or_insert(r.id);
        } else {
            self.events.push((s, Outcome::Granted));
        }
    }
}
