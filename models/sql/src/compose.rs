//! A statement's lock requests, in the server's order: the learned rows of its parts
//! (see [`crate::classify`]) with their templates bound, put together by the rule of the
//! server's `open_tables` (MariaDB 10.11, `sql/sql_base.cc`):
//!
//! 1. locks a row takes before its `bulk` group (CREATE TRIGGER's TRIGGER X, taken by
//!    `mysql_create_or_drop_trigger` before it opens the table), part by part;
//! 2. the `bulk` ops of every part as one group: `lock_table_names` collects the tables
//!    to be locked SU or stronger and an IX on each of their schemas, and
//!    `MDL_context::acquire_locks` sorts them by key (`mdl_request_cmp`: key, then the
//!    stronger type first) and takes them one by one;
//! 3. the `backoff` op once (`lock_table_names`: BACKUP_DDL by `try_acquire_lock`; on a
//!    conflict the group is given back, BACKUP_DDL is waited for alone, given back, and
//!    the group is taken again);
//! 4. the other `acquire` ops, part by part in statement order (`open_table` of each
//!    table of the table list: its own MDL, then once per statement the BACKUP lock of the
//!    first table opened for writing, `open_table`'s protection request);
//! 5. the `upgrade` ops, part by part (LOCK TABLES' SR to SRO after the tables are
//!    locked; ALTER's SU to SNW to X);
//! 6. the `release` ops.
//!
//! The same lock (key and type) requested twice is requested once. A statement of one
//! part plays its learned row exactly as learned. The rule is checked against the
//! server by the learned rows of statements with several tables (`check` kinds): the
//! test `conform_mapping` composes each and compares with what was measured.

use super::catalog::Catalog;
use super::classify::{Bind, Part, Plan};
use super::mapping::{KindRow, Mapping, OpKind};
use crate::kind::Kind;
use mdl_core::key::MdlKey;
use mdl_core::table::{sort_bulk, BulkReq};
use mdl_core::{Dialect, Duration, LockType};

/// The admin statements (`mysql_admin_table`): several tables are done one by one.
pub const ADMIN: &[Kind] = &[
    Kind::Analyze,
    Kind::AnalyzePersistent,
    Kind::CheckTable,
    Kind::CheckView,
    Kind::Optimize,
    Kind::Repair,
    Kind::RepairView,
];

/// How a deadlock that picks this request's session as the victim ends (the server's
/// error handler around the `acquire_lock` call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ctx {
    /// `open_table` with `MDL_deadlock_handler`: when the session held no lock when the
    /// statement began (`Open_table_context::m_has_locks` false) the statement gives back
    /// its locks and opens its tables again (`OT_BACKOFF_AND_RETRY`); otherwise
    /// ER_LOCK_DEADLOCK and the transaction is rolled back
    /// (`Open_table_context::request_backoff_action`).
    OpenTable,
    /// `Global_read_lock::lock_global_read_lock`: FTWRL waits again
    /// (`MDL_deadlock_and_lock_abort_error_handler::need_reopen`); also LOCK TABLES
    /// READ's upgrade to SRO (measured, see `SqlModel::ctx_of`).
    Retry,
    /// `backup_block_ddl` (sql/backup.cc): the upgrade to BACKUP_WAIT_DDL is tried again
    /// after a deadlock, up to `MAX_RETRY_COUNT` (5) more times with a sleep of 0.1 s,
    /// 0.5 s, ... between; the last deadlock moves the lock back to BACKUP_FLUSH and
    /// fails the statement. The victim's next try weighs one more
    /// (`MDL_context::find_deadlock`: `inc_deadlock_overweight`), so the other session
    /// of a plain cycle is the victim then (measured: found/seed-150240).
    BlockDdl,
    /// Any other call: ER_LOCK_DEADLOCK for the statement.
    Plain,
}

/// `MAX_RETRY_COUNT` of `backup_block_ddl` (sql/backup.cc): the tries after the first.
pub const BLOCK_DDL_RETRIES: u32 = 5;

