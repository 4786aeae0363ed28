//! What the SQL model reads from its statement table's dialect rather than assuming
//! MariaDB's: the namespace of user-level locks, and FTWRL's locks when it takes more than
//! one (MySQL 8.0: GLOBAL S, then COMMIT S).

use super::SqlModel;
use crate::kind::Kind;
use crate::mapping::OpKind;
use mdl_core::key::MdlKey;
use mdl_core::{Dialect, Duration, Namespace};

impl SqlModel {
    /// The namespace of GET_LOCK's lock: the one the table's `get_lock` kind names
    /// (MariaDB `USER_LOCK`, MySQL 8.0 `USER_LEVEL_LOCK`).
    pub(super) fn user_lock_namespace(&self, d: &Dialect) -> Namespace {
        let named = self
            .map
            .kind(Kind::GetLock.as_str())
            .and_then(|k| k.ops.first())
            .and_then(|o| d.namespace_by_name(&o.ns));
        named
            .or_else(|| d.namespace_by_name("USER_LOCK"))
            .or_else(|| d.namespace_by_name("USER_LEVEL_LOCK"))
            .expect("a user-lock namespace")
    }

    /// UNLOCK TABLES ends the global read lock: besides the lock the session keeps as
    /// its FTWRL (the last one taken), every other explicit lock the table's `ftwrl` kind
    /// takes. MySQL 8.0's FTWRL takes two (`Global_read_lock::lock_global_read_lock`:
    /// GLOBAL S; `make_global_read_lock_block_commit`: COMMIT S) and
    /// `Global_read_lock::unlock_global_read_lock` releases both; MariaDB's one lock
    /// (BACKUP_FTWRL1 upgraded to BACKUP_FTWRL2) leaves nothing here.
    pub(super) fn release_ftwrl_rest(&mut self, s: usize) {
        let Some(k) = self.map.kind(Kind::Ftwrl.as_str()) else {
            return;
        };
        if cfg!(mdl_bug = "sql_ftwrl_one_lock") {
            // Seeded bug: only the lock kept as the session's FTWRL goes.
            return;
        }
        let keys: Vec<(MdlKey, mdl_core::LockType)> = k
            .ops
            .iter()
            .filter(|o| o.op == OpKind::Acquire && o.dur == Duration::Explicit && o.key == "-")
            .filter_map(|o| {
                let n = self.dialect.namespace_by_name(&o.ns)?;
                Some((MdlKey::singleton(n), o.ty))
            })
            .collect();
        let id = self.sessions[s].id;
        for (key, ty) in keys {
            let _ = self.table.release(id, &key, Some(ty));
        }
    }
}
