//! SQL statements played on our deterministic engine ([`LockTable`], `mariadb` dialect)
//! through the learned mapping.
//!
//! A learned statement: an implicit commit first when the table says so (LOCK TABLES
//! also gives up the session's earlier LOCK TABLES locks), a savepoint, then its ops in
//! order (`acquire` with the session's wait option, `upgrade`, `release`); a wait leaves
//! the rest for when it is granted. A statement that ends ok releases its statement
//! locks (and commits, when it commits implicitly); one that fails (deadlock, timeout,
//! kill) rolls back to its savepoint, as the server's `open_tables` does.
//!
//! Control statements have fixed effects, the server's documented semantics:
//! `BEGIN` commits and ends LOCK TABLES; `COMMIT`/`ROLLBACK` commit; `UNLOCK TABLES`
//! releases LOCK TABLES' and FTWRL's locks (and commits when tables were locked);
//! `HANDLER t CLOSE` and `RELEASE_LOCK(n)` release what `HANDLER t OPEN` and
//! `GET_LOCK(n)` took; `SET lock_wait_timeout=0` makes conflicts fail at once.

use super::locks::key_text;
use super::mapping::{Mapping, OpKind, Stmt};
use mdl_core::key::MdlKey;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Dialect, Duration, LockType, MdlError, Outcome, OwnerId, WaitOption};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[derive(Clone, Debug)]
enum ROp {
    Acquire(MdlKey, LockType, Duration),
    Backoff(MdlKey, LockType, Duration),
    Upgrade(MdlKey, LockType, Duration),
    Release(MdlKey, LockType),
}

#[derive(Clone, Debug)]
struct Cont {
    ops: VecDeque<ROp>,
    /// The ops done so far, and whether each made a new ticket (a back-off or a
    /// failure gives those back; a back-off then takes them again).
    done: Vec<(ROp, bool)>,
    waiting: Option<ROp>,
    bucket: Option<String>,
    implicit_commit: bool,
}

#[derive(Clone, Debug)]
struct Sess {
    id: OwnerId,
    wait: WaitOption,
    cont: Option<Cont>,
    /// Locks that only a particular statement gives back: `lt` (LOCK TABLES), `grl`
    /// (FTWRL), `handler:db.t`, `user:NAME`, `backup`.
    buckets: BTreeMap<String, Vec<(MdlKey, LockType)>>,
    /// Inside BEGIN ... COMMIT; otherwise every statement commits at its end.
    in_txn: bool,
    /// The transaction wrote (its COMMIT requests what `commit_write` learned).
    wrote: bool,
}

pub struct SqlModel {
    pub d: Dialect,
    pub t: LockTable,
    map: Mapping,
    sess: Vec<Sess>,
    events: Vec<(usize, Outcome)>,
    /// The schema of unqualified names.
    pub db: String,
}

const SVP: &str = "__statement";

fn bucket_of(
    kind: &str,
    tables: &[(String, String, String)],
    lock: &Option<String>,
) -> Option<String> {
    match kind {
        "lock_read" | "lock_write" => Some("lt".into()),
        "ftwrl" => Some("grl".into()),
        "handler_open" => tables.first().map(|(d, t, _)| format!("handler:{d}.{t}")),
        "get_lock" => lock.as_ref().map(|l| format!("user:{l}")),
        k if k.starts_with("backup_") => Some("backup".into()),
        _ => None,
    }
}

impl SqlModel {
    pub fn new(map: Mapping) -> SqlModel {
        SqlModel {
            d: Dialect::mariadb(),
            t: LockTable::new(std::sync::Arc::new(Dialect::mariadb()), Config::default()),
            map,
            sess: Vec::new(),
            events: Vec::new(),
            db: "test".into(),
        }
    }

    pub fn add_session(&mut self) -> usize {
        let id = self.t.add_session();
        self.sess.push(Sess {
            id,
            wait: WaitOption::Forever,
            cont: None,
            buckets: BTreeMap::new(),
            in_txn: false,
            wrote: false,
        });
        self.sess.len() - 1
    }

    pub fn is_waiting(&self, s: usize) -> bool {
        self.sess[s].cont.is_some()
    }