/// One lock operation of a statement, with its key bound.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Acquire {
        key: MdlKey,
        ty: LockType,
        dur: Duration,
        ctx: Ctx,
    },
    /// An `acquire_locks` group, sorted; taken one by one (waits allowed).
    Bulk(Vec<(MdlKey, LockType, Duration)>),
    /// Try without waiting; on a conflict give back the group taken since the last
    /// [`Step::Bulk`], wait for this lock alone, give it back and redo the group.
    Backoff {
        key: MdlKey,
        ty: LockType,
        dur: Duration,
        group: Vec<(MdlKey, LockType, Duration)>,
        /// Steps between the group and this one, done again with the group
        /// (`upgrade_lock_if_not_exists`).
        between: Vec<Step>,
    },
    Upgrade {
        key: MdlKey,
        ty: LockType,
        dur: Duration,
        /// The type the row took on this key before (the ticket the server upgrades),
        /// when the row has one.
        from: Option<LockType>,
    },
    Release {
        key: MdlKey,
        ty: LockType,
    },
    /// The statement fails here with this server error: the read-only protection check
    /// of `open_table` (ER_CANT_UPDATE_WITH_READLOCK under the session's own FTWRL,
    /// ER_BACKUP_LOCK_IS_ACTIVE under its own BACKUP STAGE), made right before its BACKUP
    /// lock, after the tables opened so far.
    Fail(u32),
    /// The transaction's and the statement's locks are given back: an implicit commit
    /// before a statement, or the end of one table of an admin statement
    /// (`mysql_admin_table` in `sql/sql_admin.cc` opens, checks and closes the tables one
    /// at a time, committing after each).
    Commit,
}

impl Step {
    pub fn key(&self) -> Option<&MdlKey> {
        match self {
            Step::Acquire { key, .. }
            | Step::Backoff { key, .. }
            | Step::Upgrade { key, .. }
            | Step::Release { key, .. } => Some(key),
            Step::Bulk(_) | Step::Commit | Step::Fail(_) => None,
        }
    }

    /// The steps as flat `(op, key, type)` lines (a bulk group as its members), for
    /// comparisons and messages.
    pub fn flat(steps: &[Step], d: &Dialect) -> Vec<String> {
        let name = |k: &MdlKey| {
            let ns = &d.namespace(k.namespace()).name;
            format!("{ns} {}", super::key_text::key_text(ns, k.db(), k.name()))
        };
        let mut out = Vec::new();
        for s in steps {
            match s {
                Step::Acquire { key, ty, .. } => out.push(format!("acquire {} {ty}", name(key))),
                Step::Bulk(g) => {
                    for (k, t, _) in g {
                        out.push(format!("bulk {} {t}", name(k)));
                    }
                }
                Step::Backoff { key, ty, .. } => out.push(format!("backoff {} {ty}", name(key))),
                Step::Upgrade { key, ty, .. } => out.push(format!("upgrade {} {ty}", name(key))),
                Step::Release { key, ty } => out.push(format!("release {} {ty}", name(key))),
                Step::Commit => out.push("commit".into()),
                Step::Fail(code) => out.push(format!("fail {code}")),
            }
        }
        out
    }
}

