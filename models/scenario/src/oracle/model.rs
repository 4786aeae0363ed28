//! The reference oracle's state machine: per key a plain list of granted requests and a
//! FIFO list of waiting ones, per session its tickets, durations and savepoints. Written
//! from `shared/spec/scenario-format.md`, `shared/reference/README.md` and the servers'
//! sql/mdl.cc (MySQL 8.0, MariaDB: the functions named at each rule); it shares no
//! decision code with `mdl_core` (only the vocabulary types and the raw table text).
//!
//! A step that releases several tickets (commit, rollback to a savepoint, a failed bulk,
//! disconnect) does it as `MDL_context::release_locks_stored_before`: one ticket at a
//! time, each duration's list from its front (the ticket put there last), statement
//! before transaction before explicit, rescheduling the lock after each
//! ([`ReleaseMode::PerTicket`], the default). [`ReleaseMode::Batch`] (all tickets go,
//! then each lock is rescheduled once: what mdl-core did before) is kept to show where
//! the two differ.

use super::tables::{Strategy, Tables};
use mdl_core::{Duration, LockType, MdlKey, Outcome, WaitOption};
use std::collections::BTreeMap;

mod acquire;
mod detect;
mod key_commands;
mod release;
mod reschedule;

/// A request on a lock, granted or waiting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: u64,
    pub owner: usize,
    pub ty: LockType,
}

/// One lock: granted requests in grant order, waiting requests in arrival order, and the
/// MySQL starvation counters.
#[derive(Clone, Debug, Default)]
pub struct Lock {
    pub granted: Vec<Request>,
    pub waiting: Vec<Request>,
    pub hog: u32,
    pub piglet: u32,
    pub idx: usize,
    /// Ids of granted requests that MySQL 8.0 still counts in its fast path: not in its
    /// granted list until their owner materialises them (`materialise_own`). Ids of
    /// released requests may linger (ids are never reused).
    pub fast: Vec<u64>,
}

/// A ticket a session holds.
#[derive(Clone, Debug)]
pub struct Ticket {
    pub id: u64,
    pub key: MdlKey,
    pub ty: LockType,
    pub dur: Duration,
    /// Position in its duration's list: the server puts every new ticket at the front of
    /// its list (`push_front`), and a ticket whose duration changes at the front of the
    /// new one; the higher, the nearer the front. Savepoints are positions.
    pub order: u64,
}

#[derive(Clone, Debug)]
enum WaitFor {
    Acquire {
        dur: Duration,
    },
    Upgrade {
        old: u64,
    },
    Bulk {
        dur: Duration,
        rest: Vec<(MdlKey, LockType)>,
        taken: Vec<u64>,
        wait: WaitOption,
    },
}

#[derive(Clone, Debug)]
struct Wait {
    key: MdlKey,
    req: Request,
    what: WaitFor,
    timed: bool,
}

#[derive(Clone, Debug, Default)]
struct Session {
    held: Vec<Ticket>,
    savepoints: Vec<(String, u64)>,
    wait: Option<Wait>,
    force_dml: bool,
    victims: u32,
    gone: bool,
}

/// A bulk acquire granted the element it waited for: it goes on after the step.
#[derive(Clone, Debug)]
struct Continue {
    s: usize,
    rest: Vec<(MdlKey, LockType)>,
    taken: Vec<u64>,
    dur: Duration,
    wait: WaitOption,
}

/// One command of a program (the scenario commands, with keys already built).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    Acquire {
        s: usize,
        key: MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
    },
    AcquireAll {
        s: usize,
        reqs: Vec<(MdlKey, LockType)>,
        dur: Duration,
        wait: WaitOption,
    },
    Upgrade {
        s: usize,
        key: MdlKey,
        ty: LockType,
        wait: WaitOption,
    },
    Downgrade {
        s: usize,
        key: MdlKey,
        ty: LockType,
    },
    Clone {
        s: usize,
        key: MdlKey,
        ty: Option<LockType>,
        dur: Duration,
    },
    Release {
        s: usize,
        key: MdlKey,
        ty: Option<LockType>,
    },
    EndStatement {
        s: usize,
    },
    Commit {
        s: usize,
    },
    ReleaseExplicit {
        s: usize,
    },
    Savepoint {
        s: usize,
        name: String,
    },
    RollbackTo {
        s: usize,
        name: String,
    },
    SetDuration {
        s: usize,
        dur: Duration,
    },
    ForceDml {
        s: usize,
        on: bool,
    },
    Disconnect {
        s: usize,
    },
    /// Top-level `kill S`: `Ok` when S waited, else `Error`.
    Kill {
        s: usize,
    },
    /// S's finite wait times out: `Ok` when S waited with a finite timeout, else `Error`.
    Timeout {
        s: usize,
    },
}

