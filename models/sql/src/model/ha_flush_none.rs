//! Statements that open no table through `open_tables`, so they do not close the
//! session's HANDLERs another session waits for (`mysql_ha_flush` runs at the start of
//! `open_tables`, MariaDB `sql/sql_base.cc`). Measured on 10.11.19 with a HANDLER open
//! and another session's ALTER waiting for X (found/seed-420497, seed-420528,
//! seed-420781 and their `-2` file): the HANDLER stays for
//! - CREATE PROCEDURE / FUNCTION of a new routine, and DROP PROCEDURE / FUNCTION IF
//!   EXISTS of a missing one (`sp_create_routine` / `sp_drop_routine`, sql/sp.cc, open
//!   `mysql.proc` with `open_system_table_for_update`, which opens that one table with
//!   `open_ltable`, not `open_tables`); a DROP of an existing routine and the event
//!   statements do close it (measured; the event ones open `mysql.event` with
//!   `open_and_lock_tables`);
//! - ALTER PROCEDURE / FUNCTION, of an existing routine or a missing one
//!   (`sp_update_routine`, sql/sp.cc, opens `mysql.proc` the same way: found/seed-431884
//!   and its `-2`);
//! - DROP SEQUENCE (`mysql_rm_table`, as DROP TABLE: found/seed-421451);
//! - ALTER DATABASE (`mysql_alter_db`: found/seed-481178);
//! - FLUSH TABLES with no list (`reload_acl_and_cache` → `flush_tables`, which opens
//!   no table);
//! - DROP TRIGGER IF EXISTS of a missing trigger (`mysql_create_or_drop_trigger` returns
//!   with a note when `add_table_for_trigger` finds no trigger, before it opens the
//!   table): `nothing_to_drop_trigger`, used by `trigger_flush`.

use super::{SqlModel, Then};
use crate::classify::{Effect, Plan, Stmt};
use crate::kind::Kind;
use crate::routines::{RoutineKind, RoutineOp};

impl SqlModel {
    /// The statement opens no table with `open_tables` (no `mysql_ha_flush`).
    pub(super) fn opens_no_table(&self, st: &Stmt) -> bool {
        let Stmt::Learned(p) = st else {
            return false;
        };
        if p.kind == Kind::FlushTables && p.parts.iter().all(|x| x.bind.t.is_none()) {
            return true;
        }
        // DROP SEQUENCE is `mysql_rm_table`, as DROP TABLE (`lock_table_names`, no
        // `open_tables`).
        if p.kind == Kind::DropSequence {
            return true;
        }
        // ALTER DATABASE is `mysql_alter_db` (sql/sql_db.cc): `lock_schema_name`, no
        // `open_tables` (random seed 481178: with a HANDLER open and another session's
        // ALTER TABLE waiting for it, the server's ALTER DATABASE deadlocks).
        if p.kind == Kind::AlterDb {
            return true;
        }
        let sp = |k: &RoutineKind| matches!(k, RoutineKind::Procedure | RoutineKind::Function);
        match p.effect.inner() {
            Effect::Routine(RoutineOp::Create { kind, r, .. }) => {
                sp(kind) && self.catalog.routines.get(*kind, r).is_none()
            }
            Effect::Routine(RoutineOp::Drop {
                kind,
                r,
                if_exists: true,
            }) => sp(kind) && self.catalog.routines.get(*kind, r).is_none(),
            // ALTER PROCEDURE / FUNCTION, of an existing routine or not
            // (`sp_update_routine`, sql/sp.cc: `open_proc_table_for_update`, `open_ltable`).
            Effect::Routine(RoutineOp::Alter { kind, .. }) => sp(kind),
            _ => false,
        }
    }

    /// A running DROP TRIGGER IF EXISTS of a trigger that does not exist (no flush after
    /// its X).
    pub(super) fn nothing_to_drop_trigger(&self, then: &Then) -> bool {
        matches!(then, Then::Plan(p) if self.drops_missing_trigger(p))
    }

    fn drops_missing_trigger(&self, p: &Plan) -> bool {
        matches!(p.effect.inner(), Effect::DropTrigger { tr, if_exists: true }
            if self.catalog.trigger_table(tr).is_none())
    }
}
