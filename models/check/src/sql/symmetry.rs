//! Symmetry for SQL scenarios: sessions with the same statement program, the same
//! `kill` lines, that no assert names and whose name no statement mentions (`KILL QUERY
//! NAME`) are interchangeable ([`classes`]), and a state is named by the fingerprint of a
//! representative of its class under their permutations ([`name`]), as lock scenarios'
//! encoding sorts interchangeable sessions (`crate::model::encode`).
//!
//! The SQL model (`mdl_sql::model::SqlModel`) names sessions inside its lock table and
//! its sessions' statements in progress, and has no operation that renames them. So the
//! representative is not built by renaming a state: it is *replayed*. Each state keeps
//! the actions that led to it ([`Trail`], a shared list, one node per state); the
//! representative of `s` is the state that the same actions with the sessions renamed by
//! `σ` reach from the initial state, where `σ` sorts each class by a key of the session
//! in `s` (its program counter, latest outcome, kills left, wait, locks: [`key`]). When
//! `σ` renames nothing, the name is `s`'s own fingerprint and nothing is replayed.
//!
//! Sound (models/MODEL.md, "Symmetry for SQL scenarios"): the name of `s` is the
//! fingerprint of a state reachable from the initial state, which is `σ(s)` when the model
//! is equivariant under renaming interchangeable sessions (it is: they start alike,
//! run the same statements, and nothing the model reads depends on a session's number but
//! its name, which no statement mentions); two states with one name are then one state
//! up to a renaming, and every property reads interchangeable sessions alike (`*`
//! asserts, built-ins; an assert that names a session takes it out of its class). A key
//! that ties two sessions which differ elsewhere only loses reduction: the name is still
//! a real state of the class.

use super::{SqlAction, SqlCheck, SqlState};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The actions from the initial state to a state (empty when not kept).
#[derive(Clone, Debug, Default)]
pub struct Trail(Option<Arc<(SqlAction, Trail)>>);

impl Trail {
    /// This trail and one more action.
    pub fn push(&self, a: SqlAction) -> Trail {
        Trail(Some(Arc::new((a, self.clone()))))
    }

    /// The actions, first to last.
    pub fn actions(&self) -> Vec<SqlAction> {
        let mut v = Vec::new();
        let mut at = self;
        while let Some(n) = &at.0 {
            v.push(n.0);
            at = &n.1;
        }
        v.reverse();
        v
    }
}

/// The classes of interchangeable sessions with at least two members, each in session
/// order.
pub fn classes(m: &SqlCheck) -> Vec<Vec<usize>> {
    let n = m.sessions();
    let named = |s: usize| {
        // Seeded bug: sessions named by an assert are interchangeable too.
        !cfg!(mdl_bug = "sql_symmetry_ignores_asserts")
            && m.asserts
                .iter()
                .any(|a| a.session == Some(s) || a.at_step.is_some_and(|(x, _)| x == s))
    };
    // A statement mentions a session when one of its words is the session's name.
    let mentioned = |s: usize| {
        let name = m.session_name(s);
        m.programs.iter().flatten().any(|st| {
            st.sql
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .any(|w| w.eq_ignore_ascii_case(name))
        })
    };
    let program =
        |s: usize| -> Vec<&str> { m.programs[s].iter().map(|x| x.sql.as_str()).collect() };
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut placed = vec![false; n];
    for s in 0..n {
        if placed[s] || named(s) || mentioned(s) {
            continue;
        }
        let class: Vec<usize> = (s..n)
            .filter(|&t| {
                !placed[t]
                    && !named(t)
                    && !mentioned(t)
                    && m.kills[t] == m.kills[s]
                    && program(t) == program(s)
            })
            .collect();
        for &t in &class {
            placed[t] = true;
        }
        if class.len() > 1 {
            out.push(class);
        }
    }
    out
}

/// What the representative sorts a session of a class by: everything of it that the
/// SQL model tells without naming other sessions.
fn key(m: &SqlCheck, st: &SqlState, s: usize) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    st.pc[s].hash(&mut h);
    st.last[s].hash(&mut h);
    st.kills_left[s].hash(&mut h);
    st.model.is_waiting(s).hash(&mut h);
    st.model.between_instructions(s).hash(&mut h);
    st.model.wait_deadline(s).hash(&mut h);
    st.model.locks_of(s).hash(&mut h);
    m.finished(st, s).hash(&mut h);
    h.finish()
}

/// `σ`: `sigma[s]` is the session that real session `s` becomes in the representative;
/// `None` when it is the identity.
fn sigma(m: &SqlCheck, classes: &[Vec<usize>], st: &SqlState) -> Option<Vec<usize>> {
    let mut sigma: Vec<usize> = (0..m.sessions()).collect();
    let mut moved = false;
    for class in classes {
        let mut by_key: Vec<(u64, usize)> = class.iter().map(|&s| (key(m, st, s), s)).collect();
        by_key.sort_unstable();
        for (&slot, &(_, real)) in class.iter().zip(&by_key) {
            sigma[real] = slot;
            moved |= slot != real;
        }
    }
    moved.then_some(sigma)
}

fn rename(a: SqlAction, sigma: &[usize]) -> SqlAction {
    match a {
        SqlAction::Step(s) => SqlAction::Step(sigma[s]),
        SqlAction::Timeout(s) => SqlAction::Timeout(sigma[s]),
        SqlAction::Kill(s) => SqlAction::Kill(sigma[s]),
    }
}

/// The name of `st`'s class: the fingerprint of its representative (of `st` itself when
/// the representative is `st`), and whether the name is another state's (a renaming
/// replayed and accepted: what the SQL report counts as named by a representative).
pub fn name(m: &SqlCheck, classes: &[Vec<usize>], st: &SqlState) -> (u64, bool) {
    let Some(sigma) = sigma(m, classes, st) else {
        return (st.fingerprint(), false);
    };
    let mut x = m.initial();
    for a in st.trail.actions() {
        x = m.apply(&x, rename(a, &sigma)).0;
    }
    // Fail closed: the replay must show every session as `st` shows its preimage;
    // otherwise `st` is named by itself.
    let same = (0..m.sessions()).all(|s| key(m, &x, sigma[s]) == key(m, st, s));
    if same {
        (x.fingerprint(), true)
    } else {
        (st.fingerprint(), false)
    }
}