/// The keys a template names under a binding (several for `$db` and `$s.*`).
pub fn keys(
    d: &Dialect,
    cat: &Catalog,
    ns: &str,
    tmpl: &str,
    b: &Bind,
) -> Result<Vec<MdlKey>, String> {
    let n = d
        .namespace_by_name(ns)
        .ok_or_else(|| format!("unknown namespace {ns}"))?;
    let missing = |v: &str| format!("the learned row names `{v}`, which the statement does not");
    let table = |k: &str| -> Result<MdlKey, String> {
        let t = match k {
            "$t" => b.t.as_ref(),
            "$t2" => b.t2.as_ref(),
            "$n" => b.n.as_ref(),
            "$n2" => b.n2.as_ref(),
            "$v" => b.v.as_ref(),
            "$tr" => b.tr.as_ref(),
            "$r" => b.r.as_ref(),
            lit => {
                let (db, name) = lit
                    .split_once('.')
                    .ok_or_else(|| format!("bad key template `{lit}`"))?;
                if db.starts_with('$') || name.starts_with('$') {
                    return Err(format!("bad key template `{lit}`"));
                }
                return Ok(MdlKey::new(n, db, name));
            }
        }
        .ok_or_else(|| missing(k))?;
        Ok(MdlKey::new(n, &t.db, &t.name))
    };
    Ok(match (ns, tmpl) {
        // BACKUP (MariaDB); GLOBAL, BACKUP_LOCK, COMMIT (MySQL 8.0): one key.
        (_, "-") => vec![MdlKey::singleton(n)],
        // MySQL 8.0's user-level locks (MariaDB's are USER_LOCK, below).
        ("USER_LEVEL_LOCK", "$lock") => vec![MdlKey::new(
            n,
            b.lock.as_deref().ok_or_else(|| missing(tmpl))?,
            "",
        )],
        ("SCHEMA", "$db") => {
            let mut dbs: Vec<&str> = b
                .tables()
                .chain(b.r.as_ref())
                .map(|t| t.db.as_str())
                .collect();
            dbs.sort();
            dbs.dedup();
            if dbs.is_empty() {
                return Err(missing("$db"));
            }
            dbs.into_iter().map(|db| MdlKey::new(n, db, "")).collect()
        }
        ("SCHEMA", "$s") | ("USER_LOCK", "$lock") => {
            let v = if ns == "SCHEMA" { &b.s } else { &b.lock };
            vec![MdlKey::new(
                n,
                v.as_deref().ok_or_else(|| missing(tmpl))?,
                "",
            )]
        }
        ("SCHEMA", lit) => vec![MdlKey::new(n, lit, "")],
        (_, "$s.*") => {
            let s = b.s.as_deref().ok_or_else(|| missing("$s"))?;
            cat.tables_of(s)
                .iter()
                .map(|t| MdlKey::new(n, &t.db, &t.name))
                .collect()
        }
        (_, k) => vec![table(k)?],
    })
}

/// How a deadlock during a row's plain acquires ends (`kind`: the row's kind) (the server function the row's
/// statement goes through).
fn ctx_of(kind: Kind) -> Ctx {
    match kind {
        Kind::Ftwrl => Ctx::Retry,
        Kind::GetLock
        | Kind::CommitWrite
        | Kind::BackupStart
        | Kind::BackupFlush
        | Kind::BackupBlockDdl
        | Kind::BackupBlockCommit
        | Kind::BackupEnd
        | Kind::CreateTrigger
        | Kind::DropTrigger
        | Kind::FlushTable
        | Kind::FtwrlTable
        // FLUSH TABLES ... FOR EXPORT: flush_tables_with_read_lock, as WITH READ LOCK.
        | Kind::FlushExport
        | Kind::CreateDb
        | Kind::DropDb
        // LOCK INSTANCE FOR BACKUP (MySQL 8.0, Sql_cmd_lock_instance::execute): one
        // acquire_lock, an error on a deadlock.
        | Kind::InstanceLock
        // backup_lock (sql/backup.cc): MDL_context::acquire_lock, no open_table.
        | Kind::TableBackupLock
        // ALTER TABLE ... RENAME: the new name's X by MDL_context::acquire_locks in
        // mysql_alter_table (sql/sql_table.cc), no open_table.
        | Kind::AlterRename
        | Kind::AlterCopyRename
        | Kind::AlterInplaceRename
        | Kind::AlterInstantRename => Ctx::Plain,
        _ => Ctx::OpenTable,
    }
}

