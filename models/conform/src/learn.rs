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

mod optimize;
mod order;
mod outfiles;
mod settle;

use super::client::Conn;
use super::locks::{LockRow, Snapshot};
use super::server::Server;
use super::ConformError;
use mdl_core::{Dialect, LockType};
use mdl_sql::kind::{Kind, RowVariant};
use mdl_sql::mapping::{KindDef, KindRow, LockTemplate, Mapping, Op, OpKind, RuleRow, KINDS};
use order::{
    drop_function_releases_trans_dml, inplace_down_then_x, measured_acquire, order_ops,
    source_upgrade, INPLACE_TWICE, SORTED_GROUP,
};
use settle::run_all;
pub use settle::{cleanup, fresh, quiesce, settle, settle_all, Settled};
use std::collections::BTreeSet;
use std::io::Write;

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
    // The package `pkg1`'s PACKAGE_BODY key, held the same way (Oracle mode: the
    // package statements' grammar).
    b(
        "hold_package",
        &[
            &["LOCK TABLES mysql.proc WRITE"],
            &[
                "SET sql_mode=ORACLE",
                "CREATE OR REPLACE PACKAGE pkg1 AS PROCEDURE p1; END",
            ],
        ],
    ),
    // A package body's S, held by a transaction whose CALL of the package's procedure
    // locked it (`open_and_process_routine`): nothing on mysql.proc, which a CREATE
    // PACKAGE BODY reads while it is parsed (its spec), so the body's X is seen pending.
    b(
        "hold_package_s",
        &[&["SET sql_mode=ORACLE", "START TRANSACTION", "CALL pkg1.p1"]],
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
    if k.variant == RowVariant::MyIsam {
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
        // The package of the package kinds (spec and body share the key).
        ("PACKAGE_BODY", "test", "pkg1") => "$r".into(),
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

/// Learns one kind: the held probe (what the statement holds at its end, inside a
/// transaction), the request probes (what it asks for behind each blocker), their order
/// (`order::order_ops`), then what the probes cannot see, written from the server source
/// (`written_from_source`).
fn learn_kind(
    server: &Server,
    mon: &mut Conn,
    k: &KindDef,
    log: &mut dyn Write,
) -> Result<KindRow, ConformError> {
    let d = Dialect::mariadb();
    let held = held_probe(server, mon, k, log)?;
    let mut ev = Evidence::default();
    for r in &held.s1 {
        if !held.s0.contains(r) {
            ev.add(node(&d, r), "held".into());
        }
    }
    request_probes(server, mon, k, log, &mut ev)?;
    let base = k.kind.as_str();
    let mut ops = order_ops(
        &d,
        &ev.nodes,
        &ev.obs,
        &held.s0,
        &held.s1,
        &held.s2,
        SORTED_GROUP
            .iter()
            .any(|g| base == *g || base.starts_with(&format!("{g}_"))),
    );
    written_from_source(k, &mut ops);
    Ok(KindRow {
        name: k.name().into(),
        kind: k.kind,
        variant: k.variant,
        implicit_commit: held.implicit_commit,
        sql: k.sql.into(),
        ops,
    })
}

/// What the held probe saw: the session's locks after its setup (`s0`), after the
/// statement inside a transaction (`s1`, without the transaction's own `t0`) and after
/// COMMIT (`s2`).
struct Held {
    s0: Vec<LockRow>,
    s1: Vec<LockRow>,
    s2: Vec<LockRow>,
    /// The transaction's `t0` lock was gone after the statement.
    implicit_commit: bool,
}

/// The held probe: the statement run inside a transaction that holds `t0`.
fn held_probe(
    server: &Server,
    mon: &mut Conn,
    k: &KindDef,
    log: &mut dyn Write,
) -> Result<Held, ConformError> {
    let is_t0 = |r: &LockRow| r.db == "test" && r.name == "t0";
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
        k.name(),
        s1.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        s2.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        reply
            .error
            .as_ref()
            .map(|(c, m)| format!(" (error {c}: {m})"))
            .unwrap_or_default()
    );

    Ok(Held {
        s0,
        s1,
        s2,
        implicit_commit,
    })
}

/// The lock nodes the probes saw, with their evidence, and the request probes'
/// observations: (granted, pending) of the statement while it waited.
#[derive(Default)]
struct Evidence {
    nodes: Vec<(Node, BTreeSet<String>)>,
    obs: Vec<(Vec<Node>, Node)>,
}

impl Evidence {
    fn add(&mut self, n: Node, ev: String) {
        match self.nodes.iter_mut().find(|(x, _)| *x == n) {
            Some((_, e)) => {
                e.insert(ev);
            }
            None => self.nodes.push((n, [ev].into())),
        }
    }
}

/// The request probes: the statement behind each blocker, what it was granted and what
/// it waited for.
fn request_probes(
    server: &Server,
    mon: &mut Conn,
    k: &KindDef,
    log: &mut dyn Write,
    ev: &mut Evidence,
) -> Result<(), ConformError> {
    let d = Dialect::mariadb();
    let in_txn = k.setup.first() == Some(&"BEGIN");
    for bl in BLOCKERS {
        prep(mon, k)?;
        let Some(x) = start_blocker(server, mon, bl, k)? else {
            let _ = writeln!(log, "{}: blocker {} did not start", k.name(), bl.name);
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
                    k.name(),
                    bl.name,
                    gr.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                    pend.iter().map(|r| r.to_string()).collect::<Vec<_>>()
                );
                for p in &pend {
                    let mut pr = (*p).clone();
                    pr.pending = false;
                    let pn = node(&d, &pr);
                    ev.add(pn.clone(), format!("{}:pending", bl.name));
                    for g in &gr {
                        ev.add(node(&d, g), format!("{}:granted", bl.name));
                    }
                    ev.obs
                        .push((gr.iter().map(|g| node(&d, g)).collect::<Vec<_>>(), pn));
                }
            } else {
                let _ = writeln!(log, "{}: behind {}: {st:?}", k.name(), bl.name);
            }
        }
        cleanup(mon, a)?;
        stop_blocker(mon, x)?;
    }
    Ok(())
}