    /// Outcomes of other sessions' statements that the last call finished.
    pub fn take_events(&mut self) -> Vec<(usize, Outcome)> {
        std::mem::take(&mut self.events)
    }

    fn key(&self, ns: &str, tmpl: &str, b: &Bind) -> Result<MdlKey, String> {
        let n = self
            .d
            .namespace_by_name(ns)
            .ok_or_else(|| format!("unknown namespace {ns}"))?;
        let sub = |s: &str| -> String {
            s.replace("$db", &b.db)
                .replace("$t2", &b.t2)
                .replace("$t", &b.t)
                .replace("$lock", &b.lock)
        };
        Ok(match ns {
            "BACKUP" => MdlKey::singleton(n),
            "SCHEMA" => MdlKey::new(n, &sub(tmpl), ""),
            "USER_LOCK" => MdlKey::new(n, &sub(tmpl), ""),
            _ => {
                let full = sub(tmpl);
                let (d, t) = full.split_once('.').unwrap_or(("", &full));
                MdlKey::new(n, d, t)
            }
        })
    }

    /// Plays one SQL statement of session `s`. `Err` for a statement outside the mapping
    /// or a session whose previous statement still waits.
    pub fn step(&mut self, s: usize, sql: &str) -> Result<Outcome, String> {
        if self.sess[s].cont.is_some() {
            return Err("the session's previous statement is still waiting".into());
        }
        let st = super::mapping::classify(sql, &self.db)?;
        let id = self.sess[s].id;
        let out = match st {
            Stmt::NoLocks => Outcome::Ok,
            Stmt::SetTimeout(n) => {
                self.sess[s].wait = if n == 0 {
                    WaitOption::Timeout(0)
                } else {
                    WaitOption::Timeout(n.saturating_mul(1000))
                };
                Outcome::Ok
            }
            Stmt::Begin => {
                self.release_bucket(s, "lt");
                let _ = self.t.commit(id);
                self.sess[s].in_txn = true;
                self.sess[s].wrote = false;
                Outcome::Ok
            }
            Stmt::Commit if self.sess[s].wrote => {
                self.sess[s].in_txn = false;
                self.sess[s].wrote = false;
                let ops = self.commit_ops()?;
                self.sess[s].cont = Some(Cont {
                    ops,
                    done: Vec::new(),
                    waiting: None,
                    bucket: None,
                    implicit_commit: true,
                });
                self.run(s)
            }
            Stmt::Commit | Stmt::Rollback => {
                let _ = self.t.commit(id);
                self.sess[s].in_txn = false;
                self.sess[s].wrote = false;
                Outcome::Ok
            }
            Stmt::UnlockTables => {
                let had = self.release_bucket(s, "lt");
                self.release_bucket(s, "grl");
                if had {
                    let _ = self.t.commit(id);
                }
                Outcome::Ok
            }
            Stmt::HandlerClose(db, t) => {
                self.release_bucket(s, &format!("handler:{db}.{t}"));
                Outcome::Ok
            }
            Stmt::ReleaseLock(n) => {
                self.release_bucket(s, &format!("user:{n}"));
                Outcome::Ok
            }
            Stmt::Kind { kind, tables, lock } => {
                let row = self
                    .map
                    .kind(&kind)
                    .ok_or_else(|| format!("kind `{kind}` is not in the learned table"))?
                    .clone();
                if row.implicit_commit {
                    if kind.starts_with("lock_") {
                        self.release_bucket(s, "lt");
                    }
                    let _ = self.t.commit(id);
                    self.sess[s].in_txn = false;
                    self.sess[s].wrote = false;
                }
                let writes = matches!(kind.as_str(), "insert" | "update" | "delete");
                let autocommit = !self.sess[s].in_txn;
                let mut ops = VecDeque::new();
                let per_table: Vec<Bind> = if kind == "rename" || tables.len() <= 1 {
                    vec![Bind {
                        db: tables
                            .first()
                            .map(|t| t.0.clone())
                            .unwrap_or(self.db.clone()),
                        t: tables.first().map(|t| t.1.clone()).unwrap_or_default(),
                        t2: tables.get(1).map(|t| t.1.clone()).unwrap_or_default(),
                        lock: lock.clone().unwrap_or_default(),
                        kind: kind.clone(),
                    }]
                } else {
                    tables
                        .iter()
                        .map(|(db, t, k)| Bind {
                            db: db.clone(),
                            t: t.clone(),
                            t2: String::new(),
                            lock: String::new(),
                            kind: k.clone(),
                        })
                        .collect()
                };
                for b in &per_table {
                    let r = self
                        .map
                        .kind(&b.kind)
                        .ok_or_else(|| format!("kind `{}` is not in the learned table", b.kind))?
                        .clone();
                    for o in &r.ops {
                        let k = self.key(&o.ns, &o.key, b)?;
                        let op = match o.op {
                            OpKind::Acquire => ROp::Acquire(k, o.ty, o.dur),
                            OpKind::Backoff => ROp::Backoff(k, o.ty, o.dur),
                            OpKind::Upgrade => ROp::Upgrade(k, o.ty, o.dur),
                            OpKind::Release => ROp::Release(k, o.ty),
                        };
                        let dup = ops
                            .iter()
                            .any(|x: &ROp| format!("{x:?}") == format!("{op:?}"));
                        if !dup {
                            ops.push_back(op);
                        }
                    }
                }
                if autocommit && writes {
                    ops.extend(self.commit_ops()?);
                } else if writes {
                    self.sess[s].wrote = true;
                }
                let _ = self.t.savepoint(id, SVP);
                self.sess[s].cont = Some(Cont {
                    ops,
                    done: Vec::new(),
                    waiting: None,
                    bucket: bucket_of(&kind, &tables, &lock),
                    implicit_commit: row.implicit_commit || autocommit,
                });
                self.run(s)
            }
        };
        self.pump();
        Ok(out)
    }

