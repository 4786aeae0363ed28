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

/// Orders the observed locks of a kind into ops (see the module documentation): the
/// facts the probes gave ([`Facts`]), the back-off they show, an order that keeps every
/// fact, the back-off's group moved together, then the ops with their kinds and
/// durations, and the steps written from the source.
pub(super) fn order_ops(
    d: &Dialect,
    nodes: &[(Node, BTreeSet<String>)],
    obs: &[(Vec<Node>, Node)],
    s0: &[LockRow],
    s1: &[LockRow],
    s2: &[LockRow],
    sorted_group: bool,
) -> Vec<Op> {
    let facts = Facts::new(d, nodes, obs, [s0, s1, s2]);
    let backoff = facts.backoff();
    let mut edges: BTreeSet<(Node, Node)> = facts.pos.clone();
    for e in &facts.neg {
        if Some(&e.0) != backoff.as_ref() {
            edges.insert(e.clone());
        }
    }
    let mut order = facts.first_order(&edges);
    let mut bulk: Vec<Node> = Vec::new();
    if let Some(bk) = &backoff {
        let kept = facts.kept_through(bk);
        (order, bulk) = backoff_group(order, &edges, &kept, bk);
    }
    let mut ops = facts.ops(&order, backoff.as_ref(), &bulk, sorted_group);
    create_table_upgrade(&mut ops);
    for r in s0 {
        let n = node(d, r);
        if !facts.s1.iter().any(|m| same_key(m, &n)) {
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

/// What the probes showed of one kind: its locks with their evidence, each wait with
/// the locks granted while it waited, the locks held before the statement (`s0`), after
/// it in its transaction (`s1`) and after it with explicit duration (`s2`); and the order
/// facts they give: `pos` (granted while the other waited: before it), `neg` (not
/// granted: after the waiting lock).
struct Facts<'a> {
    nodes: &'a [(Node, BTreeSet<String>)],
    obs: &'a [(Vec<Node>, Node)],
    all: Vec<Node>,
    s0: Vec<Node>,
    s1: Vec<Node>,
    s2: Vec<Node>,
    pos: BTreeSet<(Node, Node)>,
    neg: BTreeSet<(Node, Node)>,
}

impl<'a> Facts<'a> {
    fn new(
        d: &Dialect,
        nodes: &'a [(Node, BTreeSet<String>)],
        obs: &'a [(Vec<Node>, Node)],
        [s0, s1, s2]: [&[LockRow]; 3],
    ) -> Facts<'a> {
        let rows = |s: &[LockRow]| s.iter().map(|r| node(d, r)).collect::<Vec<Node>>();
        let mut f = Facts {
            nodes,
            obs,
            all: nodes.iter().map(|(n, _)| n.clone()).collect(),
            s0: rows(s0),
            s1: rows(s1),
            s2: rows(s2),
            pos: BTreeSet::new(),
            neg: BTreeSet::new(),
        };
        // Everything granted while a lock waited was requested before it; every other lock
        // of the statement (another key) after it.
        for (gr, p) in obs {
            for g in gr {
                f.pos.insert((g.clone(), p.clone()));
            }
            for n in &f.all {
                if same_key(n, p) {
                    continue;
                }
                // Not granted: after the pending lock. A ticket shown with an earlier type of
                // its key than `n` has not reached `n` yet.
                let shown: Vec<&Node> = gr.iter().filter(|g| same_key(g, n)).collect();
                if shown.is_empty() || shown.iter().all(|g| f.key_before(g, n)) {
                    f.neg.insert((p.clone(), n.clone()));
                }
            }
        }
        f
    }

    /// On one key, the type held after the statement is the last one; the others come
    /// first, weaker first (a ticket's type only moves forward in this order).
    fn key_before(&self, m: &Node, n: &Node) -> bool {
        let held = |n: &Node| self.s1.contains(n) || self.s2.contains(n);
        same_key(m, n) && m != n && (held(m), m.ty_rank) < (held(n), n.ty_rank)
    }

    /// The back-off: a BACKUP_DDL lock the facts put both before and after another lock.
    fn backoff(&self) -> Option<Node> {
        self.all
            .iter()
            .find(|n| {
                n.ns == "BACKUP"
                    && n.ty.abbrev() == "BACKUP_DDL"
                    && self.neg.iter().any(|(a, b)| {
                        a == *n
                            && (self.pos.contains(&(b.clone(), a.clone()))
                                || self.neg.contains(&(b.clone(), a.clone())))
                    })
            })
            .cloned()
    }

    /// The locks of the back-off's waits that stayed granted (taken before the group).
    fn kept_through(&self, bk: &Node) -> Vec<Node> {
        let views: Vec<&Vec<Node>> = self
            .obs
            .iter()
            .filter(|(_, p)| p == bk)
            .map(|(g, _)| g)
            .collect();
        self.all
            .iter()
            .filter(|n| !views.is_empty() && views.iter().all(|g| g.contains(n)))
            .cloned()
            .collect()
    }

    /// An order of every lock that keeps the edges and, on one key, `key_before` (unless
    /// an edge says otherwise); among the ready locks the least first.
    fn first_order(&self, edges: &BTreeSet<(Node, Node)>) -> Vec<Node> {
        let before =
            |m: &Node, n: &Node| self.key_before(m, n) && !edges.contains(&(n.clone(), m.clone()));
        let mut left: Vec<Node> = self.all.clone();
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
        order
    }

    /// Two types on one key seen granted together are two tickets.
    fn both_held(&self, m: &Node, n: &Node) -> bool {
        let end = if self.s2.is_empty() {
            &self.s1
        } else {
            &self.s2
        };
        (end.contains(m) && end.contains(n))
            || self
                .obs
                .iter()
                .any(|(gr, _)| gr.contains(m) && gr.contains(n))
    }

    /// The ops of the ordered locks: each one's op kind, duration and evidence.
    fn ops(
        &self,
        order: &[Node],
        backoff: Option<&Node>,
        bulk: &[Node],
        sorted_group: bool,
    ) -> Vec<Op> {
        let mut ops = Vec::new();
        for (i, n) in order.iter().enumerate() {
            // A later type on a key is an upgrade of the ticket, unless both stay held (two
            // tickets, as BACKUP_DDL and BACKUP_DML of LOCK TABLES WRITE on MyISAM).
            let earlier = order[..i]
                .iter()
                .any(|m| same_key(m, n) && !self.both_held(m, n))
                || self.s0.iter().any(|m| same_key(m, n));
            // A ticket keeps its duration through upgrades: the key's final duration.
            let dur = if self.s2.iter().any(|m| same_key(m, n)) {
                Duration::Explicit
            } else if self.s1.iter().any(|m| same_key(m, n)) {
                Duration::Transaction
            } else {
                Duration::Statement
            };
            let ev = self
                .nodes
                .iter()
                .find(|(x, _)| x == n)
                .map(|(_, e)| e.iter().cloned().collect::<Vec<_>>().join(","))
                .unwrap_or_default();
            let op = if earlier {
                OpKind::Upgrade
            } else if Some(n) == backoff {
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
        ops
    }
}

/// The locks the edges put on one side of `from`, `from` among them: before it
/// (`forward` false) or after it (`forward` true).
fn closure(edges: &BTreeSet<(Node, Node)>, from: &Node, forward: bool) -> BTreeSet<Node> {
    let mut out: BTreeSet<Node> = BTreeSet::new();
    out.insert(from.clone());
    let mut grew = true;
    while grew {
        grew = false;
        for (a, b) in edges {
            let (near, far) = if forward { (a, b) } else { (b, a) };
            if out.contains(near) && !out.contains(far) {
                out.insert(far.clone());
                grew = true;
            }
        }
    }
    out
}

/// The back-off's group: the locks the facts put before it that were not granted while
/// it waited; the locks that stayed granted (`kept`) were taken before the group, and the
/// group ends right before the back-off. The order with the group moved, and the group.
fn backoff_group(
    order: Vec<Node>,
    edges: &BTreeSet<(Node, Node)>,
    kept: &[Node],
    bk: &Node,
) -> (Vec<Node>, Vec<Node>) {
    let mut before_bk = closure(edges, bk, false);
    before_bk.remove(bk);
    let bulk: Vec<Node> = order
        .iter()
        .filter(|n| before_bk.contains(*n) && !kept.contains(n))
        .cloned()
        .collect();
    // CREATE TABLE's upgrade of the new table to X comes between the group and the
    // back-off (lock_table_names: `upgrade_lock_if_not_exists` runs after
    // `acquire_locks` and before BACKUP_DDL's `try_acquire_lock`), unless the facts
    // put it after the back-off.
    let after_bk = closure(edges, bk, true);
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
    (h, bulk)
}

/// CREATE TABLE takes the new table SU and upgrades it to X when it does not exist
/// (`upgrade_lock_if_not_exists`, sql/sql_base.cc). Nothing can make that upgrade wait
/// when the statement names no other table, so it is not always seen: written from
/// the source then.
fn create_table_upgrade(ops: &mut Vec<Op>) {
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
}
