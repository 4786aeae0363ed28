//! The SQL search's lock-key reduction (issue 28): a step whose keys no other session
//! will touch is taken first, alone; the rule of the lock scenarios' partial-order
//! reduction (`crate::model::por`) on the SQL model's footprints
//! ([`mdl_sql::model::footprint`]).
//!
//! In a state, session `p`'s next statement is taken alone when:
//!
//! 1. **footprint**: its keys (the bound of its statement's requests, the
//!    statement-duration ones included, plus every lock `p` holds, which it may give
//!    back) meet no key of any other session `q`'s *future footprint*: the bounds of
//!    `q`'s remaining statements (from the one in progress when `q` waits), the locks `q`
//!    holds, the one it waits for and the rest of its bulk acquire. The BACKUP and SCHEMA
//!    keys are left out when they are *quiet*: every type any of these footprints holds
//!    on them is compatible with every other (granted and pending matrices), so nobody
//!    waits there and grants on them commute. A session with no bound (`None`: a CALL,
//!    dynamic SQL, DDL on views, triggers or routines, ...) stops the reduction in the
//!    states where it has statements left;
//! 2. **invisible**, checked on the step taken: it ended nobody's statement (no events),
//!    `p` does not wait after it, it raised no conflict and was modelled, it changed no
//!    other session's SQL state nor the clock, and no `assert` on `p` (or `*`) goes from
//!    not shown to shown by `p`'s new outcome.
//!
//! **Sound for the SQL check's properties.** Let `a` be such a step. Future footprints
//! only shrink as their sessions act, and a session's actions touch only its own
//! footprint, so from this state on every action of another session touches keys
//! disjoint from `a`'s (or quiet ones, on which every request is granted at once and
//! grants commute): the two commute, and neither enables nor disables the other (`p`
//! does not wait, so nothing wakes, times out, kills or picks it as a deadlock victim;
//! `a` wakes and blocks nobody, and no deadlock search walks through keys nobody else
//! waits on). `a`'s outcome and effect are the same wherever it is taken along such a
//! path: the catalog objects it reads and writes are the ones it names (or, with links
//! from the setup, any: then every other naming session meets it), which no other
//! session names. The state graph is acyclic (every action moves a program counter,
//! the clock or a kill count), so every maximal path from here takes `a`, after
//! actions independent of it; moving `a` to the front gives a path of the same actions
//! with the same outcomes. The properties: a conflicting grant, a lost wakeup and an
//! unmodelled statement are read from the action taken and the lock table, alike on
//! both paths (quiet keys have no waiters); a stuck state has no step enabled, so `a`
//! was taken before it; an `assert` is an OR over sessions of each one's latest outcome,
//! and `a` is not taken alone when it makes `p` show an asserted outcome it did not show.
//! (States may differ from the full search's in the order of grants on a quiet key,
//! which changes the count of unique states, not what they can do.)
//!
//! Off with `--no-por`; its seeded bug `sql_por_no_statement_keys` leaves the BACKUP
//! types out of a step's keys (as if its statement-duration locks were not requested),
//! which `models/check/tests/sql_reduction.rs` catches on a DML-against-FTWRL file.

use super::{SqlAction, SqlCheck, SqlRecord, SqlState};
use mdl_sql::model::footprint::{quiet, setup_links, statement_footprint, Footprint};

/// The static part: per session, per step index `i` (and one past the end), the bound of
/// statements `i..` (`None` when one of them has none), and each statement's own bound.
#[derive(Clone, Debug)]
pub struct KeyPor {
    future: Vec<Vec<Option<Footprint>>>,
    step: Vec<Vec<Option<Footprint>>>,
}

