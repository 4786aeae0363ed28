//! `mdl conform --learn`: measures the statement table on the server.
//!
//! For every statement kind ([`KINDS`]), on a fresh fixture (plus the kind's `prep`):
//! - the *held* probe: `BEGIN; SELECT * FROM t0; STATEMENT`, read the session's granted
//!   locks (what it holds while its transaction is open), `COMMIT`, read again (what
//!   survives a commit is `explicit`); `t0`'s lock being gone after the statement means
//!   the statement commits implicitly;
//! - the *request* probes: the statement runs while other sessions hold a blocker
//!   ([`BLOCKERS`]); while it waits, its granted and PENDING rows say what it requests and
//!   in which order (everything granted was requested before the pending lock, everything
//!   not granted after it). The waiting statement is then killed (`KILL QUERY`), so DDL
//!   never changes the fixture.
//!
//! The ops of a kind are the locks seen, ordered by those facts (ties: the dialect's
//! namespace order, then key, then the weaker type first; on one key the type held at the
//! end comes last). The first lock on a key is an `acquire`, a later type on the same key
//! (or a key the session held from its setup) an `upgrade`, a setup lock gone afterwards
//! a `release`. When the facts contradict each other on a BACKUP_DDL lock (seen pending
//! without locks it is otherwise seen after), that lock is MariaDB's back-off
//! (`lock_table_names`, `sql/sql_base.cc`): the locks before it that were not granted
//! while it waited are its `bulk` group, given back before the wait; those that stayed
//! granted were taken before the group and come first.
//!
//! The *session rules* ([`STATES`]): a session brings itself into a state (its own LOCK
//! TABLES, FTWRL, BACKUP STAGE, an open HANDLER), then runs a kind; the server's answer
//! (ok or the error code) and the session's locks before and after give a `rule` row.

use super::client::{Conn, Reply, LONG};
use super::locks::{Activity, LockRow, Snapshot};
use super::mapping::{
    KindDef, KindRow, LockTemplate, Mapping, Op, OpKind, RuleRow, FIXTURE, KINDS,
};
use super::server::Server;
use super::ConformError;
use mdl_core::{Dialect, Duration, LockType};
use std::collections::BTreeSet;
use std::io::Write;
use std::time::Duration as StdDuration;

/// A blocker: sessions that each run statements (`{t}` / `{t2}` stand for the kind's
/// first and second fixture tables); a session's last statement may be left waiting.
pub struct Blocker {
    pub name: &'static str,
    pub sessions: &'static [&'static [&'static str]],
}

const fn b(name: &'static str, sessions: &'static [&'static [&'static str]]) -> Blocker {
    Blocker { name, sessions }
}

pub const BLOCKERS: &[Blocker] = &[
    b("lock_write", &[&["LOCK TABLES {t} WRITE"]]),
    b("lock_write2", &[&["LOCK TABLES {t2} WRITE"]]),
    b("open_select", &[&["BEGIN", "SELECT * FROM {t}"]]),
    b("open_select2", &[&["BEGIN", "SELECT * FROM {t2}"]]),
    // Sessions that hold X on names that do not exist yet (t3, v1, schema db1): each
    // waits, holding them, for t0, which the first session locks.
    b(
        "pending_new",
        &[
            &["LOCK TABLES t0 WRITE"],
            &["CREATE TABLE t3 LIKE t0"],
            &["CREATE TABLE t4 LIKE t0"],
            &["CREATE VIEW v1 AS SELECT * FROM t0"],
            &["CREATE TABLE db1.tx LIKE t0"],
        ],
    ),
    // Only t4 (RENAME's second target), so that a statement that also names t3 is seen
    // waiting for it.
    b(
        "pending_t4",
        &[&["LOCK TABLES t0 WRITE"], &["CREATE TABLE t4 LIKE t0"]],
    ),
    b("ftwrl", &[&["FLUSH TABLES WITH READ LOCK"]]),
    b(
        "block_ddl",
        &[&[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
        ]],
    ),
    b(
        "block_commit",
        &[&[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
            "BACKUP STAGE BLOCK_COMMIT",
        ]],
    ),
    b("backup_start", &[&["BACKUP STAGE START"]]),
    b("get_lock", &[&["SELECT GET_LOCK('u1', 0)"]]),
    b("open_select_db1", &[&["BEGIN", "SELECT * FROM db1.t1"]]),
    // Sessions that hold X on the routines `p1`, `f1` and the event `e1`: their CREATE
    // took it (`lock_object_name`, sql/sp.cc and sql/events.cc) and then waits, outside
    // MDL, to write `mysql.proc` / `mysql.event`, which the first session locked (the
    // `hold_` blockers may end `Blocked`, not waiting for a metadata lock).
    b(
        "hold_routines",
        &[
            &["LOCK TABLES mysql.proc WRITE"],
            &["CREATE PROCEDURE p1() SET @x=1"],
            &["CREATE FUNCTION f1() RETURNS INT RETURN 1"],
        ],
    ),
    b(
        "hold_event",
        &[
            &["LOCK TABLES mysql.event WRITE"],
            &["CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SET @x=1"],
        ],
    ),
];

/// The states of the session rules: what the session runs first.
pub const STATES: &[(&str, &[&str])] = &[
    ("idle", &[]),
    ("lt_read", &["LOCK TABLES {t} READ"]),
    ("lt_write", &["LOCK TABLES {t} WRITE"]),
    ("lt_write_concurrent", &["LOCK TABLES {t} WRITE CONCURRENT"]),
    ("lt_other", &["LOCK TABLES t0 READ"]),
    ("ftwrl", &["FLUSH TABLES WITH READ LOCK"]),
    ("bs_start", &["BACKUP STAGE START"]),
    ("bs_flush", &["BACKUP STAGE START", "BACKUP STAGE FLUSH"]),
    (
        "bs_block_ddl",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
        ],
    ),
    (
        "bs_block_commit",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
            "BACKUP STAGE BLOCK_COMMIT",
        ],
    ),
    ("handler", &["HANDLER {t} OPEN"]),
    ("backup_lock", &["BACKUP LOCK {t}"]),
];