impl Cmd {
    /// The session that takes this step (for `kill`/`timeout`: the target).
    pub fn session(&self) -> usize {
        match self {
            Cmd::Acquire { s, .. }
            | Cmd::AcquireAll { s, .. }
            | Cmd::Upgrade { s, .. }
            | Cmd::Downgrade { s, .. }
            | Cmd::Clone { s, .. }
            | Cmd::Release { s, .. }
            | Cmd::EndStatement { s }
            | Cmd::Commit { s }
            | Cmd::ReleaseExplicit { s }
            | Cmd::Savepoint { s, .. }
            | Cmd::RollbackTo { s, .. }
            | Cmd::SetDuration { s, .. }
            | Cmd::ForceDml { s, .. }
            | Cmd::Disconnect { s }
            | Cmd::Kill { s }
            | Cmd::Timeout { s } => *s,
        }
    }

    /// `kill` and `timeout` act on a waiting session; every other command is a step of a
    /// session that does not wait.
    pub fn is_top_level(&self) -> bool {
        matches!(self, Cmd::Kill { .. } | Cmd::Timeout { .. })
    }
}

/// How a step that gives back several tickets reschedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReleaseMode {
    /// Remove every ticket, then reschedule each lock once (not what the servers do).
    Batch,
    /// MySQL and MariaDB: one ticket at a time, rescheduling the lock after each.
    #[default]
    PerTicket,
}

/// Whether waiting requests that take priority hold a grant back ([`Priority::Ignored`]:
/// MariaDB's pass with `ignore_lock_priority`, sql/mdl.cc `MDL_lock::reschedule_waiters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Priority {
    Honoured,
    Ignored,
}

/// The reference oracle.
#[derive(Clone, Debug)]
pub struct Oracle {
    pub tables: Tables,
    pub release_mode: ReleaseMode,
    /// The servers' deadlock-search depth cap (`MAX_SEARCH_DEPTH`), or `None`: an exact
    /// search for a cycle.
    pub max_search_depth: Option<u32>,
    max_write_lock_count: u64,
    locks: BTreeMap<MdlKey, Lock>,
    sessions: Vec<Session>,
    next_id: u64,
    next_order: u64,
    events: Vec<(usize, Outcome)>,
    continues: Vec<Continue>,
    /// The session whose own request the running deadlock search belongs to.
    detecting: Option<usize>,
    /// The ticket granted to `detecting` while its search aborted a victim.
    self_grant: Option<u64>,
}

const HOGS: [LockType; 3] = [LockType::SNW, LockType::SNRW, LockType::X];

impl Oracle {
    pub fn new(
        dialect: &str,
        max_write_lock_count: u64,
        sessions: usize,
    ) -> Result<Oracle, String> {
        Ok(Oracle {
            tables: Tables::load(dialect)?,
            release_mode: ReleaseMode::default(),
            max_search_depth: None,
            max_write_lock_count,
            locks: BTreeMap::new(),
            sessions: vec![Session::default(); sessions],
            next_id: 1,
            next_order: 0,
            events: Vec::new(),
            continues: Vec::new(),
            detecting: None,
            self_grant: None,
        })
    }

    // --- introspection ----------------------------------------------------------------

