//! Partial-order reduction: in a state where some session's next action touches only
//! lock objects that no other session will ever touch again, and wakes, blocks and
//! aborts nobody, that action alone is explored (a singleton ample set); the other
//! orders of it and the other sessions' actions lead to the same states.
//!
//! # Why this is sound for every property `mdl check` checks
//!
//! Let `a` be session `p`'s next action (a step, or a bulk acquire going on) in state
//! `s`, chosen by [`Por::ample`]:
//!
//! 1. **Footprint.** The lock objects `a` reads or writes are the keys its command names,
//!    plus (for a command that releases) the keys `p` holds, leaving out *quiet* keys:
//!    keys on which no two lock types the scenario ever requests conflict or yield to
//!    each other ([`Codec::is_quiet`]). Every request on a quiet key is granted at once,
//!    nobody ever waits on it, its hog and piglet counters stay 0, and the order of its
//!    granted list is not part of the state ([`super::encode`]): any two actions on it
//!    commute, so it needs no place in a footprint. None of the others is in any other
//!    session `q`'s *future footprint*: the keys named by `q`'s remaining steps, the keys
//!    `q` holds (its commit will release them), the key `q` waits for and the rest of its
//!    bulk acquire. Future footprints only shrink as `q` acts, and other sessions' actions
//!    only ever touch their own future footprints: a wake-up of `q` grants `q` the key it
//!    waited for; a deadlock victim is a waiting session, and `p` does not wait.
//! 2. **Independence.** So from `s`, every action of every other session is independent
//!    of `a`: they touch disjoint lock objects; `a` wakes, aborts or blocks nobody (checked
//!    on the step: no events, `p`'s outcome is not `waiting` or `deadlock`), so it neither
//!    enables nor disables another action; nothing another session does can disable `a`
//!    (`p` does not wait, so it is never woken or chosen as a victim); and the deadlock
//!    detector's walk from another session cannot reach `p` through `a`'s keys, because
//!    nobody else waits on them. `a`'s own effect and outcome are the same wherever it is
//!    taken along such a path.
//! 3. **Every path keeps its equivalent.** The state graph is acyclic: every action
//!    advances a program counter (a step), shortens a bulk acquire (a resume), or ends a
//!    wait (timeout, kill), and nothing moves any of them back. So every maximal path from
//!    `s` is finite and ends in a state with no enabled action; `a` stays enabled until it
//!    is taken, so every maximal path from `s` takes `a`, after actions that are all
//!    independent of it. Moving `a` to the front gives an equivalent path (the same
//!    actions, each with the same outcome) that begins with `a`. By induction every
//!    interleaving is equivalent to an explored one. (This is why the cycle proviso of
//!    ample sets, C3, holds trivially here, and no stack or queue proviso is needed for
//!    DFS or BFS.)
//! 4. **Visibility.** Equivalent paths take the same actions with the same outcomes, so
//!    every property about what one action does is preserved: a conflicting grant, a
//!    false deadlock, the outcome of a step (the warnings of `check`), the grants that
//!    pass a waiting session over (`bounded`). The final states are the same (no stuck
//!    state). A state of the original path corresponds to a state of the explored one
//!    that has some ample actions taken early; the property predicates must not tell the
//!    two apart, so an ample action must be *invisible*:
//!    - **no lost wakeup** looks at waiters; nobody waits on `a`'s keys, and `p` does not
//!      wait after `a`: invisible by (1);
//!    - `assert never|sometimes S O [at line N]` looks at `S`'s latest outcome: `a` is
//!      visible when it gives `p` = `S` (any session, for `*`) the outcome `O` (of that
//!      line), and then it is not chosen;
//!    - `assert eventually S granted` and `assert bounded S N` look at the grants on the
//!      key `S` waits for and at that lock's configuration: `S`'s footprint, disjoint
//!      from `a`'s by (1);
//!    - the per-action flags (conflicting grant, false deadlock, starvation) are set by
//!      the action that makes the violation, and an action that sets one is not chosen.
//!      (A later action clears them; the search records the first violating state, so
//!      for this argument they behave as if they stayed set.)
//!
//! Combined with symmetry the reduction is applied to the representative state the
//! search expands; its successors are mapped to their representatives as usual.
//!
//! The empirical check: `models/mdl/tests/reduction_verdicts.rs` runs every bundled
//! scenario and every check scenario (those of the seeded bugs included) with and without
//! the reduction and symmetry and requires identical verdicts, in any build (a seeded
//! bug's too); the seeded bug `por_release_independent` (the keys a commit gives back
//! left out of its footprint: a dependent pair taken for independent) is caught by that
//! comparison on `tests/check_scenarios/por_release.mdl`.

use super::encode::Codec;
use super::keys::{add, command_keys, disjoint, union, KeySet, MAX_KEYS};
use super::{Action, MdlModel, Record, State};
use mdl_core::Outcome;
use mdl_scenario::{AssertKind, Command};

/// Does a command give back locks it does not name (all of a kind, or up to a
/// savepoint)?
fn releases_unnamed(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::EndStatement
            | Command::Commit
            | Command::Rollback
            | Command::ReleaseExplicit
            | Command::RollbackTo(_)
            | Command::Disconnect
    )
}

/// The static part of the reduction, built once per model.
#[derive(Clone, Debug)]
pub struct Por {
    /// Per session, per step: the keys the step names.
    step_keys: Vec<Vec<KeySet>>,
    /// Per session, per step index `i` (and one past the end): the keys named by steps
    /// `i..`.
    future: Vec<Vec<KeySet>>,
    releases: Vec<Vec<bool>>,
}

/// What the reduction did, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct PorStats {
    /// States expanded with a single action although more were enabled.
    pub reduced: u64,
    /// Enabled actions not explored in those states.
    pub skipped: u64,
}