/// How a statement sent on a connection stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    Done(Reply),
    /// It finished (with this reply) after being seen running with no PENDING metadata
    /// lock for a while: it was blocked outside MDL first (an InnoDB lock wait that then
    /// timed out, say).
    DoneAfterBlock(Reply),
    /// It waits for a metadata lock (a PENDING row of its own).
    Waiting,
    /// It has not finished and shows no PENDING metadata lock: it waits for something
    /// outside MDL (a row lock, a table flush).
    Blocked,
}

/// Polls of a running statement: 20 ms apart, so about 2 s before one that neither
/// finishes nor waits for a metadata lock, and that the server shows waiting for
/// something else, counts as `Blocked`.
const SETTLE_TRIES: u32 = 100;
/// Further polls (about 8 s) for a statement that shows no wait at all: it is only slow
/// (a commit's fsync or a copying ALTER on a loaded machine). After them it counts as
/// `Blocked` all the same, so that a statement stuck where we cannot see shows up as a
/// difference.
const SLOW_TRIES: u32 = 400;
/// Snapshots with no PENDING lock (about 600 ms, far more than a statement of the fixture
/// takes) after which a statement that then finishes counts as blocked outside MDL first,
/// if the server showed it waiting outside MDL ([`Activity::waits_outside_mdl`]) during
/// them.
const BLOCKED_POLLS: u32 = 15;
const SETTLE_POLL: StdDuration = StdDuration::from_millis(20);
/// `INNODB_TRX` is read every this many polls (at least 160 ms apart: see
/// [`Activity::take`]).
const INNODB_EVERY: u32 = 8;

/// Waits until each busy connection has finished or waits for a metadata lock (bounded).
/// Returns the connections' states in the order given.
///
/// Time alone does not make a statement blocked: on a loaded machine an INSERT's commit
/// was seen to take longer than the 600 ms of [`BLOCKED_POLLS`] (a CI run of
/// `insert-vs-insert.mdl`). It must also have been seen waiting outside MDL.
pub fn settle_all(
    mon: &mut Conn,
    conns: &mut [&mut Conn],
) -> Result<Vec<Option<Settled>>, ConformError> {
    let mut out: Vec<Option<Settled>> = vec![None; conns.len()];
    // "Waiting" needs two snapshots in a row that show every busy statement pending: a
    // statement the server has just woken (or one that goes from one wait to the next,
    // as an in-place ALTER does) can show pending for a moment, longer on a loaded
    // machine.
    let mut pending_seen = 0;
    // Snapshots in a row in which each busy statement showed no PENDING lock, and
    // whether one of them showed it waiting outside MDL.
    let mut unpending: Vec<u32> = vec![0; conns.len()];
    let mut outside: Vec<bool> = vec![false; conns.len()];
    for poll in 0..SETTLE_TRIES + SLOW_TRIES {
        for (i, c) in conns.iter_mut().enumerate() {
            if c.busy() {
                if let Some(r) = c.poll(SETTLE_POLL)? {
                    out[i] = Some(if unpending[i] >= BLOCKED_POLLS && outside[i] {
                        Settled::DoneAfterBlock(r)
                    } else {
                        Settled::Done(r)
                    });
                }
            }
        }
        if conns.iter().all(|c| !c.busy()) {
            return Ok(out);
        }
        let snap = Snapshot::take(mon)?;
        let act = Activity::take(mon, poll % INNODB_EVERY == INNODB_EVERY - 1)?;
        for (i, c) in conns.iter().enumerate() {
            if c.busy() && !snap.has_pending(c.id) {
                unpending[i] += 1;
                // (Seeded bug: time alone makes a statement blocked, as before.)
                outside[i] |= act.waits_outside_mdl(c.id).is_some()
                    || cfg!(mdl_bug = "conform_blocked_by_time");
            } else {
                unpending[i] = 0;
                outside[i] = false;
            }
        }
        if conns.iter().all(|c| !c.busy() || snap.has_pending(c.id)) {
            pending_seen += 1;
        } else {
            pending_seen = 0;
        }
        if pending_seen >= 2 {
            for (i, c) in conns.iter().enumerate() {
                if c.busy() {
                    out[i] = Some(Settled::Waiting);
                }
            }
            return Ok(out);
        }
        // Past the first 2 s, go on only for statements that show no wait at all.
        if poll + 1 >= SETTLE_TRIES
            && conns
                .iter()
                .enumerate()
                .all(|(i, c)| !c.busy() || snap.has_pending(c.id) || outside[i])
        {
            break;
        }
    }
    let snap = Snapshot::take(mon)?;
    for (i, c) in conns.iter().enumerate() {
        if c.busy() {
            out[i] = Some(if snap.has_pending(c.id) {
                Settled::Waiting
            } else {
                Settled::Blocked
            });
        }
    }
    Ok(out)
}

pub fn settle(mon: &mut Conn, c: &mut Conn) -> Result<Settled, ConformError> {
    Ok(settle_all(mon, &mut [c])?
        .pop()
        .flatten()
        .unwrap_or(Settled::Waiting))
}

/// Ends whatever a connection runs or holds, then closes it.
pub fn cleanup(mon: &mut Conn, mut c: Conn) -> Result<(), ConformError> {
    if c.busy() {
        mon.query(&format!("KILL QUERY {}", c.id))?;
        if c.poll(LONG)?.is_none() {
            return Err(ConformError::Server(
                "a killed statement did not end".into(),
            ));
        }
    }
    for s in [
        "ROLLBACK",
        "UNLOCK TABLES",
        "BACKUP STAGE END",
        "SELECT RELEASE_ALL_LOCKS()",
    ] {
        let _ = c.exec(s)?;
    }
    Ok(())
}

/// Waits (bounded) until no connection but the monitor holds or waits for a lock.
pub fn quiesce(mon: &mut Conn) -> Result<(), ConformError> {
    for _ in 0..SETTLE_TRIES * 5 {
        if Snapshot::take(mon)?.by_conn.values().all(|v| v.is_empty()) {
            return Ok(());
        }
        std::thread::sleep(SETTLE_POLL);
    }
    Err(ConformError::Server(
        "locks of closed connections linger".into(),
    ))
}

