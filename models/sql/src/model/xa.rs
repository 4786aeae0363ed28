//! XA transactions (MariaDB `sql/xa.cc`: `trans_xa_start`, `trans_xa_end`,
//! `trans_xa_prepare`, `trans_xa_commit`, `trans_xa_rollback`), measured on 10.11
//! (`models/conformance/suite/xa-*.mdl`):
//!
//! - `XA START xid` begins the transaction (`trans_begin`): ER_XAER_OUTSIDE under LOCK
//!   TABLES or in an active transaction, ER_XAER_RMFAIL in an XA transaction,
//!   ER_XAER_INVAL with JOIN / RESUME, ER_XAER_DUPID for another session's xid;
//! - ACTIVE: statements run in the transaction; COMMIT, ROLLBACK, BEGIN and every
//!   statement that commits implicitly (DDL, LOCK TABLES, FTWRL) fail with
//!   ER_XAER_RMFAIL (`trans_check` through `trans_commit_implicit`) and keep the locks;
//! - `XA END xid`: ACTIVE to IDLE (ER_XAER_NOTA for another xid); in IDLE and PREPARED
//!   every statement that opens a table fails with ER_XAER_RMFAIL;
//! - `XA PREPARE xid`: IDLE to PREPARED; it requests BACKUP_COMMIT for the statement
//!   (it waits behind another session's FTWRL, a read-only transaction too) and keeps the
//!   transaction's locks;
//! - `XA COMMIT xid` of PREPARED and `XA ROLLBACK xid` of IDLE or PREPARED request
//!   BACKUP_COMMIT (a read-only transaction too) and give back every lock; `XA COMMIT
//!   xid ONE PHASE` of IDLE commits as COMMIT does (BACKUP_COMMIT when it wrote);
//!   another xid than the session's is ER_XAER_OUTSIDE.
//!
//! Not modelled (refused): XA statements on another session's xid (a prepared
//! transaction a disconnected session left), statements other than DML, SELECT,
//! transaction control and DDL inside an XA transaction, `XA RECOVER` inside one.

use super::run::RunShape;
use super::{Outcome, SqlModel, Step, Then};
use crate::classify::{Stmt, XaOp, XaStmt};
use crate::kind::Kind;

/// ER_XAER_NOTA: unknown xid.
pub const ER_XAER_NOTA: u32 = 1397;
/// ER_XAER_INVAL: an option the server does not support (JOIN, RESUME, SUSPEND).
pub const ER_XAER_INVAL: u32 = 1398;
/// ER_XAER_RMFAIL: the command cannot run in the XA transaction's state.
pub const ER_XAER_RMFAIL: u32 = 1399;
/// ER_XAER_DUPID: the xid is another session's.
pub const ER_XAER_DUPID: u32 = 1440;
/// ER_XAER_OUTSIDE: work done outside the global transaction.
pub const ER_XAER_OUTSIDE: u32 = 1400;

/// An XA transaction's state (`XA_ACTIVE`, `XA_IDLE`, `XA_PREPARED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XaState {
    Active,
    Idle,
    Prepared,
}

/// What a finished XA statement changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XaThen {
    Prepared,
    /// COMMIT / ROLLBACK: the transaction is over.
    Done,
}

impl SqlModel {
    /// A statement other than XA in a session in an XA transaction: its error, `None` to
    /// play it, `Err` when the model does not follow it there.
    pub(super) fn xa_gate(&mut self, s: usize, st: &Stmt) -> Result<Option<Outcome>, String> {
        let Some((_, state)) = self.sessions[s].session.xa.clone() else {
            return Ok(None);
        };
        let refuse = || {
            Err(format!(
                "this statement in an XA transaction ({state:?}) is not modelled"
            ))
        };
        let rmfail = match (state, st) {
            (_, Stmt::Xa(_) | Stmt::NoLocks | Stmt::Fails(_) | Stmt::SetTimeout(_)) => false,
            // A statement that opens no table (SHOW WARNINGS, GET DIAGNOSTICS, ...), as
            // NoLocks.
            (_, Stmt::Session(crate::stmt::SessionStmt::OpensNothing)) => false,
            (_, Stmt::Begin | Stmt::Commit | Stmt::Rollback) => true,
            (XaState::Active, Stmt::UnlockTables) => false,
            (_, Stmt::Learned(p))
                if p.kind.is_backup_stage()
                    || p.kind.is_handler()
                    || p.kind == Kind::TableBackupLock =>
            {
                return refuse();
            }
            (_, Stmt::Learned(p)) => {
                let row = self
                    .map
                    .kind(&p.parts[0].row)
                    .ok_or_else(|| self.map.missing_kind(&p.parts[0].row))?;
                // A statement that commits implicitly fails in every state
                // (trans_commit_implicit); in IDLE and PREPARED, one that opens a table
                // too (measured: SELECT and INSERT).
                let opens = p.parts.iter().any(|x| x.bind.t.is_some());
                match (row.implicit_commit, state, opens) {
                    (true, ..) => true,
                    (false, XaState::Active, _) => false,
                    (false, _, true) => true,
                    (false, _, false) => return refuse(),
                }
            }
            _ => return refuse(),
        };
        Ok(rmfail.then(|| self.fail(s, ER_XAER_RMFAIL)))
    }

