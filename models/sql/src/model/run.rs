//! Playing a statement's steps on the lock table: requests, waits and their outcomes.

use super::{Run, SqlModel, Then, Waiting};
use crate::classify::Effect;
use crate::compose::{Ctx, Step};
use crate::kind::Kind;
use mdl_core::key::MdlKey;
use mdl_core::{LockType, MdlError, Outcome, WaitOption};

/// What a statement's run is beside its steps: whether it commits the transaction first
/// (`implicit_commit`: the statement's CF_AUTO_COMMIT_TRANS) and whether it writes a
/// transactional table (`writes`: its commit then needs BACKUP_COMMIT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RunShape {
    pub(super) implicit_commit: bool,
    pub(super) writes: bool,
}

impl RunShape {
    /// Neither: a session statement's own run (HANDLER reopen, COMMIT, XA, ...).
    pub(super) const PLAIN: RunShape = RunShape {
        implicit_commit: false,
        writes: false,
    };
}

impl SqlModel {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_run(
        &mut self,
        s: usize,
        steps: Vec<Step>,
        own: Vec<Step>,
        shape: RunShape,
        timeout: Option<u64>,
        then: Then,
    ) -> Outcome {
        let RunShape {
            implicit_commit,
            writes,
        } = shape;
        // EXECUTE IMMEDIATE's prepare phase first (`model::prepare_open`).
        let pre = std::mem::take(&mut self.sessions[s].session.prepare_prefix);
        let steps: Vec<Step> = pre.into_iter().chain(steps).collect();
        let timeout = timeout.or_else(|| {
            if matches!(then, Then::Plan(ref p) if p.kind == Kind::GetLock) {
                None
            } else {
                self.sessions[s]
                    .session
                    .lock_wait_timeout
                    .map(|x| x.saturating_mul(1000))
            }
        });
        // (A HANDLER the statement's own flush closed counts: open_tables makes its
        // Open_table_context, whose m_has_locks is MDL_context::has_locks(), before it
        // calls mysql_ha_flush, sql/sql_base.cc; measured: INSERT ... SELECT is the
        // deadlock victim after its flush let a LOCK TABLES in, and fails with
        // ER_LOCK_DEADLOCK rather than backing off, in the usual order of a race on the
        // server, known-differences/woken-race-130216.mdl.)
        let had_locks = self
            .table
            .session(self.sessions[s].id)
            .is_some_and(|x| !x.book.is_empty())
            || self.flushed_by == Some(s);
        // (A recursive CTE's 4008 comes from JOIN::prepare, after open_tables.)
        let keep_on_error = matches!(&then, Then::Plan(p) if p.kind == Kind::Update
            || p.effect == Effect::Fail(crate::errors::ER_NOT_STANDARD_COMPLIANT_RECURSIVE)
            || (matches!(p.effect, Effect::NotPartitioned(_))
                && matches!(p.kind, Kind::LoadIndex | Kind::CacheIndex)))
            || self.temp_like_keeps_on_error(s)
            || matches!(&then, Then::Plan(p) if self.trigger_used_table(p).is_some())
            // A misplaced DEFAULT / IGNORE parameter fails once open_and_lock_tables is
            // through (model/dynamic_sql.rs): the transaction keeps what was taken
            // (measured: suite/ps-default-param-after-locks.mdl).
            || matches!(&then, Then::Plan(p)
                if p.effect == Effect::Fail(super::dynamic_sql::ER_INVALID_DEFAULT_PARAM))
            // A missing stored function fails in fix_fields, after open_tables prelocked
            // its S (classify/missing_function.rs; suite/missing-stored-function.mdl).
            || matches!(&then, Then::Plan(p)
                if p.kind == Kind::SelectFunction && matches!(p.effect, Effect::Fail(_)))
            // INTO OUTFILE's existing file is found by create_file in JOIN::prepare, after
            // open_and_lock_tables (classify/into_outfile.rs; suite/into-outfile.mdl).
            || matches!(&then, Then::Plan(p) if matches!(p.effect, Effect::WriteFile { .. })
                && self.catalog.error_of(&p.effect) == Some(crate::errors::ER_FILE_EXISTS));
        self.sessions[s].run = Some(Run {
            steps: steps.into(),
            own,
            new: Vec::new(),
            group_start: 0,
            waiting: None,
            had_locks,
            timeout,
            implicit_commit,
            writes,
            keep_on_error,
            then,
            retries: 0,
            last_open: None,
            stood_aside: false,
        });
        self.run(s)
    }