/// What the probes cannot see (they end the statement at its first wait), written from
/// the server source: the later moves of in-place and copying ALTERs, DROP FUNCTION's
/// release, the admin statements' X.
fn written_from_source(k: &KindDef, ops: &mut Vec<Op>) {
    let base_row = k.variant == RowVariant::Base;
    if k.kind == Kind::DropFunction {
        drop_function_releases_trans_dml(ops);
    }
    if k.kind == Kind::AccountColumn {
        // mysql_table_grant (sql/sql_acl.cc) opens the table for its column list
        // (open_normal_and_derived_tables) before Grant_tables::open_and_lock: the table's
        // lock comes first (measured: while it waits behind LOCK TABLES ... WRITE the
        // session holds no BACKUP lock, suite/grant-column-privilege.mdl); the probes,
        // which see no order between them, put it last.
        if let Some(i) = ops.iter().position(|o| o.key == "$t") {
            let t = ops.remove(i);
            ops.insert(0, t);
        }
    }
    if INPLACE_TWICE.contains(&k.kind) {
        // mysql_inplace_alter_table (sql/sql_table.cc): X for the prepare phase, then
        // down to SU while the engine rebuilds (HA_ALTER_INPLACE_NO_LOCK_AFTER_PREPARE),
        // and X again to commit. The probes end the statement at its first wait, so the
        // second X is written from the source (known-differences/inplace-alter-takes-x-
        // twice.mdl showed it).
        inplace_down_then_x(ops, "SU");
    }
    if base_row && k.kind == Kind::AlterInplaceLockShared {
        // The same with a requested LOCK=SHARED: down to SNW (not SU) while the engine
        // rebuilds, then X again to commit; LOCK=EXCLUSIVE keeps the X (no move down).
        inplace_down_then_x(ops, "SNW");
    }
    if base_row
        && matches!(
            k.kind,
            Kind::AlterCopy
                | Kind::AlterCopyRename
                | Kind::AlterCopyLockExclusive
                | Kind::AlterPartitionBy
                | Kind::FkAddCopy
        )
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
        let copy_lock = if matches!(
            k.kind,
            Kind::AlterCopy | Kind::AlterCopyRename | Kind::FkAddCopy
        ) {
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
    let myisam_optimize = k.kind == Kind::Optimize && k.variant == RowVariant::MyIsam;
    if k.kind == Kind::Repair || myisam_optimize {
        // mysql_admin_table (sql/sql_admin.cc): a table opened for TL_WRITE with a lock
        // stronger than SW (REPAIR's SNRW; OPTIMIZE of a MyISAM table opens it SW, then
        // moves it to SNRW) is upgraded to X by wait_while_table_is_used before the
        // engine's operation, whatever the engine. The probes' SR holder blocks the SNRW
        // first, so the X is written from the source (measured with a BACKUP LOCK's SH,
        // which SNRW lets in: found/seed-180432). Before the X, one more request the
        // probes cannot see apart (their blockers, FTWRL and BLOCK_DDL, stop the
        // statement at an earlier backup lock), measured behind that BACKUP LOCK: a
        // MyISAM REPAIR takes BACKUP_DML after its BACKUP_DDL (found/seed-221930), a
        // MyISAM OPTIMIZE BACKUP_DDL (found/seed-221930-2; `optimize::fix_rows` puts it
        // in its place, lock_table_names' back-off before the BACKUP_DML: seed-481800).
        if let Some(last) = ops
            .iter()
            .rposition(|o| o.key == "$t" && o.ty.abbrev() == "SNRW")
        {
            let dur = ops[last].dur;
            let before = match (k.kind, k.variant) {
                (Kind::Repair, RowVariant::MyIsam) => Some(("BACKUP_DML", "found/seed-221930")),
                (Kind::Optimize, RowVariant::MyIsam) => Some(("BACKUP_DDL", "found/seed-221930-2")),
                _ => None,
            };
            // REPAIR's back-off for BACKUP_DDL follows its SNRW: after it, at the end.
            let mut at = if k.kind == Kind::Repair {
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
            && (k.setup.is_empty() || k.kind.is_backup_stage())
            && !(k.kind == Kind::CommitWrite && k.variant == RowVariant::Base)
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
            let _ = writeln!(log, "rule {} {}: state failed: {c} {m}", st.0, k.name());
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
                k.name(),
                r.error,
                added.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                removed.iter().map(|r| r.to_string()).collect::<Vec<_>>()
            );
            Some(RuleRow {
                state: st.0.into(),
                kind: k.name().into(),
                error,
                added: lock_templates(&added),
                removed: lock_templates(&removed),
            })
        }
        other => {
            let _ = writeln!(log, "rule {} {}: {other:?} {:?}", st.0, k.name(), after);
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
    for k in KINDS.iter().filter(|k| names.iter().any(|n| n == k.name())) {
        let row = learn_kind(server, &mut mon, k, log)?;
        match m.kinds.iter_mut().find(|r| r.name == k.name()) {
            Some(r) => *r = row,
            None => m.kinds.push(row),
        }
        if rule_kinds().any(|r| r.name() == k.name()) {
            m.rules.retain(|r| r.kind != k.name());
            for st in STATES {
                if st.0 == "idle" && !k.kind.is_backup_stage() {
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
            if st.0 == "idle" && !k.kind.is_backup_stage() {
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
            .position(|k| k.name() == r.name)
            .unwrap_or(usize::MAX)
    });
    let st_pos = |s: &str| STATES.iter().position(|x| x.0 == s).unwrap_or(usize::MAX);
    let k_pos = |s: &str| {
        KINDS
            .iter()
            .position(|x| x.name() == s)
            .unwrap_or(usize::MAX)
    };
    m.rules.sort_by_key(|r| (st_pos(&r.state), k_pos(&r.kind)));
    optimize::fix_rows(&mut m);
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
            if st.0 == "idle" && !k.kind.is_backup_stage() {
                continue;
            }
            if let Some(r) = learn_rule(server, &mut mon, st, k, log)? {
                m.rules.push(r);
            }
        }
    }
    optimize::fix_rows(&mut m);
    Ok(m)
}
