//! Random programs (as small integers, for proptest and cargo-fuzz alike) and the runner
//! that applies one step by step to `mdl_core::table::LockTable` and to the [`Oracle`],
//! comparing outcomes, events, granted sets, queues, counters and victims after every
//! step.

use super::model::{Cmd, Oracle, ReleaseMode};
use crate::ast::{Command, WaitSpec};
use mdl_core::dialect::{Dialect, Namespace};
use mdl_core::lock::OwnerId;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Duration, LockType, MdlKey, Outcome, WaitOption};
use std::fmt::Write as _;

/// One step as small integers; every value is valid (taken modulo the palettes). With
/// the `arbitrary` feature, the fuzz targets build it from raw bytes (`fuzz/src/lib.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
    Acquire {
        s: u8,
        k: u8,
        t: u8,
        d: u8,
        w: u8,
    },
    AcquireAll {
        s: u8,
        items: Vec<(u8, u8)>,
        d: u8,
        w: u8,
    },
    Upgrade {
        s: u8,
        k: u8,
        t: u8,
        w: u8,
    },
    Downgrade {
        s: u8,
        k: u8,
        t: u8,
    },
    Clone {
        s: u8,
        k: u8,
        t: Option<u8>,
        d: u8,
    },
    Release {
        s: u8,
        k: u8,
        t: Option<u8>,
    },
    EndStatement {
        s: u8,
    },
    Commit {
        s: u8,
    },
    ReleaseExplicit {
        s: u8,
    },
    Savepoint {
        s: u8,
        n: u8,
    },
    RollbackTo {
        s: u8,
        n: u8,
    },
    SetDuration {
        s: u8,
        d: u8,
    },
    ForceDml {
        s: u8,
        on: bool,
    },
    Disconnect {
        s: u8,
    },
    Kill {
        s: u8,
    },
    Timeout {
        s: u8,
    },
}

/// A program: dialect, settings, sessions, keys and steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    pub mariadb: bool,
    /// 0: unlimited; otherwise the `max_write_lock_count`.
    pub max_write_lock_count: u8,
    /// 2 to 4.
    pub sessions: u8,
    /// 1 to 3 keys, taken from the dialect's palette starting at `key_offset`.
    pub keys: u8,
    pub key_offset: u8,
    /// 0: the exact deadlock search; otherwise the servers' depth cap, 2 to 4.
    pub max_search_depth: u8,
    pub ops: Vec<Op>,
}

/// The keys programs use. USER_LEVEL_LOCK is left out on purpose: the oracle weighs it
/// as MySQL does (50 before the DDL test) and mdl-core does not (see
/// `tests/prop_sequence.rs::ull_weight_finding`).
pub fn palette(mariadb: bool) -> &'static [(&'static str, &'static str, &'static str)] {
    if mariadb {
        &[
            ("TABLE", "d", "t1"),
            ("BACKUP", "", ""),
            ("TABLE", "d", "t2"),
            ("SCHEMA", "d", ""),
        ]
    } else {
        &[
            ("TABLE", "d", "t1"),
            ("GLOBAL", "", ""),
            ("TABLE", "d", "t2"),
            ("SCHEMA", "d", ""),
        ]
    }
}

const DURS: [Duration; 3] = [
    Duration::Statement,
    Duration::Transaction,
    Duration::Explicit,
];
const WAITS: [WaitOption; 4] = [
    WaitOption::Forever,
    WaitOption::NoWait,
    WaitOption::millis(0),
    WaitOption::millis(100),
];
const SAVEPOINTS: [&str; 2] = ["a", "b"];

