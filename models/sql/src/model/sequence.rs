//! Sequences in the model's play (`classify/sequence.rs` classifies them): the error of
//! a sequence that does not exist, found when `open_table` has its lock; temporary
//! sequences (below).

use super::{SqlModel, Then};
use crate::catalog::{ER_NO_SUCH_TABLE, ER_TABLE_EXISTS};
use crate::classify::{classify, Effect, Plan, Stmt, Tbl, ER_NOT_SEQUENCE, ER_UNKNOWN_SEQUENCES};
use crate::kind::Kind;
use crate::stmt::{SessionStmt, TempChange, TempOp};

impl SqlModel {
    /// The error of session `s`'s statement once it has the lock of `t`, which does not
    /// exist: ER_NO_SUCH_TABLE, or the statement's own for a sequence (ER_UNKNOWN_SEQUENCES
    /// from `open_table` for a table list entry made by NEXTVAL / LASTVAL / SETVAL,
    /// `sql_base.cc`), or none (IF EXISTS).
    pub(super) fn missing_code(&self, s: usize, t: &Tbl) -> Option<u32> {
        let Some(Then::Plan(p)) = self.sessions[s].run.as_ref().map(|r| &r.then) else {
            return Some(ER_NO_SUCH_TABLE);
        };
        match &p.effect {
            Effect::NeedSequences(needs) => match needs.iter().find(|n| n.t == *t) {
                Some(n) => n.missing,
                None => Some(ER_NO_SUCH_TABLE),
            },
            _ => Some(ER_NO_SUCH_TABLE),
        }
    }
}

/// The learned kinds of sequence functions.
const FUNCS: &[Kind] = &[Kind::Nextval, Kind::Setval, Kind::Lastval];

/// A statement that opens a sequence for writing (NEXTVAL, SETVAL): its read-only
/// protection (the session's FTWRL, BACKUP STAGE) is checked inside `open_table`, after
/// the sequence is found (measured: under the session's FTWRL, NEXTVAL of a sequence
/// that does not exist is 4091, of a table 1223; found by `mdl conform --random 40
/// --seed 20261206`, scenario seed 20261207).
pub(super) fn writes_sequence(plan: &Plan) -> bool {
    plan.parts
        .iter()
        .any(|p| matches!(p.kind, Kind::Nextval | Kind::Setval))
}

fn temp(change: TempChange, commit: bool) -> Option<Result<Stmt, String>> {
    Some(Ok(Stmt::Session(SessionStmt::Temp(TempOp {
        change,
        commit,
    }))))
}

/// Temporary sequences (measured on 10.11): CREATE TEMPORARY SEQUENCE takes no metadata
/// lock (not even behind another session's FTWRL) but commits implicitly, unlike CREATE
/// TEMPORARY TABLE; DROP TEMPORARY SEQUENCE takes none and does not commit (of a
/// temporary table or of nothing: ER_UNKNOWN_SEQUENCES); DROP SEQUENCE of a temporary
/// sequence commits; NEXTVAL / LASTVAL / SETVAL of one take no lock (of a temporary table:
/// ER_NOT_SEQUENCE). All run under the session's own LOCK TABLES, FTWRL and BACKUP STAGE.
impl SqlModel {
    /// `CREATE TEMPORARY SEQUENCE ...`: the options checked as CREATE SEQUENCE's.
    pub(super) fn temp_create_sequence(
        &mut self,
        s: usize,
        sql: &str,
    ) -> Option<Result<Stmt, String>> {
        let low = sql.to_ascii_lowercase();
        let at = low.find("temporary")?;
        let plain = format!("{}{}", &sql[..at], &sql[at + "temporary".len()..]);
        let db = self.sessions[s].session.db.clone();
        let has = |r: &str| self.map.kind(r).is_some();
        let (t, engine, if_not_exists) = match classify(&plain, &db, &self.catalog, &has) {
            Ok(Stmt::Learned(p)) if p.kind == Kind::CreateSequence => match p.effect {
                Effect::CreateSequence {
                    t,
                    engine,
                    if_not_exists,
                    ..
                } => (t, engine, if_not_exists),
                _ => return None,
            },
            // (Invalid values: the parser's error.)
            Ok(Stmt::Fails(code)) => return Some(Ok(Stmt::Fails(code))),
            Ok(_) => {
                return Some(Err(format!(
                    "`{sql}`: this CREATE TEMPORARY SEQUENCE is not modelled"
                )))
            }
            Err(e) => return Some(Err(e)),
        };
        let exists = self.sessions[s]
            .session
            .temp_tables
            .iter()
            .any(|(x, _)| *x == t);
        if exists && self.sessions[s].session.in_txn {
            return Some(Err(format!(
                "`{sql}`: CREATE TEMPORARY SEQUENCE of a name the session has, in a \
                 transaction, is not modelled"
            )));
        }
        if exists {
            let change = if if_not_exists {
                TempChange::None
            } else {
                TempChange::Fail(ER_TABLE_EXISTS)
            };
            return temp(change, false);
        }
        temp(TempChange::CreateSequence(t, engine), true)
    }