/// The steps of a plan (see the module documentation).
pub fn compose(
    map: &Mapping,
    d: &Dialect,
    cat: &Catalog,
    plan: &Plan,
) -> Result<Vec<Step>, String> {
    if ADMIN.contains(&plan.kind) && plan.parts.len() > 1 {
        return admin_one_by_one(map, d, cat, plan);
    }
    let mut rows = Vec::new();
    for p in &plan.parts {
        let r = map.kind(&p.row).ok_or_else(|| map.missing_kind(&p.row))?;
        rows.push((r, p));
    }
    let single = rows.len() == 1;
    let mut g = Groups::gather(d, cat, &rows, single)?;
    sort_group(&mut g.bulk);
    let mut out = if single {
        g.in_learned_order()
    } else {
        g.in_rule_order()
    };
    if let super::classify::Effect::Fail(_) | super::classify::Effect::InPlace(_) = plan.effect {
        // The statement fails once lock_table_names is through (ALTER ... ALGORITHM the
        // engine does not support): nothing after the back-off. (`InPlace`: the engine of
        // the table then decides; an InnoDB table put under the name meanwhile is altered
        // and its later locks, gone at the statement's end, are not played.)
        if let Some(i) = out.iter().position(|s| matches!(s, Step::Backoff { .. })) {
            out.truncate(i + 1);
        }
    }
    Ok(requested_once(out))
}

/// `mysql_admin_table` (sql/sql_admin.cc): several tables one after the other, each a
/// statement of its own.
fn admin_one_by_one(
    map: &Mapping,
    d: &Dialect,
    cat: &Catalog,
    plan: &Plan,
) -> Result<Vec<Step>, String> {
    let mut out = Vec::new();
    for (i, p) in plan.parts.iter().enumerate() {
        if i > 0 {
            out.push(Step::Commit);
        }
        let one = Plan {
            parts: vec![p.clone()],
            ..plan.clone()
        };
        out.extend(compose(map, d, cat, &one)?);
    }
    Ok(out)
}

/// The same lock requested twice is requested once, unless it was given back in between
/// (a MyISAM OPTIMIZE's second open, `mysql_admin_table`). (Upgrades repeat on purpose:
/// an in-place ALTER's X, SU, X.)
fn requested_once(out: Vec<Step>) -> Vec<Step> {
    let mut seen: Vec<(MdlKey, LockType, bool)> = Vec::new();
    let mut dedup = Vec::new();
    for s in out {
        let id = match &s {
            Step::Acquire { key, ty, .. } => Some((key.clone(), *ty, false)),
            Step::Release { key, ty } => {
                seen.retain(|(k, t, _)| !(k == key && t == ty));
                None
            }
            _ => None,
        };
        if let Some(id) = id {
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
        }
        dedup.push(s);
    }
    dedup
}

/// The rows' steps sorted by where the composition rule puts them.
#[derive(Default)]
struct Groups {
    /// Acquires before the bulk group.
    pre: Vec<Step>,
    /// The group `acquire_locks` takes at once.
    bulk: Vec<(MdlKey, LockType, Duration)>,
    /// Upgrades between the group and its back-off.
    between: Vec<Step>,
    backoff: Option<(MdlKey, LockType, Duration)>,
    /// Acquires after the group, upgrades, releases.
    seq: Vec<Step>,
    upg: Vec<Step>,
    rel: Vec<Step>,
    /// A single part keeps its learned order: `None` where the bulk group stands.
    ordered: Vec<Option<Step>>,
}