impl Program {
    pub fn dialect(&self) -> &'static str {
        if self.mariadb {
            "mariadb"
        } else {
            "mysql-8.0"
        }
    }

    pub fn session_count(&self) -> usize {
        2 + (self.sessions as usize % 3)
    }

    pub fn max_search_depth(&self) -> Option<u32> {
        match self.max_search_depth {
            0 => None,
            n => Some(2 + u32::from(n - 1) % 3),
        }
    }

    pub fn max_write_lock_count(&self) -> u64 {
        match self.max_write_lock_count % 4 {
            0 => u64::MAX,
            n => u64::from(n),
        }
    }

    /// The program's keys, built from the oracle's own namespace table.
    pub fn key_list(&self, o: &Oracle) -> Vec<MdlKey> {
        let p = palette(self.mariadb);
        let n = 1 + self.keys as usize % 3;
        (0..n)
            .map(|i| {
                let (ns, db, name) = p[(self.key_offset as usize + i) % p.len()];
                let idx = o.tables.ns_index(ns).expect("palette namespace");
                MdlKey::new(Namespace(idx as u8), db, name)
            })
            .collect()
    }

    /// The commands, with sessions, keys and types resolved.
    pub fn commands(&self, o: &Oracle) -> Vec<Cmd> {
        let keys = self.key_list(o);
        let ns = self.session_count();
        let key = |k: u8| keys[k as usize % keys.len()].clone();
        let ty = |k: &MdlKey, t: u8| {
            if t >= 240 {
                LockType(t % LockType::COUNT as u8)
            } else {
                let st = o.tables.strategy_of(k.namespace().0 as usize);
                st.types[t as usize % st.types.len()]
            }
        };
        let s = |s: u8| s as usize % ns;
        let d = |d: u8| DURS[d as usize % 3];
        let w = |w: u8| WAITS[w as usize % 4];
        let sp = |n: u8| SAVEPOINTS[n as usize % 2].to_owned();
        self.ops
            .iter()
            .map(|op| match op {
                Op::Acquire {
                    s: a,
                    k,
                    t,
                    d: du,
                    w: wa,
                } => {
                    let k = key(*k);
                    Cmd::Acquire {
                        s: s(*a),
                        ty: ty(&k, *t),
                        key: k,
                        dur: d(*du),
                        wait: w(*wa),
                    }
                }
                Op::AcquireAll {
                    s: a,
                    items,
                    d: du,
                    w: wa,
                } => Cmd::AcquireAll {
                    s: s(*a),
                    reqs: items
                        .iter()
                        .map(|(k, t)| {
                            let k = key(*k);
                            let t = ty(&k, *t);
                            (k, t)
                        })
                        .collect(),
                    dur: d(*du),
                    wait: w(*wa),
                },
                Op::Upgrade { s: a, k, t, w: wa } => {
                    let k = key(*k);
                    Cmd::Upgrade {
                        s: s(*a),
                        ty: ty(&k, *t),
                        key: k,
                        wait: w(*wa),
                    }
                }
                Op::Downgrade { s: a, k, t } => {
                    let k = key(*k);
                    Cmd::Downgrade {
                        s: s(*a),
                        ty: ty(&k, *t),
                        key: k,
                    }
                }
                Op::Clone { s: a, k, t, d: du } => {
                    let k = key(*k);
                    Cmd::Clone {
                        s: s(*a),
                        ty: t.map(|t| ty(&k, t)),
                        key: k,
                        dur: d(*du),
                    }
                }
                Op::Release { s: a, k, t } => {
                    let k = key(*k);
                    Cmd::Release {
                        s: s(*a),
                        ty: t.map(|t| ty(&k, t)),
                        key: k,
                    }
                }
                Op::EndStatement { s: a } => Cmd::EndStatement { s: s(*a) },
                Op::Commit { s: a } => Cmd::Commit { s: s(*a) },
                Op::ReleaseExplicit { s: a } => Cmd::ReleaseExplicit { s: s(*a) },
                Op::Savepoint { s: a, n } => Cmd::Savepoint {
                    s: s(*a),
                    name: sp(*n),
                },
                Op::RollbackTo { s: a, n } => Cmd::RollbackTo {
                    s: s(*a),
                    name: sp(*n),
                },
                Op::SetDuration { s: a, d: du } => Cmd::SetDuration {
                    s: s(*a),
                    dur: d(*du),
                },
                Op::ForceDml { s: a, on } => Cmd::ForceDml { s: s(*a), on: *on },
                Op::Disconnect { s: a } => Cmd::Disconnect { s: s(*a) },
                Op::Kill { s: a } => Cmd::Kill { s: s(*a) },
                Op::Timeout { s: a } => Cmd::Timeout { s: s(*a) },
            })
            .collect()
    }
}