    /// What COMMIT of a transaction that wrote requests (the `commit_write` kind).
    fn commit_ops(&self) -> Result<VecDeque<ROp>, String> {
        let Some(r) = self.map.kind("commit_write") else {
            return Ok(VecDeque::new());
        };
        let b = Bind {
            db: self.db.clone(),
            t: String::new(),
            t2: String::new(),
            lock: String::new(),
            kind: r.name.clone(),
        };
        let mut ops = VecDeque::new();
        for o in r.ops.iter().filter(|o| o.op != OpKind::Release) {
            let k = self.key(&o.ns, &o.key, &b)?;
            ops.push_back(match o.op {
                OpKind::Acquire => ROp::Acquire(k, o.ty, o.dur),
                OpKind::Backoff => ROp::Backoff(k, o.ty, o.dur),
                OpKind::Upgrade => ROp::Upgrade(k, o.ty, o.dur),
                OpKind::Release => ROp::Release(k, o.ty),
            });
        }
        Ok(ops)
    }

    /// `KILL QUERY` of a waiting session.
    pub fn kill(&mut self, s: usize) -> bool {
        let k = self.t.kill(self.sess[s].id);
        self.pump();
        k
    }

    fn record(&mut self, s: usize, op: &ROp) {
        let Some(b) = self.sess[s].cont.as_ref().and_then(|c| c.bucket.clone()) else {
            return;
        };
        let list = self.sess[s].buckets.entry(b).or_default();
        match op {
            ROp::Acquire(k, t, _) | ROp::Backoff(k, t, _) => {
                if !list.iter().any(|(x, y)| x == k && y == t) {
                    list.push((k.clone(), *t))
                }
            }
            ROp::Upgrade(k, t, _) => match list.iter_mut().find(|(x, _)| x == k) {
                Some(e) => e.1 = *t,
                None => list.push((k.clone(), *t)),
            },
            ROp::Release(k, t) => list.retain(|(x, y)| !(x == k && y == t)),
        }
    }

    fn release_bucket(&mut self, s: usize, b: &str) -> bool {
        let id = self.sess[s].id;
        let Some(list) = self.sess[s].buckets.remove(b) else {
            return false;
        };
        for (k, t) in list.iter().rev() {
            let _ = self.t.release(id, k, Some(*t));
        }
        !list.is_empty()
    }

