//! A session's step in a design ([`Design::step`]): its own operation (a metadata-lock
//! request, a statement's end, a foreign subsystem's operation), then what it set off
//! (waits of others ended, the detector's victims, the foreign subsystems' waits kept up
//! to date) and the oracles' bookkeeping (false deadlocks, passed-over counts).

use super::*;

impl Design {
    /// Session `s` takes its step. Returns the new state and what happened.
    pub fn step(&self, st: &DesignState, s: usize) -> (DesignState, StepInfo) {
        let mut n = st.clone();
        let (op, label) = self.op(st, s).cloned().expect("enabled session has a step");
        let watch_wait_before = self.watched_waiting(st);
        let me = owner(s);
        let OpOut {
            target,
            mdl,
            mut text,
            mut deadlocked,
        } = self.run_op(&mut n, s, &op);
        if let Some(out) = mdl {
            if text.is_empty() {
                text = out.name().into();
            }
            match out {
                Outcome::Granted => {
                    if let Some((ws, key)) = &self.watch {
                        if *ws as usize != s && watch_wait_before && op_key(&op) == Some(key) {
                            n.starve = n.starve.saturating_add(1).min(self.starve_bound + 1);
                        }
                    }
                    if n.table.session(me).is_some_and(|x| x.resume.is_none()) {
                        self.advance(&mut n, s);
                    }
                }
                Outcome::Waiting => {
                    if self.backoff {
                        let names = self.back_off_blockers(&mut n, s);
                        if !names.is_empty() {
                            text = format!(
                                "waiting; {} told: table-lock wait aborted, gives back its metadata locks, retries",
                                names.join(", ")
                            );
                        }
                    }
                }
                _ => {
                    deadlocked.push(s);
                    self.abort(&mut n, s);
                }
            }
        }
        // The design variant: a search from each waiter of a lock whose matrix switched.
        let switch_graph = if self.search_on_switch {
            self.search_after_switch(st, &mut n, &mut deadlocked)
        } else {
            BTreeSet::new()
        };
        // Waits of other sessions ended by this step.
        let mut events = self.ended_waits(st, &mut n, watch_wait_before, &mut deadlocked);
        // Victims of the engine's own detector (`Design::one_pass`) show as events too.
        for v in &deadlocked {
            if *v != s && !events.iter().any(|(w, _)| w == v) {
                events.push((*v, Outcome::Deadlock));
            }
        }
        // The foreign subsystems keep their registered waits up to date.
        if self.visible {
            self.refresh_foreign(&mut n, &mut events, &mut deadlocked);
        }
        // Was every deadlock error given on a real cycle?
        if !deadlocked.is_empty() {
            let mut g = self.edges(st);
            for b in &self.hyp_blockers(st, s) {
                g.insert((s, b.0 as usize));
            }
            // A search after a switch of matrix sees the edges the switch made.
            g.extend(switch_graph.iter().copied());
            for v in &deadlocked {
                if !on_cycle(&g, *v) {
                    n.false_deadlock = true;
                }
            }
        }
        if !self.watched_waiting(&n) {
            n.starve = 0;
        }
        self.track_use(&mut n);
        let reorders = n
            .table
            .take_reorders()
            .into_iter()
            .map(|(_, a, b)| (a.0 as usize, b.0 as usize))
            .collect();
        (
            n,
            StepInfo {
                session: s,
                label,
                target,
                outcome: text,
                events,
                reorders,
            },
        )
    }

    /// The step's own part (`op` of session `s`): where it went, its MDL outcome if it
    /// made a request, its text, the sessions that got a deadlock error.
    pub(super) fn run_op(&self, n: &mut DesignState, s: usize, op: &Op) -> OpOut {
        let mut done = OpOut {
            target: "MDL",
            mdl: None,
            text: String::new(),
            deadlocked: Vec::new(),
        };
        match op {
            Op::Acq(..)
            | Op::Upg(..)
            | Op::Down(..)
            | Op::Release(..)
            | Op::ShowOpen(..)
            | Op::BulkRetry(..)
            | Op::Bulk(..) => self.request_op(n, s, op, &mut done),
            Op::PurgeLock
            | Op::EndStmt
            | Op::Commit
            | Op::Unlock
            | Op::Take(..)
            | Op::WaitFlush(..) => self.end_op(n, s, op, &mut done),
            _ => self.object_op(n, s, op, &mut done),
        }
        done
    }