    pub fn lock(&self, key: &MdlKey) -> Option<&Lock> {
        self.locks.get(key)
    }
    pub fn keys(&self) -> impl Iterator<Item = &MdlKey> {
        self.locks.keys()
    }
    pub fn is_waiting(&self, s: usize) -> bool {
        self.sessions[s].wait.is_some()
    }
    pub fn is_gone(&self, s: usize) -> bool {
        self.sessions[s].gone
    }
    pub fn victim_count(&self, s: usize) -> u32 {
        self.sessions[s].victims
    }
    pub fn held(&self, s: usize) -> &[Ticket] {
        &self.sessions[s].held
    }
    /// (key, type) of `s`'s waiting request.
    pub fn waiting_for(&self, s: usize) -> Option<(MdlKey, LockType)> {
        self.sessions[s]
            .wait
            .as_ref()
            .map(|w| (w.key.clone(), w.req.ty))
    }

    // --- rules ------------------------------------------------------------------------

    fn strategy(&self, key: &MdlKey) -> &Strategy {
        self.tables.strategy_of(key.namespace().0 as usize)
    }

    fn ns_name(&self, key: &MdlKey) -> &str {
        &self.tables.namespaces[key.namespace().0 as usize].name
    }

    /// MySQL: object locks except ACL_CACHE count hogs and piglets.
    fn mysql_starvation(&self, key: &MdlKey) -> bool {
        self.tables.dialect == "mysql-8.0"
            && self.strategy(key).name == "object"
            && self.ns_name(key) != "ACL_CACHE"
    }

    fn mariadb_starvation(&self, key: &MdlKey) -> bool {
        self.tables.dialect == "mariadb" && self.strategy(key).name == "object"
    }

    /// The deadlock weight of a waiting request (README "Deadlock weights").
    pub fn weight_of(&self, key: &MdlKey, ty: LockType, force_dml: bool, victims: u32) -> u32 {
        let ns = self.ns_name(key);
        if self.tables.dialect == "mysql-8.0" {
            if force_dml {
                return 25;
            }
            // sql/mdl.cc MDL_ticket::get_deadlock_weight: USER_LEVEL_LOCK first.
            if ns == "USER_LEVEL_LOCK" {
                50
            } else if ns == "GLOBAL" || ty.0 >= LockType::SU.0 {
                100
            } else {
                25
            }
        } else {
            let base = if force_dml {
                1
            } else if ns == "BACKUP" {
                if ty == LockType::BACKUP_FTWRL1 {
                    0
                } else {
                    100
                }
            } else if ty.0 >= LockType::SU.0 {
                100
            } else {
                1
            };
            base + victims
        }
    }

    fn can_grant(&self, key: &MdlKey, owner: usize, ty: LockType, priority: Priority) -> bool {
        let st = self.strategy(key);
        let Some(l) = self.locks.get(key) else {
            return true;
        };
        let by_pending = priority == Priority::Honoured
            && l.waiting
                .iter()
                .any(|w| w.owner != owner && st.yields(l.idx, ty, w.ty));
        let by_granted = l
            .granted
            .iter()
            .any(|g| g.owner != owner && st.conflicts(ty, g.ty));
        !by_pending && !by_granted
    }

    // --- steps ------------------------------------------------------------------------

    /// Applies one command; returns its outcome and the outcomes other sessions' waits
    /// reached during it (granted, deadlock, timeout, killed).
    pub fn step(&mut self, cmd: &Cmd) -> (Outcome, Vec<(usize, Outcome)>) {
        self.events.clear();
        let out = self.apply(cmd);
        // Bulk acquires granted the element they waited for go on now, lowest session
        // first (a fixed order for what is a race between woken threads).
        while let Some(i) = (0..self.continues.len()).min_by_key(|&i| self.continues[i].s) {
            let c = self.continues.remove(i);
            let o = self.run_bulk(c.s, c.rest, c.taken, c.dur, c.wait);
            if o != Outcome::Waiting {
                self.events.push((c.s, o));
            }
        }
        (out, std::mem::take(&mut self.events))
    }

    fn live(&self, s: usize) -> bool {
        !self.sessions[s].gone && self.sessions[s].wait.is_none()
    }

