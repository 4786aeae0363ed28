//! The foreign subsystems' side of a step: a step in a table-level lock manager, a storage
//! engine's row locks, a definition cache or the purge thread, which either completes or
//! is blocked by other sessions, and the release of a session's foreign holds.

use super::*;

impl Design {
    /// Tries a foreign step of `s` (None: the step is not a foreign one).
    pub(super) fn try_foreign(&self, st: &mut DesignState, s: usize) -> Option<Try> {
        let (op, _) = self.op(st, s)?;
        let s8 = s as u8;
        Some(match op {
            Op::Take(r, mode, dur) => {
                let kind = self.res[*r as usize].kind;
                let res = &st.res[*r as usize];
                let mut b: Vec<OwnerId> = res
                    .holders
                    .iter()
                    .filter(|h| h.s != s8 && !kind.compatible(h.mode, *mode))
                    .map(|h| owner(h.s as usize))
                    .collect();
                b.extend(
                    res.old
                        .iter()
                        .filter(|x| **x != s8)
                        .map(|x| owner(*x as usize)),
                );
                // thr_lock(): a read request with no write lock held by another thread
                // yields to a pending TL_WRITE.
                let write_held = res
                    .holders
                    .iter()
                    .any(|h| h.s != s8 && !matches!(h.mode, READ | READ_NO_INSERT));
                if kind.is_thr_lock() && matches!(*mode, READ | READ_NO_INSERT) && !write_held {
                    for x in 0..self.progs.len() {
                        if x != s
                            && st.foreign_wait[x]
                            && matches!(self.op(st, x), Some((Op::Take(rr, WRITE, _), _)) if rr == r)
                        {
                            b.push(owner(x));
                        }
                    }
                }
                b.sort();
                b.dedup();
                if b.is_empty() {
                    st.res[*r as usize].holders.push(ResourceHold {
                        s: s8,
                        mode: *mode,
                        dur: *dur,
                    });
                    Try::Done
                } else {
                    Try::Blocked(b)
                }
            }
            Op::WaitFlush(r) => {
                let res = &st.res[*r as usize];
                let b: Vec<OwnerId> = res
                    .old
                    .iter()
                    .filter(|x| **x != s8)
                    .map(|x| owner(*x as usize))
                    .collect();
                if b.is_empty() {
                    Try::Done
                } else {
                    Try::Blocked(b)
                }
            }
            Op::PurgeWait => match st.objs.iter().position(|x| x.undo && x.exists) {
                Some(i) => {
                    st.purge_obj = Some(i as u8);
                    Try::Done
                }
                None => Try::Blocked(Vec::new()),
            },
            Op::BulkRetry(v, dur) => {
                let reqs = bulk_reqs(v);
                let before = st.clone();
                match st
                    .table
                    .acquire_all(owner(s), &reqs, *dur, WaitOption::NoWait)
                {
                    Ok(Outcome::Granted) => Try::Done,
                    _ => {
                        *st = before;
                        Try::Blocked(self.mdl_blockers(st, s, v))
                    }
                }
            }
            // The old one-pass detector's waits are the engine's (see `Design::one_pass`).
            Op::Acq(k, ty, dur) if self.one_pass => {
                match st.table.acquire(owner(s), k, *ty, *dur, WaitOption::NoWait) {
                    Ok(Outcome::Granted) => Try::Done,
                    _ => Try::Blocked(self.mdl_blockers(st, s, &[(k.clone(), *ty)])),
                }
            }
            Op::Upg(k, ty) if self.one_pass => {
                match st.table.upgrade(owner(s), k, *ty, WaitOption::NoWait) {
                    Ok(Outcome::Granted) => Try::Done,
                    _ => Try::Blocked(self.mdl_blockers(st, s, &[(k.clone(), *ty)])),
                }
            }
            _ => return None,
        })
    }

    pub(super) fn release_foreign(&self, st: &mut DesignState, s: usize, durs: &[Duration]) {
        let s8 = s as u8;
        for r in st.res.iter_mut() {
            let before: Vec<bool> = r.holders.iter().map(|h| h.s == s8).collect();
            r.holders.retain(|h| h.s != s8 || !durs.contains(&h.dur));
            let still = r.holders.iter().any(|h| h.s == s8);
            if before.iter().any(|x| *x) && !still {
                r.old.retain(|x| *x != s8);
            }
        }
    }
}