    /// `DROP [TEMPORARY] SEQUENCE [IF EXISTS] list` with the session's temporary
    /// sequences: `None` for a list of base tables only (DROP SEQUENCE of the catalog).
    pub(super) fn temp_drop_sequence(
        &self,
        s: usize,
        w: &[String],
        db: &str,
        temporary: bool,
    ) -> Option<Result<Stmt, String>> {
        let (if_exists, ts) = super::temp::drop_list(w, db, temporary);
        let st = &self.sessions[s].session;
        let is_seq = |t: &Tbl| st.temp_sequences.contains(t);
        let is_temp = |t: &Tbl| st.temp_tables.iter().any(|(x, _)| x == t);
        let all_seqs = ts.iter().all(is_seq);
        if !temporary {
            return match (ts.iter().any(is_temp), all_seqs) {
                (false, _) => None,
                (true, true) => temp(TempChange::Drop(ts), true),
                (true, false) => Some(Err(
                    "DROP SEQUENCE of temporary and other tables together is not modelled".into(),
                )),
            };
        }
        if all_seqs || if_exists {
            let mine = ts.into_iter().filter(is_seq).collect();
            return temp(TempChange::Drop(mine), false);
        }
        if !ts.iter().any(is_seq) {
            return temp(TempChange::Fail(ER_UNKNOWN_SEQUENCES), false);
        }
        Some(Err(
            "DROP TEMPORARY SEQUENCE of existing and missing sequences together is not \
             modelled"
                .into(),
        ))
    }

    /// A sequence function of a temporary table that is not a sequence: ER_NOT_SEQUENCE
    /// (refused when the statement has base tables too: the error would come after their
    /// locks).
    pub(super) fn temp_sequence_check(&self, s: usize, p: &Plan) -> Option<Result<Stmt, String>> {
        let st = &self.sessions[s].session;
        let is_temp = |t: &Tbl| st.temp_tables.iter().any(|(x, _)| x == t);
        let wrong = p.parts.iter().any(|x| {
            FUNCS.contains(&x.kind)
                && x.bind
                    .t
                    .as_ref()
                    .is_some_and(|t| is_temp(t) && !st.temp_sequences.contains(t))
        });
        if !wrong {
            return None;
        }
        let all_temp = p
            .parts
            .iter()
            .all(|x| x.bind.t.as_ref().is_some_and(is_temp));
        if all_temp {
            return temp(TempChange::Fail(ER_NOT_SEQUENCE), false);
        }
        Some(Err(
            "a sequence function of a temporary table that is not a sequence, with base \
             tables, is not modelled"
                .into(),
        ))
    }

    /// What a statement needs of the catalog once its temporary tables are taken out.
    pub(super) fn temp_needs(&self, s: usize, e: Effect) -> Effect {
        let st = &self.sessions[s].session;
        match e {
            Effect::NeedSequences(ns) => Effect::NeedSequences(
                ns.into_iter()
                    .filter(|n| !st.temp_tables.iter().any(|(x, _)| *x == n.t))
                    .collect(),
            ),
            e => e,
        }
    }
}
