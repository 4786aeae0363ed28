//! `mdl conform --learn`: measures the statement-to-lock table on the server.
//!
//! For every statement kind ([`KINDS`]):
//! - the *held* probe: `BEGIN; SELECT * FROM t0; STATEMENT`, read the session's granted
//!   locks (what it holds while its transaction is open), `COMMIT`, read again (what
//!   survives a commit is `explicit`); `t0`'s lock being gone after the statement means
//!   the statement commits implicitly;
//! - the *request* probes: the statement runs while another session holds a blocker
//!   ([`BLOCKERS`]); while it waits, its granted and PENDING rows say what it requests and
//!   in which order (everything granted was requested before the pending lock). The
//!   waiting statement is then killed (`KILL QUERY`), so DDL never changes the fixture.
//!
//! The ops of a kind are the locks seen, ordered by those "before" facts (ties: BACKUP,
//! SCHEMA, TABLE, ... in the dialect's namespace order, then the weaker type first); the
//! first lock on a key is an `acquire`, a later type on the same key (or a key the
//! session held from its setup) an `upgrade`, and a setup lock gone afterwards a
//! `release`.

use super::client::{Conn, Reply, LONG};
use super::locks::{LockRow, Snapshot};
use super::mapping::{KindDef, KindRow, Mapping, Op, OpKind, FIXTURE, KINDS};
use super::server::Server;
use super::ConformError;
use mdl_core::{Dialect, Duration, LockType};
use std::collections::BTreeSet;
use std::io::Write;
use std::time::Duration as StdDuration;

/// Sessions that hold a lock other statements conflict with, and what they run.
pub const BLOCKERS: &[(&str, &[&str])] = &[
    ("lock_write", &["LOCK TABLES t1 WRITE"]),
    ("open_select", &["BEGIN", "SELECT * FROM t1"]),
    ("ftwrl", &["FLUSH TABLES WITH READ LOCK"]),
    (
        "block_ddl",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
        ],
    ),
    (
        "block_commit",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
            "BACKUP STAGE BLOCK_COMMIT",
        ],
    ),
    ("backup_start", &["BACKUP STAGE START"]),
    ("get_lock", &["SELECT GET_LOCK('u1', 0)"]),
];

/// How a statement sent on a connection stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    Done(Reply),
    /// It waits for a metadata lock (a PENDING row of its own).
    Waiting,
    /// It has not finished and shows no PENDING metadata lock: it waits for something
    /// outside MDL (a row lock, a table flush).
    Blocked,
}

/// Polls of a running statement: 20 ms apart, so at most 2 s before `Blocked`.
const SETTLE_TRIES: u32 = 100;
const SETTLE_POLL: StdDuration = StdDuration::from_millis(20);

/// Waits until each busy connection has finished or waits for a metadata lock (bounded).
/// Returns the connections' states in the order given.
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
    for _ in 0..SETTLE_TRIES {
        for (i, c) in conns.iter_mut().enumerate() {
            if c.busy() {
                if let Some(r) = c.poll(SETTLE_POLL)? {
                    out[i] = Some(Settled::Done(r));
                }
            }
        }
        if conns.iter().all(|c| !c.busy()) {
            return Ok(out);
        }
        let snap = Snapshot::take(mon)?;
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
        c.poll(LONG)?;
    }
    for s in [
        "ROLLBACK",
        "UNLOCK TABLES",
        "BACKUP STAGE END",
        "HANDLER t1 CLOSE",
        "SELECT RELEASE_ALL_LOCKS()",
    ] {
        let _ = c.exec(s)?;
    }
    Ok(())
}

/// Waits (bounded) until no connection but the monitor holds or waits for a lock.
pub fn quiesce(mon: &mut Conn) -> Result<(), ConformError> {
    for _ in 0..SETTLE_TRIES {
        if Snapshot::take(mon)?.by_conn.values().all(|v| v.is_empty()) {
            return Ok(());
        }
        std::thread::sleep(SETTLE_POLL);
    }
    Err(ConformError::Server(
        "locks of closed connections linger".into(),
    ))
}