    pub(super) fn wait_option(&self, timeout: Option<u64>) -> WaitOption {
        match timeout {
            None => WaitOption::Forever,
            Some(ms) => WaitOption::millis(ms),
        }
    }

    pub(super) fn ids(&self, s: usize) -> Vec<mdl_core::lock::TicketId> {
        self.table
            .session(self.sessions[s].id)
            .map(|x| x.book.held().iter().map(|h| h.id).collect())
            .unwrap_or_default()
    }

    pub(super) fn note_new(&mut self, s: usize, before: &[mdl_core::lock::TicketId], key: &MdlKey) {
        let now = self.ids(s);
        let run = self.sessions[s].run.as_mut().expect("running");
        for i in now {
            if !before.contains(&i) && !run.new.iter().any(|(x, _)| *x == i) {
                run.new.push((i, key.clone()));
            }
        }
    }

    /// Runs session `s`'s remaining steps; the statement's outcome so far.
    pub(super) fn run(&mut self, s: usize) -> Outcome {
        loop {
            self.lt_read_engines(s);
            let Some(step) = self.sessions[s]
                .run
                .as_mut()
                .and_then(|r| r.steps.pop_front())
            else {
                return self.finish(s, Outcome::Ok);
            };
            if step == Step::Commit {
                self.implicit_commit_step(s);
                continue;
            }
            if let Some(o) = self.opens_first_missing(s, &step) {
                return o;
            }
            if self.copy_phase(s, &step) && self.stash.is_empty() {
                // The sessions its own implicit commit let in (it is the session whose step
                // is played) are of the same batch: the new table is created before they
                // are done (measured: found/seed-51313, a TRUNCATE of another table let in
                // by the ALTER's commit ends, keeping the HANDLER the ALTER's X waits for,
                // before that X is asked for).
                let ev = self.table_events();
                self.stash.extend(ev);
            }
            if self.copy_phase(s, &step) && !self.stash.is_empty() {
                // A copying ALTER creates the new table (files) before it moves its lock up
                // to SNW (mysql_alter_table, sql/sql_table.cc), which takes real time: the
                // other sessions the same release let in make their requests first
                // (measured: found/seed-61590, a RENAME let in with it asks for X on the
                // table, and the ALTER's move to SNW, behind that pending X, is a deadlock).
                let run = self.sessions[s].run.as_mut().expect("running");
                run.stood_aside = true;
                run.steps.push_front(step);
                self.yielded.push_back(s);
                return Outcome::Waiting;
            }
            let timeout = self.sessions[s].run.as_ref().and_then(|r| r.timeout);
            let wait = self.wait_option(timeout);
            let before = self.ids(s);
            let r = match self.request(s, &step, timeout, wait) {
                Next::Request(r) => r,
                Next::Continue => continue,
                Next::Stop(o) => return o,
            };
            if matches!(
                step,
                Step::Acquire { .. } | Step::Upgrade { .. } | Step::Backoff { .. }
            ) {
                self.retry_victims_now(s);
            }
            if let Some(o) = self.after_request(s, step, &before, r) {
                return o;
            }
        }
    }

    /// The implicit commit before the statement's own steps.
    fn implicit_commit_step(&mut self, s: usize) {
        let id = self.sessions[s].id;
        // The implicit commit before the statement's own steps. (Whether a session
        // its releases let in runs on before this one opens its tables is a race
        // on the server: known-differences/woken-session-race.mdl.)
        let _ = self.table.commit(id);
        self.sessions[s].session.in_txn = false;
        self.sessions[s].session.wrote = false;
        let has = self.table.session(id).is_some_and(|x| !x.book.is_empty())
            || self.flushed_by == Some(s);
        if let Some(r) = self.sessions[s].run.as_mut() {
            r.had_locks = has;
            r.new.clear();
        }
    }