impl KeyPor {
    pub fn new(m: &SqlCheck) -> KeyPor {
        let d = &m.init.dialect;
        let setup: Vec<&str> = m.scenario.setup.iter().map(|(_, q)| q.as_str()).collect();
        let linked = setup_links(&setup);
        let mut future = Vec::new();
        let mut step = Vec::new();
        for p in &m.programs {
            let own: Vec<Option<Footprint>> = p
                .iter()
                .map(|st| statement_footprint(d, &st.sql, linked))
                .collect();
            let mut fut = vec![Some(Footprint::default()); p.len() + 1];
            for i in (0..p.len()).rev() {
                fut[i] = match (&fut[i + 1], &own[i]) {
                    (Some(a), Some(b)) => {
                        let mut u = a.clone();
                        u.union(b);
                        Some(u)
                    }
                    _ => None,
                };
            }
            future.push(fut);
            step.push(own);
        }
        KeyPor { future, step }
    }

    /// Every key session `q` may still touch; `None` when unbounded.
    fn future_footprint(&self, st: &SqlState, q: usize) -> Option<Footprint> {
        let pc = st.pc[q] as usize;
        let from = if st.model.is_waiting(q) {
            pc.saturating_sub(1)
        } else {
            pc
        };
        let mut f = self.future[q].get(from)?.clone()?;
        f.union(&st.model.lock_footprint(q));
        Some(f)
    }

    /// The keys of session `p`'s next statement, with what it holds.
    fn step_footprint(&self, st: &SqlState, p: usize) -> Option<Footprint> {
        let mut f = self.step[p].get(st.pc[p] as usize)?.clone()?;
        if cfg!(mdl_bug = "sql_por_no_statement_keys") {
            // Seeded bug: the statement's BACKUP types (its statement-duration
            // protection request) are left out of its keys.
            f.backup = Default::default();
        }
        f.union(&st.model.lock_footprint(p));
        Some(f)
    }

    /// The first enabled step that may be taken alone, and what it does.
    pub fn alone(
        &self,
        m: &SqlCheck,
        st: &SqlState,
        enabled: &[SqlAction],
    ) -> Option<(SqlState, SqlRecord)> {
        let n = m.sessions();
        let ff: Vec<Option<Footprint>> = (0..n).map(|q| self.future_footprint(st, q)).collect();
        for &a in enabled {
            let SqlAction::Step(p) = a else { continue };
            if st.model.between_instructions(p) {
                continue;
            }
            let Some(fp) = self.step_footprint(st, p) else {
                continue;
            };
            let mut all = vec![&fp];
            let mut bounded = true;
            for (q, f) in ff.iter().enumerate() {
                match f {
                    _ if q == p => {}
                    Some(f) => all.push(f),
                    None => bounded = false,
                }
            }
            if !bounded {
                // An unbounded session may touch anything: nobody is taken alone.
                return None;
            }
            let qt = quiet(&st.model.dialect, &all);
            if all[1..].iter().any(|f| fp.meets(f, qt)) {
                continue;
            }
            let (next, rec) = m.apply(st, a);
            if invisible(m, st, &next, &rec, p) {
                return Some((next, rec));
            }
        }
        None
    }
}

/// The step of `p` from `pre` to `post` (record `rec`) ended nobody's statement, left `p`
/// not waiting, raised nothing, touched no other session, and shows no asserted outcome
/// for `p` that `pre` did not.
fn invisible(m: &SqlCheck, pre: &SqlState, post: &SqlState, rec: &SqlRecord, p: usize) -> bool {
    if !rec.events.is_empty()
        || rec.error.is_some()
        || post.unmodelled.is_some()
        || post.bad_grant.is_some()
        || post.model.is_waiting(p)
        || !post.model.others_untouched(&pre.model, p)
    {
        return false;
    }
    m.asserts.iter().all(|a| {
        let shows = |s: &SqlState| {
            s.last[p].is_some_and(|l| {
                l.outcome == a.outcome && a.at_step.is_none_or(|(x, k)| x == p && k == l.step)
            })
        };
        a.session.is_some_and(|x| x != p) || !shows(post) || shows(pre)
    })
}
