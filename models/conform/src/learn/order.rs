//! The order of a learned kind's operations: the measured lock rows put in the order the
//! server takes them, with the steps the lock lists cannot show (from the server's source).

use super::{node, same_key, template, Node};
use crate::locks::LockRow;
use mdl_core::{Dialect, Duration, LockType};
use mdl_sql::kind::Kind;
use mdl_sql::mapping::{Op, OpKind};
use std::collections::BTreeSet;

/// An upgrade the probes cannot see, written from the server's source (`FILE:FUNCTION`,
/// kept as the op's evidence `source:FILE:FUNCTION`).
/// After the last upgrade of the table to X (the in-place prepare phase), the move down to
/// `down` while the engine works and the X again to commit (mysql_inplace_alter_table,
/// sql/sql_table.cc), written from the source.
pub(super) fn inplace_down_then_x(ops: &mut Vec<Op>, down: &str) {
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
pub(super) fn drop_function_releases_trans_dml(ops: &mut Vec<Op>) {
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

pub(super) fn source_upgrade(ns: &str, key: &str, ty: &str, dur: Duration, source: &str) -> Op {
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
pub(super) fn measured_acquire(ns: &str, key: &str, ty: &str, dur: Duration, file: &str) -> Op {
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
pub(super) const INPLACE_TWICE: &[Kind] = &[
    Kind::AlterInplace,
    Kind::CreateIndex,
    Kind::AlterInplaceRename,
];

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
pub(super) fn order_ops(
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