    /// A LOCK TABLES or ALTER TABLE that opens its tables before any move up, of a table
    /// that does not exist: ER_NO_SUCH_TABLE before any wait.
    fn opens_first_missing(&mut self, s: usize, step: &Step) -> Option<Outcome> {
        if let (Step::Upgrade { .. }, Some(Then::Plan(p))) =
            (step, self.sessions[s].run.as_ref().map(|r| &r.then))
        {
            // LOCK TABLES opens every table (open_tables) before lock_tables moves
            // the READ ones to SRO: a missing table is found first (measured:
            // found/seed-11028, ER_NO_SUCH_TABLE rather than a wait for SRO). So
            // does ALTER TABLE (and CREATE INDEX, an ALTER): mysql_alter_table opens
            // the table with its SU before any move up (sql/sql_table.cc; measured:
            // found/seed-250006, no wait for SNW behind a failed UPDATE's SW).
            let opens_first =
                p.kind.is_lock_tables() || p.kind.is_alter() || (p.kind == Kind::CreateIndex);
            if opens_first
                && self.catalog.error_of(&p.effect) == Some(crate::catalog::ER_NO_SUCH_TABLE)
            {
                self.sessions[s].session.last_error = Some(crate::catalog::ER_NO_SUCH_TABLE);
                return Some(self.finish(s, Outcome::Error));
            }
        }
        None
    }

    /// The request of one step on the lock table (or what the step does instead).
    fn request(&mut self, s: usize, step: &Step, timeout: Option<u64>, wait: WaitOption) -> Next {
        let d = self.dialect.clone();
        let id = self.sessions[s].id;
        let r = match step {
            Step::Bulk(group) => {
                let run = self.sessions[s].run.as_mut().expect("running");
                run.group_start = run.new.len();
                for (k, t, du) in group.iter().rev() {
                    run.steps.push_front(Step::Acquire {
                        key: k.clone(),
                        ty: *t,
                        dur: *du,
                        ctx: Ctx::Plain,
                    });
                }
                return Next::Continue;
            }
            Step::Acquire { key, ty, dur, .. } => {
                // (No DML weight is forced: MariaDB's MDL_context::get_deadlock_weight
                // is the waiting ticket's weight plus m_deadlock_overweight, sql/mdl.h;
                // MySQL's set_force_dml_deadlock_weight does not exist there. A wait
                // for the BACKUP lock weighs DDL, MDL_ticket::get_deadlock_weight in
                // sql/mdl.cc; measured: found/seed-1794.)
                let ty = self.protection_type(s, key, *ty);
                self.table.acquire(id, key, ty, *dur, wait)
            }
            Step::Backoff { key, ty, dur, .. } if cfg!(mdl_bug = "conform_skip_backoff") => {
                self.table.acquire(id, key, *ty, *dur, wait)
            }
            Step::Backoff { .. } => return self.backoff(s, step, timeout, wait),
            Step::Upgrade { .. } if cfg!(mdl_bug = "conform_ignore_upgrades") => Ok(Outcome::Ok),
            Step::Upgrade { key, ty, dur, from }
                if from.is_some_and(|f| {
                    self.holds_type_not_handler(s, key, f)
                        && self
                            .table
                            .session(id)
                            .and_then(|x| x.book.strongest(&d, key))
                            .is_some_and(|h| h.ty != f)
                }) =>
            {
                // The server upgrades the ticket this statement took (`from`), not
                // the session's strongest one on the key: a ticket of the new type,
                // then the old one given back.
                let f = from.expect("checked");
                self.take_then_give_back(s, key, *ty, *dur, f);
                return Next::Continue;
            }
            Step::Upgrade { key, ty, dur, .. } => {
                // SW upgraded to SRO (LOCK TABLES t1 WRITE CONCURRENT, t1 AS t2 READ)
                // becomes SNRW, the type that has both (MDEV-12882, mdl.test).
                let sw = LockType::parse("SW").expect("SW");
                let sro = LockType::parse("SRO").expect("SRO");
                let ty = &if *ty == sro
                    && self
                        .table
                        .session(id)
                        .and_then(|x| x.book.strongest(&d, key))
                        .is_some_and(|h| h.ty == sw)
                {
                    LockType::parse("SNRW").expect("SNRW")
                } else {
                    *ty
                };
                match self.table.upgrade(id, key, *ty, wait) {
                    Ok(Outcome::Granted)
                        if !self.holds_type(s, key, *ty)
                            && (*ty != LockType::SRO
                                || self.dialect.strategy(key.namespace()).upgrade_always) =>
                    {
                        // Our upgrade is a no-op when the held type covers the new one;
                        // the server changes the ticket's type (DDL -> ALTER_COPY,
                        // BLOCK_DDL -> START; an ALTER's X down to SU): that is our
                        // downgrade. Not LOCK TABLES READ's move to SRO: outside the
                        // BACKUP namespace MDL_context::upgrade_shared_lock (sql/mdl.cc)
                        // does nothing when the ticket already has a stronger type, so
                        // LOCK TABLES t1 WRITE, t1 AS x READ keeps SNRW (measured:
                        // models/conformance/lock-tables-same-table-twice.mdl).
                        let _ = self.table.downgrade(id, key, *ty);
                        Ok(Outcome::Granted)
                    }
                    Err(MdlError::NotHeld) => self.table.acquire(id, key, *ty, *dur, wait),
                    Err(MdlError::UpgradeToWeaker { held, .. }) => {
                        // The server's upgrade takes any type; ours only a stronger one:
                        // take the new type, then give the old one back.
                        self.take_then_give_back(s, key, *ty, *dur, held);
                        return Next::Continue;
                    }
                    r => r,
                }
            }
            Step::Commit => return Next::Continue,
            Step::Fail(code) => {
                self.sessions[s].session.last_error = Some(*code);
                return Next::Stop(self.finish(s, Outcome::Error));
            }
            Step::Release { key, ty } => {
                // The learned type is the one the learner's setup held; a session
                // that got there another way gives back whatever it holds on the key.
                if self.table.release(id, key, Some(*ty)).is_err() {
                    let _ = self.table.release(id, key, None);
                }
                Ok(Outcome::Ok)
            }
        };
        Next::Request(r)
    }