    /// [`Design::run_op`] for the metadata-lock requests and releases.
    pub(super) fn request_op(&self, n: &mut DesignState, s: usize, op: &Op, done: &mut OpOut) {
        let me = owner(s);
        match op {
            Op::Acq(k, ty, dur) => {
                if self.suspicion && self.suspect(n, s, k) {
                    done.mdl = Some(Outcome::Deadlock);
                    done.text = "ER_LOCK_DEADLOCK (a DDL waits on the table)".into();
                } else if self.one_pass {
                    let out = n
                        .table
                        .acquire(me, k, *ty, *dur, WaitOption::NoWait)
                        .expect("well-formed program");
                    done.mdl =
                        self.one_pass_outcome(n, s, out, &mut done.text, &mut done.deadlocked);
                } else {
                    done.mdl = Some(
                        n.table
                            .acquire(me, k, *ty, *dur, WaitOption::Forever)
                            .expect("well-formed program"),
                    );
                }
            }
            Op::Upg(k, ty) => {
                if self.one_pass {
                    let out = n
                        .table
                        .upgrade(me, k, *ty, WaitOption::NoWait)
                        .expect("well-formed program");
                    done.mdl =
                        self.one_pass_outcome(n, s, out, &mut done.text, &mut done.deadlocked);
                } else {
                    done.mdl = Some(
                        n.table
                            .upgrade(me, k, *ty, WaitOption::Forever)
                            .expect("well-formed program"),
                    );
                }
            }
            Op::Down(k, ty) => {
                let _ = n.table.downgrade(me, k, *ty).expect("well-formed program");
                done.text = "ok (no wait)".into();
                self.advance(n, s);
            }
            Op::Release(k, ty) => {
                let _ = n
                    .table
                    .release(me, k, Some(*ty))
                    .expect("well-formed program");
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::ShowOpen(k) => {
                let holds = n
                    .table
                    .session(me)
                    .is_some_and(|x| !x.book.held().is_empty());
                if self.show_no_wait && holds {
                    let out = n
                        .table
                        .acquire(me, k, LockType::SH, Duration::Statement, WaitOption::NoWait)
                        .expect("well-formed program");
                    if out == Outcome::Busy {
                        done.text =
                            "conflict: table skipped with a warning (ER_WARN_I_S_SKIPPED_TABLE)"
                                .into();
                        self.advance(n, s);
                    } else {
                        done.mdl = Some(out);
                    }
                } else {
                    done.mdl = Some(
                        n.table
                            .acquire(
                                me,
                                k,
                                LockType::SH,
                                Duration::Statement,
                                WaitOption::Forever,
                            )
                            .expect("well-formed program"),
                    );
                }
            }
            Op::BulkRetry(..) => match self.try_foreign(n, s).expect("bulk retry") {
                Try::Done => {
                    n.foreign_wait[s] = false;
                    done.text = "granted (all at once)".into();
                    self.advance(n, s);
                }
                Try::Blocked(_) => {
                    n.foreign_wait[s] = true;
                    done.text =
                        "a lock is taken: gives back the others and waits holding none".into();
                }
            },
            Op::Bulk(v, dur) => {
                let out = if n.table.session(me).is_some_and(|x| x.resume.is_some()) {
                    n.table.resume_bulk(me)
                } else {
                    let reqs = bulk_reqs(v);
                    n.table.acquire_all(me, &reqs, *dur, WaitOption::Forever)
                };
                done.mdl = Some(out.expect("well-formed program"));
            }
            // The other operations are `other_op`'s.
            _ => {}
        }
    }

    /// [`Design::run_op`] for the statement and transaction ends and the table-level locks.
    pub(super) fn end_op(&self, n: &mut DesignState, s: usize, op: &Op, done: &mut OpOut) {
        let me = owner(s);
        match op {
            Op::PurgeLock => {
                let name = n.purge_name.expect("resolved") as usize;
                if self.purge == PurgeRule::PrefixSkip && self.names[name].starts_with("#sql-") {
                    done.text = "no MDL (an internal #sql- name)".into();
                    self.advance(n, s);
                } else {
                    let k = self.purge_key(n).expect("resolved");
                    done.mdl = Some(
                        n.table
                            .acquire(
                                me,
                                &k,
                                LockType::SR,
                                Duration::Statement,
                                WaitOption::Forever,
                            )
                            .expect("well-formed program"),
                    );
                }
            }
            Op::EndStmt => {
                let _ = n.table.end_statement(me);
                self.release_foreign(n, s, &[Duration::Statement]);
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::Commit => {
                let _ = n.table.commit(me);
                self.release_foreign(n, s, &[Duration::Statement, Duration::Transaction]);
                n.used[s] = 0;
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::Unlock => {
                let _ = n.table.release_explicit(me);
                self.release_foreign(n, s, &[Duration::Explicit]);
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::Take(r, _, _) | Op::WaitFlush(r) => {
                done.target = self.res[*r as usize].subsystem;
                match self.try_foreign(n, s).expect("foreign step") {
                    Try::Done => {
                        if n.foreign_wait[s] {
                            n.foreign_wait[s] = false;
                            if self.visible {
                                n.table.foreign_granted(me);
                            }
                        }
                        done.text = "granted".into();
                        self.advance(n, s);
                    }
                    Try::Blocked(b) => {
                        n.foreign_wait[s] = true;
                        done.text = "waiting".into();
                        if self.backoff && self.mdl_waits_for(n, s) && self.back_off(n, s) {
                            done.text = "wait aborted by the waiting DDL: gives back its metadata locks, retries".into();
                        } else if self.visible {
                            let out = n
                                .table
                                .foreign_wait(me, b, self.fweight)
                                .expect("live session");
                            if out == Outcome::Deadlock {
                                done.text = "deadlock".into();
                                done.deadlocked.push(s);
                                self.abort(n, s);
                            }
                        } else {
                            done.text = "waiting (invisible to the MDL detector)".into();
                        }
                    }
                }
            }
            // The other operations are the other parts'.
            _ => {}
        }
    }

    /// [`Design::run_op`] for the table definition cache, the purge thread and the table objects.
    pub(super) fn object_op(&self, n: &mut DesignState, s: usize, op: &Op, done: &mut OpOut) {
        let me = owner(s);
        match op {
            Op::PurgeWait => {
                done.target = "InnoDB";
                let _ = self.try_foreign(n, s);
                n.foreign_wait[s] = false;
                done.text = "undo to purge".into();
                self.advance(n, s);
            }
            Op::MarkOld(r) => {
                done.target = self.res[*r as usize].subsystem;
                let s8 = s as u8;
                let mut old: Vec<u8> = n.res[*r as usize]
                    .holders
                    .iter()
                    .map(|h| h.s)
                    .filter(|x| *x != s8)
                    .collect();
                old.sort();
                old.dedup();
                n.res[*r as usize].old = old;
                done.text = "share marked old".into();
                self.advance(n, s);
            }
            Op::WriteMeta(r) => {
                done.target = self.res[*r as usize].subsystem;
                let s8 = s as u8;
                let users: Vec<&'static str> = n.res[*r as usize]
                    .holders
                    .iter()
                    .filter(|h| h.s != s8)
                    .map(|h| self.progs[h.s as usize].name)
                    .collect();
                if users.is_empty() {
                    done.text = "ok".into();
                } else {
                    n.stale_meta = true;
                    done.text = format!("rewritten while {} uses it", users.join(", "));
                }
                self.advance(n, s);
            }
            Op::Free(r) => {
                done.target = self.res[*r as usize].subsystem;
                let s8 = s as u8;
                n.res[*r as usize].holders.retain(|h| h.s != s8);
                done.text = "released".into();
                self.advance(n, s);
            }
            Op::Note => {
                done.target = "";
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::Create(ob, name) => {
                done.target = "InnoDB";
                let x = &mut n.objs[*ob as usize];
                x.exists = true;
                x.name = *name;
                done.text = "ok".into();
                self.advance(n, s);
            }
            Op::Publish(ob) => {
                done.target = "InnoDB";
                n.objs[*ob as usize].undo = true;
                done.text = "undo committed".into();
                self.advance(n, s);
            }
            Op::Rename(from, to) => {
                done.target = "InnoDB";
                done.text = "ok".into();
                if let Some(x) = n.objs.iter_mut().find(|x| x.exists && x.name == *from) {
                    if x.n_ref != 0 {
                        n.bad.get_or_insert("n_ref_count == 0");
                        done.text = format!(
                            "assertion `n_ref_count == 0` fails (n_ref_count = {})",
                            x.n_ref
                        );
                    }
                    x.name = *to;
                }
                self.advance(n, s);
            }
            Op::PurgeResolve => {
                done.target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.purge_name = Some(n.objs[ob].name);
                done.text = format!("name is `{}`", self.names[n.objs[ob].name as usize]);
                self.advance(n, s);
            }
            Op::PurgeRecheck => {
                done.target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                let now = n.objs[ob].name;
                if self.purge == PurgeRule::Exact && Some(now) != n.purge_name {
                    if let Some(k) = self.purge_key(n) {
                        let _ = n.table.release(me, &k, None);
                    }
                    done.text =
                        format!("renamed to `{}`: release, retry", self.names[now as usize]);
                    n.pc[s] -= 2;
                } else {
                    done.text = "ok".into();
                    self.advance(n, s);
                }
            }
            Op::Pin => {
                done.target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.objs[ob].n_ref += 1;
                done.text = "n_ref_count = 1".into();
                self.advance(n, s);
            }
            Op::Unpin => {
                done.target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.objs[ob].n_ref -= 1;
                n.objs[ob].undo = false;
                done.text = "purged, n_ref_count = 0".into();
                self.advance(n, s);
            }
            // The other operations are the other parts'.
            _ => {}
        }
    }

    /// The waits of other sessions that a step (from `st`) ended, as events: grants
    /// advance their sessions (and count as passing the watched one over), errors abort
    /// them (noted in `deadlocked`).
    pub(super) fn ended_waits(
        &self,
        st: &DesignState,
        n: &mut DesignState,
        watch_wait_before: bool,
        deadlocked: &mut Vec<usize>,
    ) -> Vec<(usize, Outcome)> {
        let mut events = Vec::new();
        loop {
            let ev = n.table.take_events();
            if ev.is_empty() {
                break;
            }
            for (w, out) in ev {
                let w = w.0 as usize;
                events.push((w, out));
                match out {
                    Outcome::Granted => {
                        if Some(w as u8) == self.watch.as_ref().map(|x| x.0) {
                            n.watched_granted = true;
                            n.passed_then_granted |= n.starve > 0;
                        } else if let Some((_, key)) = &self.watch {
                            // A grant to another waiter on the watched key passes the
                            // watched session over.
                            let on_key = st
                                .table
                                .session(owner(w))
                                .and_then(|x| x.wait.as_ref())
                                .is_some_and(|x| x.key == *key);
                            if watch_wait_before && self.watched_waiting(n) && on_key {
                                n.starve = n.starve.saturating_add(1).min(self.starve_bound + 1);
                            }
                        }
                        if n.table
                            .session(owner(w))
                            .is_some_and(|x| x.resume.is_none())
                        {
                            self.advance(n, w);
                        }
                    }
                    _ => {
                        deadlocked.push(w);
                        self.abort(n, w);
                    }
                }
            }
        }
        events
    }

    /// [`Design::search_on_switch`]: after a step, for each lock whose pending matrix
    /// index changed, a deadlock search from each session waiting on it (queue order).
    /// Returns the wait-for graph as the searches found it (for the false-deadlock
    /// oracle); victims are aborted here or come as events.
    pub(super) fn search_after_switch(
        &self,
        st: &DesignState,
        n: &mut DesignState,
        deadlocked: &mut Vec<usize>,
    ) -> BTreeSet<(usize, usize)> {
        let switched: Vec<MdlKey> = n
            .table
            .locks()
            .filter(|(k, l)| {
                st.table.lock(k).map(|b| b.pending_index()).unwrap_or(0) != l.pending_index()
            })
            .map(|(k, _)| k.clone())
            .collect();
        let graph = self.edges(n);
        for k in switched {
            let waiters: Vec<OwnerId> = n
                .table
                .lock(&k)
                .map(|l| l.waiting().iter().map(|t| t.owner).collect())
                .unwrap_or_default();
            for w in waiters {
                let wi = w.0 as usize;
                if n.table.search_from(w) == Outcome::Deadlock {
                    deadlocked.push(wi);
                    self.abort(n, wi);
                }
            }
        }
        graph
    }

    /// The one-pass detector's handling of an MDL request tried without waiting: granted,
    /// or an engine wait with one search from `s` (see [`Design::one_pass`]). Returns the
    /// step's MDL outcome for the caller (None when it waits).
    pub(super) fn one_pass_outcome(
        &self,
        n: &mut DesignState,
        s: usize,
        out: Outcome,
        text: &mut String,
        deadlocked: &mut Vec<usize>,
    ) -> Option<Outcome> {
        if out != Outcome::Busy {
            n.foreign_wait[s] = false;
            return Some(out);
        }
        let first = !n.foreign_wait[s];
        n.foreign_wait[s] = true;
        *text = "waiting".into();
        if !first {
            return None;
        }
        // One search from the new waiter, over every wait (the old detector saw all MDL
        // waits); the victim's wait ends with an error; no second search.
        let g = EdgeGraph::new(self, n);
        if let Some(dl) = deadlock::detect(&g, s) {
            let v = dl.victim;
            deadlocked.push(v);
            self.abort(n, v);
            if v == s {
                *text = "deadlock".into();
            } else {
                *text = format!(
                    "waiting; one deadlock search: victim {} (none after it)",
                    self.progs[v].name
                );
            }
        }
        None
    }

    /// [`Design::backoff`]: the sessions `s` now waits for that wait in THR_LOCK give
    /// back every metadata lock and start their statement over. Returns their names.
    pub(super) fn back_off_blockers(&self, n: &mut DesignState, s: usize) -> Vec<&'static str> {
        let blockers: Vec<usize> = n
            .table
            .wait_edges()
            .iter()
            .filter(|(a, _)| a.0 as usize == s)
            .map(|(_, b)| b.0 as usize)
            .collect();
        let mut names = Vec::new();
        for b in blockers {
            if self.back_off(n, b) {
                names.push(self.progs[b].name);
            }
        }
        names
    }

    /// [`Design::backoff`]: session `b`, if it waits in THR_LOCK, has its wait aborted (the
    /// upgrader's `notify_shared_lock`), gives back every metadata lock (its transaction's
    /// too: that is the bug) and its statement's table locks, and starts the statement
    /// over. Returns whether it did.
    pub(super) fn back_off(&self, n: &mut DesignState, b: usize) -> bool {
        let in_thr = matches!(self.op(n, b), Some((Op::Take(r, _, _), _))
            if self.res[*r as usize].kind.is_thr_lock());
        if !(n.foreign_wait[b] && in_thr) {
            return false;
        }
        let _ = n.table.commit(owner(b));
        self.release_foreign(n, b, &[Duration::Statement]);
        n.foreign_wait[b] = false;
        if let Some(pc) = self.progs[b].backoff_pc {
            n.pc[b] = pc;
        }
        true
    }

    /// Does some session wait in MDL for `b` (an upgrader that notifies it)?
    pub(super) fn mdl_waits_for(&self, n: &DesignState, b: usize) -> bool {
        n.table.wait_edges().iter().any(|(a, x)| {
            x.0 as usize == b && n.table.session(*a).is_some_and(|y| y.wait.is_some())
        })
    }

    /// Marks the tracked tables each session holds a lock on as used by its transaction.
    pub(super) fn track_use(&self, n: &mut DesignState) {
        for (i, k) in self.tracked.iter().enumerate() {
            if let Some(l) = n.table.lock(k) {
                for t in l.granted() {
                    let s = t.owner.0 as usize;
                    if !n.done[s] {
                        n.used[s] |= 1 << i;
                    }
                }
            }
        }
    }

    pub(super) fn refresh_foreign(
        &self,
        n: &mut DesignState,
        events: &mut Vec<(usize, Outcome)>,
        dl: &mut Vec<usize>,
    ) {
        for w in 0..self.progs.len() {
            if !n.foreign_wait[w] {
                continue;
            }
            let b = self.foreign_blockers(n, w);
            let cur = n.table.session(owner(w)).and_then(|x| x.foreign.clone());
            let same = cur.as_ref().is_some_and(|(h, _)| *h == b);
            if b.is_empty() || same {
                continue;
            }
            n.table.foreign_granted(owner(w));
            if n.table.foreign_wait(owner(w), b, self.fweight) == Ok(Outcome::Deadlock) {
                events.push((w, Outcome::Deadlock));
                dl.push(w);
                self.abort(n, w);
            }
            for (v, out) in n.table.take_events() {
                let v = v.0 as usize;
                events.push((v, out));
                if out == Outcome::Granted {
                    if n.table
                        .session(owner(v))
                        .is_some_and(|x| x.resume.is_none())
                    {
                        self.advance(n, v);
                    }
                } else {
                    dl.push(v);
                    self.abort(n, v);
                }
            }
        }
    }
}
