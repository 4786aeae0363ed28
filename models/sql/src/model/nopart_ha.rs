//! The HANDLERs of a partition statement on a table that is not partitioned (learned rows
//! `nopart_*`, `classify/partition.rs`). SQLCOM_ALTER_TABLE has CF_HA_CLOSE
//! (`init_update_queries`, MariaDB `sql/sql_parse.cc`), so `mysql_execute_command` calls
//! `mysql_ha_rm_tables(thd, all_tables)` before anything else: the session's HANDLERs on
//! every table the statement names are closed, EXCHANGE's second table too, and then the
//! statement fails on its own (ER_PARTITION_MGMT_ON_NONPARTITIONED, or ER_NO_SUCH_TABLE
//! for a missing table). The learned `handler` rules of these rows carry that 1505 as
//! their result: it is the statement's error, not one the open HANDLER causes, so the
//! catalog decides it (`Effect::NotPartitioned`, `Effect::ExchangeNotPartitioned`).
//! Measured: found/seed-400151.mdl.

use super::{SqlModel, Tbl};
use crate::catalog::ER_PARTITION_MGMT_ON_NONPARTITIONED;
use crate::classify::{Effect, Part, Plan};

/// Whether the learned `handler` rule's error `code` for `p` is the statement's own
/// error (the HANDLER is closed and the statement goes on to fail by itself).
pub(super) fn nopart_own_error(p: &Part, code: u32) -> bool {
    p.kind.is_nopart() && code == ER_PARTITION_MGMT_ON_NONPARTITIONED
}

impl SqlModel {
    /// The tables whose HANDLERs an EXCHANGE PARTITION of a table that is not partitioned
    /// closes first: both it names.
    pub(super) fn nopart_ha_close(&self, s: usize, plan: &Plan) -> Vec<Option<Tbl>> {
        match plan.effect.inner() {
            Effect::ExchangeNotPartitioned(t, swap)
                if !self.sessions[s].session.handlers.is_empty() =>
            {
                vec![Some(t.clone()), Some(swap.clone())]
            }
            _ => Vec::new(),
        }
    }
}