    /// Runs session `s`'s remaining ops; its statement's outcome so far.
    fn run(&mut self, s: usize) -> Outcome {
        let id = self.sess[s].id;
        loop {
            let Some(op) = self.sess[s].cont.as_mut().and_then(|c| c.ops.pop_front()) else {
                return self.finish(s, Outcome::Ok);
            };
            let wait = self.sess[s].wait;
            let before = self.count(s, op.key());
            let r = match &op {
                ROp::Acquire(k, t, du) => self.t.acquire(id, k, *t, *du, wait),
                ROp::Backoff(k, t, du) if cfg!(mdl_bug = "conform_skip_backoff") => {
                    self.t.acquire(id, k, *t, *du, wait)
                }
                ROp::Backoff(k, t, du) => {
                    match self.t.acquire(id, k, *t, *du, WaitOption::NoWait) {
                        Ok(Outcome::Busy)
                            if !matches!(wait, WaitOption::NoWait | WaitOption::Timeout(0)) =>
                        {
                            // Give back this statement's locks, wait for this one alone, then
                            // take the others again.
                            let redo: Vec<ROp> = self.undo(s);
                            let c = self.sess[s].cont.as_mut().expect("running");
                            for o in redo.into_iter().rev() {
                                c.ops.push_front(o);
                            }
                            c.ops.push_front(ROp::Acquire(k.clone(), *t, *du));
                            continue;
                        }
                        Ok(Outcome::Busy) if matches!(wait, WaitOption::Timeout(0)) => {
                            Ok(Outcome::Timeout)
                        }
                        r => r,
                    }
                }
                ROp::Upgrade(..) if cfg!(mdl_bug = "conform_ignore_upgrades") => Ok(Outcome::Ok),
                ROp::Upgrade(k, t, du) => match self.t.upgrade(id, k, *t, wait) {
                    Ok(Outcome::Granted) if !self.holds_type(s, k, *t) => {
                        // Our upgrade is a no-op when the held type covers the new one;
                        // the server changes the ticket's type (DDL -> ALTER_COPY,
                        // BLOCK_DDL -> START): that is our downgrade.
                        let _ = self.t.downgrade(id, k, *t);
                        Ok(Outcome::Granted)
                    }
                    Err(MdlError::NotHeld) => self.t.acquire(id, k, *t, *du, wait),
                    Err(MdlError::UpgradeToWeaker { held, .. }) => {
                        // The server's upgrade takes any type; ours only a stronger one:
                        // take the new type, then give the old one back.
                        let c = self.sess[s].cont.as_mut().expect("running");
                        c.ops.push_front(ROp::Release(k.clone(), held));
                        c.ops.push_front(ROp::Acquire(k.clone(), *t, *du));
                        continue;
                    }
                    r => r,
                },
                ROp::Release(k, t) => {
                    // The learned type is the one the learner's setup held; a session
                    // that got there another way gives back whatever it holds on the key.
                    if self.t.release(id, k, Some(*t)).is_err() {
                        let _ = self.t.release(id, k, None);
                        if let Some(b) = self.sess[s].cont.as_ref().and_then(|c| c.bucket.clone()) {
                            if let Some(l) = self.sess[s].buckets.get_mut(&b) {
                                l.retain(|(x, _)| x != k);
                            }
                        }
                    }
                    Ok(Outcome::Ok)
                }
            };
            match r {
                Ok(Outcome::Granted) | Ok(Outcome::Ok) => {
                    self.record(s, &op);
                    let new = self.count(s, op.key()) > before;
                    if let Some(c) = self.sess[s].cont.as_mut() {
                        c.done.push((op, new));
                    }
                }
                Ok(Outcome::Waiting) => {
                    self.sess[s].cont.as_mut().expect("running").waiting = Some(op);
                    return Outcome::Waiting;
                }
                Ok(o) => return self.finish(s, o),
                Err(_) => return self.finish(s, Outcome::Error),
            }
        }
    }

