//! PREPARE closes the session's HANDLERs on the tables of a statement that closes them
//! when it runs: `check_prepared_statement` (MariaDB `sql/sql_prepare.cc`) calls
//! `mysql_ha_rm_tables(thd, tables)` for a command with CF_HA_CLOSE (ALTER, CREATE,
//! DROP, RENAME, TRUNCATE, the admin statements: `init_update_queries`,
//! `sql/sql_parse.cc`) before it checks anything else. Measured: found/seed-340644,
//! `HANDLER t1 OPEN` then `PREPARE st1 FROM 'ALTER TABLE t1 FORCE'` leaves no SR.
//!
//! The statements that close HANDLERs are the ones of those commands (by their first
//! word, [`HA_CLOSE_WORDS`]) whose learned `handler` rule gives the HANDLER's SR back
//! (`super::closes_handler`), and CREATE TABLE on its name. RENAME TABLE has no
//! CF_HA_CLOSE (`mysql_rename_tables` closes them when it runs): measured,
//! found/seed-340644-2.

use super::{closes_handler, handler_tables, SqlModel};
use crate::classify::{Effect, Stmt};

/// The first words of the commands with CF_HA_CLOSE.
const HA_CLOSE_WORDS: &[&str] = &[
    "create", "drop", "alter", "truncate", "repair", "optimize", "analyze", "check", "load",
    "cache",
];

impl SqlModel {
    /// At PREPARE of `text` by session `s`: closes (and forgets) its HANDLERs on the
    /// tables the statement would close them on.
    pub(super) fn prepare_ha_close(&mut self, s: usize, text: &str) {
        let first = crate::words::words(text).into_iter().next();
        if self.sessions[s].session.handlers.is_empty()
            || !first.is_some_and(|w| HA_CLOSE_WORDS.contains(&w.as_str()))
        {
            return;
        }
        let Ok(Stmt::Learned(p)) = self.classify_in(s, text) else {
            return;
        };
        let mut tables = Vec::new();
        for part in &p.parts {
            let closes = self
                .map
                .rule("handler", &part.row)
                .is_some_and(|r| r.error.is_none() && closes_handler(r));
            if closes {
                tables.extend(handler_tables(part).into_iter().flatten());
            }
        }
        if let Effect::CreateTable { t, .. } = p.effect.inner() {
            tables.push(t.clone());
        }
        for t in tables {
            self.close_handlers_on(s, Some(&t));
        }
    }
}
