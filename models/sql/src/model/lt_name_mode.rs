//! Under LOCK TABLES a DML statement finds its table by name and alias (`open_table`,
//! `classify/lock_alias.rs`: a plain name sees the plain entries), but DDL finds it by
//! name alone: `find_table_for_mdl_upgrade` / `find_write_locked_table` (MariaDB
//! `sql/sql_base.cc`) take any instance of the table locked for writing, an aliased one
//! too. So for DDL the table's mode is the strongest of all its entries, which the
//! session's LOCK TABLES locks show (SNRW for a WRITE entry, SW for WRITE CONCURRENT).
//! Measured on 10.11.19: found/seed-421124.mdl (`LOCK TABLES t1 READ LOCAL, t1 AS x
//! WRITE`, then `DROP TABLE t1, t4`: 1100 for t4, not 1099 for t1).
//! Before it looks at the instances, `find_table_for_mdl_upgrade` checks that the session
//! owns BACKUP_DDL (taken by a WRITE entry only): `LOCK TABLES t2 WRITE CONCURRENT, t2 AS x
//! READ LOCAL` holds SNRW on t2 (the SW and the READ entry's upgrade to SRO) but no
//! BACKUP_DDL, so DDL of t2 is 1099 (measured: found/seed-441633).
//! FLUSH TABLES with no list judges the tables the same way: `reload_acl_and_cache`
//! (MariaDB `sql/sql_reload.cc`) asks for BACKUP_DDL, then for an upgradable ticket of
//! each open table, and a READ entry of a table that also has a WRITE entry shares its
//! SNRW ticket (`MDL_context::acquire_locks` takes the stronger request of one key
//! first; the weaker one finds its ticket). Measured: found/seed-471414 (`LOCK TABLES m1
//! READ, m1 AS x WRITE`, then FLUSH TABLES: ok, not 1099).

use super::SqlModel;
use crate::classify::{LtMode, Part};
use crate::kind::Kind;
use mdl_core::key::MdlKey;
use mdl_core::LockType;

/// The statement kinds that open their tables by name and alias (DML and reads).
fn opens_by_alias(kind: Kind) -> bool {
    let kind = kind.as_str();
    [
        "select", "insert", "update", "delete", "replace", "load", "checksum", "show", "handler",
    ]
    .iter()
    .any(|k| kind.starts_with(k))
}

impl SqlModel {
    /// The LOCK TABLES mode `p`'s statement sees for its table, from the plain entries'
    /// `mode`.
    pub(super) fn lt_mode_by_name(
        &self,
        s: usize,
        p: &Part,
        mode: Option<LtMode>,
    ) -> Option<LtMode> {
        let (Some(t), Some(m)) = (&p.bind.t, mode) else {
            return mode;
        };
        if m == LtMode::Write || opens_by_alias(p.kind) {
            return mode;
        }
        let k = self.handler_key(t);
        let ty = |x: &str| LockType::parse(x).expect("lock type");
        // find_table_for_mdl_upgrade first asks for the session's BACKUP_DDL (which only
        // a WRITE entry takes): without it, ER_TABLE_NOT_LOCKED_FOR_WRITE whatever the
        // table's locks, as for the plain entries' mode (seed-441633).
        let backup = MdlKey::parse(&self.dialect, "BACKUP", "-").expect("BACKUP key");
        if !self.holds_type(s, &backup, ty("BACKUP_DDL")) {
            return mode;
        }
        if self.holds_type(s, &k, ty("SNRW")) {
            Some(LtMode::Write)
        } else if m == LtMode::Read && self.holds_type(s, &k, ty("SW")) {
            Some(LtMode::WriteConcurrent)
        } else {
            mode
        }
    }

    /// The LOCK TABLES mode that FLUSH TABLES (no list) sees: WRITE when the session
    /// owns BACKUP_DDL and holds SNRW on every table it locked; otherwise the weakest
    /// entry's (any READ entry, then any WRITE CONCURRENT one), as before.
    pub(super) fn lt_mode_of_flush(&self, s: usize) -> LtMode {
        let st = &self.sessions[s].session;
        let ty = |x: &str| LockType::parse(x).expect("lock type");
        let backup = MdlKey::parse(&self.dialect, "BACKUP", "-").expect("BACKUP key");
        let upgradable = self.holds_type(s, &backup, ty("BACKUP_DDL"))
            && st
                .lock_tables
                .iter()
                .all(|(t, _)| self.holds_type(s, &self.handler_key(t), ty("SNRW")));
        if upgradable {
            LtMode::Write
        } else if st.lock_tables.iter().any(|(_, m)| *m == LtMode::Read) {
            LtMode::Read
        } else if st
            .lock_tables
            .iter()
            .any(|(_, m)| *m == LtMode::WriteConcurrent)
        {
            LtMode::WriteConcurrent
        } else {
            LtMode::Write
        }
    }
}