    fn apply(&mut self, cmd: &Cmd) -> Outcome {
        use Outcome::{Error, Ok};
        if !cmd.is_top_level() && !self.live(cmd.session()) {
            return Error;
        }
        match cmd.clone() {
            Cmd::Acquire {
                s,
                key,
                ty,
                dur,
                wait,
            } => {
                if !self.strategy(&key).takes(ty) {
                    return Error;
                }
                self.acquire_one(s, &key, ty, dur, wait, WaitFor::Acquire { dur })
                    .0
            }
            Cmd::AcquireAll { s, reqs, dur, wait } => {
                if reqs.is_empty() || reqs.iter().any(|(k, t)| !self.strategy(k).takes(*t)) {
                    return Error;
                }
                let mut sorted = reqs;
                // Key order, and for one key the stronger (higher enum value) first.
                sorted.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
                self.run_bulk(s, sorted, Vec::new(), dur, wait)
            }
            Cmd::Upgrade { s, key, ty, wait } => self.upgrade(s, &key, ty, wait),
            Cmd::Downgrade { s, key, ty } => self.downgrade(s, &key, ty),
            Cmd::Clone { s, key, ty, dur } => self.clone_ticket(s, &key, ty, dur),
            Cmd::Release { s, key, ty } => self.release_key(s, &key, ty),
            Cmd::EndStatement { s } => {
                self.release_durations(s, &[Duration::Statement], 0);
                Ok
            }
            Cmd::Commit { s } => {
                self.release_durations(s, &[Duration::Statement, Duration::Transaction], 0);
                self.sessions[s].savepoints.clear();
                Ok
            }
            Cmd::ReleaseExplicit { s } => {
                self.release_durations(s, &[Duration::Explicit], 0);
                Ok
            }
            Cmd::Savepoint { s, name } => {
                let mark = self.next_order;
                let sp = &mut self.sessions[s].savepoints;
                sp.retain(|(n, _)| *n != name);
                sp.push((name, mark));
                Ok
            }
            Cmd::RollbackTo { s, name } => {
                let Some(i) = self.sessions[s]
                    .savepoints
                    .iter()
                    .rposition(|(n, _)| *n == name)
                else {
                    return Error;
                };
                let mark = self.sessions[s].savepoints[i].1;
                self.release_durations(s, &[Duration::Statement, Duration::Transaction], mark);
                self.sessions[s].savepoints.truncate(i + 1);
                Ok
            }
            Cmd::SetDuration { s, dur } => {
                self.move_all(s, dur);
                Ok
            }
            Cmd::ForceDml { s, on } => {
                self.sessions[s].force_dml = on;
                Ok
            }
            Cmd::Disconnect { s } => {
                self.release_durations(
                    s,
                    &[
                        Duration::Statement,
                        Duration::Transaction,
                        Duration::Explicit,
                    ],
                    0,
                );
                let x = &mut self.sessions[s];
                x.gone = true;
                x.savepoints.clear();
                Ok
            }
            Cmd::Kill { s } => {
                if self.sessions[s].wait.is_some() {
                    self.end_wait(s, Outcome::Killed);
                    Ok
                } else {
                    Error
                }
            }
            Cmd::Timeout { s } => {
                if self.sessions[s].wait.as_ref().is_some_and(|w| w.timed) {
                    self.end_wait(s, Outcome::Timeout);
                    Ok
                } else {
                    Error
                }
            }
        }
    }