impl Cmd {
    /// This step as a scenario command of its session, with its wait option; `None` for
    /// the top-level `kill` and `timeout`, which act on a waiting session from outside.
    pub fn command(&self) -> Option<(usize, Command, WaitOption)> {
        let given = WaitSpec::Given;
        let (s, c, w) = match self.clone() {
            Cmd::Acquire {
                s,
                key,
                ty,
                dur,
                wait,
            } => (
                s,
                Command::Acquire {
                    key,
                    ty,
                    dur,
                    wait: given(wait),
                },
                wait,
            ),
            Cmd::AcquireAll { s, reqs, dur, wait } => (
                s,
                Command::AcquireAll {
                    dur,
                    wait: given(wait),
                    reqs,
                },
                wait,
            ),
            Cmd::Upgrade { s, key, ty, wait } => (
                s,
                Command::Upgrade {
                    key,
                    ty,
                    wait: given(wait),
                },
                wait,
            ),
            Cmd::Downgrade { s, key, ty } => {
                (s, Command::Downgrade { key, ty }, WaitOption::Forever)
            }
            Cmd::Clone { s, key, ty, dur } => {
                (s, Command::Clone { key, ty, dur }, WaitOption::Forever)
            }
            Cmd::Release { s, key, ty } => (s, Command::Release { key, ty }, WaitOption::Forever),
            Cmd::EndStatement { s } => (s, Command::EndStatement, WaitOption::Forever),
            Cmd::Commit { s } => (s, Command::Commit, WaitOption::Forever),
            Cmd::ReleaseExplicit { s } => (s, Command::ReleaseExplicit, WaitOption::Forever),
            Cmd::Savepoint { s, name } => (s, Command::Savepoint(name), WaitOption::Forever),
            Cmd::RollbackTo { s, name } => (s, Command::RollbackTo(name), WaitOption::Forever),
            Cmd::SetDuration { s, dur } => (s, Command::SetDuration(dur), WaitOption::Forever),
            Cmd::ForceDml { s, on } => (s, Command::ForceDmlWeight(on), WaitOption::Forever),
            Cmd::Disconnect { s } => (s, Command::Disconnect, WaitOption::Forever),
            Cmd::Kill { .. } | Cmd::Timeout { .. } => return None,
        };
        Some((s, c, w))
    }
}

/// Applies one command to the lock table; returns its outcome and the events (other
/// sessions' outcomes), with a bulk acquire that was granted the element it waited for
/// going on at once (as the concurrent manager's woken thread does).
pub fn apply_table(t: &mut LockTable, cmd: &Cmd) -> (Outcome, Vec<(usize, Outcome)>) {
    let r = match cmd.command() {
        Some((s, c, wait)) => c.apply(t, OwnerId(s as u32), wait).ok(),
        None => {
            let s = OwnerId(cmd.session() as u32);
            let acted = match cmd {
                Cmd::Kill { .. } => t.kill(s),
                _ => t.timeout(s),
            };
            acted.then_some(Outcome::Ok)
        }
    };
    let out = r.unwrap_or(Outcome::Error);
    let mut events: Vec<(usize, Outcome)> = t
        .take_events()
        .into_iter()
        .map(|(w, x)| (w.0 as usize, x))
        .collect();
    // A bulk acquire granted the element it waited for goes on now (the table defers it
    // to the session's next step), lowest session first.
    while let Some(who) = (0..t.sessions().len()).find(|&i| t.sessions()[i].resume.is_some()) {
        let r = t.resume_bulk(OwnerId(who as u32)).unwrap_or(Outcome::Error);
        events.extend(t.take_events().into_iter().map(|(w, x)| (w.0 as usize, x)));
        if r != Outcome::Waiting {
            events.push((who, r));
        }
    }
    (out, events)
}

/// A step applied to both: the command, then the table's and the oracle's outcome and
/// events.
type Step = (
    Cmd,
    Outcome,
    Vec<(usize, Outcome)>,
    Outcome,
    Vec<(usize, Outcome)>,
);

/// The observable state of one lock: granted (sorted), waiting (queue order), counters.
type LockView = (
    Vec<(usize, LockType)>,
    Vec<(usize, LockType)>,
    u32,
    u32,
    usize,
);

fn table_lock(t: &LockTable, k: &MdlKey) -> LockView {
    match t.lock(k) {
        None => Default::default(),
        Some(l) => {
            // In list order: the servers' m_granted order decides the order in which the
            // deadlock search follows the edges.
            let g: Vec<(usize, LockType)> = l
                .granted()
                .iter()
                .map(|x| (x.owner.0 as usize, x.ty))
                .collect();
            let w = l
                .waiting()
                .iter()
                .map(|x| (x.owner.0 as usize, x.ty))
                .collect();
            (g, w, l.hog_count(), l.piglet_count(), l.pending_index())
        }
    }
}

fn oracle_lock(o: &Oracle, k: &MdlKey) -> LockView {
    match o.lock(k) {
        None => Default::default(),
        Some(l) => {
            let g: Vec<(usize, LockType)> = l.granted.iter().map(|x| (x.owner, x.ty)).collect();
            let w = l.waiting.iter().map(|x| (x.owner, x.ty)).collect();
            (g, w, l.hog, l.piglet, l.idx)
        }
    }
}