    /// A back-off request of `lock_table_names`: tried without waiting; when busy, the
    /// group is given back, the lock waited for alone and given back, the group taken
    /// again.
    fn backoff(&mut self, s: usize, step: &Step, timeout: Option<u64>, wait: WaitOption) -> Next {
        let id = self.sessions[s].id;
        let Step::Backoff {
            key,
            ty,
            dur,
            group,
            between,
        } = step
        else {
            unreachable!("a back-off step");
        };
        let r = match self.table.acquire(id, key, *ty, *dur, WaitOption::NoWait) {
            Ok(Outcome::Busy) if timeout != Some(0) => {
                // lock_table_names: give back the group, wait for this lock
                // alone, give it back, take the group again.
                let start = self.sessions[s]
                    .run
                    .as_ref()
                    .map(|r| r.group_start)
                    .unwrap_or(0);
                self.give_back(s, start);
                self.sessions[s].run.as_mut().expect("running").group_start = start;
                let w = self.table.acquire(id, key, *ty, *dur, wait);
                let run = self.sessions[s].run.as_mut().expect("running");
                run.steps.push_front(step.clone());
                for b in between.iter().rev() {
                    run.steps.push_front(b.clone());
                }
                run.steps.push_front(Step::Bulk(group.clone()));
                match w {
                    Ok(Outcome::Granted) => {
                        let _ = self.table.release(id, key, Some(*ty));
                        return Next::Continue;
                    }
                    Ok(Outcome::Waiting) => {
                        self.set_waiting(s, step.clone(), true);
                        return Next::Stop(Outcome::Waiting);
                    }
                    Ok(Outcome::Deadlock) => {
                        let o = self.deadlocked(s, Ctx::Plain);
                        match o {
                            Some(o) => return Next::Stop(o),
                            None => return Next::Continue,
                        }
                    }
                    Ok(o) => return Next::Stop(self.finish(s, o)),
                    Err(_) => return Next::Stop(self.finish(s, Outcome::Error)),
                }
            }
            Ok(Outcome::Busy) => Ok(Outcome::Timeout),
            r => r,
        };
        Next::Request(r)
    }

