//! Every maximal path of a SQL scenario, for playing each interleaving elsewhere (on the
//! server: models/check/tests/sql_server.rs). Not a search: no state is told apart.

use super::{SqlAction, SqlCheck, SqlState};

/// Every maximal path from the initial state (to a state where no action is enabled),
/// without timeouts and without another session's action between two instructions of a
/// CALL (a replay on the server would sleep for them), in depth-first order,
/// at most `cap` of them. For playing each interleaving elsewhere (on the server:
/// models/check/tests/sql_server.rs).
pub fn maximal_paths(m: &SqlCheck, cap: usize) -> Vec<Vec<SqlAction>> {
    fn walk(
        m: &SqlCheck,
        st: &SqlState,
        cur: &mut Vec<SqlAction>,
        out: &mut Vec<Vec<SqlAction>>,
        cap: usize,
    ) {
        if out.len() >= cap {
            return;
        }
        let mut acts = Vec::new();
        m.enabled(st, &mut acts);
        acts.retain(|a| !matches!(a, SqlAction::Timeout(_)));
        // A CALL stopped between two instructions runs on first: the server runs its
        // instructions on at once (no client stops it there), so a path through the
        // window is not one it can play.
        if let Some(s) = (0..m.sessions()).find(|&s| st.model.between_instructions(s)) {
            acts.retain(|a| *a == SqlAction::Step(s));
        }
        if acts.is_empty() {
            out.push(cur.clone());
            return;
        }
        for a in acts {
            let (next, _) = m.apply(st, a);
            cur.push(a);
            walk(m, &next, cur, out, cap);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    walk(m, &m.initial(), &mut Vec::new(), &mut out, cap);
    out
}