/// The schemas the server itself needs; every other one but `test` is dropped by
/// [`fresh`].
const SYSTEM_SCHEMAS: &[&str] = &[
    "mysql",
    "information_schema",
    "performance_schema",
    "sys",
    "test",
];

/// What exists: schemas, tables with their columns and indexes, views, triggers, stored
/// routines and events. Equal to the value right after the fixture was made, nothing needs making again (rows may
/// differ; they decide no metadata lock).
const SIGNATURE: &str = "SELECT CONCAT_WS('|', \
(SELECT GROUP_CONCAT(SCHEMA_NAME ORDER BY SCHEMA_NAME) FROM information_schema.SCHEMATA), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_SCHEMA,'.',TABLE_NAME,':',TABLE_TYPE,':',IFNULL(ENGINE,'')) \
 ORDER BY TABLE_SCHEMA, TABLE_NAME) FROM information_schema.TABLES \
 WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_NAME,'.',COLUMN_NAME) ORDER BY TABLE_NAME, COLUMN_NAME) \
 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='test'), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_NAME,'.',INDEX_NAME) ORDER BY TABLE_NAME, INDEX_NAME) \
 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='test'), \
(SELECT COUNT(*) FROM information_schema.TRIGGERS), \
(SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA='test'), \
(SELECT COUNT(*) FROM information_schema.EVENTS))";

