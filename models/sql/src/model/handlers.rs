//! The session's HANDLERs (`sql/sql_handler.cc`): which statements close them
//! (`mysql_ha_rm_tables`, `mysql_ha_flush`, `mysql_ha_cleanup_no_free`), and their locks.

use super::{Handler, SqlModel, Then};
use crate::classify::{Stmt, Tbl};
use crate::compose::Step;
use crate::kind::Kind;
use crate::stmt::SessionStmt;
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, OwnerId};

/// A HANDLER OPEN under a name (alias) no HANDLER of the session has: the learned
/// `handler` rule (E1066, learned opening the same table twice under its own name) is not
/// its rule. mysql_ha_open (sql/sql_handler.cc) looks the new HANDLER's alias up in
/// `thd->handler_tables_hash`; two HANDLERs on one table under different aliases are both
/// open, each with its table's SR (measured: models/conformance/handler-two-aliases.mdl).
pub(super) fn handler_open_new_alias(p: &crate::classify::Part, hs: &[Handler]) -> bool {
    if p.kind != Kind::HandlerOpen {
        return false;
    }
    let Some(t) = &p.bind.t else {
        return false;
    };
    let name = p.bind.alias.as_ref().unwrap_or(&t.name);
    !hs.iter().any(|h| h.alias == *name)
}

/// Does the statement go through open_tables (sql/sql_base.cc), whose start calls
/// `mysql_ha_flush`? Every statement the parser sends to open_and_lock_tables does, with
/// an empty table list too (SELECT, SET, DO); the transaction and HANDLER control
/// statements and USE do not (mysql_execute_command, sql/sql_parse.cc).
pub(super) fn flushes_handlers(st: &Stmt) -> bool {
    // CALL of a missing procedure (ER_SP_DOES_NOT_EXIST) fails after open_and_lock_tables
    // (SQLCOM_CALL, sql/sql_parse.cc; measured: found/seed-401319).
    if matches!(st, Stmt::Fails(1305)) {
        return true;
    }
    // SET TRANSACTION, SET completion_type and SET GLOBAL lock_wait_timeout are
    // SQLCOM_SET_OPTION, which calls `open_and_lock_tables` with its (empty) table list
    // before `sql_set_variables` (mysql_execute_command, sql/sql_parse.cc), as every SET
    // does (random seed 490903, found/seed-490903.mdl: the HANDLER another session's
    // RENAME waits for is closed).
    if matches!(
        st,
        Stmt::Session(
            SessionStmt::SetNextTransaction
                | SessionStmt::CompletionType(_)
                | SessionStmt::GlobalLockWaitTimeout(_)
                | SessionStmt::SetFails(_)
        )
    ) {
        return true;
    }
    !matches!(
        st,
        Stmt::Begin
            | Stmt::Commit
            | Stmt::Rollback
            | Stmt::UnlockTables
            | Stmt::HandlerClose(_)
            | Stmt::HandlerRead(_)
            | Stmt::BackupUnlock
            | Stmt::Use(_)
            // Refused before open_tables (a syntax error, ...).
            | Stmt::Fails(_)
            // SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT open no table.
            | Stmt::Session(_)
            // XA statements open no table (sql/xa.cc).
            | Stmt::Xa(_)
    ) && !matches!(st, Stmt::Learned(p) if matches!(p.kind, Kind::TableBackupLock | Kind::FlushStatus | Kind::FlushLogs))
    // (BACKUP LOCK takes its table's MDL itself, `backup_lock` in sql/backup.cc, with no
    // open_tables: measured, found/seed-361783, the HANDLER another session's ALTER waits
    // for stays open. HANDLERs are flushed in open_tables (sql_base.cc, mysql_ha_flush):
    // the `flush_status` kinds, FLUSH STATUS / THREADS / ... and RESET QUERY CACHE, run
    // reload_acl_and_cache with no table and open none: found/seed-380298; so do
    // FLUSH [BINARY | ERROR | ...] LOGS, `flush_logs` kinds: suite/handler-kept-no-open.mdl.)
}

/// A learned `handler` rule that gives back the HANDLER's SR: the statement closes the
/// session's HANDLERs on its tables (`mysql_ha_rm_tables`).
pub(super) fn closes_handler(r: &crate::mapping::RuleRow) -> bool {
    r.removed
        .iter()
        .any(|l| l.ns == "TABLE" && l.key == "$t" && l.ty.abbrev() == "SR")
}

/// The tables whose HANDLERs a part's statement closes: `mysql_ha_rm_tables` is given
/// every table the statement names (RENAME's targets too; measured: found/seed-1227).
pub(super) fn handler_tables(p: &crate::classify::Part) -> Vec<Option<Tbl>> {
    let mut v = vec![p.bind.t.clone()];
    if p.bind.t.is_some() && p.bind.n.is_some() {
        v.push(p.bind.n.clone());
    }
    v
}

impl SqlModel {
    pub(super) fn handler_index(&self, s: usize, name: &str) -> Option<usize> {
        let hs = &self.sessions[s].session.handlers;
        hs.iter().position(|h| h.alias == name).or_else(|| {
            hs.iter()
                .position(|h| h.table.name == name && h.alias == h.table.name)
        })
    }

    /// Closes (and forgets) the session's HANDLERs on `t`, or all of them
    /// (`mysql_ha_rm_tables`, `mysql_ha_cleanup`).
    pub(super) fn close_handlers_on(&mut self, s: usize, t: Option<&Tbl>) {
        let hs: Vec<usize> = self.sessions[s]
            .session
            .handlers
            .iter()
            .enumerate()
            .filter(|(_, h)| t.is_none() || Some(&h.table) == t)
            .map(|(i, _)| i)
            .collect();
        for i in hs.into_iter().rev() {
            let h = self.sessions[s].session.handlers.remove(i);
            if h.open {
                self.release_handler_lock(s, &h.table);
            }
        }
    }