/// A fresh fixture, with no other connection holding anything.
pub fn fresh(mon: &mut Conn) -> Result<(), ConformError> {
    quiesce(mon)?;
    mon.query(FIXTURE)?;
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

/// The key template of a lock of the fixture.
pub fn template(ns: &str, db: &str, name: &str) -> String {
    match (ns, db, name) {
        ("BACKUP", _, _) => "-".into(),
        ("SCHEMA", "test", _) => "$db".into(),
        ("SCHEMA", d, _) => d.into(),
        ("USER_LOCK", "u1", _) => "$lock".into(),
        (_, "test", "t1") => "$db.$t".into(),
        (_, "test", "t1r") => "$db.$t2".into(),
        (_, d, n) => format!("{d}.{n}"),
    }
}

fn rows(s: &Snapshot, id: u64) -> Vec<LockRow> {
    s.of(id).iter().map(|o| o.row.clone()).collect()
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
    fresh(mon)?;
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
    let mut edges: BTreeSet<(Node, Node)> = BTreeSet::new();
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
    for (bname, bstmts) in BLOCKERS {
        fresh(mon)?;
        let mut x = server.connect()?;
        run_all(&mut x, bstmts)?;
        let mut a = server.connect()?;
        let mut setup_ok = true;
        let begin: &[&str] = if in_txn { &[] } else { &["BEGIN"] };
        for s in begin.iter().chain(k.setup) {
            a.send(s)?;
            match settle(mon, &mut a)? {
                Settled::Done(_) => {}
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
                    "{}: behind {bname}: granted {:?} pending {:?}",
                    k.name,
                    gr.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                    pend.iter().map(|r| r.to_string()).collect::<Vec<_>>()
                );
                for p in &pend {
                    let mut pr = (*p).clone();
                    pr.pending = false;
                    let pn = node(&d, &pr);
                    add(pn.clone(), format!("{bname}:pending"), &mut nodes);
                    for g in &gr {
                        add(node(&d, g), format!("{bname}:granted"), &mut nodes);
                        edges.insert((node(&d, g), pn.clone()));
                    }
                    obs.push((gr.iter().map(|g| node(&d, g)).collect::<Vec<_>>(), pn));
                }
            } else {
                let _ = writeln!(log, "{}: behind {bname}: {st:?}", k.name);
            }
        }
        cleanup(mon, a)?;
        cleanup(mon, x)?;
    }

    // Everything requested before the pending lock is granted while it waits, so a
    // lock of the statement not granted then comes after it (other keys only: one key's
    // types are ordered below). A lock that waited with nothing granted although other
    // locks come before it is taken last and "backed off": when it must wait, the
    // statement gives back what it took and waits for it alone.
    let all: Vec<Node> = nodes.iter().map(|(n, _)| n.clone()).collect();
    let mut neg: BTreeSet<(Node, Node)> = BTreeSet::new();
    for (gr, p) in &obs {
        for n in &all {
            if !same_key(n, p) && !gr.iter().any(|g| same_key(g, n)) {
                neg.insert((p.clone(), n.clone()));
            }
        }
    }
    let backoff: Vec<Node> = all
        .iter()
        .filter(|n| {
            obs.iter().any(|(gr, p)| gr.is_empty() && p == *n) && neg.iter().any(|(_, b)| b == *n)
        })
        .cloned()
        .collect();
    for e in neg {
        if !backoff.contains(&e.0) {
            edges.insert(e);
        }
    }
    // Order the nodes.
    let s2n: Vec<Node> = s2.iter().map(|r| node(&d, r)).collect();
    let s1n: Vec<Node> = s1.iter().map(|r| node(&d, r)).collect();
    let s0n: Vec<Node> = s0.iter().map(|r| node(&d, r)).collect();
    // On one key, the type held after the statement is the last one; the others come
    // first, weaker first.
    let held = |n: &Node| s1n.contains(n) || s2n.contains(n);
    let before = |m: &Node, n: &Node| {
        same_key(m, n)
            && m != n
            && (held(m), m.ty_rank) < (held(n), n.ty_rank)
            && !edges.contains(&(n.clone(), m.clone()))
    };
    let mut left: Vec<Node> = nodes.iter().map(|(n, _)| n.clone()).collect();
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
    let mut ops = Vec::new();
    for (i, n) in order.iter().enumerate() {
        let earlier =
            order[..i].iter().any(|m| same_key(m, n)) || s0n.iter().any(|m| same_key(m, n));
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
        ops.push(Op {
            op: if earlier {
                OpKind::Upgrade
            } else if backoff.contains(n) {
                OpKind::Backoff
            } else {
                OpKind::Acquire
            },
            ns: n.ns.clone(),
            key: template(&n.ns, &n.db, &n.name),
            ty: n.ty,
            dur,
            evidence: ev,
        });
    }
    for r in &s0 {
        let n = node(&d, r);
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
    Ok(KindRow {
        name: k.name.into(),
        implicit_commit,
        sql: k.sql.into(),
        ops,
    })
}

/// Learns the whole table on a running server.
pub fn learn(server: &Server, log: &mut dyn Write) -> Result<Mapping, ConformError> {
    let mut mon = server.connect()?;
    let mut m = Mapping {
        header: vec![
            format!(
                "Learned by `mdl conform --learn` on MariaDB {}.",
                server.version()
            ),
            "Regenerate: cargo run -p mdl --bin mdl -- conform --learn".into(),
            "Format: see models/conform/src/mapping.rs and models/conformance/README.md.".into(),
        ],
        kinds: Vec::new(),
    };
    for k in KINDS {
        m.kinds.push(learn_kind(server, &mut mon, k, log)?);
    }
    Ok(m)
}