thread_local! {
    /// The signature right after the fixture was last made (per monitor connection id).
    static FIXTURE_SIGNATURE: std::cell::RefCell<Option<(u64, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// A fresh fixture, with no other connection holding anything, and no schema left from
/// an earlier scenario's setup.
pub fn fresh(mon: &mut Conn) -> Result<(), ConformError> {
    quiesce(mon)?;
    // A prepared XA transaction outlives its connection (sql/xa.cc, MariaDB 10.5+) with
    // its locks: an earlier scenario's is rolled back (measured: else the fixture's DROP
    // TABLE waits for it). A server without `FORMAT='SQL'` answers an error: none there.
    let xids = mon.exec("XA RECOVER FORMAT='SQL'")?;
    for r in xids.rows {
        if let Some(xid) = r.get(3) {
            mon.query(&format!("XA ROLLBACK {xid}"))?;
        }
    }
    let sig = mon.query_one(SIGNATURE)?;
    let same = FIXTURE_SIGNATURE.with(|f| f.borrow().as_ref() == Some(&(mon.id, sig.clone())));
    if same {
        mon.query("USE test")?;
        return Ok(());
    }
    for r in mon.query("SHOW DATABASES")? {
        if let Some(db) = r.first() {
            if !SYSTEM_SCHEMAS.contains(&db.as_str()) {
                mon.query(&format!("DROP DATABASE `{}`", db.replace('`', "``")))?;
            }
        }
    }
    // Tables, views and triggers an earlier scenario made go with the schema (the
    // fixture alone is only made again: quicker).
    let fixture: Vec<&str> = super::mapping::FIXTURE_TABLES
        .iter()
        .map(|(t, _)| *t)
        .collect();
    let extra = mon
        .query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='test' \
             UNION ALL SELECT TRIGGER_NAME FROM information_schema.TRIGGERS \
             WHERE TRIGGER_SCHEMA='test' UNION ALL SELECT ROUTINE_NAME FROM \
             information_schema.ROUTINES WHERE ROUTINE_SCHEMA='test' UNION ALL SELECT \
             EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA='test'",
        )?
        .into_iter()
        .any(|r| r.first().is_none_or(|t| !fixture.contains(&t.as_str())));
    if extra {
        mon.query("DROP DATABASE IF EXISTS test")?;
    }
    mon.query("CREATE DATABASE IF NOT EXISTS test")?;
    mon.query("USE test")?;
    // Users outlive the schema: the ones `mdl conform --random` makes go too (the
    // model's catalog starts with none; seeds 330053, 330070 met a u1 an earlier
    // scenario made).
    mon.query("DROP USER IF EXISTS u1, u2")?;
    mon.query(FIXTURE)?;
    let sig = mon.query_one(SIGNATURE)?;
    FIXTURE_SIGNATURE.with(|f| *f.borrow_mut() = Some((mon.id, sig)));
    Ok(())
}

fn run_all(c: &mut Conn, stmts: &[&str]) -> Result<(), ConformError> {
    for s in stmts {
        if let Some((code, m)) = c.exec(s)?.error {
            return Err(ConformError::Server(format!("`{s}`: error {code}: {m}")));
        }
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    ns_rank: u8,
    db: String,
    name: String,
    ty_rank: u8,
    ns: String,
    ty: LockType,
}

fn node(d: &Dialect, r: &LockRow) -> Node {
    Node {
        ns_rank: d.namespace_by_name(&r.ns).map(|n| n.0).unwrap_or(u8::MAX),
        db: r.db.clone(),
        name: r.name.clone(),
        ty_rank: r.ty.0,
        ns: r.ns.clone(),
        ty: r.ty,
    }
}

fn same_key(a: &Node, b: &Node) -> bool {
    a.ns == b.ns && a.db == b.db && a.name == b.name
}

/// The first and second fixture tables a kind's SQL uses (`t1`/`t2`, or `m1`/`m2` for
/// a MyISAM kind).
fn slots(k: &KindDef) -> (&'static str, &'static str) {
    if k.name.ends_with(".myisam") {
        ("m1", "m2")
    } else {
        ("t1", "t2")
    }
}

fn subst(s: &str, k: &KindDef) -> String {
    let (t, t2) = slots(k);
    s.replace("{t2}", t2).replace("{t}", t)
}

/// The key template of a lock of the fixture.
pub fn template(ns: &str, db: &str, name: &str) -> String {
    match (ns, db, name) {
        ("BACKUP", _, _) => "-".into(),
        ("SCHEMA", "test", _) => "$db".into(),
        ("SCHEMA", "db1", _) => "$s".into(),
        ("SCHEMA", d, _) => d.into(),
        ("USER_LOCK", "u1", _) => "$lock".into(),
        ("TRIGGER", "test", "tr1") => "$tr".into(),
        // A stored routine or event of the routine kinds (`p1`, `f1`, `e1`).
        ("PROCEDURE", "test", "p1") | ("FUNCTION", "test", "f1") | ("EVENT", "test", "e1") => {
            "$r".into()
        }
        (_, "test", "t1" | "m1") => "$t".into(),
        (_, "test", "t2" | "m2") => "$t2".into(),
        (_, "test", "t3") => "$n".into(),
        (_, "test", "t4") => "$n2".into(),
        (_, "test", "v1") => "$v".into(),
        (_, "db1", _) => "$s.*".into(),
        (_, d, n) => format!("{d}.{n}"),
    }
}

fn rows(s: &Snapshot, id: u64) -> Vec<LockRow> {
    s.of(id).iter().map(|o| o.row.clone()).collect()
}

fn prep(mon: &mut Conn, k: &KindDef) -> Result<(), ConformError> {
    fresh(mon)?;
    for s in k.prep {
        mon.query(s)?;
    }
    Ok(())
}

/// Starts a blocker's sessions; `None` when one of its statements failed.
fn start_blocker(
    server: &Server,
    mon: &mut Conn,
    bl: &Blocker,
    k: &KindDef,
) -> Result<Option<Vec<Conn>>, ConformError> {
    let mut conns = Vec::new();
    for stmts in bl.sessions {
        let mut c = server.connect()?;
        for (i, s) in stmts.iter().enumerate() {
            c.send(&subst(s, k))?;
            match settle(mon, &mut c)? {
                Settled::Done(r) | Settled::DoneAfterBlock(r) if r.error.is_none() => {}
                Settled::Waiting if i + 1 == stmts.len() => {}
                Settled::Blocked if i + 1 == stmts.len() && bl.name.starts_with("hold_") => {}
                _ => {
                    conns.push(c);
                    for c in conns.into_iter().rev() {
                        cleanup(mon, c)?;
                    }
                    return Ok(None);
                }
            }
        }
        conns.push(c);
    }
    Ok(Some(conns))
}

fn stop_blocker(mon: &mut Conn, conns: Vec<Conn>) -> Result<(), ConformError> {
    // The waiting sessions first, then the one they wait for.
    for c in conns.into_iter().rev() {
        cleanup(mon, c)?;
    }
    Ok(())
}

/// Learns one kind.
fn learn_kind(
    server: &Server,
    mon: &mut Conn,
    k: &KindDef,
    log: &mut dyn Write,
) -> Result<KindRow, ConformError> {
    let d = Dialect::mariadb();
    let is_t0 = |r: &LockRow| r.db == "test" && r.name == "t0";
    // The held probe.
    prep(mon, k)?;
    let in_txn = k.setup.first() == Some(&"BEGIN");
    let mut a = server.connect()?;
    run_all(&mut a, k.setup)?;
    let s0 = rows(&Snapshot::take(mon)?, a.id);
    if !in_txn {
        run_all(&mut a, &["BEGIN"])?;
    }
    run_all(&mut a, &["SELECT * FROM t0"])?;
    let reply = a.exec(k.sql)?;
    let s1: Vec<LockRow> = rows(&Snapshot::take(mon)?, a.id);
    let implicit_commit = !s1.iter().any(is_t0);
    let s1: Vec<LockRow> = s1.into_iter().filter(|r| !is_t0(r)).collect();
    let _ = a.exec("COMMIT")?;
    let s2 = rows(&Snapshot::take(mon)?, a.id);
    cleanup(mon, a)?;
    let _ = writeln!(
        log,
        "{}: held {:?} after-commit {:?} implicit_commit {implicit_commit}{}",
        k.name,
        s1.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        s2.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        reply
            .error
            .as_ref()
            .map(|(c, m)| format!(" (error {c}: {m})"))
            .unwrap_or_default()
    );

    let mut nodes: Vec<(Node, BTreeSet<String>)> = Vec::new();
    let add = |n: Node, ev: String, nodes: &mut Vec<(Node, BTreeSet<String>)>| match nodes
        .iter_mut()
        .find(|(x, _)| *x == n)
    {
        Some((_, e)) => {
            e.insert(ev);
        }
        None => nodes.push((n, [ev].into())),
    };
    for r in &s1 {
        if !s0.contains(r) {
            add(node(&d, r), "held".into(), &mut nodes);
        }
    }
    // The request probes: (granted, pending) of the statement while it waited.
    let mut obs: Vec<(Vec<Node>, Node)> = Vec::new();
    for bl in BLOCKERS {
        prep(mon, k)?;
        let Some(x) = start_blocker(server, mon, bl, k)? else {
            let _ = writeln!(log, "{}: blocker {} did not start", k.name, bl.name);
            continue;
        };
        let mut a = server.connect()?;
        let mut setup_ok = true;
        let begin: &[&str] = if in_txn { &[] } else { &["BEGIN"] };
        for s in begin.iter().chain(k.setup) {
            a.send(s)?;
            match settle(mon, &mut a)? {
                Settled::Done(_) | Settled::DoneAfterBlock(_) => {}
                _ => {
                    setup_ok = false;
                    break;
                }
            }
        }
        if setup_ok {
            let before = rows(&Snapshot::take(mon)?, a.id);
            a.send(k.sql)?;
            let st = settle(mon, &mut a)?;
            if st == Settled::Waiting {
                let now = rows(&Snapshot::take(mon)?, a.id);
                let new: Vec<&LockRow> = now.iter().filter(|r| !before.contains(r)).collect();
                let pend: Vec<&LockRow> = new.iter().copied().filter(|r| r.pending).collect();
                let gr: Vec<&LockRow> = new.iter().copied().filter(|r| !r.pending).collect();
                let _ = writeln!(
                    log,
                    "{}: behind {}: granted {:?} pending {:?}",
                    k.name,
                    bl.name,
                    gr.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                    pend.iter().map(|r| r.to_string()).collect::<Vec<_>>()
                );
                for p in &pend {
                    let mut pr = (*p).clone();
                    pr.pending = false;
                    let pn = node(&d, &pr);
                    add(pn.clone(), format!("{}:pending", bl.name), &mut nodes);
                    for g in &gr {
                        add(node(&d, g), format!("{}:granted", bl.name), &mut nodes);
                    }
                    obs.push((gr.iter().map(|g| node(&d, g)).collect::<Vec<_>>(), pn));
                }
            } else {
                let _ = writeln!(log, "{}: behind {}: {st:?}", k.name, bl.name);
            }
        }
        cleanup(mon, a)?;
        stop_blocker(mon, x)?;
    }
    let base = k.name.split('.').next().unwrap_or(k.name);
    let ops = order_ops(
        &d,
        &nodes,
        &obs,
        &s0,
        &s1,
        &s2,
        SORTED_GROUP
            .iter()
            .any(|g| base == *g || base.starts_with(&format!("{g}_"))),
    );
    let mut ops = ops;
    if base == "drop_function" {
        drop_function_releases_trans_dml(&mut ops);
    }
    if INPLACE_TWICE.contains(&base) {
        // mysql_inplace_alter_table (sql/sql_table.cc): X for the prepare phase, then
        // down to SU while the engine rebuilds (HA_ALTER_INPLACE_NO_LOCK_AFTER_PREPARE),
        // and X again to commit. The probes end the statement at its first wait, so the
        // second X is written from the source (known-differences/inplace-alter-takes-x-
        // twice.mdl showed it).
        inplace_down_then_x(&mut ops, "SU");
    }
    if k.name == "alter_inplace_lock_shared" {
        // The same with a requested LOCK=SHARED: down to SNW (not SU) while the engine
        // rebuilds, then X again to commit; LOCK=EXCLUSIVE keeps the X (no move down).
        inplace_down_then_x(&mut ops, "SNW");
    }
    if k.name == "alter_copy"
        || k.name == "alter_copy_rename"
        || k.name == "alter_copy_lock_exclusive"
        || k.name == "alter_partition_by"
    {
        // copy_data_between_tables (sql/sql_table.cc): once the table is SNW the BACKUP_DDL
        // ticket moves down to BACKUP_ALTER_COPY while the rows are copied
        // (backup_set_alter_copy_lock, sql/backup.cc), so BACKUP STAGE BLOCK_DDL is let in,
        // and back up to BACKUP_DDL before the rename (backup_reset_alter_copy_lock),
        // waiting for BLOCK_DDL. The probes end the statement at its first wait, so both
        // are written from the source (suite/backup-lock-flush-vs-alter-copy.mdl shows
        // them). The MyISAM row keeps what was measured: its backup ticket is not shown
        // to move. With LOCK=EXCLUSIVE the table is X (wait_while_table_is_used in
        // mysql_alter_table) before the copy instead of SNW.
        let copy_lock = if matches!(k.name, "alter_copy" | "alter_copy_rename") {
            "SNW"
        } else {
            "X"
        };
        if let Some(snw) = ops
            .iter()
            .position(|o| o.op == OpKind::Upgrade && o.key == "$t" && o.ty.abbrev() == copy_lock)
        {
            let dur = ops[snw].dur;
            let mk = |ty| {
                source_upgrade(
                    "BACKUP",
                    "-",
                    ty,
                    dur,
                    "sql_table.cc:copy_data_between_tables",
                )
            };
            ops.insert(snw + 1, mk("BACKUP_ALTER_COPY"));
            ops.insert(snw + 2, mk("BACKUP_DDL"));
        }
    }
    if base == "repair" || k.name == "optimize.myisam" {
        // mysql_admin_table (sql/sql_admin.cc): a table opened for TL_WRITE with a lock
        // stronger than SW (REPAIR's SNRW; OPTIMIZE of a MyISAM table opens it SW, then
        // moves it to SNRW) is upgraded to X by wait_while_table_is_used before the
        // engine's operation, whatever the engine. The probes' SR holder blocks the SNRW
        // first, so the X is written from the source (measured with a BACKUP LOCK's SH,
        // which SNRW lets in: found/seed-180432). Before the X, one more request the
        // probes cannot see apart (their blockers, FTWRL and BLOCK_DDL, stop the
        // statement at an earlier backup lock), measured behind that BACKUP LOCK: a
        // MyISAM REPAIR takes BACKUP_DML after its BACKUP_DDL (found/seed-221930), a
        // MyISAM OPTIMIZE BACKUP_DDL after its BACKUP_DML (found/seed-221930-2).
        if let Some(last) = ops
            .iter()
            .rposition(|o| o.key == "$t" && o.ty.abbrev() == "SNRW")
        {
            let dur = ops[last].dur;
            let before = match k.name {
                "repair.myisam" => Some(("BACKUP_DML", "found/seed-221930")),
                "optimize.myisam" => Some(("BACKUP_DDL", "found/seed-221930-2")),
                _ => None,
            };
            // REPAIR's back-off for BACKUP_DDL follows its SNRW: after it, at the end.
            let mut at = if base == "repair" {
                ops.len()
            } else {
                last + 1
            };
            if let Some((ty, file)) = before {
                ops.insert(at, measured_acquire("BACKUP", "-", ty, dur, file));
                at += 1;
            }
            ops.insert(
                at,
                source_upgrade("TABLE", "$t", "X", dur, "sql_admin.cc:mysql_admin_table"),
            );
        }
    }
    Ok(KindRow {
        name: k.name.into(),
        implicit_commit,
        sql: k.sql.into(),
        ops,
    })
}

/// An upgrade the probes cannot see, written from the server's source (`FILE:FUNCTION`,
/// kept as the op's evidence `source:FILE:FUNCTION`).
/// After the last upgrade of the table to X (the in-place prepare phase), the move down to
/// `down` while the engine works and the X again to commit (mysql_inplace_alter_table,
/// sql/sql_table.cc), written from the source.
fn inplace_down_then_x(ops: &mut Vec<Op>, down: &str) {
    let Some(x) = ops
        .iter()
        .rposition(|o| o.op == OpKind::Upgrade && o.key == "$t" && o.ty.abbrev() == "X")
    else {
        return;
    };
    let dur = ops[x].dur;
    let mk = |ty| {
        source_upgrade(
            "TABLE",
            "$t",
            ty,
            dur,
            "sql_table.cc:mysql_inplace_alter_table",
        )
    };
    ops.insert(x + 1, mk(down));
    ops.insert(x + 2, mk("X"));
}

/// DROP FUNCTION of a name without a schema first tries the UDF of that name
/// (sql_parse.cc, SQLCOM_DROP_FUNCTION → mysql_drop_function in sql_udf.cc): it opens
/// mysql.func for write (BACKUP_TRANS_DML) and closes it again (close_mysql_tables) when
/// no UDF has the name, before the stored function's own locks (lock_object_name:
/// BACKUP_DDL, ...). The probes see BACKUP_TRANS_DML, then BACKUP_DDL without it, which
/// reads as an upgrade; it is a release and an acquire (measured: found/seed-390238, the
/// DROP waiting for BACKUP_DDL behind BACKUP STAGE BLOCK_DDL holds no BACKUP_TRANS_DML).
fn drop_function_releases_trans_dml(ops: &mut Vec<Op>) {
    let Some(i) = ops
        .iter()
        .position(|o| o.op == OpKind::Upgrade && o.ns == "BACKUP" && o.ty.abbrev() == "BACKUP_DDL")
    else {
        return;
    };
    let Some(trans) = ops[..i]
        .iter()
        .rposition(|o| o.ns == "BACKUP" && o.ty.abbrev() == "BACKUP_TRANS_DML")
    else {
        return;
    };
    let mut release = ops[trans].clone();
    release.op = OpKind::Release;
    release.evidence = "source:sql_udf.cc:mysql_drop_function".into();
    ops[i].op = OpKind::Acquire;
    ops.insert(i, release);
}

fn source_upgrade(ns: &str, key: &str, ty: &str, dur: Duration, source: &str) -> Op {
    Op {
        op: OpKind::Upgrade,
        ns: ns.into(),
        key: key.into(),
        ty: LockType::parse(ty).expect("a built-in lock type"),
        dur,
        evidence: format!("source:{source}"),
    }
}

/// A request the probes cannot see apart, measured with another holder (the scenario
/// that shows it, kept as the op's evidence `measured:FILE`).
fn measured_acquire(ns: &str, key: &str, ty: &str, dur: Duration, file: &str) -> Op {
    Op {
        op: OpKind::Acquire,
        ns: ns.into(),
        key: key.into(),
        ty: LockType::parse(ty).expect("a built-in lock type"),
        dur,
        evidence: format!("measured:{file}"),
    }
}

/// In-place ALTER kinds that take X twice (see `learn_kind`).
const INPLACE_TWICE: &[&str] = &["alter_inplace", "create_index", "alter_inplace_rename"];

/// Kinds whose locks one `acquire_locks` call takes in key order, with no back-off
/// (read from the server source, `sql/*.cc`): `FLUSH TABLES t1, ...` and `FLUSH TABLES
/// t1, ... WITH READ LOCK` / `FOR EXPORT` (`reload_acl_and_cache` /
/// `flush_tables_with_read_lock` call
/// `lock_table_names` with `MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK`: no IX, no BACKUP_DDL),
/// `CREATE DATABASE` and `DROP DATABASE` (`lock_schema_name`: BACKUP_DDL and the schema's
/// X in one `acquire_locks`). Their measured ops are marked `bulk`; the `check` kinds
/// with the tables swapped verify the key order.
pub const SORTED_GROUP: &[&str] = &[
    "flush_table",
    "ftwrl_table",
    "flush_export",
    "flush_export.myisam",
    "create_db",
    "drop_db",
];

/// Orders the observed locks of a kind into ops (see the module documentation).
fn order_ops(
    d: &Dialect,
    nodes: &[(Node, BTreeSet<String>)],
    obs: &[(Vec<Node>, Node)],
    s0: &[LockRow],
    s1: &[LockRow],
    s2: &[LockRow],
    sorted_group: bool,
) -> Vec<Op> {
    let all: Vec<Node> = nodes.iter().map(|(n, _)| n.clone()).collect();
    // Everything granted while a lock waited was requested before it; every other lock
    // of the statement (another key) after it.
    let s2n: Vec<Node> = s2.iter().map(|r| node(d, r)).collect();
    let s1n: Vec<Node> = s1.iter().map(|r| node(d, r)).collect();
    let s0n: Vec<Node> = s0.iter().map(|r| node(d, r)).collect();
    // On one key, the type held after the statement is the last one; the others come
    // first, weaker first (a ticket's type only moves forward in this order).
    let held = |n: &Node| s1n.contains(n) || s2n.contains(n);
    let key_before = |m: &Node, n: &Node| {
        same_key(m, n) && m != n && (held(m), m.ty_rank) < (held(n), n.ty_rank)
    };
    let mut pos: BTreeSet<(Node, Node)> = BTreeSet::new();
    let mut neg: BTreeSet<(Node, Node)> = BTreeSet::new();
    for (gr, p) in obs {
        for g in gr {
            pos.insert((g.clone(), p.clone()));
        }
        for n in &all {
            if same_key(n, p) {
                continue;
            }
            // Not granted: after the pending lock. A ticket shown with an earlier type of
            // its key than `n` has not reached `n` yet.
            let shown: Vec<&Node> = gr.iter().filter(|g| same_key(g, n)).collect();
            if shown.is_empty() || shown.iter().all(|g| key_before(g, n)) {
                neg.insert((p.clone(), n.clone()));
            }
        }
    }
    // The back-off: a BACKUP_DDL lock the facts put both before and after another lock.
    let backoff: Option<Node> = all
        .iter()
        .find(|n| {
            n.ns == "BACKUP"
                && n.ty.abbrev() == "BACKUP_DDL"
                && neg.iter().any(|(a, b)| {
                    a == *n
                        && (pos.contains(&(b.clone(), a.clone()))
                            || neg.contains(&(b.clone(), a.clone())))
                })
        })
        .cloned();
    let mut edges: BTreeSet<(Node, Node)> = pos.clone();
    for e in &neg {
        if Some(&e.0) != backoff.as_ref() {
            edges.insert(e.clone());
        }
    }
    // The locks of the back-off's waits that stayed granted (taken before the group).
    let kept: Vec<Node> = match &backoff {
        Some(bk) => {
            let views: Vec<&Vec<Node>> = obs
                .iter()
                .filter(|(_, p)| p == bk)
                .map(|(g, _)| g)
                .collect();
            all.iter()
                .filter(|n| !views.is_empty() && views.iter().all(|g| g.contains(n)))
                .cloned()
                .collect()
        }
        None => Vec::new(),
    };
    let before = |m: &Node, n: &Node| key_before(m, n) && !edges.contains(&(n.clone(), m.clone()));
    let mut left: Vec<Node> = all.clone();
    left.sort();
    let mut order: Vec<Node> = Vec::new();
    while !left.is_empty() {
        let ready = left
            .iter()
            .position(|n| {
                !edges.iter().any(|(a, b)| b == n && left.contains(a))
                    && !left.iter().any(|m| before(m, n))
            })
            .unwrap_or(0);
        order.push(left.remove(ready));
    }
    // The back-off's group: the locks the facts put before it that were not granted
    // while it waited; the locks that stayed granted were taken before the group, and
    // the group ends right before the back-off.
    let mut bulk: Vec<Node> = Vec::new();
    if let Some(bk) = &backoff {
        let mut before_bk: BTreeSet<Node> = BTreeSet::new();
        let mut grew = true;
        before_bk.insert(bk.clone());
        while grew {
            grew = false;
            for (a, b) in &edges {
                if before_bk.contains(b) && !before_bk.contains(a) {
                    before_bk.insert(a.clone());
                    grew = true;
                }
            }
        }
        before_bk.remove(bk);
        bulk = order
            .iter()
            .filter(|n| before_bk.contains(*n) && !kept.contains(n))
            .cloned()
            .collect();
        // CREATE TABLE's upgrade of the new table to X comes between the group and the
        // back-off (lock_table_names: `upgrade_lock_if_not_exists` runs after
        // `acquire_locks` and before BACKUP_DDL's `try_acquire_lock`), unless the facts
        // put it after the back-off.
        let mut after_bk: BTreeSet<Node> = BTreeSet::new();
        after_bk.insert(bk.clone());
        let mut grew = true;
        while grew {
            grew = false;
            for (a, b) in &edges {
                if after_bk.contains(a) && !after_bk.contains(b) {
                    after_bk.insert(b.clone());
                    grew = true;
                }
            }
        }
        let between: Vec<Node> = order
            .iter()
            .filter(|n| {
                !before_bk.contains(*n)
                    && !after_bk.contains(*n)
                    && template(&n.ns, &n.db, &n.name) == "$n"
                    && bulk.iter().any(|b| same_key(b, n))
            })
            .cloned()
            .collect();
        let mut h: Vec<Node> = order
            .iter()
            .filter(|n| before_bk.contains(*n) && kept.contains(n))
            .cloned()
            .collect();
        h.extend(bulk.iter().cloned());
        h.extend(between.iter().cloned());
        h.push(bk.clone());
        h.extend(
            order
                .iter()
                .filter(|n| !before_bk.contains(*n) && *n != bk && !between.contains(n))
                .cloned(),
        );
        order = h;
    }
    // Two types on one key seen granted together are two tickets.
    let both_held = |m: &Node, n: &Node| {
        let end: Vec<&Node> = if s2n.is_empty() {
            s1n.iter().collect()
        } else {
            s2n.iter().collect()
        };
        (end.contains(&m) && end.contains(&n))
            || obs.iter().any(|(gr, _)| gr.contains(m) && gr.contains(n))
    };
    let mut ops = Vec::new();
    for (i, n) in order.iter().enumerate() {
        // A later type on a key is an upgrade of the ticket, unless both stay held (two
        // tickets, as BACKUP_DDL and BACKUP_DML of LOCK TABLES WRITE on MyISAM).
        let earlier = order[..i]
            .iter()
            .any(|m| same_key(m, n) && !both_held(m, n))
            || s0n.iter().any(|m| same_key(m, n));
        // A ticket keeps its duration through upgrades: the key's final duration.
        let dur = if s2n.iter().any(|m| same_key(m, n)) {
            Duration::Explicit
        } else if s1n.iter().any(|m| same_key(m, n)) {
            Duration::Transaction
        } else {
            Duration::Statement
        };
        let ev = nodes
            .iter()
            .find(|(x, _)| x == n)
            .map(|(_, e)| e.iter().cloned().collect::<Vec<_>>().join(","))
            .unwrap_or_default();
        let op = if earlier {
            OpKind::Upgrade
        } else if Some(n) == backoff.as_ref() {
            OpKind::Backoff
        } else if bulk.contains(n) || (sorted_group && backoff.is_none()) {
            OpKind::Bulk
        } else {
            OpKind::Acquire
        };
        ops.push(Op {
            op,
            ns: n.ns.clone(),
            key: template(&n.ns, &n.db, &n.name),
            ty: n.ty,
            dur,
            evidence: ev,
        });
    }
    // CREATE TABLE takes the new table SU and upgrades it to X when it does not exist
    // (`upgrade_lock_if_not_exists`, sql/sql_base.cc). Nothing can make that upgrade wait
    // when the statement names no other table, so it is not always seen: written from
    // the source then.
    let bulk_new = ops.iter().position(|o| {
        o.op == OpKind::Bulk && o.key == "$n" && o.ns == "TABLE" && o.ty.abbrev() == "SU"
    });
    let has_x = ops.iter().any(|o| o.key == "$n" && o.ty.abbrev() == "X");
    if let (Some(_), false) = (bulk_new, has_x) {
        if let Some(bk) = ops.iter().position(|o| o.op == OpKind::Backoff) {
            ops.insert(
                bk,
                source_upgrade(
                    "TABLE",
                    "$n",
                    "X",
                    Duration::Statement,
                    "sql_base.cc:upgrade_lock_if_not_exists",
                ),
            );
        }
    }
    for r in s0 {
        let n = node(d, r);
        if !s1n.iter().any(|m| same_key(m, &n)) {
            ops.push(Op {
                op: OpKind::Release,
                ns: n.ns.clone(),
                key: template(&n.ns, &n.db, &n.name),
                ty: n.ty,
                dur: Duration::Explicit,
                evidence: "setup-lock-gone".into(),
            });
        }
    }
    ops
}

fn lock_templates(rs: &[LockRow]) -> Vec<LockTemplate> {
    let mut v: Vec<LockTemplate> = rs
        .iter()
        .filter(|r| !(r.db == "test" && r.name == "t0"))
        .map(|r| LockTemplate {
            ns: r.ns.clone(),
            key: template(&r.ns, &r.db, &r.name),
            ty: r.ty,
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The kinds whose session rules are learned: those without a session setup (the BACKUP
/// stages after START and HANDLER READ follow their own state machines) and not
/// `check` kinds.
pub fn rule_kinds() -> impl Iterator<Item = &'static KindDef> {
    KINDS.iter().filter(|k| {
        !k.check
            && (k.setup.is_empty() || k.name.starts_with("backup_"))
            && k.name != "commit_write"
    })
}

/// Learns one session rule: state `st` (its statements), then kind `k`.
fn learn_rule(
    server: &Server,
    mon: &mut Conn,
    st: &(&str, &[&str]),
    k: &KindDef,
    log: &mut dyn Write,
) -> Result<Option<RuleRow>, ConformError> {
    prep(mon, k)?;
    let mut a = server.connect()?;
    for s in st.1 {
        let r = a.exec(&subst(s, k))?;
        if let Some((c, m)) = r.error {
            let _ = writeln!(log, "rule {} {}: state failed: {c} {m}", st.0, k.name);
            cleanup(mon, a)?;
            return Ok(None);
        }
    }
    let before = rows(&Snapshot::take(mon)?, a.id);
    a.send(k.sql)?;
    let res = settle(mon, &mut a)?;
    let after = rows(&Snapshot::take(mon)?, a.id);
    let row = match &res {
        Settled::Done(r) | Settled::DoneAfterBlock(r) => {
            let error = r.error.as_ref().map(|e| e.0).or_else(|| r.admin_error());
            let added: Vec<LockRow> = after
                .iter()
                .filter(|x| !before.contains(x))
                .cloned()
                .collect();
            let removed: Vec<LockRow> = before
                .iter()
                .filter(|x| !after.contains(x))
                .cloned()
                .collect();
            let _ = writeln!(
                log,
                "rule {} {}: {:?} added {:?} removed {:?}",
                st.0,
                k.name,
                r.error,
                added.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                removed.iter().map(|r| r.to_string()).collect::<Vec<_>>()
            );
            Some(RuleRow {
                state: st.0.into(),
                kind: k.name.into(),
                error,
                added: lock_templates(&added),
                removed: lock_templates(&removed),
            })
        }
        other => {
            let _ = writeln!(log, "rule {} {}: {other:?} {:?}", st.0, k.name, after);
            None
        }
    };
    cleanup(mon, a)?;
    Ok(row)
}

/// Learns again the kinds named (their rows and session rules) into `base`.
pub fn learn_only(
    server: &Server,
    base: &Mapping,
    names: &[String],
    log: &mut dyn Write,
) -> Result<Mapping, ConformError> {
    let mut mon = server.connect()?;
    let mut m = base.clone();
    m.header = Mapping::header_for(server.version());
    for k in KINDS.iter().filter(|k| names.iter().any(|n| n == k.name)) {
        let row = learn_kind(server, &mut mon, k, log)?;
        match m.kinds.iter_mut().find(|r| r.name == k.name) {
            Some(r) => *r = row,
            None => m.kinds.push(row),
        }
        if rule_kinds().any(|r| r.name == k.name) {
            m.rules.retain(|r| r.kind != k.name);
            for st in STATES {
                if st.0 == "idle" && !k.name.starts_with("backup_") {
                    continue;
                }
                if let Some(r) = learn_rule(server, &mut mon, st, k, log)? {
                    m.rules.push(r);
                }
            }
        }
    }
    // `state:NAME`: that state's rules for every kind.
    for st in STATES
        .iter()
        .filter(|st| names.iter().any(|n| n.strip_prefix("state:") == Some(st.0)))
    {
        m.rules.retain(|r| r.state != st.0);
        for k in rule_kinds() {
            if st.0 == "idle" && !k.name.starts_with("backup_") {
                continue;
            }
            if let Some(r) = learn_rule(server, &mut mon, st, k, log)? {
                m.rules.push(r);
            }
        }
    }
    // Rows in the order of KINDS, rules by state then kind, as `learn` writes them.
    m.kinds.sort_by_key(|r| {
        KINDS
            .iter()
            .position(|k| k.name == r.name)
            .unwrap_or(usize::MAX)
    });
    let st_pos = |s: &str| STATES.iter().position(|x| x.0 == s).unwrap_or(usize::MAX);
    let k_pos = |s: &str| KINDS.iter().position(|x| x.name == s).unwrap_or(usize::MAX);
    m.rules.sort_by_key(|r| (st_pos(&r.state), k_pos(&r.kind)));
    Ok(m)
}

/// Learns the whole table on a running server.
pub fn learn(server: &Server, log: &mut dyn Write) -> Result<Mapping, ConformError> {
    let mut mon = server.connect()?;
    let mut m = Mapping {
        header: Mapping::header_for(server.version()),
        kinds: Vec::new(),
        rules: Vec::new(),
    };
    for k in KINDS {
        m.kinds.push(learn_kind(server, &mut mon, k, log)?);
    }
    for st in STATES {
        for k in rule_kinds() {
            if st.0 == "idle" && !k.name.starts_with("backup_") {
                continue;
            }
            if let Some(r) = learn_rule(server, &mut mon, st, k, log)? {
                m.rules.push(r);
            }
        }
    }
    Ok(m)
}