    /// Plays an XA statement.
    pub(super) fn xa_stmt(&mut self, s: usize, x: XaStmt) -> Result<Outcome, String> {
        let me = self.sessions[s].session.xa.clone();
        let other = |m: &SqlModel| {
            m.sessions
                .iter()
                .enumerate()
                .any(|(i, o)| i != s && o.session.xa.as_ref().is_some_and(|(id, _)| *id == x.xid))
        };
        let refuse = |what: &str| Err(format!("{what} is not modelled"));
        let st = &self.sessions[s].session;
        let mine = me.as_ref().map(|(id, _)| *id == x.xid);
        let code = match (x.op, me.map(|(_, st)| st)) {
            (XaOp::Recover, None) => return Ok(Outcome::Ok),
            (XaOp::Recover, Some(_)) => return refuse("XA RECOVER in an XA transaction"),
            (XaOp::Start, Some(XaState::Idle)) if x.option => {
                return refuse("XA START ... RESUME / JOIN in IDLE")
            }
            (XaOp::Start | XaOp::End, _) if x.option => ER_XAER_INVAL,
            (XaOp::Start, Some(_)) => ER_XAER_RMFAIL,
            (XaOp::Start, None) if st.under_lock_tables() || st.in_txn => ER_XAER_OUTSIDE,
            (XaOp::Start, None) => {
                if st.ftwrl.is_some() || st.backup.is_some() {
                    return refuse("XA START under the session's FTWRL / BACKUP STAGE");
                }
                if other(self) {
                    // trans_begin, then xid_cache_insert fails: trans_rollback.
                    return Ok(self.fail(s, ER_XAER_DUPID));
                }
                self.sessions[s].session.xa = Some((x.xid, XaState::Active));
                return self.start_commit(s, Then::Begin);
            }
            (XaOp::End, Some(XaState::Active)) if mine == Some(true) => {
                self.sessions[s]
                    .session
                    .xa
                    .as_mut()
                    .expect("an XA transaction")
                    .1 = XaState::Idle;
                return Ok(Outcome::Ok);
            }
            (XaOp::End, Some(XaState::Active)) => ER_XAER_NOTA,
            (XaOp::End, _) => ER_XAER_RMFAIL,
            (XaOp::Prepare, Some(XaState::Idle)) if mine == Some(true) => {
                let steps = self.commit_steps()?;
                let then = Then::Xa(XaThen::Prepared);
                return Ok(self.start_run(s, steps, Vec::new(), RunShape::PLAIN, None, then));
            }
            (XaOp::Prepare, Some(XaState::Idle)) => ER_XAER_NOTA,
            (XaOp::Prepare, _) => ER_XAER_RMFAIL,
            // No XA transaction: in a multi-statement transaction (BEGIN, or autocommit
            // off: `in_multi_stmt_transaction_mode`) ER_XAER_OUTSIDE first (measured,
            // --random seed 9080), then ONE PHASE is ER_XAER_INVAL (seed 7002), else the
            // xid is unknown.
            (XaOp::Commit { .. } | XaOp::Rollback, None)
                if st.under_lock_tables() || other(self) =>
            {
                return refuse("XA COMMIT / ROLLBACK outside the session's XA transaction");
            }
            (XaOp::Commit { .. } | XaOp::Rollback, None) if st.in_txn || !st.autocommit => {
                ER_XAER_OUTSIDE
            }
            (XaOp::Commit { one_phase: true }, None) => ER_XAER_INVAL,
            (XaOp::Commit { .. } | XaOp::Rollback, None) => ER_XAER_NOTA,
            (XaOp::Commit { .. } | XaOp::Rollback, Some(_)) if mine == Some(false) => {
                ER_XAER_OUTSIDE
            }
            (XaOp::Commit { .. } | XaOp::Rollback, Some(XaState::Active)) => ER_XAER_RMFAIL,
            (XaOp::Commit { one_phase: true }, Some(XaState::Idle)) => {
                return self.start_commit(s, Then::Xa(XaThen::Done));
            }
            (XaOp::Commit { one_phase: true }, Some(_)) => ER_XAER_INVAL,
            (XaOp::Commit { one_phase: false }, Some(XaState::Idle)) => ER_XAER_RMFAIL,
            (XaOp::Commit { one_phase: false }, Some(XaState::Prepared)) => {
                let mut steps = self.commit_steps()?;
                steps.push(Step::Commit);
                let then = Then::Xa(XaThen::Done);
                return Ok(self.start_run(s, steps, Vec::new(), RunShape::PLAIN, None, then));
            }
            (XaOp::Rollback, Some(_)) => {
                // It requests BACKUP_COMMIT first, in IDLE and PREPARED, a read-only
                // transaction too (measured: it waits behind another session's FTWRL).
                let mut steps = self.commit_steps()?;
                steps.push(Step::Commit);
                let then = Then::Xa(XaThen::Done);
                return Ok(self.start_run(s, steps, Vec::new(), RunShape::PLAIN, None, then));
            }
        };
        Ok(self.fail(s, code))
    }

    /// What a finished XA statement changes in the session.
    pub(super) fn xa_then(&mut self, s: usize, then: XaThen) {
        let st = &mut self.sessions[s].session;
        match then {
            XaThen::Prepared => {
                if let Some(x) = st.xa.as_mut() {
                    x.1 = XaState::Prepared;
                }
            }
            XaThen::Done => {
                st.xa = None;
                st.in_txn = false;
                st.wrote = false;
            }
        }
    }
}