impl Por {
    /// `None` when the scenario names more than [`MAX_KEYS`] keys.
    pub fn new(m: &MdlModel, codec: &Codec) -> Option<Por> {
        if codec.keys.len() > MAX_KEYS {
            return None;
        }
        let mut step_keys = Vec::new();
        let mut future = Vec::new();
        let mut releases = Vec::new();
        for p in &m.programs {
            let sk: Vec<KeySet> = p
                .iter()
                .map(|st| {
                    let mut s = KeySet::default();
                    for k in command_keys(&st.cmd) {
                        let i = codec.key_index(&k);
                        if !codec.is_quiet(i) {
                            add(&mut s, i);
                        }
                    }
                    s
                })
                .collect();
            let mut fut = vec![KeySet::default(); p.len() + 1];
            for i in (0..p.len()).rev() {
                let mut u = fut[i + 1];
                union(&mut u, &sk[i]);
                fut[i] = u;
            }
            releases.push(p.iter().map(|st| releases_unnamed(&st.cmd)).collect());
            step_keys.push(sk);
            future.push(fut);
        }
        Some(Por {
            step_keys,
            future,
            releases,
        })
    }

    fn held(codec: &Codec, st: &State, s: usize) -> KeySet {
        let mut k = KeySet::default();
        for h in st.table.sessions()[s].book.held() {
            let i = codec.key_index(&h.key);
            if !codec.is_quiet(i) {
                add(&mut k, i);
            }
        }
        k
    }

    /// Every key session `q` may still touch.
    fn future_footprint(&self, codec: &Codec, st: &State, q: usize) -> KeySet {
        let pc = (st.pc[q] as usize).min(self.future[q].len() - 1);
        let mut f = self.future[q][pc];
        union(&mut f, &Self::held(codec, st, q));
        let x = &st.table.sessions()[q];
        if let Some(w) = &x.wait {
            add(&mut f, codec.key_index(&w.key));
        }
        if let Some(r) = &x.resume {
            for b in &r.rest {
                add(&mut f, codec.key_index(&b.key));
            }
        }
        f
    }

    /// The keys `a` (a step or resume of session `p`) reads or writes.
    fn footprint(&self, codec: &Codec, st: &State, p: usize, a: Action) -> KeySet {
        let pc = st.pc[p] as usize;
        let i = match a {
            Action::Step(_) => pc,
            // A resume goes on with the bulk acquire of the step before.
            _ => pc.saturating_sub(1),
        };
        let mut f = self.step_keys[p].get(i).copied().unwrap_or_default();
        let releases = self.releases[p].get(i).copied().unwrap_or(false);
        // Seeded bug `mdl_bug="por_release_independent"`: the keys a commit or release
        // gives back are left out of its footprint, so it is taken for independent of
        // another session's request on them (a dependent pair taken for independent).
        let bug = cfg!(mdl_bug = "por_release_independent");
        if (releases || matches!(a, Action::Resume(_))) && !bug {
            union(&mut f, &Self::held(codec, st, p));
        }
        f
    }

    /// The sessions whose single enabled action may form an ample set on the static
    /// test (footprint disjoint from every other session's future footprint), in order.
    /// `enabled` are the state's enabled actions.
    pub fn candidates(&self, codec: &Codec, st: &State, enabled: &[Action], out: &mut Vec<Action>) {
        out.clear();
        let n = st.pc.len();
        if enabled.len() < 2 {
            return;
        }
        let ff: smallvec::SmallVec<[KeySet; 8]> = (0..n)
            .map(|q| self.future_footprint(codec, st, q))
            .collect();
        // Keys quiet from this state on commute like the scenario-wide quiet ones
        // (`super::quiet`): left out of footprints too.
        let dq = codec.dynamic_quiet().map(|q| q.keys(codec, st));
        for &a in enabled {
            let p = a.session();
            if !matches!(a, Action::Step(_) | Action::Resume(_)) {
                continue;
            }
            // A session with a step or resume enabled has no other action.
            let mut fp = self.footprint(codec, st, p, a);
            if let Some(q) = &dq {
                for (x, y) in fp.iter_mut().zip(q) {
                    *x &= !y;
                }
            }
            if (0..n).all(|q| q == p || disjoint(&fp, &ff[q])) {
                out.push(a);
            }
        }
    }

    /// The dynamic part: did the candidate, taken from `pre` into `post`, block, wake or
    /// abort anybody, set a violation flag, or change what an assert looks at?
    pub fn invisible(m: &MdlModel, pre: &State, post: &State, rec: &Record) -> bool {
        let p = rec.action.session();
        if !rec.events.is_empty()
            || matches!(
                rec.outcome,
                Some(Outcome::Waiting) | Some(Outcome::Deadlock)
            )
            || post.bad_grant.is_some()
            || post.bad_deadlock.is_some()
            || post.starved != 0
            || post.bad_cycle.is_some()
            || post.bad_reorder.is_some()
            || post.bad_jumps.is_some()
        {
            return false;
        }
        let x = &post.table.sessions()[p];
        if x.wait.is_some() || x.resume.is_some() {
            return false;
        }
        for a in &m.asserts {
            match a.kind {
                AssertKind::Never | AssertKind::Sometimes => {
                    // `p`'s own part of the predicate: the same in every order of `a`
                    // and the other sessions' actions (they do not change `p`'s outcome).
                    if a.session.is_none_or(|s| s == p)
                        && m.outcome_counts(a, post, p, a.outcome)
                        && !m.outcome_counts(a, pre, p, a.outcome)
                    {
                        return false;
                    }
                }
                AssertKind::Eventually | AssertKind::Bounded(_) => {}
            }
        }
        true
    }
}
