//! `SET GLOBAL read_only = 0 | 1` (`crate::classify::read_only`; MariaDB
//! `sql/sys_vars.cc`): any value is refused under LOCK TABLES, in an active transaction
//! and under a BACKUP STAGE (`check_read_only`, the variable's check before any update:
//! ER_LOCK_OR_ACTIVE_TRANSACTION, as the learned rules of the `set_global_read_only` row
//! say for LOCK TABLES and BACKUP STAGE). From 0 to 1 (`fix_read_only`): nothing to do for a session that has the global read lock, else
//! the global read lock as FTWRL takes it (the learned `ftwrl` row's BACKUP_FTWRL1 and its
//! upgrade to BACKUP_FTWRL2) for the statement only (`unlock_global_read_lock` before the
//! statement ends). Measured on 10.11.19: suite/set-global-read-only.mdl.

use super::SqlModel;
use crate::classify::Plan;
use crate::compose::{compose, Step};
use crate::effect::Effect;
use crate::kind::Kind;
use mdl_core::{Duration, Outcome};

/// ER_LOCK_OR_ACTIVE_TRANSACTION.
const ER_LOCK_OR_ACTIVE_TRANSACTION: u32 = 1192;

impl SqlModel {
    /// `check_read_only`'s refusal of a session in an active transaction (BEGIN, or a
    /// transactional engine used with autocommit off); `None` for any other statement.
    pub(super) fn read_only_refused(&mut self, s: usize, plan: &Plan) -> Option<Outcome> {
        let st = &self.sessions[s].session;
        let refused = st.in_txn || st.under_lock_tables() || st.backup.is_some();
        if !matches!(plan.effect, Effect::ReadOnly(_)) || !refused {
            return None;
        }
        Some(self.fail(s, ER_LOCK_OR_ACTIVE_TRANSACTION))
    }

    /// The steps of SET GLOBAL read_only = 1: none for a session that has the global read
    /// lock, else the `ftwrl` row's for the statement.
    pub(super) fn read_only_steps(&self, s: usize, plan: &Plan) -> Result<Vec<Step>, String> {
        if self.sessions[s].session.ftwrl.is_some() {
            return Ok(Vec::new());
        }
        let mut p = plan.clone();
        p.parts[0].row = Kind::Ftwrl.as_str().to_owned();
        let mut steps = compose(&self.map, &self.dialect, &self.catalog, &p)?;
        for st in &mut steps {
            if let Step::Acquire { dur, .. } | Step::Upgrade { dur, .. } = st {
                *dur = Duration::Statement;
            }
        }
        Ok(steps)
    }
}
