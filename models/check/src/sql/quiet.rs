//! The SQL search's reduction (issue 28, item 3): a *private* step is taken first,
//! alone.
//!
//! A session's next statement is private when the SQL model says it touches nothing but
//! the session's own SQL state, here and in every state the other sessions' steps lead
//! to ([`mdl_sql::model::SqlModel::private_step`]: a bare `BEGIN`, `COMMIT` or
//! `ROLLBACK` of a session that holds and waits for no lock and has nothing a commit
//! gives back), and playing it here changed nothing else: the same lock table, catalog,
//! clock and other sessions, no other session's outcome
//! ([`mdl_sql::model::SqlModel::only_session_changed`]), and the statement modelled.
//!
//! **Sound for the SQL check's properties.** Such a step `a` of session `s` commutes
//! with every action of the other sessions, from this state and from every state they
//! lead to (they neither read nor write what it writes, and it reads nothing they
//! write), and it stays enabled until taken (nothing but its own step moves `s`, which
//! does not wait). So every path of the full search that leaves `a` out for a while, `b1
//! .. bk a c ...`, reaches its states in the same order as `a b1 .. bk c ...` but for
//! the states between, which differ from the reduced path's only in session `s`'s
//! latest outcome and `in_txn`. The properties read no `in_txn`; no conflicting grant
//! and no lost wakeup read the lock table and the action taken, alike on both paths;
//! a stuck state has no step enabled, so `a` was taken before it and the reduced search
//! reaches it too; an `assert` names an outcome of one session's latest statement,
//! and a state between shows for `s` an outcome the state before `b1` already showed
//! (and for the others, the outcome the reduced path shows after the same action). The
//! state space is acyclic (every action moves a program counter, the clock, or a kill
//! count on), so no step is put off forever.
//!
//! Off with `--no-por` (the lock scenarios' partial-order reduction switch); the seeded
//! bug `sql_quiet_any_step` takes any step of a session that does not wait for private
//! (`models/check/tests/sql_reduction.rs` catches it).

use super::{SqlAction, SqlCheck, SqlRecord, SqlState};

/// The first enabled private step and what it does, if there is one.
pub fn private_step(
    m: &SqlCheck,
    st: &SqlState,
    enabled: &[SqlAction],
) -> Option<(SqlState, SqlRecord)> {
    for &a in enabled {
        let SqlAction::Step(s) = a else { continue };
        // (A CALL's next instruction is no private step.)
        if st.model.between_instructions(s) {
            continue;
        }
        let k = st.pc[s] as usize;
        if !st.model.private_step(s, &m.programs[s][k].sql) {
            continue;
        }
        let (next, rec) = m.apply(st, a);
        let alone = cfg!(mdl_bug = "sql_quiet_any_step")
            || (next.model.only_session_changed(&st.model, s)
                && rec.events.is_empty()
                && rec.error.is_none()
                && next.unmodelled.is_none()
                && next.bad_grant.is_none());
        if alone {
            return Some((next, rec));
        }
    }
    None
}