    fn finish(&mut self, s: usize, out: Outcome) -> Outcome {
        let id = self.sess[s].id;
        let c = self.sess[s].cont.take();
        if out == Outcome::Ok {
            let _ = self.t.end_statement(id);
            if c.is_some_and(|c| c.implicit_commit) {
                let _ = self.t.commit(id);
            }
        } else {
            // A failed statement gives back what it took (explicit locks too).
            if let Some(c) = c {
                self.sess[s].cont = Some(c);
                self.undo(s);
                self.sess[s].cont = None;
            }
            let _ = self.t.end_statement(id);
            if out == Outcome::Deadlock {
                // The server rolls the whole transaction back after ER_LOCK_DEADLOCK.
                let _ = self.t.commit(id);
                self.sess[s].in_txn = false;
                self.sess[s].wrote = false;
            }
        }
        out
    }

    /// Gives back the tickets the running statement made; returns its ops done so far.
    fn undo(&mut self, s: usize) -> Vec<ROp> {
        let id = self.sess[s].id;
        let done = self.sess[s]
            .cont
            .as_mut()
            .map(|c| std::mem::take(&mut c.done))
            .unwrap_or_default();
        let bucket = self.sess[s].cont.as_ref().and_then(|c| c.bucket.clone());
        for (op, new) in done.iter().rev() {
            if let (ROp::Acquire(k, t, _) | ROp::Backoff(k, t, _), true) = (op, new) {
                let _ = self.t.release(id, k, Some(*t));
                if let Some(l) = bucket
                    .as_ref()
                    .and_then(|b| self.sess[s].buckets.get_mut(b))
                {
                    l.retain(|(x, y)| !(x == k && y == t));
                }
            }
        }
        done.into_iter()
            .map(|(o, _)| o)
            .filter(|o| !matches!(o, ROp::Release(..)))
            .collect()
    }

    fn count(&self, s: usize, k: &MdlKey) -> usize {
        self.t
            .session(self.sess[s].id)
            .map(|x| x.book.on_key(k).count())
            .unwrap_or(0)
    }

    fn holds_type(&self, s: usize, k: &MdlKey, t: LockType) -> bool {
        self.t
            .session(self.sess[s].id)
            .is_some_and(|x| x.book.on_key(k).any(|h| h.ty == t))
    }

    /// Resolves the waits that the last call ended, until none is left.
    fn pump(&mut self) {
        loop {
            let ev = self.t.take_events();
            if ev.is_empty() {
                return;
            }
            for (owner, o) in ev {
                let Some(s) = self.sess.iter().position(|x| x.id == owner) else {
                    continue;
                };
                if self.sess[s].cont.is_none() {
                    continue;
                }
                let out = if o == Outcome::Granted {
                    if let Some(op) = self.sess[s].cont.as_mut().and_then(|c| c.waiting.take()) {
                        self.record(s, &op);
                        let new = !matches!(op, ROp::Upgrade(..));
                        if let Some(c) = self.sess[s].cont.as_mut() {
                            c.done.push((op, new));
                        }
                    }
                    self.run(s)
                } else {
                    self.finish(s, o)
                };
                if out != Outcome::Waiting {
                    self.events.push((s, out));
                }
            }
        }
    }

    /// Session `s`'s locks in the server tables' words: `TABLE test.t1 SR`, with
    /// ` (pending)` for the one it waits for.
    pub fn locks_of(&self, s: usize) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let Some(x) = self.t.session(self.sess[s].id) else {
            return out;
        };
        let name = |k: &MdlKey| {
            let ns = &self.d.namespace(k.namespace()).name;
            format!("{ns} {}", key_text(ns, k.db(), k.name()))
        };
        for h in x.book.held() {
            out.insert(format!("{} {}", name(&h.key), h.ty));
        }
        if let Some(w) = &x.wait {
            out.insert(format!("{} {} (pending)", name(&w.key), w.ticket.ty));
        }
        out
    }
}

impl ROp {
    fn key(&self) -> &MdlKey {
        match self {
            ROp::Acquire(k, ..)
            | ROp::Backoff(k, ..)
            | ROp::Upgrade(k, ..)
            | ROp::Release(k, _) => k,
        }
    }
}

struct Bind {
    db: String,
    t: String,
    t2: String,
    lock: String,
    kind: String,
}
