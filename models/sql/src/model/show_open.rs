//! SHOW CREATE TABLE and SHOW COLUMNS / FIELDS / INDEX / KEYS / DESCRIBE of a base table
//! open it for a moment with MDL_SHARED_HIGH_PRIO: `mysqld_show_create` (MariaDB
//! `sql/sql_show.cc`) calls `open_normal_and_derived_tables` with
//! MYSQL_OPEN_FORCE_SHARED_HIGH_PRIO_MDL, and the information_schema tables behind SHOW
//! COLUMNS / INDEX are filled by `fill_schema_table_by_open` with the same flag. SH is
//! compatible with every granted lock but X and passes a pending X, so the learned rows
//! (`show_create`, `show_columns`, measured against LOCK TABLES, FTWRL, BACKUP STAGE) hold
//! no lock; behind another session's granted X (a RENAME waiting for its next name) the
//! server waits with `TABLE test.t1 SH (pending)`. Measured on 10.11.19: random seed
//! 491419 (found/seed-491419.mdl) and its `-2`.
//!
//! Played as a prefix of the statement's run (as EXECUTE IMMEDIATE's prepare phase,
//! `model/prepare_open.rs`): SH of statement duration, given back at once. Not under LOCK
//! TABLES (the locked tables are used), not of a view or a temporary table, nor of a key
//! the session holds already (`MDL_context::find_ticket`).

use super::SqlModel;
use crate::classify::Plan;
use crate::compose::{Ctx, Step};
use crate::kind::Kind;
use mdl_core::{Duration, LockType};

impl SqlModel {
    /// Sets the SH prefix of a SHOW CREATE TABLE / SHOW COLUMNS plan by session `s`.
    pub(super) fn show_open_prefix(&mut self, s: usize, p: &Plan) {
        if !matches!(p.kind, Kind::ShowCreate | Kind::ShowColumns) {
            return;
        }
        let st = &self.sessions[s].session;
        if st.under_lock_tables() {
            return;
        }
        let id = self.sessions[s].id;
        let sh = LockType::parse("SH").expect("SH");
        let mut steps = Vec::new();
        for t in p.parts.iter().flat_map(|x| x.bind.tables()) {
            if !self.catalog.is_table(t) || st.temp_tables.iter().any(|(x, _)| x == t) {
                continue;
            }
            let key = self.handler_key(t);
            let held = self
                .table
                .session(id)
                .is_some_and(|x| x.book.on_key(&key).next().is_some());
            if held {
                continue;
            }
            steps.push(Step::Acquire {
                key: key.clone(),
                ty: sh,
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            });
            steps.push(Step::Release { key, ty: sh });
        }
        self.sessions[s].session.prepare_prefix.extend(steps);
    }
}