impl Groups {
    /// Every op of every row, its keys bound, put in its group.
    fn gather(
        d: &Dialect,
        cat: &Catalog,
        rows: &[(&KindRow, &Part)],
        single: bool,
    ) -> Result<Groups, String> {
        let mut g = Groups::default();
        for (r, p) in rows {
            let ctx = match ctx_of(r.kind) {
                // MySQL 8.0's FTWRL does not wait again after a deadlock: acquire_lock
                // fails, reload_acl_and_cache gives the global read lock back and the
                // statement fails (sql/sql_reload.cc; MariaDB's retries).
                Ctx::Retry if d.name == "mysql-8.0" => Ctx::Plain,
                c => c,
            };
            let first_bulk = r.ops.iter().position(|o| o.op == OpKind::Bulk);
            let backoff_at = r.ops.iter().position(|o| o.op == OpKind::Backoff);
            for (i, o) in r.ops.iter().enumerate() {
                for key in keys(d, cat, &o.ns, &o.key, &p.bind)? {
                    let step = match o.op {
                        OpKind::Acquire => Step::Acquire {
                            key: key.clone(),
                            ty: o.ty,
                            dur: o.dur,
                            ctx,
                        },
                        OpKind::Bulk => {
                            g.bulk.push((key.clone(), o.ty, o.dur));
                            if single && !g.ordered.contains(&None) {
                                g.ordered.push(None);
                            }
                            continue;
                        }
                        OpKind::Backoff => {
                            g.backoff.get_or_insert((key.clone(), o.ty, o.dur));
                            continue;
                        }
                        OpKind::Upgrade => Step::Upgrade {
                            key: key.clone(),
                            ty: o.ty,
                            dur: o.dur,
                            from: r.ops[..i]
                                .iter()
                                .rev()
                                .find(|x| x.ns == o.ns && x.key == o.key)
                                .map(|x| x.ty),
                        },
                        OpKind::Release => Step::Release {
                            key: key.clone(),
                            ty: o.ty,
                        },
                    };
                    let before_backoff = backoff_at.is_some_and(|b| i < b);
                    match o.op {
                        OpKind::Upgrade if before_backoff && first_bulk.is_some_and(|f| f < i) => {
                            g.between.push(step)
                        }
                        _ if single => g.ordered.push(Some(step)),
                        OpKind::Acquire if first_bulk.is_some_and(|b| i < b) => g.pre.push(step),
                        OpKind::Acquire => g.seq.push(step),
                        OpKind::Upgrade => g.upg.push(step),
                        _ => g.rel.push(step),
                    }
                }
            }
        }
        Ok(g)
    }

    /// The back-off step after the group, with what comes between them.
    fn backoff_step(&self) -> Option<Step> {
        self.backoff.clone().map(|(key, ty, dur)| Step::Backoff {
            key,
            ty,
            dur,
            group: self.bulk.clone(),
            between: self.between.clone(),
        })
    }

    /// A single row: the learned order; the group (with what comes between it and the
    /// back-off) stands where its first member was.
    fn in_learned_order(self) -> Vec<Step> {
        let mut out = Vec::new();
        for s in &self.ordered {
            match s {
                None => {
                    out.push(Step::Bulk(self.bulk.clone()));
                    out.extend(self.between.iter().cloned());
                    out.extend(self.backoff_step());
                }
                Some(s) => out.push(s.clone()),
            }
        }
        out
    }

    /// Several rows: the composition rule's order (the acquires before the group, the
    /// group, its back-off, the later acquires, the upgrades, the releases).
    fn in_rule_order(self) -> Vec<Step> {
        let mut out = self.pre.clone();
        if !self.bulk.is_empty() {
            out.push(Step::Bulk(self.bulk.clone()));
        }
        out.extend(self.between.iter().cloned());
        out.extend(self.backoff_step());
        out.extend(self.seq);
        out.extend(self.upg);
        out.extend(self.rel);
        out
    }
}

/// `acquire_locks`' order: by key, the stronger type first on one key; one request per key
/// and type.
fn sort_group(g: &mut Vec<(MdlKey, LockType, Duration)>) {
    let mut reqs: Vec<BulkReq> = g
        .iter()
        .map(|(k, t, _)| BulkReq {
            key: k.clone(),
            ty: *t,
        })
        .collect();
    sort_bulk(&mut reqs);
    let mut out: Vec<(MdlKey, LockType, Duration)> = Vec::new();
    for r in reqs {
        if out.iter().any(|(k, t, _)| *k == r.key && *t == r.ty) {
            continue;
        }
        let dur = g
            .iter()
            .find(|(k, t, _)| *k == r.key && *t == r.ty)
            .map(|x| x.2)
            .unwrap_or(Duration::Statement);
        out.push((r.key, r.ty, dur));
    }
    *g = out;
}