    /// Closes every HANDLER of the session and keeps it (`mysql_ha_cleanup_no_free`,
    /// `sql/sql_handler.cc`): the next `HANDLER ... READ` opens its table again.
    pub(super) fn ha_close_no_free(&mut self, s: usize) {
        for i in 0..self.sessions[s].session.handlers.len() {
            if self.sessions[s].session.handlers[i].open {
                let t = self.sessions[s].session.handlers[i].table.clone();
                self.sessions[s].session.handlers[i].open = false;
                self.release_handler_lock(s, &t);
            }
        }
    }

    /// Closes the session's HANDLERs on `t` and keeps them (`mysql_ha_flush_tables`,
    /// `sql/sql_handler.cc`): the next `HANDLER ... READ` opens the table again.
    pub(super) fn ha_close_keep_on(&mut self, s: usize, t: &Tbl) {
        for i in 0..self.sessions[s].session.handlers.len() {
            if self.sessions[s].session.handlers[i].open
                && self.sessions[s].session.handlers[i].table == *t
            {
                self.sessions[s].session.handlers[i].open = false;
                self.release_handler_lock(s, t);
            }
        }
    }

    /// Whether the session holds a ticket of type `ty` on `k` besides its open HANDLERs'
    /// SR tickets: a statement's upgrade `from` a type moves its own ticket, never a
    /// HANDLER's. With a HANDLER on t2, `LOCK TABLES t2 READ, t2 AS x READ` opens t2 twice
    /// under one ticket (the second request finds the first one's, `find_ticket` in
    /// `MDL_context::acquire_lock`, sql/mdl.cc), upgraded to SRO once; the HANDLER's SR
    /// stays (measured: found/seed-441818).
    pub(super) fn holds_type_not_handler(&self, s: usize, k: &MdlKey, ty: LockType) -> bool {
        let n = self
            .table
            .session(self.sessions[s].id)
            .map_or(0, |x| x.book.on_key(k).filter(|h| h.ty == ty).count());
        let handlers = if ty == LockType::parse("SR").expect("SR") {
            let hs = &self.sessions[s].session.handlers;
            hs.iter()
                .filter(|h| h.open && self.handler_key(&h.table) == *k)
                .count()
        } else {
            0
        };
        n > handlers
    }

    pub(super) fn handler_key(&self, t: &Tbl) -> MdlKey {
        let n = self.dialect.namespace_by_name("TABLE").expect("TABLE");
        MdlKey::new(n, &t.db, &t.name)
    }

    pub(super) fn release_handler_lock(&mut self, s: usize, t: &Tbl) {
        let id = self.sessions[s].id;
        let k = self.handler_key(t);
        let sr = LockType::parse("SR").expect("SR");
        // The HANDLER's own ticket (explicit), not the transaction's SR on the same table
        // (mysql_ha_close_table gives MDL_context::release_lock the HANDLER's ticket;
        // measured: found/seed-120193, the transaction's SR goes at its commit, the
        // HANDLER's when another session's wait closes it).
        let own = self.table.session(id).and_then(|x| {
            x.book
                .on_key(&k)
                .filter(|h| h.ty == sr && h.dur == Duration::Explicit)
                .last()
                .map(|h| h.id)
        });
        match own {
            Some(tid) => {
                let _ = self.table.release_ticket(id, tid);
            }
            None => {
                let _ = self.table.release(id, &k, Some(sr));
            }
        }
    }

    /// `mysql_ha_flush`: closes the session's HANDLERs whose lock another session waits
    /// for with a conflicting request; returns the ones it closed.
    pub(super) fn ha_flush(&mut self, s: usize) -> Vec<usize> {
        self.ha_flush_with(s, false)
    }

    /// A copying ALTER waiting for its X after the copy (a request that follows a slow
    /// phase).
    pub(super) fn after_copy(&self, owner: OwnerId) -> bool {
        let x = LockType::parse("X").expect("X");
        self.sessions
            .iter()
            .find(|y| y.id == owner)
            .is_some_and(|y| {
                y.run.as_ref().is_some_and(|r| {
                    matches!(&r.then, Then::Plan(p) if p.kind == Kind::AlterCopy)
                        && r.waiting
                            .as_ref()
                            .is_some_and(|w| matches!(w.step, Step::Upgrade { ty, .. } if ty == x))
                })
            })
    }

    /// `ha_flush`; with `skip_after_copy`, a copying ALTER's X after its copy does not
    /// count (`after_copy`).
    pub(super) fn ha_flush_with(&mut self, s: usize, skip_after_copy: bool) -> Vec<usize> {
        let sr = LockType::parse("SR").expect("SR");
        let mut close = Vec::new();
        if cfg!(mdl_bug = "conform_no_ha_flush") {
            return close;
        }
        for (i, h) in self.sessions[s].session.handlers.iter().enumerate() {
            if !h.open {
                continue;
            }
            let k = self.handler_key(&h.table);
            let st = self.dialect.strategy(k.namespace());
            let conflict = self.table.lock(&k).is_some_and(|l| {
                l.waiting().iter().any(|w| {
                    w.owner != self.sessions[s].id
                        && st.conflicts_granted(w.ty, sr)
                        && !(skip_after_copy && self.after_copy(w.owner))
                })
            });
            if conflict {
                close.push(i);
            }
        }
        for i in &close {
            let t = self.sessions[s].session.handlers[*i].table.clone();
            self.sessions[s].session.handlers[*i].open = false;
            self.release_handler_lock(s, &t);
        }
        close
    }
}