/// Runs a program against both; `Err` describes the first disagreement, with the steps
/// that led there.
pub fn run(p: &Program) -> Result<(), String> {
    run_with(p, ReleaseMode::PerTicket)
}

/// [`run`] with the oracle releasing in `mode`.
pub fn run_with(p: &Program, mode: ReleaseMode) -> Result<(), String> {
    let mut d = Dialect::builtin(p.dialect()).ok_or("dialect")?;
    d.max_search_depth = p.max_search_depth();
    let n = p.session_count();
    let mut o = Oracle::new(p.dialect(), p.max_write_lock_count(), n)?;
    o.release_mode = mode;
    o.max_search_depth = p.max_search_depth();
    let mut t = LockTable::new(
        std::sync::Arc::new(d.clone()),
        Config {
            max_write_lock_count: p.max_write_lock_count(),
        },
    );
    for _ in 0..n {
        t.add_session();
    }
    let keys = p.key_list(&o);
    // The steps so far, formatted only when something differs.
    let mut steps: Vec<Step> = Vec::new();
    let trace = |steps: &[Step]| {
        let mut t = format!(
            "dialect {} max_write_lock_count {} max_search_depth {:?} sessions {n}\n",
            p.dialect(),
            p.max_write_lock_count(),
            p.max_search_depth()
        );
        for (c, to, te, oo, oe) in steps {
            let _ = writeln!(t, "{c:?} -> table {to} {te:?}, oracle {oo} {oe:?}");
        }
        t
    };
    for cmd in p.commands(&o) {
        let s = cmd.session();
        let tw = t.is_waiting(OwnerId(s as u32));
        if tw != o.is_waiting(s) {
            return Err(format!(
                "{}session {s} waiting: table {tw}, oracle {}",
                trace(&steps),
                !tw
            ));
        }
        if tw && !cmd.is_top_level() {
            continue;
        }
        let (to, mut te) = apply_table(&mut t, &cmd);
        let (oo, mut oe) = o.step(&cmd);
        steps.push((cmd.clone(), to, te.clone(), oo, oe.clone()));
        if to != oo {
            return Err(format!("{}outcome differs", trace(&steps)));
        }
        te.sort();
        oe.sort();
        if te != oe {
            return Err(format!("{}events differ", trace(&steps)));
        }
        // `LockTable::check` (no two owners' granted tickets exclude each other both ways)
        // holds for mysql-8.0, whose matrices are symmetric. MariaDB's BACKUP matrix is
        // not, and there the servers themselves break it: a ticket that a held one covers
        // is granted with no decision (`clone_ticket`; `upgrade_shared_lock`'s retype,
        // always done in BACKUP): S2 BLOCK_DDL, S1 WAIT_COMMIT (which BLOCK_DDL lets in),
        // S2 upgrades to START (which BLOCK_DDL covers): START and WAIT_COMMIT exclude
        // each other both ways. Found by the `sequence` fuzz target.
        if !p.mariadb {
            if let Err(e) = t.check() {
                return Err(format!("{}table invariant broken: {e}", trace(&steps)));
            }
        }
        let mut all: Vec<MdlKey> = keys.clone();
        all.extend(t.locks().map(|(k, _)| k.clone()));
        all.extend(o.keys().cloned());
        for k in &all {
            let (a, b) = (table_lock(&t, k), oracle_lock(&o, k));
            if a != b {
                return Err(format!(
                    "{}lock {k:?} differs:\n  table  {a:?}\n  oracle {b:?}",
                    trace(&steps)
                ));
            }
        }
        for i in 0..n {
            let x = t.session(OwnerId(i as u32)).expect("session");
            let mut th: Vec<(MdlKey, LockType, Duration)> = x
                .book
                .held()
                .iter()
                .map(|h| (h.key.clone(), h.ty, h.dur))
                .collect();
            let mut oh: Vec<(MdlKey, LockType, Duration)> = o
                .held(i)
                .iter()
                .map(|h| (h.key.clone(), h.ty, h.dur))
                .collect();
            th.sort();
            oh.sort();
            if th != oh {
                return Err(format!(
                    "{}session {i} holds differ:\n  table  {th:?}\n  oracle {oh:?}",
                    trace(&steps)
                ));
            }
            if x.victim_count != o.victim_count(i) {
                return Err(format!(
                    "{}session {i} victim count: table {}, oracle {}",
                    trace(&steps),
                    x.victim_count,
                    o.victim_count(i)
                ));
            }
            if t.is_waiting(OwnerId(i as u32)) != o.is_waiting(i) {
                return Err(format!("{}session {i} waiting differs", trace(&steps)));
            }
        }
    }
    Ok(())
}