    /// `s`'s tickets of duration `d` that pass `keep`, from the front of that list.
    fn list(&self, s: usize, d: Duration, keep: impl Fn(&Ticket) -> bool) -> Vec<u64> {
        let mut v: Vec<&Ticket> = self.sessions[s]
            .held
            .iter()
            .filter(|h| h.dur == d && keep(h))
            .collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.order));
        v.into_iter().map(|h| h.id).collect()
    }

    /// Every ticket of `s` to duration `dur`, the lists rebuilt as the servers rebuild
    /// them (MySQL: MDL_ticket_store::move_all_to_explicit_duration /
    /// move_explicit_to_transaction_duration; MariaDB:
    /// MDL_context::set_explicit/transaction_duration_for_all_locks): swap the target
    /// list with the transaction (for explicit) or explicit (for transaction) list, then
    /// take the other lists' tickets one by one from their fronts and push each to the
    /// front of the target. (To statement, which the servers never do: keep the
    /// statement list and push the transaction then the explicit list.)
    fn move_all(&mut self, s: usize, dur: Duration) {
        use Duration::{Explicit as E, Statement as S, Transaction as T};
        let all = |_: &Ticket| true;
        let (base, rest): (Duration, [Duration; 2]) = match dur {
            E => (T, [S, E]),
            T => (E, [T, S]),
            S => (S, [T, E]),
        };
        let mut target: std::collections::VecDeque<u64> = self.list(s, base, all).into();
        for d in rest {
            for id in self.list(s, d, all) {
                target.push_front(id);
            }
        }
        // The front gets the highest position.
        let n = target.len() as u64;
        let first = self.next_order;
        self.next_order += n;
        for (i, id) in target.iter().enumerate() {
            if let Some(h) = self.sessions[s].held.iter_mut().find(|h| h.id == *id) {
                h.dur = dur;
                h.order = first + n - 1 - i as u64;
            }
        }
    }

    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn add_ticket(&mut self, s: usize, id: u64, key: &MdlKey, ty: LockType, dur: Duration) {
        let order = self.next_order;
        self.next_order += 1;
        self.sessions[s].held.push(Ticket {
            id,
            key: key.clone(),
            ty,
            dur,
            order,
        });
    }

    /// An upgrade: the ticket takes the new type and moves to the end of the granted
    /// list (MySQL's `upgrade_shared_lock` removes and re-adds it).
    fn upgrade_ticket(&mut self, s: usize, key: &MdlKey, id: u64, ty: LockType) {
        self.set_type(s, key, id, ty);
        if let Some(l) = self.locks.get_mut(key) {
            if let Some(i) = l.granted.iter().position(|g| g.id == id) {
                let g = l.granted.remove(i);
                l.granted.push(g);
            }
            l.fast.retain(|f| *f != id);
        }
    }

    fn is_unobtrusive(&self, key: &MdlKey, ty: LockType) -> bool {
        self.strategy(key).unobtrusive.contains(&ty)
    }

    /// MySQL 8.0 grants `ty` on `key` by its fast path now (try_acquire_lock_impl: an
    /// unobtrusive type while nothing obtrusive is granted or waiting: HAS_OBTRUSIVE
    /// clear). MariaDB has no fast path.
    fn is_fast_path(&self, key: &MdlKey, ty: LockType) -> bool {
        if !self.tables.fast_path || !self.is_unobtrusive(key, ty) {
            return false;
        }
        let st = self.strategy(key);
        self.locks.get(key).is_none_or(|l| {
            l.granted
                .iter()
                .chain(&l.waiting)
                .all(|r| st.unobtrusive.contains(&r.ty))
        })
    }

    /// `s` materialises its fast-path grants (MySQL: sql/mdl.cc,
    /// MDL_context::materialize_fast_path_locks): each enters its lock's granted list at
    /// the back (MDL_lock::Ticket_list::add_ticket).
    fn materialise_own(&mut self, s: usize) {
        for l in self.locks.values_mut() {
            let mut moved = Vec::new();
            l.granted.retain(|g| {
                let own = g.owner == s && l.fast.contains(&g.id);
                if own {
                    moved.push(g.clone());
                }
                !own
            });
            l.fast.retain(|f| !moved.iter().any(|g| g.id == *f));
            l.granted.extend(moved);
        }
    }

    fn set_type(&mut self, s: usize, key: &MdlKey, id: u64, ty: LockType) {
        if let Some(h) = self.sessions[s].held.iter_mut().find(|h| h.id == id) {
            h.ty = ty;
        }
        if let Some(l) = self.locks.get_mut(key) {
            if let Some(g) = l.granted.iter_mut().find(|g| g.id == id) {
                g.ty = ty;
            }
        }
    }

    /// The session's strongest ticket on `key`: the latest one at least as strong as
    /// every other; if none is, the latest of the highest enum value.
    fn strongest(&self, s: usize, key: &MdlKey) -> Option<Ticket> {
        let st = self.strategy(key);
        let on: Vec<&Ticket> = self.sessions[s]
            .held
            .iter()
            .filter(|h| &h.key == key)
            .collect();
        if let Some(h) = on
            .iter()
            .rev()
            .find(|h| on.iter().all(|o| st.covers(h.ty, o.ty)))
        {
            return Some((*h).clone());
        }
        let top = on.iter().map(|h| h.ty).max()?;
        on.iter().rev().find(|h| h.ty == top).map(|h| (*h).clone())
    }
}