    /// What follows a request's answer: `None` goes on with the next step.
    fn after_request(
        &mut self,
        s: usize,
        step: Step,
        before: &[mdl_core::lock::TicketId],
        r: Result<Outcome, MdlError>,
    ) -> Option<Outcome> {
        match r {
            Ok(Outcome::Granted) | Ok(Outcome::Ok) => {
                if let Some(k) = step.key() {
                    let k = k.clone();
                    self.note_new(s, before, &k);
                }
                self.set_last_open(s, &step);
                if let Some(o) = self.opened_missing(s, &step) {
                    return Some(o);
                }
                self.trigger_rebind(s, &step);
                self.trigger_parts_rebind(s, &step);
                self.trigger_flush(s, &step);
                if matches!(step, Step::Backoff { .. }) {
                    if let Some(o) = self.group_missing(s) {
                        return Some(o);
                    }
                    self.lt_write_engines(s);
                }
                if self.rebuild_step(s, &step) {
                    // An in-place ALTER goes down to SU while the engine rebuilds the
                    // table (mysql_inplace_alter_table, sql/sql_table.cc), which takes
                    // real time: the sessions that lets in go on first, before it asks
                    // for X again (measured: found/seed-50056, LOCK TABLES t1 READ gets
                    // SRO meanwhile, and the ALTER waits behind it, no deadlock); so do
                    // the others of the batch it was let in with (found/seed-121011: a
                    // SELECT let in with it ends, and the LOCK TABLES waiting for it gets
                    // SRO on the ALTER's table before the ALTER's last X).
                    let ev = self.table_events();
                    if !ev.is_empty() || !self.stash.is_empty() {
                        self.stash.extend(ev);
                        self.yielded.push_back(s);
                        return Some(Outcome::Waiting);
                    }
                }
            }
            Ok(Outcome::Waiting) => {
                self.set_waiting(s, step, false);
                return Some(Outcome::Waiting);
            }
            Ok(Outcome::Deadlock) => {
                let ctx = self.ctx_of(s, &step);
                // Put the step back: a retry takes it again.
                self.sessions[s]
                    .run
                    .as_mut()
                    .expect("running")
                    .steps
                    .push_front(step);
                let backs_off = ctx == Ctx::OpenTable
                    && self.sessions[s].run.as_ref().is_some_and(|r| !r.had_locks);
                match self.deadlocked(s, ctx) {
                    Some(o) => return Some(o),
                    None if backs_off => {
                        // A victim that backs off opens its tables again only after
                        // the sessions its release let in have gone on: it gives back
                        // (`close_tables_for_reopen`) and then starts `open_tables`
                        // over, while they run on at once. Measured (16 of 19 runs;
                        // a race on the server): known-differences/woken-race-201610,
                        // LOCK TABLES t2 WRITE, t1 READ, the victim, gives back its
                        // SNRW on t2; the other LOCK TABLES, let in, moves its t2 to
                        // SRO before the victim asks for SNRW on t2 again, which then
                        // waits (ours asked first and was a victim again).
                        let ev = self.table_events();
                        if ev.is_empty() && self.stash.is_empty() {
                            return None;
                        }
                        self.stash.extend(ev);
                        self.yielded.push_back(s);
                        return Some(Outcome::Waiting);
                    }
                    None => return None,
                }
            }
            Ok(o) => return Some(self.finish(s, o)),
            Err(_) => return Some(self.finish(s, Outcome::Error)),
        }
        None
    }

    pub(super) fn set_waiting(&mut self, s: usize, step: Step, release_after: bool) {
        self.seq += 1;
        let seq = self.seq;
        let now = self.now;
        let before = self.ids(s);
        let run = self.sessions[s].run.as_mut().expect("running");
        let deadline = run.timeout.map(|ms| now.saturating_add(ms));
        let deadline = self.with_statement_time(s, deadline);
        let run = self.sessions[s].run.as_mut().expect("running");
        run.waiting = Some(Waiting {
            step,
            deadline,
            seq,
            release_after,
            before,
        });
    }
}

/// What `SqlModel::request` gives `run`.
enum Next {
    /// The answer of the lock table.
    Request(Result<Outcome, MdlError>),
    /// Go on with the next step.
    Continue,
    /// The statement stops here (waits, or ends) with this outcome.
    Stop(Outcome),
}
