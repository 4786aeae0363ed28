//! The transaction of a CREATE TEMPORARY TABLE ... LIKE / ... SELECT of base tables
//! with autocommit off (`model::temp` plays it as its SELECT, `pending_temp`).
//!
//! With autocommit off and no BEGIN, a statement's locks stay only once a transactional
//! engine takes part (`trans_register_ha` sets SERVER_STATUS_IN_TRANS; until then
//! `mysql_execute_command`, sql/sql_parse.cc, gives the locks back at the statement's
//! end: `model::finish`, `statement_end`). Which engine takes part here is not the
//! SELECT's:
//! - `LIKE src`: `mysql_create_like_table` (sql/sql_table.cc) opens the source for its
//!   definition only (no `lock_tables`, so no `external_lock` registers InnoDB): the
//!   source's SR goes at the end whatever its engine, and with it the locks of earlier
//!   statements of a MyISAM-only transaction (measured: found/seed-340433, the source
//!   InnoDB; found/seed-340433-3);
//! - `... SELECT`: the rows are written into the new table (`select_create`,
//!   sql/sql_insert.cc), so its engine takes part besides the SELECT's tables: an InnoDB
//!   temporary table keeps a MyISAM source's SR (measured: found/seed-340433-2, the
//!   default engine; ENGINE=MyISAM of a MyISAM source keeps none, found/seed-340433-3).
//! - in a transaction (BEGIN, or one made active), a LIKE whose source is missing keeps
//!   the source's SR after its ER_NO_SUCH_TABLE, as a statement that failed after its
//!   open keeps its transaction locks (measured: found/seed-421487; the server function
//!   that leaves it is not identified).
//! - DML of base tables and InnoDB temporary tables (`INSERT INTO tmp SELECT ... FROM
//!   m1`): InnoDB's `external_lock` of the temporary table registers InnoDB in the
//!   transaction (`trans_register_ha`, sql/handler.cc, from `ha_innobase::external_lock`
//!   through `innobase_register_trx`), as for a base table: the MyISAM source's SR stays
//!   (measured: seed-441354).

use super::SqlModel;
use crate::catalog::Engine;
use crate::classify::Plan;

/// How the running CREATE TEMPORARY TABLE fills its new table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TempFill {
    /// `LIKE src`: from the source's definition.
    Like,
    /// `[AS] SELECT ...`: rows written into a table of this engine.
    Select(Engine),
    /// Not a CREATE: a DML statement of base tables that uses an InnoDB temporary table.
    TempInnoDb,
}

impl SqlModel {
    /// For a CREATE TEMPORARY TABLE played as its SELECT `p` with autocommit off and no
    /// transaction active: whether no transactional engine takes part (its locks go at
    /// its end); `None` for any other statement (the caller's rule applies).
    pub(super) fn temp_fill_engine_less(&self, s: usize, p: &Plan) -> Option<bool> {
        match self.sessions[s].session.temp_fill? {
            TempFill::Like => Some(true),
            TempFill::Select(Engine::InnoDb) | TempFill::TempInnoDb => Some(false),
            TempFill::Select(_) => Some(!p.parts.iter().any(|part| {
                part.bind
                    .tables()
                    .any(|t| self.catalog.engine(t) == Some(Engine::InnoDb))
            })),
        }
    }

    /// A DML statement played as its base tables' parts (`tmp`: its parts on temporary
    /// tables, set aside): an InnoDB one among them takes part in the transaction.
    pub(super) fn note_temp_engine(&mut self, s: usize, tmp: &[crate::classify::Part]) {
        let innodb = tmp.iter().any(|x| {
            x.bind
                .tables()
                .any(|t| self.temp_engine(s, t) == Some(Engine::InnoDb))
        });
        if innodb && self.sessions[s].session.temp_fill.is_none() {
            self.sessions[s].session.temp_fill = Some(TempFill::TempInnoDb);
        }
    }

    /// A CREATE TEMPORARY TABLE ... LIKE that fails in a transaction keeps the
    /// transaction locks it took.
    pub(super) fn temp_like_keeps_on_error(&self, s: usize) -> bool {
        self.sessions[s].session.temp_fill == Some(TempFill::Like)
    }
}
